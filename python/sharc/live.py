"""Live indexes: indexing in the background, with progress, and a watcher that keeps it fresh.

`LiveIndex` is the Python API for services that embed sharc; the MCP server is one of them.

    >>> live = LiveIndex("path/to/repo")
    >>> live.start()            # returns at once; a second start joins the running job
    >>> live.status().percent
    >>> live.watch()            # re-index changed files 2 s after the last change
    >>> live.search("where are routes registered")

Which file events count. The watcher applies the walker's own rules, never a copy of them: a
sync walks the paths the watcher saw change (`Index.update(paths=...)`: the walk's rules,
directories above them included) and compares them with the manifest (size and mtime, as
`Index.update` does); the whole root after a changed ignore file, a job that did not finish, or
a burst of more than `SCOPED_SYNC_MAX_PATHS` paths. An event that changes nothing the walk
keeps (a file in `node_modules/`, a gitignored log, a `touch` inside `.git/`) leads to no update
at all. Events are also dropped early, before any walk, when they fall inside a directory or on
a file that the last walk reported as ignored, inside `.git`/`.hg`/`.svn`, or inside the index
directory; top-level ignored directories (the usual `node_modules/`, `.venv/`, `target/`) are
not even watched, which spares inotify watches.

The syntax guard. Before a sync re-indexes a changed Tier-1 (tree-sitter) file that the index
already holds, the file is parsed; if it has syntax errors (a half-typed edit), its previous
chunks are kept (`Index.update(hold=...)`), it is listed in `LiveStatus.syntax_held`, and it is
checked again at every later sync, so the next save that parses is indexed.

Several processes. One process writes an index at a time (`IndexLockedError`); a job that meets
the lock waits in state `waiting` ("being indexed by another process") and retries, and every
process keeps searching the committed index meanwhile. A writer publishes its progress in
`progress.json` in the index directory so that other processes can report it.
"""

from __future__ import annotations

import inspect
import json
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.errors import (
    CancelledError,
    IndexCorruptError,
    IndexLockedError,
    NotIndexedError,
    SharcError,
)

if TYPE_CHECKING:
    from watchfiles import Change

    from sharc._core import WalkedFile
    from sharc.graph import Graph
    from sharc.index import EmbeddingMode, Index, Progress, SearchResponse, UpdateReport

DEFAULT_DEBOUNCE = 2.0
LOCK_RETRY_SECONDS = 2.0
PROGRESS_FILE = "progress.json"
PROGRESS_WRITE_SECONDS = 0.5
# Parsing every file of a branch switch would delay the sync for little gain: the guard is for
# edits, a few files at a time.
GUARD_MAX_FILES = 2000
# Past this many changed paths (a branch switch), a sync walks the whole tree instead.
SCOPED_SYNC_MAX_PATHS = 5000
AST_TIER = 1
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_BUSY_STATES = frozenset({"indexing", "waiting", "cancelling"})


@dataclass(frozen=True)
class LiveStatus:
    """Where a live index stands: the running job's progress and the index on disk.

    `state` is one of: not_indexed, idle, indexing, waiting (another process holds the writer
    lock), cancelling, cancelled, failed, ready. Searches work in every state once something
    is indexed.
    """

    root: str
    state: str
    phase: str = ""
    files_done: int = 0
    files_total: int = 0
    chunks_done: int = 0
    chunks_total: int = 0
    percent: float = 0.0
    elapsed: float = 0.0
    indexed: bool = False
    files: int = 0
    chunks: int = 0
    embedded_chunks: int = 0
    index_size: int = 0
    last_sync: float | None = None
    watching: bool = False
    syntax_held: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    other_process: dict[str, Any] | None = None
    message: str = ""

    @property
    def busy(self) -> bool:
        """Whether indexing is running (here, or waiting for another process)."""
        return self.state in _BUSY_STATES

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["syntax_held"] = list(self.syntax_held)
        data["errors"] = list(self.errors)
        data["percent"] = round(self.percent, 1)
        data["elapsed"] = round(self.elapsed, 2)
        return data


