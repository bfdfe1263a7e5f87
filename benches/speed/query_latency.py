"""Warm query latency p50/p99 at a given number of chunks (query embedding included; real chunks
from copies of stdlib modules for BM25, vectors sampled from real embeddings for the ANN arm,
`benches.speed.vector_load`): the default ranking against variants of it (`QUERY_VARIANTS`)
timed side by side, and against exact numpy cosine over the same vectors plus the same query
embedding; and the vectors' graph search alone, against the same search of random unit vectors
(the graph's worst case) at sizes up to `RANDOM_ANN_UP_TO`.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from sharc.vector_sets import FAST_SET

from benches.speed.common import exact_up_to, hnsw_width
from benches.speed.corpus import (
    QUERIES,
    bench_index_dir,
    files_for_chunks,
    make_tree,
)
from benches.speed.vector_load import fill_synthetic_vectors


def _measure_cohesion(index_dir: Path, model_id: str) -> float:
    """Measure every file's cohesion over the synthetic vectors, as the writer does after a
    compaction (`sharc.file_cohesion.measure`); returns the seconds it took."""
    from sharc.file_cohesion import measure
    from sharc.manifest import Manifest
    from sharc.vector_sets import DEFAULT_SET

    manifest = Manifest(index_dir / "manifest.sqlite", writable=True)
    try:
        started = time.perf_counter()
        measure(manifest, index_dir, DEFAULT_SET, model_id, None)
        return time.perf_counter() - started
    finally:
        manifest.close()


def query_latency(work: Path, sizes: list[int]) -> dict:
    import sharc
    import sharc.vectors
    from sharc.embedding import load_embedder

    embedder = load_embedder()
    results = {}
    for size in sizes:
        root = make_tree(work / f"query-tree-{size}", files_for_chunks(size))
        index_dir = bench_index_dir(work, f"query-{size}")
        index = sharc.Index.open(root, index_dir=index_dir)
        index.update(embed=False)
        source = fill_synthetic_vectors(index_dir, embedder.dimension)
        fast_source = fill_synthetic_vectors(
            index_dir, index.fast_embedder().dimension, vector_set=FAST_SET
        )
        cohesion_seconds = _measure_cohesion(index_dir, embedder.model_id)
        measured = measure_queries(root, index_dir, embedder)
        result = measured["default"]
        result["chunkwise_p50_ms"] = measured["chunkwise"]["p50_ms"]
        result["p50_vs_chunkwise"] = result["p50_ms"] / result["chunkwise_p50_ms"]
        result["without_file_evidence_p50_ms"] = measured["fragments"]["p50_ms"]
        result["p50_vs_without_file_evidence"] = (
            result["p50_ms"] / result["without_file_evidence_p50_ms"]
        )
        result["without_cohesion_p50_ms"] = measured["uncohesive"]["p50_ms"]
        result["p50_vs_without_cohesion"] = result["p50_ms"] / result["without_cohesion_p50_ms"]
        result["cohesion_measure_s"] = cohesion_seconds
        result["without_even_opinion_p50_ms"] = measured["staged"]["p50_ms"]
        result["p50_vs_without_even_opinion"] = (
            result["p50_ms"] / result["without_even_opinion_p50_ms"]
        )
        result["with_fast_opinion_p50_ms"] = measured["fast_opinion"]["p50_ms"]
        result["with_fast_opinion_vs_p50"] = result["with_fast_opinion_p50_ms"] / result["p50_ms"]
        result["narrow_hnsw_p50_ms"] = measured["narrow"]["p50_ms"]
        result["search_expansion"] = sharc.vectors.SEARCH_EXPANSION
        result["p50_vs_narrow_hnsw"] = result["p50_ms"] / result["narrow_hnsw_p50_ms"]
        result["exact_threshold"] = sharc.vectors.DEFAULT_EXACT_THRESHOLD
        result["graph_p50_ms"] = measured["graph"]["p50_ms"]
        result["p50_vs_graph"] = result["p50_ms"] / result["graph_p50_ms"]
        result["vector_source"] = source
        result["fast_vector_source"] = fast_source
        result.update(ann_search(index_dir, embedder, size))
        results[str(size)] = result
        print(json.dumps({str(size): result}), flush=True)
    return results


#: Sizes whose graph search is also timed over random unit vectors (a graph of them is built
#: in memory for it: about a minute at 100,000).
RANDOM_ANN_UP_TO = 100_000


def ann_search(index_dir: Path, embedder, size: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The median seconds of one search of the filled vectors' HNSW graph for each of `QUERIES`
    (at least `SEARCH_EXPANSION` wide, as a search reads it), in ms; up to `RANDOM_ANN_UP_TO`,
    the same over as many random unit vectors linked alike."""
    from sharc.vectors import BUILD_EXPANSION, VectorStore

    queries = embedder.embed_queries(QUERIES)

    def median_ms(store: VectorStore) -> float:
        with exact_up_to(0):
            for vector in queries:
                store.search(vector, 100)
            times = []
            for vector in queries:
                started = time.perf_counter()
                store.search(vector, 100)
                times.append(time.perf_counter() - started)
        return float(np.median(times)) * 1e3

    filled = VectorStore.load(index_dir / "vectors.usearch", view=True)
    measured = {"ann_ms": median_ms(filled)}
    if size <= RANDOM_ANN_UP_TO:
        rng = np.random.default_rng(7)
        random = VectorStore(filled.ndim)
        random.link_width = BUILD_EXPANSION
        vectors = rng.standard_normal((len(filled), filled.ndim)).astype(np.float32)
        random.upsert(np.arange(len(filled), dtype=np.uint64), vectors)
        measured["random_ann_ms"] = median_ms(random)
        measured["ann_vs_random"] = measured["ann_ms"] / measured["random_ann_ms"]
    return measured


