"""The code graph as plain values and one-line descriptions, for JSON and text: what the CLI
(`sharc callers`, `callees`, `refs`) and the MCP tools print."""

from __future__ import annotations

from sharc.graph import Definition, Edge


def definition_dict(definition: Definition) -> dict[str, object]:
    return {
        "id": definition.id, "location": definition.location, "kind": definition.kind,
        "symbol": definition.symbol, "fqn": definition.fqn,
    }


def edge_dict(edge: Edge, *, max_candidates: int = 5) -> dict[str, object]:
    """An edge as plain values: where, from which chunk, what it may mean."""
    return {
        "location": edge.location, "path": edge.path, "line": edge.line, "name": edge.name,
        "kind": edge.kind, "confidence": edge.confidence, "ambiguous": edge.ambiguous,
        "from": definition_dict(edge.source) if edge.source else None,
        "candidates": [
            {**definition_dict(c.definition), "confidence": c.confidence, "scope": c.scope}
            for c in edge.candidates[:max_candidates]
        ],
        "more_candidates": max(0, len(edge.candidates) - max_candidates),
    }


def describe_candidates(edge: Edge, *, limit: int = 3) -> str:
    """`Store.load (same file, 0.70), load (same directory, 0.26), +2 more`; or `outside
    the index` when the name has no definition here."""
    if not edge.candidates:
        return "not defined in the index"
    shown = [
        f"{c.definition.fqn or c.definition.symbol} ({c.scope}, {c.confidence:.2f})"
        for c in edge.candidates[:limit]
    ]
    extra = len(edge.candidates) - limit
    return ", ".join(shown) + (f", +{extra} more" if extra > 0 else "")