@dataclass
class _Job:
    force: bool
    from_watcher: bool
    #: The paths the watcher saw change (relative); None: the whole tree is compared.
    paths: frozenset[str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    rerun: bool = False
    #: What the pass after this one looks at: paths seen meanwhile, or None for everything.
    rerun_paths: frozenset[str] | None = None
    thread: threading.Thread | None = None

    def rerun_with(self, paths: frozenset[str] | None) -> None:
        """Ask for another pass over `paths` as well (None: over the whole tree)."""
        if self.rerun and self.rerun_paths is None:
            return
        self.rerun_paths = (
            None if paths is None else (self.rerun_paths or frozenset()) | paths
        )
        self.rerun = True


@dataclass(frozen=True)
class _Plan:
    hold: frozenset[str]
    changed: int
    deleted: int
    #: The paths the update looks at; None: the whole tree.
    scope: frozenset[str] | None = None


class LiveIndex:
    """One root's index, updated by background jobs and, when watching, by file changes.

    Thread-safe. Settings are those of `Index.open`; `embed=False` keeps it keyword-only.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        index_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
        embedding_mode: EmbeddingMode | None = None,
        ignore_patterns: Sequence[str] = (),
        custom_extensions: Sequence[str] = (),
        max_file_size: int | None = None,
        embed: bool = True,
        debounce: float = DEFAULT_DEBOUNCE,
        lock_retry: float = LOCK_RETRY_SECONDS,
        device: str = "auto",
    ) -> None:
        from sharc.index import Index

        self._open_settings: dict[str, Any] = {
            "index_dir": index_dir,
            "model": model,
            "embedding_mode": embedding_mode,
            "ignore_patterns": tuple(ignore_patterns),
            "custom_extensions": tuple(custom_extensions),
            "max_file_size": max_file_size,
            "device": device,
        }
        self._writer = Index.open(root, **self._open_settings)
        self.root: Path = self._writer.root
        self.index_dir: Path = self._writer.index_dir
        self.embed = embed
        self.debounce = debounce
        self.lock_retry = lock_retry
        self._supports_hold = "hold" in inspect.signature(Index.update).parameters
        self._lock = threading.RLock()
        self._job_ended = threading.Condition(self._lock)
        self._job: _Job | None = None
        self._state = "idle"
        self._progress: Progress | None = None
        self._progress_written = 0.0
        self._errors: tuple[str, ...] = ()
        self._message = ""
        self._last_sync: float | None = None
        self._last_elapsed = 0.0
        self._clean = False  # the last job brought the index in line with the disk
        self._held: frozenset[str] = frozenset()
        self._ignored_dirs: frozenset[str] = frozenset()
        self._ignored_files: frozenset[str] = frozenset()
        self._reader: Index | None = None
        self._reader_identity: tuple[int, int] | None = None
        self._watcher: _Watcher | None = None

    @property
    def settings(self) -> dict[str, Any]:
        """The `Index.open` settings this live index was made with."""
        return dict(self._open_settings)

    # -- jobs ------------------------------------------------------------------------------

    def start(self, *, force: bool = False) -> LiveStatus:
        """Index in the background (incremental unless `force`); return at once.

        If a job is already running, this joins it instead of starting another.
        """
        with self._lock:
            joined = self._job is not None
            if not joined:
                self._start_job(force=force, from_watcher=False)
        status = self.status()
        if joined:
            status = replace(status, message="indexing is already running; joined the running job")
        return status

    def sync(self) -> LiveStatus:
        """Bring the index in line with the disk now (an explicit refresh); return at once.

        If a job is running, another incremental pass follows it, since files may have changed
        after it walked the tree.
        """
        with self._lock:
            if self._job is not None:
                self._job.rerun_with(None)
            else:
                self._start_job(force=False, from_watcher=False)
        return self.status()

    def wait(self, timeout: float | None = None) -> LiveStatus:
        """Wait until no job runs (or `timeout` seconds pass) and return the status."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._job is not None:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self._job_ended.wait(remaining)
        return self.status()

    def cancel(self, *, timeout: float = 5.0) -> LiveStatus:
        """Cancel the running job; the index keeps its last committed state."""
        with self._lock:
            job = self._job
            if job is None:
                return self.status()
            job.rerun = False
            job.rerun_paths = None
            job.cancel.set()
            self._state = "cancelling"
        return self.wait(timeout)

    def clear(self, *, timeout: float = 30.0) -> None:
        """Stop watching, cancel indexing, then delete the index.

        Raises `IndexLockedError` if another process is writing it, `SharcError` if the
        running job does not stop within `timeout` seconds.
        """
        self.unwatch()
        status = self.cancel(timeout=timeout)
        if status.busy:
            raise SharcError(f"indexing of {self.root} did not stop within {timeout:.0f} s")
        self._drop_reader()
        self._writer.clear()
        with self._lock:
            self._state = "not_indexed"
            self._progress = None
            self._errors = ()
            self._held = frozenset()
            self._last_sync = None
            self._message = "index deleted"

    def close(self) -> None:
        """Stop watching and cancel indexing (waits briefly for the job to stop)."""
        self.unwatch()
        self.cancel(timeout=5.0)
        self._drop_reader()

    def _start_job(
        self, *, force: bool, from_watcher: bool, paths: frozenset[str] | None = None
    ) -> None:
        job = _Job(force=force, from_watcher=from_watcher, paths=paths)
        job.thread = threading.Thread(
            target=self._run_job, args=(job,), name=f"sharc-index:{self.root.name}", daemon=True
        )
        self._job = job
        self._state = "indexing"
        self._progress = None
        self._message = "rebuilding the index" if force else "indexing"
        job.thread.start()

    def _run_job(self, job: _Job) -> None:
        try:
            while True:
                finished = self._run_once(job)
                with self._lock:
                    if not (finished and job.rerun and not job.cancel.is_set()):
                        break
                    job.rerun = False
                    job.force = False
                    job.paths, job.rerun_paths = job.rerun_paths, None
                    job.from_watcher = job.paths is not None
                    job.started = time.monotonic()
        except BaseException as error:  # noqa: BLE001 - a job thread must never die silently
            with self._lock:
                self._state = "failed"
                self._errors = (*self._errors, f"{type(error).__name__}: {error}")
                self._message = f"indexing failed: {error}"
        finally:
            with self._lock:
                self._job = None
                self._job_ended.notify_all()

    def _run_once(self, job: _Job) -> bool:
        """One update, retried while another process holds the writer lock.

        Returns True when the index is in line with the disk (updated or nothing to do).
        """
        while True:
            if job.cancel.is_set():
                self._finish(job, "cancelled", "indexing cancelled before it started")
                return False
            plan = self._plan(job)
            if plan is None:
                with self._lock:
                    self._state = "ready" if self._writer.exists else "not_indexed"
                    self._message = "no indexed file changed"
                return True
            if job.from_watcher and plan.changed <= len(plan.hold) and not plan.deleted:
                with self._lock:
                    self._held = plan.hold
                    self._state = "ready"
                    self._message = _held_message(plan.hold)
                return True
            try:
                report = self._update(job, plan)
            except IndexLockedError as error:
                with self._lock:
                    self._state = "waiting"
                    self._message = f"being indexed by another process; waiting. {error}"
                job.cancel.wait(self.lock_retry)
                continue
            except CancelledError as error:
                self._finish(job, "cancelled", str(error))
                return False
            except Exception as error:  # noqa: BLE001 - reported in the status, not raised
                self._finish(job, "failed", f"indexing failed: {type(error).__name__}: {error}",
                             errors=(f"{type(error).__name__}: {error}",))
                return False
            with self._lock:
                # Without `hold` support the update re-indexed the broken files as they are.
                self._held = plan.hold if self._supports_hold else frozenset()
                self._last_sync = time.time()
            summary = (
                f"indexed: {report.files_added} added, {report.files_changed} changed,"
                f" {report.files_deleted} deleted, {report.files_unchanged} unchanged files;"
                f" {report.chunks_embedded} chunks embedded in {report.elapsed:.1f} s"
            )
            if plan.hold and self._supports_hold:
                summary += "; " + _held_message(plan.hold)
            self._finish(job, "ready", summary, errors=tuple(report.errors))
            return True

    def _update(self, job: _Job, plan: _Plan) -> UpdateReport:
        extra: dict[str, Any] = {}
        if plan.hold and self._supports_hold:
            extra["hold"] = sorted(plan.hold)
        with self._lock:
            self._state = "indexing"
            self._message = "rebuilding the index" if job.force else "indexing"
        if plan.scope is not None:
            extra["paths"] = sorted(plan.scope)
        return self._writer.update(
            progress=lambda progress: self._on_progress(job, progress),
            cancel=job.cancel,
            embed=self.embed,
            force=job.force,
            **extra,
        )

    def _finish(
        self, job: _Job, state: str, message: str, *, errors: tuple[str, ...] = ()
    ) -> None:
        with self._lock:
            self._state = state
            self._message = message
            self._errors = errors
            self._last_elapsed = time.monotonic() - job.started
            self._clean = state == "ready"
        self._write_progress(job, state)

    def _on_progress(self, job: _Job, progress: Progress) -> None:
        with self._lock:
            self._progress = progress
            if self._state != "cancelling":
                self._state = "indexing"
        now = time.monotonic()
        if now - self._progress_written >= PROGRESS_WRITE_SECONDS or progress.phase == "done":
            self._progress_written = now
            self._write_progress(job, "indexing")

    # -- planning: what changed, what the syntax guard holds -------------------------------

    def _plan(self, job: _Job) -> _Plan | None:
        """Walk, compare with the manifest, and run the syntax guard.

        Returns None for a watcher-triggered sync in which no walked file changed.
        """
        if job.force:
            return _Plan(frozenset(), 0, 0)
        with self._lock:
            clean = self._clean
            previously_held = self._held
        # What the watcher saw is enough only after a job that left the index in line with
        # the disk; the held files are looked at again every time.
        scope = job.paths | previously_held if job.paths is not None and clean else None
        if scope is not None and ("" in scope or len(scope) > SCOPED_SYNC_MAX_PATHS):
            scope = None  # an ignore file changed, or so much that walking it all is cheaper
        walked = self._walk(scope)
        known = self._indexed_files(scope)
        on_disk = {f.path: f for f in walked}
        changed = [
            f for path, f in on_disk.items() if known.get(path) != (f.size, f.mtime_ns)
        ]
        deleted = len(known.keys() - on_disk.keys())
        # After a cancelled or failed job, chunks may still wait for their vectors.
        if job.from_watcher and clean and not changed and not deleted:
            return None
        # Only files the index already holds have a previous state to keep.
        candidates = {f.path: f for f in changed if f.path in known}
        candidates.update((p, on_disk[p]) for p in previously_held if p in on_disk)
        guarded = [candidates[p] for p in sorted(candidates)]
        return _Plan(self._syntax_guard(guarded), len(changed), deleted, scope)

    def _walk(self, scope: frozenset[str] | None = None) -> list[WalkedFile]:
        """The files `update` will index (of `scope` alone, if given); a walk of the whole
        tree also refreshes the ignore sets of the event filter."""
        from sharc.files import walk

        settings = self._walk_settings()
        if scope is not None:
            return walk(self.root, scope=sorted(scope), **settings).files
        result = walk(self.root, report_ignored=True, **settings)
        ignored_dirs, ignored_files = set(), set()
        for skipped in result.skipped:
            if skipped.reason not in ("ignored", "secret"):
                continue
            if skipped.path.endswith("/"):
                ignored_dirs.add(skipped.path.rstrip("/"))
            else:
                ignored_files.add(skipped.path)
        with self._lock:
            self._ignored_dirs = frozenset(ignored_dirs)
            self._ignored_files = frozenset(ignored_files)
        return result.files

    def _walk_settings(self) -> dict[str, Any]:
        """The walk settings `update` uses: the ones given, else those the index remembers."""
        given = self._open_settings
        if given["ignore_patterns"] or given["custom_extensions"] or given["max_file_size"]:
            stored: dict[str, Any] = {}
        else:
            stored = self._stored_settings()
        settings: dict[str, Any] = {
            "ignore_patterns": list(given["ignore_patterns"] or stored.get("ignore_patterns", ())),
            "custom_extensions": list(
                given["custom_extensions"] or stored.get("custom_extensions", ())
            ),
        }
        max_size = given["max_file_size"] or stored.get("max_file_size")
        if max_size:
            settings["max_file_size"] = int(max_size)
        return settings

    def _stored_settings(self) -> dict[str, Any]:
        manifest = self._open_manifest()
        if manifest is None:
            return {}
        try:
            raw = manifest.get_meta("settings")
            return json.loads(raw) if raw else {}
        except Exception:  # noqa: BLE001 - unreadable settings: fall back to defaults
            return {}
        finally:
            manifest.close()

    def _indexed_files(self, scope: frozenset[str] | None = None) -> dict[str, tuple[int, int]]:
        """Path -> (size, mtime_ns) of every file in the manifest (at or below `scope`)."""
        manifest = self._open_manifest()
        if manifest is None:
            return {}
        try:
            return manifest.file_stats(scope)
        except Exception:  # noqa: BLE001 - a manifest being rebuilt reads as empty
            return {}
        finally:
            manifest.close()

    def _open_manifest(self):  # type: ignore[no-untyped-def]
        from sharc.manifest import Manifest

        path = self.index_dir / "manifest.sqlite"
        if not path.exists():
            return None
        try:
            return Manifest(path, writable=False)
        except SharcError:
            return None

    def _syntax_guard(self, files: Sequence[WalkedFile]) -> frozenset[str]:
        """The Tier-1 files among `files` that do not parse."""
        from sharc import _core

        parsed = [f for f in files if f.tier == AST_TIER]
        if not parsed or len(parsed) > GUARD_MAX_FILES:
            return frozenset()
        results = _core.chunk_files(os.fspath(self.root), [(f.path, f.language) for f in parsed])
        # A file out of its time budget is no half-typed edit: it is indexed as it is.
        return frozenset(
            f.path
            for f, chunked in zip(parsed, results, strict=True)
            if not chunked.error and not chunked.out_of_time and chunked.syntax_errors
        )

    # -- progress shared between processes -------------------------------------------------

    def _write_progress(self, job: _Job, state: str) -> None:
        progress = self._progress
        data = {
            "pid": os.getpid(),
            "state": state,
            "phase": progress.phase if progress else "",
            "files_done": progress.files_done if progress else 0,
            "files_total": progress.files_total if progress else 0,
            "chunks_done": progress.chunks_done if progress else 0,
            "chunks_total": progress.chunks_total if progress else 0,
            "percent": round(progress.percent, 1) if progress else 0.0,
            "elapsed": round(time.monotonic() - job.started, 2),
            "updated": time.time(),
        }
        target = self.index_dir / PROGRESS_FILE
        temporary = self.index_dir / f".{PROGRESS_FILE}.{os.getpid()}.tmp"
        try:
            if not self.index_dir.exists():
                return
            temporary.write_text(json.dumps(data))
            os.replace(temporary, target)
        except OSError:
            pass

    def _other_writer(self) -> dict[str, Any] | None:
        """The live process, other than this one, that holds the writer lock, and its progress."""
        try:
            holder = (self.index_dir / "writer.lock").read_text().strip()
            pid = int(holder) if holder else 0
        except (OSError, ValueError):
            return None
        if pid <= 0 or pid == os.getpid() or not _process_alive(pid):
            return None
        info: dict[str, Any] = {"pid": pid}
        try:
            progress = json.loads((self.index_dir / PROGRESS_FILE).read_text())
        except (OSError, ValueError):
            return info
        if progress.get("pid") == pid and progress.get("state") == "indexing":
            info.update({k: v for k, v in progress.items() if k not in ("pid", "state")})
        return info

    # -- reading ---------------------------------------------------------------------------

    def search(self, query: str, **options: Any) -> SearchResponse:
        """`Index.search` on what is committed so far; raises `NotIndexedError` before that."""
        reader = self._reader_index()
        try:
            return reader.search(query, **options)
        except (IndexCorruptError, OSError) as error:
            # The first build has created the manifest but not yet the keyword index.
            if self.status().busy or self._other_writer() is not None:
                raise NotIndexedError(
                    f"{self.root} is being indexed; nothing is searchable yet"
                ) from error
            raise

    def graph(self) -> Graph:
        """The code graph of what is committed so far (`Index.graph`)."""
        return self._reader_index().graph()

    def _reader_index(self) -> Index:
        """A reader separate from the writer (whose update closes its own readers), renewed
        when the manifest is replaced (a forced rebuild or a clear, here or elsewhere)."""
        from sharc.index import Index

        try:
            stat = (self.index_dir / "manifest.sqlite").stat()
            identity: tuple[int, int] | None = (stat.st_dev, stat.st_ino)
        except OSError:
            identity = None
        with self._lock:
            if self._reader is None or identity != self._reader_identity:
                self._reader = Index.open(self.root, **self._open_settings)
                self._reader_identity = identity
            return self._reader

    def _drop_reader(self) -> None:
        with self._lock:
            reader, self._reader, self._reader_identity = self._reader, None, None
        if reader is not None:
            reader.close()

    def status(self) -> LiveStatus:
        """The job's progress and the state of the index on disk."""
        with self._lock:
            job = self._job
            state = self._state
            progress = self._progress
            held = tuple(sorted(self._held))
            errors = self._errors
            message = self._message
            last_sync = self._last_sync
            last_elapsed = self._last_elapsed
            watching = self._watcher is not None
        stats = None
        try:
            stats = self._reader_index().stats()
        except (NotIndexedError, IndexCorruptError, OSError):
            pass
        except SharcError as error:
            errors = (*errors, str(error))
        other = self._other_writer()
        if state in ("idle", "ready", "not_indexed", "cancelled", "failed") and job is None:
            if stats is None and state in ("idle", "ready"):
                state = "not_indexed"
            elif stats is not None and state in ("idle", "not_indexed"):
                state = "ready"
            if other is not None:
                message = f"being indexed by another process (pid {other['pid']})"
        values: dict[str, Any] = {}
        if job is not None and progress is None and state == "indexing":
            values = {"phase": "starting"}  # loading the model, walking the tree
        elif job is not None and progress is not None:
            values = {
                "phase": progress.phase,
                "files_done": progress.files_done,
                "files_total": progress.files_total,
                "chunks_done": progress.chunks_done,
                "chunks_total": progress.chunks_total,
                "percent": progress.percent,
            }
        elif job is None and other is not None and "phase" in other:
            values = {k: other[k] for k in (
                "phase", "files_done", "files_total", "chunks_done", "chunks_total", "percent"
            ) if k in other}
        elif state == "ready" and stats is not None:
            values = {
                "phase": "done",
                "percent": 100.0,
                "files_done": stats.files,
                "files_total": stats.files,
                "chunks_done": stats.embedded_chunks if self.embed else stats.chunks,
                # Keyword-only chunks (by the embedding policy) are never embedded.
                "chunks_total": (
                    stats.chunks - stats.keyword_only_chunks if self.embed else stats.chunks
                ),
            }
        if stats is not None and stats.last_update:
            # Another process may have synced later than this one.
            last_sync = max(last_sync or 0.0, stats.last_update)
        return LiveStatus(
            root=str(self.root),
            state=state,
            elapsed=(time.monotonic() - job.started) if job is not None else last_elapsed,
            indexed=stats is not None and stats.files > 0,
            files=stats.files if stats else 0,
            chunks=stats.chunks if stats else 0,
            embedded_chunks=stats.embedded_chunks if stats else 0,
            index_size=stats.size_bytes if stats else 0,
            last_sync=last_sync,
            watching=watching,
            syntax_held=held,
            errors=tuple(errors),
            other_process=other,
            message=message,
            **values,
        )

    # -- watching --------------------------------------------------------------------------

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    def watch(self, *, debounce: float | None = None) -> None:
        """Watch the root: `debounce` seconds after the last change, sync what changed."""
        with self._lock:
            if self._watcher is not None:
                return
            if debounce is not None:
                self.debounce = debounce
        if not self._ignored_dirs and not self._ignored_files:
            self._walk()
        with self._lock:
            watcher = self._watcher
            if watcher is None:
                watcher = self._watcher = _Watcher(self)
                watcher.start()
        # Return once the OS watches are in place, so that no change after this call is missed.
        watcher.ready.wait(5.0)

    def unwatch(self) -> None:
        """Stop watching (waits for the watcher thread to end)."""
        with self._lock:
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()

    def accepts_event(self, path: str) -> bool:
        """Whether a file event at `path` may matter: inside the root, outside the index
        directory, VCS directories and whatever the last walk reported as ignored."""
        try:
            relative = Path(path).relative_to(self.root)
        except ValueError:
            return False
        if _inside(Path(path), self.index_dir):
            return False
        parts = relative.parts
        if not parts or any(part in _VCS_DIRS for part in parts):
            return False
        with self._lock:
            ignored_dirs, ignored_files = self._ignored_dirs, self._ignored_files
        for depth in range(1, len(parts) + 1):
            if "/".join(parts[:depth]) in ignored_dirs:
                return False
        return relative.as_posix() not in ignored_files

    def _top_level_directories(self) -> list[Path]:
        """The root's subdirectories the walk enters (the others need no inotify watches)."""
        with self._lock:
            ignored = self._ignored_dirs
        directories = []
        try:
            entries = sorted(self.root.iterdir())
        except OSError:
            return []
        for entry in entries:
            if entry.is_symlink() or not entry.is_dir() or entry.name in _VCS_DIRS:
                continue
            # An index directory inside the root is never watched; events from it are dropped.
            if entry.name in ignored or _inside(entry, self.index_dir):
                continue
            directories.append(entry)
        return directories

    def _on_changes(self, paths: Iterable[str]) -> None:
        """Called by the watcher once changes have settled for `debounce` seconds: the sync
        walks and compares those paths alone (the whole tree if an ignore file changed)."""
        from sharc.writer import scope_of

        relative = frozenset(scope_of(
            [path for path in paths if _inside(Path(path), self.root)], self.root
        ))
        with self._lock:
            if self._job is not None:
                self._job.rerun_with(relative)
            else:
                self._start_job(force=False, from_watcher=True, paths=relative)


class _Watcher:
    """A watchfiles loop in a thread: the root itself (not recursive) plus each top-level
    directory the walk enters (recursive); restarts when a top-level directory appears."""

    STEP_MS = 50
    TIMEOUT_MS = 200

    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self._stop = threading.Event()
        self.ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"sharc-watch:{live.root.name}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)

    def _run(self) -> None:
        try:
            restarted = False
            while not self._stop.is_set():
                self._watch_until_restart(restarted=restarted)
                restarted = True
        except Exception as error:  # noqa: BLE001 - report, do not crash the process
            self.ready.set()
            with self.live._lock:
                self.live._message = f"watching stopped: {type(error).__name__}: {error}"
                if self.live._watcher is self:
                    self.live._watcher = None

    def _watch_until_restart(self, *, restarted: bool) -> None:
        import watchfiles

        live = self.live
        if restarted:
            live._walk()  # a new top-level directory may be one the walk ignores
        directories = live._top_level_directories()
        watched = {d.name for d in directories}
        restart = threading.Event()
        stop = _AnyEvent(self._stop, restart)

        def accept(change: Change, path: str) -> bool:
            return live.accepts_event(path)

        options: dict[str, Any] = {
            "watch_filter": accept,
            "stop_event": stop,
            "debounce": max(int(live.debounce * 1000), self.STEP_MS),
            "step": self.STEP_MS,
            "rust_timeout": self.TIMEOUT_MS,
            "yield_on_timeout": True,
            "raise_interrupt": False,
            "ignore_permission_denied": True,
        }
        streams = [watchfiles.watch(live.root, recursive=False, **options)]
        if directories:
            streams.append(watchfiles.watch(*directories, recursive=True, **options))
        pending: dict[str, float] = {}
        last_change = 0.0
        try:
            while not stop.is_set():
                for stream in streams:
                    changes = next(stream, None)
                    if changes is None:
                        return
                    for _, path in changes:
                        pending[path] = last_change = time.monotonic()
                        if Path(path).parent == live.root and _top_level_change(path, watched):
                            restart.set()
                self.ready.set()
                if pending and time.monotonic() - last_change >= live.debounce:
                    live._on_changes(list(pending))
                    pending.clear()
        finally:
            for stream in streams:
                stream.close()
            if pending and not self._stop.is_set():
                live._on_changes(list(pending))


class _AnyEvent:
    """Set when any of its events is set (watchfiles only needs `is_set`)."""

    def __init__(self, *events: threading.Event) -> None:
        self._events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)


def _top_level_change(path: str, watched: set[str]) -> bool:
    """A directory appeared at the top level, or a watched one went away."""
    name = Path(path).name
    return (Path(path).is_dir() and name not in watched and name not in _VCS_DIRS) or (
        name in watched and not Path(path).exists()
    )


def _inside(path: Path, directory: Path) -> bool:
    try:
        path.relative_to(directory)
    except ValueError:
        return False
    return True


def _held_message(held: Iterable[str]) -> str:
    return (
        "kept the previous version of files with syntax errors (re-indexed once they parse): "
        + ", ".join(sorted(held))
    )


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = ["LiveIndex", "LiveStatus"]
