"""Which files of a tree sharc indexes: the Rust walker with its ignore rules, typed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sharc import _core
from sharc._core import SkippedFile, WalkedFile

DEFAULT_MAX_FILE_SIZE = 1_000_000
#: Names of the ignore files read in every directory (`.gitignore`, `.ignore`, `.sharcignore`).
IGNORE_FILE_NAMES = frozenset(_core.IGNORE_FILES)


@dataclass(frozen=True)
class WalkResult:
    """The files to index under `root` and the ones left out, both sorted by path.

    A walk given `known` records has only the new and changed files in `files`; `unchanged`
    counts the others, and `missing` lists the known paths it did not find."""

    root: Path
    files: list[WalkedFile]
    skipped: list[SkippedFile]
    unchanged: int = 0
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WalkSettings:
    """What a user can change about which files are indexed."""

    ignore_patterns: tuple[str, ...] = ()
    custom_extensions: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE


def walk(
    root: str | os.PathLike[str],
    *,
    ignore_patterns: Sequence[str] = (),
    custom_extensions: Sequence[str] = (),
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    threads: int = 0,
    report_ignored: bool = False,
    sniff_content: bool = True,
    scope: Sequence[str] | None = None,
    known: Sequence[tuple[str, int, int]] | None = None,
) -> WalkResult:
    """Walk `root` in parallel with .gitignore, .ignore, .sharcignore and the default ignores.

    Secrets, binaries, files over `max_file_size` and symlinks leaving the root are always
    skipped; `report_ignored` also lists what the ignore rules dropped (a dry run).
    `sniff_content=False` only stats files (an index sync: the chunker checks the content of
    the files it reads). With `scope` (paths relative to the root, files or directories) only
    those are walked, by the same rules, directories above them included; a path that no
    longer exists yields nothing. With `known`, an index's `(path, size, mtime_ns)` records,
    the files are compared with them in Rust (see `WalkResult`): a sync of a large tree hands
    Python only what changed.
    """
    canonical, files, skipped, unchanged, missing = _core.walk(
        os.fspath(root),
        ignore_patterns=list(ignore_patterns),
        custom_extensions=list(custom_extensions),
        max_file_size=max_file_size,
        threads=threads,
        report_ignored=report_ignored,
        sniff_content=sniff_content,
        scope=None if scope is None else list(scope),
        known=None if known is None else list(known),
    )
    return WalkResult(Path(canonical), files, skipped, unchanged, missing)
