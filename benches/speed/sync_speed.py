"""Updates of an index that is already there, in process: keyword-only no-op and one-file syncs of
a 10,000-file tree against `git status` on it, and one function added to a 1M-chunk index with
the model, written to the delta file against the same update rewriting the main vector file.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from benches.speed.corpus import bench_index_dir, git_status_seconds
from benches.speed.vector_load import fill_synthetic_vectors


def sync_speed(work: Path, tree: Path) -> dict:
    import sharc

    index = sharc.Index.open(tree, index_dir=bench_index_dir(work, "tree"))
    started = time.perf_counter()
    index.update(embed=False)
    cold = time.perf_counter() - started
    noop = []
    for _ in range(5):
        started = time.perf_counter()
        index.update(embed=False)
        noop.append(time.perf_counter() - started)
    target = next(tree.glob("pkg000/*.py"))
    one = []
    for attempt in range(3):
        with target.open("a") as handle:
            handle.write(f"\n\ndef added_{attempt}():\n    return {attempt}\n")
        started = time.perf_counter()
        index.update(embed=False)
        one.append(time.perf_counter() - started)
    git = git_status_seconds(tree)
    files, chunks = index.stats().files, index.stats().chunks
    return {
        "files": files,
        "chunks": chunks,
        "cold_keyword_index_seconds": cold,
        "noop_seconds_median": statistics.median(noop),
        "one_file_seconds_median": statistics.median(one),
        "git_status_seconds_median": git,
        "noop_vs_git_status": statistics.median(noop) / git,
        "note": "keyword-only updates: a no-op sync embeds nothing either way",
    }


def delta_update(work: Path, tree: Path, rounds: int = 5) -> dict:
    """One function added to a large index, in process with the model loaded: written to the
    delta file, against the same update folding everything into the main file."""
    import sharc
    from sharc.embedding import load_embedder

    # Kept between runs, like the query indexes: building it is not what is measured.
    index_dir = bench_index_dir(work, f"delta-{tree.name}")
    index = sharc.Index.open(tree, index_dir=index_dir)
    index.update(embed=False)
    embedder = load_embedder()
    if not (index_dir / "vectors.usearch").exists():
        fill_synthetic_vectors(index_dir, embedder.dimension)
    index._embedder = embedder  # loading the model is not updating
    index.update()  # drops the keyword-only chunks' vectors; records the vectors' state
    noop, noop_paths = [], []
    target = next(tree.glob("pkg000/*.py"))
    relative = target.relative_to(tree).as_posix()
    for _ in range(rounds):
        started = time.perf_counter()
        index.update()
        noop.append(time.perf_counter() - started)
        started = time.perf_counter()
        index.update(paths=[relative])
        noop_paths.append(time.perf_counter() - started)
    original = target.read_text()
    # The synthetic vectors were keyed for the keyword-only index (no model id): the file's
    # chunks are keyed for the model once, before the edits measured.
    target.write_text(original + "\n")
    index.update()
    ways = ("delta", "delta_paths", "compact")
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    model_alone = []
    try:
        for number in range(len(ways) * rounds):
            way = ways[number % len(ways)]
            target.write_text(
                original + f"\n\ndef tripled_{number}(value):\n"
                f'    """Return the value three times over ({number})."""\n    return value * 3\n'
            )
            started = time.perf_counter()
            if way == "delta_paths":  # what the watcher does: it knows the file that changed
                report = index.update(paths=[relative])
            else:
                report = index.update(compact=way == "compact")
            seconds[way].append(time.perf_counter() - started)
            assert report.chunks_embedded == 1, report
            added = index.search(f"tripled_{number}", mode="keyword", limit=1)[0]
            started = time.perf_counter()
            embedder.embed_documents([added.header + added.code])
            model_alone.append(time.perf_counter() - started)
    finally:
        target.write_text(original)
        index.update(compact=True)
    stats = index.stats()
    delta = statistics.median(seconds["delta"])
    return {
        "files": stats.files,
        "chunks": stats.chunks,
        "embedded_chunks": stats.embedded_chunks,
        "noop_seconds_median": statistics.median(noop),
        "noop_paths_seconds_median": statistics.median(noop_paths),
        "one_function_delta_seconds_median": delta,
        "one_function_paths_seconds_median": statistics.median(seconds["delta_paths"]),
        "one_function_rewriting_main_seconds_median": statistics.median(seconds["compact"]),
        "model_alone_seconds_median": statistics.median(model_alone),
        "delta_vs_rewriting_main": delta / statistics.median(seconds["compact"]),
        "seconds": seconds,
        "target_seconds": 0.2,
        "load_average": os.getloadavg(),
    }
