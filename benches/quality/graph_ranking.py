"""The graph neighbour stage (`RankingSettings.neighbour_lift`) against the default ranking on
the repository benchmark: file NDCG@10 on dev and test, overall and per category, with paired
bootstrap intervals over queries.

Opens the cached indexes of `python -m benches.quality.repos` (their `refs` tables filled: an
update reads every file again and embeds nothing) and searches each query twice, with the
defaults and with the variant. The variant was chosen on dev (`benches.quality.tune_repos`);
the test repositories are read once, here.

    python -m benches.quality.graph_ranking neighbour_lift=0.5,neighbour_seeds=3 \\
        --out benches/results/quality_repos_graph.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import RESULTS_DIR, data_dir
from benches.quality.repos import CATEGORIES, load_repos
from benches.quality.tune_repos import evaluate, open_indexes, parse_variant


def compare(split: str, variant: Any, base: Any, index_cache: Path) -> dict[str, Any]:
    """Both rankings over one split's repositories: means over repositories, and the
    variant minus the defaults per query with its interval, overall and per category."""
    repos = load_repos(split)
    opened = open_indexes(repos, index_cache)
    for repo, index in opened:
        if not index._reader_manifest().has_references():
            raise SystemExit(f"{repo.name}: the index has no code graph; run an update first")
    scores = {"defaults": evaluate(opened, base), "variant": evaluate(opened, variant)}
    categories = {q.id: q.category for repo in repos for q in repo.queries}
    difference = {}
    for category in ("all", *CATEGORIES):
        ids = sorted(i for i in categories if category == "all" or categories[i] == category)
        mean, low, high = metrics.paired_bootstrap(
            [scores["variant"]["per_query"][i] for i in ids],
            [scores["defaults"]["per_query"][i] for i in ids],
        )
        difference[category] = [round(mean, 1), round(low, 1), round(high, 1)]
    for _, index in opened:
        index.close()
    return {
        "repositories": len(opened),
        "queries": len(categories),
        **{
            name: {key: round(value, 1) for key, value in result.items() if key != "per_query"}
            for name, result in scores.items()
        },
        "variant_minus_defaults": difference,
    }


def main(argv: list[str] | None = None) -> int:
    from sharc.ranking import DEFAULT_SETTINGS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", help="field=value,... (chosen on dev)")
    parser.add_argument("--splits", default="dev,test")
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_repos_graph.json")
    args = parser.parse_args(argv)
    from benches.quality.run import git_commit, machine

    variant = parse_variant(args.variant, DEFAULT_SETTINGS)
    result: dict[str, Any] = {
        "benchmark": "graph neighbour stage on the sharc repository benchmark",
        "command": "python -m benches.quality.graph_ranking " + args.variant,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git": git_commit(),
        "machine": machine(),
        "variant": args.variant,
        "metrics_note": "file NDCG@10, percent, means per repository then over repositories;"
        " intervals: paired bootstrap over queries (variant minus defaults)",
        "splits": {},
    }
    for split in args.splits.split(","):
        entry = compare(split, variant, DEFAULT_SETTINGS, args.index_cache)
        result["splits"][split] = entry
        print(f"{split}: defaults {entry['defaults']} variant {entry['variant']}"
              f" difference {entry['variant_minus_defaults']}", file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
