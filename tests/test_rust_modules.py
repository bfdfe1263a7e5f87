"""The Rust house: every path among the core's modules points down, so no two files use each other.

Each file under `rust/` (the vendored tree-sitter and grammars aside) is one node, a directory
module's `mod.rs` included. A file uses another when a path in it resolves to a module the other
file holds: `use crate::a::b`, `use super::x`, `use child::y` and the same paths written inline
(`crate::walk::sniff(...)`, `component::chunk(...)`). `mod child;` alone is no edge: declaring a
child is not using it. Comments and literals are skipped; `super` inside an inline
`mod tests { ... }` is the file itself.
"""

from __future__ import annotations

import re
from pathlib import Path

RUST = Path(__file__).resolve().parent.parent / "rust"
SKIPPED = ("vendor", "grammars")

TOKEN = re.compile(
    r"""
      (?P<comment>//[^\n]*|/\*.*?\*/)
    | (?P<string>b?r(?P<hashes>\#*)".*?"(?P=hashes)|b?"(?:\\.|[^"\\])*")
    | (?P<char>b?'(?:\\.[^']*|[^'\\])')
    | (?P<use>\buse\s+(?P<tree>[^;]*);)
    | (?P<mod>\bmod\s+(?P<name>\w+)\s*(?P<opens>[{;]))
    | (?P<path>(?<![\w:])\w+(?:\s*::\s*\w+)+)
    | (?P<open>\{)
    | (?P<close>\})
    """,
    re.VERBOSE | re.DOTALL,
)


def module_files(root: Path) -> dict[tuple[str, ...], Path]:
    """Each module's path from the crate root (`()` for `lib.rs`) and the file that holds it."""
    modules = {}
    for path in sorted(root.rglob("*.rs")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[0] in SKIPPED:
            continue
        if parts in (("lib",), ("main",)):
            parts = ()
        elif parts[-1] == "mod":
            parts = parts[:-1]
        modules[parts] = path
    return modules


def expand(tree: str) -> list[str]:
    """The paths of a `use` tree: `a::{b, c::{d as e, *}}` gives `a::b`, `a::c::d`, `a::c::*`."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    if "{" not in tree:
        return [tree]
    prefix, _, rest = tree.partition("{")
    inner = rest[: rest.rindex("}")]
    items, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(inner[start:index])
            start = index + 1
    items.append(inner[start:])
    return [prefix + path for item in items if item for path in expand(item)]


def written_paths(path: Path, module: tuple[str, ...]) -> list[tuple[tuple[str, ...], list[str]]]:
    """Each path the file writes, with the module it is written in (inline modules included)."""
    text = path.read_text()
    found = []
    scopes: list[tuple[int, tuple[str, ...]]] = []
    depth = 0
    for match in TOKEN.finditer(text):
        current = scopes[-1][1] if scopes else module
        if match["use"]:
            for written in expand(match["tree"]):
                found.append((current, written.split("::")))
        elif match["mod"]:
            if match["opens"] == "{":
                depth += 1
                scopes.append((depth, current + (match["name"],)))
        elif match["path"]:
            found.append((current, re.sub(r"\s+", "", match["path"]).split("::")))
        elif match["open"]:
            depth += 1
        elif match["close"]:
            if scopes and scopes[-1][0] == depth:
                scopes.pop()
            depth -= 1
    return found


def resolve(
    current: tuple[str, ...], segments: list[str], modules: set[tuple[str, ...]]
) -> tuple[str, ...] | None:
    """The module a path written in `current` lands in, or None for another crate's path."""
    if segments[0] == "crate":
        absolute, rest = (), segments[1:]
    elif segments[0] in ("super", "self"):
        absolute, rest = current, segments
        while rest and rest[0] in ("super", "self"):
            absolute = absolute[:-1] if rest[0] == "super" else absolute
            rest = rest[1:]
    elif current + (segments[0],) in modules:
        absolute, rest = current, segments
    else:
        return None
    target = absolute
    for segment in rest:
        if target + (segment,) not in modules:
            break
        target = target + (segment,)
    return target


def use_graph(root: Path) -> dict[str, set[str]]:
    """Each file, relative to `root`, and the files it uses."""
    files = module_files(root)
    inline: dict[tuple[str, ...], Path] = {}
    written = {}
    for module, path in files.items():
        written[module] = written_paths(path, module)
        inline.update({scope: path for scope, _ in written[module] if scope not in files})
    holders = {**inline, **files}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        name = path.relative_to(root).as_posix()
        targets = {resolve(scope, segments, set(holders)) for scope, segments in written[module]}
        graph[name] = {
            holders[target].relative_to(root).as_posix()
            for target in targets
            if target is not None and holders[target] != path
        }
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly-connected components of more than one file (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = lowest[node] = len(order)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in order:
                visit(target)
                lowest[node] = min(lowest[node], lowest[target])
            elif target in stack:
                lowest[node] = min(lowest[node], order[target])
        if lowest[node] == order[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_the_graph_sees_every_kind_of_path() -> None:
    graph = use_graph(RUST)
    assert len(graph) > 50
    assert "chunk/driver.rs" in graph["chunk/component.rs"]  # use super::driver::...
    assert "parse.rs" in graph["graph/mod.rs"]  # use crate::parse::...
    assert "walk/extensionless.rs" in graph["walk/filter.rs"]  # super::extensionless::language(...)
    assert "chunk/component.rs" in graph["chunk/mod.rs"]  # component::chunk(...) in the parent
    assert "walk/mod.rs" not in graph["walk/changes.rs"]  # `use super::*` in its own tests


def test_a_new_circle_is_found(tmp_path: Path) -> None:
    (tmp_path / "lib.rs").write_text("mod a;\nmod b;\n")
    (tmp_path / "a.rs").write_text("use crate::b::{self as other, Thing};\n")
    (tmp_path / "b.rs").write_text(
        "// use crate::a; in a comment is no edge\nfn f() { let s = \"crate::a\"; super::a::g(); }\n"
    )
    assert circles(use_graph(tmp_path)) == [["a.rs", "b.rs"]]


def test_no_module_circle() -> None:
    found = circles(use_graph(RUST))
    assert not found, "module circles in rust/: " + "; ".join(" <-> ".join(c) for c in found)


def test_only_py_rs_knows_python() -> None:
    users = sorted(
        path.relative_to(RUST).as_posix()
        for path in module_files(RUST).values()
        if re.search(r"\bpyo3\b", path.read_text())
    )
    assert users == ["py.rs"]
