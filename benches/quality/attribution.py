"""Where the repository benchmark's questions in words go wrong, read from the ranking's own
explanations (`Index.search(explain=True)`), and how far any choice among today's lists could go.

    python -m benches.quality.attribution                # dev -> results/quality_attribution.json
    python -m benches.quality.attribution --split test   # held out: a report, never tuned on

For each question in words whose first file is not a target while a target file is in the top
10, the first result's chunk and the best-placed target's chunk are compared stage by stage:
did the wrong file lead already at fusion (and which arm ranked which chunk higher), or did a
later stage (boosts, penalties, files first, the whole file's match) overtake a target that
led? And from the stored per-question results (`results/quality_repos.json`), the file NDCG@10
a per-question choice would reach: the better arm alone, and the best of the hybrid and each
arm alone (an oracle: no ranking can pick so, but none of today's lists is better than it).
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import RESULTS_DIR, data_dir
from benches.quality.provenance import git_commit, machine
from benches.quality.repos import CATEGORIES, Repo, load_repos
from benches.quality.tune_repos import open_indexes

#: The stages after fusion that scale a score, in the order the pipeline runs them.
STAGES = ("boosts", "coherence", "penalties", "files first", "whole file")
ARMS = ("keyword", "semantic")


def scores_by_stage(explanation: Any) -> list[float]:
    """A chunk's score at fusion and after each of `STAGES` (unchanged where a stage left it)."""
    scores, current = [explanation.fused], explanation.fused
    after = dict(explanation.stages)
    for stage in STAGES:
        current = after.get(stage, current)
        scores.append(current)
    return scores


def blame(wrong: Any, target: Any) -> str:
    """Where the wrong first result came to lead the target: `"fusion"` (it led there
    already) or the stage that overtook a target that led; `"first"` where something put
    either above every score."""
    if wrong.first or target.first:
        return "first"
    ahead, behind = scores_by_stage(wrong), scores_by_stage(target)
    if ahead[0] > behind[0]:
        return "fusion"
    for stage, (a, b) in zip(STAGES, zip(ahead[1:], behind[1:])):
        if a > b:
            return stage
    return "tie"


def arms_at_fusion(wrong: Any, target: Any) -> str:
    """Which arms ranked the wrong chunk above the target's (`both`, `keyword`, `semantic`,
    `neither`): an arm that did not return a chunk ranks it last."""
    def rank(explanation: Any, arm: str) -> int:
        place = explanation.arms.get(arm)
        return place.rank if place is not None else sys.maxsize

    higher = [arm for arm in ARMS if rank(wrong, arm) < rank(target, arm)]
    return "both" if len(higher) == 2 else (higher[0] if higher else "neither")


def attribution(opened: Sequence[tuple[Repo, Any]]) -> dict[str, Any]:
    """Counts over the questions in words of `opened` repositories (see the module's doc)."""
    counts: collections.Counter[str] = collections.Counter()
    arms: collections.Counter[str] = collections.Counter()
    for repo, index in opened:
        for query in repo.queries:
            if query.category == "symbol":
                continue
            counts["questions"] += 1
            wanted = {metrics.normalize_path(t.path) for t in query.targets}
            results = list(index.search(query.text, limit=10, explain=True))
            if not results or metrics.normalize_path(results[0].path) in wanted:
                continue
            counts["first file wrong"] += 1
            target = next(
                (r for r in results if metrics.normalize_path(r.path) in wanted), None
            )
            if target is None:
                counts["no target in the top 10"] += 1
                continue
            where = blame(results[0].explanation, target.explanation)
            counts[f"led by: {where}"] += 1
            if where == "fusion":
                arms[arms_at_fusion(results[0].explanation, target.explanation)] += 1
    return {"counts": dict(counts), "arms_ranking_the_wrong_chunk_higher": dict(arms)}


def oracle(results: dict[str, Any], split: str) -> dict[str, dict[str, float]]:
    """File NDCG@10 (percent, the mean over repositories) per category of `split`: the
    hybrid, the better arm alone per question, and the best of the three lists per question."""
    per: dict[str, dict[str, dict[str, list[float]]]] = {}
    for query_id, entry in results["queries"].items():
        if entry["split"] != split:
            continue
        repo = query_id.rsplit("-", 1)[0]
        hybrid, keyword, semantic = (entry[m]["file_ndcg"] for m in ("hybrid", *ARMS))
        values = {"hybrid": hybrid, "better arm": max(keyword, semantic),
                  "best of three": max(hybrid, keyword, semantic)}
        for category in ("all", entry["category"]):
            for name, value in values.items():
                per.setdefault(category, {}).setdefault(name, {}).setdefault(repo, []).append(value)
    return {
        category: {
            name: round(100 * sum(sum(v) / len(v) for v in repos.values()) / len(repos), 1)
            for name, repos in lists.items()
        }
        for category, lists in per.items()
        if category in ("all", *CATEGORIES)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--results", type=Path, default=RESULTS_DIR / "quality_repos.json")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    opened = open_indexes(load_repos(args.split), args.index_cache)
    result = {
        "benchmark": "repository benchmark: where questions in words go wrong",
        "date": dt.date.today().isoformat(),
        "git": git_commit(),
        "machine": machine(),
        "split": args.split,
        "attribution": attribution(opened),
        "oracle": oracle(json.loads(args.results.read_text()), args.split),
    }
    suffix = "" if args.split == "dev" else "_test"
    out = args.out or RESULTS_DIR / f"quality_attribution{suffix}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    json.dump({k: result[k] for k in ("attribution", "oracle")}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
