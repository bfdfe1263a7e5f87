"""The index of one root: incremental, crash-safe sync and hybrid search.

Layout of an index directory::

    manifest.sqlite   files and chunks (with their code): the truth; and the vector journal
    keyword/          tantivy BM25 index over code-aware tokens (derived from the manifest)
    vectors.usearch   usearch ANN index of chunk vectors, the one copy of each
    writer.lock       held by the one process that writes

An update commits the manifest first, in one transaction, then brings the derived stores in
line and records the manifest generation they reflect. A crash between the two leaves stores
that lag; search resolves every hit through the manifest (deleted code never comes back) and the
next update reconciles them. Keyword search works as soon as chunking is committed; vectors
stream in behind it, and each search says which arms answered.

A chunk's vector key is derived from its id and its text, so a key in usearch always holds the
vector of the text the manifest has: bringing usearch in line is a difference of key sets
(`_sync_vectors`). New vectors are journaled in the manifest until a saved usearch file holds
them; a vector whose text is still in usearch under another key (moved or duplicated code) is
copied from there instead of recomputed. A vector key leaves out the chunk's own path (its header
names it), so copies of a file share their vectors: each distinct vector key meets the model
once per index, and its vector is given to every chunk that has it.

Not every chunk gets a vector: the embedding policy (`sharc.embed_policy`) keeps minified,
generated, vendored and data files, and the chunks of a file beyond its budget, keyword-only.
The manifest records which (and why); "every chunk key" above means every chunk key the policy
embeds. The index remembers its policy and judges its files again when it changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np

from sharc.chunking import ChunkedFile, chunk_files
from sharc.embed_policy import EmbedPolicy, policy_from_settings
from sharc.errors import CancelledError, IndexCorruptError, NotIndexedError
from sharc.files import WalkSettings, walk
from sharc.locking import WriterLock
from sharc.manifest import (
    ChunkPlace,
    ChunkRecord,
    FileRecord,
    Manifest,
    RemovedChunk,
)
from sharc.paths import default_index_dir

if TYPE_CHECKING:
    from sharc._core import Chunk
    from sharc.embedding import Embedder
    from sharc.ranking.pipeline import Arm
    from sharc.keyword import KeywordStore
    from sharc.vectors import VectorStore

EmbeddingMode = Literal["independent", "late", "combined"]
_Located = TypeVar("_Located", ChunkRecord, ChunkPlace)
SearchMode = Literal["hybrid", "semantic", "keyword"]

DEFAULT_EMBEDDING_MODE: EmbeddingMode = "independent"
CHUNK_BATCH_FILES = 256
EMBED_BATCH_CHUNKS = 32  # also the cancellation granularity: well under a second on 2 cores
VECTOR_BLOCK_CHUNKS = 2000  # records read at a time while vectors are brought in line
VECTOR_SAVE_SECONDS = 20.0
FIRST_KEYWORD_WAIT_SECONDS = 3.0  # a search during the first update waits this long for it


@dataclass(frozen=True)
class Progress:
    """Where an update stands; passed to the progress callback."""

    phase: str  # walking, chunking, keyword, embedding, done
    files_done: int = 0
    files_total: int = 0
    chunks_done: int = 0
    chunks_total: int = 0
    elapsed: float = 0.0

    @property
    def percent(self) -> float:
        if self.phase == "done":
            return 100.0
        if self.phase == "embedding" and self.chunks_total:
            return 50.0 + 50.0 * self.chunks_done / self.chunks_total
        if self.files_total:
            return 50.0 * self.files_done / self.files_total
        return 0.0


@dataclass
class UpdateReport:
    """What an update changed."""

    files_added: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Files chunked this time whose chunks (all, or those over the budget) the embedding
    #: policy keeps from the model, with why: they are searchable by keyword only.
    keyword_only: list[tuple[str, str]] = field(default_factory=list)
    #: Files that failed this time, with why: what was indexed for them before stays as it was
    #: (chunks or vectors) and the next update tries them again. Each is in `errors` too.
    failed: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    def fail(self, path: str, reason: str) -> None:
        """Record that `path` failed; the update goes on with the other files."""
        self.failed.append((path, reason))
        self.errors.append(f"{path}: {reason}")


@dataclass(frozen=True)
class IndexStats:
    """The state of an index on disk."""

    root: str
    index_dir: str
    files: int
    chunks: int
    embedded_chunks: int
    #: Chunks the embedding policy keeps from the model (no vector by design), and their files.
    keyword_only_chunks: int
    keyword_only_files: int
    model: str
    embedding_mode: str
    size_bytes: int
    last_update: float | None
    generation: int


@dataclass(frozen=True)
class SearchResult:
    """One hit: where it is, how well it matches (0-1), and the code."""

    path: str
    start_line: int
    end_line: int
    score: float
    kind: str
    symbol: str
    fqn: str
    language: str
    header: str
    code: str
    id: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True)
class SearchResponse(Sequence[SearchResult]):
    """The results of a search, with the arms that answered it."""

    results: list[SearchResult]
    arms: tuple[str, ...]
    query_kind: str
    complete: bool  # False while vectors are still being computed

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self.results[index]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)


@dataclass(frozen=True)
class SearchFilters:
    """Monorepo scoping: keep hits whose file matches all given filters."""

    extensions: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    path_prefix: str | None = None
    path_glob: str | None = None

    def accepts(self, path: str, language: str) -> bool:
        if self.extensions and not path.lower().endswith(
            tuple("." + e.lower().lstrip(".") for e in self.extensions)
        ):
            return False
        if self.languages and language not in self.languages:
            return False
        if self.path_prefix and not path.startswith(self.path_prefix.strip("/").removeprefix("./")):
            return False
        if self.path_glob:
            from fnmatch import fnmatchcase

            return fnmatchcase(path, self.path_glob)
        return True

    @property
    def active(self) -> bool:
        return bool(self.extensions or self.languages or self.path_prefix or self.path_glob)


CancelCheck = Callable[[], bool]
ProgressCallback = Callable[[Progress], None]


class Index:
    """The search index of one root directory. Thread-safe for concurrent searches."""

    def __init__(
        self,
        root: Path,
        index_dir: Path,
        *,
        model: str | None = None,
        embedding_mode: EmbeddingMode | None = None,
        walk_settings: WalkSettings | None = None,
        embed_anyway: Collection[str] | None = None,
        max_embedded_per_file: int | None = None,
        device: str = "auto",
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self._model_name = model
        self._embedding_mode = embedding_mode
        self._walk_settings = walk_settings
        self._embed_anyway = embed_anyway
        self._max_embedded_per_file = max_embedded_per_file
        # Bad rule names fail here, not in the middle of an update.
        policy_from_settings(None, off=embed_anyway, max_chunks_per_file=max_embedded_per_file)
        self._device = device
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()
        self._reader_lock = threading.Lock()
        self._manifest: Manifest | None = None
        self._keyword: KeywordStore | None = None
        self._vectors: VectorStore | None = None
        self._vectors_mtime: float = -1.0
        from sharc.ranking import DEFAULT_SETTINGS

        #: Arm weights, RRF constant, boosts and penalties (benchmarks tune them).
        self.ranking_settings = DEFAULT_SETTINGS

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        *,
        index_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
        embedding_mode: EmbeddingMode | None = None,
        ignore_patterns: Sequence[str] = (),
        custom_extensions: Sequence[str] = (),
        max_file_size: int | None = None,
        embed_anyway: Collection[str] | None = None,
        max_embedded_per_file: int | None = None,
        device: str = "auto",
    ) -> Index:
        """Open (without building) the index of `root`. `update()` builds or refreshes it.

        `model` is a directory holding model.onnx + tokenizer.json + sharc-model.json (None: the
        bundled all-MiniLM-L6-v2). Minified, generated, lockfile, data, source-map, snapshot and
        vendored files, and the chunks of a file beyond `max_embedded_per_file` (default 1000),
        are searchable by keyword only; `embed_anyway` names the rules to turn off (`"all"`, or
        `()` for none). Settings given here are remembered by the index (None: as remembered).
        """
        root_path = Path(root).expanduser()
        if not root_path.exists():
            raise FileNotFoundError(f"no such directory: {root_path}")
        if not root_path.is_dir():
            raise NotADirectoryError(f"not a directory: {root_path}")
        root_path = root_path.resolve()
        directory = Path(index_dir).expanduser() if index_dir else default_index_dir(root_path)
        settings = None
        if ignore_patterns or custom_extensions or max_file_size is not None:
            settings = WalkSettings(
                tuple(ignore_patterns),
                tuple(custom_extensions),
                max_file_size if max_file_size is not None else WalkSettings().max_file_size,
            )
        return cls(
            root_path,
            directory,
            model=model,
            embedding_mode=embedding_mode,
            walk_settings=settings,
            embed_anyway=embed_anyway,
            max_embedded_per_file=max_embedded_per_file,
            device=device,
        )

    @property
    def exists(self) -> bool:
        return (self.index_dir / "manifest.sqlite").exists()

    def _writer_lock(self) -> WriterLock:
        return WriterLock(self.index_dir / "writer.lock", what=str(self.root))

    # -- settings remembered by the index --------------------------------------------------

    def _stored_settings(self, manifest: Manifest) -> dict[str, object]:
        raw = manifest.get_meta("settings")
        return json.loads(raw) if raw else {}

    def _resolve_settings(self, manifest: Manifest) -> tuple[str | None, EmbeddingMode, WalkSettings]:
        stored = self._stored_settings(manifest)
        model = self._model_name if self._model_name is not None else stored.get("model")
        mode = self._embedding_mode or stored.get("embedding_mode") or DEFAULT_EMBEDDING_MODE
        walk_settings = self._walk_settings
        if walk_settings is None:
            walk_settings = WalkSettings(
                tuple(stored.get("ignore_patterns", ())),  # type: ignore[arg-type]
                tuple(stored.get("custom_extensions", ())),  # type: ignore[arg-type]
                int(stored.get("max_file_size", WalkSettings().max_file_size)),  # type: ignore[arg-type]
            )
        return model, mode, walk_settings  # type: ignore[return-value]

    def _resolve_embed_policy(self, manifest: Manifest) -> EmbedPolicy:
        stored = self._stored_settings(manifest).get("embed_policy")
        return policy_from_settings(
            stored,  # type: ignore[arg-type]
            off=self._embed_anyway,
            max_chunks_per_file=self._max_embedded_per_file,
        )

    def embedder(self) -> Embedder:
        """The embedding model, loaded once (it takes a second)."""
        with self._embedder_lock:
            if self._embedder is None:
                from sharc.embedding import load_embedder

                model = self._model_name
                if model is None and self.exists:
                    stored = self._stored_settings(self._reader_manifest()).get("model")
                    model = str(stored) if stored else None
                self._embedder = load_embedder(model, device=self._device)
            return self._embedder

    # -- updating --------------------------------------------------------------------------

    def update(
        self,
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | threading.Event | None = None,
        embed: bool = True,
        force: bool = False,
        hold: Collection[str] = (),
    ) -> UpdateReport:
        """Bring the index in line with the files on disk, touching only what changed.

        Files in `hold` (relative paths) keep their indexed state whatever is on disk: the
        watcher's syntax guard holds a file while it does not parse. Raises
        `IndexLockedError` if another process is writing, `CancelledError` when
        `cancel` says so (the index keeps its last committed state).
        """
        started = time.monotonic()
        is_cancelled = _cancel_check(cancel)
        report_progress = _progress_reporter(progress, started)
        with self._writer_lock():
            if force and self.index_dir.exists():
                self._remove_index_files()
            manifest = Manifest(self.index_dir / "manifest.sqlite", writable=True)
            try:
                return self._update_locked(
                    manifest, report_progress, is_cancelled, embed=embed, started=started,
                    hold=frozenset(hold),
                )
            finally:
                manifest.close()
                self._forget_readers()

    def _update_locked(
        self,
        manifest: Manifest,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        *,
        embed: bool,
        started: float,
        hold: frozenset[str],
    ) -> UpdateReport:
        model, mode, walk_settings = self._resolve_settings(manifest)
        policy = self._resolve_embed_policy(manifest)
        # Before the model loads (a second): a search arriving now finds a keyword index.
        self._open_keyword(writable=True).close()
        embedder = self._embedder_for(model) if embed else None
        model_id = embedder.model_id if embedder else str(
            self._stored_settings(manifest).get("model_id", "")
        )
        stored = self._stored_settings(manifest)
        if embedder is not None and stored.get("model_id") and (
            stored.get("model_id") != model_id or stored.get("embedding_mode") != mode
        ):
            # Another model or vector mode: every chunk gets a new vector key, so every file
            # is chunked again (cheap) and embedded again (unavoidable).
            manifest.forget_files()
        if stored.get("embed_policy") != policy.as_settings():
            # Another policy (or an index from before it): every file is chunked and judged
            # again; only the files whose verdict changed are touched, and only their chunks
            # whose verdict changed gain or lose a vector.
            manifest.expire_file_stats()
        self._save_settings(manifest, model, model_id, mode, walk_settings, policy)
        keyword = self._open_keyword(writable=True)
        vectors = self._open_vectors_for_write(embedder, manifest)
        result = UpdateReport()
        try:
            self._reconcile_keyword(manifest, keyword)
            report("walking")
            walked = walk(
                self.root,
                ignore_patterns=walk_settings.ignore_patterns,
                custom_extensions=walk_settings.custom_extensions,
                max_file_size=walk_settings.max_file_size,
                sniff_content=False,
            )
            result.skipped = [(s.path, s.detail) for s in walked.skipped]
            streamed = 0

            def stream(added: list[ChunkRecord], fresh: set[str]) -> None:
                # Uncommitted until the manifest commits; a crash leaves extras that search
                # ignores and the next update removes.
                nonlocal streamed
                streamed += len(added)
                keyword.upsert([_keyword_doc(r) for r in added], absent=fresh)

            try:
                removed, rekeyed = self._sync_chunks(
                    manifest, walked.files, model_id, mode, policy, result, report, is_cancelled,
                    hold, stream,
                )
            except BaseException:
                keyword.rollback()
                raise
            if streamed:
                manifest.set_meta("vectors_complete", "0")
            report("keyword", files_done=len(walked.files), files_total=len(walked.files))
            if removed or streamed:
                keyword.delete([chunk.id for chunk in removed])
                keyword.commit()
            manifest.set_meta("keyword_generation", str(manifest.generation()))
            manifest.commit()
            if embedder is not None and vectors is not None:
                failures = len(result.failed)
                self._sync_vectors(
                    manifest, embedder, vectors, mode, [*removed, *rekeyed], result, report,
                    is_cancelled,
                )
                complete = len(result.failed) == failures
                manifest.set_meta("vectors_complete", "1" if complete else "0")
            manifest.set_meta("last_update", str(time.time()))
            if problem := manifest.compact():
                result.errors.append(f"the manifest keeps its free space for now: {problem}")
        finally:
            keyword.close()
        result.elapsed = time.monotonic() - started
        files_total = len(walked.files)
        report("done", files_done=files_total, files_total=files_total,
               chunks_done=result.chunks_embedded, chunks_total=result.chunks_embedded)
        return result

    def _embedder_for(self, model: str | None) -> Embedder:
        if self._embedder is None or (model or None) != (self._model_name or None):
            from sharc.embedding import load_embedder

            self._embedder = load_embedder(model, device=self._device)
            self._model_name = model
        return self._embedder

    def _save_settings(
        self,
        manifest: Manifest,
        model: str | None,
        model_id: str,
        mode: EmbeddingMode,
        walk_settings: WalkSettings,
        policy: EmbedPolicy,
    ) -> None:
        settings = {
            "model": model,
            "model_id": model_id,
            "embedding_mode": mode,
            "embed_policy": policy.as_settings(),
            "ignore_patterns": list(walk_settings.ignore_patterns),
            "custom_extensions": list(walk_settings.custom_extensions),
            "max_file_size": walk_settings.max_file_size,
            "root": str(self.root),
        }
        manifest.set_meta("settings", json.dumps(settings, sort_keys=True))
        manifest.commit()

    def _sync_chunks(
        self,
        manifest: Manifest,
        files: Sequence[object],
        model_id: str,
        mode: EmbeddingMode,
        policy: EmbedPolicy,
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        hold: frozenset[str],
        sink: Callable[[list[ChunkRecord], set[str]], None],
    ) -> tuple[list[RemovedChunk], list[RemovedChunk]]:
        """Chunk what changed and commit it to the manifest in one transaction.

        The records added or changed go to `sink` batch by batch, with the ids that are new
        (memory stays bounded by a batch, not the tree). Returns the chunks removed, and the
        old keys of chunks that stay under a new key (their text changed).
        """
        known = manifest.file_stats()
        on_disk = {f.path: f for f in files}  # type: ignore[attr-defined]
        to_chunk = []
        for path, walked in on_disk.items():
            if path not in hold and known.get(path) != (walked.size, walked.mtime_ns):
                to_chunk.append(walked)
            else:
                result.files_unchanged += 1
        deleted = sorted(set(known) - set(on_disk) - hold)
        removed: list[RemovedChunk] = []
        rekeyed: list[RemovedChunk] = []
        try:
            for path in deleted:
                removed.extend(manifest.delete_file(path))
                result.files_deleted += 1
            total = len(to_chunk)
            for start in range(0, total, CHUNK_BATCH_FILES):
                if is_cancelled():
                    raise CancelledError("indexing cancelled; the index keeps its previous state")
                batch = to_chunk[start : start + CHUNK_BATCH_FILES]
                added: list[ChunkRecord] = []
                fresh: set[str] = set()
                for walked, chunked in zip(batch, chunk_files(self.root, batch, policy=policy)):
                    self._store_file(
                        manifest, walked, chunked, manifest.file(walked.path), model_id, mode,
                        result, removed, rekeyed, added, fresh,
                    )
                sink(added, fresh)
                report("chunking", files_done=min(start + len(batch), total), files_total=total)
            if is_cancelled():
                raise CancelledError("indexing cancelled; the index keeps its previous state")
            manifest.set_meta("generation", str(manifest.generation() + 1))
            manifest.commit()
        except BaseException:
            manifest.rollback()
            raise
        return removed, rekeyed

    def _store_file(
        self,
        manifest: Manifest,
        walked: object,
        chunked: ChunkedFile,
        previous: FileRecord | None,
        model_id: str,
        mode: EmbeddingMode,
        result: UpdateReport,
        removed: list[RemovedChunk],
        rekeyed: list[RemovedChunk],
        added: list[ChunkRecord],
        fresh: set[str],
    ) -> None:
        size, mtime_ns = walked.size, walked.mtime_ns  # type: ignore[attr-defined]
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
            and previous.content_hash == chunked.content_hash
            and manifest.keyword_only_reason(chunked.path) == (verdict and verdict.reason)
        ):
            manifest.touch_file(chunked.path, size, mtime_ns)
            result.files_unchanged += 1
            return
        if previous is None:
            result.files_added += 1
        else:
            result.files_changed += 1
        old = manifest.chunk_ids_of(chunked.path)
        records = [
            _record(chunk, chunked.content_hash, model_id, mode) for chunk in _unique(chunked.chunks)
        ]
        new_ids = {r.id for r in records}
        gone = [old[i] for i in old if i not in new_ids]
        manifest.delete_chunks([r.id for r in gone])
        removed.extend(RemovedChunk(r.id, r.key, r.vector_key) for r in gone)
        rules = {i: verdict.rule for i in verdict.chunk_ids} if verdict else {}
        old_rules = manifest.keyword_only_rules_of(chunked.path) if old else {}
        changed = [
            r for r in records
            if r.id not in old or old[r.id] != r or old_rules.get(r.id) != rules.get(r.id)
        ]
        rekeyed.extend(
            _retired(old[r.id], r, chunked.content_hash, model_id, mode)
            for r in changed
            if r.id in old and old[r.id].key != r.key
        )
        manifest.put_chunks(changed, rules)
        if verdict:
            result.keyword_only.append((chunked.path, verdict.reason))
        added.extend(changed)
        fresh.update(r.id for r in changed if r.id not in old)
        result.chunks_added += sum(1 for r in records if r.id not in old)
        result.chunks_removed += len(gone)
        manifest.put_file(
            FileRecord(
                path=chunked.path,
                size=size,
                mtime_ns=mtime_ns,
                content_hash=chunked.content_hash,
                language=chunked.language,
                tier=chunked.tier,
                error=chunked.skipped,
                syntax_errors=len(chunked.syntax_errors),
            ),
            keyword_only=verdict.reason if verdict else None,
        )

    # -- derived stores --------------------------------------------------------------------

    def _open_keyword(self, *, writable: bool) -> KeywordStore:
        from sharc.keyword import KeywordStore

        directory = self.index_dir / "keyword"
        try:
            return KeywordStore.open(directory, writable=writable)
        except IndexCorruptError:
            if not writable:
                raise
            shutil.rmtree(directory, ignore_errors=True)
            return KeywordStore.open(directory, writable=True)

    def _open_vectors_for_write(
        self, embedder: Embedder | None, manifest: Manifest
    ) -> VectorStore | None:
        if embedder is None:
            return None
        from sharc.vectors import VectorStore

        path = self.index_dir / "vectors.usearch"
        if path.exists():
            try:
                store = VectorStore.load(path, view=False)
                if store.dimension == embedder.dimension:
                    return self._upgraded(manifest, store)
            except IndexCorruptError:
                pass
            # Damaged, or another model's: vectors are taken from the journal (or, for an
            # older manifest, its cache) and the model embeds what neither holds.
        return VectorStore(embedder.dimension)

    def _upgraded(self, manifest: Manifest, store: VectorStore) -> VectorStore:
        """The vectors of an index written before the journal, ready for `_sync_vectors`.

        Such an index kept every vector in the manifest as well, and kept a chunk's key when its
        text changed: a key whose text has no vector there yet may hold a stale one, so it goes.
        Its float16 usearch file becomes int8 (half the bytes), without the model.
        """
        from sharc.vectors import VectorStore

        if manifest.journals_vectors:
            return store
        store.remove(manifest.keys_without_vector())
        if store.dtype == "i8":
            return store
        upgraded = VectorStore(store.dimension)
        keys = store.keys()
        for start in range(0, len(keys), VECTOR_BLOCK_CHUNKS):
            upgraded.upsert(*store.vectors(keys[start : start + VECTOR_BLOCK_CHUNKS]))
        return upgraded

    def _reconcile_keyword(self, manifest: Manifest, keyword: KeywordStore) -> None:
        """Repair a keyword index that lags the manifest (after a crash or a kill)."""
        generation = str(manifest.generation())
        if manifest.get_meta("keyword_generation") == generation:
            return
        indexed = set(keyword.all_ids())
        truth = manifest.chunk_ids()
        keyword.delete(sorted(indexed - truth))
        missing = sorted(truth - indexed)
        for start in range(0, len(missing), 2000):
            records = manifest.chunks_by_id(missing[start : start + 2000])
            keyword.upsert([_keyword_doc(r) for r in records.values()])
        keyword.commit()
        manifest.set_meta("keyword_generation", generation)
        manifest.commit()

    def _sync_vectors(
        self,
        manifest: Manifest,
        embedder: Embedder,
        vectors: VectorStore,
        mode: EmbeddingMode,
        retired: Sequence[RemovedChunk],
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
    ) -> None:
        """Make usearch hold one vector for each chunk key the policy embeds, and nothing else.

        Missing vectors come from the journal (work done before a crash), then from usearch
        itself where the same text sits under another key (`retired` chunks: moved, re-keyed
        or duplicated code), and only then from the model. Keys no embedded chunk has go
        (keyword-only chunks included).
        """
        truth = np.fromiter(manifest.embeddable_keys(), dtype=np.uint64)
        present = vectors.keys()
        missing = np.setdiff1d(truth, present)
        stale = np.setdiff1d(present, truth)
        # Records are read a block at a time: memory follows the block, not the backlog.
        places = manifest.places_of(missing.tolist()) if len(missing) else []
        filled: set[int] = set()
        for block in _batches_by_file(places, VECTOR_BLOCK_CHUNKS):
            records = manifest.chunks_by_key([place.key for place in block])
            keys, matrix = manifest.vectors_for(records)
            if keys:
                vectors.upsert(np.array(keys, dtype=np.uint64), matrix)
            filled.update(keys)
            filled |= self._copy_vectors(manifest, vectors, records, retired, filled)
        pending = [place for place in places if place.key not in filled]
        vectors.remove(stale)
        if pending:
            # Saves usearch once it is done (the file is rewritten whole: once per update).
            self._embed_pending(
                manifest, embedder, vectors, mode, pending, result, report, is_cancelled
            )
        elif (
            filled
            or len(stale)
            or not manifest.journals_vectors
            or not (self.index_dir / "vectors.usearch").exists()
        ):
            self._save_vectors(manifest, vectors)
        else:
            manifest.clear_vectors()  # what a crash left there, usearch holds already
            manifest.commit()

    def _copy_vectors(
        self,
        manifest: Manifest,
        vectors: VectorStore,
        pending: Sequence[ChunkRecord],
        retired: Sequence[RemovedChunk],
        skip: set[int],
    ) -> set[int]:
        """Give chunks the vector usearch holds for the same text under another key; returns
        the keys that got one."""
        wanted = {r.vector_key for r in pending if r.key not in skip}
        if not wanted:
            return set()
        candidates: dict[str, list[int]] = {}
        for chunk in retired:
            if chunk.vector_key in wanted:
                candidates.setdefault(chunk.vector_key, []).append(chunk.key)
        for vector_key, keys in manifest.keys_by_vector_key(sorted(wanted)).items():
            candidates.setdefault(vector_key, []).extend(keys)
        source_of: dict[str, int] = {}
        for vector_key, keys in candidates.items():
            source = next((k for k in keys if k in vectors), None)
            if source is not None:
                source_of[vector_key] = source
        if not source_of:
            return set()
        sources, matrix = vectors.vectors(sorted(set(source_of.values())))
        row_of = {int(key): row for row, key in enumerate(sources)}
        targets = [r for r in pending if r.key not in skip and r.vector_key in source_of]
        rows = [row_of[source_of[r.vector_key]] for r in targets]
        # Journaled like new vectors: their sources may be gone once usearch is saved.
        manifest.put_vectors([r.vector_key for r in targets], matrix[rows])
        manifest.commit()
        vectors.upsert(np.array([r.key for r in targets], dtype=np.uint64), matrix[rows])
        return {r.key for r in targets}

    def _save_vectors(self, manifest: Manifest, vectors: VectorStore) -> None:
        """Save usearch, then drop the journal: the saved file holds every journaled vector."""
        vectors.save(self.index_dir / "vectors.usearch")
        manifest.clear_vectors()
        manifest.commit()

    def _embed_pending(
        self,
        manifest: Manifest,
        embedder: Embedder,
        vectors: VectorStore,
        mode: EmbeddingMode,
        pending: Sequence[ChunkPlace],
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
    ) -> None:
        """Embed each distinct vector key of `pending` once; every chunk key that has it gets
        the vector. A batch is journaled (by vector key, so for all its copies) before usearch."""
        copies = _copies_of(manifest, pending)
        pending = [place for place in pending if place.key not in copies.followers]
        total = len(pending)
        done = 0
        last_save = time.monotonic()
        report("embedding", chunks_done=0, chunks_total=total)
        for places in _batches_by_file(pending, EMBED_BATCH_CHUNKS):
            if is_cancelled():
                self._save_vectors(manifest, vectors)
                raise CancelledError(
                    f"indexing cancelled after embedding {done} of {total} chunks;"
                    " keyword search covers everything, the next update embeds the rest"
                )
            records = manifest.chunks_by_key([place.key for place in places])
            batch, matrix = self._embed_isolating(embedder, records, mode, result)
            if batch:
                manifest.put_vectors([r.vector_key for r in batch], matrix)
                manifest.commit()
                keys, rows = copies.spread([r.key for r in batch])
                vectors.upsert(np.array(keys, dtype=np.uint64), matrix[rows])
            done += len(records)
            result.chunks_embedded += len(batch)
            report("embedding", chunks_done=done, chunks_total=total)
            if time.monotonic() - last_save > VECTOR_SAVE_SECONDS:
                self._save_vectors(manifest, vectors)
                last_save = time.monotonic()
        self._save_vectors(manifest, vectors)

    def _embed_isolating(
        self,
        embedder: Embedder,
        records: Sequence[ChunkRecord],
        mode: EmbeddingMode,
        result: UpdateReport,
    ) -> tuple[list[ChunkRecord], np.ndarray]:
        """Embed `records`; if that fails, embed them file by file and leave out (and report)
        the files that fail. Their chunks stay keyword-only until an update embeds them."""
        try:
            return list(records), self._embed_records(embedder, records, mode)
        except Exception:  # noqa: BLE001 - find the file it was, below
            return self._embed_each_file(embedder, records, mode, result)

    def _embed_each_file(
        self,
        embedder: Embedder,
        records: Sequence[ChunkRecord],
        mode: EmbeddingMode,
        result: UpdateReport,
    ) -> tuple[list[ChunkRecord], np.ndarray]:
        by_path: dict[str, list[ChunkRecord]] = {}
        for record in records:
            by_path.setdefault(record.path, []).append(record)
        embedded: list[ChunkRecord] = []
        matrices: list[np.ndarray] = []
        for path, of_file in by_path.items():
            try:
                matrices.append(self._embed_records(embedder, of_file, mode))
            except Exception as error:  # noqa: BLE001 - the file's own failure
                result.fail(path, f"embedding failed: {type(error).__name__}: {error}")
                continue
            embedded.extend(of_file)
        if not matrices:
            return [], np.zeros((0, embedder.dimension), np.float32)
        return embedded, np.vstack(matrices)

    def _embed_records(
        self, embedder: Embedder, records: Sequence[ChunkRecord], mode: EmbeddingMode
    ) -> np.ndarray:
        texts = [r.header + r.code for r in records]
        if mode == "independent":
            return embedder.embed_documents(texts)
        late = self._late_vectors(embedder, records)
        if mode == "late":
            return late
        from sharc.embedding import combine

        return combine(embedder.embed_documents(texts), late)

    def _late_vectors(self, embedder: Embedder, records: Sequence[ChunkRecord]) -> np.ndarray:
        """Pool each chunk's tokens out of an encoding of its whole file (late chunking)."""
        from sharc.embedding import Span

        by_path: dict[str, list[int]] = {}
        for position, record in enumerate(records):
            by_path.setdefault(record.path, []).append(position)
        files = []
        order: list[int] = []
        for path, positions in by_path.items():
            text, line_starts = _file_text_for_late(self.root, path)
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

    # -- reading ---------------------------------------------------------------------------

    def _reader_manifest(self) -> Manifest:
        with self._reader_lock:
            if self._manifest is None:
                if not self.exists:
                    raise NotIndexedError(
                        f"{self.root} is not indexed yet (looked in {self.index_dir})"
                    )
                self._manifest = Manifest(self.index_dir / "manifest.sqlite", writable=False)
            return self._manifest

    def _reader_keyword(self) -> KeywordStore:
        with self._reader_lock:
            if self._keyword is None:
                self._keyword = self._open_first_keyword()
            else:
                self._keyword.reload()
            return self._keyword

    def _open_first_keyword(self) -> KeywordStore:
        """The keyword index; while the first update is creating it, wait for it briefly."""
        deadline = time.monotonic() + FIRST_KEYWORD_WAIT_SECONDS
        while True:
            try:
                return self._open_keyword(writable=False)
            except FileNotFoundError:
                writer = self._writer_lock().writer()
                if writer is None:
                    raise NotIndexedError(
                        f"{self.root} has no keyword index yet (looked in {self.index_dir})"
                    ) from None
                if time.monotonic() > deadline:
                    raise NotIndexedError(
                        f"indexing of {self.root} has just started (process {writer}); keyword"
                        " search answers as soon as the first files are chunked: try again in a"
                        " few seconds"
                    ) from None
                time.sleep(0.1)

    def _reader_vectors(self) -> VectorStore | None:
        from sharc.vectors import VectorStore

        path = self.index_dir / "vectors.usearch"
        with self._reader_lock:
            try:
                mtime = path.stat().st_mtime_ns
            except FileNotFoundError:
                return None
            if self._vectors is None or mtime != self._vectors_mtime:
                self._vectors = VectorStore.load(path, view=True)
                self._vectors_mtime = mtime
            return self._vectors

    def _forget_readers(self) -> None:
        with self._reader_lock:
            if self._manifest is not None:
                self._manifest.close()
            if self._keyword is not None:
                self._keyword.close()
            self._manifest = self._keyword = self._vectors = None
            self._vectors_mtime = -1.0

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        extensions: Sequence[str] = (),
        languages: Sequence[str] = (),
        path_prefix: str | None = None,
        path_glob: str | None = None,
        include_tests: bool | None = None,
        max_per_file: int | None = 2,
    ) -> SearchResponse:
        """Hybrid search: BM25 and vector candidates ranked by `sharc.ranking.rank`.

        Identifier queries lean on keywords and exact symbol matches; natural-language queries
        on vectors. Tests, docs, generated and vendored code rank lower unless the query asks
        for them. Results are spread across files (`max_per_file` in the top list).
        """
        from sharc import ranking

        if limit < 1:
            raise ValueError("limit must be at least 1")
        filters = SearchFilters(tuple(extensions), tuple(languages), path_prefix, path_glob)
        manifest = self._reader_manifest()
        query = query.strip()
        if not query:
            return SearchResponse([], (), "empty", True)
        arms: dict[str, ranking.pipeline.Arm] = {}
        complete = True
        if mode in ("hybrid", "keyword"):
            arms[ranking.KEYWORD] = self._keyword_arm(languages, path_prefix)
        if mode in ("hybrid", "semantic"):
            # Kept by the writer: counting embedded chunks here would cost a join per query.
            complete = manifest.get_meta("vectors_complete") == "1"
            vectors = self._reader_vectors()
            if vectors is not None and len(vectors):
                arms[ranking.SEMANTIC] = self._semantic_arm(manifest, vectors)
            elif mode == "semantic":
                raise NotIndexedError(f"{self.root} has no vectors yet; run `sharc index` first")
        ranked = ranking.rank(
            query, arms, manifest.rank_records_by_id, limit=limit,
            settings=self.ranking_settings,
            accepts=(lambda r: filters.accepts(r.path, r.language)) if filters.active else None,
            include_tests=include_tests, max_per_file=max_per_file,
        )
        top = ranked.candidates[:limit]
        records = manifest.chunks_by_id([candidate.id for candidate, _ in top])
        results = [
            SearchResult(
                path=r.path, start_line=r.start_line, end_line=r.end_line,
                score=min(1.0, score), kind=r.kind, symbol=r.symbol, fqn=r.fqn,
                language=r.language, header=r.header, code=r.code, id=r.id,
            )
            for candidate, score in top
            if (r := records.get(candidate.id)) is not None
        ]
        return SearchResponse(results, ranked.arms, ranked.kind.value, complete)

    def _keyword_arm(self, languages: Sequence[str], path_prefix: str | None) -> Arm:
        keyword = self._reader_keyword()

        def search(query: str, depth: int) -> list[tuple[str, float]]:
            return keyword.search(
                query,
                depth,
                languages=list(languages) or None,
                path_prefix=(path_prefix.strip("/") if path_prefix else None),
            )

        return search

    def _semantic_arm(self, manifest: Manifest, vectors: VectorStore) -> Arm:
        def search(query: str, depth: int) -> list[tuple[str, float]]:
            query_vector = self.embedder().embed_queries([query])[0]
            hits_by_key = vectors.search(query_vector, depth)
            ids_by_key = manifest.ids_by_key([key for key, _ in hits_by_key])
            return [
                (ids_by_key[key], similarity) for key, similarity in hits_by_key if key in ids_by_key
            ]

        return search

    # -- state -----------------------------------------------------------------------------

    def stats(self) -> IndexStats:
        manifest = self._reader_manifest()
        files, chunks = manifest.counts()
        keyword_only_files, keyword_only_chunks = manifest.keyword_only_counts()
        settings = self._stored_settings(manifest)
        last = manifest.get_meta("last_update")
        return IndexStats(
            root=str(self.root),
            index_dir=str(self.index_dir),
            files=files,
            chunks=chunks,
            embedded_chunks=self._count_embedded(manifest),
            keyword_only_chunks=keyword_only_chunks,
            keyword_only_files=keyword_only_files,
            model=str(settings.get("model_id", "")),
            embedding_mode=str(settings.get("embedding_mode", "")),
            size_bytes=_directory_size(self.index_dir),
            last_update=float(last) if last else None,
            generation=manifest.generation(),
        )

    def _count_embedded(self, manifest: Manifest) -> int:
        vectors = self._reader_vectors()
        if vectors is None or not len(vectors):
            return 0
        keys = np.fromiter(manifest.chunk_keys(), dtype=np.uint64)
        return int(np.isin(keys, vectors.keys(), assume_unique=True).sum())

    def clear(self) -> None:
        """Delete the index (waits for no one: raises `IndexLockedError` if a writer runs)."""
        self._forget_readers()
        with self._writer_lock():
            self._remove_index_files()

    def _remove_index_files(self) -> None:
        if not self.index_dir.exists():
            return
        for entry in self.index_dir.iterdir():
            if entry.name == "writer.lock":
                continue
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)

    def close(self) -> None:
        self._forget_readers()


