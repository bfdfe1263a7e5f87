"""Bringing an index in line with the files on disk: walk → chunk → manifest and keyword index
→ vectors, touching only what changed.

Chunking commits in steps (`STEP_SECONDS` of work each, the first batch of files at once):
each step commits the manifest first, in one transaction, then the keyword index, and records
the manifest generation the keyword index reflects. A file's change is always in one step, so a
kill leaves every file either as it was or as it is now, and the next update goes on from
there instead of starting over. Keyword search answers from the first step on.

The model is loaded only when a chunk needs a vector, after every step is committed. A chunk's
vector key names the model that makes it (`ChunkRecord.vector_key`); the writer works the
model's id out without loading it (`sharc.model_config.expected_model_id`, settled by the id the
index remembers), and if the model, once loaded, goes by another id, every chunk is keyed again
under the right one before anything is embedded (`sharc.vector_sync.ModelChanged`).

Vectors (`sharc.vector_segments`): when the vectors were in line before an update (the state
the last update recorded: the manifest generation, the usearch files, an empty journal), the
update knows exactly which keys it added and dropped (`VectorChanges`), and writes only those
to the delta file and the tombstones; a no-op update reads neither usearch nor the model.
Otherwise, and when the delta grows past its share of the main file or on `compact`, every key
is compared with the manifest's and the main file is rewritten.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.chunk_records import (
    keyword_doc,
    record_of,
    reference_rows,
    retired_key,
    unique_chunks,
)
from sharc.chunking import ChunkedFile, chunk_files
from sharc.embed_policy import EmbedPolicy, policy_from_settings
from sharc.errors import CancelledError
from sharc.files import IGNORE_FILE_NAMES, WalkResult, WalkSettings, walk
from sharc.manifest import ChunkRecord, FileRecord, Manifest, RemovedChunk
from sharc.stores import (
    KEYWORD,
    MANIFEST,
    VectorsState,
    open_keyword,
    recorded_state,
    remove_index_files,
    writer_lock,
)
from sharc.update_types import DEFAULT_EMBEDDING_MODE as DEFAULT_EMBEDDING_MODE
from sharc.update_types import (
    CancelCheck,
    EmbeddingMode,
    Progress,
    ProgressCallback,
    UpdateReport,
    VectorChanges,
)

if TYPE_CHECKING:
    from sharc._core import WalkedFile
    from sharc.distributed import Executor
    from sharc.embedding import Embedder
    from sharc.keyword import KeywordStore
    from sharc.vector_sync import VectorSync

FIRST_BATCH_FILES = 16  # the first files are committed (and searchable) at once
CHUNK_BATCH_FILES = 256  # batches double from the first up to this
STEP_SECONDS = 1.0  # a kill loses at most about this much chunking work


@dataclass(frozen=True)
class WriterSettings:
    """What the caller asked for; None: as the index remembers (else the default)."""

    model: str | None = None
    embedding_mode: EmbeddingMode | None = None
    walk: WalkSettings | None = None
    embed_anyway: Collection[str] | None = None
    max_embedded_per_file: int | None = None
    device: str = "auto"


@dataclass(frozen=True)
class _Resolved:
    """The settings an update runs with: those asked for, else those the index remembers."""

    model: str | None
    mode: EmbeddingMode
    walk: WalkSettings
    policy: EmbedPolicy
    stored: dict[str, Any]


class IndexWriter:
    """Writes the index of `root` in `index_dir`; one update at a time per index (a file lock).

    `load_embedder(model)` gives the model (loading it takes a second); `loaded_embedder(model)`
    the one already loaded, if any. An `executor` (`sharc.distributed.RayExecutor`) chunks and
    embeds on a cluster; this process stays the only writer of the index.
    """

    def __init__(
        self,
        root: Path,
        index_dir: Path,
        settings: WriterSettings,
        *,
        load_embedder: Callable[[str | None], Embedder],
        loaded_embedder: Callable[[str | None], Embedder | None],
        executor: Executor | None = None,
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self.settings = settings
        self._load_embedder = load_embedder
        self._loaded_embedder = loaded_embedder
        self.executor = executor
        self._fill_references = False
        self._rechunk = False
        if executor is not None:
            self._load_embedder = lambda model: executor.embedder(
                model, device=settings.device, root=root
            )
            self._loaded_embedder = lambda model: None

    def update(
        self,
        *,
        progress: ProgressCallback | None,
        cancel: CancelCheck | threading.Event | None,
        embed: bool,
        force: bool,
        hold: Collection[str],
        compact: bool = False,
        paths: Collection[str | os.PathLike[str]] | None = None,
    ) -> UpdateReport:
        """`sharc.Index.update`: bring the index in line with the files on disk (or with
        `paths` alone, see `Index.update`)."""
        started = time.monotonic()
        is_cancelled = _cancel_check(cancel)
        report = _progress_reporter(progress, started)
        if self.executor is not None:
            # A cluster that cannot be reached fails here, before anything is touched.
            report = self.executor.start(report)
        try:
            return self._update(report, is_cancelled, embed=embed, force=force, hold=hold,
                                compact=compact, paths=paths, started=started)
        finally:
            if self.executor is not None:
                self.executor.stop()

    def _update(
        self,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        *,
        embed: bool,
        force: bool,
        hold: Collection[str],
        compact: bool,
        paths: Collection[str | os.PathLike[str]] | None,
        started: float,
    ) -> UpdateReport:
        scope = None if force or paths is None else scope_of(paths, self.root)
        with writer_lock(self.index_dir, self.root):
            if force and self.index_dir.exists():
                remove_index_files(self.index_dir)
            manifest = Manifest(self.index_dir / MANIFEST, writable=True)
            try:
                return self._update_locked(
                    manifest, report, is_cancelled, embed=embed, started=started,
                    hold=frozenset(hold), compact=compact, scope=scope,
                )
            finally:
                manifest.close()

    def _update_locked(
        self,
        manifest: Manifest,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        *,
        embed: bool,
        started: float,
        hold: frozenset[str],
        compact: bool,
        scope: list[str] | None,
    ) -> UpdateReport:
        resolved = self._resolve(manifest)
        model_id, dimension = self._model_identity(resolved, embed=embed)
        rekeyed = self._apply_settings(manifest, resolved, model_id, embed=embed)
        # Read before any step commits: whether this update's changes are all there is to do.
        state = recorded_state(manifest, self.index_dir) if embed and not rekeyed else None
        result = UpdateReport()
        keyword = _KeywordWriter(self.index_dir)
        # A manifest from before the code graph, or from another reference extractor: every
        # file is read again (nothing is embedded again) so that the unchanged ones get their
        # references too.
        self._fill_references = not manifest.references_current()
        # Chunks made by another chunker (sharc was upgraded): every file is chunked again
        # and the chunks that changed are replaced; an unchanged text keeps its vector.
        self._rechunk = not manifest.chunks_current()
        if self._fill_references or self._rechunk:
            manifest.expire_file_stats()
            manifest.commit()
        if (
            rekeyed
            or self._fill_references
            or self._rechunk
            or not manifest.get_meta("last_update")
        ):
            scope = None  # every file is read again, or none was yet: the whole tree
        try:
            self._reconcile_keyword(manifest, keyword)
            report("walking")
            walked = self._walk(resolved, scope, manifest)
            result.skipped = [(s.path, s.detail) for s in walked.skipped]
            retired, changes = self._sync_chunks(
                manifest, keyword, walked, resolved, model_id, result, report, is_cancelled,
                hold,
            )
            if self._fill_references or self._rechunk:
                manifest.mark_references_complete()
                manifest.mark_chunks_current()
                manifest.commit()
            files_total = len(walked.files) + walked.unchanged
            report("keyword", files_done=files_total, files_total=files_total)
            if embed:
                self._sync_vectors(
                    manifest, keyword, lambda: self._walk(resolved, None, manifest),
                    resolved, model_id, dimension, state, changes, retired, result, report,
                    is_cancelled, hold, compact=compact,
                )
            manifest.set_meta("last_update", str(time.time()))
            if problem := manifest.compact():
                result.errors.append(f"the manifest keeps its free space for now: {problem}")
        finally:
            keyword.close()
        result.elapsed = time.monotonic() - started
        report("done", files_done=files_total, files_total=files_total,
               chunks_done=result.chunks_embedded, chunks_total=result.chunks_embedded)
        return result

    # -- settings remembered by the index --------------------------------------------------

    def _walk(
        self, resolved: _Resolved, scope: list[str] | None, manifest: Manifest
    ) -> WalkResult:
        """The files of the tree (or of `scope`) measured against the manifest's records: the
        new and changed ones, the count of unchanged ones, the recorded paths gone."""
        return walk(
            self.root,
            ignore_patterns=resolved.walk.ignore_patterns,
            custom_extensions=resolved.walk.custom_extensions,
            max_file_size=resolved.walk.max_file_size,
            sniff_content=False,
            scope=scope,
            known=manifest.file_stat_rows(scope),
        )

    def _resolve(self, manifest: Manifest) -> _Resolved:
        stored = stored_settings(manifest)
        asked = self.settings
        walk_settings = asked.walk
        if walk_settings is None:
            walk_settings = WalkSettings(
                tuple(stored.get("ignore_patterns", ())),
                tuple(stored.get("custom_extensions", ())),
                int(stored.get("max_file_size", WalkSettings().max_file_size)),
            )
        return _Resolved(
            model=asked.model if asked.model is not None else stored.get("model"),
            mode=asked.embedding_mode or stored.get("embedding_mode") or DEFAULT_EMBEDDING_MODE,
            walk=walk_settings,
            policy=policy_from_settings(
                stored.get("embed_policy"),
                off=asked.embed_anyway,
                max_chunks_per_file=asked.max_embedded_per_file,
            ),
            stored=stored,
        )

    def _model_identity(self, resolved: _Resolved, *, embed: bool) -> tuple[str, int]:
        """The id the vectors go by and their dimension, without loading the model (0 for a
        keyword-only update, which keeps the id the index has)."""
        if not embed:
            return str(resolved.stored.get("model_id", "")), 0
        loaded = self._loaded_embedder(resolved.model)
        if loaded is not None:
            return loaded.model_id, loaded.dimension
        from sharc.model_config import expected_model_id, model_config

        stored = resolved.stored
        same_request = (
            stored.get("model") == resolved.model
            and stored.get("device", "auto") == self.settings.device
        )
        model_id = expected_model_id(
            resolved.model,
            device=self.settings.device,
            remembered=str(stored.get("model_id") or "") if same_request else None,
        )
        return model_id, model_config(resolved.model)[0].dimension

    def _apply_settings(
        self, manifest: Manifest, resolved: _Resolved, model_id: str, *, embed: bool
    ) -> bool:
        """Apply changed settings; returns whether every chunk is to be keyed again."""
        stored = resolved.stored
        rekeyed = bool(embed and stored.get("model_id") and (
            stored.get("model_id") != model_id or stored.get("embedding_mode") != resolved.mode
        ))
        if rekeyed:
            # Another model or vector mode: every chunk gets a new vector key, so every file
            # is chunked again (cheap) and embedded again (unavoidable).
            manifest.forget_files()
        if stored.get("embed_policy") != resolved.policy.as_settings():
            # Another policy (or an index from before it): every file is chunked and judged
            # again; only the files whose verdict changed are touched, and only their chunks
            # whose verdict changed gain or lose a vector.
            manifest.expire_file_stats()
        self._save_settings(manifest, resolved, model_id, embed=embed)
        return rekeyed

    def _save_settings(
        self, manifest: Manifest, resolved: _Resolved, model_id: str, *, embed: bool
    ) -> None:
        settings = {
            "model": resolved.model,
            "model_id": model_id,
            "embedding_mode": resolved.mode,
            "embed_policy": resolved.policy.as_settings(),
            "ignore_patterns": list(resolved.walk.ignore_patterns),
            "custom_extensions": list(resolved.walk.custom_extensions),
            "max_file_size": resolved.walk.max_file_size,
            "root": str(self.root),
        }
        # The device the model id was worked out for: it decides the int8 copy.
        device = self.settings.device if embed else resolved.stored.get("device")
        if device is not None:
            settings["device"] = device
        if settings != resolved.stored:
            manifest.set_meta("settings", json.dumps(settings, sort_keys=True))
        manifest.commit()

    # -- chunks: the manifest and the keyword index -----------------------------------------

    def _sync_chunks(
        self,
        manifest: Manifest,
        keyword: _KeywordWriter,
        walked: WalkResult,
        resolved: _Resolved,
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
        step = _Step(manifest, keyword)
        retired: list[RemovedChunk] = []
        changes = VectorChanges()
        try:
            for path in deleted:
                keyword_only = manifest.keyword_only_rules_of(path)
                removed = manifest.delete_file(path)
                changes.dropped.update(c.key for c in removed if c.id not in keyword_only)
                step.removed.extend(removed)
                result.files_deleted += 1
            total, done = len(to_chunk), 0
            batches = list(_growing_batches(to_chunk))
            chunked_batches = self._chunked(batches, resolved.policy)
            for batch in batches:
                if is_cancelled():
                    raise CancelledError(
                        "indexing cancelled; the index keeps what was committed before"
                    )
                added: list[ChunkRecord] = []
                fresh: set[str] = set()
                for walked, chunked in zip(batch, next(chunked_batches)):
                    self._store_file(
                        manifest, walked, chunked, manifest.file(walked.path), model_id,
                        resolved.mode, result, step, added, fresh, changes,
                    )
                if added:
                    # Uncommitted until the manifest commits; a crash leaves extras that
                    # search ignores and the next update removes.
                    keyword.store().upsert([keyword_doc(r) for r in added], absent=fresh)
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
        step: _Step,
        added: list[ChunkRecord],
        fresh: set[str],
        changes: VectorChanges,
    ) -> None:
        if chunked.error:
            # Nothing of the file is touched, its stat included: it keeps what it had and
            # the next update tries it again.
            result.fail(chunked.path, chunked.error)
            return
        if chunked.skipped:
            result.skipped.append((chunked.path, chunked.skipped))
        verdict = chunked.keyword_only
        if (
            previous is not None
            and not self._rechunk
            and previous.content_hash == chunked.content_hash
            and manifest.keyword_only_reason(chunked.path) == (verdict and verdict.reason)
        ):
            manifest.touch_file(chunked.path, walked.size, walked.mtime_ns)
            if self._fill_references:
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
        rules = {i: verdict.rule for i in verdict.chunk_ids} if verdict else {}
        old_rules = manifest.keyword_only_rules_of(chunked.path) if old else {}
        changed = [
            r for r in records
            if r.id not in old or old[r.id] != r or old_rules.get(r.id) != rules.get(r.id)
        ]
        step.rekeyed.extend(
            retired_key(old[r.id], r, chunked.content_hash, model_id, mode)
            for r in changed
            if r.id in old and old[r.id].key != r.key
        )
        _note_vector_changes(changes, old, old_rules, gone, changed, rules)
        manifest.put_chunks(changed, rules)
        manifest.put_references(chunked.path, reference_rows(chunked.chunks))
        if verdict:
            result.keyword_only.append((chunked.path, verdict.reason))
        added.extend(changed)
        fresh.update(r.id for r in changed if r.id not in old)
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

    def _reconcile_keyword(self, manifest: Manifest, keyword: _KeywordWriter) -> None:
        """Repair a keyword index that lags the manifest (after a crash or a kill), and refill
        a missing one from the manifest, without chunking again."""
        generation = str(manifest.generation())
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

    # -- vectors ---------------------------------------------------------------------------

    def _sync_vectors(
        self,
        manifest: Manifest,
        keyword: _KeywordWriter,
        walk_all: Callable[[], WalkResult],
        resolved: _Resolved,
        model_id: str,
        dimension: int,
        state: VectorsState | None,
        changes: VectorChanges,
        retired: list[RemovedChunk],
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        hold: frozenset[str],
        *,
        compact: bool,
    ) -> None:
        """Bring the vectors in line (`sharc.vector_sync`): nothing to do when they were in
        line and no key changed; the changed keys alone when they were (into the delta); else
        every key (a compaction)."""
        incremental = (
            state is not None
            and not compact
            and state.dimension == dimension
            and not state.needs_compaction(len(changes))
        )
        if incremental and not changes:
            assert state is not None
            if state.generation != manifest.generation():  # chunks changed, no vector did
                replace(state, generation=manifest.generation()).record(manifest)
                manifest.commit()
            return
        from sharc.vector_sync import ModelChanged

        failures = len(result.failed)
        sync = self._vector_sync(
            manifest, resolved, model_id, dimension, result, report, is_cancelled
        )
        try:
            if incremental:
                assert state is not None
                done = sync.apply(state, changes, retired)
            else:
                done = sync.compact(retired, fold=compact)
        except ModelChanged as changed:
            # The chunk keys were made under the id the index remembered or expected, and the
            # model goes by another (another device, or no int8 copy): as when the model
            # changes, every chunk is keyed again under the model's id, then embedded.
            embedder = changed.embedder
            model_id = embedder.model_id
            manifest.forget_files()
            self._save_settings(manifest, resolved, model_id, embed=True)
            # Its counts would repeat the first pass's; its failures are those of the first.
            retired, _ = self._sync_chunks(
                manifest, keyword, walk_all(), resolved, model_id, UpdateReport(), report,
                is_cancelled, hold,
            )
            sync = self._vector_sync(
                manifest, resolved, model_id, embedder.dimension, result, report, is_cancelled
            )
            done = sync.compact(retired, fold=True)
        complete = len(result.failed) == failures
        manifest.set_meta("vectors_complete", "1" if complete else "0")
        if complete:
            done.record(manifest)
        manifest.commit()

    def _vector_sync(
        self,
        manifest: Manifest,
        resolved: _Resolved,
        model_id: str,
        dimension: int,
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
    ) -> VectorSync:
        from sharc.vector_sync import VectorSync

        return VectorSync(
            root=self.root,
            index_dir=self.index_dir,
            manifest=manifest,
            dimension=dimension,
            mode=resolved.mode,
            model_id=model_id,
            load_embedder=lambda: self._load_embedder(resolved.model),
            result=result,
            report=report,
            is_cancelled=is_cancelled,
        )


def scope_of(paths: Collection[str | os.PathLike[str]], root: Path) -> list[str]:
    """`Index.update(paths=...)` as the walk's scope: `/`-separated paths relative to `root`
    (absolute ones must lie inside it). A changed ignore file widens it to the whole tree
    (`""`): it may add or drop files anywhere."""
    scope = []
    for path in paths:
        place = Path(path)
        if place.is_absolute():
            place = _inside(place, root)
        parts = [part for part in place.as_posix().split("/") if part not in ("", ".")]
        if ".." in parts:
            raise ValueError(f"not a path inside the root {root}: {path}")
        if parts and parts[-1] in IGNORE_FILE_NAMES:
            return [""]
        scope.append("/".join(parts))
    return scope


def _inside(path: Path, root: Path) -> Path:
    for base in (root, root.resolve()):
        try:
            return path.relative_to(base)
        except ValueError:
            continue
    raise ValueError(f"not a path inside the root {root}: {path}")


def stored_settings(manifest: Manifest) -> dict[str, Any]:
    """The settings the index remembers (empty for a new index)."""
    raw = manifest.get_meta("settings")
    return json.loads(raw) if raw else {}


class _KeywordWriter:
    """The keyword index, opened for writing when first needed: a no-op update never opens
    it (tantivy's writer takes memory and threads)."""

    def __init__(self, index_dir: Path) -> None:
        self._index_dir = index_dir
        self._store: KeywordStore | None = None

    def store(self) -> KeywordStore:
        if self._store is None:
            self._store = open_keyword(self._index_dir, writable=True)
        return self._store

    def rollback(self) -> None:
        if self._store is not None:
            self._store.rollback()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


class _Step:
    """The chunking work since the last commit, committed together: the manifest first, then
    the keyword index."""

    def __init__(self, manifest: Manifest, keyword: _KeywordWriter) -> None:
        self.manifest = manifest
        self.keyword = keyword
        self.removed: list[RemovedChunk] = []
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
            manifest.set_meta("keyword_generation", str(generation))
        manifest.commit()
        retired = [*self.removed, *self.rekeyed]
        self.removed, self.rekeyed, self.changed = [], [], False
        self._since = time.monotonic()
        return retired

    def rollback(self) -> None:
        self.manifest.rollback()
        self.keyword.rollback()


def _growing_batches(files: Sequence[WalkedFile]) -> Iterator[Sequence[WalkedFile]]:
    """Batches of files for the chunker, from `FIRST_BATCH_FILES` doubling up to
    `CHUNK_BATCH_FILES`: the first files are searchable soon, the rest go in large batches."""
    start, size = 0, FIRST_BATCH_FILES
    while start < len(files):
        yield files[start : start + size]
        start += size
        size = min(2 * size, CHUNK_BATCH_FILES)


def _cancel_check(cancel: CancelCheck | threading.Event | None) -> CancelCheck:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def _progress_reporter(callback: ProgressCallback | None, started: float) -> Callable[..., None]:
    def report(phase: str, **counts: int) -> None:
        if callback is not None:
            callback(Progress(phase=phase, elapsed=time.monotonic() - started, **counts))

    return report


# -- what changed for the vectors -----------------------------------------------------------


def _note_vector_changes(
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
