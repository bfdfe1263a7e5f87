"""Stage 7: shaping. The definitions of a name the query is made of first, then best first,
and no file filling the top."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from sharc.ranking.boosts import (
    DefinitionMatch,
    boost_bound,
    definition_match,
    definition_tier,
)
from sharc.ranking.files import file_bound
from sharc.ranking.penalties import path_penalty, penalty_bound
from sharc.ranking.query import QueryIntent
from sharc.ranking.records import TIER_CONFIG, TIER_DOCS, C, RankedChunk, Scored
from sharc.ranking.settings import RankingSettings
from sharc.ranking.visibility import DefinitionFacts

T = TypeVar("T")


def score_ceiling(intent: QueryIntent, settings: RankingSettings) -> float:
    """Above any score the earlier stages can give a chunk (fused scores are at most 1)."""
    lifts = (1.0 + settings.coherence_lift) * file_bound(settings)
    return boost_bound(intent, settings) * penalty_bound(settings) * lifts


def definitions_first(
    candidates: Sequence[Scored[C]],
    intent: QueryIntent,
    settings: RankingSettings,
    *,
    demoted: Mapping[str, int] | None = None,
    facts: Mapping[str, DefinitionFacts] | None = None,
    any_case: bool = True,
) -> list[Scored[C]]:
    """A query that is one name: the chunks that define it come first, the primary definition
    first (`primary_key`), and the score orders definitions that rank alike. A section of docs
    or config named like it is no definition, and definitions in tests, examples, generated or
    vendored files stay where their score puts them, unless the query asks for that kind of
    file. `demoted` and `facts` say what the declarations say (`demoted_definitions`,
    `sharc.ranking.visibility.DefinitionFacts`); without `any_case`, only a definition in the
    query's case counts (a type in its own file asked for in another case does not)."""
    if not (settings.definitions_first and intent.single_name):
        return list(candidates)
    keys: dict[int, tuple[int, ...]] = {}
    for position, (chunk, _) in enumerate(candidates):
        match = definition_match(chunk, intent)
        if not definition_tier(match) or (not any_case and not match.exact) or (
            chunk.tier in (TIER_DOCS, TIER_CONFIG)
            or path_penalty(chunk.path, intent, settings) < 1.0
        ):
            continue
        chunk_id = getattr(chunk, "id", None)
        keys[position] = primary_key(
            chunk, match, (demoted or {}).get(chunk_id, 0), (facts or {}).get(chunk_id)
        )
    # Each distinct key is one level above the scores below it: the score orders a level.
    levels = {key: level for level, key in enumerate(sorted(set(keys.values())), 1)}
    step = score_ceiling(intent, settings)
    return [
        (chunk, score + levels[keys[position]] * step) if position in keys else (chunk, score)
        for position, (chunk, score) in enumerate(candidates)
    ]


#: How many places a definition can fall behind the others of its tier.
DEMOTION_STEPS = 3


def primary_key(
    chunk: RankedChunk, match: DefinitionMatch, demotion: int, facts: DefinitionFacts | None
) -> tuple[int, ...]:
    """How surely a definition of the queried name is the one meant, larger first, each
    quality above all the ones after it: the tier of its match (`definition_tier`), not
    declared private or deprecated (`demoted_definitions`), in the file named after it
    (`Store.cs` for a partial class `Store` spread over `Store.Settings.cs`), a C++
    template's primary definition, even one only declared (not a specialisation:
    `packet_traits`, not `packet_traits<float>`; Eigen declares `template<typename T> struct
    traits;` and specialises it for every expression), with a body (not a forward
    declaration, prototype or one-line reopening), the part that declares it (not a long doc
    comment the chunker cut off from its declaration), and with a keyword (`def
    start_link`, not a part whose doc examples only call it), in a public module (`io`, not
    its pure-Python twin `_pyio`; after a body: attrs implements `evolve` in `_make.py`, and
    its `__init__.pyi` only declares it), the shortest
    qualified name (`Http::Client` before `Http::Auth::Basic::Client`), the one the others
    build on (its file imported by another's: the strict `ByteString` the lazy one is made
    of), the larger body by powers of two, every part of a definition the chunker cut
    counted (a copy kept for an older platform, or a theme's override, is smaller; the
    1,460-line `subprocess.Popen` is larger than the 72 lines of a `Popen` that one start
    method of `multiprocessing` defines)."""
    stub = facts is not None and facts.stub
    # Named outside comments, then declared with a keyword (`def`, `fn`, `class`...).
    declared = int(facts is None or not facts.undeclared) + int(
        facts is not None and facts.keyword_declared
    )
    depth = min(NESTING_LEVELS, chunk.fqn.count(".")) if chunk.fqn else 0
    lines = max(1, (facts.lines if facts is not None else 0)
                or chunk.end_line - chunk.start_line + 1)
    return (
        definition_tier(match),
        DEMOTION_STEPS - min(DEMOTION_STEPS, demotion),
        int(match.definition_file),
        int(facts is None or not facts.specialisation),
        int(not stub),
        declared,
        int(facts is None or not facts.internal),
        NESTING_LEVELS - depth,
        int(facts is not None and facts.built_upon),
        min(SIZE_LEVELS, lines.bit_length()),
    )


