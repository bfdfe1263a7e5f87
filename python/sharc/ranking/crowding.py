"""A search past what crowds its first results, and the places it leaves filled.

In a repository made mostly of tests, the arms' best hundred can hold almost nothing else:
the code a question is about is not a candidate at all. Where the chunks the query did not
ask for (tests, examples, vendored or generated code) fill the first results
(`crowded_out`), `pipeline.rank` asks the arms again, deeper, for the rest
(`uncrowded_hits`). And where one file's chunks fill an arm's whole list (BM25 alone: a
hundred methods of `App.hpp` for `CLI::App`), the other files asked for lie deeper too. Either
way, what the second search adds comes after what the first ranked (`filled`): a search still
gives as many results as it is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sharc.ranking.boosts import definition_match
from sharc.ranking.explain import Trace
from sharc.ranking.penalties import crowds
from sharc.ranking.query import QueryIntent
from sharc.ranking.records import C, Scored
from sharc.ranking.settings import RankingSettings


def crowded_out(
    candidates: Sequence[Scored[C]], intent: QueryIntent, settings: RankingSettings
) -> bool:
    """Whether chunks the query did not ask for (`unasked`) fill more than `crowded_share` of
    the first `crowded_window` candidates (not of the results asked for: asking for more
    results must not change the first ones)."""
    if settings.crowded_depth_factor <= 1 or not candidates:
        return False
    if intent.single_name:
        # A search for a name's definition: `definitions_first` finds it wherever it lives, and
        # the tests or generated code around it are what else the name is about.
        return False
    top = candidates[: settings.crowded_window]
    crowding = sum(unasked(chunk, intent) for chunk, _ in top)
    return crowding > settings.crowded_share * len(top)


def unasked(chunk: C, intent: QueryIntent) -> bool:
    """A chunk of a kind that crowds (`crowds`) and that the query does not name either: the
    definition of a name the query holds is asked for wherever it lives (`what calls step_12`,
    with `step_12` defined in a `generated/` module)."""
    return crowds(chunk.path, intent) and not definition_match(chunk, intent).matched


def uncrowded_hits(
    query: str,
    arms: Mapping[str, Callable[[str, int], list[tuple[str, float]]]],
    read: Callable[[Sequence[str]], Mapping[str, C]],
    depth: int,
    intent: QueryIntent,
    settings: RankingSettings,
) -> dict[str, list[tuple[str, float]]]:
    """Each arm's best `depth` hits among the chunks the query did not leave out
    (`unasked`), out of `crowded_depth_factor` times as many."""
    deeper = {name: arm(query, depth * settings.crowded_depth_factor) for name, arm in arms.items()}
    records = read(list({chunk_id for arm_hits in deeper.values() for chunk_id, _ in arm_hits}))
    kept = {chunk_id for chunk_id, record in records.items() if not unasked(record, intent)}
    return {
        name: [hit for hit in arm_hits if hit[0] in kept][:depth]
        for name, arm_hits in deeper.items()
    }


def file_count(candidates: Sequence[Scored[C]]) -> int:
    return len({chunk.path for chunk, _ in candidates})


def filled(
    candidates: Sequence[Scored[C]],
    more: Sequence[Scored[C]],
    trace: Trace | None,
    carried: Mapping[str, tuple[Any, ...]],
    stage: str,
) -> list[Scored[C]]:
    """`candidates`, then those of `more` in files they do not hold, in their order and
    scaled below the lowest of `candidates` (recorded in `trace` as `stage`, after putting
    back what it `carried` from the ranking before). After a search past the tests that
    crowded the results, `more` is those tests: the code comes first, and BM25 alone over
    AutoMapper's tests answers 10 files of 10 (4 before)."""
    if trace is not None:
        trace.carry(carried)
    if not candidates:
        return list(more)
    paths = {chunk.path for chunk, _ in candidates}
    rest = [(chunk, score) for chunk, score in more if chunk.path not in paths]
    if not rest:
        return list(candidates)
    floor = min(score for _, score in candidates)
    top = max(score for _, score in rest)
    factor = floor / top if top > floor else 1.0
    rest = [(chunk, score * factor) for chunk, score in rest]
    if trace is not None:
        trace.stage(stage, rest)
    return [*candidates, *rest]
