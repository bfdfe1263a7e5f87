"""The `sharc` command: data to stdout, messages to stderr, a `hint:` on errors."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sharc.errors import SharcError


def main(argv: Sequence[str] | None = None) -> int:
    limit_malloc_arenas()
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        _message("interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (`sharc callers X | head`): not an error. Point stdout at
        # /dev/null so the interpreter's last flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (SharcError, OSError, ValueError) as error:
        _message(f"error: {error}")
        hint = _hint(error)
        if hint:
            _message(f"hint: {hint}")
        return 1


#: glibc's `mallopt` parameter for the most arenas (malloc.h).
_M_ARENA_MAX = -8


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Let glibc's malloc keep at most `arenas` arenas in this process; returns whether it did.

    By default each thread that allocates may get an arena of its own (up to eight per core),
    and memory the chunker's threads free stays in theirs: on a 10,000-file tree, two arenas
    cut the peak RSS of `sharc index` by a fifth, with no loss of speed measured. The command
    owns its process, so it sets this for itself (a library must not: `Index` leaves its host's
    allocator alone). A `MALLOC_ARENA_MAX` in the environment wins; other C libraries are left
    as they are."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sharc",
        description="Symbol-level hybrid code search: index a repository, then ask it questions.",
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    files = commands.add_parser(
        "files", help="list what would be indexed (a dry run)", description=_doc(_files)
    )
    files.add_argument("path", help="the repository root")
    files.add_argument("--skipped", action="store_true", help="also list skipped files and why")
    _add_walk_options(files)
    _add_embed_options(files)
    files.add_argument("--json", action="store_true", help="print JSON lines")
    files.set_defaults(run=_files)

    chunks = commands.add_parser(
        "chunks", help="show how a file or tree is chunked", description=_doc(_chunks)
    )
    chunks.add_argument("path", help="a file, or a directory to walk")
    chunks.add_argument("--code", action="store_true", help="print each chunk's code too")
    _add_walk_options(chunks)
    chunks.add_argument("--json", action="store_true", help="print JSON lines")
    chunks.set_defaults(run=_chunks)

    _add_index_commands(commands)
    return parser


def _add_walk_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="GLOB",
        help="extra ignore pattern, gitignore syntax (repeatable): 'vendor/**'",
    )
    parser.add_argument(
        "--ext", action="append", default=[], metavar="EXT",
        help="extra file extension to index as plain code (repeatable): .vue",
    )
    parser.add_argument(
        "--max-file-size", type=int, default=1_000_000, metavar="BYTES",
        help="skip files larger than this (default 1000000)",
    )


def _add_embed_options(parser: argparse.ArgumentParser) -> None:
    from sharc.embed_policy import RULES

    parser.add_argument(
        "--embed-anyway", action="append", default=None, metavar="RULE",
        choices=(*RULES, "all", "none"),
        help="embed the files this rule keeps keyword-only (repeatable): "
        + ", ".join(RULES) + ", all, or none (every rule on; the default)",
    )
    parser.add_argument(
        "--max-embedded-per-file", type=int, default=None, metavar="N",
        help="embed at most N chunks of a file, the rest keyword-only (default 1000)",
    )


def _add_index_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    try:
        from sharc import cli_index
    except ImportError:  # pragma: no cover - the index layer is part of the package
        return
    cli_index.add_commands(commands, _add_walk_options, _add_embed_options)


def _files(args: argparse.Namespace) -> int:
    """List the files sharc would index under PATH, with tier, language and size, and why a
    file is searchable by keyword only (minified, generated, vendored, ...: not embedded)."""
    from sharc.chunking import chunk_files
    from sharc.embed_policy import judge_path, policy_from_settings
    from sharc.files import walk

    started = time.perf_counter()
    result = walk(
        args.path,
        ignore_patterns=args.ignore,
        custom_extensions=args.ext,
        max_file_size=args.max_file_size,
        report_ignored=args.skipped,
    )
    policy = policy_from_settings(
        None, off=args.embed_anyway, max_chunks_per_file=args.max_embedded_per_file
    )
    # Judged as an update judges them: by path, then by content and chunk count (read and
    # chunked only when the path does not decide).
    keyword_only: dict[str, str] = {}
    undecided = []
    for file in result.files:
        if by_path := judge_path(file.path, file.size, policy):
            keyword_only[file.path] = by_path[1]
        else:
            undecided.append(file)
    for start in range(0, len(undecided), 256):
        for chunked in chunk_files(result.root, undecided[start : start + 256], policy=policy):
            if chunked.keyword_only is not None:
                keyword_only[chunked.path] = chunked.keyword_only.reason
    elapsed = time.perf_counter() - started
    out = sys.stdout
    for file in result.files:
        reason = keyword_only.get(file.path)
        if args.json:
            out.write(json.dumps({"path": file.path, "tier": file.tier,
                                  "language": file.language, "size": file.size,
                                  "keyword_only": reason}) + "\n")
        else:
            note = f"  (keyword-only: {reason})" if reason else ""
            out.write(
                f"{file.tier}  {file.language:<11} {_size(file.size):>8}  {file.path}{note}\n"
            )
    if args.skipped:
        for skip in result.skipped:
            if args.json:
                out.write(json.dumps({"path": skip.path, "skipped": skip.reason,
                                      "detail": skip.detail}) + "\n")
            else:
                out.write(f"-  {'skipped':<11} {'':>8}  {skip.path}  ({skip.detail})\n")
    total = sum(file.size for file in result.files)
    _message(
        f"{len(result.files)} files ({_size(total)}) to index, {len(keyword_only)} of them"
        f" keyword-only; {len(result.skipped)} skipped; in {elapsed * 1000:.0f} ms"
        + ("" if args.skipped else "; --skipped lists them")
    )
    return 0


def _chunks(args: argparse.Namespace) -> int:
    """Show the chunks of a file or of every file under a directory: location, kind, header."""
    from sharc._core import classify_path
    from sharc.chunking import chunk_files
    from sharc.files import walk

    target = Path(args.path)
    if target.is_file():
        classified = classify_path(target)
        if classified is None:
            raise ValueError(f"sharc does not index files like {target.name}")
        root, files = target.parent, [_single_file(target, *classified)]
    else:
        result = walk(target, ignore_patterns=args.ignore, custom_extensions=args.ext,
                      max_file_size=args.max_file_size)
        root, files = result.root, result.files
    out = sys.stdout
    count = failed = 0
    for chunked in chunk_files(root, files):
        if chunked.error:
            failed += 1
            _message(f"warning: {chunked.path}: {chunked.error}")
        if chunked.skipped:
            _message(f"{chunked.path}: skipped ({chunked.skipped})")
        for error in chunked.syntax_errors:
            _message(f"{chunked.path}: {error}")
        for chunk in chunked.chunks:
            count += 1
            if args.json:
                out.write(json.dumps({
                    "id": chunk.id, "location": chunk.location, "kind": chunk.kind,
                    "language": chunk.language, "tier": chunk.tier, "symbol": chunk.symbol,
                    "fqn": chunk.fqn, "start_line": chunk.start_line,
                    "end_line": chunk.end_line, "header": chunk.header, "code": chunk.code,
                }) + "\n")
                continue
            out.write(f"{chunk.location}  {chunk.kind}  {chunk.fqn or chunk.symbol}\n")
            out.write("".join(f"    {line}\n" for line in chunk.header.splitlines()))
            if args.code:
                out.write("".join(f"    | {line}\n" for line in chunk.code.splitlines()))
    _message(f"{count} chunks" + (f"; {failed} files failed" if failed else ""))
    return 0


class _FileToChunk:
    """A walked-file look-alike for chunking one file given on the command line."""

    def __init__(self, path: str, language: str, tier: int, size: int) -> None:
        self.path, self.language, self.tier, self.size = path, language, tier, size


def _single_file(target: Path, language: str, tier: int) -> _FileToChunk:
    return _FileToChunk(target.name, language, tier, target.stat().st_size)


def _doc(function: object) -> str:
    return (getattr(function, "__doc__", "") or "").strip()


def _size(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000  # type: ignore[assignment]
    return f"{size}"


def _message(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _hint(error: BaseException) -> str | None:
    from sharc import errors

    if isinstance(error, FileNotFoundError):
        return "check the path; it must be an existing directory or file"
    if isinstance(error, errors.NotIndexedError):
        return "run `sharc index PATH` first"
    if isinstance(error, errors.IndexCorruptError | errors.IndexVersionError):
        return "run `sharc clear PATH` and then `sharc index PATH` to rebuild the index"
    if isinstance(error, errors.IndexLockedError):
        return "wait for the other `sharc index` to finish, or stop it"
    if isinstance(error, errors.ClusterError):
        if "ray package" in str(error):
            return "pip install 'sharc[ray]'"
        return "check the address (`ray status` on the head node), or leave it out to index on"\
            " a Ray cluster started on this machine"
    if isinstance(error, errors.ModelError):
        return "reinstall sharc (`pip install --force-reinstall sharc`) to restore the model files"
    return None


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
