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

The package: `LiveIndex` here is a facade over the job runner (`sharc.live.jobs`), the plan of
what changed (`sharc.live.changes`), the watcher (`sharc.live.watcher`), the status and the
progress file shared between processes (`sharc.live.status`, `sharc.live.progress_file`) and
the reader (`sharc.live.reader`).
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.errors import IndexCorruptError, NotIndexedError, SharcError
from sharc.live import changes
from sharc.live.jobs import Job, JobRunner
from sharc.live.progress_file import other_writer
from sharc.live.reader import Reader
from sharc.live.status import LiveStatus, live_status
from sharc.live.watcher import Watcher, accepts_event, inside, top_level_directories

if TYPE_CHECKING:
    from sharc._core import WalkedFile
    from sharc.graph import Graph
    from sharc.index import Index
    from sharc.search_types import SearchResponse
    from sharc.update_types import EmbeddingMode

DEFAULT_DEBOUNCE = 2.0
LOCK_RETRY_SECONDS = 2.0


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
        self._writer: Index = Index.open(root, **self._open_settings)
        self.root: Path = self._writer.root
        self.index_dir: Path = self._writer.index_dir
        self.debounce = debounce
        self._supports_hold = "hold" in inspect.signature(Index.update).parameters
        self._jobs = JobRunner(
            self._writer, plan=self._plan, embed=embed, lock_retry=lock_retry,
            supports_hold=self._supports_hold,
        )
        self._reader = Reader(self.root, self.index_dir, self._open_settings)
        self._lock = threading.RLock()
        self._ignored_dirs: frozenset[str] = frozenset()
        self._ignored_files: frozenset[str] = frozenset()
        self._watcher: Watcher | None = None

    @property
    def settings(self) -> dict[str, Any]:
        """The `Index.open` settings this live index was made with."""
        return dict(self._open_settings)

    @property
    def embed(self) -> bool:
        """Whether jobs compute vectors (False: keyword-only)."""
        return self._jobs.embed

    @embed.setter
    def embed(self, value: bool) -> None:
        self._jobs.embed = value

    @property
    def lock_retry(self) -> float:
        """Seconds a job waits before trying again for a writer lock another process holds."""
        return self._jobs.lock_retry

    @lock_retry.setter
    def lock_retry(self, value: float) -> None:
        self._jobs.lock_retry = value

    # -- jobs ------------------------------------------------------------------------------

    def start(self, *, force: bool = False) -> LiveStatus:
        """Index in the background (incremental unless `force`); return at once.

        If a job is already running, this joins it instead of starting another.
        """
        joined = self._jobs.start(force=force)
        status = self.status()
        if joined:
            status = replace(status, message="indexing is already running; joined the running job")
        return status

    def sync(self) -> LiveStatus:
        """Bring the index in line with the disk now (an explicit refresh); return at once.

        If a job is running, another incremental pass follows it, since files may have changed
        after it walked the tree.
        """
        self._jobs.sync(None)
        return self.status()

    def wait(self, timeout: float | None = None) -> LiveStatus:
        """Wait until no job runs (or `timeout` seconds pass) and return the status."""
        self._jobs.wait(timeout)
        return self.status()

    def cancel(self, *, timeout: float = 5.0) -> LiveStatus:
        """Cancel the running job; the index keeps its last committed state."""
        if not self._jobs.cancel():
            return self.status()
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
        self._reader.drop()
        self._writer.clear()
        self._jobs.forget("index deleted")

    def close(self) -> None:
        """Stop watching and cancel indexing (waits briefly for the job to stop)."""
        self.unwatch()
        self.cancel(timeout=5.0)
        self._reader.drop()

    # -- planning: what changed, what the syntax guard holds -------------------------------

    def _plan(self, job: Job, clean: bool, previously_held: frozenset[str]) -> changes.Plan | None:
        """`sharc.live.changes.plan_update` for `job`, with this index's walk and manifest."""
        return changes.plan_update(
            force=job.force, paths=job.paths, from_watcher=job.from_watcher, clean=clean,
            previously_held=previously_held, walk=self._walk, indexed=self._indexed_files,
            guard=lambda files: changes.syntax_guard(self.root, files),
        )

    def _walk(self, scope: frozenset[str] | None = None) -> list[WalkedFile]:
        """The files `update` will index (of `scope` alone, if given); a walk of the whole
        tree also refreshes the ignore sets of the event filter."""
        from sharc.files import walk

        settings = changes.walk_settings(self._open_settings, self.index_dir)
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

    def _indexed_files(self, scope: frozenset[str] | None = None) -> dict[str, tuple[int, int]]:
        """Path -> (size, mtime_ns) of every file in the manifest (at or below `scope`)."""
        return changes.indexed_files(self.index_dir, scope)

    # -- reading ---------------------------------------------------------------------------

    def search(self, query: str, **options: Any) -> SearchResponse:
        """`Index.search` on what is committed so far; raises `NotIndexedError` before that."""
        reader = self._reader.index()
        try:
            return reader.search(query, **options)
        except (IndexCorruptError, OSError) as error:
            # The first build has created the manifest but not yet the keyword index.
            if self.status().busy or other_writer(self.index_dir) is not None:
                raise NotIndexedError(
                    f"{self.root} is being indexed; nothing is searchable yet"
                ) from error
            raise

    def graph(self) -> Graph:
        """The code graph of what is committed so far (`Index.graph`)."""
        return self._reader.index().graph()

    def status(self) -> LiveStatus:
        """The job's progress and the state of the index on disk."""
        jobs = self._jobs.snapshot()
        with self._lock:
            watching = self._watcher is not None
        errors = jobs.errors
        stats = None
        try:
            stats = self._reader.index().stats()
        except (NotIndexedError, IndexCorruptError, OSError):
            pass
        except SharcError as error:
            errors = (*errors, str(error))
        return live_status(
            str(self.root), jobs, stats, other_writer(self.index_dir),
            embed=self.embed, watching=watching, errors=errors,
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
                watcher = self._watcher = Watcher(
                    self.root, rewalk=self._walk, directories=self._top_level_directories,
                    accepts=self.accepts_event, debounce=lambda: self.debounce,
                    on_changes=self._on_changes, on_error=self._on_watch_error,
                )
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
        with self._lock:
            ignored_dirs, ignored_files = self._ignored_dirs, self._ignored_files
        return accepts_event(path, self.root, self.index_dir, ignored_dirs, ignored_files)

    def _top_level_directories(self) -> list[Path]:
        """The root's subdirectories the walk enters (the others need no inotify watches)."""
        with self._lock:
            ignored = self._ignored_dirs
        return top_level_directories(self.root, self.index_dir, ignored)

    def _on_changes(self, paths: Iterable[str]) -> None:
        """Called by the watcher once changes have settled for `debounce` seconds: the sync
        walks and compares those paths alone (the whole tree if an ignore file changed)."""
        from sharc.writer import scope_of

        relative = frozenset(scope_of(
            [path for path in paths if inside(Path(path), self.root)], self.root
        ))
        self._jobs.sync(relative, from_watcher=True)

    def _on_watch_error(self, watcher: Watcher, error: Exception) -> None:
        self._jobs.note(f"watching stopped: {type(error).__name__}: {error}")
        with self._lock:
            if self._watcher is watcher:
                self._watcher = None


__all__ = ["LiveIndex", "LiveStatus"]
