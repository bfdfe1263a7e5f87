"""sharc's MCP server: index, search and watch the roots it was started with.

    sharc mcp [ROOTS...]                 # stdio, for an AI assistant
    sharc mcp --http --port 8765 ROOT    # streamable HTTP
    python -m sharc.mcp_server ROOT

The tools keep the names and parameters of claude-context's so that existing prompts work:
`index_codebase`, `search_code`, `get_indexing_status`, `clear_index`, plus `sync_index`,
`start_watch`, `stop_watch` and `get_chunk`, and the code graph's `find_references` and
`get_call_graph`. Indexing always runs in the background: a tool
call returns at once (or after the `waitSeconds` it was asked to wait, reporting progress to a
client that sent a progress token), and `search_code` answers from what is indexed so far.

Only the roots given at start may be indexed or read. A path is resolved (symlinks and `..`
included) before it is checked, so neither can lead out of a root; a path inside a root stands
for that root (and scopes `search_code` to the path).

Environment: `SHARC_CACHE_DIR` moves the indexes; `SHARC_WATCH_DEBOUNCE` sets the watcher's
quiet period in seconds (default 2); `SHARC_KEYWORD_ONLY=1` serves keyword (BM25) search only,
without loading the embedding model (fast indexing; identifiers rather than questions);
`SHARC_MODEL` (or `--model`) names the model of new indexes: `fast` for the static vectors, a
model directory, or unset for the default model (an index keeps the model it was built with).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Literal

from mcp.server.mcpserver import MCPServer

from sharc.live import DEFAULT_DEBOUNCE
from sharc.mcp_service import AllowedRoots as AllowedRoots
from sharc.mcp_service import SharcService
from sharc.mcp_tools import TOOLS, SharcTools

Transport = Literal["stdio", "streamable-http"]


INSTRUCTIONS = """\
sharc searches code by meaning and by identifier (hybrid semantic + BM25, symbol-level chunks).
Call index_codebase(path) once per repository: it returns at once and indexes in the background
(later calls are incremental, and a watcher keeps the index fresh). search_code(path, query)
works while indexing runs, on what is indexed so far. get_indexing_status(path) shows progress.
Use get_chunk(path, "file.py:10-20") to read more around a result. find_references(path, symbol)
lists calls, imports, type uses and base classes of a symbol; get_call_graph(path, symbol, depth)
walks its callees or callers. Edges carry a confidence; ambiguous ones list their candidates."""


def build_server(
    roots: Sequence[str | os.PathLike[str]],
    *,
    debounce: float | None = None,
    embed: bool | None = None,
    model: str | None = None,
) -> tuple[MCPServer, SharcService]:
    """The MCP server with sharc's tools, and the service it closes on shutdown.

    `model` (default: `SHARC_MODEL`) is the model of the indexes it builds (see `Index.open`).
    """
    if debounce is None:
        debounce = float(os.environ.get("SHARC_WATCH_DEBOUNCE", DEFAULT_DEBOUNCE))
    if embed is None:
        embed = os.environ.get("SHARC_KEYWORD_ONLY", "").lower() in ("", "0", "false", "no")
    if model is None:
        model = os.environ.get("SHARC_MODEL") or None
    service = SharcService(roots, debounce=debounce, embed=embed, model=model)
    server = MCPServer("sharc", instructions=INSTRUCTIONS)

    tools = SharcTools(service)
    for name in TOOLS:
        server.tool()(getattr(tools, name))
    return server, service


def serve(
    roots: Sequence[str | os.PathLike[str]],
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    model: str | None = None,
) -> None:
    """Serve sharc's tools for `roots` until the client disconnects (or Ctrl-C).

    Roots indexed before are synced and watched from the start.
    """
    server, service = build_server(roots, model=model)
    try:
        service.resume()
        if transport == "stdio":
            server.run("stdio")
        elif transport == "streamable-http":
            server.run("streamable-http", host=host, port=port)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'streamable-http'")
    finally:
        service.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sharc.mcp_server", description="Serve sharc's MCP tools."
    )
    parser.add_argument("roots", nargs="*", help="roots the server may index (default: cwd)")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", help="model of new indexes: 'fast', or a model directory"
                        " (default: SHARC_MODEL, else the bundled all-MiniLM-L6-v2)")
    args = parser.parse_args(argv)
    try:
        serve(args.roots or [os.getcwd()], "streamable-http" if args.http else "stdio",
              args.host, args.port, model=args.model)
    except KeyboardInterrupt:
        return 130
    except (NotADirectoryError, ValueError) as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["AllowedRoots", "build_server", "serve"]