# -- helpers -------------------------------------------------------------------------------


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


def _unique(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Chunk ids are unique per file by construction; guard against a core bug anyway."""
    seen: set[str] = set()
    unique = []
    for chunk in chunks:
        if chunk.id not in seen:
            seen.add(chunk.id)
            unique.append(chunk)
    return unique


def _vector_key(
    text: str, file_hash: str, start_line: int, end_line: int, model_id: str, mode: EmbeddingMode
) -> str:
    if mode == "independent":
        material = f"{model_id}\0{mode}\0{text}"
    else:
        # A late vector depends on the whole file around the chunk.
        material = f"{model_id}\0{mode}\0{text}\0{file_hash}\0{start_line}:{end_line}"
    return hashlib.blake2b(material.encode(), digest_size=16).hexdigest()


def _record(chunk: Chunk, file_hash: str, model_id: str, mode: EmbeddingMode) -> ChunkRecord:
    from sharc.vectors import key_of

    # Without the path its header names: copies of a file share their vectors (the vector
    # was made with one copy's path). The key below has the id, and so the path.
    text = chunk.header.replace(chunk.path, "") + chunk.code
    vector_key = _vector_key(text, file_hash, chunk.start_line, chunk.end_line, model_id, mode)
    return ChunkRecord(
        id=chunk.id,
        # The id and the text: a key in usearch always holds the vector of this text.
        key=key_of(f"{chunk.id}\0{vector_key}"),
        path=chunk.path,
        language=chunk.language,
        tier=chunk.tier,
        kind=chunk.kind,
        symbol=chunk.symbol,
        fqn=chunk.fqn,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        header=chunk.header,
        code=chunk.code,
        vector_key=vector_key,
    )


def _retired(
    old: ChunkRecord, new: ChunkRecord, file_hash: str, model_id: str, mode: EmbeddingMode
) -> RemovedChunk:
    """The old key of a chunk whose key changed. When its text did not change (its vector key
    was made with the path, as before copies shared vectors), its vector serves the new key."""
    with_path = _vector_key(
        new.header + new.code, file_hash, new.start_line, new.end_line, model_id, mode
    )
    vector_key = new.vector_key if old.vector_key == with_path else old.vector_key
    return RemovedChunk(old.id, old.key, vector_key)


@dataclass(frozen=True)
class _Copies:
    """Chunks waiting for the same vector: the first of each group is embedded, the others
    (its followers) get its vector."""

    followers_of: dict[int, list[int]]
    followers: frozenset[int]

    def spread(self, keys: Sequence[int]) -> tuple[list[int], list[int]]:
        """`keys` and their followers, with the row of `keys` each takes its vector from."""
        spread_keys, rows = list(keys), list(range(len(keys)))
        for row, key in enumerate(keys):
            for follower in self.followers_of.get(key, ()):
                spread_keys.append(follower)
                rows.append(row)
        return spread_keys, rows


def _copies_of(manifest: Manifest, pending: Sequence[ChunkPlace]) -> _Copies:
    waiting = {place.key for place in pending}
    followers_of: dict[int, list[int]] = {}
    for group in manifest.keys_sharing_vectors():
        keys = [key for key in group if key in waiting]
        if len(keys) > 1:
            followers_of[keys[0]] = keys[1:]
    followers = frozenset(key for keys in followers_of.values() for key in keys)
    return _Copies(followers_of, followers)


def _keyword_doc(record: ChunkRecord):  # type: ignore[no-untyped-def]
    from sharc.keyword import KeywordDoc

    return KeywordDoc(
        id=record.id,
        key=record.key,
        path=record.path,
        symbol=f"{record.symbol} {record.fqn}",
        body=record.header + record.code,
        language=record.language,
        kind=record.kind,
        tier=record.tier,
    )


def _batches_by_file(records: Sequence[_Located], size: int) -> Iterator[list[_Located]]:
    """Batches of about `size` chunks that never split one file (late chunking needs it whole)."""
    batch: list[_Located] = []
    for record in records:
        if len(batch) >= size and batch[-1].path != record.path:
            yield batch
            batch = []
        batch.append(record)
    if batch:
        yield batch


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


def _directory_size(directory: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(directory):
        for name in filenames:
            try:
                total += os.path.getsize(os.path.join(dirpath, name))
            except OSError:
                pass
    return total


__all__ = [
    "Index",
    "IndexStats",
    "Progress",
    "SearchFilters",
    "SearchResponse",
    "SearchResult",
    "UpdateReport",
]
