"""sharc's MCP tools, one method each of `SharcTools`, with the text they answer in.

The tools keep the names and parameters of claude-context's (`index_codebase`, `search_code`,
...), so that existing prompts work; `sharc.mcp_server.build_server` registers every name in
`TOOLS`. Their docstrings and `Field` descriptions are what the client's model reads.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from sharc.errors import IndexLockedError, NotIndexedError, PathNotAllowedError, SharcError
from sharc.live import LiveIndex, LiveStatus
from sharc.mcp_service import AllowedRoots, SharcService

MAX_RESULTS = 50
MAX_CHUNK_LINES = 400
MAX_WAIT_SECONDS = 600.0
POLL_SECONDS = 0.25

_LOCATION = re.compile(
    r"^(?P<file>.+?)"
    r"(?::(?P<start>\d+)(?:-(?P<end>\d+))?|#L(?P<hstart>\d+)(?:-L?(?P<hend>\d+))?)?$"
)


#: The tools, by name, in the order a client lists them.
TOOLS = (
    "index_codebase",
    "search_code",
    "get_indexing_status",
    "clear_index",
    "sync_index",
    "start_watch",
    "stop_watch",
    "get_chunk",
    "find_references",
    "get_call_graph",
)


class SharcTools:
    """The tools over one `SharcService`; a path a tool is given goes through its allowed
    roots first."""

    def __init__(self, service: SharcService) -> None:
        self.service = service

    def _resolve(self, path: str) -> tuple[Path, Path]:
        try:
            return self.service.allowed.resolve(path)
        except (PathNotAllowedError, FileNotFoundError) as error:
            raise ToolError(f"{type(error).__name__}: {error}") from error

    async def index_codebase(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root to index")],
        force: Annotated[bool, Field(description="Rebuild from scratch")] = False,
        splitter: Annotated[
            str, Field(description="Accepted for compatibility; sharc always splits by symbol")
        ] = "ast",
        customExtensions: Annotated[  # claude-context's parameter names
            list[str], Field(description="Extra file extensions to index, e.g. ['.vue']")
        ] = [],  # noqa: B006 - the schema default; never mutated
        ignorePatterns: Annotated[
            list[str], Field(description="Extra gitignore-style patterns to leave out")
        ] = [],  # noqa: B006
        waitSeconds: Annotated[
            float, Field(description="Wait up to this long for indexing to finish (default 0)")
        ] = 0.0,
        ctx: Context | None = None,
    ) -> str:
        """Index a repository for search_code, in the background, and keep it fresh.

        Returns at once with the status: the first run indexes everything, later runs only what
        changed. A file watcher then re-indexes changed files by itself. Follow progress with
        get_indexing_status; search_code works meanwhile on what is indexed so far.
        """
        del splitter
        root, target = self._resolve(path)
        live = await anyio.to_thread.run_sync(
            lambda: self.service.live(
                root, ignore_patterns=ignorePatterns, custom_extensions=customExtensions
            )
        )
        started = await anyio.to_thread.run_sync(lambda: live.start(force=force))
        await anyio.to_thread.run_sync(live.watch)
        if waitSeconds > 0:
            status = await _wait(live, waitSeconds, ctx)
        else:
            status = replace(await anyio.to_thread.run_sync(live.status), message=started.message)
        scope = "" if target == root else f" (the whole root {root}, which holds {target})"
        if status.busy:
            head = (
                f"{'Rebuilding' if force else 'Indexing'} {root}{scope} in the background;"
                " search_code already works on what is indexed so far, and"
                " get_indexing_status shows progress."
            )
        else:
            head = f"Index of {root}{scope} is up to date."
        return f"{head} Watching for changes.\n{_describe(status)}"

    async def search_code(
        self,
        path: Annotated[str, Field(description="Absolute path of an indexed repository, or of"
                                                " a directory or file in it to search under")],
        query: Annotated[str, Field(
            description="A natural-language question, an identifier or a file's name; an"
            " identifier alone, or asked about ('where is X defined', 'the X class'), in any case"
            " or convention, finds its definitions first; a file's name or path ('app.ts',"
            " 'the app file') finds that file first; a file and line ('src/app.ts:42', a stack"
            " trace) finds the code at that line first; an error message or a quoted string"
            " finds the code that holds it first"
        )],
        limit: Annotated[int, Field(description="How many files' results, 1-50")] = 3,
        extensionFilter: Annotated[
            list[str], Field(description="Only files with these extensions, e.g. ['.ts', '.py']")
        ] = [],  # noqa: B006
        includeGraph: Annotated[
            bool, Field(description="Also list what calls each top result and what it calls")
        ] = False,
        explain: Annotated[
            bool, Field(description="Also say why each result ranks where it does: where the"
                        " keyword and vector searches placed it and what each ranking stage"
                        " did to its score")
        ] = False,
    ) -> str:
        """Search indexed code by meaning or identifier (hybrid semantic + keyword).

        Each result is one file's best hit: its location (path:start-end), a 0-1 score, the
        symbol, the context header and the code (and with includeGraph, "called by" and
        "calls" lines; with explain, a "why" line), then the file's other hits that score close to it, by location and
        name. Works while indexing runs, on what is indexed so far.
        """
        root, target = self._resolve(path)
        if not query.strip():
            raise ToolError("the query is empty")
        limit = max(1, min(MAX_RESULTS, int(limit)))
        extensions = [e.strip() for e in extensionFilter if e.strip()]
        live = self.service.live(root)
        prefix = None if target == root else target.relative_to(root).as_posix()
        status = await anyio.to_thread.run_sync(live.status)
        try:
            response = await anyio.to_thread.run_sync(
                lambda: live.search(
                    query, limit=limit, extensions=extensions, path_prefix=prefix,
                    mode="hybrid" if self.service.embed else "keyword", graph=includeGraph,
                    explain=explain,
                )
            )
        except NotIndexedError as error:
            if status.busy or status.other_process:
                return (
                    f"Indexing of {root} is in progress ({_progress_line(status)}); nothing is"
                    " searchable yet. Try again in a few seconds."
                )
            raise ToolError(f"{error}. Call index_codebase first.") from error
        except SharcError as error:
            raise ToolError(f"{type(error).__name__}: {error}") from error
        return _format_results(root, query, response, status)

    async def get_indexing_status(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root")],
    ) -> str:
        """Indexing progress and index state: phase, files and chunks done/total, percent,
        elapsed seconds, errors, last sync time, index size, watched or not, and the files
        whose syntax errors keep their previous version indexed (syntax_held)."""
        root, _ = self._resolve(path)
        status = await anyio.to_thread.run_sync(self.service.live(root).status)
        return _describe(status)

    async def clear_index(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root")],
    ) -> str:
        """Delete a repository's index (cancels running indexing and stops watching first)."""
        root, _ = self._resolve(path)
        live = self.service.live(root)
        try:
            await anyio.to_thread.run_sync(live.clear)
        except IndexLockedError as error:
            raise ToolError(f"cannot clear the index now: {error}") from error
        except SharcError as error:
            raise ToolError(str(error)) from error
        return f"Cleared the index of {root}. Watching stopped; index_codebase rebuilds it."

    async def sync_index(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root")],
        waitSeconds: Annotated[
            float, Field(description="Wait up to this long for the sync to finish (default 10)")
        ] = 10.0,
        ctx: Context | None = None,
    ) -> str:
        """Re-index what changed on disk now, without waiting for the watcher."""
        root, _ = self._resolve(path)
        live = self.service.live(root)
        status = await anyio.to_thread.run_sync(live.sync)
        if waitSeconds > 0:
            status = await _wait(live, waitSeconds, ctx)
        head = "Sync running in the background." if status.busy else "Synced."
        return f"{head}\n{_describe(status)}"

    async def start_watch(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root")],
    ) -> str:
        """Re-index changed files automatically, 2 s after the last change."""
        root, _ = self._resolve(path)
        live = self.service.live(root)
        status = await anyio.to_thread.run_sync(live.status)
        if not status.indexed and not status.busy:
            raise ToolError(f"{root} is not indexed yet; call index_codebase (it also watches)")
        await anyio.to_thread.run_sync(live.watch)
        return f"Watching {root} (changes are indexed {live.debounce:g} s after they settle)."

    async def stop_watch(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root")],
    ) -> str:
        """Stop re-indexing changed files automatically (sync_index still works)."""
        root, _ = self._resolve(path)
        await anyio.to_thread.run_sync(self.service.live(root).unwatch)
        return f"Stopped watching {root}."

    async def get_chunk(
        self,
        path: Annotated[str, Field(description="Absolute path of the repository root")],
        location: Annotated[str, Field(description="'file.py:10-20', 'file.py:15' (the chunk"
                                                   " around line 15) or 'file.py'")],
        contextLines: Annotated[
            int, Field(description="Neighbouring lines to add on each side (0-50)")
        ] = 3,
    ) -> str:
        """Read code by location, with a few neighbouring lines."""
        root, _ = self._resolve(path)
        return await anyio.to_thread.run_sync(
            lambda: _read_chunk(self.service.allowed, root, location, max(0, min(50, contextLines)))
        )

    async def find_references(
        self,
        path: Annotated[str, Field(description="Absolute path of an indexed repository")],
        symbol: Annotated[str, Field(description="A name ('load'), a dotted name"
                                                 " ('Store.load') or a chunk id")],
        kinds: Annotated[
            list[str], Field(description="Only these kinds: call, import, type, inherit")
        ] = [],  # noqa: B006
        limit: Annotated[int, Field(description="How many references, 1-500")] = 100,
    ) -> str:
        """Every place that refers to a symbol: calls, imports, type uses, base classes.

        Each reference names the chunk it is in and the definitions it may mean, ranked by
        scope (same file > same directory > imported module > elsewhere) with a confidence;
        ambiguous references say so and list their candidates instead of guessing.
        """
        root, _ = self._resolve(path)
        unknown = sorted(set(kinds) - {"call", "import", "type", "inherit"})
        if unknown:
            raise ToolError(f"unknown kinds {unknown}; use call, import, type, inherit")
        graph = await _graph_of(self.service, root)
        edges = await anyio.to_thread.run_sync(lambda: graph.references(symbol, kinds=kinds))
        return _format_edges(graph, symbol, edges, max(1, min(500, int(limit))))

    async def get_call_graph(
        self,
        path: Annotated[str, Field(description="Absolute path of an indexed repository")],
        symbol: Annotated[str, Field(description="A name ('load'), a dotted name"
                                                 " ('Store.load') or a chunk id")],
        depth: Annotated[int, Field(description="How many hops to follow, 1-5")] = 2,
        direction: Annotated[
            Literal["callees", "callers"],
            Field(description="'callees' (what it calls) or 'callers' (what calls it)"),
        ] = "callees",
    ) -> str:
        """The call graph around a symbol, as JSON: each node a definition with its depth and
        its edges (call sites, each with candidates and a confidence). Only sure edges are
        followed to the next depth; ambiguous ones are listed but not followed."""
        root, _ = self._resolve(path)
        graph = await _graph_of(self.service, root)
        depth = max(1, min(5, int(depth)))
        nodes = await anyio.to_thread.run_sync(
            lambda: graph.call_graph(symbol, depth=depth, direction=direction)
        )
        if not nodes:
            return f"No definition of {symbol!r} in the index of {root}."
        from sharc.graph_values import definition_dict, edge_dict

        data = [
            {**definition_dict(node.definition), "depth": node.depth,
             "edges": [edge_dict(edge, max_candidates=3) for edge in node.edges]}
            for node in nodes
        ]
        return (f"Call graph of {symbol!r} ({direction}, depth {depth}): {len(nodes)} node(s).\n"
                + json.dumps(data, indent=1))


