"""CodeSearchNet-style sets: a real library at a pinned version, documentation stripped.

Query = the first sentence of a function's docstring (Python) or `///` doc comment (Rust);
target = that function, spanned in the stripped copy, which is what gets indexed (all Python
docstrings and all Rust doc comments removed from every file of the sdist). Skipped: tests,
dunders, bodies under 3 lines, queries under 3 words, and queries that occur more than once in
the repository (ambiguous). At most `MAX_QUERIES` per repository: candidates sorted by path and
line, then every k-th.
"""

from __future__ import annotations

import math
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benches.quality import sdists, strip
from benches.quality.dataset import Dataset, Query, Target, data_dir

MAX_QUERIES = 300
MIN_BODY_LINES = 3
MIN_QUERY_WORDS = 3
TEST_DIRS = {"test", "tests", "testing", "benches", "benchmarks", "docs", "doc", "examples"}
STRIPPERS = {".py": strip.strip_python, ".pyi": strip.strip_python, ".rs": strip.strip_rust}


@dataclass(frozen=True)
class Candidate:
    path: str
    function: strip.Function
    query: str


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (
        any(part in TEST_DIRS for part in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py", "_test.rs"))
        or name in ("conftest.py", "tests.rs", "test.rs")
    )


def strip_tree(source: Path, target: Path) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """Copy `source` to `target` with documentation stripped from .py/.pyi/.rs files.

    Returns {path: (original, stripped)} of the stripped files and the files left as they
    were because they could not be stripped (do not parse, say).
    """
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True)
    texts: dict[str, tuple[str, str]] = {}
    unstripped: list[str] = []
    for path in sorted(target.rglob("*")):
        stripper = STRIPPERS.get(path.suffix)
        if stripper is None or not path.is_file() or path.is_symlink():
            continue
        rel = path.relative_to(target).as_posix()
        try:
            original = path.read_text(encoding="utf-8")
            stripped = stripper(original)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            unstripped.append(rel)
            continue
        if stripped != original:
            with path.open("w", encoding="utf-8", newline="") as handle:
                handle.write(stripped)
        texts[rel] = (original, stripped)
    return texts, unstripped


def candidates(pkg: sdists.Package, texts: dict[str, tuple[str, str]]) -> list[Candidate]:
    """Every documented, non-test, non-dunder function of the package's source dirs."""
    suffix = ".rs" if pkg.language == "rust" else ".py"
    found: list[Candidate] = []
    for path, (original, stripped) in sorted(texts.items()):
        if not path.endswith(suffix) or is_test_path(path):
            continue
        if not any(path == d or path.startswith(d.rstrip("/") + "/") for d in pkg.source_dirs):
            continue
        if suffix == ".py":
            functions = strip.python_functions(original, stripped)
        else:
            functions = strip.rust_functions(original, stripped)
        for function in functions:
            name = function.name
            if function.in_test or (name.startswith("__") and name.endswith("__")):
                continue
            if function.body_lines < MIN_BODY_LINES or not function.doc:
                continue
            query = strip.first_sentence(function.doc)
            if len(query.split()) < MIN_QUERY_WORDS:
                continue
            found.append(Candidate(path, function, query))
    return found


def select(found: list[Candidate], cap: int = MAX_QUERIES) -> list[Candidate]:
    """Drop duplicated queries, then keep every k-th by (path, line) to at most `cap`."""
    counts = Counter(c.query.casefold() for c in found)
    unique = [c for c in found if counts[c.query.casefold()] == 1]
    unique.sort(key=lambda c: (c.path, c.function.start_line))
    step = max(1, math.ceil(len(unique) / cap))
    return unique[::step][:cap]


def build(pkg: sdists.Package, out_dir: Path | None = None) -> Dataset:
    """Build the CodeSearchNet-style set of `pkg` under benches/data/csn/<slug>/."""
    source = sdists.extract(pkg)
    out = out_dir or data_dir() / "csn" / pkg.slug
    repo = out / "repo"
    texts, unstripped = strip_tree(source, repo)
    found = candidates(pkg, texts)
    chosen = select(found)
    queries = [
        Query(
            id=f"{pkg.slug}:{c.path}:{c.function.qualname}",
            text=c.query,
            targets=(Target(c.path, c.function.start_line, c.function.end_line),),
            kind=f"docstring/{pkg.language}",
        )
        for c in chosen
    ]
    dataset = Dataset(
        name=f"csn/{pkg.slug}",
        set="csn",
        root=repo,
        hit_rule="function",
        queries=queries,
        version=sdists.sdist_version(pkg),
        meta={
            "language": pkg.language,
            "candidates": len(found),
            "stripped_files": len(texts),
            "unstripped_files": unstripped,
        },
    )
    dataset.to_json(out / "dataset.json")
    return dataset
