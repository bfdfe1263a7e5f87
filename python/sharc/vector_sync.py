"""Bringing usearch in line with the manifest: one vector for each chunk key the policy embeds.

A chunk's vector key is derived from its id and its text, so a key in usearch always holds the
vector of the text the manifest has: bringing usearch in line is a difference of key sets
(`VectorSync.run`). Missing vectors come from the journal (work done before a crash), then from
usearch itself where the same text sits under another key (moved, re-keyed or duplicated code),
and only then from the model, which is loaded at that moment and not before. Each distinct
vector key meets the model once per index; its vector is given to every chunk that has it.

New vectors are journaled in the manifest a batch at a time, before they go into usearch;
usearch is saved every `VECTOR_SAVE_SECONDS` and at the end, and the journal is dropped once a
saved file holds its vectors. A kill costs no embedding work.

Two ways (`sharc.vector_segments`): `apply` takes the keys an update added and dropped, when
the vectors were in line before it, and writes only the delta file and the tombstones;
`compact` compares every key with the manifest's and rewrites the main file, the delta folded in.
"""

from __future__ import annotations

import hashlib
import time
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sharc.errors import CancelledError
from sharc.manifest import ChunkPlace, ChunkRecord, Manifest, RemovedChunk
from sharc.stores import VectorsState
from sharc.vector_segments import (
    MainAndDelta,
    has_segments,
    load_delta,
    load_for_compaction,
    save_compacted,
    save_delta,
    state_after,
)
from sharc.vector_sets import DEFAULT_SET, VectorSet
from sharc.vectors import BUILD_EXPANSION

if TYPE_CHECKING:
    from sharc.embedding import Embedder
    from sharc.update_types import EmbeddingMode, UpdateReport, VectorChanges
    from sharc.vectors import VectorStore

EMBED_BATCH_CHUNKS = 32  # also the cancellation granularity: well under a second on 2 cores
VECTOR_BLOCK_CHUNKS = 2000  # records read at a time while vectors are brought in line
VECTOR_SAVE_SECONDS = 20.0
# usearch is saved again only after this many times as long as its last save took: a large
# index is rewritten whole, and the journal keeps every vector safe meanwhile.
VECTOR_SAVE_SPACING = 10.0


class ModelChanged(Exception):  # noqa: N818 - a signal between writer stages, never raised out
    """The model loaded to embed names its vectors otherwise than the chunk keys assumed."""

    def __init__(self, embedder: Embedder) -> None:
        super().__init__(embedder.model_id)
        self.embedder = embedder


