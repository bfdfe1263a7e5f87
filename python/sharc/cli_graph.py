"""`sharc refs`, `sharc callers`, `sharc callees`: the code graph of an index (`sharc.graph`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sharc.graph import Edge, Graph
    from sharc.index import Index

KINDS = ("call", "inherit", "import", "type")


def add_commands(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_index_options: Callable[[argparse.ArgumentParser], None],
) -> None:
    for name, run, help_text in (
        ("refs", _refs, "every place that refers to a symbol (calls, imports, types, bases)"),
        ("callers", _callers, "the call sites of a symbol"),
        ("callees", _callees, "the calls a symbol makes, resolved to their definitions"),
    ):
        parser = commands.add_parser(name, help=help_text, description=_doc(run))
        parser.add_argument("symbol", help="a name (load), a dotted name (Store.load) or a"
                            " chunk id (src/store.py::Store.load)")
        parser.add_argument("--path", default=".", help="the repository root (default: .)")
        parser.add_argument("--under", metavar="PREFIX",
                            help="only definitions of the symbol under this path prefix")
        if name == "refs":
            parser.add_argument("--kind", action="append", choices=KINDS, default=[],
                                help="only references of this kind (repeatable)")
        parser.add_argument("--min-confidence", type=float, default=0.0, metavar="P",
                            help="leave out edges less sure than this (0-1; default 0)")
        parser.add_argument("--limit", "-n", type=int, default=100,
                            help="edges to show (default 100)")
        parser.add_argument("--json", action="store_true", help="print one JSON object per edge")
        add_index_options(parser)
        parser.set_defaults(run=run)


def _refs(args: argparse.Namespace) -> int:
    """List every reference to SYMBOL: calls, imports, type mentions and base classes, each
    with the definitions it may mean (same file > same directory > imported > elsewhere) and
    how sure that is. Ambiguous references say so and list their candidates."""
    graph = _graph(args)
    edges = graph.references(args.symbol, kinds=args.kind, path=args.under)
    return _print(args, graph, edges, "references to")


def _callers(args: argparse.Namespace) -> int:
    """List the call sites of SYMBOL, most confident first, each with the chunk it is in."""
    graph = _graph(args)
    edges = graph.callers(args.symbol, path=args.under)
    return _print(args, graph, edges, "callers of")


def _callees(args: argparse.Namespace) -> int:
    """List the calls SYMBOL's definitions make, in source order, each resolved to the
    definitions it may mean (none: a library or builtin)."""
    graph = _graph(args)
    edges = graph.callees(args.symbol, path=args.under)
    return _print(args, graph, edges, "calls made by", outgoing=True)


def _graph(args: argparse.Namespace) -> Graph:
    from sharc.index import Index

    index: Index = Index.open(args.path, index_dir=args.index_dir, model=args.model)
    graph = index.graph()
    graph.check()
    return graph


def _print(
    args: argparse.Namespace, graph: Graph, edges: list[Edge], title: str, *,
    outgoing: bool = False,
) -> int:
    from sharc.graph_values import definition_dict, describe_candidates, edge_dict

    definitions = graph.definitions(args.symbol, path=args.under)
    shown = [e for e in edges if e.confidence >= args.min_confidence][: max(args.limit, 0)]
    out = sys.stdout
    if args.json:
        for edge in shown:
            out.write(json.dumps(edge_dict(edge)) + "\n")
    else:
        for edge in shown:
            source = edge.source.fqn or edge.source.symbol or "<module>" if edge.source else "?"
            flag = "  [ambiguous]" if edge.ambiguous else ""
            if outgoing:
                out.write(f"{edge.location}  {edge.name}  -> {describe_candidates(edge)}{flag}\n")
            else:
                out.write(f"{edge.location}  {edge.kind:<7} in {source}  {edge.confidence:.2f}"
                          f"  -> {describe_candidates(edge)}{flag}\n")
    where = ", ".join(definition_dict(d)["location"] for d in definitions[:5])  # type: ignore[misc]
    defined = (f"{len(definitions)} definition(s): {where}"
               + (", ..." if len(definitions) > 5 else "") if definitions
               else "no definition in the index")
    _message(f"{len(shown)} of {len(edges)} {title} {args.symbol}; {defined}")
    return 0


def _doc(function: object) -> str:
    return (getattr(function, "__doc__", "") or "").strip()


def _message(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
