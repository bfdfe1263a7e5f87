"""Keyword-only search latency: what a question in words costs when BM25 alone answers it
(`mode="keyword"`, an index built `--keyword-only`, or every search before a new index's
vectors exist), with each hit weighed by the share of the question's words it holds
(`RankingSettings.keyword_coverage`, the default) against the same search without that
weighing (the baseline), the two taking turns query by query on the query step's tree of
`benches.speed.index_speed` (real chunks from copies of stdlib modules).

    python -m benches.speed.keyword_query [--chunks 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from benches.speed.common import RESULTS, machine, write_result
from benches.speed.corpus import DATA, QUERIES, bench_index_dir, files_for_chunks, make_tree
from benches.speed.query_latency import timed_searches


def keyword_query_latency(work: Path, chunks: int, rounds: int) -> dict[str, Any]:
    """Warm p50/p99 of keyword-only searches with and without coverage, alternated."""
    import sharc
    from sharc.ranking import DEFAULT_SETTINGS

    root = make_tree(work / f"query-tree-{chunks}", files_for_chunks(chunks))
    index = sharc.Index.open(root, index_dir=bench_index_dir(work, f"query-{chunks}"))
    index.update(embed=False)
    settings = {
        "covered": DEFAULT_SETTINGS,
        "uncovered": dataclasses.replace(DEFAULT_SETTINGS, keyword_coverage=0.0),
    }
    latencies = timed_searches(index, settings, rounds, mode="keyword")
    covered, uncovered = (np.asarray(latencies[name]) * 1e3 for name in settings)
    result = {
        "chunks": index.stats().chunks,
        "queries": len(QUERIES) * rounds,
        "p50_ms": float(np.percentile(covered, 50)),
        "p99_ms": float(np.percentile(covered, 99)),
        "without_coverage_p50_ms": float(np.percentile(uncovered, 50)),
        "without_coverage_p99_ms": float(np.percentile(uncovered, 99)),
    }
    result["p50_vs_without_coverage"] = result["p50_ms"] / result["without_coverage_p50_ms"]
    index.close()
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", type=Path, default=DATA / "speed-work")
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_keyword_query.json")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmark": "keyword_query",
        "machine": machine(),
        **keyword_query_latency(args.work, args.chunks, args.rounds),
    }
    print(json.dumps(result), flush=True)
    write_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
