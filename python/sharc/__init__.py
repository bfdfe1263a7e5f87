"""sharc: symbol-level hybrid (semantic + keyword) code search over whole repositories.

    >>> import sharc
    >>> index = sharc.Index.open("path/to/repo")
    >>> index.update()
    >>> for hit in index.search("where are routes registered"):
    ...     print(hit.location, hit.score, hit.symbol)

`await index.asearch(...)` and `index.aupdate()` serve asyncio; `sharc.search_many` searches
several indexes as one; `sharc.integrations` holds the LangChain and LlamaIndex retrievers.

Heavy dependencies (onnxruntime, usearch, tantivy) load on first use, not on import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sharc._core import Chunk, PatternError, SkippedFile, WalkedFile
from sharc.errors import (
    CancelledError,
    GraphNotBuiltError,
    IndexCorruptError,
    IndexLockedError,
    IndexVersionError,
    ModelError,
    NotIndexedError,
    PathNotAllowedError,
    SharcError,
)
from sharc.files import WalkResult, walk

if TYPE_CHECKING:
    from sharc.chunking import ChunkedFile, chunk_files, chunk_text
    from sharc.index import Index, IndexStats, Progress, SearchResult
    from sharc.multi_root import RootedResult, search_many

__version__ = "0.1.0"

__all__ = [
    "CancelledError",
    "Chunk",
    "ChunkedFile",
    "GraphNotBuiltError",
    "Index",
    "IndexCorruptError",
    "IndexLockedError",
    "IndexStats",
    "IndexVersionError",
    "ModelError",
    "NotIndexedError",
    "PathNotAllowedError",
    "PatternError",
    "Progress",
    "RootedResult",
    "SearchResult",
    "SharcError",
    "SkippedFile",
    "WalkResult",
    "WalkedFile",
    "chunk_files",
    "chunk_text",
    "search_many",
    "walk",
]

_LAZY = {
    "ChunkedFile": "sharc.chunking",
    "chunk_files": "sharc.chunking",
    "chunk_text": "sharc.chunking",
    "Index": "sharc.index",
    "IndexStats": "sharc.index",
    "Progress": "sharc.index",
    "SearchResult": "sharc.index",
    "RootedResult": "sharc.multi_root",
    "search_many": "sharc.multi_root",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'sharc' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