async def _graph_of(service: SharcService, root: Path) -> Any:
    """The code graph of `root`'s index; a tool error says how to get one."""
    try:
        graph = await anyio.to_thread.run_sync(lambda: service.live(root).graph())
        await anyio.to_thread.run_sync(graph.check)
    except NotIndexedError as error:
        raise ToolError(f"{error}. Call index_codebase first.") from error
    except SharcError as error:
        raise ToolError(f"{type(error).__name__}: {error}") from error
    return graph


def _format_edges(graph: Any, symbol: str, edges: list[Any], limit: int) -> str:
    from sharc.graph_values import describe_candidates

    definitions = graph.definitions(symbol)
    head = (f"{len(edges)} reference(s) to {symbol!r}; defined at "
            + (", ".join(d.location for d in definitions[:5]) or "no place in the index")
            + ".")
    lines = [head]
    for edge in edges[:limit]:
        source = edge.source.fqn or edge.source.symbol or "<module>" if edge.source else "?"
        flag = " [ambiguous]" if edge.ambiguous else ""
        lines.append(f"{edge.location}  {edge.kind} in {source}  confidence {edge.confidence:.2f}"
                     f"  -> {describe_candidates(edge)}{flag}")
    if len(edges) > limit:
        lines.append(f"... {len(edges) - limit} more (raise limit)")
    return "\n".join(lines)


