"""The ranking pipeline, stage by stage: classify the query, take candidates from each arm,
fuse, boost what the query names, lift coherent files, apply penalties, shape the list.

`rank` is handed the arms and a way to read candidate records; it opens nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic

from sharc.ranking.boosts import apply_boosts
from sharc.ranking.coherence import apply_coherence
from sharc.ranking.fusion import fuse
from sharc.ranking.penalties import apply_penalties
from sharc.ranking.query import QueryIntent, QueryKind, classify_query
from sharc.ranking.records import C, Scored
from sharc.ranking.settings import DEFAULT_SETTINGS, RankingSettings
from sharc.ranking.shaping import diversify

#: An arm: `(query, depth) -> [(chunk id, score)]`, best first.
Arm = Callable[[str, int], list[tuple[str, float]]]
#: Reads the records of candidate ids (missing ids are left out: deleted since).
RecordReader = Callable[[Sequence[str]], Mapping[str, C]]


@dataclass(frozen=True)
class Ranking(Generic[C]):
    """The candidates best first, the arms that returned hits and the kind of query."""

    candidates: list[Scored[C]]
    arms: tuple[str, ...]
    kind: QueryKind


def candidate_depth(limit: int, filtered: bool) -> int:
    """How many hits each arm returns: enough for the stages to reorder and filter."""
    return max(100, limit * 10) * (4 if filtered else 1)


def rank(
    query: str,
    arms: Mapping[str, Arm],
    read: RecordReader[C],
    *,
    limit: int = 10,
    settings: RankingSettings = DEFAULT_SETTINGS,
    accepts: Callable[[C], bool] | None = None,
    include_tests: bool | None = None,
    max_per_file: int | None = 2,
) -> Ranking[C]:
    """Every stage in order over the candidates of `arms`; `accepts` filters records."""
    kind = classify_query(query)
    depth = candidate_depth(limit, accepts is not None)
    hits = {name: arm(query, depth) for name, arm in arms.items()}
    answered = tuple(name for name, arm_hits in hits.items() if arm_hits)
    fused = fuse(hits, kind, settings)
    intent = QueryIntent.of(query, kind, include_tests=include_tests, fused=len(answered) > 1)
    records = read([chunk_id for chunk_id, _ in fused])
    candidates = [
        (records[chunk_id], score)
        for chunk_id, score in fused
        if chunk_id in records and (accepts is None or accepts(records[chunk_id]))
    ]
    candidates = apply_boosts(candidates, intent, settings)
    candidates = apply_coherence(candidates, settings)
    candidates = apply_penalties(candidates, intent, settings)
    candidates.sort(key=lambda pair: -pair[1])
    if max_per_file:
        candidates = diversify(candidates, max_per_file=max_per_file)
    return Ranking(candidates, tuple(arms), kind)
