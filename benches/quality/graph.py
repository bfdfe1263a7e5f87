"""The code graph against grep: do `callers` find the call sites a search of the text finds?

For each pinned repository of the repository benchmark (`benches/quality/repos.py`, 38
repositories, 19 languages), the tree is indexed keyword-only (the graph needs no vectors).
Then a fixed-seed sample of functions and methods is drawn among the names defined exactly
once in the repository (so that grep's hits of the name are the hits of that definition), and
for each:

- **graph**: `Graph.callers(chunk id)`, every edge with a confidence above 0 (the sites whose
  resolution includes the definition), and separately the *sure* ones (confidence at least
  `GraphSettings.sure`: the edges a user is told are that definition's callers);
- **grep**: lines of the files in the definition's language family that match the language's
  call pattern (`NAME(` with a word boundary for languages that call with parentheses; a
  word-boundary mention not followed by `=`/`:` for Ruby, Elixir, Haskell, OCaml, Clojure and
  Bash, which call without them), less comment lines, the definition's own signature line and
  lines that declare the name (`def NAME(`, `static int NAME(`, a C prototype).

Precision is the share of graph call sites grep finds too, recall the share of grep's sites the
graph finds, both micro-averaged over the sampled functions, per language and overall. Grep is
a baseline, not the truth: it counts calls in strings and in code the grammar does not parse
as calls (macros, string-built calls), and a name-only search cannot tell a call through an
unrelated receiver; where the two disagree the per-function details say where.

    python -m benches.quality.graph                 # -> benches/results/quality_graph.json
    python -m benches.quality.graph --repos jq,koa --per-repo 10 --out /tmp/graph.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benches.quality.dataset import RESULTS_DIR, data_dir
from benches.quality.repos import Repo, load_repos, unpack

SEED = 14
PER_REPO = 25
#: Names shorter than this are too generic for a grep baseline to mean anything.
MIN_NAME = 4
#: Languages whose calls need no parentheses: grep looks for mentions of the name instead.
MENTION_LANGUAGES = frozenset({"ruby", "elixir", "haskell", "ocaml", "clojure", "bash"})
FUNCTION_KINDS = frozenset({"function", "method"})
COMMENT = re.compile(r"^\s*(#|//|/\*|\*|--|;|%)")
FAMILIES = (
    frozenset({"javascript", "typescript", "tsx", "vue", "svelte"}),
    frozenset({"c", "cpp", "objc"}),
    frozenset({"java", "kotlin", "scala"}),
)


@dataclass(frozen=True)
class Sample:
    """One sampled definition and the call sites each side found, as `path:line`."""

    repo: str
    language: str
    chunk_id: str
    name: str
    grep: frozenset[str]
    graph: frozenset[str]
    sure: frozenset[str]


def family(language: str) -> frozenset[str]:
    return next((f for f in FAMILIES if language in f), frozenset({language}))


def call_pattern(name: str, language: str) -> re.Pattern[str]:
    """A call of `name`: `name(`, `name!(`, `name::<T>(`, `name<T>(`; Lua also `name "x"` and
    `name {`; a mention not followed by `=` or `:` where calls need no parentheses."""
    escaped = re.escape(name)
    if language in MENTION_LANGUAGES:
        return re.compile(rf"(?<![\w$@:]){escaped}(?![\w?!])(?!\s*(=[^=~>]|:))")
    opening = r"""[("'{]""" if language == "lua" else r"\("
    return re.compile(rf"(?<![\w$]){escaped}!?(::)?(<[^<>()]*>)?\s*{opening}")


#: Words before a name that make a line its declaration, not a call.
DECLARING = re.compile(
    r"\b(def|function|func|fn|fun|sub|proc|defp?|let|val|var|const|static|extern|void|int|"
    r"char|bool|double|float|long|unsigned|public|private|protected|internal|override|inline|"
    r"CJSON_PUBLIC|export)\b[^=(]*$"
)


def is_declaration(line: str, match: re.Match[str]) -> bool:
    """`def load(`, `static int load(`, `cJSON *load(...);`: the name is declared here."""
    before = line[: match.start()]
    return bool(DECLARING.search(before)) and "return" not in before and "=" not in before


def grep_sites(
    root: Path, files: Sequence[str], name: str, language: str, signature: str
) -> set[str]:
    """`path:line` of every line that calls `name` by the language's pattern."""
    pattern = call_pattern(name, language)
    sites = set()
    for path in files:
        text = _read(root / path)
        if name not in text:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            found = pattern.search(line)
            if found and not COMMENT.match(line) and not is_declaration(line, found):
                sites.add(f"{path}:{number}")
    sites.discard(signature)
    return sites


_TEXTS: dict[Path, str] = {}


def _read(path: Path) -> str:
    if path not in _TEXTS:
        try:
            _TEXTS[path] = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            _TEXTS[path] = ""
    return _TEXTS[path]


def signature_line(root: Path, path: str, start: int, end: int, name: str) -> str:
    """`path:line` of the first line of a definition's chunk that names it."""
    lines = _read(root / path).splitlines()
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w])")
    for number in range(start, min(end, len(lines)) + 1):
        if word.search(lines[number - 1]):
            return f"{path}:{number}"
    return f"{path}:{start}"