async def _wait(live: LiveIndex, seconds: float, ctx: Context | None) -> LiveStatus:
    """Wait for the job to end (at most `seconds`), reporting progress to the caller."""
    deadline = time.monotonic() + min(seconds, MAX_WAIT_SECONDS)
    reported = -1.0
    while True:
        status = await anyio.to_thread.run_sync(live.status)
        if ctx is not None and status.percent != reported:
            reported = status.percent
            try:
                await ctx.report_progress(status.percent, 100.0, _progress_line(status))
            except Exception:  # noqa: BLE001 - progress is best effort
                ctx = None
        if not status.busy or time.monotonic() >= deadline:
            return status
        await anyio.sleep(POLL_SECONDS)


def _progress_line(status: LiveStatus) -> str:
    if status.state == "waiting" or (status.other_process and not status.phase):
        other = status.other_process or {}
        pid = other.get("pid", "?")
        detail = f", {other['phase']} {other.get('percent', 0):.0f}%" if "phase" in other else ""
        return f"being indexed by another process (pid {pid}{detail})"
    parts = [status.phase or status.state]
    if status.phase == "embedding" and status.vectors:
        parts[0] = {"fast": "embedding (fast model)", "default": "embedding (model)"}.get(
            status.vectors, parts[0]
        )
    if status.phase == "embedding" and status.chunks_total:
        parts.append(f"{status.chunks_done}/{status.chunks_total} chunks")
    elif status.files_total:
        parts.append(f"{status.files_done}/{status.files_total} files")
    parts.append(f"{status.percent:.0f}%")
    return " ".join(parts)


