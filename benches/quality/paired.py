"""The repository benchmark against an earlier result file (another commit, the same queries):
hybrid's per-query change, paired, with bootstrap intervals (`benches.quality.repos
--baseline`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benches.quality import metrics

#: Each query's score asked otherwise (`_query_json`) and its name among a split's figures.
ASKED_OTHERWISE = (
    ("framed_definition_at_1", "definition_at_1_framed"),
    ("retyped_definition_at_1", "definition_at_1_retyped"),
    ("member_definition_at_1", "definition_at_1_member"),
    ("named_file_at_1", "file_at_1_named"),
    ("located_at_1", "line_at_1_located"),
    ("quoted_at_1", "text_at_1_quoted"),
)


def against_baseline(
    result: dict[str, Any], baseline: dict[str, Any], categories: Sequence[str]
) -> dict[str, Any]:
    """Hybrid here minus hybrid in `baseline` (an earlier result file: another commit, the same
    queries), per split, with paired bootstrap intervals: file NDCG@10 per category, and
    definition at 1 over the symbol queries."""
    out: dict[str, Any] = {"baseline_git": baseline.get("git"), "splits": {}}
    before = baseline["queries"]
    for split in result["splits"]:
        shared = [
            (query_id, entry) for query_id, entry in result["queries"].items()
            if entry["split"] == split and query_id in before and "hybrid" in entry
        ]
        entry: dict[str, Any] = {}
        for category in (None, *categories):
            pairs = [(now["hybrid"]["file_ndcg"], before[qid]["hybrid"]["file_ndcg"])
                     for qid, now in shared if category is None or now["category"] == category]
            if pairs:
                entry[f"file_ndcg_{category or 'all'}"] = [
                    round(x, 2) for x in metrics.paired_bootstrap(*zip(*pairs))
                ]
        pairs = [(now["hybrid"]["shown_ndcg"], before[qid]["hybrid"]["shown_ndcg"])
                 for qid, now in shared if "shown_ndcg" in before[qid]["hybrid"]]
        if pairs:
            entry["shown_ndcg_all"] = [
                round(x, 2) for x in metrics.paired_bootstrap(*zip(*pairs))
            ]
        pairs = [(now["hybrid"]["definition_at_1"], before[qid]["hybrid"]["definition_at_1"])
                 for qid, now in shared if now["hybrid"].get("definition_at_1") is not None]
        if pairs:
            entry["definition_at_1"] = [round(x, 2) for x in metrics.paired_bootstrap(*zip(*pairs))]
        pairs = [(now["hybrid"]["definition_at_1"], before[qid]["hybrid"]["definition_at_1"])
                 for qid, now in shared if now["hybrid"].get("definition_at_1") is not None
                 and now.get("duplicate")]
        if pairs:
            entry["definition_at_1_duplicate"] = [
                round(x, 2) for x in metrics.paired_bootstrap(*zip(*pairs))
            ]
        for per_query, name in ASKED_OTHERWISE:
            pairs = [(now["hybrid"][per_query], before[qid]["hybrid"][per_query])
                     for qid, now in shared
                     if per_query in before[qid]["hybrid"] and per_query in now["hybrid"]]
            if pairs:
                entry[name] = [round(x, 2) for x in metrics.paired_bootstrap(*zip(*pairs))]
        out["splits"][split] = entry
    return out
