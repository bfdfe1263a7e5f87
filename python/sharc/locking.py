"""One writer per index: an exclusive, non-blocking file lock with a clear message."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from sharc.errors import IndexLockedError


class WriterLock:
    """Held while a process writes an index; the kernel releases it if the process dies."""

    def __init__(self, path: Path, *, what: str) -> None:
        self.path = path
        self.what = what
        self._file: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(descriptor)
            raise IndexLockedError(
                f"another sharc process (pid {holder}) is writing the index of {self.what};"
                " one writer at a time, searches keep working meanwhile"
            ) from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, str(os.getpid()).encode(), 0)
        self._file = descriptor

    def release(self) -> None:
        if self._file is not None:
            os.ftruncate(self._file, 0)
            fcntl.flock(self._file, fcntl.LOCK_UN)
            os.close(self._file)
            self._file = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def writer(self) -> int | None:
        """The pid of the live process writing the index now, if any (read without locking,
        so a writer starting at this moment is never turned away)."""
        try:
            text = self.path.read_text(errors="replace").strip()
        except OSError:
            return None
        if not text.isdigit():
            return None
        pid = int(text)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        return pid

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
