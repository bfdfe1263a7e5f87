"""Tune the fusion weights on dev data, searching already-built indexes (no re-embedding).

    python -m benches.quality.tune [--sets cosqa,csn] [--index-cache benches/work/indexes]

RRF at its previous best is printed for comparison, then score fusion over a grid of keyword
shares and name-word lifts. For each candidate `RankingSettings` it reruns every query through `Index.search` (query vectors
cached) and prints MRR@10 per set; the best row is what `sharc.ranking.DEFAULT_SETTINGS` should
hold. Dev data only: CoSQA dev, the CodeSearchNet-style sets and the hand-written queries.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
from pathlib import Path

from benches.quality import metrics
from benches.quality.run import load_datasets, rrf_weights


def _index_for(dataset, index_cache: Path, mode: str):  # type: ignore[no-untyped-def]
    import sharc

    directory = index_cache / dataset.name.replace("/", "__") / mode
    if not (directory / "manifest.sqlite").exists():
        return None
    index = sharc.Index.open(dataset.root, index_dir=directory)
    embedder = index.embedder()
    original = embedder.embed_queries
    cached = functools.lru_cache(maxsize=None)(lambda text: original([text])[0])
    embedder.embed_queries = lambda texts: [cached(t) for t in texts]  # type: ignore[method-assign]
    return index


def evaluate(indexes, weights, mode: str = "hybrid") -> dict[str, float]:  # type: ignore[no-untyped-def]
    by_set: dict[str, list[metrics.QueryScore]] = {}
    for dataset, index in indexes:
        index.ranking_settings = weights
        for query in dataset.queries:
            results = index.search(query.text, limit=100, mode=mode)
            score = metrics.score_query(list(results), query.targets, dataset.hit_rule)
            by_set.setdefault(dataset.set, []).append(score)
    return {name: metrics.aggregate(scores)["mrr@10"] for name, scores in by_set.items()}


def main(argv: list[str] | None = None) -> int:
    from sharc.ranking import DEFAULT_SETTINGS as DEFAULT_WEIGHTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="cosqa,csn,handwritten")
    parser.add_argument("--index-cache", type=Path, default=Path("benches/work/indexes"))
    parser.add_argument("--mode", default="independent")
    parser.add_argument("--natural", default="0.2,0.23,0.25,0.3", help="keyword shares to try")
    parser.add_argument("--mixed", default="0.5,0.6,0.7", help="keyword shares to try")
    parser.add_argument("--lift", default="0,0.3", help="name_words_lift values to try")
    args = parser.parse_args(argv)
    datasets = load_datasets([s for s in args.sets.split(",") if s])
    indexes = [(d, i) for d in datasets if (i := _index_for(d, args.index_cache, args.mode))]
    print("datasets:", ", ".join(d.name for d, _ in indexes))
    print("semantic only:", evaluate(indexes, DEFAULT_WEIGHTS, mode="semantic"))
    print("keyword only:", evaluate(indexes, DEFAULT_WEIGHTS, mode="keyword"))
    print("rrf:", evaluate(indexes, rrf_weights()), flush=True)
    grid = itertools.product(
        *([float(x) for x in values.split(",")] for values in (args.natural, args.mixed, args.lift))
    )
    for natural_keyword, mixed_keyword, lift in grid:
        weights = dataclasses.replace(
            DEFAULT_WEIGHTS,
            natural_keyword=natural_keyword,
            mixed_keyword=mixed_keyword,
            name_words_lift=lift,
        )
        result = evaluate(indexes, weights)
        print(
            f"score natural_keyword={natural_keyword} mixed_keyword={mixed_keyword} "
            f"name_words_lift={lift}: {result}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
