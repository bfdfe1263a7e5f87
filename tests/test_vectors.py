"""The vector store over real usearch indexes in tmp_path."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sharc.vectors
from sharc.errors import IndexCorruptError, SharcError
from sharc.vectors import (
    KEY_MASK,
    ReadOnlyStoreError,
    VectorStore,
    checksum_path,
    key_of,
    keys_of,
)

NDIM = 16


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def vectors() -> np.ndarray:
    return unit(np.random.default_rng(7).standard_normal((200, NDIM)))


@pytest.fixture
def store(vectors: np.ndarray) -> VectorStore:
    store = VectorStore(NDIM)
    store.upsert(np.arange(1, 201, dtype=np.uint64), vectors)
    return store


def test_key_of_is_stable_and_fits_63_bits() -> None:
    assert key_of("src/app.py#main") == key_of("src/app.py#main")
    assert key_of("src/app.py#main") != key_of("src/app.py#other")
    keys = keys_of(f"chunk-{i}" for i in range(10_000))
    assert keys.dtype == np.uint64
    assert int(keys.max()) <= KEY_MASK
    assert len(set(keys.tolist())) == 10_000
    assert keys[3] == key_of("chunk-3")


def test_search_finds_the_vector_itself(store: VectorStore, vectors: np.ndarray) -> None:
    hits = store.search(vectors[41], 5)
    assert hits[0][0] == 42
    assert hits[0][1] == pytest.approx(1.0, abs=1e-3)
    assert all(0.0 <= score <= 1.0 for _, score in hits)
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)


def test_upsert_same_key_overwrites(store: VectorStore, vectors: np.ndarray) -> None:
    replacement = unit(-vectors[:1])
    store.upsert(np.array([1], dtype=np.uint64), replacement)
    assert len(store) == 200
    assert store.search(replacement[0], 1)[0][0] == 1
    assert store.search(vectors[0], 1)[0][0] != 1


def test_upsert_repeated_key_in_one_batch_keeps_the_last(vectors: np.ndarray) -> None:
    store = VectorStore(NDIM)
    store.upsert([5, 6, 5], vectors[:3])
    assert len(store) == 2
    assert store.search(vectors[2], 1)[0] == (5, pytest.approx(1.0, abs=1e-3))


def test_upsert_checks_shapes_and_keys(vectors: np.ndarray) -> None:
    store = VectorStore(NDIM)
    with pytest.raises(ValueError, match="shape"):
        store.upsert([1, 2], vectors[:3])
    with pytest.raises(ValueError, match="63 bits"):
        store.upsert(np.array([2**63], dtype=np.uint64), vectors[:1])
    store.upsert([], np.zeros((0, NDIM), dtype=np.float32))
    assert len(store) == 0


def test_remove(store: VectorStore, vectors: np.ndarray) -> None:
    assert store.remove(np.array([1, 2, 9999], dtype=np.uint64)) == 2
    assert len(store) == 198
    assert 1 not in store and 3 in store
    assert 1 not in [key for key, _ in store.search(vectors[0], 10)]
    assert store.remove([]) == 0
    assert len(store.keys()) == 198 and not (store.keys() == 1).any()


def test_filtered_search_by_set_and_predicate(store: VectorStore, vectors: np.ndarray) -> None:
    allowed = {10, 20, 30}
    hits = store.search(vectors[9], 5, allowed=allowed)
    assert hits[0][0] == 10
    assert {key for key, _ in hits} == allowed
    hits = store.search(vectors[0], 5, allowed=lambda key: key % 2 == 0)
    assert len(hits) == 5 and all(key % 2 == 0 for key, _ in hits)
    assert store.search(vectors[0], 5, allowed=set()) == []
    assert store.search(vectors[0], 5, allowed={123456789}) == []


def test_filtered_search_over_fetches_past_the_first_page() -> None:
    rng = np.random.default_rng(3)
    store = VectorStore(NDIM, exact_threshold=0)  # force the HNSW path
    data = unit(rng.standard_normal((2000, NDIM)))
    store.upsert(np.arange(2000, dtype=np.uint64), data)
    hits = store.search(data[0], 10, allowed=lambda key: key % 97 == 0)  # 21 keys of 2000
    assert len(hits) == 10 and all(key % 97 == 0 for key, _ in hits)
    # A set too large for the exact path becomes a predicate over the HNSW results.
    wanted = set(range(0, 2000, 3))
    hits = store.search(data[0], 10, allowed=wanted)
    assert len(hits) == 10 and all(key in wanted for key, _ in hits)


def test_search_edge_cases(store: VectorStore, vectors: np.ndarray) -> None:
    assert store.search(vectors[0], 0) == []
    assert len(store.search(vectors[0], 10_000)) == 200
    assert VectorStore(NDIM).search(vectors[0], 5) == []
    with pytest.raises(ValueError, match="dimensions"):
        store.search(np.ones(NDIM + 1, dtype=np.float32), 5)


def test_save_load_roundtrip(tmp_path: Path, store: VectorStore, vectors: np.ndarray) -> None:
    path = tmp_path / "index" / "vectors.usearch"
    store.save(path)
    assert checksum_path(path).is_file()
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "vectors.usearch",
        "vectors.usearch.blake2b",
    ]
    for view in (False, True):
        loaded = VectorStore.load(path, view=view)
        assert len(loaded) == 200
        assert loaded.ndim == loaded.dimension == NDIM
        assert loaded.metric == "cos" and loaded.dtype == "i8"
        assert loaded.read_only is view
        assert loaded.search(vectors[41], 1)[0][0] == 42
        assert loaded.search(vectors[41], 5, allowed={42, 43})[0][0] == 42
        assert np.array_equal(loaded.keys(), store.keys())


def test_int8_scores_stay_within_a_thousandth_of_the_float_cosine(tmp_path: Path) -> None:
    # 384-d like the default model; usearch's own int8 cast would be off by ~0.004 here.
    rng = np.random.default_rng(3)
    data = unit(rng.standard_normal((500, 384)))
    query = unit(data[:1] + 0.5 * unit(rng.standard_normal((1, 384))))[0]
    store = VectorStore(384)
    assert store.dtype == "i8"
    store.upsert(np.arange(500, dtype=np.uint64), data)
    graph = VectorStore(384, exact_threshold=0)  # searched through the HNSW graph
    graph.upsert(np.arange(500, dtype=np.uint64), data)
    exact = data @ query
    searches = (
        store.search(query, 20),
        store.search(query, 20, allowed=set(range(0, 500, 2))),
        graph.search(query, 20),
    )
    for hits in searches:
        scores = dict(hits)
        assert max(abs(scores[key] - max(exact[key], 0.0)) for key in scores) < 1e-3
    assert next(iter(dict(store.search(query, 1)))) == int(np.argmax(exact))
    keys, stored = store.vectors([7, 3, 9999])
    assert keys.tolist() == [7, 3]
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-5)
    assert np.all(np.sum(stored * data[[7, 3]], axis=1) > 0.9999)


def test_a_float16_index_stays_float16(tmp_path: Path, vectors: np.ndarray) -> None:
    path = tmp_path / "vectors.usearch"
    older = VectorStore(NDIM, dtype="f16")
    older.upsert(np.arange(1, 201, dtype=np.uint64), vectors)
    older.save(path)
    loaded = VectorStore.load(path)
    assert loaded.dtype == "f16"
    loaded.upsert([500], vectors[:1])
    keys, stored = loaded.vectors([500])
    assert keys.tolist() == [500] and np.allclose(stored[0], vectors[0], atol=1e-3)
    assert loaded.search(vectors[0], 2)[0][1] == pytest.approx(1.0, abs=1e-3)


def test_save_replaces_an_existing_file(tmp_path: Path, vectors: np.ndarray) -> None:
    path = tmp_path / "vectors.usearch"
    first = VectorStore(NDIM)
    first.upsert([1], vectors[:1])
    first.save(path)
    reader = VectorStore.load(path, view=True)
    second = VectorStore(NDIM)
    second.upsert([1, 2, 3], vectors[:3])
    second.save(path)
    assert len(reader) == 1  # an open view keeps the file it mapped
    assert len(VectorStore.load(path)) == 3


def test_view_is_read_only(tmp_path: Path, store: VectorStore, vectors: np.ndarray) -> None:
    path = tmp_path / "vectors.usearch"
    store.save(path)
    view = VectorStore.load(path, view=True)
    with pytest.raises(ReadOnlyStoreError, match="read-only"):
        view.upsert([999], vectors[:1])
    with pytest.raises(ReadOnlyStoreError):
        view.remove([1])
    assert issubclass(ReadOnlyStoreError, SharcError)
    assert len(view) == 200


def test_view_of_an_index_with_removals(tmp_path: Path, store: VectorStore) -> None:
    """usearch crashes the process on `add` to a view of a file with removals; our path
    (load a writable copy, then upsert) must not. Run it in a child so a crash fails cleanly."""
    path = tmp_path / "vectors.usearch"
    store.remove(np.arange(1, 51, dtype=np.uint64))
    store.save(path)
    script = textwrap.dedent(
        f"""
        import numpy as np
        from sharc.vectors import ReadOnlyStoreError, VectorStore
        path = {str(path)!r}
        view = VectorStore.load(path, view=True)
        assert len(view) == 150
        assert view.search(np.ones({NDIM}, dtype=np.float32), 5)
        try:
            view.upsert([7], np.ones((1, {NDIM}), dtype=np.float32))
        except ReadOnlyStoreError:
            pass
        else:
            raise SystemExit("a view accepted a write")
        writable = VectorStore.load(path, view=False)
        writable.upsert(np.arange(1, 60, dtype=np.uint64), np.ones((59, {NDIM}), dtype=np.float32))
        assert len(writable) == 200
        writable.save(path)
        assert len(VectorStore.load(path, view=True)) == 200
        print("ok")
        """
    )
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "no digest"])
def test_corrupt_file_raises_index_corrupt(tmp_path: Path, store: VectorStore, damage: str) -> None:
    path = tmp_path / "vectors.usearch"
    store.save(path)
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        path.write_bytes(b"not a usearch index" * 10)
    elif damage == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "flipped":
        # Flipped bytes in the graph can crash usearch outright; the digest catches them first.
        data[len(data) // 3] ^= 0xFF
        path.write_bytes(bytes(data))
    else:
        checksum_path(path).unlink()
    for view in (False, True):
        with pytest.raises(IndexCorruptError, match="vectors.usearch"):
            VectorStore.load(path, view=view)


def test_unverified_load_still_reports_unreadable_files(tmp_path: Path) -> None:
    path = tmp_path / "vectors.usearch"
    path.write_bytes(b"garbage")
    with pytest.raises(IndexCorruptError, match="unreadable|not a usearch"):
        VectorStore.load(path, verify=False)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        VectorStore.load(tmp_path / "nothing.usearch")


def test_exact_and_approximate_paths_agree_on_easy_data() -> None:
    rng = np.random.default_rng(11)
    data = unit(rng.standard_normal((500, NDIM)))
    exact = VectorStore(NDIM)
    approximate = VectorStore(NDIM, exact_threshold=0, expansion_search=256)
    for store in (exact, approximate):
        store.upsert(np.arange(500, dtype=np.uint64), data)
    for row in (0, 100, 499):
        assert exact.search(data[row], 1)[0][0] == row
        assert approximate.search(data[row], 1)[0][0] == row


def test_an_hnsw_search_looks_wide_enough_to_find_nearly_all_of_the_true_nearest() -> None:
    # Uniform 384-d vectors are HNSW's hard case: searched only as wide as the 100 results
    # asked for, the graph finds about 70% of the true 100 nearest here.
    rng = np.random.default_rng(5)
    data = unit(rng.standard_normal((5000, 384)))
    store = VectorStore(384, exact_threshold=0)
    store.upsert(np.arange(5000, dtype=np.uint64), data)
    queries = unit(data[rng.integers(0, 5000, 20)] + 0.5 * unit(rng.standard_normal((20, 384))))
    recalls = []
    for query in queries:
        true_nearest = set(np.argsort(-(data @ query))[:100].tolist())
        found = {key for key, _ in store.search(query, 100)}
        recalls.append(len(true_nearest & found) / 100)
    assert np.mean(recalls) >= 0.93


def test_an_index_under_the_exact_threshold_finds_every_true_nearest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(6)
    data = unit(rng.standard_normal((5000, 384)))
    store = VectorStore(384)  # the default threshold, read at each search
    store.upsert(np.arange(5000, dtype=np.uint64), data)
    queries = unit(data[rng.integers(0, 5000, 10)] + 0.5 * unit(rng.standard_normal((10, 384))))

    def recall() -> float:
        shares = []
        for query in queries:
            true_nearest = set(np.argsort(-(data @ query))[:100].tolist())
            found = {key for key, _ in store.search(query, 100)}
            shares.append(len(true_nearest & found) / 100)
        return float(np.mean(shares))

    # Exact up to int8's rounding at the 100th place; the graph misses about one in twenty.
    assert store.exact_threshold >= 50_000
    assert recall() >= 0.98
    monkeypatch.setattr("sharc.vectors.DEFAULT_EXACT_THRESHOLD", 1000)
    assert store.exact_threshold == 1000 and recall() <= 0.96


def test_a_graph_filled_file_by_file_and_linked_widely_finds_nearly_all_of_the_true_nearest(
    tmp_path: Path,
) -> None:
    # An index is filled in path order: each file's chunks close together, each file a step
    # away from the one before. Linked at usearch's own width (128) such a graph finds about
    # 96% of the true 100 nearest here; at `BUILD_EXPANSION`, 99.8%. Added one at a time:
    # a batch is inserted by several threads in their own order, and its graph varies.
    recalls = []
    for seed in (0, 3, 5):
        rng = np.random.default_rng(seed)
        topic, files = unit(rng.standard_normal((1, 384))), []
        for _ in range(600):
            topic = unit(topic + 0.35 * unit(rng.standard_normal((1, 384))))
            files.append(unit(topic + 0.8 * unit(rng.standard_normal((10, 384)))))
        data = np.concatenate(files)
        store = VectorStore(384, exact_threshold=0)
        assert store.link_width == 128  # usearch's own
        store.link_width = sharc.vectors.BUILD_EXPANSION
        for row in range(len(data)):
            store.upsert(np.array([row], dtype=np.uint64), data[row : row + 1])
        picks = rng.integers(0, len(data), 30)
        queries = unit(data[picks] + 0.6 * unit(rng.standard_normal((30, 384))))
        for query in queries:
            true_nearest = set(np.argsort(-(data @ query))[:100].tolist())
            found = {key for key, _ in store.search(query, 100)}
            recalls.append(len(true_nearest & found) / 100)
    assert np.mean(recalls) >= 0.98
    store.save(tmp_path / "vectors.usearch")
    with pytest.raises(ReadOnlyStoreError):
        VectorStore.load(tmp_path / "vectors.usearch", view=True).link_width = 256
    with pytest.raises(ValueError, match="positive"):
        store.link_width = 0
