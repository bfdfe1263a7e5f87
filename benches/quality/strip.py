"""Strip documentation from source, and find documented functions: the CodeSearchNet method.

Python: every docstring (module, class, function) goes; a docstring that is its block's only
statement becomes `pass`, one on its own lines is deleted with its lines, one sharing a line with
code is replaced by `pass` in place. The result must parse and hold no docstring.

Rust: every doc comment (`///`, `//!`, `/** */`, `/*! */`) goes with its lines; a doc comment
after code on the same line is cut from the line.

`python_functions` / `rust_functions` list the functions of the original text with their doc
text, zipped with the same functions in the stripped text for their spans there.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from functools import cache

from benches.quality.dataset import split_lines

_DOC_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


class StripError(ValueError):
    """A file whose stripped copy would not parse or would still hold documentation."""


@dataclass(frozen=True)
class Function:
    """A function in a stripped file: its span there and the documentation it had."""

    name: str
    qualname: str
    start_line: int  # first decorator/attribute line, 1-based, in the stripped text
    end_line: int
    body_lines: int  # lines of the body in the stripped text
    doc: str  # the docstring / doc comment of the original, cleaned; "" when none
    in_test: bool = False  # inside a test module/function (Rust: #[test], #[cfg(test)] mod)


# -- Python --------------------------------------------------------------------------------


def _docstring_nodes(tree: ast.AST) -> list[tuple[ast.Expr, int]]:
    """(docstring statement, number of statements in its block) for every docstring."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, _DOC_OWNERS) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.append((first, len(node.body)))
    return found


def _byte_col_to_char(line: str, col: int) -> int:
    return len(line.encode("utf-8")[:col].decode("utf-8", errors="replace"))


def strip_python(source: str) -> str:
    """`source` without docstrings; raises StripError if the result does not parse."""
    tree = ast.parse(source)
    lines = split_lines(source)
    nodes = sorted(_docstring_nodes(tree), key=lambda item: (item[0].lineno, item[0].col_offset))
    for stmt, block_size in reversed(nodes):
        first, last = stmt.lineno - 1, stmt.end_lineno - 1  # type: ignore[operator]
        start = _byte_col_to_char(lines[first], stmt.col_offset)
        end = _byte_col_to_char(lines[last], stmt.end_col_offset)  # type: ignore[arg-type]
        prefix, suffix = lines[first][:start], lines[last][end:]
        own_lines = not prefix.strip() and (not suffix.strip() or suffix.lstrip().startswith("#"))
        if own_lines and block_size > 1:
            del lines[first : last + 1]
        elif own_lines:
            newline = "\n" if lines[last].endswith("\n") else ""
            lines[first : last + 1] = [prefix + "pass" + newline]
        else:
            lines[first : last + 1] = [prefix + "pass" + suffix]
    stripped = "".join(lines)
    try:
        stripped_tree = ast.parse(stripped)
    except SyntaxError as exc:
        raise StripError(f"stripped text does not parse: {exc}") from exc
    if _docstring_nodes(stripped_tree):
        raise StripError("stripped text still has docstrings")
    return stripped


