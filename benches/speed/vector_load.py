"""The vectors the speed benchmarks give every chunk of a keyword-only index: the ANN arm's
load, where embedding a million chunks with the model would take days on these cores.

Sampled from real embeddings: the default model's vectors of the repository benchmark's
indexes (`python -m benches.quality.repos` builds them, about 90,000 chunks of 38 real
repositories), each chunk of the benchmark index taking the next one, and past the pool the
pool again with a little noise (near-duplicates, as a large tree holds). Random unit vectors,
where that pool is not built, are the HNSW graph's worst case: with no neighbourhoods to follow,
a 300-wide search of 100,000 of them took 1.9 ms against 0.7 ms for vectors sampled from the
pool (a probe on 2026-12-07); `vector_source` says which a result measured. Linked into the
graph as the writer links the default model's vectors (`sharc.vectors.BUILD_EXPANSION`). The
fast model's set is filled alike from the pool of its own vectors (`vector_set`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from sharc.vector_sets import DEFAULT_SET, FAST_SET, VectorSet

from benches.speed.common import REPO

#: Where `benches.quality.repos` keeps its indexes.
POOL_INDEXES = REPO / "benches" / "data" / "index-cache" / "repos"
#: The noise (per dimension, on unit vectors) of a pool vector used again: cosine ~0.93 to it.
REUSE_NOISE = 0.02
#: Beside the filled vectors of each set: how they were made, so that a run asking otherwise
#: fills again.
SOURCE_FILES = {"default": "synthetic_vectors.json", "fast": "synthetic_vectors-fast.json"}


def pool_stores(dimension: int, vector_set: VectorSet = DEFAULT_SET) -> list[Any] | None:
    """The vector stores of `vector_set` in the repository benchmark's indexes (repositories
    by name), opened as views, nothing read yet; None where none is built or their dimension
    is another."""
    from sharc.vectors import VectorStore

    stores = [VectorStore.load(path, view=True)
              for path in sorted(POOL_INDEXES.glob(f"*/{vector_set.main}"))]
    if not stores or any(store.ndim != dimension for store in stores):
        return None
    return stores


def vector_pool(stores: list[Any]) -> np.ndarray:
    """The vectors of `stores`, unit length, in a fixed order (store by store, keys
    ascending)."""
    blocks = [store.vectors(np.sort(store.keys()))[1] for store in stores]
    return np.vstack(blocks).astype(np.float32)


def sampled_vectors(
    pool: np.ndarray, start: int, count: int, rng: np.random.Generator
) -> np.ndarray:
    """The vectors of chunks `start` to `start + count`: the pool in order, and past its end
    the pool again with `REUSE_NOISE`."""
    places = np.arange(start, start + count)
    vectors = pool[places % len(pool)].copy()
    reused = places >= len(pool)
    vectors[reused] += rng.normal(0.0, REUSE_NOISE, (int(reused.sum()), pool.shape[1]))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def fill_synthetic_vectors(
    index_dir: Path, dimension: int, seed: int = 7, vector_set: VectorSet = DEFAULT_SET
) -> str:
    """Give every chunk of a keyword-only index a vector of `vector_set` (sampled from the
    real vectors of that set where the pool is built, else random); returns the source,
    `"real"` or `"random"`. A fill of the same chunks, source and link width from an earlier
    run is kept. The fast set is linked at usearch's width, as the writer links the fast
    model's vectors, and marked whole: a search reads it beside the default set (the fast
    opinion, `RankingSettings.fast_opinion_share`)."""
    from sharc.manifest import Manifest
    from sharc.vectors import BUILD_EXPANSION, VectorStore

    stores = pool_stores(dimension, vector_set)
    source = "real" if stores is not None else "random"
    link_width = BUILD_EXPANSION if vector_set is DEFAULT_SET else None
    made = {"source": source, "pool": sum(len(store) for store in stores or ()), "seed": seed,
            "link_width": link_width, "noise": REUSE_NOISE}
    manifest = Manifest(index_dir / "manifest.sqlite", writable=vector_set is FAST_SET)
    try:
        keys = np.array(sorted(manifest.chunk_keys()), dtype=np.uint64)
        if vector_set is FAST_SET:
            manifest.set_meta(FAST_SET.complete, "1")
            manifest.commit()
    finally:
        manifest.close()
    saved = index_dir / vector_set.main
    record = index_dir / SOURCE_FILES[vector_set.name]
    if saved.exists() and record.exists() and json.loads(record.read_text()) == made:
        earlier = VectorStore.load(saved, view=True)
        if np.array_equal(np.sort(earlier.keys()), keys):
            return source  # filled by an earlier run of the benchmarks for these chunks
    # Read only for a fill: a run that keeps an earlier one opens the pool's files, no more.
    pool = vector_pool(stores) if stores is not None else None
    rng = np.random.default_rng(seed)
    store = VectorStore(dimension)
    if link_width is not None:
        store.link_width = link_width
    for start in range(0, len(keys), 50_000):
        count = min(50_000, len(keys) - start)
        if pool is not None:
            block = sampled_vectors(pool, start, count, rng)
        else:
            block = rng.standard_normal((count, dimension)).astype(np.float32)
            block /= np.linalg.norm(block, axis=1, keepdims=True)
        store.upsert(keys[start : start + count], block)
    store.save(saved)
    record.write_text(json.dumps(made) + "\n")
    return source
