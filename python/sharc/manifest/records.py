"""The manifest's records (files, chunks, references, definitions) and how their values are
stored: code deflated where that saves space, journaled vectors as int8 or float16.

The lowest floor of `sharc.manifest`: every table family imports it, and it imports only the
standard library (numpy when a vector is packed).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")


@dataclass(frozen=True)
class FileRecord:
    """What the manifest knows of one indexed file."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str
    language: str
    tier: int
    error: str | None
    syntax_errors: int


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk as stored: everything a search result shows."""

    id: str
    key: int
    path: str
    language: str
    tier: int
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int
    header: str
    code: str
    vector_key: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


class ReferenceRow(NamedTuple):
    """One edge as stored: the chunk at `path` that refers to `name`, and how."""

    path: str
    chunk_id: str
    name: str
    kind: str
    line: int
    qualifier: str


class DefinitionRow(NamedTuple):
    """A chunk that defines a name: its id, place, kind, fully qualified name and language."""

    chunk_id: str
    path: str
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int
    language: str = ""


class ChunkPlace(NamedTuple):
    """Where a chunk is, its key and its vector key: enough to order work by file and to find
    copies without reading code."""

    path: str
    start_line: int
    key: int
    vector_key: str


class RemovedChunk(NamedTuple):
    """A chunk an update removed or re-keyed: its vector may serve a chunk with the same text."""

    id: str
    key: int
    vector_key: str


class RankRecord(NamedTuple):
    """What filtering and reranking read about a search candidate: no code, no header. A
    tuple: a crowded search reads a thousand of them, and a tuple is made in a quarter of
    the time a frozen dataclass takes (0.4 against 1.9 us)."""

    id: str
    path: str
    language: str
    tier: int
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int


_CHUNK_COLUMNS = ", ".join(ChunkRecord.__dataclass_fields__)
_RANK_COLUMNS = ", ".join(RankRecord._fields)
_FILE_COLUMNS = ", ".join(FileRecord.__dataclass_fields__)


#: Raw deflate with a 4 KiB window and little state: code chunks are small, and at these
#: settings compressing one costs a tenth of zlib's defaults for 1% less saving (about half).
_DEFLATE_LEVEL, _DEFLATE_WBITS, _DEFLATE_MEMLEVEL = 1, -12, 4


def _pack_code(code: str) -> str | bytes:
    """Code as stored: deflated bytes when that is smaller, else the text itself."""
    encoded = code.encode("utf-8")
    deflate = zlib.compressobj(_DEFLATE_LEVEL, zlib.DEFLATED, _DEFLATE_WBITS, _DEFLATE_MEMLEVEL)
    packed = deflate.compress(encoded) + deflate.flush()
    return packed if len(packed) < len(encoded) else code


def _chunk_record(*row: object) -> ChunkRecord:
    """A `chunks` row as a record, its code inflated (`_CHUNK_COLUMNS` order)."""
    code = row[11]
    if isinstance(code, bytes):
        row = (*row[:11], _inflated(code), *row[12:])
    return ChunkRecord(*row)  # type: ignore[arg-type]


def _inflated(code: str | bytes) -> str:
    """A `chunks.code` value as text: long bodies are stored deflated."""
    if isinstance(code, bytes):
        return zlib.decompress(code, _DEFLATE_WBITS).decode("utf-8")
    return code


def _pack_float16(vector: np.ndarray) -> bytes:
    import numpy as np

    return vector.astype(np.float16).tobytes()


def _unpack_float16(blob: bytes) -> np.ndarray:
    import numpy as np

    return np.frombuffer(blob, dtype=np.float16).astype(np.float32)


def _pack_int8(vector: np.ndarray) -> bytes:
    """A float32 scale, then the components as int8 in units of that scale (|error| <= scale/2)."""
    import numpy as np

    peak = float(np.max(np.abs(vector))) if vector.size else 0.0
    scale = peak / 127.0 if peak > 0 else 1.0
    quantized = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    return np.float32(scale).tobytes() + quantized.tobytes()


def _unpack_int8(blob: bytes) -> np.ndarray:
    import numpy as np

    scale = np.frombuffer(blob[:4], dtype=np.float32)[0]
    return np.frombuffer(blob[4:], dtype=np.int8).astype(np.float32) * scale


#: Every reference with its chunk's path and id (`ReferenceRow`'s columns), to be filtered.
_SELECT_REFS = (
    "SELECT c.path, c.id, r.name, r.kind, r.line, r.qualifier"
    " FROM refs AS r JOIN chunks AS c ON c.key = r.chunk_key"
)
_DELETE_REFS_OF_PATH = "DELETE FROM refs WHERE chunk_key IN (SELECT key FROM chunks WHERE path = ?)"


def _batches(values: Sequence[T], size: int = 500) -> Iterator[Sequence[T]]:
    """SQLite caps the parameters of one statement: ask in batches."""
    for start in range(0, len(values), size):
        yield values[start : start + size]
