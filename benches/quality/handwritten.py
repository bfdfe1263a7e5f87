"""Hand-written repository queries: `benches/queries/<package>.json`, over the original sources.

Each file pins its package (`name`, `version`, matching `sdists.PACKAGES`) and lists queries in
the style users ask, with targets: a file, a 1-based inclusive line span, and the symbol the span
is the definition of (Python: dotted qualified name, e.g. `Session.send`; Rust: `Type::method`,
`fn_name`, `StructName`, `impl Trait for Type`). The span of a symbol is its definition with
what belongs to it: decorators (Python); doc comments and attributes (Rust).

`python -m benches.quality.handwritten` checks every target against the extracted sdist (the
span must be exactly the symbol's definition); `--fill` writes the spans from the symbols.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

from benches.quality import sdists
from benches.quality.dataset import QUERIES_DIR, Dataset, Query, Target, split_lines


class SymbolError(LookupError):
    """A symbol that is not defined, or defined more than once, in a file."""


# -- symbol spans --------------------------------------------------------------------------


def python_symbols(source: str) -> dict[str, list[tuple[int, int]]]:
    """Qualified name -> spans of its definitions (typing overloads left out)."""
    found: dict[str, list[tuple[int, int]]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                overload = any(
                    (isinstance(d, ast.Name) and d.id == "overload")
                    or (isinstance(d, ast.Attribute) and d.attr == "overload")
                    for d in child.decorator_list
                )
                if not overload:
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    found.setdefault(name, []).append((start, child.end_lineno))  # type: ignore[arg-type]
                visit(child, name + ".")
            elif not isinstance(child, (ast.Lambda,)):
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


_RUST_NAMED = {
    "function_item",
    "struct_item",
    "enum_item",
    "trait_item",
    "mod_item",
    "type_item",
    "const_item",
    "static_item",
    "union_item",
    "function_signature_item",
    "macro_definition",
}


def rust_symbols(source: str) -> dict[str, list[tuple[int, int]]]:
    """Qualified name -> spans, each with the doc comments and attributes above it."""
    from benches.quality.strip import _rust_parser

    data = source.encode("utf-8")
    found: dict[str, list[tuple[int, int]]] = {}

    def text(node) -> str:  # type: ignore[no-untyped-def]
        return data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def span(node) -> tuple[int, int]:  # type: ignore[no-untyped-def]
        row = node.start_point[0]
        sibling = node.prev_sibling
        while sibling is not None and (
            sibling.type == "attribute_item"
            or (
                sibling.type in ("line_comment", "block_comment")
                and text(sibling).startswith(("///", "/**"))
            )
        ):
            row = sibling.start_point[0]
            sibling = sibling.prev_sibling
        return row + 1, node.end_point[0] + 1

    def visit(node, prefix: str) -> None:  # type: ignore[no-untyped-def]
        for child in node.children:
            if child.type in _RUST_NAMED:
                name_node = child.child_by_field_name("name")
                if name_node is None:
                    continue
                name = prefix + text(name_node)
                found.setdefault(name, []).append(span(child))
                if child.type in ("mod_item", "trait_item"):
                    visit(child, name + "::")
            elif child.type == "impl_item":
                impl_type = re.sub(r"<.*>", "", text(child.child_by_field_name("type")))
                trait = child.child_by_field_name("trait")
                label = (
                    f"impl {re.sub(r'<.*>', '', text(trait))} for {impl_type}"
                    if trait
                    else f"impl {impl_type}"
                )
                found.setdefault(prefix + label, []).append(span(child))
                body = child.child_by_field_name("body")
                if body is not None:
                    visit(body, f"{prefix}{impl_type}::")
            elif child.type in ("declaration_list", "source_file"):
                visit(child, prefix)

    visit(_rust_parser().parse(data).root_node, "")
    return found


def symbol_span(root: Path, path: str, symbol: str) -> tuple[int, int]:
    """The span of `symbol` in `root/path`; `name#2` picks the second of several definitions."""
    source = (root / path).read_text(encoding="utf-8")
    table = rust_symbols(source) if path.endswith(".rs") else python_symbols(source)
    name, _, nth = symbol.partition("#")
    spans = table.get(name, [])
    if not spans:
        raise SymbolError(f"{path}: no definition of {name}")
    if nth:
        index = int(nth) - 1
        if not 0 <= index < len(spans):
            raise SymbolError(f"{path}: {name} has {len(spans)} definitions, not {nth}")
        return spans[index]
    if len(spans) > 1:
        raise SymbolError(f"{path}: {name} is defined {len(spans)} times; write {name}#N")
    return spans[0]


# -- query files ---------------------------------------------------------------------------


def query_files() -> list[Path]:
    return sorted(QUERIES_DIR.glob("*.json"))


def read_query_file(path: Path) -> dict:  # type: ignore[type-arg]
    payload = json.loads(path.read_text(encoding="utf-8"))
    for key in ("package", "version", "queries"):
        if key not in payload:
            raise ValueError(f"{path}: missing {key!r}")
    return payload  # type: ignore[no-any-return]


def package_of(payload: dict) -> sdists.Package:  # type: ignore[type-arg]
    pkg = sdists.package(payload["package"])
    if pkg.version != payload["version"]:
        raise ValueError(
            f"{payload['package']}: queries pin {payload['version']}, sdists {pkg.version}"
        )
    return pkg


def load(path: Path, root: Path | None = None) -> Dataset:
    """The hand-written set of one query file, over the original sources at `root`."""
    payload = read_query_file(path)
    pkg = package_of(payload)
    queries = [
        Query(
            id=str(raw["id"]),
            text=str(raw["text"]),
            targets=tuple(
                Target(str(t["path"]), t.get("start_line"), t.get("end_line"))
                for t in raw["targets"]
            ),
            kind=str(raw.get("kind", "")),
        )
        for raw in payload["queries"]
    ]
    return Dataset(
        name=f"handwritten/{pkg.slug}",
        set="handwritten",
        root=root or sdists.source_root(pkg),
        hit_rule="overlap",
        queries=queries,
        version=sdists.sdist_version(pkg),
        meta={"language": payload.get("language", pkg.language), "query_file": path.name},
    )


def check(path: Path, root: Path | None = None, *, fill: bool = False) -> list[str]:
    """Problems with the targets of one query file; with `fill`, write spans from symbols."""
    payload = read_query_file(path)
    pkg = package_of(payload)
    root = root or sdists.source_root(pkg)
    problems: list[str] = []
    seen_ids: set[str] = set()
    for raw in payload["queries"]:
        qid = raw.get("id", "?")
        if qid in seen_ids:
            problems.append(f"{qid}: duplicate id")
        seen_ids.add(qid)
        if not raw.get("targets"):
            problems.append(f"{qid}: no targets")
        for target in raw.get("targets", []):
            file = root / target["path"]
            if not file.is_file():
                problems.append(f"{qid}: no file {target['path']}")
                continue
            n_lines = len(split_lines(file.read_text(encoding="utf-8")))
            symbol = target.get("symbol")
            if symbol:
                try:
                    start, end = symbol_span(root, target["path"], symbol)
                except (SymbolError, SyntaxError) as exc:
                    problems.append(f"{qid}: {exc}")
                    continue
                if fill:
                    target["start_line"], target["end_line"] = start, end
                elif (target.get("start_line"), target.get("end_line")) != (start, end):
                    problems.append(
                        f"{qid}: {target['path']} {symbol} is at {start}-{end}, "
                        f"not {target.get('start_line')}-{target.get('end_line')}"
                    )
            if (
                "start_line" in target
                and not 1 <= target["start_line"] <= target["end_line"] <= n_lines
            ):
                problems.append(
                    f"{qid}: span {target['start_line']}-{target['end_line']} outside "
                    f"{target['path']} ({n_lines} lines)"
                )
    if fill and not problems:
        path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="query files (default: all)")
    parser.add_argument("--fill", action="store_true", help="write spans from the symbols")
    args = parser.parse_args(argv)
    failed = False
    for path in args.files or query_files():
        payload = read_query_file(path)
        sdists.extract(package_of(payload))
        problems = check(path, fill=args.fill)
        print(
            f"{path.name}: {len(payload['queries'])} queries, {len(problems)} problems",
            file=sys.stderr,
        )
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
