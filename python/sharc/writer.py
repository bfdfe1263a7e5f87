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

Two vector sets (`sharc.fast_vectors`): unless the index's model is the fast model itself (or
the fast set is turned off), the fast model's vectors are brought in line first, in seconds, and
search reads them until the default model's cover every chunk.

Vectors (`sharc.vector_segments`): when the vectors were in line before an update (the state
the last update recorded: the manifest generation, the usearch files, an empty journal), the
update knows exactly which keys it added and dropped (`VectorChanges`), and writes only those
to the delta file and the tombstones; a no-op update reads neither usearch nor the model.
Otherwise, and when the delta grows past its share of the main file or on `compact`, every key
is compared with the manifest's and the main file is rewritten.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.chunk_sync import ChunkSync, KeywordWriter
from sharc.fast_vectors import FastStage, drop_fast_set
from sharc.file_cohesion import measure as measure_cohesion
from sharc.files import IGNORE_FILE_NAMES, WalkResult, walk
from sharc.manifest import Manifest, RemovedChunk
from sharc.stores import (
    MANIFEST,
    VectorsState,
    recorded_state,
    remove_index_files,
    writer_lock,
)
from sharc.update_types import DEFAULT_EMBEDDING_MODE as DEFAULT_EMBEDDING_MODE
from sharc.update_types import (
    CancelCheck,
    Progress,
    ProgressCallback,
    UpdateReport,
    VectorChanges,
)
from sharc.update_types import EmbeddingMode as EmbeddingMode
from sharc.vector_sets import DEFAULT_SET, SEARCHED_VECTORS
from sharc.writer_settings import Resolved, WriterSettings, apply_settings, resolve, save_settings
from sharc.writer_settings import stored_settings as stored_settings

if TYPE_CHECKING:
    from sharc.distributed import Executor
    from sharc.embedding import Embedder
    from sharc.vector_sync import VectorSync