#: Qualified names deeper than this many levels rank alike.
NESTING_LEVELS = 4
#: Definitions of more than 2 ** (this - 1) lines rank alike by size.
SIZE_LEVELS = 9


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


def first_of(
    candidates: Sequence[Scored[C]],
    chunk_ids: Sequence[str],
    read: Callable[[Sequence[str]], Mapping[str, C]],
    *,
    accepts: Callable[[C], bool] | None = None,
) -> list[Scored[C]]:
    """`candidates` (best first) with the chunks of `chunk_ids` above every other, in that
    order, scored just above the best: what the query points at (the line it gives, the text
    it quotes). `read` reads those not among the candidates, `accepts` filters them as the
    search's filters do."""
    wanted = list(dict.fromkeys(chunk_ids))
    found = {chunk.id: chunk for chunk, _ in candidates if chunk.id in wanted}
    unread = [chunk_id for chunk_id in wanted if chunk_id not in found]
    records = read(unread) if unread else {}
    for chunk_id in unread:
        record = records.get(chunk_id)
        if record is not None and (accepts is None or accepts(record)):
            found[chunk_id] = record
    lifted = [found[chunk_id] for chunk_id in wanted if chunk_id in found]
    top = max((score for _, score in candidates), default=0.0)
    step = max(top, 1.0) * 1e-6
    return [
        (chunk, top + step * (len(lifted) - position)) for position, chunk in enumerate(lifted)
    ] + [pair for pair in candidates if pair[0].id not in found]


def result_groups(
    candidates: Sequence[Scored[C]],
    limit: int,
    *,
    by_file: bool,
    per_file: int | None,
    share: float,
) -> list[list[Scored[C]]]:
    """What a search returns, as groups of candidates (best first in, best first out), with
    the scores a user reads (`shown_scores`).

    By file: the first `limit` files, each as its best candidate followed by up to
    `per_file - 1` (None: any number) of its later ones that score at least `share` of it,
    a score above 1 counted as 1 (a boosted definition keeps its file's other close hits
    under it; read uncapped, the function-level sets lost 4-5 points of MRR@10): a user
    reads one hit per file, with the file's other close hits under it, so ten results are
    ten files and the function a question is about is not lost when it is its file's second
    hit. Otherwise: the first `limit` candidates, each its own group."""
    if not by_file:
        return shown_scores([[pair] for pair in candidates[:limit]])
    groups: dict[str, list[Scored[C]]] = {}
    for chunk, score in candidates:
        group = groups.get(chunk.path)
        if group is None:
            if len(groups) < limit:
                groups[chunk.path] = [(chunk, score)]
        elif (per_file is None or len(group) < per_file) and (
            min(1.0, score) >= share * min(1.0, group[0][1])
        ):
            group.append((chunk, score))
    return shown_scores(list(groups.values()))


def shown_scores(groups: list[list[Scored[C]]]) -> list[list[Scored[C]]]:
    """Scores on the 0-1 scale a user reads, in the same order: boosts and lifts put the
    best results of most searches above 1, and capped there the first three could all
    read 1.00; above 1, every score is divided by the best one."""
    best = max((score for group in groups for _, score in group), default=0.0)
    if best <= 1.0:
        return groups
    return [[(chunk, score / best) for chunk, score in group] for group in groups]


def _path_of(item: Any) -> str:
    if isinstance(item, tuple):
        item = item[0]
    return str(item.path)
