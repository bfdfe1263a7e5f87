"""Tune the ranking settings on the repository benchmark's dev repositories only.

Opens the cached indexes that `python -m benches.quality.repos` built (no re-embedding; query
vectors cached), then scores each variant of `RankingSettings` given on the command line:

    python -m benches.quality.tune_repos 'docs_factor=0.5' 'path_words_lift=0.3,coherence_lift=0.2'

Each argument is one variant: comma-separated `field=value` overrides of the defaults. Prints
file-level NDCG@10 (mean over repositories) overall and per category for hybrid, and the
paired bootstrap interval of each variant against the defaults. The held-out repositories are
never opened here.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import (
    CATEGORIES,
    DEPTH,
    FRESH_QUERIES,
    FRESH_TERSE_QUERIES,
    REPO_QUERIES,
    Repo,
    load_repos,
    score,
    unpack,
)


def parse_variant(text: str, base: Any) -> Any:
    """`field=value,...` applied to `base` (values parsed as the field's type)."""
    overrides: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        current = getattr(base, name.strip())
        if current is None:  # an optional number, unset: read as the value is written
            kind: Any = int if value.strip().lstrip("-").isdigit() else float
        else:
            kind = type(current)
        overrides[name.strip()] = kind(value) if kind is not bool else value == "true"
    return dataclasses.replace(base, **overrides)


def open_indexes(repos: list[Repo], index_cache: Path) -> list[tuple[Repo, Any]]:
    import sharc

    opened = []
    for repo in repos:
        index = sharc.Index.open(unpack(repo), index_dir=index_cache / repo.name)
        if not index.exists:
            print(f"skipping {repo.name}: no index (run benches.quality.repos first)",
                  file=sys.stderr)
            continue
        embedder = index.embedder()
        original = embedder.embed_queries
        cached = functools.lru_cache(maxsize=None)(lambda text, f=original: f([text])[0])
        embedder.embed_queries = lambda texts, c=cached: [c(t) for t in texts]
        opened.append((repo, index))
    return opened


def evaluate(
    opened: list[tuple[Repo, Any]],
    settings: Any,
    mode: str = "hybrid",
    *,
    shown: bool = False,
    limit: int = DEPTH,
) -> dict[str, Any]:
    """Per query file NDCG@10 and the means over repositories, overall and per category."""
    per_query: dict[str, float] = {}
    definitions: list[float] = []
    duplicates: list[float] = []
    per_repo: dict[str, dict[str, list[float]]] = {}
    for repo, index in opened:
        index.ranking_settings = settings
        for query in repo.queries:
            results = list(index.search(query.text, limit=limit, mode=mode))
            scored = score(query, results)
            value = scored.shown_ndcg if shown else scored.file_ndcg
            per_query[query.id] = value
            if scored.definition_at_1 is not None:
                definitions.append(scored.definition_at_1)
                if query.duplicate:
                    duplicates.append(scored.definition_at_1)
            bucket = per_repo.setdefault(repo.name, {})
            bucket.setdefault("all", []).append(value)
            bucket.setdefault(query.category, []).append(value)

    def over_repos(key: str) -> float:
        means = [sum(v[key]) / len(v[key]) for v in per_repo.values() if v.get(key)]
        return 100.0 * sum(means) / len(means) if means else float("nan")

    return {
        "all": over_repos("all"),
        **{c: over_repos(c) for c in CATEGORIES},
        "definition_at_1": 100.0 * sum(definitions) / max(1, len(definitions)),
        "definition_at_1_duplicate": 100.0 * sum(duplicates) / max(1, len(duplicates)),
        "per_query": per_query,
    }


def dev_repos(names: Sequence[str], questions: str) -> list[Repo]:
    """The dev repositories with the questions asked for: "benchmark", "fresh", "fresh-terse"
    (the fresh ones asked tersely) or "both" (the benchmark's and the fresh ones)."""
    if questions == "benchmark":
        return load_repos("dev", names)
    if questions == "fresh-terse":
        return load_repos("dev", names, FRESH_TERSE_QUERIES)
    fresh = load_repos("dev", names, FRESH_QUERIES)
    if questions == "fresh":
        return fresh
    extra = {repo.name: repo.queries for repo in fresh}
    return [
        dataclasses.replace(repo, queries=repo.queries + extra.get(repo.name, ()))
        for repo in load_repos("dev", names, REPO_QUERIES)
    ]


def main(argv: list[str] | None = None) -> int:
    from sharc.ranking import DEFAULT_SETTINGS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", help="field=value,... per variant")
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--arms", action="store_true", help="also score keyword and semantic")
    parser.add_argument("--base", default="", help="field=value,... the variants are against")
    parser.add_argument("--repos", default="", help="comma-separated dev repositories")
    parser.add_argument("--shown", action="store_true",
                        help="score the top 10 as returned (a file's later chunks gain nothing)")
    parser.add_argument("--limit", type=int, default=DEPTH, help="results asked for")
    parser.add_argument("--questions", choices=("benchmark", "fresh", "fresh-terse", "both"),
                        default="benchmark",
                        help="the benchmark's dev questions, the second set (`FRESH_QUERIES`),"
                             " the second set asked tersely, or the first two together")
    args = parser.parse_args(argv)
    names = [n for n in args.repos.split(",") if n]
    opened = open_indexes(dev_repos(names, args.questions), args.index_cache)
    defaults = parse_variant(args.base, DEFAULT_SETTINGS)
    scoring = {"shown": args.shown, "limit": args.limit}
    base = evaluate(opened, defaults, **scoring)

    def line(name: str, result: dict[str, Any]) -> str:
        cats = " ".join(f"{c[:4]} {result[c]:5.1f}" for c in CATEGORIES)
        return (f"{name:60} all {result['all']:5.1f} | {cats} | def@1"
                f" {result['definition_at_1']:5.1f} (dup {result['definition_at_1_duplicate']:5.1f})")

    print(line(args.base or "defaults", base), flush=True)
    if args.arms:
        for mode in ("keyword", "semantic"):
            print(line(f"[{mode} only]", evaluate(opened, defaults, mode, **scoring)), flush=True)
    ids = sorted(base["per_query"])
    categories: dict[str, set[str]] = {c: set() for c in CATEGORIES}
    for repo, _ in opened:
        for query in repo.queries:
            categories[query.category].add(query.id)
    for text in args.variants:
        result = evaluate(opened, parse_variant(text, defaults), **scoring)
        mean, low, high = metrics.paired_bootstrap(
            [result["per_query"][i] for i in ids], [base["per_query"][i] for i in ids]
        )
        topic = [i for i in ids if i in categories["topic"]]
        t_mean, t_low, t_high = metrics.paired_bootstrap(
            [result["per_query"][i] for i in topic], [base["per_query"][i] for i in topic]
        )
        print(line(text, result) + f" | vs base {mean:+.1f} [{low:+.1f}, {high:+.1f}]"
              f" topic {t_mean:+.1f} [{t_low:+.1f}, {t_high:+.1f}]", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
