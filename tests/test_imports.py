"""The house: every import among sharc's own modules points down, so no two modules import each other.

The import graph is read from the source with `ast`, not by importing it: every `import sharc.x`,
`from sharc.x import y` and relative import counts, at module level, inside functions and under
`TYPE_CHECKING` alike, since a type living one floor too high is a circle even when only the type
checker follows it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "sharc"


def module_files(package: Path) -> dict[str, Path]:
    """Each module's dotted name (`sharc.live.runner`; a package by its own name) and its file."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = ("sharc",) + path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_names(module: str, path: Path) -> set[str]:
    """The dotted names `module` imports: each module, and each `module.name` of a from-import."""
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # A relative import counts from the module's package (a package is its own).
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each sharc module and the sharc modules it imports (the root package, imported before any
    of its modules and importing them lazily, is left out as a target)."""
    modules = module_files(package)
    return {
        module: {
            name
            for name in imported_names(module, path)
            if name in modules and name not in (module, "sharc")
        }
        for module, path in modules.items()
    }


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly-connected components of more than one module (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = lowest[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in order:
                visit(target)
                lowest[module] = min(lowest[module], lowest[target])
            elif target in on_stack:
                lowest[module] = min(lowest[module], order[target])
        if lowest[module] == order[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return circles


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 30
    # A relative import (keyword.py: `from .errors import ...`) and an import inside a function
    # (cli.py: `from sharc.chunking import chunk_files`) are both edges.
    assert "sharc.errors" in graph["sharc.keyword"]
    assert "sharc.chunking" in graph["sharc.cli"]


def test_no_import_circle() -> None:
    circles = import_circles(import_graph(PACKAGE))
    assert not circles, "import circles among sharc modules: " + "; ".join(
        " <-> ".join(circle) for circle in circles
    )
