"""What the indexing benchmarks share: the data they read (click 8.1.7) and the queries they time,
trees of real source files (stdlib modules copied round-robin) sized in files or in chunks,
where each index lives under a work directory, and the `git status` baseline timed on a tree
(the vectors a keyword-only index is given: `benches.speed.vector_load`).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path

from benches.speed.common import REPO

DATA = REPO / "benches" / "data"
CLICK = DATA / "src" / "click-8.1.7"
QUERIES = [
    "how are command line options parsed",
    "open a file lazily",
    "TaskStore",
    "HTTPAdapter",
    "where are environment variables read",
    "format the help text",
    "shortest path",
    "retry with exponential backoff",
    "parse a URL",
    "getUserById",
    "read a json file",
    "validate the input value",
    "join path components",
    "compress data with zlib",
]


def bench_index_dir(work: Path, name: str) -> Path:
    return work / f"index-{name}"


def stdlib_sources() -> list[Path]:
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in stdlib.glob("*.py") if p.stat().st_size < 60_000)


def make_tree(root: Path, files: int) -> Path:
    """A tree of `files` real source files: stdlib modules copied round-robin."""
    if (root / ".complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    sources = stdlib_sources()
    for number in range(files):
        source = sources[number % len(sources)]
        target = root / f"pkg{number // 500:03d}" / f"m{number:05d}_{source.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    (root / ".complete").write_text("ok\n")
    return root


def files_for_chunks(chunks: int) -> int:
    """How many files `make_tree` needs for about `chunks` chunks (counted with sharc itself)."""
    from sharc._core import chunk_source

    sources = stdlib_sources()
    per_source = [
        len(chunk_source(source.name, "python", source.read_text(errors="replace")).chunks)
        for source in sources
    ]
    files = total = 0
    while total < chunks:
        total += per_source[files % len(sources)]
        files += 1
    return files


def git_status_seconds(tree: Path, rounds: int = 5) -> float:
    """Median `git status` on `tree`, committed in a throwaway repository."""
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    try:
        subprocess.run(["git", "add", "-A"], cwd=tree, check=True)
        subprocess.run(
            ["git", "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "x"],
            cwd=tree,
            check=True,
        )
        git = []
        for _ in range(rounds):
            started = time.perf_counter()
            subprocess.run(
                ["git", "status", "--porcelain"], cwd=tree, check=True, capture_output=True
            )
            git.append(time.perf_counter() - started)
    finally:
        shutil.rmtree(tree / ".git")
    return statistics.median(git)
