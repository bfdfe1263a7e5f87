"""`make bench`: build the datasets, run every benchmark, rewrite the README tables.

Each step writes JSON under benches/results/. The quality grid is split by embedding mode so a
rerun of one part keeps the others; `--only quality|speed|graph|fuzz` narrows it. The
repository benchmark runs before the speed steps: its indexes hold the real embeddings the
query benchmarks sample their vectors from (`benches.speed.vector_load`). Only the GPU
encoder's benchmark is left out (`benches/gpu`, on a machine with an NVIDIA GPU); the
100,000-file monorepo (`benches.speed.monorepo`) takes hours on two cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

#: The vector-mode and chunking ablations embed everything again per configuration, so they
#: run on three of the CodeSearchNet-style sets, one of them Rust (the README says which).
ABLATION_DATASETS = "csn/click*,csn/requests*,csn/tokenizers*"
CACHE = ["--index-cache", "benches/work/indexes"]

#: Every mode of the repository benchmark the README reports.
REPO_MODES = "hybrid,keyword,semantic,hybrid-previous,hybrid-fast,semantic-fast"

STEPS = {
    "quality": [
        ["benches.quality.build"],
        ["benches.quality.repos", "--modes", REPO_MODES],
        ["benches.quality.monorepo"],
        ["benches.quality.monorepo", "--split", "test"],
        ["benches.quality.fast_model", "repos"],
        ["benches.quality.fast_model", "cosqa"],
        ["benches.quality.run", "--configs", "sharc:keyword,sharc:independent:*", *CACHE,
         "--out", "benches/results/quality_independent.json"],
        ["benches.quality.run", "--configs", "sharc:late:*", "--sets", "csn",
         "--datasets", ABLATION_DATASETS, *CACHE, "--out", "benches/results/quality_late.json"],
        ["benches.quality.run", "--configs", "sharc:combined:*", "--sets", "csn",
         "--datasets", ABLATION_DATASETS, *CACHE,
         "--out", "benches/results/quality_combined.json"],
        ["benches.quality.run", "--configs", "baseline:*", "--sets", "csn",
         "--datasets", ABLATION_DATASETS, "--out", "benches/results/quality_baselines.json"],
    ],
    "speed": [
        ["benches.speed.walk_chunk"],
        ["benches.speed.index_speed"],
        ["benches.speed.keyword_query"],
        ["benches.speed.concurrency"],
        ["benches.speed.distributed"],
        ["benches.speed.fast_model"],
        ["benches.speed.two_stage"],
        ["benches.speed.index_size"],
        ["benches.speed.monorepo"],
    ],
    "graph": [["benches.quality.graph"]],
    "fuzz": [["benches.fuzz.run"]],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(STEPS), help="run one group")
    args = parser.parse_args(argv)
    for group, steps in STEPS.items():
        if args.only and group != args.only:
            continue
        for step in steps:
            print(f"== python -m {' '.join(step)}", flush=True)
            subprocess.run([sys.executable, "-m", *step], check=True)
    subprocess.run([sys.executable, "-m", "benches.report"], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
