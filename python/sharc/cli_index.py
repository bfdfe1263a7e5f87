"""`sharc index`, `search`, `status`, `clear`: the index commands of the CLI."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

MAX_WARNINGS = 20  # per-file warnings printed after an update; the rest are counted
#: The default model's embedding is measured this long before `sharc index` estimates the rest.
ESTIMATE_AFTER_SECONDS = 5.0

if TYPE_CHECKING:
    from sharc.index import Index, IndexStats, Progress, SearchResponse, SearchResult


def add_commands(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_walk_options: Callable[[argparse.ArgumentParser], None],
    add_embed_options: Callable[[argparse.ArgumentParser], None],
) -> None:
    index = commands.add_parser(
        "index", help="build or refresh the index of a repository", description=_doc(_index)
    )
    index.add_argument("path", nargs="?", default=".", help="the repository root (default: .)")
    add_walk_options(index)
    index.add_argument("--force", action="store_true", help="rebuild from scratch")
    index.add_argument("--compact", action="store_true",
                       help="fold the vectors added since the last compaction into the main"
                       " vector file now (updates do it when they pass a tenth of it)")
    index.add_argument("--keyword-only", action="store_true",
                       help="skip embeddings (keyword search only; fast)")
    index.add_argument("--fast-vectors", action=argparse.BooleanOptionalAction, default=None,
                       help="keep the fast model's vectors beside the model's: semantic search"
                       " within seconds, on them until the model has embedded every chunk"
                       " (default: on, or as the index remembers)")
    index.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                       help="chunk and embed on a Ray cluster (host:port, ray://host:port or"
                       " auto; none: start one on this machine); needs sharc[ray], and the"
                       " tree at the same path on every node")
    add_embed_options(index)
    _add_index_options(index)
    index.set_defaults(run=_index)

    search = commands.add_parser("search", help="search an indexed repository",
                                 description=_doc(_search))
    search.add_argument(
        "query",
        help="natural language, an identifier (any case or convention), a file's name, or a"
        " file and line ('src/app.ts:42', a stack trace: the code at that line first), or an"
        " error message (the code that holds it first);"
        " a directory it names ('... in lib/queue/') is searched first",
    )
    search.add_argument("--path", action="append", default=None, metavar="PATH",
                        help="an indexed repository root (default: .); repeat it to search"
                        " several roots as one, each hit naming its root")
    search.add_argument("--limit", "-n", type=int, default=10,
                        help="files to show, each with its other close hits under it"
                        " (default 10); with --flat, hits")
    search.add_argument("--flat", action="store_true",
                        help="one hit per line, not grouped by file (at most 3 per file"
                        " before every other file has had its place)")
    search.add_argument("--mode", choices=("hybrid", "semantic", "keyword"), default="hybrid")
    search.add_argument("--vectors", choices=("fast", "default"), default=None,
                        help="the vectors to search: the fast model's or the index model's"
                        " (default: the model's once they cover every chunk, else the fast"
                        " model's)")
    search.add_argument("--ext", action="append", default=[], metavar="EXT",
                        help="only files with this extension (repeatable)")
    search.add_argument("--lang", action="append", default=[], metavar="LANGUAGE",
                        help="only this language (repeatable): python, typescript, ...")
    search.add_argument("--under", metavar="PREFIX", help="only paths under this prefix")
    search.add_argument("--glob", metavar="GLOB", help="only paths matching this glob")
    search.add_argument("--tests", action="store_true", help="do not rank tests lower")
    search.add_argument("--code", action="store_true", help="print each hit's code")
    search.add_argument("--graph", action="store_true",
                        help="show what calls the top hits and what they call (code graph)")
    search.add_argument("--json", action="store_true", help="print one JSON object per result")
    search.add_argument("--explain", action="store_true",
                        help="say under each hit why it ranks there: where each arm placed it,"
                        " its fused score and what each ranking stage did to it")
    _add_index_options(search, several=True)
    search.set_defaults(run=_search)

    status = commands.add_parser("status", help="show the state of an index",
                                 description=_doc(_status))
    status.add_argument("path", nargs="?", default=".", help="the repository root (default: .)")
    status.add_argument("--json", action="store_true")
    _add_index_options(status)
    status.set_defaults(run=_status)

    clear = commands.add_parser("clear", help="delete the index of a repository",
                                description=_doc(_clear))
    clear.add_argument("path", nargs="?", default=".", help="the repository root (default: .)")
    _add_index_options(clear)
    clear.set_defaults(run=_clear)

    from sharc import cli_graph

    cli_graph.add_commands(commands, _add_index_options)

    mcp = commands.add_parser("mcp", help="serve the MCP tools (stdio by default)",
                              description="Serve sharc's MCP tools to an AI assistant.")
    mcp.add_argument("roots", nargs="*", help="roots the server may index (default: cwd)")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8765)
    mcp.add_argument("--model", help="model of new indexes: 'fast', or a model directory"
                     " (default: SHARC_MODEL, else the bundled all-MiniLM-L6-v2)")
    mcp.set_defaults(run=_mcp)


def _add_index_options(parser: argparse.ArgumentParser, *, several: bool = False) -> None:
    if several:
        parser.add_argument("--index-dir", action="append", default=None, metavar="DIR",
                            help="where the index lives (default: the user cache directory);"
                            " with several --path, one --index-dir per --path, in order")
    else:
        parser.add_argument("--index-dir", metavar="DIR",
                            help="where the index lives (default: the user cache directory)")
    parser.add_argument("--model", metavar="MODEL",
                        help="'fast' (static vectors distilled from the default model: tens of"
                        " times faster, a little less precise) or a local ONNX model directory"
                        " (default: the bundled all-MiniLM-L6-v2; an index keeps its model)")


def _open(args: argparse.Namespace, **settings: object) -> Index:
    from sharc.index import Index

    return Index.open(args.path, index_dir=args.index_dir, model=args.model, **settings)  # type: ignore[arg-type]


def _index(args: argparse.Namespace) -> int:
    """Build the index of PATH, or refresh it: only changed files are re-chunked and embedded."""
    index = _open(
        args,
        ignore_patterns=args.ignore,
        custom_extensions=args.ext,
        max_file_size=args.max_file_size if args.max_file_size != 1_000_000 else None,
        embed_anyway=args.embed_anyway,
        max_embedded_per_file=args.max_embedded_per_file,
        fast_vectors=args.fast_vectors,
    )
    bar = _ProgressBar()
    progress = _SemanticReady(bar)
    executor = None
    if args.ray is not None:
        from sharc.distributed import RayExecutor, import_ray

        import_ray()  # before anything else: say how to install it
        executor = RayExecutor(address=args.ray or None)
    report = index.update(progress=progress, embed=not args.keyword_only, force=args.force,
                          compact=args.compact, executor=executor)
    bar.finish()
    stats = index.stats()
    _message(
        f"indexed {stats.root}: {stats.files} files, {stats.chunks} chunks"
        f" ({report.files_added} added, {report.files_changed} changed,"
        f" {report.files_deleted} deleted, {report.files_unchanged} unchanged;"
        f" {report.chunks_embedded} chunks embedded"
        + (f", and {report.fast_chunks_embedded} by the fast model"
           if report.fast_chunks_embedded else "")
        + f"; {stats.keyword_only_chunks} keyword-only"
        f" by policy in {stats.keyword_only_files} files) in {report.elapsed:.1f} s;"
        f" {len(report.skipped)} files skipped, {len(report.failed)} failed;"
        f" index {stats.size_bytes / 1e6:.1f} MB at {stats.index_dir}"
    )
    for error in report.errors[:MAX_WARNINGS]:
        _message(f"warning: {error}")
    if len(report.errors) > MAX_WARNINGS:
        _message(f"warning: ... and {len(report.errors) - MAX_WARNINGS} more")
    if report.failed:
        _message("the failed files keep what was indexed for them before;"
                 " the next `sharc index` tries them again")
    return 0


def _search(args: argparse.Namespace) -> int:
    """Search the index of --path with a natural-language question or an identifier. With
    several --path, their indexes are searched as one (`sharc.search_many`): one ranking, on
    one score scale, each hit naming its root."""
    from sharc.index import Index

    paths = args.path or ["."]
    index_dirs = args.index_dir or [None] * len(paths)
    if len(index_dirs) != len(paths):
        raise ValueError(
            f"{len(paths)} --path but {len(index_dirs)} --index-dir: give one --index-dir per"
            " --path, in the same order, or none"
        )
    indexes = [
        Index.open(path, index_dir=index_dir, model=args.model)
        for path, index_dir in zip(paths, index_dirs)
    ]
    options = dict(
        limit=args.limit, mode=args.mode, extensions=args.ext, languages=args.lang,
        path_prefix=args.under, path_glob=args.glob, include_tests=True if args.tests else None,
        vectors=args.vectors, group_by_file=not args.flat, explain=args.explain,
    )
    if args.graph:
        if len(indexes) > 1:
            raise ValueError("--graph searches one --path at a time")
        options["graph"] = True
    if len(indexes) == 1:
        response = indexes[0].search(args.query, **options)  # type: ignore[arg-type]
    else:
        from sharc.multi_root import search_many

        response = search_many(indexes, args.query, **options)  # type: ignore[arg-type]
    out = sys.stdout
    for result in response:
        if args.json:
            out.write(json.dumps({
                **_hit_json(result), "vectors": response.vectors,
                **({"called_by": list(result.called_by), "calls": list(result.calls)}
                   if args.graph else {}),
                "same_file_hits": [_hit_json(hit) for hit in result.same_file_hits],
            }) + "\n")
            continue
        _write_hit(out, result, args.code)
        if getattr(result, "called_by", ()):
            out.write(f"    called by: {', '.join(result.called_by)}\n")
        if getattr(result, "calls", ()):
            out.write(f"    calls: {', '.join(result.calls)}\n")
        for hit in result.same_file_hits:
            _write_hit(out, hit, args.code, indent="  ")
    note = "" if response.complete else _incomplete_note(response, indexes)
    if response.vectors:
        note = f" ({response.vectors} vectors)" + note
    _message(f"{len(response)} results; arms: {', '.join(response.arms) or 'none'}{note}")
    return 0


def _incomplete_note(response: SearchResponse, indexes: list[Index]) -> str:
    """Why the vectors searched do not cover every chunk: another process is computing them,
    or none is (an index built `--keyword-only`, or an update stopped before its vectors)."""
    from sharc.live.progress_file import other_writer

    if any(other_writer(index.index_dir) is not None for index in indexes):
        return " (embeddings still being computed)"
    if response.vectors is None:
        return " (the index has no vectors: `sharc index` computes them)"
    return " (vectors cover part of the index: `sharc index` computes the rest)"


def _hit_json(hit: SearchResult) -> dict[str, object]:
    root = getattr(hit, "root", None)
    return {
        **({"root": root} if root else {}),
        "location": hit.location, "path": hit.path,
        "start_line": hit.start_line, "end_line": hit.end_line,
        "score": round(hit.score, 4), "kind": hit.kind, "symbol": hit.symbol,
        "fqn": hit.fqn, "language": hit.language, "header": hit.header, "code": hit.code,
        **({"explanation": hit.explanation.as_dict()} if hit.explanation else {}),
    }


def _write_hit(out: TextIO, hit: SearchResult, code: bool, indent: str = "") -> None:
    """One line per hit (a file's other hits indented under its best), its code below."""
    root = getattr(hit, "root", None)
    location = (
        f"{os.path.join(root, hit.path)}:{hit.start_line}-{hit.end_line}" if root else hit.location
    )
    out.write(f"{indent}{location}  {hit.score:.3f}  {hit.kind} {hit.fqn or hit.symbol}\n")
    if hit.explanation is not None:
        out.write(f"{indent}    why: {hit.explanation.summary()}\n")
    if code:
        out.write("".join(f"{indent}    {line}\n" for line in hit.code.splitlines()))


def _status(args: argparse.Namespace) -> int:
    """Show files, chunks, embedded and keyword-only chunks, model, size and last update."""
    stats = _open(args).stats()
    if args.json:
        sys.stdout.write(json.dumps(stats.__dict__) + "\n")
        return 0
    last = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stats.last_update))
            if stats.last_update else "never")
    sys.stdout.write(
        f"root:      {stats.root}\n"
        f"index:     {stats.index_dir}\n"
        f"files:     {stats.files}\n"
        f"chunks:    {stats.chunks} ({stats.embedded_chunks} embedded,"
        f" {stats.keyword_only_chunks} keyword-only by policy"
        f" in {stats.keyword_only_files} files)\n"
        f"model:     {stats.model or '-'} ({stats.embedding_mode or '-'})\n"
        f"vectors:   {_vectors_line(stats)}\n"
        f"size:      {stats.size_bytes / 1e6:.1f} MB\n"
        f"updated:   {last}\n"
    )
    return 0