def _describe(status: LiveStatus) -> str:
    """A one-line summary, then the status as JSON (the fields a client may want to parse)."""
    if status.busy:
        summary = f"{status.state}: {_progress_line(status)}, {status.elapsed:.1f} s elapsed."
    elif status.state == "not_indexed":
        summary = "not indexed: call index_codebase."
    else:
        summary = (
            f"{status.state}: {status.files} files, {status.chunks} chunks"
            f" ({status.embedded_chunks} embedded), index {status.index_size / 1e6:.1f} MB."
        )
    if status.other_process and not status.busy:
        summary += f" {_progress_line(status).capitalize()}."
    if status.syntax_held:
        summary += (
            f" {len(status.syntax_held)} file(s) with syntax errors keep their previous version:"
            f" {', '.join(status.syntax_held)}."
        )
    data = status.as_dict()
    if status.last_sync:
        data["last_sync_iso"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(status.last_sync))
    return summary + "\n" + json.dumps(data, indent=1)


def _format_results(root: Path, query: str, response: Any, status: LiveStatus) -> str:
    lines = []
    if not len(response):
        lines.append(f"No results for {query!r} in {root}.")
    else:
        arms = " + ".join(response.arms) or "none"
        if response.vectors:
            arms += f"; {response.vectors} vectors"
        lines.append(f"Found {len(response)} result(s) for {query!r} in {root} ({arms}).")
    if status.busy or status.other_process:
        lines.append(
            f"Note: indexing is still running ({_progress_line(status)}); results cover what is"
            " indexed so far."
        )
    elif not response.complete:  # and no indexing runs: nothing is computing them
        lines.append(
            "Note: the index has vectors for part of its chunks only (none where it was built"
            " keyword-only); semantic results are partial until index_codebase computes them."
        )
    if response.vectors == "fast" and status.searched_vectors == "fast" and status.busy:
        lines.append(
            "Note: semantic results use the fast model's vectors until the default model has"
            " embedded every chunk."
        )
    for rank, hit in enumerate(response, 1):
        name = hit.fqn or hit.symbol
        lines.append("")
        lines.append(
            f"{rank}. Location {hit.location}  score {hit.score:.2f}  {hit.kind}"
            f"{' ' + name if name else ''}  [{hit.language}]"
        )
        header = hit.header.strip()
        if header:
            lines.append(header if header.startswith("#") else f"Context: {header}")
        if hit.called_by:
            lines.append(f"Called by: {', '.join(hit.called_by)}")
        if hit.calls:
            lines.append(f"Calls: {', '.join(hit.calls)}")
        if hit.explanation is not None:
            lines.append(f"Why: {hit.explanation.summary()}")
        fence = "````" if "```" in hit.code else "```"
        lines.append(f"{fence}{hit.language}")
        lines.append(hit.code.rstrip("\n"))
        lines.append(fence)
        for other in hit.same_file_hits:
            label = other.fqn or other.symbol
            lines.append(
                f"Also in this file: {other.location}  score {other.score:.2f}  {other.kind}"
                f"{' ' + label if label else ''} (get_chunk reads it)"
            )
    return "\n".join(lines)


