"""Three probes of more evidence on the order of files for questions in words (stop 61).

Each reorders what `Index.search` returns (30 files, grouped by file, default settings) for
every question in words of the repository benchmark, and is scored by file NDCG@10 against
the search's own order, paired over questions:

- `docs`: documentation points at code. The best five chunks of the same search among the
  documentation (`.md`, `.rst`, `.adoc`) quote names in backticks; each name defined in at
  most `most_defined` files credits those files (a doc chunk's weight its score over the best
  doc chunk's, shared among its names and their files); each file's score times
  1 + lambda x its credit (0-1 over the files).
- `cards`: each candidate file's lead comment (the first comment of six words or more in its
  first 80 lines that is not a licence) embedded by the default model; each file's score
  times 1 + lambda x its similarity to the question (0-1 over the candidate files that have
  one; a file without one at the lowest or the median).
- `ensemble`: the file orders of four whole searches merged by weighted reciprocal rank: the
  default search, the keyword arm alone (`mode="keyword"`), the vectors alone
  (`mode="semantic"`) and the search over the fast model's vectors (`vectors="fast"`). Two
  merges were fixed on the benchmark's dev questions before the fresh and terse dev
  questions and the held-out third were read: the default with the fast model's search
  (k 5, even weights) and all four (k 3, weights 1 / 0.5 / 0.3 / 0.5).

    python -m benches.quality.opinion_probes [--out benches/results/quality_opinion_probes.json]
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from benches.quality import repos
from benches.quality.dataset import data_dir
from benches.quality.metrics import paired_bootstrap

RESULTS = Path(__file__).resolve().parents[1] / "results" / "quality_opinion_probes.json"
DEPTH = 30
DOC_EXTENSIONS = ("md", "rst", "adoc")
SEARCHES = {
    "default": {},
    "keyword": {"mode": "keyword"},
    "semantic": {"mode": "semantic"},
    "fast": {"vectors": "fast"},
}
#: The merges chosen on the benchmark's dev questions: (k, weight per search).
FIXED_MERGES = {
    "default + fast": (5, {"default": 1.0, "fast": 1.0}),
    "all four": (3, {"default": 1.0, "keyword": 0.5, "semantic": 0.3, "fast": 0.5}),
}
QUESTION_SETS = {
    "dev": ("dev", repos.REPO_QUERIES),
    "fresh": ("dev", repos.FRESH_QUERIES),
    "terse": ("dev", repos.FRESH_TERSE_QUERIES),
    "test": ("test", repos.REPO_QUERIES),
}
_QUOTED = re.compile(r"`([^`\n]{2,80})`")
_NAME = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::|#)[A-Za-z_]\w*)*")
_LICENCE = re.compile(r"licen[cs]e|copyright|\(c\)|spdx|all rights", re.IGNORECASE)
_BLOCK_OPENERS = {"/**": "*/", "/*": "*/", '"""': '"""', "'''": "'''", "{-|": "-}", "{-": "-}",
                  "--[[": "]]", "=begin": "=end"}
_LINE_COMMENT = re.compile(r"^(///|//!|//|#|--\s*\||--|;;)\s?(.*)$")


def file_ndcg(files: list[str], targets: set[str]) -> float:
    """File NDCG@10 as `benches.quality.repos.score` counts it."""
    gains = [1 if path in targets else 0 for path in files[:10]]
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(10, len(targets))))
    return sum(gain / math.log2(i + 2) for i, gain in enumerate(gains)) / ideal


def quoted_names(text: str) -> list[str]:
    """The last segment of each name quoted in backticks (three characters or more)."""
    names = []
    for span in _QUOTED.findall(text):
        for name in _NAME.findall(span):
            last = re.split(r"\.|::|#", name)[-1]
            if len(last) >= 3:
                names.append(last)
    return list(dict.fromkeys(names))


def lead_comment(text: str) -> str | None:
    """A file's first comment of six words or more in its first 80 lines, not a licence."""
    blocks: list[list[str]] = []
    current: list[str] = []
    closer = None
    for line in (raw.strip() for raw in text.splitlines()[:80]):
        if closer:
            current.append(line.replace(closer, ""))
            if closer in line:
                blocks.append(current)
                current, closer = [], None
            continue
        opener = next((o for o in _BLOCK_OPENERS if line.startswith(o)), None)
        if opener:
            rest = line[len(opener):]
            if _BLOCK_OPENERS[opener] in rest:
                blocks.append([rest.replace(_BLOCK_OPENERS[opener], "")])
            else:
                current, closer = [rest], _BLOCK_OPENERS[opener]
            continue
        comment = _LINE_COMMENT.match(line)
        if comment and not line.startswith(("#include", "#define", "#if", "#!")):
            current.append(comment.group(2))
            continue
        if current:
            blocks.append(current)
            current = []
    blocks.append(current)
    for block in blocks:
        text = " ".join(part.strip(" *") for part in block).strip()
        if len(re.findall(r"[A-Za-z]{2,}", text)) >= 6 and not _LICENCE.search(text):
            return " ".join(text.split()[:120])
    return None