@dataclass
class VectorSync:
    """One bringing-in-line of the vectors, for the chunk keys made under `model_id`.

    `compact` or `apply` sets `vectors` (the store new vectors go to), `sources` (where vectors
    to copy are found) and how they are saved. Both raise `ModelChanged` before embedding
    anything if the model names its vectors otherwise than `model_id`.
    """

    root: Path
    index_dir: Path
    manifest: Manifest
    dimension: int
    mode: EmbeddingMode
    model_id: str
    load_embedder: Callable[[], Embedder]
    result: UpdateReport
    report: Callable[..., None]
    is_cancelled: Callable[[], bool]
    vector_set: VectorSet = DEFAULT_SET
    _embedder: Embedder | None = field(default=None, init=False)
    vectors: VectorStore = field(init=False)
    sources: VectorStore | MainAndDelta = field(init=False)
    _save: Callable[[], None] = field(init=False)

    def compact(self, retired: Sequence[RemovedChunk], *, fold: bool = False) -> VectorsState:
        """Make the main file hold one vector for each chunk key the policy embeds, and
        nothing else, the delta folded in; returns the state to record.

        `retired`: chunks removed or re-keyed by this update, whose vectors may serve chunks
        with the same text. Keys no embedded chunk has go (keyword-only chunks included).
        `fold`: rewrite the main file even if no key changed (`sharc index --compact`).
        """
        manifest, index_dir, vector_set = self.manifest, self.index_dir, self.vector_set
        journal = manifest.journal(vector_set)
        fold = fold or has_segments(index_dir, manifest, vector_set)
        vectors = self.vectors = self.sources = load_for_compaction(
            index_dir, self.dimension, manifest, vector_set
        )
        self._save = lambda: save_compacted(index_dir, manifest, vectors, vector_set)
        truth = manifest.embeddable_keys()
        present = vectors.keys()
        missing = np.setdiff1d(truth, present)
        stale = np.setdiff1d(present, truth)
        del truth, present
        filled, pending = self._fill_known(missing, retired)
        vectors.remove(stale)  # after the copies: a stale key's vector may serve a moved chunk
        if len(pending):
            filled += self._embed_pending(pending)
        if filled or len(stale) or fold or not journal.journals_vectors or not (
            index_dir / vector_set.main
        ).exists():
            self._save()
        else:
            journal.clear_vectors()  # what a crash left there, usearch holds already
            manifest.commit()
        return state_after(
            manifest, index_dir, dimension=self.dimension, embedded=len(vectors),
            main_vectors=len(vectors), delta_vectors=0, vector_set=vector_set,
        )

    def apply(
        self, state: VectorsState, changes: VectorChanges, retired: Sequence[RemovedChunk]
    ) -> VectorsState:
        """Bring in line vectors that were in line (`state`) before the update that made
        `changes`: the delta gains the added keys' vectors, and the dropped keys leave it or
        become tombstones of the main file; returns the state to record."""
        manifest, index_dir, vector_set = self.manifest, self.index_dir, self.vector_set
        journal = manifest.journal(vector_set)
        delta = self.vectors = load_delta(index_dir, self.dimension, vector_set)
        self.sources = MainAndDelta(index_dir, delta, vector_set)
        self._save = lambda: save_delta(index_dir, manifest, delta, vector_set)
        dropped = sorted(changes.dropped)
        in_delta = [key for key in dropped if key in delta]
        journal.add_vector_tombstones(set(dropped) - set(in_delta))
        # A key that comes back (keyword-only no more) may still be in the main file.
        revived = journal.remove_vector_tombstones(changes.added)
        filled, pending = self._fill_known(sorted(changes.added - revived), retired)
        delta.remove(in_delta)  # after the copies, as above
        if len(pending):
            filled += self._embed_pending(pending)
        if filled or in_delta:
            self._save()
        else:
            manifest.commit()
        return state_after(
            manifest, index_dir, dimension=self.dimension,
            embedded=state.embedded + filled + len(revived) - len(dropped),
            main_vectors=state.main_vectors, delta_vectors=len(delta), vector_set=vector_set,
        )

    def _fill_known(
        self, missing: Sequence[int] | np.ndarray, retired: Sequence[RemovedChunk]
    ) -> tuple[int, Places]:
        """Give the `missing` keys the vectors that exist: from the journal (work done before a
        crash), or from `sources` where the same text has one under another key (`retired`:
        chunks this update removed or re-keyed). Returns how many keys got one, and where the
        others are (for the model)."""
        manifest, vectors = self.manifest, self.vectors
        # Records are read a block at a time: memory follows the block, not the backlog.
        places = Places.of(manifest.places_of(missing))
        filled: set[int] = set()
        journal = manifest.journal(self.vector_set)
        for block in places.blocks(VECTOR_BLOCK_CHUNKS):
            # Keys and vector keys are all this needs: no code is read (or inflated).
            found = list(manifest.places_of(block.tolist()))
            keys, matrix = journal.vectors_for(found)
            if keys:
                vectors.upsert(np.array(keys, dtype=np.uint64), matrix)
            filled.update(keys)
            filled |= self._copy_vectors(found, retired, filled)
        return len(filled), places.without(filled)

    def embedder(self) -> Embedder:
        """The model, loaded on first use; `ModelChanged` if its vectors go by another id."""
        if self._embedder is None:
            embedder = self.load_embedder()
            if embedder.model_id != self.model_id or embedder.dimension != self.dimension:
                raise ModelChanged(embedder)
            self._embedder = embedder
        return self._embedder

    def _copy_vectors(
        self,
        pending: Sequence[ChunkPlace],
        retired: Sequence[RemovedChunk],
        skip: set[int],
    ) -> set[int]:
        """Give chunks the vector usearch holds for the same text under another key; returns
        the keys that got one."""
        manifest, sources = self.manifest, self.sources
        if not isinstance(sources, MainAndDelta) and not len(sources):
            return set()  # an empty store (a first build): nothing to copy from
        unfilled = {r.key for r in pending if r.key not in skip}
        wanted = {r.vector_key for r in pending if r.key not in skip}
        if not wanted:
            return set()
        candidates: dict[str, list[int]] = {}
        for chunk in retired:
            if chunk.vector_key in wanted:
                candidates.setdefault(chunk.vector_key, []).append(chunk.key)
        for vector_key, keys in manifest.keys_by_vector_key(sorted(wanted)).items():
            # Not the keys waiting for a vector: looking them up could open the main file.
            candidates.setdefault(vector_key, []).extend(k for k in keys if k not in unfilled)
        source_of: dict[str, int] = {}
        for vector_key, keys in candidates.items():
            source = next((k for k in keys if k in sources), None)
            if source is not None:
                source_of[vector_key] = source
        if not source_of:
            return set()
        found, matrix = sources.vectors(sorted(set(source_of.values())))
        row_of = {int(key): row for row, key in enumerate(found)}
        targets = [r for r in pending if r.key not in skip and r.vector_key in source_of]
        rows = [row_of[source_of[r.vector_key]] for r in targets]
        # Journaled like new vectors: their sources may be gone once usearch is saved.
        manifest.journal(self.vector_set).put_vectors(
            [r.vector_key for r in targets], matrix[rows]
        )
        manifest.commit()
        self.vectors.upsert(np.array([r.key for r in targets], dtype=np.uint64), matrix[rows])
        return {r.key for r in targets}

    def _embed_pending(self, pending: Places) -> int:
        """Embed each distinct vector key of `pending` once; every chunk key that has it gets
        the vector (returns how many keys got one). A batch is journaled (by vector key, so for
        all its copies) before usearch, which is saved every `VECTOR_SAVE_SECONDS` (or ten
        times as long as its last save took, for a large index)."""
        manifest, result = self.manifest, self.result
        journal = manifest.journal(self.vector_set)
        copies = _Copies.of(pending)
        pending = pending.without(copies.followers)
        embedder = self.embedder()
        if not getattr(embedder, "static", False):
            # Linking a vector widely costs a fraction of a millisecond: nothing beside an
            # encoder's pass, and the graph it makes finds more of the true nearest.
            self.vectors.link_width = max(self.vectors.link_width, BUILD_EXPANSION)
        total = len(pending)
        done = 0
        filled = 0
        last_save, save_every = time.monotonic(), VECTOR_SAVE_SECONDS
        self.report("embedding", chunks_done=0, chunks_total=total)
        # A distributed embedder (`sharc.distributed`) embeds many batches at once, on its
        # workers; they come back in order, and each is journaled here as a local one is.
        size = getattr(embedder, "batch_chunks", EMBED_BATCH_CHUNKS)
        batches = (manifest.chunks_by_key(keys.tolist()) for keys in pending.blocks(size))
        remote = getattr(embedder, "embed_record_batches", None)
        if remote is not None:
            embedded = remote(batches, self.mode, self.root)
        else:
            embedded = (
                (records, *embed_isolating(embedder, records, self.mode, self.root))
                for records in batches
            )
        for records, batch, matrix, failures in _cancellable(embedded, self.is_cancelled):
            if records is None:
                self._save()
                raise CancelledError(
                    f"indexing cancelled after embedding {done} of {total} chunks;"
                    " keyword search covers everything, the next update embeds the rest"
                )
            for path, reason in failures:
                result.fail(path, reason)
            if batch:
                journal.put_vectors([r.vector_key for r in batch], matrix)
                manifest.commit()
                keys, rows = copies.spread(np.array([r.key for r in batch], dtype=np.int64))
                self.vectors.upsert(keys.astype(np.uint64), matrix[rows])
                filled += len(keys)
            done += len(records)
            result.chunks_embedded += len(batch)
            self.report("embedding", chunks_done=done, chunks_total=total)
            if time.monotonic() - last_save > save_every:
                started = time.monotonic()
                self._save()
                last_save = time.monotonic()
                save_every = max(VECTOR_SAVE_SECONDS, VECTOR_SAVE_SPACING * (last_save - started))
        return filled


