"""Stage 2 and 3: the arms' candidates, fused into one 0-1 score per chunk.

A search runs two arms, `keyword` (BM25) and `semantic` (vectors); a third, `FAST_SEMANTIC`,
is not fused (`sharc.ranking.pipeline` sets it apart). `fuse` combines them: by
default a convex combination of each arm's scores, min-max normalised over its top hits
(`score_fusion`); weighted reciprocal rank fusion (`reciprocal_rank_fusion`) is the alternative.
The keyword arm's share depends on the query: an identifier leans on keywords, a question in
words on vectors.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from sharc.ranking.query import QueryKind
from sharc.ranking.settings import DEFAULT_SETTINGS, RankingSettings

KEYWORD = "keyword"
SEMANTIC = "semantic"
#: The other vector set's arm (the fast model's, beside the default model's): never fused;
#: with the keyword arm's hits it makes a third opinion on the order of files
#: (`RankingSettings.fast_opinion_share`).
FAST_SEMANTIC = "semantic (fast)"


@dataclass(frozen=True, slots=True)
class ArmWeights:
    """The arm weights and RRF constant for one kind of query."""

    keyword: float
    semantic: float
    k: int

    def weight(self, arm: str) -> float:
        """The weight of `arm` (`keyword` or `semantic`); 1.0 for an arm it does not know."""
        return {KEYWORD: self.keyword, SEMANTIC: self.semantic}.get(arm, 1.0)

    def as_dict(self) -> dict[str, float]:
        return {KEYWORD: self.keyword, SEMANTIC: self.semantic}


def weights_for(kind: QueryKind, settings: RankingSettings = DEFAULT_SETTINGS) -> ArmWeights:
    """Identifier queries lean on the keyword arm, natural language on the semantic arm."""
    if kind is QueryKind.IDENTIFIER:
        keyword = settings.identifier_keyword
    elif kind is QueryKind.NATURAL_LANGUAGE:
        keyword = settings.natural_keyword
    else:
        keyword = settings.mixed_keyword
    return ArmWeights(keyword=keyword, semantic=1.0 - keyword, k=settings.k)



def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = 60
) -> list[tuple[str, float]]:
    """Weighted RRF: each id scores the sum over arms of `weight / (k + rank)`, rank from 1.

    An arm missing from `weights` counts 1.0; an id repeated within one arm counts once, at its
    best rank. Ties keep the order in which ids first appear, arms taken heaviest first.
    """
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    scores: dict[str, float] = {}
    arms = sorted(rankings, key=lambda arm: -weights.get(arm, 1.0))
    for arm in arms:
        weight = weights.get(arm, 1.0)
        seen: set[str] = set()
        for rank, item in enumerate(rankings[arm], start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def score_fusion(
    hits: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float],
    floor_rank: int = 100,
    exhausted_floor: Mapping[str, float] | None = None,
    floor_score: Mapping[str, float] | None = None,
    unseen: Mapping[str, Collection[str]] | None = None,
) -> list[tuple[str, float]]:
    """Convex combination of each arm's min-max normalised scores, 0-1, best first.

    Within an arm the best hit scores 1 and the hit at `floor_rank` scores 0; lower hits are
    clipped to 0, and a lone hit (or all-equal hits) scores 1. An arm with fewer hits has run
    out of matches: its floor is `exhausted_floor[arm]`, the score of a non-match (0 for BM25),
    or its last hit's score for an arm not named there. An arm named in `floor_score` scales
    its hits down to that score rather than 0 (a hit past the floor rank still scores 0). The
    ids in `unseen[arm]` are ones that arm could not have returned (a chunk without a vector
    is not judged by the vectors): for them it counts what the other arms gave them, as a
    search without that arm would. Each arm counts its weight divided by the total weight of
    the arms that returned hits, so a chunk at the top of every arm scores 1.0. An arm missing
    from `weights` counts 1.0; an id repeated within one arm counts once, at its best score.
    Ties keep first appearance, heaviest arm first.
    """
    if floor_rank < 1:
        raise ValueError(f"floor_rank must be at least 1, got {floor_rank}")
    ran = {arm: list(arm_hits) for arm, arm_hits in hits.items() if arm_hits}
    total = sum(max(0.0, weights.get(arm, 1.0)) for arm in ran)
    if total <= 0:
        return []
    order = sorted(ran, key=lambda arm: -weights.get(arm, 1.0))
    normalised = {
        arm: _lifted(
            normalise_arm(ran[arm], floor_rank, (exhausted_floor or {}).get(arm)),
            (floor_score or {}).get(arm, 0.0),
            floor_rank,
        )
        for arm in order
    }
    scores: dict[str, float] = {}
    for arm in order:
        share = max(0.0, weights.get(arm, 1.0)) / total
        for item, value in normalised[arm].items():
            scores[item] = scores.get(item, 0.0) + share * value
        for item in (unseen or {}).get(arm, ()):
            if item in normalised[arm]:
                continue
            others = [normalised[o][item] for o in order if o != arm and item in normalised[o]]
            if others:
                scores[item] = scores.get(item, 0.0) + share * sum(others) / len(others)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def _lifted(normalised: dict[str, float], low: float, floor_rank: int) -> dict[str, float]:
    """The first `floor_rank` scores scaled from 0-1 to `low`-1."""
    if not low:
        return normalised
    return {
        item: low + (1.0 - low) * value if rank < floor_rank else value
        for rank, (item, value) in enumerate(normalised.items())
    }


def normalise_arm(
    arm_hits: Sequence[tuple[str, float]], floor_rank: int = 100, exhausted_floor: float | None = None
) -> dict[str, float]:
    """One arm's hits min-max scaled to 0-1, in order: the best hit scores 1, the hit at
    `floor_rank` 0 (or `exhausted_floor`, when given and the arm ran out before that rank);
    an id repeated keeps its first (best) score."""
    if not arm_hits:
        return {}
    best = arm_hits[0][1]
    if len(arm_hits) < floor_rank and exhausted_floor is not None:
        floor = exhausted_floor
    else:
        floor = arm_hits[min(floor_rank, len(arm_hits)) - 1][1]
    spread = best - floor
    normalised: dict[str, float] = {}
    for item, raw in arm_hits:
        if item not in normalised:
            normalised[item] = min(1.0, max(0.0, (raw - floor) / spread)) if spread > 0 else 1.0
    return normalised


def fuse(
    hits: Mapping[str, Sequence[tuple[str, float]]],
    kind: QueryKind,
    settings: RankingSettings = DEFAULT_SETTINGS,
    unseen: Collection[str] = (),
) -> list[tuple[str, float]]:
    """The arms' `(id, score)` hits, best first, fused for a query of `kind`: scores 0-1;
    `unseen`: ids the semantic arm could not have returned (no vector yet).

    With method `score` and both arms, `score_fusion` (a keyword list shorter than the floor
    rank has run out of matching chunks, so its floor is BM25's zero). With `rrf`, or a single
    arm (where only its order matters, and RRF's rank curve suits `rerank`'s factors best on
    the dev sets), `reciprocal_rank_fusion` over the ranks, its scores divided by the best it
    can give (`normalize_scores`). But for an identifier searched by BM25 alone (an index
    without vectors yet) its scores are kept, scaled 0-1 as in score fusion: the chunks that
    hold the name whole lead those that hold only its parts by far more than a rank, and a
    penalty (a config file's) must not reverse them.
    """
    arm_weights = {arm: weights_for(kind, settings).weight(arm) for arm in hits if hits[arm]}
    if settings.method == "score" and len(arm_weights) > 1:
        return score_fusion(
            hits, arm_weights, floor_rank=settings.floor_rank, exhausted_floor={KEYWORD: 0.0},
            floor_score={SEMANTIC: settings.semantic_floor_score}, unseen={SEMANTIC: unseen},
        )
    if settings.method == "score" and kind is QueryKind.IDENTIFIER and set(arm_weights) == {KEYWORD}:
        scaled = normalise_arm(hits[KEYWORD], settings.floor_rank, exhausted_floor=0.0)
        return sorted(scaled.items(), key=lambda pair: -pair[1])
    rankings = {arm: [item for item, _ in arm_hits] for arm, arm_hits in hits.items()}
    fused = reciprocal_rank_fusion(rankings, arm_weights, k=settings.k)
    normalised = normalize_scores([score for _, score in fused], weights=arm_weights, k=settings.k)
    return [(item, score) for (item, _), score in zip(fused, normalised)]


def normalize_scores(
    scores: Sequence[float],
    *,
    weights: Mapping[str, float] | None = None,
    arms: int | None = None,
    k: int = 60,
) -> list[float]:
    """Fused scores as 0-1 for display: divided by the best score RRF can give.

    That best score, `sum(weights) / (k + 1)`, belongs to a chunk ranked first by every arm
    that ran, so 1.0 means "top of every arm" and the figure is comparable across queries
    (min-max scaling would always show 1.0 and 0.0). Pass the weights of the arms that ran;
    `arms=n` alone assumes a weight of 1.0 each. Scores lifted past the best by `rerank` are
    clipped to 1.0.
    """
    if weights is not None:
        total = sum(weight for weight in weights.values() if weight > 0)
    elif arms is not None:
        total = float(arms)
    else:
        raise TypeError("normalize_scores needs the arm weights (or the number of arms)")
    best = total / (k + 1)
    if best <= 0:
        return [0.0 for _ in scores]
    return [min(1.0, max(0.0, score / best)) for score in scores]