def index_repo(repo: Repo, index_root: Path) -> Any:
    import sharc

    index = sharc.Index.open(unpack(repo), index_dir=index_root / repo.name)
    index.update(embed=False)
    return index


def sample_repo(repo: Repo, index: Any, per_repo: int, rng: random.Random) -> list[Sample]:
    from sharc.graph import Graph

    graph: Graph = index.graph()
    manifest = graph.manifest
    files = manifest.files()
    languages = family(repo.language)
    in_family = sorted(p for p, f in files.items() if f.language in languages)
    by_name: dict[str, list[Any]] = defaultdict(list)
    for batch in manifest.iter_chunks():
        for record in batch:
            if record.symbol and "#part" not in record.id:
                by_name[record.symbol].append(record)
    unique = sorted(
        (
            records[0] for name, records in by_name.items()
            if len(records) == 1 and len(name) >= MIN_NAME
            and records[0].kind in FUNCTION_KINDS and records[0].language in languages
            and name.isidentifier()
        ),
        key=lambda record: record.id,
    )
    rng.shuffle(unique)
    root = index.root
    samples = []
    for record in unique:
        if len(samples) >= per_repo:
            break
        signature = signature_line(root, record.path, record.start_line, record.end_line,
                                   record.symbol)
        grep = grep_sites(root, in_family, record.symbol, record.language, signature)
        edges = graph.callers(record.id)
        if not grep and not edges:
            continue  # never called: says nothing about either side
        found = {e.location for e in edges if e.confidence > 0}
        sure = {e.location for e in edges if e.confidence >= graph.settings.sure}
        samples.append(Sample(repo.name, repo.language, record.id, record.symbol,
                              frozenset(grep), frozenset(found), frozenset(sure)))
    return samples


def scores(samples: Sequence[Sample], side: str) -> dict[str, Any]:
    """Micro-averaged precision and recall of the graph's `side` ("graph" or "sure")."""
    found = sum(len(getattr(s, side)) for s in samples)
    truth = sum(len(s.grep) for s in samples)
    common = sum(len(getattr(s, side) & s.grep) for s in samples)
    return {
        "precision": round(common / found, 4) if found else None,
        "recall": round(common / truth, 4) if truth else None,
        "graph_sites": found, "grep_sites": truth, "common": common,
    }


def summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    by_language: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_language[sample.language].append(sample)
    return {
        "overall": {"functions": len(samples), "all_edges": scores(samples, "graph"),
                    "sure_edges": scores(samples, "sure")},
        "per_language": {
            language: {"functions": len(group), "repos": sorted({s.repo for s in group}),
                       "all_edges": scores(group, "graph"), "sure_edges": scores(group, "sure")}
            for language, group in sorted(by_language.items())
        },
    }


def details(sample: Sample) -> dict[str, Any]:
    return {
        "repo": sample.repo, "id": sample.chunk_id, "name": sample.name,
        "grep": len(sample.grep), "graph": len(sample.graph), "sure": len(sample.sure),
        "graph_only": sorted(sample.graph - sample.grep)[:5],
        "grep_only": sorted(sample.grep - sample.graph)[:5],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", default="", help="comma-separated repository names")
    parser.add_argument("--per-repo", type=int, default=PER_REPO)
    parser.add_argument("--index-root", type=Path,
                        default=data_dir() / "index-cache" / "graph")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_graph.json")
    args = parser.parse_args(argv)
    names = [n for n in args.repos.split(",") if n]
    repos = load_repos("all", names)
    rng = random.Random(SEED)
    samples: list[Sample] = []
    started = time.monotonic()
    timings = {}
    for repo in repos:
        began = time.monotonic()
        index = index_repo(repo, args.index_root)
        found = sample_repo(repo, index, args.per_repo, rng)
        index.close()
        samples.extend(found)
        timings[repo.name] = round(time.monotonic() - began, 1)
        line = scores(found, "graph")
        print(f"{repo.name:<24} {repo.language:<10} {len(found):>3} functions  precision"
              f" {line['precision']}  recall {line['recall']}", file=sys.stderr)
    summary = summarize(samples)
    result = {
        "benchmark": "code graph callers vs grep call sites",
        "command": "python -m benches.quality.graph" + (f" --repos {args.repos}" if names else ""),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seed": SEED, "per_repo": args.per_repo, "min_name": MIN_NAME,
        "mention_languages": sorted(MENTION_LANGUAGES),
        "seconds": round(time.monotonic() - started, 1), "seconds_per_repo": timings,
        **summary,
        "functions": [details(s) for s in samples],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    overall = summary["overall"]
    print(f"overall: {overall['functions']} functions; all edges {overall['all_edges']};"
          f" sure edges {overall['sure_edges']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