@dataclass(frozen=True)
class Places:
    """Chunks waiting for a vector as arrays, a file's chunks together in line order and the
    files in path order: a million take about 30 MB, where tuples of Python objects took
    hundreds."""

    keys: np.ndarray  # int64
    files: np.ndarray  # int64: the same for the chunks of one file, rising with the path
    texts: np.ndarray  # (n, 2) uint64: the 128 bits of each chunk's vector key

    @classmethod
    def of(cls, places: Iterable[ChunkPlace]) -> Places:
        keys, lines, files, high, low = (array("q"), array("q"), array("q"), array("Q"), array("Q"))
        ordinal_of: dict[str, int] = {}
        for place in places:
            keys.append(place.key)
            lines.append(place.start_line)
            files.append(ordinal_of.setdefault(place.path, len(ordinal_of)))
            first, second = _bits_of(place.vector_key)
            high.append(first)
            low.append(second)
        # The files' ordinals in path order.
        rank = np.empty(len(ordinal_of), dtype=np.int64)
        rank[[ordinal_of[path] for path in sorted(ordinal_of)]] = np.arange(len(ordinal_of))
        ordinals = np.frombuffer(files, dtype=np.int64) if len(files) else np.zeros(0, np.int64)
        file_rank = rank[ordinals]
        line = np.frombuffer(lines, dtype=np.int64)
        order = np.lexsort((line, file_rank))
        texts = np.stack([np.frombuffer(high, np.uint64), np.frombuffer(low, np.uint64)], axis=1)
        return cls(np.frombuffer(keys, np.int64)[order], file_rank[order], texts[order])

    def __len__(self) -> int:
        return len(self.keys)

    def without(self, keys: Collection[int] | np.ndarray) -> Places:
        """These places less those of `keys`, in the same order."""
        if not len(keys):
            return self
        drop = np.fromiter(keys, dtype=np.int64) if not isinstance(keys, np.ndarray) else keys
        keep = ~np.isin(self.keys, drop)
        return Places(self.keys[keep], self.files[keep], self.texts[keep])

    def blocks(self, size: int) -> Iterator[np.ndarray]:
        """The keys in blocks of at least `size` (but the last) that never split a file: late
        chunking needs a file whole. A block ends at the first file boundary from `size` on."""
        starts = np.flatnonzero(self.files[1:] != self.files[:-1]) + 1
        start = 0
        while start < len(self.keys):
            after = np.searchsorted(starts, start + size)
            end = int(starts[after]) if after < len(starts) else len(self.keys)
            yield self.keys[start:end]
            start = end


