"""Stage 6b: graph neighbours. Architecture questions are answered by files that work
together: a file linked by the code graph (`sharc.graph`) to one of the files of the strongest
hits (it references a name that file defines or imports it, or the other way round) rises
with that file's score. Off by default (`neighbour_lift = 0`): on the repository benchmark it
moved file NDCG@10 by less than its noise, on dev and on test
(`benches/results/quality_repos_graph.json`).

The stage reads the links between files that the index hands in (`GraphFacts`), never the
manifest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sharc.ranking.query import QueryIntent, QueryKind
from sharc.ranking.records import C, Scored
from sharc.ranking.settings import RankingSettings

#: `(seed files, {candidate file: the names its candidates define})` -> per seed file, the
#: candidate files linked to it by a reference in either direction.
LinkReader = Callable[[Sequence[str], Mapping[str, frozenset[str]]], Mapping[str, frozenset[str]]]


@dataclass(frozen=True)
class GraphFacts:
    """How the ranking reads the code graph of an index (`sharc.graph.linked_files`)."""

    linked_files: LinkReader


def wants_neighbours(intent: QueryIntent, settings: RankingSettings) -> bool:
    """Whether the stage runs: on, and a question in words (a lone identifier has its
    definition to find, not its neighbourhood)."""
    return settings.neighbour_lift > 0 and intent.kind is not QueryKind.IDENTIFIER


def best_per_file(candidates: Sequence[Scored[C]]) -> dict[str, float]:
    """Each file's best score."""
    best: dict[str, float] = {}
    for chunk, score in candidates:
        if score > best.get(chunk.path, float("-inf")):
            best[chunk.path] = score
    return best


def seed_files(candidates: Sequence[Scored[C]], count: int) -> list[str]:
    """The files of the `count` strongest candidates' files, best first (ties by path)."""
    best = best_per_file(candidates)
    return sorted(best, key=lambda path: (-best[path], path))[: max(count, 0)]


def defined_names(candidates: Sequence[Scored[C]]) -> dict[str, frozenset[str]]:
    """Per candidate file, the symbols its candidates define: what a reference can land on."""
    names: dict[str, set[str]] = {}
    for chunk, _ in candidates:
        named = names.setdefault(chunk.path, set())
        if chunk.symbol:
            named.add(chunk.symbol)
    return {path: frozenset(named) for path, named in names.items()}


def neighbour_evidence(
    candidates: Sequence[Scored[C]],
    seeds: Sequence[str],
    linked: Mapping[str, frozenset[str]],
) -> dict[str, float]:
    """Per file, 0-1: the best score of a seed file it is linked to (not itself), relative
    to the best score of all candidates."""
    best = best_per_file(candidates)
    top = max(best.values(), default=0.0)
    if top <= 0:
        return {}
    evidence: dict[str, float] = {}
    for seed in seeds:
        strength = best.get(seed, 0.0) / top
        for path in linked.get(seed, frozenset()):
            if path != seed and path in best and strength > evidence.get(path, 0.0):
                evidence[path] = strength
    return evidence


def apply_neighbours(
    candidates: Sequence[Scored[C]],
    seeds: Sequence[str],
    linked: Mapping[str, frozenset[str]],
    settings: RankingSettings,
) -> list[Scored[C]]:
    """Lift every candidate of a file by `neighbour_lift` times its `neighbour_evidence`."""
    evidence = neighbour_evidence(candidates, seeds, linked)
    if not evidence:
        return list(candidates)
    return [
        (chunk, score * (1.0 + settings.neighbour_lift * evidence.get(chunk.path, 0.0)))
        for chunk, score in candidates
    ]
