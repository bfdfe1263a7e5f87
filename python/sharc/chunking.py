"""Turn files into chunks: tree-sitter symbols in Rust (tier 1), text splitting here (tiers 2-4).

Every failure is the failing file's own: a file that cannot be read, or that a chunker raises
or panics on, comes back with `error` set and the other files are chunked as usual. Given an
`EmbedPolicy`, each file is also judged (`sharc.embed_policy`): which of its chunks get no vector.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from sharc import _core
from sharc._core import Chunk, WalkedFile
from sharc.embed_policy import EmbedPolicy, KeywordOnly, judge_file, preamble_chunks
from sharc.textsplit import split_text_file

log = logging.getLogger(__name__)

MAX_CODE_CHARS = 3500
AST_TIER = 1


@dataclass(frozen=True)
class ChunkedFile:
    """The chunks of one file, and what went wrong while reading or parsing it.

    `error`: the file could not be chunked (a failure; what was indexed for it before should
    stay, and the next update tries again). `skipped`: its content is not indexed (binary),
    a decision rather than a failure. `keyword_only`: chunks the embedding policy leaves
    without a vector, and why, and `preamble` those of its chunks that hold only the file's
    preamble (both only when chunked with a policy).
    """

    path: str
    language: str
    tier: int
    content_hash: str
    chunks: list[Chunk] = field(default_factory=list)
    syntax_errors: list[str] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None
    keyword_only: KeywordOnly | None = None
    #: Chunks of an embedded file that hold only its preamble (`embed_policy.preamble_chunks`).
    preamble: frozenset[str] = frozenset()

    def keyword_only_rules(self) -> dict[str, str]:
        """The rule that leaves each chunk without a vector, by chunk id."""
        rules = dict.fromkeys(self.preamble, "preamble")
        if self.keyword_only is not None:
            rules.update(dict.fromkeys(self.keyword_only.chunk_ids, self.keyword_only.rule))
        return rules


def chunk_files(
    root: str | os.PathLike[str],
    files: Sequence[WalkedFile],
    *,
    max_chars: int = MAX_CODE_CHARS,
    policy: EmbedPolicy | None = None,
) -> list[ChunkedFile]:
    """Chunk walked files in input order. Per-file problems land in `error`, never raise.

    With a `policy`, each file's `keyword_only` says which of its chunks are not to be embedded.
    """
    root = Path(root)
    results = []
    for walked, native in zip(files, _chunk_natively(root, files, max_chars)):
        text, chunked = _split_if_text(root, walked, native)
        if policy is not None and chunked.error is None and chunked.chunks:
            chunked = _judge(root, walked, text, chunked, policy)
        results.append(chunked)
    return results


def _chunk_natively(
    root: Path, files: Sequence[WalkedFile], max_chars: int
) -> list[_core.FileChunks | str]:
    """The core's chunks of each file (tiers 2-4 only get read and hashed), or an error."""
    requests = [(f.path, f.language) for f in files]
    try:
        return list(_core.chunk_files(os.fspath(root), requests, max_chars=max_chars))
    except Exception:  # noqa: BLE001 - find the file it was, below
        log.debug("chunking a batch failed; chunking its files one by one", exc_info=True)
    results: list[_core.FileChunks | str] = []
    for request in requests:
        try:
            results.extend(_core.chunk_files(os.fspath(root), [request], max_chars=max_chars))
        except Exception as error:  # noqa: BLE001 - the file's own failure
            results.append(_describe(error))
    return results


def _split_if_text(
    root: Path, walked: WalkedFile, chunked: _core.FileChunks | str
) -> tuple[str | None, ChunkedFile]:
    """The file's chunks, and its text where this read it (tiers 2-4)."""
    if isinstance(chunked, str):
        return None, ChunkedFile(walked.path, walked.language, walked.tier, "", error=chunked)
    chunks, error, text = list(chunked.chunks), chunked.error, None
    if walked.tier != AST_TIER and error is None and chunked.skipped is None:
        try:
            text = (root / walked.path).read_bytes().decode("utf-8", errors="replace")
            chunks = split_text_file(walked.path, walked.language, walked.tier, text)
        except OSError as exc:
            error = f"cannot read: {exc.strerror or exc}"
        except Exception as exc:  # noqa: BLE001 - a splitter bug is this file's failure
            error = f"the text splitter failed on this file: {_describe(exc)}"
    return text, ChunkedFile(
        path=walked.path,
        language=walked.language,
        tier=walked.tier,
        content_hash=chunked.content_hash,
        chunks=chunks,
        syntax_errors=list(chunked.syntax_errors),
        error=error,
        skipped=chunked.skipped,
    )


def _judge(
    root: Path, walked: WalkedFile, text: str | None, chunked: ChunkedFile, policy: EmbedPolicy
) -> ChunkedFile:
    """`chunked` with the policy's verdict (the file is read again if the core chunked it)."""
    if text is None:
        try:
            text = (root / walked.path).read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            return replace(chunked, error=f"cannot read: {exc.strerror or exc}")
    verdict = judge_file(walked.path, walked.size, text, chunked.chunks, policy)
    whole = verdict is not None and len(verdict.chunk_ids) == len(chunked.chunks)
    preamble = frozenset() if whole else preamble_chunks(chunked.chunks, policy)
    if verdict is None and not preamble:
        return chunked
    return replace(chunked, keyword_only=verdict, preamble=preamble)


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


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
