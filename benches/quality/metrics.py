"""Scoring: MRR, MRR@10, Recall@1, Recall@10 and nDCG@10 over ranked code locations.

Two relevance rules:

- `function` (CoSQA, CodeSearchNet-style): a result hits the gold function when it is on the
  gold file, overlaps the function, and at least half of its own lines lie inside the function
  (a whole-file or whole-class chunk that merely contains the function does not count).
- `overlap` (hand-written): a result is relevant when its file is a target's file and, if the
  target has a line span, the lines overlap.

Every target counts once: a second result on an already-found target gains nothing (nDCG) and
does not count again (recall). With one target per query, Recall@k is "found in the top k".
With several, Recall@k is the share of targets found in the top k out of min(k, targets), so
Recall@1 is 1 when the first result is relevant; MRR uses the first relevant result; nDCG@10
uses binary gains with the ideal ranking putting min(10, targets) relevant results first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from benches.quality.dataset import HitRule, Target


class Located(Protocol):
    """Anything with a file path and a 1-based inclusive line span (sharc's SearchResult)."""

    @property
    def path(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...


@dataclass(frozen=True)
class Hit:
    """A plain ranked location."""

    path: str
    start_line: int
    end_line: int


def normalize_path(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./").lstrip("/")


def _overlap(a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    return max(0, min(a_end, b_end) - max(a_start, b_start) + 1)


def function_hit(result: Located, target: Target) -> bool:
    """The CoSQA / CodeSearchNet rule: same file, overlapping, at least half inside."""
    if normalize_path(result.path) != normalize_path(target.path):
        return False
    if target.start_line is None or target.end_line is None:
        return True
    start, end = min(result.start_line, result.end_line), max(result.start_line, result.end_line)
    inside = _overlap(start, end, target.start_line, target.end_line)
    return inside > 0 and 2 * inside >= end - start + 1


def overlap_hit(result: Located, target: Target) -> bool:
    """The hand-written rule: same file and, when the target has a span, overlapping lines."""
    if normalize_path(result.path) != normalize_path(target.path):
        return False
    if target.start_line is None or target.end_line is None:
        return True
    start, end = min(result.start_line, result.end_line), max(result.start_line, result.end_line)
    return _overlap(start, end, target.start_line, target.end_line) > 0


RULES: dict[str, Callable[[Located, Target], bool]] = {
    "function": function_hit,
    "overlap": overlap_hit,
}


def gains(results: Sequence[Located], targets: Sequence[Target], rule: HitRule) -> list[int]:
    """Per rank, 1 when the result finds a target not found higher up, else 0.

    A result that matches several targets credits the first unfound one (in target order).
    """
    judge = RULES[rule]
    found = [False] * len(targets)
    out = []
    for result in results:
        gain = 0
        for i, target in enumerate(targets):
            if not found[i] and judge(result, target):
                found[i] = True
                gain = 1
                break
        out.append(gain)
    return out


@dataclass(frozen=True)
class QueryScore:
    rank: int | None  # 1-based rank of the first relevant result; None if none returned
    rr: float  # reciprocal rank over the whole returned list
    rr_at_10: float
    recall_at_1: float
    recall_at_10: float
    ndcg_at_10: float


def read_in_order(results: Sequence[Located]) -> list[Located]:
    """Every hit where a user reads it: a result, then the hits of its file grouped under it
    (`same_file_hits` of a search grouped by file)."""
    return [hit for r in results for hit in (r, *getattr(r, "same_file_hits", ()))]


def score_query(results: Sequence[Located], targets: Sequence[Target], rule: HitRule) -> QueryScore:
    if not targets:
        raise ValueError("a query needs at least one target")
    g = gains(results, targets, rule)
    rank = next((i + 1 for i, gain in enumerate(g) if gain), None)
    rr = 1.0 / rank if rank else 0.0
    return QueryScore(
        rank=rank,
        rr=rr,
        rr_at_10=rr if rank and rank <= 10 else 0.0,
        recall_at_1=recall_at(g, len(targets), 1),
        recall_at_10=recall_at(g, len(targets), 10),
        ndcg_at_10=ndcg_at(g, len(targets), 10),
    )


def recall_at(g: Sequence[int], n_targets: int, k: int) -> float:
    return sum(g[:k]) / min(k, n_targets)


def ndcg_at(g: Sequence[int], n_targets: int, k: int) -> float:
    dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(g[:k]))
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(k, n_targets)))
    return dcg / ideal


METRICS = ("mrr", "mrr@10", "recall@1", "recall@10", "ndcg@10")


def aggregate(scores: Iterable[QueryScore]) -> dict[str, float]:
    """Means over queries, in percent (the papers' convention: MRR 45.0, not 0.45)."""
    scores = list(scores)
    if not scores:
        return {name: 0.0 for name in METRICS}
    n = len(scores)

    def mean(values: Iterable[float]) -> float:
        return round(100.0 * sum(values) / n, 2)

    return {
        "mrr": mean(s.rr for s in scores),
        "mrr@10": mean(s.rr_at_10 for s in scores),
        "recall@1": mean(s.recall_at_1 for s in scores),
        "recall@10": mean(s.recall_at_10 for s in scores),
        "ndcg@10": mean(s.ndcg_at_10 for s in scores),
    }


def rr_at_10(rank: int | None) -> float:
    """The reciprocal rank a first relevant result at `rank` gives MRR@10 (None: not found)."""
    return 1.0 / rank if rank and rank <= 10 else 0.0


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of `a - b` over paired per-query values, in percent, with its 95% bootstrap
    interval (queries resampled with replacement; seeded, so a rerun gives the same figures)."""
    import numpy as np

    if len(a) != len(b) or not a:
        raise ValueError(f"need two equally long, non-empty lists, got {len(a)} and {len(b)}")
    diff = 100.0 * (np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(resamples, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(diff.mean()), float(low), float(high)