def _read_chunk(allowed: AllowedRoots, root: Path, location: str, context: int) -> str:
    match = _LOCATION.match(location.strip())
    if match is None:
        raise ToolError(f"cannot read location {location!r}; use 'file.py:10-20' or 'file.py:15'")
    file_part = match["file"]
    file_path = Path(file_part)
    try:
        _, real = allowed.resolve(str(file_path if file_path.is_absolute() else root / file_path))
    except (PathNotAllowedError, FileNotFoundError) as error:
        raise ToolError(f"{type(error).__name__}: {error}") from error
    if not real.is_file():
        raise ToolError(f"not a file: {real}")
    try:
        text = real.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise ToolError(f"cannot read {real}: {error.strerror or error}") from error
    lines = text.splitlines()
    relative = real.relative_to(root).as_posix() if root in real.parents else str(real)
    start_text = match["start"] or match["hstart"]
    end_text = match["end"] or match["hend"]
    kind = ""
    if start_text is None:
        start, end = 1, len(lines)
    elif end_text is None:
        start, end, kind = _enclosing_chunk(relative, text, int(start_text))
    else:
        start, end = int(start_text), int(end_text)
    if not lines:
        return f"{relative} is empty."
    start = max(1, min(start, len(lines)))
    end = max(start, min(end, len(lines)))
    cut = ""
    if end - start + 1 > MAX_CHUNK_LINES:
        end = start + MAX_CHUNK_LINES - 1
        cut = f" (cut at {MAX_CHUNK_LINES} lines; ask for {relative}:{end + 1}-... for more)"
    first, last = max(1, start - context), min(len(lines), end + context)
    width = len(str(last))
    body = "\n".join(
        f"{number:>{width}}{'|' if start <= number <= end else ':'} {lines[number - 1]}"
        for number in range(first, last + 1)
    )
    note = f" ({kind})" if kind else ""
    return (
        f"Location {relative}:{start}-{end}{note}; lines {first}-{last} shown,"
        f" '|' marks the requested range{cut}.\n{body}"
    )


def _enclosing_chunk(relative: str, text: str, line: int) -> tuple[int, int, str]:
    """The smallest chunk of the file that holds `line`; the line alone when none does."""
    try:
        from sharc.chunking import chunk_text

        chunks = chunk_text(relative, text)
    except Exception:  # noqa: BLE001 - an unknown type or a chunker problem: show the line
        return line, line, ""
    holding = [c for c in chunks if c.start_line <= line <= c.end_line]
    if not holding:
        return line, line, ""
    best = min(holding, key=lambda c: c.end_line - c.start_line)
    name = best.fqn or best.symbol
    return best.start_line, best.end_line, f"{best.kind} {name}".strip()
