"""Probe: both models' vectors in one search, on the repository benchmark (a record; not kept).

    python -m benches.quality.two_models_probe arm --split dev --weights 0.2,0.35,0.5 [--mode semantic]
    python -m benches.quality.two_models_probe lists --split dev --ks 2,5,10,30 --weights 0.3,0.5

`arm`: the semantic arm scores each chunk `(1 - w) * sim_default + w * sim_fast` over the union
of both vector sets' hits (the similarity a set did not return read from its stored vector);
everything after the arm is the pipeline as it is. `lists`: two whole searches, one on each
vector set, their file lists merged by weighted RRF (`(1 - w) / (k + rank)` and
`w / (k + rank)`). File NDCG@10 (mean over repositories) against the default search, with the
paired bootstrap interval over queries.
"""

from __future__ import annotations

import argparse
import collections
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import CATEGORIES, load_repos, score
from benches.quality.tune_repos import evaluate, open_indexes

#: The fast set searched beside each default set, by the default set's identity.
_FAST: dict[int, tuple[Any, Callable[[str], np.ndarray]]] = {}
_WEIGHT = {"fast": 0.0}


def _similarities(vectors: Any, keys: Sequence[int], query: np.ndarray) -> dict[int, float]:
    keys = [key for key in keys if key in vectors]
    if not keys:
        return {}
    rows = vectors.vectors(np.array(keys, dtype=np.uint64))
    return dict(zip(keys, (rows @ query).tolist(), strict=True))


def _two_set_arm(original: Callable[..., Any]) -> Callable[..., Any]:
    """`sharc.search_arms.vector_arm` with the fast set's similarities mixed in."""

    def arm(ids_of: Any, vectors: Any, query_vector: Any, stale: Any = None) -> Any:
        weight, fast = _WEIGHT["fast"], _FAST.get(id(vectors))
        if not weight or fast is None:
            return original(ids_of, vectors, query_vector, stale)
        fast_vectors, fast_query = fast

        def search(query: str, depth: int) -> list[tuple[str, float]]:
            default_q, fast_q = query_vector(query), fast_query(query)
            default_hits = dict(vectors.search(default_q, depth))
            fast_hits = dict(fast_vectors.search(fast_q, depth))
            keys = set(default_hits) | set(fast_hits)
            default = {**_similarities(vectors, [k for k in keys if k not in default_hits],
                                       default_q), **default_hits}
            other = {**_similarities(fast_vectors, [k for k in keys if k not in fast_hits],
                                     fast_q), **fast_hits}
            mixed = {k: (1 - weight) * default[k] + weight * other[k]
                     for k in keys if k in default and k in other}
            best = sorted(mixed.items(), key=lambda item: -item[1])[:depth]
            ids = ids_of([key for key, _ in best])
            if stale is not None:
                stale.update(key for key, _ in best if key not in ids)
            return [(ids[key], value) for key, value in best if key in ids]

        return search

    return arm


def _cached_fast_queries(index: Any) -> Any:
    """The index's fast set and its query vectors, each query embedded once."""
    manifest = index._reader_manifest()
    fast = index._vectors.choose(manifest, "fast")
    embedder = fast.embedder()
    embed = embedder.embed_queries
    cached = functools.lru_cache(maxsize=None)(lambda text: embed([text])[0])
    embedder.embed_queries = lambda texts: [cached(text) for text in texts]
    return manifest, fast, cached


def _line(name: str, means: dict[str, float]) -> str:
    return f"{name:18} " + " ".join(f"{c[:4]} {means[c]:5.1f}" for c in ["all", *CATEGORIES])


def _against(result: dict[str, float], base: dict[str, float]) -> str:
    ids = sorted(base)
    mean, low, high = metrics.paired_bootstrap([result[i] for i in ids], [base[i] for i in ids])
    return f"{mean:+.1f} [{low:+.1f}, {high:+.1f}]"


def run_arm(split: str, weights: list[float], mode: str) -> None:
    import sharc.index
    from sharc.ranking import DEFAULT_SETTINGS

    sharc.index.vector_arm = _two_set_arm(sharc.index.vector_arm)
    opened = open_indexes(load_repos(split), data_dir() / "index-cache" / "repos")
    for _, index in opened:
        manifest, fast, cached = _cached_fast_queries(index)
        default = index._vectors.choose(manifest, "default")
        _FAST[id(default.vectors)] = (fast.vectors, cached)
    _WEIGHT["fast"] = 0.0
    base = evaluate(opened, DEFAULT_SETTINGS, mode)
    print(_line("default", base), flush=True)
    for weight in weights:
        _WEIGHT["fast"] = weight
        result = evaluate(opened, DEFAULT_SETTINGS, mode)
        print(_line(f"w={weight}", result), _against(result["per_query"], base["per_query"]),
              flush=True)


def _merged(first: Sequence[Any], second: Sequence[Any], k: int, weight: float) -> list[Any]:
    scores: dict[str, float] = collections.defaultdict(float)
    shown: dict[str, Any] = {}
    for results, share in ((first, 1 - weight), (second, weight)):
        paths: list[str] = []
        for result in results:
            if result.path in paths:
                continue
            paths.append(result.path)
            scores[result.path] += share / (k + len(paths))
            shown.setdefault(result.path, result)
    return [shown[path] for path in sorted(scores, key=lambda path: -scores[path])]


def run_lists(split: str, ks: list[int], weights: list[float]) -> None:
    opened = open_indexes(load_repos(split), data_dir() / "index-cache" / "repos")
    searched = []
    for repo, index in opened:
        _cached_fast_queries(index)
        for query in repo.queries:
            default = list(index.search(query.text, limit=30, vectors="default"))
            fast = list(index.search(query.text, limit=30, vectors="fast"))
            searched.append((repo.name, query, default, fast))

    def judged(pick: Callable[[Any, Any], Any]) -> tuple[dict[str, float], dict[str, float]]:
        per_repo: dict[str, dict[str, list[float]]] = collections.defaultdict(
            lambda: collections.defaultdict(list)
        )
        per_query = {}
        for name, query, default, fast in searched:
            value = score(query, pick(default, fast)).file_ndcg
            per_query[query.id] = value
            per_repo[name]["all"].append(value)
            per_repo[name][query.category].append(value)
        means = {}
        for key in ["all", *CATEGORIES]:
            values = [sum(v[key]) / len(v[key]) for v in per_repo.values() if v.get(key)]
            means[key] = 100 * sum(values) / len(values)
        return means, per_query

    base, base_per_query = judged(lambda default, fast: default)
    print(_line("default", base), flush=True)
    print(_line("fast", judged(lambda default, fast: fast)[0]), flush=True)
    for k in ks:
        for weight in weights:
            means, per_query = judged(
                lambda default, fast, k=k, w=weight: _merged(default, fast, k, w)
            )
            print(_line(f"k={k} w={weight}", means), _against(per_query, base_per_query),
                  flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=["arm", "lists"])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--weights", default="0.2,0.35,0.5")
    parser.add_argument("--ks", default="2,5,10,30")
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "semantic"])
    args = parser.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    if args.probe == "arm":
        run_arm(args.split, weights, args.mode)
    else:
        run_lists(args.split, [int(k) for k in args.ks.split(",")], weights)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
