"""The stores a reader of one index keeps open between searches: the manifest and the keyword
indexes (of chunks, and of whole files), each opened on first use; the keyword indexes see the
latest commit at every search (reloaded when a commit rewrote their `meta.json`). The vectors
have their own reader (`sharc.vector_reader`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.errors import NotIndexedError
from sharc.manifest import Manifest
from sharc.stores import FILE_KEYWORD, MANIFEST, open_keyword

if TYPE_CHECKING:
    from sharc.keyword import KeywordStore
    from sharc.locking import WriterLock

FIRST_KEYWORD_WAIT_SECONDS = 3.0  # a search during the first update waits this long for it


class StoreReaders:
    """The read-only stores of the index in `index_dir` (of `root`), shared by the threads of
    one `sharc.Index`; `writer_lock` tells whether an update is creating them."""

    def __init__(self, root: Path, index_dir: Path, writer_lock: Callable[[], WriterLock]) -> None:
        self._root = root
        self._index_dir = index_dir
        self._writer_lock = writer_lock
        self._lock = threading.Lock()
        self._manifest: Manifest | None = None
        self._keyword: KeywordStore | None = None
        self._file_keyword: KeywordStore | None = None
        #: The commit each keyword store was last reloaded at (`_commit_of`), by directory;
        #: none at first (a commit between opening a store and noting it is not missed: the
        #: second search reloads once).
        self._loaded: dict[Path, tuple[int, int, int] | None] = {}

    def manifest(self) -> Manifest:
        with self._lock:
            if self._manifest is None:
                if not (self._index_dir / MANIFEST).exists():
                    raise NotIndexedError(
                        f"{self._root} is not indexed yet (looked in {self._index_dir})"
                    )
                self._manifest = Manifest(self._index_dir / MANIFEST, writable=False)
            return self._manifest

    def keyword(self) -> KeywordStore:
        """The chunk keyword index, at its latest commit."""
        with self._lock:
            if self._keyword is None:
                self._keyword = self._open_first_keyword()
            else:
                self._refresh(self._keyword)
            return self._keyword

    def file_keyword(self) -> KeywordStore | None:
        """The file keyword index (`sharc.file_keywords`) at its latest commit; None until an
        update made it (an index from before it ranks without it)."""
        with self._lock:
            if self._file_keyword is None:
                try:
                    self._file_keyword = open_keyword(
                        self._index_dir, writable=False, name=FILE_KEYWORD
                    )
                except FileNotFoundError:
                    return None
            else:
                self._refresh(self._file_keyword)
            return self._file_keyword

    def _refresh(self, store: KeywordStore) -> None:
        """Reload `store` if a commit was made since it was last loaded: while nothing is
        written, a search costs a `stat`, not a reload and a new searcher (0.3 ms of a search
        at 100k chunks). The commit is noted before the reload: one that lands in between is
        loaded now and again at the next search, never missed."""
        commit = _commit_of(store.directory)
        if commit is None or commit != self._loaded.get(store.directory):
            self._loaded[store.directory] = commit
            store.reload()

    def forget(self) -> None:
        """Close every store; the next use opens them again."""
        with self._lock:
            if self._manifest is not None:
                self._manifest.close()
            for store in (self._keyword, self._file_keyword):
                if store is not None:
                    store.close()
            self._manifest = self._keyword = self._file_keyword = None
            self._loaded.clear()

    def _open_first_keyword(self) -> KeywordStore:
        """The keyword index; while the first update is creating it, wait for it briefly."""
        deadline = time.monotonic() + FIRST_KEYWORD_WAIT_SECONDS
        while True:
            try:
                return open_keyword(self._index_dir, writable=False)
            except FileNotFoundError:
                writer = self._writer_lock().writer()
                if writer is None:
                    raise NotIndexedError(
                        f"{self._root} has no keyword index yet (looked in {self._index_dir})"
                    ) from None
                if time.monotonic() > deadline:
                    raise NotIndexedError(
                        f"indexing of {self._root} has just started (process {writer}); keyword"
                        " search answers as soon as the first files are chunked: try again in a"
                        " few seconds"
                    ) from None
                time.sleep(0.1)


def _commit_of(directory: Path) -> tuple[int, int, int] | None:
    """Which commit a keyword index's directory holds, as its `meta.json`'s inode, size and
    modification time (tantivy rewrites the file at every commit); None where it is missing."""
    try:
        found = os.stat(directory / "meta.json")
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns
