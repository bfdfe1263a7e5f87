"""The reader of a live index: an `Index` separate from the writer (whose update closes its own
readers), opened again when the manifest is replaced (a forced rebuild or a clear, here or in
another process)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sharc.index import Index


class Reader:
    """Opens the reader `Index` of `root` with `open_settings` (those of `Index.open`)."""

    def __init__(self, root: Path, index_dir: Path, open_settings: dict[str, Any]) -> None:
        self.root = root
        self.index_dir = index_dir
        self._open_settings = open_settings
        self._lock = threading.Lock()
        self._index: Index | None = None
        self._identity: tuple[int, int] | None = None

    def index(self) -> Index:
        """The reader, renewed if the manifest file is another one than when it opened."""
        from sharc.index import Index

        try:
            stat = (self.index_dir / "manifest.sqlite").stat()
            identity: tuple[int, int] | None = (stat.st_dev, stat.st_ino)
        except OSError:
            identity = None
        with self._lock:
            if self._index is None or identity != self._identity:
                self._index = Index.open(self.root, **self._open_settings)
                self._identity = identity
            return self._index

    def drop(self) -> None:
        """Close the reader; the next `index()` opens a new one."""
        with self._lock:
            reader, self._index, self._identity = self._index, None, None
        if reader is not None:
            reader.close()