class IndexWriter:
    """Writes the index of `root` in `index_dir`; one update at a time per index (a file lock).

    `load_embedder(model)` gives the model (loading it takes a second); `loaded_embedder(model)`
    the one already loaded, if any; `load_fast_embedder()` the fast model, for the fast set. An
    `executor` (`sharc.distributed.RayExecutor`) chunks and embeds on a cluster; this process
    stays the only writer of the index.
    """

    def __init__(
        self,
        root: Path,
        index_dir: Path,
        settings: WriterSettings,
        *,
        load_embedder: Callable[[str | None], Embedder],
        loaded_embedder: Callable[[str | None], Embedder | None],
        load_fast_embedder: Callable[[], Embedder],
        executor: Executor | None = None,
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self.settings = settings
        self._load_fast_embedder = load_fast_embedder  # in this process, even with a cluster
        self._load_embedder = load_embedder
        self._loaded_embedder = loaded_embedder
        self.executor = executor
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
        resolved = resolve(self.settings, manifest)
        model_id, dimension = self._model_identity(resolved, embed=embed)
        rekeyed = apply_settings(
            manifest, resolved, model_id, root=self.root, device=self.settings.device,
            embed=embed,
        )
        # Read before any step commits: whether this update's changes are all there is to do.
        state = recorded_state(manifest, self.index_dir) if embed and not rekeyed else None
        fast = self._fast_stage(manifest, resolved, embed=embed, rekeyed=rekeyed,
                                default_in_line=state is not None)
        result = UpdateReport()
        keyword = KeywordWriter(self.index_dir)
        # A manifest from before the code graph, or from another reference extractor: every
        # file is read again (nothing is embedded again) so that the unchanged ones get their
        # references too.
        fill_references = not manifest.references_current()
        # Chunks made by another chunker (sharc was upgraded): every file is chunked again
        # and the chunks that changed are replaced; an unchanged text keeps its vector.
        rechunk = not manifest.chunks_current()
        chunks = ChunkSync(self.root, self.index_dir, self.executor,
                           fill_references=fill_references, rechunk=rechunk)
        if fill_references or rechunk:
            manifest.expire_file_stats()
            manifest.commit()
        if (
            rekeyed
            or fill_references
            or rechunk
            or not manifest.get_meta("last_update")
        ):
            scope = None  # every file is read again, or none was yet: the whole tree
        try:
            chunks.reconcile_keyword(manifest, keyword)
            report("walking")
            walked = self._walk(resolved, scope, manifest)
            result.skipped = [(s.path, s.detail) for s in walked.skipped]
            retired, changes = chunks.sync(
                manifest, keyword, walked, resolved, model_id, result, report, is_cancelled,
                hold,
            )
            if fill_references or rechunk:
                manifest.mark_references_complete()
                manifest.mark_chunks_current()
                manifest.commit()
            files_total = len(walked.files) + walked.unchanged
            report("keyword", files_done=files_total, files_total=files_total)
            if embed:
                if fast is not None:
                    fast.sync(manifest, changes, retired, result, report, is_cancelled,
                              compact=compact)
                    report = _for_set(report, DEFAULT_SET.name)
                self._sync_vectors(
                    manifest, chunks, keyword, lambda: self._walk(resolved, None, manifest),
                    resolved, model_id, dimension, state, changes, retired, result, report,
                    is_cancelled, hold, compact=compact, fast=fast,
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

    def _fast_stage(
        self, manifest: Manifest, resolved: Resolved, *, embed: bool, rekeyed: bool,
        default_in_line: bool,
    ) -> FastStage | None:
        """This update's fast stage (None without one: a keyword-only update, the fast model
        as the index's own, or the fast set turned off, which drops it)."""
        if not embed:
            return None
        from sharc.model_config import FAST_MODEL

        if resolved.model == FAST_MODEL or not resolved.fast_vectors:
            drop_fast_set(manifest, self.index_dir)
            return None
        stage = FastStage(self.root, self.index_dir, self._load_fast_embedder)
        stage.prepare(manifest, rekeyed=rekeyed, default_in_line=default_in_line)
        return stage

    def _walk(
        self, resolved: Resolved, scope: list[str] | None, manifest: Manifest
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

    def _model_identity(self, resolved: Resolved, *, embed: bool) -> tuple[str, int]:
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

    # -- vectors ---------------------------------------------------------------------------

    def _sync_vectors(
        self,
        manifest: Manifest,
        chunks: ChunkSync,
        keyword: KeywordWriter,
        walk_all: Callable[[], WalkResult],
        resolved: Resolved,
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
        fast: FastStage | None,
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
            # Chunks changed, no vector did (a chunker upgrade that kept every text, a change
            # to keyword-only chunks): the set, in line before, still covers every chunk,
            # though the chunk sync marked it incomplete.
            if (state.generation != manifest.generation()
                    or manifest.get_meta(DEFAULT_SET.complete) != "1"):
                replace(state, generation=manifest.generation()).record(manifest)
                manifest.set_meta(DEFAULT_SET.complete, "1")
                manifest.commit()
            measure_cohesion(
                manifest, self.index_dir, DEFAULT_SET, model_id, changes.paths, report
            )
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
            save_settings(manifest, resolved, model_id, root=self.root, device=self.settings.device,
                          embed=True)
            # Its counts would repeat the first pass's; its failures are those of the first.
            retired, _ = chunks.sync(
                manifest, keyword, walk_all(), resolved, model_id, UpdateReport(), report,
                is_cancelled, hold,
            )
            if fast is not None:  # its keys went with the old ones: made again, searched
                fast.switch_to_fast = True
                fast.sync(manifest, VectorChanges(), retired, UpdateReport(), report,
                          is_cancelled, compact=True)
            sync = self._vector_sync(
                manifest, resolved, model_id, embedder.dimension, result, report, is_cancelled
            )
            done = sync.compact(retired, fold=True)
            incremental = False
        complete = len(result.failed) == failures
        manifest.set_meta("vectors_complete", "1" if complete else "0")
        if complete:
            done.record(manifest)
            # Search reads the default set from this commit on (`sharc.fast_vectors`).
            manifest.set_meta(SEARCHED_VECTORS, DEFAULT_SET.name)
        manifest.commit()
        measure_cohesion(manifest, self.index_dir, DEFAULT_SET, sync.model_id,
                         changes.paths if incremental else None, report)

    def _vector_sync(
        self,
        manifest: Manifest,
        resolved: Resolved,
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


def _cancel_check(cancel: CancelCheck | threading.Event | None) -> CancelCheck:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def _progress_reporter(callback: ProgressCallback | None, started: float) -> Callable[..., None]:
    def report(phase: str, **counts: int | str) -> None:
        if callback is not None:
            callback(Progress(phase=phase, elapsed=time.monotonic() - started, **counts))  # type: ignore[arg-type]

    return report


def _for_set(report: Callable[..., None], vector_set: str) -> Callable[..., None]:
    """`report` for the stage of one vector set: its embedding progress names the set."""

    def for_set(phase: str, **counts: int | str) -> None:
        if phase == "embedding":
            counts.setdefault("vectors", vector_set)
        report(phase, **counts)

    return for_set


# -- what changed for the vectors -----------------------------------------------------------


