"""`sharc index` as a whole process (start, imports, walk, compare, report): a no-op run on a
full index against `git status` on the same tree, and the first keyword result of a cold run with
the model against a cold `sharc index --keyword-only`.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benches.speed.common import keyword_hit
from benches.speed.corpus import bench_index_dir, git_status_seconds
from benches.speed.vector_load import fill_synthetic_vectors


def _sharc_index(root: Path, index_dir: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "sharc.cli", "index", str(root), "--index-dir", str(index_dir),
            *options]


def noop_process(work: Path, tree: Path, rounds: int = 5) -> dict:
    """A no-op `sharc index` as a whole process (start, imports, walk, compare, report) on a
    full index: every chunk the policy embeds has a vector (synthetic: the model would take
    hours on 300k chunks, and a no-op must not touch it anyway). Baseline: `git status`."""
    import sharc
    from sharc.model_config import MINILM_CONFIG

    index_dir = bench_index_dir(work, "noop-process")
    sharc.Index.open(tree, index_dir=index_dir).update(embed=False)
    fill_synthetic_vectors(index_dir, MINILM_CONFIG.dimension)
    command = _sharc_index(tree, index_dir)
    # The first run drops the vectors of keyword-only chunks and records usearch as in line.
    subprocess.run(command, check=True, capture_output=True)
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        seconds.append(time.perf_counter() - started)
        assert " 0 chunks embedded" in done.stderr, done.stderr
    git = git_status_seconds(tree)
    stats = sharc.Index.open(tree, index_dir=index_dir).stats()
    return {
        "files": stats.files,
        "chunks": stats.chunks,
        "embedded_chunks": stats.embedded_chunks,
        "seconds_median": statistics.median(seconds),
        "seconds": seconds,
        "git_status_seconds_median": git,
        "vs_git_status": statistics.median(seconds) / git,
        "target_seconds": 0.3,
    }


def first_keyword_result(work: Path, trees: dict[str, Path], rounds: int = 3) -> dict:
    """Seconds from the start of a cold `sharc index` (with the model) until a keyword search
    in another process finds a chunk; baseline: a cold `sharc index --keyword-only` of the
    same tree, start to end. The indexing process is killed once the result is in."""
    import sharc
    import sharc.keyword  # noqa: F401 - the poller's imports are not the indexer's time
    import sharc.ranking  # noqa: F401

    results = {}
    for name, root in trees.items():
        index_dir = bench_index_dir(work, f"first-{name}")
        first, keyword_only = [], []
        for _ in range(rounds):
            shutil.rmtree(index_dir, ignore_errors=True)
            started = time.perf_counter()
            with subprocess.Popen(
                _sharc_index(root, index_dir), stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ) as process:
                while not keyword_hit(sharc, root, index_dir):
                    if process.poll() is not None:
                        raise RuntimeError(f"sharc index of {root} ended before a keyword hit")
                    time.sleep(0.02)
                first.append(time.perf_counter() - started)
                process.kill()
            shutil.rmtree(index_dir, ignore_errors=True)
            started = time.perf_counter()
            subprocess.run(
                _sharc_index(root, index_dir, "--keyword-only"), check=True, capture_output=True
            )
            keyword_only.append(time.perf_counter() - started)
        stats = sharc.Index.open(root, index_dir=index_dir).stats()
        results[name] = {
            "files": stats.files,
            "chunks": stats.chunks,
            "first_keyword_result_seconds_median": statistics.median(first),
            "keyword_only_index_seconds_median": statistics.median(keyword_only),
            "first_result_vs_keyword_only_index": (
                statistics.median(first) / statistics.median(keyword_only)
            ),
            "target_ratio": 1.5,
        }
        print(json.dumps({name: results[name]}), flush=True)
    return results
