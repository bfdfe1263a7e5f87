"""The watcher of a live index: a watchfiles loop in a thread, and the filter that drops file
events no walk would keep, before any walk.

The watcher knows the live index only through the callables it is given (which directories to
watch, which events may matter, what to do with settled changes), so it imports nothing of it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from watchfiles import Change

VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def accepts_event(
    path: str,
    root: Path,
    index_dir: Path,
    ignored_dirs: frozenset[str],
    ignored_files: frozenset[str],
) -> bool:
    """Whether a file event at `path` may matter: inside `root`, outside `index_dir`, VCS
    directories and what the last walk reported as ignored."""
    try:
        relative = Path(path).relative_to(root)
    except ValueError:
        return False
    if inside(Path(path), index_dir):
        return False
    parts = relative.parts
    if not parts or any(part in VCS_DIRS for part in parts):
        return False
    for depth in range(1, len(parts) + 1):
        if "/".join(parts[:depth]) in ignored_dirs:
            return False
    return relative.as_posix() not in ignored_files


def top_level_directories(root: Path, index_dir: Path, ignored: frozenset[str]) -> list[Path]:
    """The root's subdirectories the walk enters (the others need no inotify watches)."""
    directories = []
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return []
    for entry in entries:
        if entry.is_symlink() or not entry.is_dir() or entry.name in VCS_DIRS:
            continue
        # An index directory inside the root is never watched; events from it are dropped.
        if entry.name in ignored or inside(entry, index_dir):
            continue
        directories.append(entry)
    return directories


class Watcher:
    """A watchfiles loop in a thread: the root itself (not recursive) plus each top-level
    directory the walk enters (recursive); restarts when a top-level directory appears.

    `rewalk()` refreshes the ignore sets before a restart; `directories()` lists the top-level
    directories to watch; `accepts(path)` filters events; `debounce()` gives the seconds
    changes must settle; `on_changes(paths)` gets them; `on_error(error)` is told why the
    loop stopped.
    """

    STEP_MS = 50
    TIMEOUT_MS = 200

    def __init__(
        self,
        root: Path,
        *,
        rewalk: Callable[[], object],
        directories: Callable[[], list[Path]],
        accepts: Callable[[str], bool],
        debounce: Callable[[], float],
        on_changes: Callable[[list[str]], None],
        on_error: Callable[[Watcher, Exception], None],
    ) -> None:
        self.root = root
        self._rewalk = rewalk
        self._directories = directories
        self._accepts = accepts
        self._debounce = debounce
        self._on_changes = on_changes
        self._on_error = on_error
        self._stop = threading.Event()
        self.ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"sharc-watch:{root.name}", daemon=True
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
            self._on_error(self, error)

    def _watch_until_restart(self, *, restarted: bool) -> None:
        import watchfiles

        if restarted:
            self._rewalk()  # a new top-level directory may be one the walk ignores
        directories = self._directories()
        watched = {d.name for d in directories}
        restart = threading.Event()
        stop = _AnyEvent(self._stop, restart)

        def accept(change: Change, path: str) -> bool:
            return self._accepts(path)

        debounce = self._debounce()
        options: dict[str, Any] = {
            "watch_filter": accept,
            "stop_event": stop,
            "debounce": max(int(debounce * 1000), self.STEP_MS),
            "step": self.STEP_MS,
            "rust_timeout": self.TIMEOUT_MS,
            "yield_on_timeout": True,
            "raise_interrupt": False,
            "ignore_permission_denied": True,
        }
        streams = [watchfiles.watch(self.root, recursive=False, **options)]
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
                        if Path(path).parent == self.root and _top_level_change(path, watched):
                            restart.set()
                self.ready.set()
                if pending and time.monotonic() - last_change >= self._debounce():
                    self._on_changes(list(pending))
                    pending.clear()
        finally:
            for stream in streams:
                stream.close()
            if pending and not self._stop.is_set():
                self._on_changes(list(pending))


class _AnyEvent:
    """Set when any of its events is set (watchfiles only needs `is_set`)."""

    def __init__(self, *events: threading.Event) -> None:
        self._events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)


def _top_level_change(path: str, watched: set[str]) -> bool:
    """A directory appeared at the top level, or a watched one went away."""
    name = Path(path).name
    return (Path(path).is_dir() and name not in watched and name not in VCS_DIRS) or (
        name in watched and not Path(path).exists()
    )


def inside(path: Path, directory: Path) -> bool:
    try:
        path.relative_to(directory)
    except ValueError:
        return False
    return True
