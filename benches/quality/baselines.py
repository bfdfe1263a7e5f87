"""The chunking baselines: other ways to cut the same files, embedded by the same model.

sharc's chunker cannot be swapped inside `Index`, so the chunking ablation runs its own small
semantic-only indexer: walk with sharc's walker (same files), cut them one of four ways, embed
every chunk with `sharc.embedding.load_embedder()` (the model sharc uses), rank by cosine. Only
the chunking differs between these rows:

- `fixed`: 1000-character windows overlapping by 200 (the usual tutorial baseline);
- `langchain`: LangChain's `RecursiveCharacterTextSplitter.from_language` (1000/200) for the
  file's language, the plain recursive splitter for others;
- `sharc-no-header`: sharc's chunks, embedding only their code;
- `sharc-header`: sharc's chunks with their context header (what sharc embeds in
  independent mode).

Embeddings are cached on disk (SQLite, keyed by model and text hash) so reruns are cheap; the
index time reported is that of the run, with the number of cache hits beside it.
"""

from __future__ import annotations

import bisect
import hashlib
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benches.quality.dataset import data_dir

WINDOW_CHARS = 1000
WINDOW_OVERLAP = 200
EMBED_BATCH = 64

# sharc language name -> LangChain `Language` member name
LANGCHAIN_LANGUAGES = {
    "python": "PYTHON",
    "rust": "RUST",
    "javascript": "JS",
    "typescript": "TS",
    "tsx": "TS",
    "go": "GO",
    "java": "JAVA",
    "kotlin": "KOTLIN",
    "c": "C",
    "cpp": "CPP",
    "csharp": "CSHARP",
    "ruby": "RUBY",
    "php": "PHP",
    "scala": "SCALA",
    "swift": "SWIFT",
    "lua": "LUA",
    "haskell": "HASKELL",
    "elixir": "ELIXIR",
    "markdown": "MARKDOWN",
    "rst": "RST",
    "html": "HTML",
    "latex": "LATEX",
    "solidity": "SOL",
    "cobol": "COBOL",
    "perl": "PERL",
    "powershell": "POWERSHELL",
    "protobuf": "PROTO",
}


@dataclass(frozen=True)
class TextChunk:
    path: str
    start_line: int
    end_line: int
    text: str  # what gets embedded


