"""Search throughput under concurrency: queries/s and latency with 1, 2 and 4 threads searching
one `Index` of 100k chunks (the index of `index_speed`'s query step: real chunks from copies of
stdlib modules for BM25, synthetic unit vectors for the ANN arm, query embedding included).

Baseline: one thread, same index, same queries, same run; each thread count is measured in
every round, the rounds interleaved so that a change in the machine's load falls on all of
them. Queries/s is the median over the rounds; p50 and p99 pool every query's latency.

    python -m benches.speed.concurrency [--quick] [--rounds 3] [--chunks 100000]

Writes benches/results/speed_concurrency.json; `python -m benches.report` renders it in
benches/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from benches.speed.common import RESULTS, machine, write_result
from benches.speed.corpus import (
    DATA,
    QUERIES,
    bench_index_dir,
    files_for_chunks,
    make_tree,
)
from benches.speed.vector_load import fill_synthetic_vectors

THREADS = (1, 2, 4)


def build(work: Path, chunks: int, dimension: int) -> tuple[Path, Path]:
    """`query_latency.query_latency`'s index of about `chunks` chunks (kept in `work`)."""
    import sharc

    root = make_tree(work / f"query-tree-{chunks}", files_for_chunks(chunks))
    index_dir = bench_index_dir(work, f"query-{chunks}")
    index = sharc.Index.open(root, index_dir=index_dir)
    index.update(embed=False)
    index.close()
    fill_synthetic_vectors(index_dir, dimension)
    return root, index_dir


def run_threads(index: Any, queries: list[str], threads: int) -> tuple[float, list[float]]:
    """`queries` split over `threads` threads searching `index`, started together: the wall
    time from the start until the last one finished, and every query's latency."""
    shares = [queries[n::threads] for n in range(threads)]
    latencies: list[list[float]] = [[] for _ in range(threads)]
    errors: list[BaseException] = []
    start = threading.Barrier(threads + 1)

    def work(number: int) -> None:
        start.wait()
        try:
            for query in shares[number]:
                began = time.perf_counter()
                index.search(query)
                latencies[number].append(time.perf_counter() - began)
        except BaseException as error:  # noqa: BLE001 - raised below
            errors.append(error)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - began
    if errors:
        raise errors[0]
    return wall, [seconds for share in latencies for seconds in share]


def measure(index: Any, queries: int, rounds: int, load: list[float]) -> dict[str, Any]:
    """Per thread count: queries/s (median of the rounds), p50 and p99 latency in ms, the
    process's CPU time per query (what other processes on the machine change least), and the
    ratio of queries/s to one thread's. `load` gathers the load average at each round."""
    per_round: dict[int, list[float]] = {threads: [] for threads in THREADS}
    cpu: dict[int, list[float]] = {threads: [] for threads in THREADS}
    latencies: dict[int, list[float]] = {threads: [] for threads in THREADS}
    for query in QUERIES:
        index.search(query)  # warm: readers open, caches filled
    for round_ in range(rounds):
        load.append(os.getloadavg()[0])
        # Fresh words each round, so no query is a repeat of one measured before.
        batch = [f"{QUERIES[n % len(QUERIES)]} {round_} {n}" for n in range(queries)]
        for threads in THREADS:
            cpu_before = time.process_time()
            wall, seconds = run_threads(index, batch, threads)
            cpu[threads].append((time.process_time() - cpu_before) / queries)
            per_round[threads].append(queries / wall)
            latencies[threads].extend(seconds)
    load.append(os.getloadavg()[0])
    one = statistics.median(per_round[1])
    return {
        str(threads): {
            "queries_per_second": statistics.median(per_round[threads]),
            "queries_per_second_rounds": per_round[threads],
            "p50_ms": float(np.percentile(latencies[threads], 50)) * 1e3,
            "p99_ms": float(np.percentile(latencies[threads], 99)) * 1e3,
            "cpu_ms_per_query": statistics.median(cpu[threads]) * 1e3,
            "vs_one_thread": statistics.median(per_round[threads]) / one,
        }
        for threads in THREADS
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k chunks, fewer queries")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=280, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=DATA / "speed-work")
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_concurrency.json")
    args = parser.parse_args(argv)
    chunks, queries = (10_000, 56) if args.quick else (args.chunks, args.queries)
    args.work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SHARC_CACHE_DIR", str(args.work / "cache"))
    import sharc
    from sharc.embedding import load_embedder

    embedder = load_embedder()
    root, index_dir = build(args.work, chunks, embedder.dimension)
    index = sharc.Index.open(root, index_dir=index_dir)
    index._embedder = embedder  # loaded once, shared by the threads as in a service
    load: list[float] = []
    threads = measure(index, queries, args.rounds, load)
    result = {
        "benchmark": "concurrency",
        "machine": machine(),
        "quick": args.quick,
        "chunks": index.stats().chunks,
        "queries": queries,
        "rounds": args.rounds,
        "mode": "hybrid",
        "baseline": "one thread, same index and queries, same run",
        "threads": threads,
        "load_average": [min(load), max(load)],
    }
    print(json.dumps({n: round(row["queries_per_second"], 1) for n, row in threads.items()}))
    write_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
