"""Turn files into chunks: tree-sitter symbols in Rust (tier 1), text splitting here (tiers 2-4)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sharc import _core
from sharc._core import Chunk, WalkedFile
from sharc.textsplit import split_text_file

MAX_CODE_CHARS = 3500
AST_TIER = 1


@dataclass(frozen=True)
class ChunkedFile:
    """The chunks of one file, and what went wrong while reading or parsing it."""

    path: str
    language: str
    tier: int
    content_hash: str
    chunks: list[Chunk] = field(default_factory=list)
    syntax_errors: list[str] = field(default_factory=list)
    error: str | None = None


def chunk_files(
    root: str | os.PathLike[str],
    files: Sequence[WalkedFile],
    *,
    max_chars: int = MAX_CODE_CHARS,
) -> list[ChunkedFile]:
    """Chunk walked files in input order. Per-file problems land in `error`, never raise."""
    root = Path(root)
    native = _core.chunk_files(
        os.fspath(root), [(f.path, f.language) for f in files], max_chars=max_chars
    )
    results = []
    for walked, chunked in zip(files, native):
        chunks, error = chunked.chunks, chunked.error
        if walked.tier != AST_TIER and error is None:
            try:
                text = (root / walked.path).read_bytes().decode("utf-8", errors="replace")
                chunks = split_text_file(walked.path, walked.language, walked.tier, text)
            except OSError as exc:
                error = f"cannot read: {exc.strerror or exc}"
        results.append(
            ChunkedFile(
                path=walked.path,
                language=walked.language,
                tier=walked.tier,
                content_hash=chunked.content_hash,
                chunks=list(chunks),
                syntax_errors=list(chunked.syntax_errors),
                error=error,
            )
        )
    return results


def chunk_text(path: str, source: str, *, language: str | None = None) -> list[Chunk]:
    """Chunk in-memory source as if it were the file at `path` (language from its extension)."""
    if language is None:
        classified = _core.classify_path(path)
        if classified is None:
            raise ValueError(f"sharc does not know the language of {path!r}; pass language=")
        language = classified[0]
    tier = _core.language_tier(language)
    if tier == AST_TIER:
        return list(_core.chunk_source(path, language, source).chunks)
    return split_text_file(path, language, tier, source)