_HEX_DIGITS = frozenset("0123456789abcdef")


def _bits_of(vector_key: str) -> tuple[int, int]:
    """A vector key's 128 bits as two 64-bit halves: the key itself when it is the 32 hex
    digits sharc writes, else a digest of it (equal keys give equal halves either way)."""
    if len(vector_key) != 32 or not _HEX_DIGITS.issuperset(vector_key):
        vector_key = hashlib.blake2b(vector_key.encode(), digest_size=16).hexdigest()
    return int(vector_key[:16], 16), int(vector_key[16:], 16)


@dataclass(frozen=True)
class _Copies:
    """Chunks waiting for the same vector: the first of each group is embedded, the others
    (its followers) get its vector. Both arrays are ordered by leader."""

    leaders: np.ndarray  # int64: for each follower, the key whose vector it takes
    followers: np.ndarray  # int64

    @classmethod
    def of(cls, pending: Places) -> _Copies:
        """The pending keys grouped by vector key (only theirs are read: the cost follows the
        backlog, not the index); the smallest key of a group is embedded."""
        order = np.lexsort((pending.keys, pending.texts[:, 1], pending.texts[:, 0]))
        keys, texts = pending.keys[order], pending.texts[order]
        first = np.ones(len(keys), dtype=bool)
        first[1:] = np.any(texts[1:] != texts[:-1], axis=1)
        leader = keys[first][np.cumsum(first) - 1]
        leaders, followers = leader[~first], keys[~first]
        by_leader = np.argsort(leaders, kind="stable")
        return cls(leaders[by_leader], followers[by_leader])

    def spread(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`keys` and their followers, with the row of `keys` each takes its vector from."""
        rows = np.arange(len(keys))
        first = np.searchsorted(self.leaders, keys, side="left")
        counts = np.searchsorted(self.leaders, keys, side="right") - first
        total = int(counts.sum())
        if not total:
            return keys, rows
        # The followers of each key: `first[i]`, `first[i] + 1`, ... `counts[i]` of them.
        offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        found = np.repeat(first, counts) + offsets
        return (
            np.concatenate([keys, self.followers[found]]),
            np.concatenate([rows, np.repeat(rows, counts)]),
        )


def _cancellable(
    embedded: Iterator[tuple[Sequence[ChunkRecord], list[ChunkRecord], np.ndarray, list[Failure]]],
    is_cancelled: Callable[[], bool],
) -> Iterator[tuple[Any, ...]]:
    """The batches of `embedded`, checking for cancellation before each; a cancellation yields
    one `(None, ...)` and closes `embedded` (a distributed one drops its work in flight)."""
    try:
        while True:
            if is_cancelled():
                yield None, [], None, []
                return
            item = next(embedded, None)
            if item is None:
                return
            yield item
    finally:
        close = getattr(embedded, "close", None)
        if close is not None:
            close()


Failure = tuple[str, str]  # a file whose chunks could not be embedded, and why


def embed_isolating(
    embedder: Embedder, records: Sequence[ChunkRecord], mode: EmbeddingMode, root: Path
) -> tuple[list[ChunkRecord], np.ndarray, list[Failure]]:
    """Embed `records`; if that fails, embed them file by file and leave out (and return) the
    files that fail. Their chunks stay keyword-only until an update embeds them."""
    try:
        return list(records), _embed_records(embedder, records, mode, root), []
    except Exception:  # noqa: BLE001 - find the file it was, below
        return _embed_each_file(embedder, records, mode, root)


def _embed_each_file(
    embedder: Embedder, records: Sequence[ChunkRecord], mode: EmbeddingMode, root: Path
) -> tuple[list[ChunkRecord], np.ndarray, list[Failure]]:
    by_path: dict[str, list[ChunkRecord]] = {}
    for record in records:
        by_path.setdefault(record.path, []).append(record)
    embedded: list[ChunkRecord] = []
    matrices: list[np.ndarray] = []
    failures: list[Failure] = []
    for path, of_file in by_path.items():
        try:
            matrices.append(_embed_records(embedder, of_file, mode, root))
        except Exception as error:  # noqa: BLE001 - the file's own failure
            failures.append((path, f"embedding failed: {type(error).__name__}: {error}"))
            continue
        embedded.extend(of_file)
    if not matrices:
        return [], np.zeros((0, embedder.dimension), np.float32), failures
    return embedded, np.vstack(matrices), failures


def _embed_records(
    embedder: Embedder, records: Sequence[ChunkRecord], mode: EmbeddingMode, root: Path
) -> np.ndarray:
    texts = [r.header + r.code for r in records]
    if mode == "independent":
        return embedder.embed_documents(texts)
    late = _late_vectors(embedder, records, root)
    if mode == "late":
        return late
    from sharc.embedding import combine

    return combine(embedder.embed_documents(texts), late)


def _late_vectors(embedder: Embedder, records: Sequence[ChunkRecord], root: Path) -> np.ndarray:
    """Pool each chunk's tokens out of an encoding of its whole file (late chunking)."""
    from sharc.embedding import Span

    by_path: dict[str, list[int]] = {}
    for position, record in enumerate(records):
        by_path.setdefault(record.path, []).append(position)
    files = []
    order: list[int] = []
    for path, positions in by_path.items():
        text, line_starts = _file_text_for_late(root, path)
        spans = []
        for position in positions:
            record = records[position]
            start = line_starts[min(record.start_line - 1, len(line_starts) - 1)]
            end = line_starts[min(record.end_line, len(line_starts) - 1)]
            spans.append(Span(start, max(end, start + 1)))
            order.append(position)
        # The path header is repeated at the start of every window of the file.
        files.append((text, spans, f"File: {path}\n"))
    pooled = embedder.embed_late_batch(files)
    matrix = np.vstack(pooled) if pooled else np.zeros((0, embedder.dimension), np.float32)
    result = np.empty_like(matrix)
    result[np.array(order)] = matrix
    return result



def _file_text_for_late(root: Path, path: str) -> tuple[str, list[int]]:
    """The file's text as late chunking encodes it, and the offset of each line start."""
    try:
        text = (root / path).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        text = ""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    line_starts = [0]
    position = text.find("\n")
    while position != -1:
        line_starts.append(position + 1)
        position = text.find("\n", position + 1)
    line_starts.append(len(text))
    return text, line_starts
