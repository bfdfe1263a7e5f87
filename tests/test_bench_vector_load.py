"""The speed benchmarks' vectors (`benches.speed.vector_load`): sampled from a pool of real
embeddings in order, near-duplicates past its end, random where no pool is built, and a fill
kept only for the same chunks and source; a real keyword-only index of the small repository,
real usearch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from index_helpers import _open
from sharc.vectors import VectorStore

from benches.speed import vector_load
from benches.speed.vector_load import fill_synthetic_vectors, sampled_vectors


def _unit(rows: int, dimension: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, dimension)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_the_pool_comes_in_order_then_again_as_near_duplicates() -> None:
    pool = _unit(5, 384, seed=1)
    vectors = sampled_vectors(pool, 0, 12, np.random.default_rng(0))
    assert np.allclose(vectors[:5], pool)
    again = np.sum(vectors[5:] * pool[np.arange(5, 12) % 5], axis=1)
    assert np.all(again > 0.8) and np.all(again < 0.999)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    # A block that starts later reads the same places of the pool.
    assert np.allclose(sampled_vectors(pool, 3, 2, np.random.default_rng(0)), pool[3:5])


def test_a_keyword_only_index_is_filled_from_the_pool_and_kept(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    pool_dir = tmp_path / "pool"
    pool = _unit(7, 384, seed=2)
    store = VectorStore(384)
    store.upsert(np.arange(7, dtype=np.uint64), pool)
    store.save(pool_dir / "some-repo" / "vectors.usearch")
    monkeypatch.setattr(vector_load, "POOL_INDEXES", pool_dir)

    assert fill_synthetic_vectors(index.index_dir, 384) == "real"
    saved = index.index_dir / "vectors.usearch"
    filled = VectorStore.load(saved, view=True)
    keys = np.sort(filled.keys())
    assert len(keys) == index.stats().chunks > 7
    _, first = filled.vectors(keys[:7])
    assert np.all(np.sum(first * pool, axis=1) > 0.99)  # the pool's rows, int8 aside
    stamp = saved.stat().st_mtime_ns
    assert fill_synthetic_vectors(index.index_dir, 384) == "real"
    assert saved.stat().st_mtime_ns == stamp  # the same fill kept

    monkeypatch.setattr(vector_load, "POOL_INDEXES", tmp_path / "none")
    assert fill_synthetic_vectors(index.index_dir, 384) == "random"
    assert saved.stat().st_mtime_ns != stamp
    _, again = VectorStore.load(saved, view=True).vectors(keys[:7])
    assert np.all(np.abs(np.sum(again * pool, axis=1)) < 0.5)


def test_the_fast_set_is_filled_from_its_own_pool_and_searched_beside_the_default_one(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.vector_sets import FAST_SET

    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    fast_dimension = index.fast_embedder().dimension
    pool_dir = tmp_path / "pool"
    pool = _unit(5, fast_dimension, seed=3)
    store = VectorStore(fast_dimension)
    store.upsert(np.arange(5, dtype=np.uint64), pool)
    store.save(pool_dir / "some-repo" / FAST_SET.main)
    monkeypatch.setattr(vector_load, "POOL_INDEXES", pool_dir)

    assert fill_synthetic_vectors(index.index_dir, 384) == "random"  # no pool of that set
    assert fill_synthetic_vectors(index.index_dir, fast_dimension, vector_set=FAST_SET) == "real"
    filled = VectorStore.load(index.index_dir / FAST_SET.main, view=True)
    keys = np.sort(filled.keys())
    assert len(keys) == index.stats().chunks
    _, first = filled.vectors(keys[:5])
    assert np.all(np.sum(first * pool, axis=1) > 0.99)
    # Both sets whole: a search reads the default one, and the fast one beside it.
    manifest = index._reader_manifest()
    searched = index._vectors.choose(manifest, None)
    assert searched is not None and searched.name == "default"
    assert index._vectors.fast_beside(manifest, searched) is not None