def collect(split: str, questions: Path) -> list[dict[str, Any]]:
    """Per question in words: each search's files, the doc chunks' quoted names and the files
    defining them, and each default candidate's lead-comment similarity to the question."""
    import sharc

    rows = []
    for repo in repos.load_repos(split, questions=questions):
        asked = [q for q in repo.queries if q.category != "symbol"]
        if not asked:
            continue
        index = sharc.Index.open(repo.root, index_dir=data_dir() / "index-cache" / "repos" / repo.name)
        manifest = index._reader_manifest()
        embedder = index.embedder()
        for query in asked:
            lists = {
                name: [(hit.path, hit.score) for hit in index.search(query.text, limit=DEPTH, **options).results]
                for name, options in SEARCHES.items()
            }
            docs = []
            for hit in index.search(query.text, limit=5, extensions=DOC_EXTENSIONS).results:
                names = quoted_names(hit.code or "")
                defined: dict[str, set[str]] = defaultdict(set)
                for row in manifest.definitions_named(names) if names else []:
                    defined[row.symbol].add(row.path)
                docs.append((hit.score, {name: sorted(paths) for name, paths in defined.items()}))
            cards = {}
            for path, _ in lists["default"]:
                comment = lead_comment((repo.root / path).read_text(errors="replace"))
                if comment:
                    cards[path] = comment
            similarity = {}
            if cards:
                vectors = embedder.embed_documents(list(cards.values()))
                question = embedder.embed_queries([query.text])[0]
                similarity = {path: float(v @ question) for path, v in zip(cards, vectors)}
            rows.append({"id": query.id, "category": query.category, "lists": lists, "docs": docs,
                         "cards": similarity, "targets": sorted({t.path for t in query.targets})})
        print(f"{repo.name:24} {len(asked)} questions", flush=True)
    return rows


def merged(row: dict[str, Any], k: int, weights: dict[str, float]) -> list[str]:
    score: dict[str, float] = defaultdict(float)
    for name, weight in weights.items():
        for rank, (path, _) in enumerate(row["lists"][name]):
            score[path] += weight / (k + rank + 1)
    return sorted(score, key=lambda path: -score[path])


def lifted(row: dict[str, Any], credit: dict[str, float], lift: float) -> list[str]:
    files = row["lists"]["default"]
    top = max(credit.values(), default=0.0)
    if top <= 0:
        return [path for path, _ in files]
    return [path for path, _ in sorted(files, key=lambda f: -f[1] * (1 + lift * credit.get(f[0], 0.0) / top))]


def doc_credit(row: dict[str, Any], docs: int, most_defined: int) -> dict[str, float]:
    credit: dict[str, float] = defaultdict(float)
    best = row["docs"][0][0] if row["docs"] else 0.0
    for score, defined in row["docs"][:docs]:
        names = [n for n, paths in defined.items() if len(paths) <= most_defined]
        for name in names:
            for path in defined[name]:
                credit[path] += (score / best if best else 0.0) / len(defined[name]) / len(names)
    return credit


def card_credit(row: dict[str, Any], fill: str) -> dict[str, float]:
    values = list(row["cards"].values())
    if not values:
        return {}
    low, high = min(values), max(values)
    missing = sorted(values)[len(values) // 2] if fill == "median" else low
    spread = high - low or 1.0
    return {path: (row["cards"].get(path, missing) - low) / spread for path, _ in row["lists"]["default"]}


def compare(rows: list[dict[str, Any]], orders: list[list[str]]) -> dict[str, Any]:
    base = [file_ndcg([p for p, _ in row["lists"]["default"]], set(row["targets"])) for row in rows]
    new = [file_ndcg(order, set(row["targets"])) for row, order in zip(rows, orders)]
    mean, low, high = paired_bootstrap(new, base)
    by_category: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row, a, b in zip(rows, new, base):
        by_category[row["category"]].append((a, b))
    return {
        "ndcg": round(100 * sum(new) / len(new), 2),
        "against_default": [round(mean, 2), round(low, 2), round(high, 2)],
        "categories": {c: round(100 * sum(a - b for a, b in pairs) / len(pairs), 2)
                       for c, pairs in sorted(by_category.items())},
    }


def probes(rows: list[dict[str, Any]], *, grids: bool) -> dict[str, Any]:
    """Each search alone, the fixed merges and, where `grids`, every setting tried on dev."""
    result: dict[str, Any] = {
        "questions": len(rows),
        "searches": {name: round(100 * sum(file_ndcg([p for p, _ in r["lists"][name]], set(r["targets"]))
                                           for r in rows) / len(rows), 2) for name in SEARCHES},
        "fixed_merges": {name: compare(rows, [merged(r, k, w) for r in rows])
                         for name, (k, w) in FIXED_MERGES.items()},
    }
    if grids:
        result["docs"] = {
            f"docs {docs}, defined in <= {most}, lambda {lift}": compare(
                rows, [lifted(r, doc_credit(r, docs, most), lift) for r in rows])
            for docs in (1, 3, 5) for most in (1, 3) for lift in (0.1, 0.25, 0.5, 1.0)
        }
        result["cards"] = {
            f"missing at the {fill}, lambda {lift}": compare(
                rows, [lifted(r, card_credit(r, fill), lift) for r in rows])
            for fill in ("lowest", "median") for lift in (0.1, 0.25, 0.5, 1.0)
        }
        result["ensemble"] = {
            f"k {k}, keyword {wk}, semantic {ws}, fast {wf}": compare(
                rows, [merged(r, k, {"default": 1.0, "keyword": wk, "semantic": ws, "fast": wf})
                       for r in rows])
            for k in (3, 5, 10) for wk in (0.0, 0.3, 0.5) for ws in (0.0, 0.3) for wf in (0.0, 0.5, 1.0)
            if wk or ws or wf
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    report = {"benchmark": "opinion probes (stop 61)", "depth": DEPTH, "sets": {}}
    for name, (split, questions) in QUESTION_SETS.items():
        rows = collect(split, questions)
        report["sets"][name] = probes(rows, grids=name == "dev")
        print(name, json.dumps(report["sets"][name]["fixed_merges"]), flush=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
