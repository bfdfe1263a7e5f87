"""sharc's Rust core: walking, ignore rules, tree-sitter chunking and keyword tokens."""

from os import PathLike

class CoreError(Exception):
    """An error raised by sharc's Rust core."""

class PatternError(ValueError):
    """An invalid ignore pattern or extension."""

IGNORE_FILES: list[str]
"""The ignore files the walk reads in each directory, strongest first."""

class WalkedFile:
    """A file the walk will index."""

    path: str
    """Relative to the root, `/`-separated."""
    size: int
    mtime_ns: int
    language: str
    tier: int

class SkippedFile:
    """A file the walk left out, and why."""

    path: str
    reason: str
    """A stable code: ignored, secret, binary, too_large, symlink_outside_root, symlink_loop,
    unreadable, unsupported."""
    detail: str

class Reference:
    """A name a chunk refers to (the code graph's raw material; `sharc.graph` resolves it)."""

    name: str
    """The name as written, without its qualifier: `resolve`, `Store`, `fmt`."""
    kind: str
    """`call`, `import`, `type` or `inherit`."""
    line: int
    """1-based line of the reference."""
    qualifier: str
    """The module path an import goes through (`sharc` for `sharc.graph`); empty otherwise."""
    def __init__(self, *, name: str, kind: str, line: int, qualifier: str = "") -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Chunk:
    """One chunk: a symbol, a run of module-level lines, a doc section or a config group."""

    id: str
    path: str
    language: str
    tier: int
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int
    header: str
    text: str
    code: str
    references: list[Reference]
    """The names this chunk calls, imports, inherits or mentions as types, in line order (tree-sitter
    queries in the tags conventions, for every AST language; empty for text chunks)."""
    @property
    def location(self) -> str:
        """`path:start-end`."""
    def __init__(
        self,
        *,
        id: str,
        path: str,
        language: str,
        tier: int,
        kind: str,
        symbol: str,
        fqn: str,
        start_line: int,
        end_line: int,
        header: str,
        text: str,
        code: str,
        references: list[Reference] = ...,
    ) -> None: ...

class FileChunks:
    """The chunks of one file, with what went wrong while reading or parsing it."""

    path: str
    language: str
    content_hash: str
    chunks: list[Chunk]
    syntax_errors: list[str]
    out_of_time: bool
    """The file ran out of its time budget (chunked as plain lines, or without references):
    one of `syntax_errors` says so, and is no syntax error."""
    error: str | None
    """Why the file could not be chunked (unreadable, or the chunker failed on it)."""
    skipped: str | None
    """Why its content is not indexed (binary): a decision, not a failure."""

class PathFilter:
    """The walk's rules for single paths (the file watcher asks it about changed paths)."""

    def __init__(
        self,
        root: str | PathLike[str],
        *,
        ignore_patterns: list[str] = ...,
        custom_extensions: list[str] = ...,
        max_file_size: int = 1_000_000,
    ) -> None: ...
    def skip_reason(self, relative_path: str | PathLike[str]) -> tuple[str, str] | None:
        """None when the walk would index the path, else `(reason code, detail)`."""
    def walks_directory(self, relative_path: str | PathLike[str]) -> bool:
        """Whether the walk enters this directory."""

def walk(
    root: str | PathLike[str],
    *,
    ignore_patterns: list[str] = ...,
    custom_extensions: list[str] = ...,
    max_file_size: int = 1_000_000,
    threads: int = 0,
    report_ignored: bool = False,
    sniff_content: bool = True,
    scope: list[str] | None = None,
    known: list[tuple[str, int, int]] | None = None,
) -> tuple[str, list[WalkedFile], list[SkippedFile], int, list[str]]:
    """Walk `root` (or only `scope`, relative paths under it, by the same rules); return its
    canonical path, the files to index, the skipped ones, and against `known` `(path, size,
    mtime_ns)` records (then the files are only the new and changed ones) the count of
    unchanged files and the known paths not found. A scope path leaving the root raises
    ValueError."""

def chunk_files(
    root: str | PathLike[str], files: list[tuple[str, str]], *, max_chars: int = 3500
) -> list[FileChunks]:
    """Read and chunk `(path, language)` files with tree-sitter, in parallel, in input order."""

def references_version() -> str:
    """The reference extractor's identifier (a digest of its queries and rules): an index whose
    references were read by another one reads its files again on its next update."""

def chunker_version() -> str:
    """The chunker's identifier, bumped when what a file becomes changes: an index whose
    chunks carry another one reads every file again (`Manifest.chunks_current`)."""

def chunk_source(path: str, language: str, source: str, *, max_chars: int = 3500) -> FileChunks:
    """Chunk in-memory `source` as if it were the file at `path`."""

def classify_path(path: str | PathLike[str]) -> tuple[str, int] | None:
    """The language and tier of a path, or None when sharc does not index that type (a file
    without an extension that exists: by the interpreter on its `#!` line, or C++ when its
    first code is a header's `#ifndef` guard, `#pragma once` or `#include`)."""

def known_file_types() -> list[tuple[str, str, int]]:
    """Every `(".ext" or file name, language, tier)` sharc indexes."""

def has_grammar(language: str) -> bool:
    """Whether the core has a tree-sitter grammar for `language`."""

def language_tier(language: str) -> int:
    """The chunking tier of a language name."""

def code_tokens(text: str) -> list[str]:
    """Keyword tokens: identifiers whole and split (camelCase, snake_case, acronyms), lowercased."""

def code_tokens_batch(texts: list[str]) -> list[list[str]]:
    """`code_tokens` over many texts, without the GIL."""

def index_text_batch(texts: list[str]) -> list[str]:
    """Per text, its `code_tokens` joined by spaces, then `~` plus the underscore-free spelling
    of each token with an underscore: what a keyword field indexes."""
