"""Walk + chunk throughput: sharc against bare tree-sitter parsing and a pure-Python pipeline.

Corpus: the Python standard library of the running interpreter (site-packages, compiled files
and binaries left out) plus the pinned sdists under benches/data/src, copied once into
benches/data/corpus. Three pipelines over the same files, in the same run:

- sharc: the Rust walker (ignore rules, secrets, binary sniff) then tree-sitter symbol chunks
  (tier 1) and LangChain text splitting (tiers 2-4), all cores and one core (RAYON_NUM_THREADS=1);
- bare parse: py-tree-sitter parsing every tier-1 file of sharc's walk with the same grammars
  (tree-sitter-language-pack), one core, no chunking: the floor of any AST chunker;
- pure Python: os.walk + pathspec (the same default ignores) + py-tree-sitter traversal to
  symbol chunks + LangChain for other files: what one writes without a native core.

    python -m benches.speed.walk_chunk [--out benches/results/speed_walk_chunk.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from benches.speed.common import REPO, RESULTS, machine, write_result

CORPUS = REPO / "benches" / "data" / "corpus"
DEFAULT_IGNORES = [
    "node_modules/",
    "target/",
    "dist/",
    "build/",
    "out/",
    ".next/",
    ".nuxt/",
    ".svelte-kit/",
    ".turbo/",
    ".parcel-cache/",
    ".cache/",
    "coverage/",
    ".nyc_output/",
    "__pycache__/",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".tox/",
    ".nox/",
    ".venv/",
    "venv/",
    "env/",
    ".git/",
    ".svn/",
    ".hg/",
    ".idea/",
    ".vscode/",
    "tmp/",
    "temp/",
    "logs/",
    "*.log",
    "*.min.js",
    "*.min.css",
    "*.bundle.js",
    "*.chunk.js",
    "*.map",
]
PACK_NAMES = {
    "csharp": "csharp",
    "cpp": "cpp",
    "tsx": "tsx",
    "typescript": "typescript",
    "javascript": "javascript",
}
DEFINITIONS = {
    "function_definition",
    "class_definition",
    "function_declaration",
    "method_definition",
    "class_declaration",
    "function_item",
    "impl_item",
    "method_declaration",
    "struct_item",
}


def build_corpus() -> Path:
    """Copy the stdlib and the pinned sdists into benches/data/corpus (once)."""
    marker = CORPUS / ".complete"
    if marker.exists():
        return CORPUS
    shutil.rmtree(CORPUS, ignore_errors=True)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(
        stdlib,
        CORPUS / "stdlib",
        ignore=shutil.ignore_patterns(
            "site-packages", "__pycache__", "lib-dynload", "*.so", "*.pyc", "config-*"
        ),
        symlinks=True,
    )
    sources = REPO / "benches" / "data" / "src"
    if sources.exists():
        for entry in sorted(sources.iterdir()):
            if entry.is_dir() and not entry.name.endswith(".extracted"):
                shutil.copytree(entry, CORPUS / "sdists" / entry.name, symlinks=True)
    marker.write_text("ok\n")
    return CORPUS


def run_sharc(root: Path) -> dict[str, float]:
    import sharc

    started = time.perf_counter()
    walked = sharc.walk(root)
    walk_seconds = time.perf_counter() - started
    chunked = sharc.chunk_files(walked.root, walked.files)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "walk_seconds": walk_seconds,
        "files": len(walked.files),
        "bytes": sum(f.size for f in walked.files),
        "chunks": sum(len(c.chunks) for c in chunked),
        "ast_files": sum(1 for f in walked.files if f.tier == 1),
    }


def run_bare_parse(root: Path) -> dict[str, float]:
    import sharc
    from tree_sitter_language_pack import get_parser

    files = [f for f in sharc.walk(root).files if f.tier == 1]
    parsers: dict[str, object] = {}
    started = time.perf_counter()
    parsed = 0
    size = 0
    for file in files:
        name = PACK_NAMES.get(file.language, file.language)
        parser = parsers.get(name)
        if parser is None:
            try:
                parser = parsers[name] = get_parser(name)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - a grammar the pack lacks: not counted
                continue
        data = (root / file.path).read_bytes()
        parser.parse(data)  # type: ignore[attr-defined]
        parsed += 1
        size += len(data)
    return {"seconds": time.perf_counter() - started, "files": parsed, "bytes": size}


def run_pure_python(root: Path) -> dict[str, float]:
    import pathspec
    import sharc._core as core
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from tree_sitter_language_pack import get_parser

    started = time.perf_counter()
    spec = pathspec.PathSpec.from_lines("gitwildmatch", DEFAULT_IGNORES)
    splitter = RecursiveCharacterTextSplitter(chunk_size=1500, chunk_overlap=100)
    parsers: dict[str, object] = {}
    files = chunks = size = 0
    for directory, dirnames, filenames in os.walk(root):
        relative_dir = os.path.relpath(directory, root)
        dirnames[:] = [
            d for d in dirnames if not spec.match_file(os.path.join(relative_dir, d) + "/")
        ]
        for filename in filenames:
            relative = os.path.normpath(os.path.join(relative_dir, filename))
            if spec.match_file(relative):
                continue
            classified = core.classify_path(relative)
            if classified is None:
                continue
            path = os.path.join(directory, filename)
            try:
                if os.path.getsize(path) > 1_000_000:
                    continue
                data = Path(path).read_bytes()
            except OSError:
                continue
            if b"\0" in data[:8192]:
                continue
            files += 1
            size += len(data)
            language, tier = classified
            if tier == 1:
                name = PACK_NAMES.get(language, language)
                parser = parsers.get(name)
                if parser is None:
                    try:
                        parser = parsers[name] = get_parser(name)  # type: ignore[arg-type]
                    except Exception:  # noqa: BLE001
                        continue
                tree = parser.parse(data)  # type: ignore[attr-defined]
                stack = [tree.root_node]
                while stack:
                    node = stack.pop()
                    if node.type in DEFINITIONS:
                        _ = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
                        chunks += 1
                    stack.extend(node.children)
            else:
                chunks += len(splitter.split_text(data.decode("utf-8", "replace")))
    return {
        "seconds": time.perf_counter() - started,
        "files": files,
        "bytes": size,
        "chunks": chunks,
    }


def _in_subprocess(function: str, root: Path, env: dict[str, str] | None = None) -> dict:
    """Each pipeline in a fresh process, so none profits from another's warm caches."""
    code = (
        "import json, sys; from pathlib import Path; from benches.speed import walk_chunk as w;"
        f" print(json.dumps(w.{function}(Path(sys.argv[1]))))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )
    return json.loads(output.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_walk_chunk.json")
    args = parser.parse_args(argv)
    root = build_corpus()
    # Warm the page cache once so every pipeline reads from memory.
    _in_subprocess("run_sharc", root)
    sharc_all = min(
        (_in_subprocess("run_sharc", root) for _ in range(3)), key=lambda r: r["seconds"]
    )
    sharc_one = min(
        (_in_subprocess("run_sharc", root, {"RAYON_NUM_THREADS": "1"}) for _ in range(2)),
        key=lambda r: r["seconds"],
    )
    bare = min(
        (_in_subprocess("run_bare_parse", root) for _ in range(2)), key=lambda r: r["seconds"]
    )
    pure = _in_subprocess("run_pure_python", root)

    def rate(run: dict) -> dict[str, float]:
        return {
            "mb_per_s": run["bytes"] / 1e6 / run["seconds"],
            "files_per_s": run["files"] / run["seconds"],
        }

    result = {
        "benchmark": "walk_chunk",
        "corpus": {
            "files": sharc_all["files"],
            "bytes": sharc_all["bytes"],
            "ast_files": sharc_all["ast_files"],
            "chunks": sharc_all["chunks"],
            "source": "CPython stdlib + pinned sdists (benches/data/src)",
        },
        "sharc": {**sharc_all, **rate(sharc_all)},
        "sharc_1_thread": {**sharc_one, **rate(sharc_one)},
        "bare_parse_1_thread": {**bare, **rate(bare)},
        "pure_python": {**pure, **rate(pure)},
        "ratios": {
            # sharc walks, sniffs, parses and chunks; bare parse only parses tier-1 files.
            "sharc_vs_bare_parse_mb": rate(sharc_all)["mb_per_s"] / rate(bare)["mb_per_s"],
            "sharc_1_thread_vs_bare_parse_mb": rate(sharc_one)["mb_per_s"] / rate(bare)["mb_per_s"],
            "sharc_vs_pure_python_mb": rate(sharc_all)["mb_per_s"] / rate(pure)["mb_per_s"],
            "sharc_vs_pure_python_files": rate(sharc_all)["files_per_s"]
            / rate(pure)["files_per_s"],
        },
        "machine": machine(),
    }
    write_result(args.out, result)
    print(json.dumps(result["ratios"], indent=2))
    return result


if __name__ == "__main__":
    main()
