"""The vector store: one usearch HNSW index of chunk embeddings, keyed by 63-bit chunk keys.

Keys come from `key_of` over a chunk's id and text, so a chunk keeps its key across runs while
its text stays the same, and the SQLite manifest maps keys back to chunks. Scores are
similarities in 0-1: for the cosine and inner-product metrics `1 - distance` (the cosine itself)
clipped to 0-1, for `l2sq` `1 / (1 + distance)`.

An index of up to 50,000 vectors (and an `allowed` set of up to 10,000) is searched exactly:
the HNSW graph misses some of the true nearest (3% of the 100 nearest over 52,000 real
vectors), while brute force over 50,000 int8 vectors costs about what a
graph search of 100,000 does, 2-3 ms on one core. A larger index is searched through the graph,
each search looking at `SEARCH_EXPANSION` candidates at least, each vector linked into it looking
at `BUILD_EXPANSION` where its vectors are costly to make.

Cosine indexes store int8 by default, each vector scaled so that its largest component is 127.
usearch's own float-to-int8 cast uses one fixed scale, which leaves a normalised 384-d embedding
only a few levels per component; per-vector scaling keeps the cosine within about 0.001 of
float16's at half the bytes, because a cosine does not depend on a vector's length. usearch
finds candidates with the query scaled the same way; their scores are then computed from the
float query, so only the stored side is quantised. A float16 index loads as float16 (an index
written before int8 is rewritten on its next update).

On disk an index is the usearch file plus a `<name>.blake2b` sidecar holding its digest. usearch
trusts its file and can crash the process on a damaged one, so `load` checks the digest first
and raises `IndexCorruptError` instead.

Never write to a memory-mapped view: usearch crashes the process when `add` meets a viewed file
that had removals. A store opened with `view=True` refuses `upsert` and `remove`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from .errors import IndexCorruptError, SharcError

if TYPE_CHECKING:
    from usearch.index import Index

__all__ = [
    "DEFAULT_EXACT_THRESHOLD",
    "KEY_MASK",
    "ReadOnlyStoreError",
    "VectorStore",
    "checksum_path",
    "key_of",
    "keys_of",
]

#: Keys are masked to 63 bits: usearch reserves the all-ones u64 as its "no key" marker.
KEY_MASK = (1 << 63) - 1

#: Up to this many vectors, an index is searched by brute force, exactly. Exact search costs
#: time in proportion to the vectors (int8, one core: 0.8 ms at 12,000, 1.8 ms at 30,000, 2.8 ms
#: at 52,000 of the default model's; 3.1 ms for the graph at 100,000 uniform random ones, the
#: latency target's size), and the graph's misses cost ranking: over the monorepo benchmark's
#: 52,000 vectors an exact search lifts the vectors alone by 0.8 points of file NDCG@10 over
#: the graph's (+0.8 [+0.1, +1.7]; the hybrid -0.1 [-0.4, +0.2]), and by 1.5 over a graph
#: linked at usearch's width (see `benches/README.md`). So an index is searched exactly up to
#: where that costs what the graph costs at 100,000.
DEFAULT_EXACT_THRESHOLD = 50_000

#: Up to this many allowed keys, a filtered search reads their vectors and searches them
#: exactly; a larger set filters the whole index's search (reading each vector costs more than
#: comparing it in place).
SUBSET_EXACT_LIMIT = 10_000

#: How many candidates a filtered HNSW search asks for, per result wanted, on its first try.
_OVERFETCH = 4

#: An HNSW search looks at no fewer candidates than this (usearch's search expansion, `ef`;
#: usearch also looks at least at as many as the results asked for, and never below the
#: index's own setting, 64 by default). Alone, usearch searched only as wide as the results,
#: and that is too narrow: over the 52,445 default-model vectors of the repository
#: benchmark's 25 dev repositories in one index, a search for 100 (a search's depth) found 81%
#: of the true 100 nearest, and 93% at 300, which lifted that monorepo's hybrid file NDCG@10
#: by 1.2 points (+1.2 [+0.2, +2.4]; vectors alone +2.9 [+1.4, +4.6]; `python -m
#: benches.quality.monorepo`). On a graph linked at `BUILD_EXPANSION` the search finds 88% and
#: 96%, and the width is worth +0.4 [-0.2, +1.1] (vectors alone +1.0 [+0.1, +2.1]). It costs 5%
#: more time per search there, 10-17% at 100k-1M uniform random vectors (HNSW's hard case);
#: 400 gained +0.5 more at 19% at 100k. One width for every search: searches running side by
#: side never set it apart (no lock), and a result does not depend on what was searched before.
SEARCH_EXPANSION = 300

#: How many candidates a vector's insertion looks at when it is linked into the HNSW graph
#: (`VectorStore.link_width`; usearch's `expansion_add`, 128 by default), where the vectors
#: come from a model that takes far longer to make one. An index is filled in path order, a
#: file's chunks and a directory's files one after another, and a graph grown that way at
#: usearch's width is poorer than one grown in random order: over the monorepo benchmark's
#: 52,694 default-model vectors, added in path order, a search at `SEARCH_EXPANSION` finds
#: 93.4% of the exact 100 nearest (95.5% added in random order); linked at 256, 96.6%, which
#: lifts the vectors alone by 1.5 points of file NDCG@10 (+1.5 [+0.3, +2.9]) and the hybrid by
#: 0.7 (+0.7 [-0.3, +1.8]). Insertion then costs 2-3x as long (96 against 45 us a vector at
#: 52,000, 446 against 156 at 300,000): nothing beside the default model's 16 ms a chunk, too
#: much beside the fast model's 0.1 ms, whose graph keeps usearch's width (and found 96.8% of
#: its exact nearest there).
BUILD_EXPANSION = 256

_METRICS = ("cos", "ip", "l2sq")

Allowed: TypeAlias = "Callable[[int], bool] | Collection[int] | None"


class ReadOnlyStoreError(SharcError):
    """A write to a vector store opened as a read-only memory-mapped view."""


def _usearch_index_class() -> type[Index]:
    """usearch's `Index`, imported after onnxruntime.

    Importing onnxruntime after usearch crashes the process (a segfault inside onnxruntime's
    module init, seen with usearch 2.26 and onnxruntime 1.31); the other order is safe.
    """
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        pass
    from usearch.index import Index

    return Index


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, as float32; an all-zero row stays zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def key_of(name: str) -> int:
    """The stable 63-bit usearch key of a name (the index names a chunk by its id and the
    digest of its text): the first 8 bytes of its blake2b digest."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & KEY_MASK


