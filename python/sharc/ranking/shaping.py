"""Stage 7: shaping. The definitions of a name the query is made of first, then best first,
and no file filling the top."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    demoted: Mapping[str, int] | None = None,
) -> list[Scored[C]]:
    """A query that is one name: each chunk that defines it rises by its `definition_tier`
    times `score_ceiling`, so definitions come first, the surest first, and the score orders
    each tier; within a tier, a definition `demoted` by some steps (1 to `DEMOTION_STEPS`)
    comes after those demoted by fewer (`demoted_definitions`). A section of docs or config named like it is no definition, and
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
            demotion = (demoted or {}).get(getattr(chunk, "id", None), 0)
            tier = (DEMOTION_STEPS + 1) * tier - min(DEMOTION_STEPS, demotion)
        tiered.append((chunk, score + tier * step))
    return tiered


#: How many places a definition can fall behind the others of its tier.
DEMOTION_STEPS = 3


def demoted_definitions(
    definitions: Mapping[str, DefinitionFacts], intent: QueryIntent
) -> dict[str, int]:
    """The definitions that follow the others of their tier, and by how many steps: declared
    private, deprecated, or a class method where the query names an instance method
    (`Client#push`), two each; visible only within its crate (`pub(crate)`), one: it comes
    after `pub` but before a private one."""
    demoted = {}
    for chunk_id, facts in definitions.items():
        mismatched = intent.instance_member and facts.class_level
        steps = 2 * (facts.private + facts.deprecated + mismatched) + facts.restricted
        if steps:
            demoted[chunk_id] = min(DEMOTION_STEPS, steps)
    return demoted


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
