"""A probe: the simplest ranker of the field over sharc's own arms.

The leading peer turns two weak arms into a strong hybrid with little more than an even
score fusion (min-max over each arm's first 30 hits, half and half for questions in words,
0.3 semantic for names), a lift for files whose name or folder holds the question's words,
a lift for files with several candidates, and path penalties (tests, examples, compat). sharc
turns two strong arms into a smaller gain. This probe replays sharc's raw arm hits (captured
from the live search, `pipeline.rank_hits`) through such a ranker and compares its file
NDCG@10 with sharc's on the same questions:

    python -m benches.quality.simple_fusion_probe --split dev
    python -m benches.quality.simple_fusion_probe --split dev --variant names=sharc

Nothing of it reaches the library; it tells whether the pipeline's stages cost what an even
fusion would gain.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import CATEGORIES, DEPTH, distinct_files, load_repos, score

STOPWORDS = frozenset(
    "a an and are as at be by do does for from has have how if in is it not of on or the to was"
    " what when where which who why with".split()
)
TEST_FILE = re.compile(
    r"(?:^|/)(?:test_[^/]*|[^/]*_test\.\w+|[^/]*Tests?\.(?:java|kt|swift|cs|php|scala)"
    r"|[^/]*_spec\.\w+|[^/]*\.(?:test|spec)\.[jt]sx?|[^/]*Spec\.(?:kt|swift|scala))$"
)
TEST_DIR = re.compile(r"(?:^|/)(?:tests?|__tests__|spec|testing)(?:/|$)")
ASIDE_DIR = re.compile(r"(?:^|/)(?:compat|_compat|legacy|_?examples?|docs?_src|single_include)"
                       r"(?:/|$)")
NAME_QUERY = re.compile(
    r"^(?:[A-Za-z_]\w*(?:(?:::|\\|->|\.|#)[A-Za-z_]\w*)+|_\w*|[A-Za-z][A-Za-z0-9]*[A-Z_]\w*"
    r"|[A-Z][A-Za-z0-9]*)$"
)


@dataclass(frozen=True)
class Variant:
    depth: int = 30  # each arm's hits fused
    natural: float = 0.5  # the semantic share of a question in words
    name: float = 0.3  # ... of a name
    path_lift: float = 1.0  # x the best score x the share of the question's words in the path
    file_lift: float = 0.2  # x the best score x the file's summed score / the largest sum
    definition_lift: float = 3.0  # x the best score, a chunk that defines the name asked
    names: str = "simple"  # "sharc": names ranked as sharc ranks them
    docs: bool = False  # documentation and configuration chunks ranked too
    blend: float = 0.0  # the simple ranker's share of a reciprocal-rank blend with sharc's files
    blend_k: int = 10


def words_of(text: str) -> list[str]:
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", text)
    return [p.lower() for p in parts]


def min_max(hits: Sequence[tuple[str, float]]) -> dict[str, float]:
    if not hits:
        return {}
    low, high = min(s for _, s in hits), max(s for _, s in hits)
    span = high - low if high - low > 1e-9 else 1e-9
    return {i: (s - low) / span for i, s in hits}


def path_share(query_words: set[str], path: str) -> float:
    posix = PurePosixPath(path)
    parts = set(words_of(posix.stem)) | set(words_of(posix.parent.name))
    matched = 0
    for word in query_words:
        if word in parts or any(
            len(short) >= 3 and long.startswith(short)
            for part in parts
            for short, long in [sorted((word, part), key=len)]
        ):
            matched += 1
    return matched / len(query_words) if query_words else 0.0


def penalty(path: str) -> float:
    factor = 1.0
    if TEST_FILE.search(path) or TEST_DIR.search(path):
        factor *= 0.3
    if PurePosixPath(path).name in ("__init__.py", "package-info.java"):
        factor *= 0.5
    if ASIDE_DIR.search(path):
        factor *= 0.3
    if path.endswith(".d.ts"):
        factor *= 0.7
    return factor


def ranked_files(
    query: str, hits: Mapping[str, Sequence[tuple[str, float]]], records: Mapping[str, Any],
    variant: Variant,
) -> list[str]:
    """The files in the order the simple ranker puts their best chunk."""
    is_name = NAME_QUERY.match(query.strip()) is not None
    alpha = variant.name if is_name else variant.natural
    semantic = min_max(list(hits.get("semantic", ()))[: variant.depth])
    keyword = min_max(list(hits.get("keyword", ()))[: variant.depth])
    scores = {
        i: alpha * semantic.get(i, 0.0) + (1 - alpha) * keyword.get(i, 0.0)
        for i in set(semantic) | set(keyword)
        if i in records and (variant.docs or records[i].tier in (1, 4))
    }
    if not scores:
        return []
    best = max(scores.values())
    if is_name:
        name = re.split(r"::|\\|->|\.|#", query.strip())[-1]
        for i in scores:
            record = records[i]
            if record.symbol == name:
                stem = PurePosixPath(record.path).stem.lower().replace("_", "")
                scale = 1.5 if stem.rstrip("s") == name.lower().rstrip("s") else 1.0
                scores[i] += best * variant.definition_lift * scale
    else:
        wanted = {w.lower() for w in re.findall(r"[A-Za-z_]\w*", query)
                  if len(w) > 2 and w.lower() not in STOPWORDS}
        for i in scores:
            share = path_share(wanted, records[i].path)
            if share >= 0.1:
                scores[i] += best * variant.path_lift * share
    sums: dict[str, float] = {}
    top: dict[str, str] = {}
    for i, value in scores.items():
        path = records[i].path
        sums[path] = sums.get(path, 0.0) + value
        if path not in top or value > scores[top[path]]:
            top[path] = i
    largest = max(sums.values()) or 1.0
    best = max(scores.values())
    for path, i in top.items():
        scores[i] += best * variant.file_lift * sums[path] / largest
    by_file = {path: scores[i] * penalty(path) for path, i in top.items()}
    return sorted(by_file, key=lambda p: -by_file[p])


def blended(ours: Sequence[str], simple: Sequence[str], variant: Variant) -> list[str]:
    """Both file orders merged by weighted reciprocal rank."""
    scores: dict[str, float] = {}
    for weight, order in ((1 - variant.blend, ours), (variant.blend, simple)):
        for rank, path in enumerate(order, 1):
            scores[path] = scores.get(path, 0.0) + weight / (variant.blend_k + rank)
    return sorted(scores, key=lambda p: -scores[p])


@dataclass(frozen=True)
class FileHit:
    path: str
    start_line: int = 1
    end_line: int = 1


def main(argv: list[str] | None = None) -> int:
    from sharc.ranking import pipeline

    from benches.quality.tune_repos import dev_repos, open_indexes, parse_variant

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--variant", action="append", default=[],
                        help="field=value,... of `Variant`; several allowed")
    parser.add_argument("--questions", choices=("benchmark", "fresh", "fresh-terse"),
                        default="benchmark", help="the dev repositories' other question sets")
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    args = parser.parse_args(argv)
    variants = [parse_variant(text, Variant()) for text in args.variant or [""]]
    captured: dict[str, Any] = {}
    original = pipeline.rank_hits

    def spy(query: str, hits: Any, read: Any, **kwargs: Any) -> Any:
        captured.setdefault("hits", hits)
        captured.setdefault("read", read)
        return original(query, hits, read, **kwargs)

    pipeline.rank_hits = spy
    base: dict[str, float] = {}
    probed: list[dict[str, float]] = [{} for _ in variants]
    category: dict[str, str] = {}
    repo_of: dict[str, str] = {}
    repos = (load_repos(args.split) if args.questions == "benchmark"
             else dev_repos([], args.questions))
    for repo, index in open_indexes(repos, args.index_cache):
        for query in repo.queries:
            captured.clear()
            results = list(index.search(query.text, limit=DEPTH))
            base[query.id] = score(query, results).file_ndcg
            category[query.id] = query.category
            repo_of[query.id] = repo.name
            hits = captured.get("hits", {})
            ids = sorted({i for arm in hits.values() for i, _ in arm})
            records = captured["read"](ids) if ids else {}
            for k, variant in enumerate(variants):
                if variant.names == "sharc" and NAME_QUERY.match(query.text.strip()):
                    probed[k][query.id] = base[query.id]
                    continue
                files = ranked_files(query.text, hits, records, variant)
                if variant.blend > 0:
                    files = blended(distinct_files(results), files, variant)
                probed[k][query.id] = score(query, [FileHit(p) for p in files]).file_ndcg
        print(f"{repo.name:24} {len(repo.queries)} queries", file=sys.stderr, flush=True)
        index.close()

    def over_repos(values: Mapping[str, float], wanted: str | None = None) -> float:
        per: dict[str, list[float]] = {}
        for qid, value in values.items():
            if wanted is None or category[qid] == wanted:
                per.setdefault(repo_of[qid], []).append(value)
        means = [sum(v) / len(v) for v in per.values()]
        return 100 * sum(means) / len(means) if means else math.nan

    def line(name: str, values: Mapping[str, float]) -> str:
        cats = " ".join(f"{c[:4]} {over_repos(values, c):5.1f}" for c in CATEGORIES)
        return f"{name:50} all {over_repos(values):5.1f} | {cats}"

    print(line("sharc", base))
    ids = sorted(base)
    for text, values in zip(args.variant or ["simple"], probed):
        mean, low, high = metrics.paired_bootstrap([values[i] for i in ids], [base[i] for i in ids])
        print(line(text, values) + f" | vs sharc {mean:+.1f} [{low:+.1f}, {high:+.1f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