def keys_of(chunk_ids: Iterable[str]) -> np.ndarray:
    """`key_of` over many ids, as a uint64 array in the same order."""
    return np.fromiter((key_of(chunk_id) for chunk_id in chunk_ids), dtype=np.uint64)


def checksum_path(path: str | os.PathLike[str]) -> Path:
    """Where the digest of the index file at `path` is kept."""
    path = Path(path)
    return path.with_name(path.name + ".blake2b")


class VectorStore:
    """An in-memory (or memory-mapped, read-only) usearch index of chunk vectors."""

    def __init__(
        self,
        ndim: int,
        *,
        metric: str = "cos",
        dtype: str = "i8",
        connectivity: int | None = None,
        expansion_add: int | None = None,
        expansion_search: int | None = None,
        exact_threshold: int | None = None,
    ) -> None:
        if ndim <= 0:
            raise ValueError(f"ndim must be positive, got {ndim}")
        if metric not in _METRICS:
            raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}")
        index = _usearch_index_class()(
            ndim=ndim,
            metric=metric,
            dtype=dtype,
            connectivity=connectivity,
            expansion_add=expansion_add,
            expansion_search=expansion_search,
        )
        self._setup(index, metric=metric, view=False, exact_threshold=exact_threshold)

    def _setup(
        self, index: Index, *, metric: str, view: bool, exact_threshold: int | None
    ) -> None:
        self._index = index
        self._metric = metric
        self._view = view
        # None: `DEFAULT_EXACT_THRESHOLD`, read at each search.
        self._exact_threshold = exact_threshold
        self._least_expansion = int(index.expansion_search)
        # Scaling each vector is only exact where the metric ignores length: the cosine.
        self._scaled_int8 = metric == "cos" and self.dtype == "i8"

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        view: bool = False,
        verify: bool = True,
        expansion_search: int | None = None,
        exact_threshold: int | None = None,
    ) -> VectorStore:
        """Open a saved index: copied into memory (writable), or memory-mapped with `view=True`.

        `verify` checks the file against its digest sidecar first; a missing or different digest,
        or a file usearch cannot read, raises `IndexCorruptError`.
        """
        Index = _usearch_index_class()
        from usearch.index import MetricKind

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no vector index at {path}")
        if verify:
            _verify_checksum(path)
        try:
            index = Index.restore(os.fspath(path), view=view, expansion_search=expansion_search)
        except (ValueError, RuntimeError, OSError) as error:
            raise IndexCorruptError(f"vector index {path} is unreadable: {error}") from error
        if index is None:
            raise IndexCorruptError(f"vector index {path} is not a usearch index")
        names = {MetricKind.Cos: "cos", MetricKind.IP: "ip", MetricKind.L2sq: "l2sq"}
        metric = names.get(index.metric) if isinstance(index.metric, MetricKind) else None
        if metric is None:
            raise IndexCorruptError(f"vector index {path} uses unsupported metric {index.metric}")
        store = cls.__new__(cls)
        store._setup(index, metric=metric, view=view, exact_threshold=exact_threshold)
        return store

    @property
    def link_width(self) -> int:
        """How many candidates each vector added is linked among (usearch's `expansion_add`):
        a wider search for its neighbours makes a better graph, and an insertion that costs
        more. Set it before adding (`BUILD_EXPANSION`)."""
        return int(self._index.expansion_add)

    @link_width.setter
    def link_width(self, width: int) -> None:
        self._check_writable()
        if width <= 0:
            raise ValueError(f"link_width must be positive, got {width}")
        self._index.expansion_add = width

    @property
    def exact_threshold(self) -> int:
        """Up to this many vectors the index is searched exactly."""
        if self._exact_threshold is None:
            return DEFAULT_EXACT_THRESHOLD
        return self._exact_threshold

    @property
    def ndim(self) -> int:
        """The number of dimensions of every vector (also `dimension`)."""
        return int(self._index.ndim)

    @property
    def dimension(self) -> int:
        return int(self._index.ndim)

    @property
    def metric(self) -> str:
        return self._metric

    @property
    def dtype(self) -> str:
        """usearch's storage type name, e.g. `f16`."""
        return str(self._index.dtype.name).lower()

    @property
    def read_only(self) -> bool:
        """True for a memory-mapped view, which refuses `upsert` and `remove`."""
        return self._view

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, (int, np.integer)) or not 0 <= int(key) <= KEY_MASK:
            return False
        return bool(self._index.contains(int(key)))

    def keys(self) -> np.ndarray:
        """Every key in the index, as a sorted uint64 array (for reconciliation)."""
        return np.sort(np.asarray(self._index.keys, dtype=np.uint64))

    def upsert(self, keys: np.ndarray | Iterable[int], vectors: np.ndarray) -> None:
        """Add vectors under `keys`, replacing any vector a key already had.

        A key repeated in one call keeps its last vector.
        """
        self._check_writable()
        keys = _as_keys(keys)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim == 1 and len(keys) == 1:
            vectors = vectors[np.newaxis, :]
        if vectors.ndim != 2 or vectors.shape[0] != len(keys) or vectors.shape[1] != self.ndim:
            raise ValueError(
                f"expected vectors of shape ({len(keys)}, {self.ndim}), got {vectors.shape}"
            )
        if len(keys) == 0:
            return
        unique, first_in_reversed = np.unique(keys[::-1], return_index=True)
        if len(unique) != len(keys):
            last = len(keys) - 1 - first_in_reversed
            keys, vectors = keys[last], vectors[last]
        present = np.asarray(self._index.contains(keys), dtype=bool)
        if present.any():
            self._index.remove(keys[present])
        self._index.add(keys, self._encode(vectors))

    def vectors(self, keys: np.ndarray | Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """The stored vectors of those `keys` the index holds: (keys, float32 matrix), in order.

        An int8 cosine index returns each vector at unit length, as it ranks them.
        """
        keys = _as_keys(keys)
        keys = keys[np.asarray(self._index.contains(keys), dtype=bool)] if len(keys) else keys
        if len(keys) == 0:
            return keys, np.zeros((0, self.ndim), dtype=np.float32)
        rows = self._index.get(keys, dtype="f32")
        matrix = np.vstack(rows if isinstance(rows, tuple) else (rows,)).astype(np.float32)
        if self._scaled_int8:
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix /= np.where(norms > 0, norms, 1.0)
        return keys, matrix

    def remove(self, keys: np.ndarray | Iterable[int]) -> int:
        """Remove the vectors of `keys`; absent keys are ignored. Returns how many were removed."""
        self._check_writable()
        keys = _as_keys(keys)
        if len(keys) == 0:
            return 0
        return int(np.sum(self._index.remove(keys)))

    def search(
        self, vector: np.ndarray, limit: int, *, allowed: Allowed = None
    ) -> list[tuple[int, float]]:
        """The `limit` nearest keys to `vector` with their similarity (0-1), best first.

        `allowed` restricts results to some keys: a collection of keys, or a predicate on a key.
        A small collection is searched exactly; otherwise the index is over-fetched and filtered
        until `limit` results pass or the whole index has been seen.
        """
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.ndim:
            raise ValueError(f"expected a vector of {self.ndim} dimensions, got {query.shape[0]}")
        total = len(self._index)
        if limit <= 0 or total == 0:
            return []
        if allowed is None:
            return self._search_index(query, min(limit, total))
        if isinstance(allowed, Collection) and not callable(allowed):
            subset = _as_keys(list(allowed))
            small = len(subset) <= min(self.exact_threshold, SUBSET_EXACT_LIMIT)
            if small or len(subset) * 8 <= total:
                return self._search_subset(query, limit, subset)
            allowed = {int(key) for key in subset}.__contains__
        return self._search_filtered(query, limit, allowed, total)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index to `path` atomically, with its digest sidecar.

        The file is written under a temporary name in the same directory, flushed, and renamed
        over `path`, so a reader never sees a half-written index.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary_sum = checksum_path(temporary)
        try:
            self._index.save(os.fspath(temporary))
            digest = _digest_of(temporary, sync=True)
            temporary_sum.write_text(digest + "\n", encoding="ascii")
            _fsync(temporary_sum)
            # A crash between the two renames leaves a digest that does not match: `load`
            # reports it as corrupt (and the index is rebuilt), never a silently wrong index.
            os.replace(temporary, path)
            os.replace(temporary_sum, checksum_path(path))
            _fsync_directory(path.parent)
        finally:
            temporary.unlink(missing_ok=True)
            temporary_sum.unlink(missing_ok=True)

    def _check_writable(self) -> None:
        if self._view:
            raise ReadOnlyStoreError(
                "this vector store is a read-only memory-mapped view; "
                "open it with VectorStore.load(path, view=False) to change it"
            )

    def _encode(self, vectors: np.ndarray) -> np.ndarray:
        """Vectors as usearch should receive them: int8 scaled per vector, or float32."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if not self._scaled_int8:
            return vectors
        peaks = np.max(np.abs(vectors), axis=-1, keepdims=True)
        scales = np.where(peaks > 0, 127.0 / np.where(peaks > 0, peaks, 1.0), 0.0)
        return np.clip(np.rint(vectors * scales), -127, 127).astype(np.int8)

    def _similarities(self, distances: np.ndarray) -> np.ndarray:
        distances = np.asarray(distances, dtype=np.float64)
        if self._metric == "l2sq":
            return 1.0 / (1.0 + np.maximum(distances, 0.0))
        return np.clip(1.0 - distances, 0.0, 1.0)

    def _search_index(self, query: np.ndarray, count: int) -> list[tuple[int, float]]:
        """The `count` nearest keys: exactly in a small index, else through the HNSW graph,
        looking at `SEARCH_EXPANSION` candidates at least."""
        encoded = self._encode(query)
        if len(self._index) <= self.exact_threshold:
            # One thread: usearch's default (every core) is a fifth slower for one query.
            matches = self._index.search(encoded, count, exact=True, threads=1)
        else:
            # The expansion is the index's, not the call's: every search sets the same one.
            expansion = max(self._least_expansion, SEARCH_EXPANSION)
            if self._index.expansion_search != expansion:
                self._index.expansion_search = expansion
            matches = self._index.search(encoded, count)
        if self._scaled_int8 and len(matches.keys):
            return self._rescored(query, np.asarray(matches.keys, dtype=np.uint64))
        similarities = self._similarities(matches.distances)
        return [(int(key), float(score)) for key, score in zip(matches.keys, similarities)]

    def _rescored(self, query: np.ndarray, keys: np.ndarray) -> list[tuple[int, float]]:
        """The cosine of the float query with each stored int8 vector, best first: only the
        stored side is quantised then, which halves the error of the int8 search's scores."""
        keys, matrix = self.vectors(keys)
        norm = float(np.linalg.norm(query))
        cosines = matrix @ (query / norm if norm > 0 else query)
        order = np.argsort(-cosines, kind="stable")
        similarities = np.clip(cosines[order], 0.0, 1.0)
        return [(int(keys[i]), float(score)) for i, score in zip(order, similarities)]

    def _search_subset(
        self, query: np.ndarray, limit: int, subset: np.ndarray
    ) -> list[tuple[int, float]]:
        from usearch.index import search as brute_force

        subset, matrix = self.vectors(np.unique(subset))
        if len(subset) == 0:
            return []
        count = min(limit, len(subset))
        matches = brute_force(matrix, query, count, self._metric, exact=True)
        similarities = self._similarities(matches.distances)
        return [(int(subset[row]), float(score)) for row, score in zip(matches.keys, similarities)]

    def _search_filtered(
        self, query: np.ndarray, limit: int, allowed: Callable[[int], bool], total: int
    ) -> list[tuple[int, float]]:
        count = min(total, max(limit * _OVERFETCH, 32))
        while True:
            found = [
                (key, score) for key, score in self._search_index(query, count) if allowed(key)
            ]
            if len(found) >= limit or count >= total:
                return found[:limit]
            count = min(total, count * _OVERFETCH)


def _as_keys(keys: np.ndarray | Iterable[int]) -> np.ndarray:
    array = np.asarray(keys if isinstance(keys, np.ndarray) else list(keys))
    if array.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise ValueError(f"keys must be a 1-d array of integers, got {array.dtype} {array.shape}")
    if array.dtype.kind == "i" and (array < 0).any():
        raise ValueError("keys must not be negative")
    array = array.astype(np.uint64)
    if (array > KEY_MASK).any():
        raise ValueError("keys must fit in 63 bits; derive them with key_of()")
    return array


def _digest_of(path: Path, *, sync: bool = False) -> str:
    digest = hashlib.blake2b(digest_size=32)
    with open(path, "rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
        if sync:
            os.fsync(file.fileno())
    return digest.hexdigest()


def _verify_checksum(path: Path) -> None:
    sidecar = checksum_path(path)
    try:
        expected = sidecar.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise IndexCorruptError(f"vector index {path} has no digest file {sidecar.name}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise IndexCorruptError(f"vector index digest {sidecar} is unreadable: {error}") from error
    try:
        actual = _digest_of(path)
    except OSError as error:
        raise IndexCorruptError(f"vector index {path} is unreadable: {error}") from error
    if actual != expected:
        raise IndexCorruptError(f"vector index {path} does not match its digest (damaged file)")


def _fsync(path: Path) -> None:
    with open(path, "rb") as file:
        os.fsync(file.fileno())


def _fsync_directory(directory: Path) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some filesystems (and Windows) cannot fsync a directory; the rename still holds
    finally:
        os.close(descriptor)
