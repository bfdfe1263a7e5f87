"""Stage 7: shaping. The definitions of a name the query is made of first, then best first,
and no file filling the top."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from sharc.ranking.boosts import boost_bound, definition_match, definition_tier
from sharc.ranking.penalties import path_penalty, penalty_bound
from sharc.ranking.query import QueryIntent
from sharc.ranking.records import TIER_CONFIG, TIER_DOCS, C, Scored
from sharc.ranking.settings import RankingSettings
from sharc.ranking.visibility import DefinitionFacts

T = TypeVar("T")


def score_ceiling(intent: QueryIntent, settings: RankingSettings) -> float:
    """Above any score the earlier stages can give a chunk (fused scores are at most 1)."""
    return boost_bound(intent, settings) * penalty_bound(settings) * (1.0 + settings.coherence_lift)


def definitions_first(
    candidates: Sequence[Scored[C]],
    intent: QueryIntent,
    settings: RankingSettings,
    *,
    demoted: Collection[str] = (),
) -> list[Scored[C]]:
    """A query that is one name: each chunk that defines it rises by its `definition_tier`
    times `score_ceiling`, so definitions come first, the surest first, and the score orders
    each tier; within a tier, a definition whose id is in `demoted` comes after the others
    (`demoted_definitions`). A section of docs or config named like it is no definition, and
    definitions in tests, examples, generated or vendored files stay where their score puts
    them, unless the query asks for that kind of file."""
    if not (settings.definitions_first and intent.single_name):
        return list(candidates)
    step = score_ceiling(intent, settings)
    tiered = []
    for chunk, score in candidates:
        tier = definition_tier(definition_match(chunk, intent))
        if tier and (
            chunk.tier in (TIER_DOCS, TIER_CONFIG)
            or path_penalty(chunk.path, intent, settings) < 1.0
        ):
            tier = 0
        if tier:
            tier = 2 * tier - (getattr(chunk, "id", None) in demoted)
        tiered.append((chunk, score + tier * step))
    return tiered


def demoted_definitions(
    definitions: Mapping[str, DefinitionFacts], intent: QueryIntent
) -> frozenset[str]:
    """The definitions that follow the others of their tier: declared private, or a class
    method where the query names an instance method (`Client#push`)."""
    return frozenset(
        chunk_id
        for chunk_id, facts in definitions.items()
        if facts.private or (intent.instance_member and facts.class_level)
    )


def diversify(
    results: Sequence[T],
    max_per_file: int = 2,
    *,
    path_of: Callable[[T], str] | None = None,
) -> list[T]:
    """Keep the order, but let no file have more than `max_per_file` results before every
    other result has had its place; the overflow follows, in its original order.

    `path_of` reads an item's path; by default the `path` attribute of the item, or of its first
    element for the `(chunk, score)` pairs the ranking stages return.
    """
    if max_per_file <= 0:
        raise ValueError(f"max_per_file must be positive, got {max_per_file}")
    read_path: Callable[[Any], str] = path_of or _path_of
    kept: list[T] = []
    overflow: list[T] = []
    per_file: dict[str, int] = {}
    for item in results:
        path = read_path(item)
        count = per_file.get(path, 0)
        (kept if count < max_per_file else overflow).append(item)
        per_file[path] = count + 1
    return kept + overflow


def _path_of(item: Any) -> str:
    if isinstance(item, tuple):
        item = item[0]
    return str(item.path)
