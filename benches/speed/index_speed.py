"""Indexing, syncing, querying and memory, each against a baseline measured in the same run.

- embedding tokens/s, independent vs late chunking, int8 per-channel vs the shipped model;
  baseline: the shipped model, independent;
- cold index of a real repository (click 8.1.7) with the default model; baseline: the model
  alone embedding the same chunk texts (so the ratio is sharc's overhead around the encoder);
- no-op and one-file-changed sync of a 10,000-file tree; baseline: `git status` on that tree;
- warm query latency p50/p99 at 10k, 100k and 1M chunks (query embedding included; real
  chunks from copies of stdlib modules for BM25, synthetic unit vectors for the ANN arm);
  baseline: exact numpy cosine over the same vectors plus the same query embedding;
- peak RSS of a keyword-only index of 1x and 3x the corpus (streaming: it must not grow with
  the file count), and the index size on disk relative to the indexed source;
- cold index of a hostile tree (a generated file of 20,000 tiny functions, a ~900 KB minified
  one-line bundle, 30 stdlib modules) with the default model and the embedding policy;
  baseline: the same with every policy rule turned off; where its time goes: the model alone on
  the texts it embedded, and a keyword-only index of the same tree;
- a whole-process no-op `sharc index` (with the model: vectors for every chunk) of the
  10,000-file tree; baseline: `git status` on that tree;
- the first keyword result of a cold `sharc index` with the model (seconds from its start until
  a search finds a chunk); baseline: a cold `sharc index --keyword-only` of the same tree;
- one function added to a 1M-chunk index with the model (synthetic vectors for the rest): the
  update writing the delta file, after a walk of the whole tree (`sharc index`) and of the
  changed file alone (`update(paths=...)`, what the watcher does); baselines: the same update
  rewriting the main vector file (`compact=True`, what every update did before the delta), and
  the model alone on that chunk (the index is kept in --work between runs: building it is not
  what is measured).

Each step records the load average when it ends (the machine may be shared).

    python -m benches.speed.index_speed [--quick] [--only query,memory,...] [--merge]

Each step's code lives in a module of its own: `cold_index` (embedding, cold), `sync_speed`
(sync, delta), `query_latency` (query), `index_footprint` (memory), `hostile_index` (hostile),
`index_process` (noop, first_keyword); the trees and queries they share in `corpus`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
from pathlib import Path

from benches.speed.cold_index import cold_index, embedding_speed
from benches.speed.common import RESULTS, machine, write_result
from benches.speed.corpus import CLICK, DATA, files_for_chunks, make_tree
from benches.speed.hostile_index import HOSTILE_BUNDLE_BYTES, HOSTILE_FUNCTIONS, hostile_index
from benches.speed.index_footprint import memory
from benches.speed.index_process import first_keyword_result, noop_process
from benches.speed.query_latency import query_latency
from benches.speed.sync_speed import delta_update, sync_speed

STEPS = (
    "embedding", "cold", "sync", "query", "memory", "hostile", "noop", "first_keyword", "delta",
)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--query-sizes", type=lambda text: [int(n) for n in text.split(",")],
                        help="chunk counts of the query step (default 10000,100000,1000000)")
    parser.add_argument("--only", default=",".join(STEPS), help="comma-separated: " + ", ".join(STEPS))
    parser.add_argument(
        "--merge", action="store_true", help="keep the other steps' results already in --out"
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_index.json")
    parser.add_argument("--work", type=Path, default=DATA / "speed-work")
    args = parser.parse_args(argv)
    steps = [step.strip() for step in args.only.split(",") if step.strip()]
    if unknown := set(steps) - set(STEPS):
        parser.error(f"unknown steps: {', '.join(sorted(unknown))}")
    args.work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SHARC_CACHE_DIR", str(args.work / "cache"))
    import sharc

    result = {"benchmark": "index_speed", "machine": machine(), "quick": args.quick}
    kept = ("embedding", "cold_index", "sync", "query", "memory", "hostile",
            "noop_process", "first_keyword", "delta_update")
    # Which CPU measured each step: a merged file may hold steps of different machines.
    step_machines: dict[str, str] = {}
    if args.merge and args.out.exists():
        previous = json.loads(args.out.read_text())
        result.update({key: previous[key] for key in kept if key in previous})
        earlier = previous.get("machine", {}).get("cpu_model", "?")
        step_machines = {
            key: previous.get("step_machines", {}).get(key, earlier)
            for key in kept if key in previous
        }
    merged = {key: result.get(key) for key in kept}
    if "embedding" in steps:
        chunked = sharc.chunk_files(CLICK, sharc.walk(CLICK).files[:200])
        texts = [c.text for f in chunked for c in f.chunks][: 200 if args.quick else 600]
        result["embedding"] = embedding_speed(texts)
        print(json.dumps(result["embedding"]["ratios_vs_shipped_independent"]), flush=True)
    with tempfile.TemporaryDirectory(dir=args.work) as scratch:
        work = Path(scratch)
        if "cold" in steps:
            result["cold_index"] = cold_index(work)
            print(json.dumps(result["cold_index"]), flush=True)
        if "sync" in steps:
            tree_files = 1_000 if args.quick else 10_000
            tree = make_tree(args.work / f"tree-{tree_files}", tree_files)
            result["sync"] = sync_speed(work, tree)
            print(json.dumps(result["sync"]), flush=True)
        if "hostile" in steps:
            result["hostile"] = hostile_index(
                work,
                HOSTILE_FUNCTIONS // 10 if args.quick else HOSTILE_FUNCTIONS,
                HOSTILE_BUNDLE_BYTES // 10 if args.quick else HOSTILE_BUNDLE_BYTES,
            )
            print(json.dumps({"speedup_vs_no_policy": result["hostile"]["speedup_vs_no_policy"]}),
                  flush=True)
        if "noop" in steps:
            tree_files = 1_000 if args.quick else 10_000
            tree = make_tree(args.work / f"tree-{tree_files}", tree_files)
            result["noop_process"] = noop_process(work, tree)
            print(json.dumps(result["noop_process"]), flush=True)
        if "first_keyword" in steps:
            requests = DATA / "src" / "requests-2.32.3" / "src"
            trees = {"requests-src": requests} if args.quick else {
                "requests-src": requests, "click": CLICK,
            }
            result["first_keyword"] = first_keyword_result(work, trees)
        if "delta" in steps:
            chunks = 100_000 if args.quick else 1_000_000
            tree = make_tree(args.work / f"query-tree-{chunks}", files_for_chunks(chunks))
            result["delta_update"] = delta_update(args.work, tree)
            print(json.dumps(result["delta_update"]), flush=True)
    if "query" in steps:
        sizes = args.query_sizes or ([10_000] if args.quick else [10_000, 100_000, 1_000_000])
        result["query"] = query_latency(args.work, sizes)
    if "memory" in steps:
        result["memory"] = memory(
            args.work,
            {"1x": 1_000, "3x": 3_000} if args.quick else {"1x": 3_000, "3x": 9_000},
            {"1x": 20, "3x": 60} if args.quick else {"1x": 100, "3x": 300},
        )
        print(json.dumps(result["memory"]), flush=True)
    result["rusage_max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for key in kept:
        if key in result and result[key] is not merged[key]:
            step_machines[key] = result["machine"].get("cpu_model", "?")
    result["step_machines"] = step_machines
    write_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
