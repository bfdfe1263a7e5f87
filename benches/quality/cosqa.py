"""CoSQA dev: 500 real web queries, each with one gold function in a 6,267-function pool.

The pool is laid out as a repository so that sharc's real walker and chunker index it: 16
functions per module in pool order (retrieval_idx), two blank lines apart, in
`cosqa_pool/mod_0000.py` ... Each function's file and 1-based line span is recorded.

Pool functions come from many projects; a method's `def` line was cut out at column 0 while its
body kept the original indentation (8 spaces, or tabs). The body is dedented consistently so
that the deepest common indent becomes one level (4 spaces, or one tab); a dedent that would
make a function stop parsing is not applied. About 20 functions are Python 2 and never parse;
they are kept as they are, like any real repository's broken file.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

from benches.quality.dataset import (
    Dataset,
    Query,
    Target,
    data_dir,
    eval_dir,
    sha256_file,
    split_lines,
)

FUNCTIONS_PER_MODULE = 16
SEPARATOR = "\n\n\n"  # two blank lines between functions
POOL_FILE = "code_idx_map.txt"
DEV_FILE = "cosqa-retrieval-dev-500.json"


def normalize_function(code: str) -> str:
    """The pool text with trailing blanks removed and its body dedented to one level."""
    lines = [line.rstrip() for line in split_lines(code.replace("\r\n", "\n"))]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    text = "\n".join(lines)
    dedented = "\n".join(_dedent_body(lines))
    if dedented != text and _parses(text) and not _parses(dedented):
        return text
    return dedented


def _dedent_body(lines: list[str]) -> list[str]:
    """Cut the common indent of lines 2.. down to one level (4 spaces or a tab)."""
    if len(lines) < 2 or lines[0][:1] in (" ", "\t"):
        return lines
    body = [line for line in lines[1:] if line.strip()]
    if not body:
        return lines
    prefix = _common_indent(body)
    if prefix and set(prefix) == {" "} and len(prefix) > 4:
        excess = len(prefix) - 4
    elif prefix and set(prefix) == {"\t"} and len(prefix) > 1:
        excess = len(prefix) - 1
    else:
        return lines
    return [lines[0]] + [line[excess:] if line.strip() else "" for line in lines[1:]]


def _common_indent(lines: list[str]) -> str:
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in lines]
    prefix = indents[0]
    for indent in indents[1:]:
        while not indent.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def layout_pool(pool: dict[str, int], repo: Path) -> dict[int, Target]:
    """Write the pool as modules under `repo`; return each retrieval_idx's file and span."""
    ordered = sorted(pool.items(), key=lambda item: item[1])
    if [idx for _, idx in ordered] != list(range(len(ordered))):
        raise ValueError("the pool's retrieval_idx values are not 0..n-1")
    if repo.exists():
        shutil.rmtree(repo)
    package = repo / "cosqa_pool"
    package.mkdir(parents=True)
    spans: dict[int, Target] = {}
    for module_no, first in enumerate(range(0, len(ordered), FUNCTIONS_PER_MODULE)):
        rel = f"cosqa_pool/mod_{module_no:04d}.py"
        parts: list[str] = []
        line = 1
        for code, idx in ordered[first : first + FUNCTIONS_PER_MODULE]:
            text = normalize_function(code)
            height = len(split_lines(text))
            spans[idx] = Target(rel, line, line + height - 1)
            parts.append(text)
            line += height + 2
        (repo / rel).write_text(SEPARATOR.join(parts) + "\n", encoding="utf-8")
    return spans


def build(out_dir: Path | None = None, source_dir: Path | None = None) -> Dataset:
    """Build CoSQA dev under `out_dir` (default benches/data/cosqa) and return it."""
    source = source_dir or eval_dir() / "cosqa"
    out = out_dir or data_dir() / "cosqa"
    pool_path, dev_path = source / POOL_FILE, source / DEV_FILE
    if not pool_path.is_file() or not dev_path.is_file():
        raise FileNotFoundError(
            f"CoSQA data not found in {source}; set SHARC_EVAL_DIR to the folder holding cosqa/"
        )
    pool = json.loads(pool_path.read_text(encoding="utf-8"))
    dev = json.loads(dev_path.read_text(encoding="utf-8"))
    spans = layout_pool(pool, out / "repo")
    queries = []
    for row in dev:
        idx = int(row["retrieval_idx"])
        if pool.get(row["code"]) != idx:
            raise ValueError(f"{row['idx']}: gold code is not pool entry {idx}")
        queries.append(Query(str(row["idx"]), str(row["doc"]).strip(), (spans[idx],), "web"))
    dataset = Dataset(
        name="cosqa-dev",
        set="cosqa",
        root=out / "repo",
        hit_rule="function",
        queries=queries,
        version=f"cosqa-retrieval-dev-500 sha256:{sha256_file(dev_path)[:16]} "
        f"pool sha256:{sha256_file(pool_path)[:16]}",
        meta={
            "pool_functions": len(pool),
            "modules": (len(pool) + FUNCTIONS_PER_MODULE - 1) // FUNCTIONS_PER_MODULE,
            "functions_per_module": FUNCTIONS_PER_MODULE,
            "source": str(source),
        },
    )
    dataset.to_json(out / "dataset.json")
    return dataset
