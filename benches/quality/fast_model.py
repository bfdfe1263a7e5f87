"""Retrieval quality of the fast model (static vectors), beside the default model's.

    python -m benches.quality.fast_model repos [--split all] [--out benches/results/quality_repos_fast.json]
    python -m benches.quality.fast_model compare    # the comparison again, from stored results
    python -m benches.quality.fast_model cosqa [--out benches/results/quality_cosqa_fast.json]

`repos`: the repository benchmark (benches.quality.repos, unchanged) over indexes built with
``model="fast"`` in their own cache (benches/data/index-cache/repos-fast; an index remembers
its model, so the benchmark's own ``Index.open`` searches them with it). The cold build time of
each index is recorded here, and the result gains a comparison with the default model's run
(``--baseline``, default benches/results/quality_repos.json) split by split and mode.

`cosqa`: CoSQA dev through benches.quality.run's own evaluation, keyword, semantic and hybrid,
for both models in the same run (each with its own index cache).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path
from typing import Any

from benches.quality.dataset import RESULTS_DIR, data_dir

FAST = "fast"


def build_fast_indexes(split: str, names: list[str], cache: Path) -> dict[str, Any]:
    """Build (or sync) each repository's index with the fast model; cold times recorded."""
    import sharc

    from benches.quality import repos as bench

    builds: dict[str, Any] = {}
    for repo in bench.load_repos(split, names):
        root = bench.unpack(repo)
        directory = cache / repo.name
        cold = not (directory / "manifest.sqlite").exists()
        index = sharc.Index.open(root, index_dir=directory, model=FAST)
        started = time.perf_counter()
        report = index.update()
        seconds = time.perf_counter() - started
        stats = index.stats()
        index.close()
        sidecar = directory / "fast-build.json"
        if cold:
            sidecar.write_text(json.dumps({"seconds": seconds, "chunks": stats.chunks,
                                           "embedded": report.chunks_embedded}))
        recorded = json.loads(sidecar.read_text()) if sidecar.is_file() else {}
        builds[repo.name] = {"model": stats.model, **recorded}
        print(f"{repo.name:24} fast index {recorded.get('seconds', seconds):6.1f} s"
              f" ({stats.chunks} chunks)", file=sys.stderr, flush=True)
    return builds


def compare(fast: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """Per split and mode: the default model's figures, the fast model's, the difference, and
    the paired bootstrap interval of the file NDCG@10 difference over the split's queries."""
    from benches.quality import metrics

    out: dict[str, Any] = {}
    for split, entry in fast["splits"].items():
        base_modes = baseline.get("splits", {}).get(split, {}).get("modes", {})
        for mode, summary in entry["modes"].items():
            if mode not in base_modes:
                continue
            ours, theirs = summary["overall"], base_modes[mode]["overall"]
            figures: dict[str, Any] = {
                metric: {"default": theirs[metric], "fast": ours[metric],
                         "difference": round(ours[metric] - theirs[metric], 1)}
                for metric in ours if metric in theirs
            }
            pairs = [
                (scores[mode]["file_ndcg"], baseline["queries"][query][mode]["file_ndcg"])
                for query, scores in fast["queries"].items()
                if scores["split"] == split and mode in scores
                and mode in baseline.get("queries", {}).get(query, {})
            ]
            if pairs:
                mean, low, high = metrics.paired_bootstrap(*zip(*pairs))
                figures["file_ndcg_bootstrap"] = [round(mean, 1), round(low, 1), round(high, 1)]
            out.setdefault(split, {})[mode] = figures
    return out


def run_repos(args: argparse.Namespace) -> int:
    from benches.quality import repos as bench

    names = [n for n in args.repos.split(",") if n]
    builds = build_fast_indexes(args.split, names, args.index_cache)
    argv = ["--split", args.split, "--index-cache", str(args.index_cache), "--out",
            str(args.out)]
    if names:
        argv += ["--repos", ",".join(names)]
    bench.main(argv)
    result = json.loads(args.out.read_text())
    result["model"] = next(iter(builds.values()))["model"] if builds else FAST
    result["fast_index_builds"] = builds
    if args.baseline.is_file():
        baseline = json.loads(args.baseline.read_text())
        result["baseline"] = {"file": str(args.baseline), "git": baseline.get("git"),
                              "date": baseline.get("date")}
        result["versus_default"] = compare(result, baseline)
        for split, modes in result["versus_default"].items():
            for mode, metrics in modes.items():
                ndcg = metrics["file_ndcg"]
                print(f"{split:4} {mode:16} NDCG@10 default {ndcg['default']:5.1f} fast"
                      f" {ndcg['fast']:5.1f} ({ndcg['difference']:+.1f})", file=sys.stderr)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def run_cosqa(args: argparse.Namespace) -> int:
    from sharc.index import Index

    from benches.quality import run as quality
    from benches.quality.configs import all_configs, select_configs
    from benches.quality.engines import Engines

    datasets = [d.limited(args.limit_queries) for d in quality.load_datasets(["cosqa"])]
    configs = select_configs(
        all_configs(), "sharc:keyword,sharc:independent:semantic,sharc:independent:hybrid"
    )
    payload: dict[str, Any] = {"models": {}}
    for label, model in (("default", None), ("fast", FAST)):
        engines = Engines(
            index_factory=functools.partial(Index.open, model=model),
            index_cache=args.index_cache / label,
        )
        rows = quality.evaluate(datasets, configs, engines)
        payload["models"][label] = quality.report(
            rows, datasets, configs, engines,
            {"index_cache": str(args.index_cache / label), "sets": ["cosqa"],
             "limit_queries": args.limit_queries or None, "model_argument": model},
        )
        for row in rows:
            figures = row.to_json().get("metrics", {})
            print(f"{label:8} {row.config:30} MRR@10 {figures.get('mrr@10', float('nan')):5.1f}"
                  f" nDCG@10 {figures.get('ndcg@10', float('nan')):5.1f}", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1) + "\n")
    return 0


def recompare(args: argparse.Namespace) -> int:
    """The comparison again from the stored results, without searching."""
    result = json.loads(args.out.read_text())
    result["versus_default"] = compare(result, json.loads(args.baseline.read_text()))
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    repos = commands.add_parser("repos", help="the repository benchmark with the fast model")
    repos.add_argument("--split", choices=("dev", "test", "all"), default="all")
    repos.add_argument("--repos", default="", help="comma-separated repository names")
    repos.add_argument("--index-cache", type=Path,
                       default=data_dir() / "index-cache" / "repos-fast")
    repos.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_repos_fast.json")
    repos.add_argument("--baseline", type=Path, default=RESULTS_DIR / "quality_repos.json")
    again = commands.add_parser("compare", help="recompute the comparison from stored results")
    again.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_repos_fast.json")
    again.add_argument("--baseline", type=Path, default=RESULTS_DIR / "quality_repos.json")
    cosqa = commands.add_parser("cosqa", help="CoSQA dev, default and fast model")
    cosqa.add_argument("--index-cache", type=Path,
                       default=data_dir() / "index-cache" / "cosqa-fast-vs-default")
    cosqa.add_argument("--limit-queries", type=int, default=0)
    cosqa.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_cosqa_fast.json")
    args = parser.parse_args(argv)
    commands_run = {"repos": run_repos, "compare": recompare, "cosqa": run_cosqa}
    return commands_run[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
