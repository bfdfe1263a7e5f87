"""The vectors of an index on disk: a main usearch file, a delta file beside it, tombstones.

    vectors.usearch          the main file: most vectors; rewritten only by a compaction
    vectors-delta.usearch    vectors added since the last compaction (small, rewritten whole)
    vector_tombstones        (a manifest table) keys of the main file that no longer count

Each vector set (`sharc.vector_sets.VectorSet`: the index's model, and the fast model's beside it)
has its own files, journal and tombstones; every function here takes the set it works on.

An update that changes a few chunks writes only the delta and the tombstones, so its cost
follows the change, not the index. Search reads the main file less its tombstones, and the
delta (`SegmentedVectors`). A key always holds the vector of its chunk's text, so a vector found
under a key is never wrong, at most no longer wanted: the manifest decides which keys count, and
search resolves every hit through it.

A compaction folds the delta into the main file and drops the tombstoned keys
(`load_for_compaction`, then `save_compacted`): when the delta and the tombstones would pass
`sharc.stores.COMPACT_SHARE` of the main file, when an update must compare every key (after a
crash, a model change, a failed embedding), or on `sharc index --compact`.

The writer records the state it left the vectors in (`sharc.stores.VectorsState`: the manifest
generation, the files' signatures and counts). An update that finds that state unchanged knows
the vectors are in line without reading them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sharc.errors import IndexCorruptError
from sharc.stores import VectorsState, file_signature
from sharc.vector_sets import DEFAULT_SET, VectorSet

if TYPE_CHECKING:
    from sharc.manifest import Manifest
    from sharc.vectors import VectorStore

VECTOR_BLOCK_CHUNKS = 2000  # vectors copied at a time between stores


def load_main(
    index_dir: Path, dimension: int, manifest: Manifest, vector_set: VectorSet = DEFAULT_SET
) -> VectorStore:
    """The main file, loaded to be written; empty when it is missing, damaged or of another
    dimension (vectors then come from the journal, or the model)."""
    from sharc.vectors import VectorStore

    store = _load(index_dir / vector_set.main, dimension, view=False)
    if store is None:
        return VectorStore(dimension)
    return _upgraded(manifest, store, vector_set)


def load_for_compaction(
    index_dir: Path, dimension: int, manifest: Manifest, vector_set: VectorSet = DEFAULT_SET
) -> VectorStore:
    """Every vector as one writable store: the main file with the delta folded in. Tombstoned
    keys stay until the keys are compared with the manifest's: their vectors may serve chunks
    with the same text."""
    store = load_main(index_dir, dimension, manifest, vector_set)
    delta = _load(index_dir / vector_set.delta, dimension, view=False)
    if delta is not None:
        keys = delta.keys()
        for start in range(0, len(keys), VECTOR_BLOCK_CHUNKS):
            store.upsert(*delta.vectors(keys[start : start + VECTOR_BLOCK_CHUNKS]))
    return store


def has_segments(index_dir: Path, manifest: Manifest, vector_set: VectorSet = DEFAULT_SET) -> bool:
    """Whether a delta or tombstones wait to be folded into the main file."""
    journal = manifest.journal(vector_set)
    return (index_dir / vector_set.delta).exists() or journal.count_vector_tombstones() > 0


def save_compacted(
    index_dir: Path, manifest: Manifest, store: VectorStore, vector_set: VectorSet = DEFAULT_SET
) -> None:
    """Save `store` as the main file, then drop the journal and the tombstones (the file holds
    every journaled vector and none of those keys), then the delta (folded into the file)."""
    store.save(index_dir / vector_set.main)
    journal = manifest.journal(vector_set)
    journal.clear_vectors()
    journal.clear_vector_tombstones()
    manifest.commit()
    _remove(index_dir / vector_set.delta)


def load_delta(index_dir: Path, dimension: int, vector_set: VectorSet = DEFAULT_SET) -> VectorStore:
    from sharc.vectors import VectorStore

    return _load(index_dir / vector_set.delta, dimension, view=False) or VectorStore(dimension)


def save_delta(
    index_dir: Path, manifest: Manifest, delta: VectorStore, vector_set: VectorSet = DEFAULT_SET
) -> None:
    """Save the delta, then drop the journal (the delta holds every journaled vector)."""
    delta.save(index_dir / vector_set.delta)
    manifest.journal(vector_set).clear_vectors()
    manifest.commit()


def remove_set(index_dir: Path, manifest: Manifest, vector_set: VectorSet) -> None:
    """Drop a vector set: its files, journal, tombstones and recorded state (uncommitted
    rows; the files go at once)."""
    _remove(index_dir / vector_set.main)
    _remove(index_dir / vector_set.delta)
    journal = manifest.journal(vector_set)
    journal.clear_vectors()
    journal.clear_vector_tombstones()
    manifest.set_meta(vector_set.state, "")
    manifest.set_meta(vector_set.complete, "0")


def state_after(
    manifest: Manifest,
    index_dir: Path,
    *,
    dimension: int,
    embedded: int,
    main_vectors: int,
    delta_vectors: int,
    vector_set: VectorSet = DEFAULT_SET,
) -> VectorsState:
    """The state to record once the vectors are in line with the manifest as it is now."""
    return VectorsState(
        generation=manifest.generation(),
        dimension=dimension,
        embedded=embedded,
        main=file_signature(index_dir / vector_set.main),
        delta=file_signature(index_dir / vector_set.delta),
        main_vectors=main_vectors,
        delta_vectors=delta_vectors,
        tombstones=manifest.journal(vector_set).count_vector_tombstones(),
    )


class MainAndDelta:
    """Where an update that writes the delta finds vectors to copy: the delta, then the main
    file (memory-mapped, and only when the delta lacks a key). Tombstoned keys serve too: their
    vectors no longer count for search, but still hold their text's vector."""

    def __init__(
        self, index_dir: Path, delta: VectorStore, vector_set: VectorSet = DEFAULT_SET
    ) -> None:
        self._main_path = index_dir / vector_set.main
        self._delta = delta
        self._main: VectorStore | None = None
        self._opened = False

    def __contains__(self, key: object) -> bool:
        if key in self._delta:
            return True
        main = self._open_main()
        return main is not None and key in main

    def vectors(self, keys: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        keys = np.asarray(list(keys), dtype=np.uint64)
        in_delta = np.array([key in self._delta for key in keys.tolist()], dtype=bool)
        found_keys, matrix = self._delta.vectors(keys[in_delta])
        main = self._open_main()
        if main is None or in_delta.all():
            return found_keys, matrix
        main_keys, main_matrix = main.vectors(keys[~in_delta])
        return np.concatenate([found_keys, main_keys]), np.vstack([matrix, main_matrix])

    def _open_main(self) -> VectorStore | None:
        if not self._opened:
            self._opened = True
            # In the recorded state: the file the writer saved and checked (no digest again).
            self._main = _load(self._main_path, self._delta.dimension, view=True, verify=False)
        return self._main


class SegmentedVectors:
    """The main file less its tombstones, and the delta, searched as one (read-only)."""

    def __init__(
        self,
        main: VectorStore | None,
        delta: VectorStore | None,
        tombstones: frozenset[int],
        signatures: tuple[object, object],
    ) -> None:
        self._main = main
        self._delta = delta
        self._tombstones = tombstones
        self.signatures = signatures  # of the files, as loaded
        self._length: int | None = None

    def __len__(self) -> int:
        """How many keys count; costs the size of the delta and the tombstones, not the main
        file's (searches ask it)."""
        if self._length is None:
            length = 0
            if self._main is not None:
                main = self._main
                length = len(main) - sum(1 for key in self._tombstones if key in main)
            if self._delta is not None:
                length += sum(1 for key in self._delta.keys().tolist() if key not in self._in_main())
            self._length = length
        return self._length

    def _in_main(self) -> _MainKeys:
        return _MainKeys(self._main, self._tombstones)

    def __contains__(self, key: object) -> bool:
        if self._delta is not None and key in self._delta:
            return True
        return self._main is not None and key in self._main and key not in self._tombstones

    def keys(self) -> np.ndarray:
        """Every key that counts, sorted (uint64)."""
        parts = []
        if self._main is not None:
            main = self._main.keys()
            if self._tombstones:
                tombstones = np.fromiter(self._tombstones, dtype=np.uint64)
                main = main[~np.isin(main, tombstones)]
            parts.append(main)
        if self._delta is not None:
            parts.append(self._delta.keys())
        if not parts:
            return np.zeros(0, dtype=np.uint64)
        return np.unique(np.concatenate(parts))

    def vectors(self, keys: np.ndarray) -> np.ndarray:
        """The vectors of those of `keys` (uint64) that count, at unit length, in the order of
        `keys`: each from the delta where it has the key, else from the main file unless
        tombstoned."""
        keys = np.asarray(keys, dtype=np.uint64)
        listed = keys.tolist()
        in_delta = np.zeros(len(keys), dtype=bool)
        if self._delta is not None and len(keys):
            in_delta = np.fromiter((key in self._delta for key in listed), bool, len(keys))
        in_main = ~in_delta if self._main is not None else np.zeros(len(keys), dtype=bool)
        if self._tombstones and in_main.any():
            in_main &= np.fromiter((key not in self._tombstones for key in listed), bool, len(keys))
        store = self._main if self._main is not None else self._delta  # an empty one is falsy
        rows = np.zeros((len(keys), store.ndim if store is not None else 0), dtype=np.float32)
        found = np.zeros(len(keys), dtype=bool)
        for part, wanted in ((self._delta, in_delta), (self._main, in_main)):
            if part is None or not wanted.any():
                continue
            held, matrix = part.vectors(keys[wanted])  # in the order asked, absent keys left out
            places = np.flatnonzero(wanted)[np.isin(keys[wanted], held)]
            rows[places], found[places] = matrix, True
        return rows[found]

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """The `limit` nearest keys with their similarity (0-1), best first."""
        hits: dict[int, float] = {}
        if self._main is not None:
            tombstones = self._tombstones
            allowed = (lambda key: key not in tombstones) if tombstones else None
            hits.update(self._main.search(vector, limit, allowed=allowed))
        if self._delta is not None:
            hits.update(self._delta.search(vector, limit))  # a key in both is the delta's
        return sorted(hits.items(), key=lambda hit: -hit[1])[:limit]


class _MainKeys:
    """Membership in the main file less its tombstones."""

    def __init__(self, main: VectorStore | None, tombstones: frozenset[int]) -> None:
        self._main, self._tombstones = main, tombstones

    def __contains__(self, key: object) -> bool:
        return self._main is not None and key in self._main and key not in self._tombstones


def open_for_search(
    index_dir: Path,
    manifest: Manifest,
    previous: SegmentedVectors | None = None,
    vector_set: VectorSet = DEFAULT_SET,
) -> SegmentedVectors | None:
    """The vectors of `vector_set` as search reads them (None when there are none yet). A
    file unchanged since `previous` (of the same set) was opened is not loaded (nor its digest
    checked) again."""
    from sharc.vectors import VectorStore

    main_path, delta_path = index_dir / vector_set.main, index_dir / vector_set.delta
    signatures = (file_signature(main_path), file_signature(delta_path))
    main = delta = None
    if previous is not None and previous.signatures[0] == signatures[0]:
        main = previous._main
    elif signatures[0] is not None:
        main = VectorStore.load(main_path, view=True)
    if previous is not None and previous.signatures[1] == signatures[1]:
        delta = previous._delta
    elif signatures[1] is not None:
        try:
            delta = VectorStore.load(delta_path, view=True)
        except (IndexCorruptError, FileNotFoundError):
            delta = None  # damaged (the next update rebuilds it) or just folded in
    if main is None and delta is None:
        return None
    journal = manifest.journal(vector_set)
    tombstones = frozenset(journal.vector_tombstones()) if main is not None else frozenset()
    return SegmentedVectors(main, delta, tombstones, signatures)


def _load(path: Path, dimension: int, *, view: bool, verify: bool = True) -> VectorStore | None:
    from sharc.vectors import VectorStore

    if not path.exists():
        return None
    try:
        store = VectorStore.load(path, view=view, verify=verify)
    except (IndexCorruptError, FileNotFoundError):
        return None
    return store if store.dimension == dimension else None


def _upgraded(manifest: Manifest, store: VectorStore, vector_set: VectorSet) -> VectorStore:
    """The vectors of an index written before the journal, ready to be brought in line.

    Such an index kept every vector in the manifest as well, and kept a chunk's key when its
    text changed: a key whose text has no vector there yet may hold a stale one, so it goes.
    Its float16 usearch file becomes int8 (half the bytes), without the model.
    """
    from sharc.vectors import VectorStore

    journal = manifest.journal(vector_set)
    if journal.journals_vectors:
        return store
    store.remove(journal.keys_without_vector())
    if store.dtype == "i8":
        return store
    upgraded = VectorStore(store.dimension)
    keys = store.keys()
    for start in range(0, len(keys), VECTOR_BLOCK_CHUNKS):
        upgraded.upsert(*store.vectors(keys[start : start + VECTOR_BLOCK_CHUNKS]))
    return upgraded


def _remove(path: Path) -> None:
    from sharc.vectors import checksum_path

    path.unlink(missing_ok=True)
    checksum_path(path).unlink(missing_ok=True)