def _clear(args: argparse.Namespace) -> int:
    """Delete the index of PATH (the repository itself is not touched)."""
    index = _open(args)
    index.clear()
    _message(f"cleared the index of {index.root}")
    return 0


def _mcp(args: argparse.Namespace) -> int:
    try:
        from sharc.mcp_server import serve
    except ImportError as error:
        raise ImportError(f"{error}; install the MCP extra: pip install 'sharc[mcp]'") from error
    roots = args.roots or [os.getcwd()]
    serve(roots, transport="streamable-http" if args.http else "stdio",
          host=args.host, port=args.port, model=args.model)
    return 0


def _vectors_line(stats: IndexStats) -> str:
    """Both vector sets' progress, and the one search reads."""
    embeddable = stats.chunks - stats.keyword_only_chunks
    line = f"model {stats.embedded_chunks}/{embeddable}"
    if stats.fast_embedded_chunks:
        line += f", fast {stats.fast_embedded_chunks}/{embeddable}"
    return line + f"; search reads {stats.searched_vectors or 'none (keyword only)'}"


class _SemanticReady:
    """Passes progress on, and says once when semantic search became available on the fast
    vectors, with how long the default model should take for the rest (`sharc.fast_vectors`)."""

    def __init__(self, bar: Callable[[Progress], None]) -> None:
        self.bar = bar
        self._start: tuple[float, int] | None = None
        self._estimated = False

    def __call__(self, progress: Progress) -> None:
        self.bar(progress)
        if progress.phase == "ready" and progress.vectors == "fast":
            _message(
                f"\rsemantic search is ready (fast vectors) after {progress.elapsed:.1f} s;"
                " the default model now embeds in the background of this run, and search"
                " switches to its vectors when they cover every chunk. Stopping keeps a"
                " searchable index; the next `sharc index` goes on.\033[K"
            )
        elif progress.phase == "embedding" and progress.vectors == "default":
            self._estimate(progress)

    def _estimate(self, progress: Progress) -> None:
        now = time.monotonic()
        if self._start is None:
            self._start = (now, progress.chunks_done)
            return
        seconds, done = now - self._start[0], progress.chunks_done - self._start[1]
        if self._estimated or seconds < ESTIMATE_AFTER_SECONDS or done <= 0:
            return
        self._estimated = True
        rate = done / seconds
        left = (progress.chunks_total - progress.chunks_done) / rate
        if left >= 60:
            _message(f"\rthe default model: {rate:.0f} chunks/s, about {left / 60:.0f} minutes"
                     " left\033[K")


class _ProgressBar:
    """A one-line progress display on stderr when it is a terminal; quiet otherwise."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty() and not os.environ.get("NO_PROGRESS")
        self._last = 0.0

    def __call__(self, progress: Progress) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and progress.phase != "done":
            return
        self._last = now
        phase = progress.phase
        if phase == "embedding":
            detail = f"{progress.chunks_done}/{progress.chunks_total} chunks"
            phase = {"fast": "fast model", "default": "model"}.get(progress.vectors, phase)
        else:
            detail = f"{progress.files_done}/{progress.files_total} files"
        if progress.workers:
            detail += f", {progress.workers} workers"
        width = 30
        filled = int(width * progress.percent / 100)
        sys.stderr.write(
            f"\r{phase:<10} [{'#' * filled}{'.' * (width - filled)}]"
            f" {progress.percent:5.1f}%  {detail}  {progress.elapsed:.0f}s\033[K"
        )
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def _doc(function: object) -> str:
    return (getattr(function, "__doc__", "") or "").strip()


def _message(text: str) -> None:
    sys.stderr.write(text + "\n")