def _python_defs(tree: ast.AST) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Every function with its dotted qualified name, in source order."""
    out: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}{child.name}"
                out.append((child, qualname))
                visit(child, qualname + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return sorted(out, key=lambda item: (item[0].lineno, item[0].col_offset))


def python_functions(original: str, stripped: str) -> list[Function]:
    """The functions of `original` with their docstrings, spanned in `stripped`."""
    before = _python_defs(ast.parse(original))
    after = _python_defs(ast.parse(stripped))
    if [q for _, q in before] != [q for _, q in after]:
        raise StripError("stripping changed the functions")
    functions = []
    for (old, qualname), (new, _) in zip(before, after):
        start = min([new.lineno] + [d.lineno for d in new.decorator_list])
        functions.append(
            Function(
                name=new.name,
                qualname=qualname,
                start_line=start,
                end_line=new.end_lineno,  # type: ignore[arg-type]
                body_lines=new.end_lineno - new.body[0].lineno + 1,  # type: ignore[operator]
                doc=ast.get_docstring(old, clean=True) or "",
                in_test=new.name.startswith("test"),
            )
        )
    return functions


# -- Rust ----------------------------------------------------------------------------------


@cache
def _rust_parser():  # type: ignore[no-untyped-def]
    from tree_sitter_language_pack import get_parser

    return get_parser("rust")


def _walk(node):  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _is_doc_comment(node, source: bytes) -> bool:  # type: ignore[no-untyped-def]
    text = source[node.start_byte : node.end_byte]
    if node.type == "line_comment":
        return (text.startswith(b"///") and not text.startswith(b"////")) or text.startswith(b"//!")
    if node.type == "block_comment":
        return (
            text.startswith(b"/**") and not text.startswith(b"/***") and text != b"/**/"
        ) or text.startswith(b"/*!")
    return False


def strip_rust(source: str) -> str:
    """`source` without doc comments (their lines removed); the rest byte for byte."""
    data = source.encode("utf-8")
    tree = _rust_parser().parse(data)
    doc_nodes = [n for n in _walk(tree.root_node) if _is_doc_comment(n, data)]
    lines = [line.encode("utf-8") for line in split_lines(source)]
    remove: set[int] = set()
    cuts: dict[int, int] = {}  # row -> byte column where a trailing doc comment starts
    for node in doc_nodes:
        (row, col), (end_row, _) = node.start_point, node.end_point
        if node.type == "line_comment":
            end_row = row  # some grammar versions end a line comment on the next row
        if not lines[row][:col].strip():
            last_row = end_row
            if end_row > row and node.end_point[1] == 0:
                last_row -= 1
            remove.update(range(row, last_row + 1))
        else:
            cuts[row] = min(col, cuts.get(row, col))
    out = []
    for row, line in enumerate(lines):
        if row in remove:
            continue
        if row in cuts:
            newline = b"\n" if line.endswith(b"\n") else b""
            line = line[: cuts[row]].rstrip() + newline
        out.append(line)
    stripped = b"".join(out).decode("utf-8")
    again = _rust_parser().parse(stripped.encode("utf-8"))
    if any(_is_doc_comment(n, stripped.encode("utf-8")) for n in _walk(again.root_node)):
        raise StripError("stripped text still has doc comments")
    return stripped


_DOC_PREFIX = re.compile(rb"^///\s?|^//!\s?")


def _rust_doc_before(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    """The `///` lines directly above `node` (attributes may sit between), cleaned."""
    lines: list[str] = []
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in (
        "line_comment",
        "attribute_item",
        "block_comment",
    ):
        text = data[sibling.start_byte : sibling.end_byte]
        if sibling.type == "line_comment":
            if not (text.startswith(b"///") and not text.startswith(b"////")):
                break
            lines.append(_DOC_PREFIX.sub(b"", text.rstrip(b"\r\n")).decode("utf-8", "replace"))
        elif sibling.type == "block_comment":
            if not _is_doc_comment(sibling, data):
                break
            body = text.decode("utf-8", "replace")[3:-2]
            lines.extend(reversed([line.strip().lstrip("*").strip() for line in body.splitlines()]))
        sibling = sibling.prev_sibling
    return inspect.cleandoc("\n".join(reversed(lines)))


def _rust_defs(data: bytes) -> list[tuple[object, str, bool]]:
    """(function_item, qualified name, in test code) in source order."""
    out = []

    def visit(node, prefix: str, in_test: bool) -> None:  # type: ignore[no-untyped-def]
        for child in node.children:
            child_test = in_test or _has_test_attribute(child, data)
            if child.type == "function_item":
                name = _field_text(child, "name", data)
                out.append((child, prefix + name, child_test))
                visit(child, f"{prefix}{name}::", child_test)
            elif child.type == "impl_item":
                impl_type = re.sub(r"<.*>", "", _field_text(child, "type", data))
                visit(child, f"{prefix}{impl_type}::", child_test)
            elif child.type in ("mod_item", "trait_item"):
                name = _field_text(child, "name", data)
                visit(child, f"{prefix}{name}::", child_test or name in ("tests", "test"))
            else:
                visit(child, prefix, child_test)

    visit(_rust_parser().parse(data).root_node, "", False)
    return out


def _field_text(node, name: str, data: bytes) -> str:  # type: ignore[no-untyped-def]
    child = node.child_by_field_name(name)
    return data[child.start_byte : child.end_byte].decode("utf-8", "replace") if child else "?"


def _has_test_attribute(node, data: bytes) -> bool:  # type: ignore[no-untyped-def]
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in (
        "attribute_item",
        "line_comment",
        "block_comment",
    ):
        if sibling.type == "attribute_item":
            text = data[sibling.start_byte : sibling.end_byte].replace(b" ", b"")
            if text in (b"#[test]", b"#[cfg(test)]") or text.startswith(b"#[tokio::test"):
                return True
        sibling = sibling.prev_sibling
    return False


def _first_attribute_row(node) -> int:  # type: ignore[no-untyped-def]
    row = node.start_point[0]
    sibling = node.prev_sibling
    while sibling is not None and sibling.type == "attribute_item":
        row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return row


def rust_functions(original: str, stripped: str) -> list[Function]:
    """The functions of `original` with their doc comments, spanned in `stripped`."""
    old_data, new_data = original.encode("utf-8"), stripped.encode("utf-8")
    before, after = _rust_defs(old_data), _rust_defs(new_data)
    if [q for _, q, _ in before] != [q for _, q, _ in after]:
        raise StripError("stripping changed the functions")
    functions = []
    for (old, qualname, in_test), (new, _, _) in zip(before, after):
        body = new.child_by_field_name("body")  # type: ignore[attr-defined]
        if body is None:
            continue
        functions.append(
            Function(
                name=qualname.rsplit("::", 1)[-1],
                qualname=qualname,
                start_line=_first_attribute_row(new) + 1,
                end_line=new.end_point[0] + 1,  # type: ignore[attr-defined]
                body_lines=max(0, body.end_point[0] - body.start_point[0] - 1),
                doc=_rust_doc_before(old, old_data),
                in_test=in_test,
            )
        )
    return functions


# -- queries -------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)[.!?](?=\s|$)")
_RST_ROLE = re.compile(r":[a-zA-Z_:]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_MD_LINK = re.compile(r"\[`?([^\]`]+)`?\](?:\([^)]*\)|\[[^\]]*\])?")


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, markup removed; "" if none."""
    paragraph: list[str] = []
    for line in doc.strip().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("```", "#", ">>>", "..", ":param", "Args:")):
            break
        paragraph.append(stripped)
    text = " ".join(paragraph)
    text = _RST_ROLE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = text.replace("``", "").replace("`", "").replace("**", "")
    match = _SENTENCE_END.search(text)
    if match:
        text = text[: match.start()]
    return " ".join(text.split()).strip(" :;,-")