#: The rankings `measure_queries` times side by side: the default; `chunkwise`, the ranking
#: that reads candidates in blocks, each scored alone (what ranking files first costs is the
#: ratio of the two); `fragments`, the default without the evidence of whole files (the file
#: keyword index unread); `uncohesive`, the default without the stored file cohesion (its
#: rows unread); `staged`, the default without the even ranking's second opinion on the
#: order of files (`sharc.ranking.even`); `fast_opinion`, the default with the opt-in third
#: opinion, which searches the fast model's vectors too (`RankingSettings.fast_opinion_share`);
#: `narrow`, the default with the vectors' HNSW search only as wide as the results asked for
#: (usearch's own width); `graph`, the default with the vectors searched
#: through the HNSW graph at any size (what an exact search of an index under
#: `DEFAULT_EXACT_THRESHOLD` costs is the ratio of the default to it). How each searches its
#: vectors: `VECTOR_SEARCHES`.
QUERY_VARIANTS = {
    "default": {},
    "chunkwise": {"files_first": False},
    "fragments": {"file_keyword_lift": 0.0},
    "uncohesive": {"cohesion_floor": 0.0, "cohesion_full": 0.0},
    "staged": {"even_share": 0.0},
    "fast_opinion": {"fast_opinion_share": 0.3},
    "narrow": {},
    "graph": {},
}

#: The variants whose vectors are searched otherwise than by default.
VECTOR_SEARCHES = {
    "narrow": lambda: hnsw_width(0),
    "graph": lambda: exact_up_to(0),
}


def timed_searches(  # type: ignore[no-untyped-def]
    index, settings: dict[str, Any], rounds: int, **options: Any
) -> dict[str, list[float]]:
    """Seconds of each search of `QUERIES` (warmed once each) under each of `settings`
    (name -> `RankingSettings`; the vectors searched as `VECTOR_SEARCHES` says for those it
    names), `rounds` times, the settings taking turns query by query so that a machine
    that slows down for a while slows them alike; later rounds vary each query's text, so
    that no cache answers them."""

    def search(name: str, text: str) -> float:
        index.ranking_settings = settings[name]
        index.embedder().forget_queries()  # each search embeds its query
        with VECTOR_SEARCHES.get(name, contextlib.nullcontext)():
            started = time.perf_counter()
            index.search(text, **options)
            return time.perf_counter() - started

    for name in settings:
        for query in QUERIES:
            search(name, query)
    latencies: dict[str, list[float]] = {name: [] for name in settings}
    for round_ in range(rounds):
        for query in QUERIES:
            for name in settings:
                latencies[name].append(search(name, f"{query} {round_}" if round_ else query))
    return latencies


def measure_queries(  # type: ignore[no-untyped-def]
    root: Path, index_dir: Path, embedder, rounds: int = 3
) -> dict[str, dict]:
    """Warm p50/p99 of `Index.search` on a built index for each of `QUERY_VARIANTS`, and the
    exact numpy baseline. The variants take turns query by query, so that a machine that
    slows down for a while slows them alike."""
    import dataclasses

    import sharc
    from sharc.ranking import DEFAULT_SETTINGS
    from sharc.vectors import VectorStore

    index = sharc.Index.open(root, index_dir=index_dir)
    index._embedder = embedder
    settings = {
        name: dataclasses.replace(DEFAULT_SETTINGS, **overrides)
        for name, overrides in QUERY_VARIANTS.items()
    }
    latencies = timed_searches(index, settings, rounds)
    store = VectorStore.load(index_dir / "vectors.usearch", view=True)
    keys = store.keys()
    matrix = np.asarray(store._index.get(keys), dtype=np.float32)
    exact = []
    for query in QUERIES:
        embedder.forget_queries()
        started = time.perf_counter()
        vector = embedder.embed_queries([query])[0]
        scores = matrix @ vector
        np.argpartition(-scores, 100)[:100]
        exact.append(time.perf_counter() - started)
    exact_p50 = float(np.percentile(exact, 50))
    chunks = index.stats().chunks
    measured = {}
    for name, times in latencies.items():
        p50 = float(np.percentile(times, 50))
        measured[name] = {
            "chunks": chunks,
            "p50_ms": p50 * 1e3,
            "p99_ms": float(np.percentile(times, 99)) * 1e3,
            "exact_numpy_p50_ms": exact_p50 * 1e3,
            "p50_vs_exact_numpy": p50 / exact_p50,
        }
    return measured
