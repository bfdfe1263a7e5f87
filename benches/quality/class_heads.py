"""C++ classes the chunker finds in a library heavy with macros: Eigen 3.4.0's headers.

Tree-sitter does not expand the preprocessor. Where a conditional splits one declaration (a
class head's base clause `class DenseBase` / `#ifndef EIGEN_PARSED_BY_DOXYGEN` / `: public
...` / `#else` / ... / `#endif`, or two signatures sharing one body in `Ref.h`), or where macros
stand as specifiers, the class around them can fall apart into parse errors and lose its chunk;
a class defined inside another one needs a chunk of its own too. This check counts it: every
class or struct head a line scan finds (`class Name` or `template<...> class Name` opening a
line, not a forward declaration, not a specialisation), and whether the index holds a class
or struct chunk of that name in that file. Only chunking is measured: the index is built
without vectors.

    python -m benches.quality.class_heads        # -> results/quality_class_heads.json

The headers are Debian's `libeigen3-dev` (`benches.quality.large_trees.eigen_tree`), laid
out once in `benches/data/large/eigen/`; another version is refused.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benches.quality.dataset import data_dir
from benches.quality.large_trees import EIGEN_PACKAGE_VERSION, eigen_tree
from benches.quality.provenance import git_commit, machine

RESULTS = Path(__file__).resolve().parents[1] / "results"
#: A class or struct head opening a line: an optional template clause, the keyword, optional
#: all-caps attribute macros, the name; then a base clause, a brace or the end of the line
#: (the base clause or brace on the lines after). A `;` after the name is a forward
#: declaration, a `<` a specialisation: neither is counted.
_HEAD = re.compile(
    r"^[ \t]*(?:template[ \t]*<[^;{]*>[ \t]*)?(?:class|struct)[ \t]+(?:[A-Z][A-Z0-9_]+[ \t]+)*"
    r"(?P<name>[A-Za-z_]\w*)[ \t]*(?=[:{]|$)",
    re.MULTILINE,
)
#: The kinds a class head's chunk may have.
CLASS_KINDS = ("class", "struct")


def class_heads(text: str) -> Iterator[tuple[str, int]]:
    """Each class or struct head of a C++ source: its name and 1-based line."""
    for match in _HEAD.finditer(text):
        yield match.group("name"), text.count("\n", 0, match.start("name")) + 1


def header_files(root: Path) -> Iterator[Path]:
    """The C++ headers under `root`: `.h` files and Eigen's extensionless module headers."""
    for path in sorted(root.rglob("*")):
        if path.is_file() and (path.suffix in (".h", ".hpp") or path.suffix == ""):
            yield path


def measure(root: Path, index_dir: Path) -> dict[str, Any]:
    """The heads under `root`, and those without a class chunk of their name in their file."""
    import sharc

    index = sharc.Index.open(root, index_dir=index_dir)
    index.update(embed=False)
    heads: list[tuple[str, str, int]] = []
    for path in header_files(root):
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        heads += [(relative, name, line) for name, line in class_heads(text)]
    graph = index.graph()
    chunked = {
        (definition.path, definition.symbol)
        for name in sorted({name for _, name, _ in heads})
        for definition in graph.definitions(name)
        if definition.kind in CLASS_KINDS
    }
    missing = [head for head in heads if (head[0], head[1]) not in chunked]
    by_part: dict[str, list[int]] = {}
    for relative, name, _ in heads:
        part = "/".join(relative.split("/")[:3])
        counts = by_part.setdefault(part, [0, 0])
        counts[0] += 1
        counts[1] += (relative, name) not in chunked
    stats = index.stats()
    index.close()
    return {
        "files": stats.files,
        "chunks": stats.chunks,
        "heads": len(heads),
        "without_chunk": len(missing),
        "share_found": round(100 * (1 - len(missing) / max(1, len(heads))), 1),
        "by_directory": {part: {"heads": n, "without_chunk": m}
                         for part, (n, m) in sorted(by_part.items())},
        "missing": [f"{path}:{line} {name}" for path, name, line in missing],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "quality_class_heads.json")
    parser.add_argument("--tree", type=Path, default=data_dir() / "large" / "eigen")
    args = parser.parse_args(argv)
    root = eigen_tree(args.tree)
    with tempfile.TemporaryDirectory() as index_dir:
        found = measure(root, Path(index_dir))
    result = {
        "benchmark": "class_heads",
        "library": f"Eigen ({EIGEN_PACKAGE_VERSION}, Debian's libeigen3-dev)",
        "date": dt.date.today().isoformat(),
        "git": git_commit(),
        "machine": machine(),
        **found,
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{found['heads']} class heads, {found['without_chunk']} without a class chunk"
          f" ({found['share_found']}% found)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
