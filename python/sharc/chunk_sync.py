"""Chunking what changed into the manifest and the keyword indexes, a step at a time.

Chunking commits in steps (`STEP_SECONDS` of work each, the first batch of files at once):
each step commits the manifest first, in one transaction, then the keyword indexes (of chunks,
and of whole files: `sharc.file_keywords`), and records the manifest generation they reflect.
A file's change is always in one step, so a kill leaves every file either as it was or as it
is now. Along the way it notes which keys gained or lost the need for a vector
(`VectorChanges`), for `sharc.vector_sync`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.chunk_records import (
    keyword_doc,
    record_of,
    reference_rows,
    retired_key,
    unique_chunks,
)
from sharc.chunking import ChunkedFile, chunk_files
from sharc.embed_policy import EmbedPolicy
from sharc.errors import CancelledError
from sharc.file_keywords import (
    GENERATION_META,
    file_doc,
    reconcile_file_keywords,
    replace_files,
)
from sharc.files import WalkResult
from sharc.manifest import ChunkRecord, FileRecord, Manifest, RemovedChunk
from sharc.stores import FILE_KEYWORD, KEYWORD, open_keyword
from sharc.update_types import CancelCheck, EmbeddingMode, UpdateReport, VectorChanges
from sharc.writer_settings import Resolved

if TYPE_CHECKING:
    from sharc._core import WalkedFile
    from sharc.distributed import Executor
    from sharc.keyword import KeywordDoc, KeywordStore

FIRST_BATCH_FILES = 16  # the first files are committed (and searchable) at once
CHUNK_BATCH_FILES = 256  # batches double from the first up to this
STEP_SECONDS = 1.0  # a kill loses at most about this much chunking work


class ChunkSync:
    """Chunks the new and changed files of a walk of `root` (here, or on the `executor`'s
    cluster) into the manifest and the keyword index of `index_dir`.

    `fill_references`: an unchanged file's references are stored again (a manifest from before
    the code graph or from another extractor); `rechunk`: an unchanged file is chunked again
    (a manifest from another chunker).
    """

    def __init__(
        self,
        root: Path,
        index_dir: Path,
        executor: Executor | None,
        *,
        fill_references: bool,
        rechunk: bool,
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self.executor = executor
        self.fill_references = fill_references
        self.rechunk = rechunk

    def sync(
        self,
        manifest: Manifest,
        keyword: KeywordWriter,
        walked: WalkResult,
        resolved: Resolved,
        model_id: str,
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        hold: frozenset[str],
    ) -> tuple[list[RemovedChunk], VectorChanges]:
        """Chunk what changed and commit it, with the keyword index, a step at a time.

        `walked` is a walk measured against the manifest (`_walk`), of the whole tree or of a
        scope (then indexed files outside it are neither compared nor deleted): its new and
        changed files are chunked, its missing ones deleted, but those in `hold`.

        Returns the chunks removed, and the old keys of chunks that stay under a new key
        (their text changed): the vectors of both may serve chunks with the same text; and
        the keys that gained or lost the need for a vector. Memory stays bounded by a batch
        of files (and the keys changed), not the tree.
        """
        to_chunk = [f for f in walked.files if f.path not in hold]
        result.files_unchanged += walked.unchanged + len(walked.files) - len(to_chunk)
        deleted = [path for path in walked.missing if path not in hold]
        step = Step(manifest, keyword)
        retired: list[RemovedChunk] = []
        changes = VectorChanges()
        try:
            for path in deleted:
                keyword_only = manifest.keyword_only_rules_of(path)
                removed = manifest.delete_file(path)
                changes.dropped.update(c.key for c in removed if c.id not in keyword_only)
                changes.paths.add(path)
                step.removed.extend(removed)
                step.deleted_paths.append(path)
                result.files_deleted += 1
            total, done = len(to_chunk), 0
            batches = list(growing_batches(to_chunk))
            chunked_batches = self._chunked(batches, resolved.policy)
            for batch in batches:
                if is_cancelled():
                    raise CancelledError(
                        "indexing cancelled; the index keeps what was committed before"
                    )
                added: list[ChunkRecord] = []
                fresh: set[str] = set()
                files: list[KeywordDoc] = []
                for walked, chunked in zip(batch, next(chunked_batches)):
                    self._store_file(
                        manifest, walked, chunked, manifest.file(walked.path), model_id,
                        resolved.mode, result, step, (added, fresh, files), changes,
                    )
                if added:
                    # Uncommitted until the manifest commits; a crash leaves extras that
                    # search ignores and the next update removes.
                    keyword.store().upsert([keyword_doc(r) for r in added], absent=fresh)
                    step.changed = True
                if files:
                    replace_files(keyword.files(), files)
                    step.changed = True
                done += len(batch)
                report("chunking", files_done=done, files_total=total)
                if step.due:
                    retired.extend(step.commit())
            if is_cancelled():
                raise CancelledError(
                    "indexing cancelled; the index keeps what was committed before"
                )
            retired.extend(step.commit())
        except BaseException:
            step.rollback()
            raise
        return retired, changes

    def _chunked(
        self, batches: Sequence[Sequence[WalkedFile]], policy: EmbedPolicy
    ) -> Iterator[list[ChunkedFile]]:
        """The chunked files of each batch, in order: here, or on the cluster's CPUs, many
        batches at once (`sharc.distributed`)."""
        if self.executor is not None:
            return self.executor.chunk_batches(self.root, batches, policy)
        return (chunk_files(self.root, batch, policy=policy) for batch in batches)

    def _store_file(
        self,
        manifest: Manifest,
        walked: WalkedFile,
        chunked: ChunkedFile,
        previous: FileRecord | None,
        model_id: str,
        mode: EmbeddingMode,
        result: UpdateReport,
        step: Step,
        keyword_docs: tuple[list[ChunkRecord], set[str], list[KeywordDoc]],
        changes: VectorChanges,
    ) -> None:
        """Store one chunked file in the manifest; what the keyword indexes need goes into
        `keyword_docs`: the chunks added or changed, which of them are new, and the file's
        document (`sharc.file_keywords`)."""
        added, fresh, files = keyword_docs
        if chunked.error:
            # Nothing of the file is touched, its stat included: it keeps what it had and
            # the next update tries it again.
            result.fail(chunked.path, chunked.error)
            return
        if chunked.skipped:
            result.skipped.append((chunked.path, chunked.skipped))
        verdict = chunked.keyword_only
        rules = chunked.keyword_only_rules()
        stored_rules: dict[str, str] | None = None  # read once, where the shortcut needs it
        if (
            previous is not None
            and not self.rechunk
            and previous.content_hash == chunked.content_hash
            and manifest.keyword_only_reason(chunked.path) == (verdict and verdict.reason)
            and (stored_rules := manifest.keyword_only_rules_of(chunked.path)) == rules
        ):
            manifest.touch_file(chunked.path, walked.size, walked.mtime_ns)
            if self.fill_references:
                manifest.put_references(chunked.path, reference_rows(chunked.chunks))
            result.files_unchanged += 1
            return
        if previous is None:
            result.files_added += 1
        else:
            result.files_changed += 1
        old = manifest.chunk_ids_of(chunked.path)
        records = [
            record_of(chunk, chunked.content_hash, model_id, mode)
            for chunk in unique_chunks(chunked.chunks)
        ]
        new_ids = {r.id for r in records}
        gone = [old[i] for i in old if i not in new_ids]
        manifest.delete_chunks([r.id for r in gone])
        step.removed.extend(RemovedChunk(r.id, r.key, r.vector_key) for r in gone)
        if stored_rules is None:
            stored_rules = manifest.keyword_only_rules_of(chunked.path) if old else {}
        old_rules = stored_rules
        changed = [
            r for r in records
            if r.id not in old or old[r.id] != r or old_rules.get(r.id) != rules.get(r.id)
        ]
        step.rekeyed.extend(
            retired_key(old[r.id], r, chunked.content_hash, model_id, mode)
            for r in changed
            if r.id in old and old[r.id].key != r.key
        )
        note_vector_changes(changes, old, old_rules, gone, changed, rules)
        changes.paths.add(chunked.path)
        manifest.put_chunks(changed, rules)
        manifest.put_references(chunked.path, reference_rows(chunked.chunks))
        if verdict:
            result.keyword_only.append((chunked.path, verdict.reason))
        added.extend(changed)
        fresh.update(r.id for r in changed if r.id not in old)
        document = file_doc(chunked.path, chunked.content_hash, records)
        if document is not None:
            files.append(document)
        elif old:
            step.deleted_paths.append(chunked.path)
        result.chunks_added += sum(1 for r in records if r.id not in old)
        result.chunks_removed += len(gone)
        manifest.put_file(
            FileRecord(
                path=chunked.path,
                size=walked.size,
                mtime_ns=walked.mtime_ns,
                content_hash=chunked.content_hash,
                language=chunked.language,
                tier=chunked.tier,
                error=chunked.skipped,
                syntax_errors=len(chunked.syntax_errors),
            ),
            keyword_only=verdict.reason if verdict else None,
        )

    def reconcile_keyword(self, manifest: Manifest, keyword: KeywordWriter) -> None:
        """Repair keyword indexes that lag the manifest (after a crash or a kill), and refill
        missing ones from the manifest, without chunking again."""
        generation = str(manifest.generation())
        if not (
            (self.index_dir / FILE_KEYWORD / "meta.json").is_file()
            and manifest.get_meta(GENERATION_META) == generation
        ):
            reconcile_file_keywords(manifest, keyword.files())
            manifest.set_meta(GENERATION_META, generation)
            manifest.commit()
        exists = (self.index_dir / KEYWORD / "meta.json").is_file()
        if exists and manifest.get_meta("keyword_generation") == generation:
            return
        store = keyword.store()  # created now if missing: a search arriving finds an index
        indexed = set(store.all_ids())
        truth = manifest.chunk_ids()
        store.delete(sorted(indexed - truth))
        missing = sorted(truth - indexed)
        for start in range(0, len(missing), 2000):
            records = manifest.chunks_by_id(missing[start : start + 2000])
            store.upsert([keyword_doc(r) for r in records.values()])
        store.commit()
        manifest.set_meta("keyword_generation", generation)
        manifest.commit()


class KeywordWriter:
    """The keyword indexes (of chunks, and of whole files), each opened for writing when first
    needed: a no-op update never opens them (tantivy's writer takes memory and threads)."""

    def __init__(self, index_dir: Path) -> None:
        self._index_dir = index_dir
        self._stores: dict[str, KeywordStore] = {}

    def store(self) -> KeywordStore:
        """The chunk index."""
        return self._opened(KEYWORD)

    def files(self) -> KeywordStore:
        """The file index (`sharc.file_keywords`)."""
        return self._opened(FILE_KEYWORD)

    def _opened(self, name: str) -> KeywordStore:
        if name not in self._stores:
            self._stores[name] = open_keyword(self._index_dir, writable=True, name=name)
        return self._stores[name]

    def rollback(self) -> None:
        for store in self._stores.values():
            store.rollback()

    def close(self) -> None:
        for store in self._stores.values():
            store.close()
        self._stores = {}


class Step:
    """The chunking work since the last commit, committed together: the manifest first, then
    the keyword indexes."""

    def __init__(self, manifest: Manifest, keyword: KeywordWriter) -> None:
        self.manifest = manifest
        self.keyword = keyword
        self.removed: list[RemovedChunk] = []
        self.deleted_paths: list[str] = []  # files gone, or left without chunks
        self.rekeyed: list[RemovedChunk] = []
        self.changed = False
        self._since = float("-inf")  # the first batch is committed at once

    @property
    def due(self) -> bool:
        return time.monotonic() - self._since >= STEP_SECONDS

    def commit(self) -> list[RemovedChunk]:
        """Commit the step; returns its retired chunks (removed, and re-keyed)."""
        manifest = self.manifest
        if self.changed or self.removed:
            generation = manifest.generation() + 1
            manifest.set_meta("generation", str(generation))
            manifest.set_meta("vectors_complete", "0")
            manifest.commit()
            keyword = self.keyword.store()
            keyword.delete([chunk.id for chunk in self.removed])
            keyword.commit()
            files = self.keyword.files()
            files.delete_paths(self.deleted_paths)
            files.commit()
            manifest.set_meta("keyword_generation", str(generation))
            manifest.set_meta(GENERATION_META, str(generation))
        manifest.commit()
        retired = [*self.removed, *self.rekeyed]
        self.removed, self.rekeyed, self.changed = [], [], False
        self.deleted_paths = []
        self._since = time.monotonic()
        return retired

    def rollback(self) -> None:
        self.manifest.rollback()
        self.keyword.rollback()


def growing_batches(files: Sequence[WalkedFile]) -> Iterator[Sequence[WalkedFile]]:
    """Batches of files for the chunker, from `FIRST_BATCH_FILES` doubling up to
    `CHUNK_BATCH_FILES`: the first files are searchable soon, the rest go in large batches."""
    start, size = 0, FIRST_BATCH_FILES
    while start < len(files):
        yield files[start : start + size]
        start += size
        size = min(2 * size, CHUNK_BATCH_FILES)


def note_vector_changes(
    changes: VectorChanges,
    old: dict[str, ChunkRecord],
    old_rules: dict[str, str],
    gone: Sequence[ChunkRecord],
    changed: Sequence[ChunkRecord],
    rules: dict[str, str],
) -> None:
    """Add to `changes` what one file's new records do to the vectors: a key has a vector
    while its chunk is not keyword-only (`old_rules` before, `rules` now)."""
    changes.dropped.update(g.key for g in gone if g.id not in old_rules)
    for record in changed:
        embedded = record.id not in rules
        before = old.get(record.id)
        if before is None:
            if embedded:
                changes.added.add(record.key)
            continue
        was_embedded = record.id not in old_rules
        if before.key != record.key:
            if was_embedded:
                changes.dropped.add(before.key)
            if embedded:
                changes.added.add(record.key)
        elif was_embedded != embedded:
            (changes.added if embedded else changes.dropped).add(record.key)