class LineIndex:
    """Character offset -> 1-based line number."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def _span(lines: LineIndex, start: int, end: int) -> tuple[int, int]:
    """Lines of the characters [start, end) (end > start)."""
    return lines.line(start), lines.line(max(start, end - 1))


def fixed_windows(
    path: str, text: str, size: int = WINDOW_CHARS, overlap: int = WINDOW_OVERLAP
) -> list[TextChunk]:
    """Windows of `size` characters starting every `size - overlap`."""
    if not text.strip():
        return []
    lines = LineIndex(text)
    step = size - overlap
    chunks = []
    for start in range(0, len(text), step):
        piece = text[start : start + size]
        if piece.strip():
            first, last = _span(lines, start, start + len(piece))
            chunks.append(TextChunk(path, first, last, piece))
        if start + size >= len(text):
            break
    return chunks


def langchain_splitter(language: str, size: int = WINDOW_CHARS, overlap: int = WINDOW_OVERLAP):  # type: ignore[no-untyped-def]
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

    member = LANGCHAIN_LANGUAGES.get(language)
    if member is not None and hasattr(Language, member):
        return RecursiveCharacterTextSplitter.from_language(
            getattr(Language, member), chunk_size=size, chunk_overlap=overlap, add_start_index=True
        )
    return RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=overlap, add_start_index=True
    )


def langchain_chunks(path: str, language: str, text: str) -> list[TextChunk]:
    if not text.strip():
        return []
    lines = LineIndex(text)
    chunks = []
    for doc in langchain_splitter(language).create_documents([text]):
        start = int(doc.metadata.get("start_index", -1))
        if start < 0:  # LangChain could not locate the piece: find it ourselves
            start = max(0, text.find(doc.page_content))
        first, last = _span(lines, start, start + len(doc.page_content))
        chunks.append(TextChunk(path, first, last, doc.page_content))
    return chunks


# -- chunking a tree -------------------------------------------------------------------------


def walk_files(root: Path) -> list:  # type: ignore[type-arg]
    from sharc.files import walk

    return list(walk(root).files)


def read_text(root: Path, path: str) -> str:
    return (root / path).read_bytes().decode("utf-8", errors="replace")


def chunk_tree(root: Path, chunker: str) -> list[TextChunk]:
    """Every chunk of the files sharc would index under `root`, cut by `chunker`."""
    files = walk_files(root)
    if chunker in ("sharc-header", "sharc-no-header"):
        from sharc.chunking import chunk_files

        out = []
        for chunked in chunk_files(root, files):
            for chunk in chunked.chunks:
                text = chunk.text if chunker == "sharc-header" else chunk.code
                if text.strip():
                    out.append(TextChunk(chunk.path, chunk.start_line, chunk.end_line, text))
        return out
    cut: Callable[[str, str, str], list[TextChunk]]
    if chunker == "fixed":

        def cut(path: str, language: str, text: str) -> list[TextChunk]:
            return fixed_windows(path, text)
    elif chunker == "langchain":
        cut = langchain_chunks
    else:
        raise ValueError(f"unknown chunker {chunker!r}")
    out = []
    for walked in files:
        out.extend(cut(walked.path, walked.language, read_text(root, walked.path)))
    return out


CHUNKERS = ("fixed", "langchain", "sharc-no-header", "sharc-header")


# -- embeddings, cached ----------------------------------------------------------------------


class EmbeddingCache:
    """Vectors by (model, sha256 of text), in one SQLite file; float32 blobs."""

    def __init__(self, path: Path | None, model_id: str) -> None:
        self.model_id = model_id
        self.db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path)
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, vector BLOB,"
                " PRIMARY KEY (model, key))"
            )

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        if self.db is None:
            return {}
        found: dict[str, np.ndarray] = {}
        for first in range(0, len(keys), 500):
            batch = list(keys[first : first + 500])
            marks = ",".join("?" * len(batch))
            rows = self.db.execute(
                f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})",
                [self.model_id, *batch],
            )
            for key, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        if self.db is None:
            return
        self.db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
            [(self.model_id, key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items],
        )
        self.db.commit()

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


def default_cache_path() -> Path:
    return data_dir() / "cache" / "embeddings.sqlite"


def embed_cached(embedder, texts: Sequence[str], cache: EmbeddingCache) -> tuple[np.ndarray, int]:  # type: ignore[no-untyped-def]
    """Document vectors for `texts` (rows L2-normalised) and how many came from the cache."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32), 0
    keys = [EmbeddingCache.key(t) for t in texts]
    known = cache.get_many(sorted(set(keys)))
    # similar lengths batch together: less padding
    missing = sorted(
        {k: t for k, t in zip(keys, texts) if k not in known}.items(),
        key=lambda item: (len(item[1]), item[0]),
    )
    missing_keys = {k for k, _ in missing}
    hits = sum(1 for k in keys if k not in missing_keys)
    for first in range(0, len(missing), EMBED_BATCH):
        batch = missing[first : first + EMBED_BATCH]
        vectors = np.asarray(embedder.embed_documents([t for _, t in batch]), dtype=np.float32)
        cache.put_many([(k, v) for (k, _), v in zip(batch, vectors)])
        known.update({k: v for (k, _), v in zip(batch, vectors)})
    return np.stack([known[k] for k in keys]).astype(np.float32), hits


# -- the index -------------------------------------------------------------------------------


@dataclass
class BaselineIndex:
    """Chunks and their vectors; search by cosine similarity."""

    chunks: list[TextChunk]
    matrix: np.ndarray
    embedder: object
    index_seconds: float
    cache_hits: int

    @classmethod
    def build(cls, root: Path, chunker: str, embedder, cache: EmbeddingCache) -> BaselineIndex:  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        chunks = chunk_tree(root, chunker)
        matrix, hits = embed_cached(embedder, [c.text for c in chunks], cache)
        return cls(chunks, matrix, embedder, time.perf_counter() - started, hits)

    def search_many(self, queries: Sequence[str], limit: int) -> list[list[TextChunk]]:
        if not queries:
            return []
        if not self.chunks:
            return [[] for _ in queries]
        query_vectors = np.asarray(self.embedder.embed_queries(list(queries)), dtype=np.float32)  # type: ignore[attr-defined]
        scores = query_vectors @ self.matrix.T
        k = min(limit, len(self.chunks))
        out = []
        for row in scores:
            top = np.argpartition(-row, k - 1)[:k]
            top = top[np.lexsort((top, -row[top]))]  # by score, ties by chunk order
            out.append([self.chunks[i] for i in top])
        return out
