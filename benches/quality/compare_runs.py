"""MRR@10 of one `benches.quality.run` result against another, per set, with the paired
bootstrap interval over queries: how a ranking setting is checked beyond the repository
benchmark.

    python -m benches.quality.run --sets cosqa,csn,handwritten --configs sharc:independent:hybrid \
        --index-cache benches/work/indexes --out /tmp/base.json
    python -m benches.quality.run ... --ranking 'file_share=0.15' --out /tmp/variant.json
    python -m benches.quality.compare_runs /tmp/base.json /tmp/variant.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benches.quality import metrics


def reciprocal_ranks(ranks: list[int | None], depth: int = 10) -> list[float]:
    """Per query: 1/rank of the first hit within `depth`, else 0."""
    return [1.0 / rank if rank and rank <= depth else 0.0 for rank in ranks]


def compare(base: dict, variant: dict, config: str) -> list[str]:
    """One line per set both results hold for `config`."""
    lines = []
    for name, configs in variant["sets"].items():
        if config not in configs or config not in base["sets"].get(name, {}):
            continue
        ours, theirs = configs[config], base["sets"][name][config]
        mean, low, high = metrics.paired_bootstrap(
            reciprocal_ranks(ours["ranks"]), reciprocal_ranks(theirs["ranks"])
        )
        lines.append(
            f"{name:12} MRR@10 {theirs['metrics']['mrr@10']:5.1f} -> {ours['metrics']['mrr@10']:5.1f}"
            f"  {mean:+.1f} [{low:+.1f}, {high:+.1f}]"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("variants", type=Path, nargs="+")
    parser.add_argument("--config", default="sharc:independent:hybrid")
    args = parser.parse_args(argv)
    base = json.loads(args.base.read_text())
    for path in args.variants:
        print(path.name)
        for line in compare(base, json.loads(path.read_text()), args.config):
            print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
