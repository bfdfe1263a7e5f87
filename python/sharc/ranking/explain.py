"""Why a result ranks where it does: where each arm placed it, its fused score, and its score
after each stage that changed it, or what put it above every score (`Explanation`).

`pipeline.rank` fills a `Trace` when it is handed one (`Index.search(explain=True)`,
`sharc search --explain`); a search without one pays nothing. The scores are the ranking's
own, before `shaping.shown_scores` puts them on the 0-1 scale a user reads.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sharc.ranking.records import C, Part, Scored

#: The stages a trace records, as `Explanation.stages` names them.
BOOSTS = "boosts"  # what the query names: the definition of its name, names and files of its words
COHERENCE = "coherence"  # a file with several relevant chunks lifts its best
PENALTIES = "penalties"  # tests, docs, config, generated, vendored, fragments, declarations
FILES_FIRST = "files first"  # the evidence of the file's other candidates; a file's later chunk
WHOLE_FILE = "whole file"  # how well the file's whole text matches (BM25 over files)
NEIGHBOURS = "graph neighbours"  # a file the code graph links to the strongest hits
LEARNED = "learned"  # the learned combination's last word
EVEN_OPINION = "even opinion"  # files placed by the staged order merged with the even ranking's
#: Files placed by the order so far merged with the even ranking of BM25 and the fast model's
#: vectors (`RankingSettings.fast_opinion_share`).
FAST_OPINION = "fast opinion"
#: Tests, examples, vendored or generated code that crowded the first results: a second
#: ranking without them comes first, and they fill the places left, scaled below it.
AFTER_THE_CODE = "after the code"
#: Found by a deeper search where the first one's candidates held fewer files than asked for:
#: after them, scaled below.
FOUND_DEEPER = "found deeper"
#: A stage that does not scale a score but places a chunk above the others of its kind.
DEFINITIONS_FIRST = "definitions first"

#: The named factors a stage applied to one candidate.
PartsOf = Callable[[Any], Sequence[Part]]

#: Why a chunk was put above every score: what the query points at.
DEFINITION = "the definition of the name asked"
NAMED_FILE = "a file the query names"
QUOTED_TEXT = "holds the text the query quotes"
LOCATED_LINE = "holds the line the query gives"
NAMED_DIRECTORY = "in the directory the query names"


@dataclass(frozen=True, slots=True)
class ArmPlace:
    """Where one arm placed a chunk: its rank among the arm's hits (1 is best) and the arm's
    own score (BM25 for the keyword arm, cosine similarity for the vectors)."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a result ranks where it does.

    `arms`: the arms that returned the chunk (`"keyword"`, `"semantic"`) and where; an arm
    missing did not return it among its hits. `fused`: its score once the arms' scores are
    fused (0 for a chunk no arm returned: a definition found by its name). `stages`: its score
    after each stage that changed it, in order (the names above: `BOOSTS`, `PENALTIES`...).
    `first`: what put it above every score, if anything (`DEFINITION`, `NAMED_FILE`...).
    `parts`: for the stages made of several named factors (`BOOSTS`, `PENALTIES`), those
    that applied (`("test", 0.25)`)."""

    arms: Mapping[str, ArmPlace]
    fused: float
    stages: tuple[tuple[str, float], ...] = ()
    first: tuple[str, ...] = field(default=())
    parts: Mapping[str, tuple[Part, ...]] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The score its evidence earned: before a lift above every score (`first`), and
        before the 0-1 scale a user reads."""
        return self.stages[-1][1] if self.stages else self.fused

    def factors(self) -> list[tuple[str, float | None]]:
        """Each stage and the factor it multiplied the score by (None where the score before
        it was 0: a chunk no arm returned)."""
        factors: list[tuple[str, float | None]] = []
        before = self.fused
        for stage, after in self.stages:
            factors.append((stage, after / before if before > 0 else None))
            before = after
        return factors

    def summary(self) -> str:
        """One line: `keyword #3 (12.40) · semantic #1 (0.712) · fused 0.834 · boosts x1.30`."""
        parts = [
            f"{arm} #{place.rank} ({place.score:.3g})" for arm, place in sorted(self.arms.items())
        ] or ["found by name, not by an arm"]
        parts.append(f"fused {self.fused:.3f}")
        for stage, factor in self.factors():
            named = ", ".join(reason for reason, _ in self.parts.get(stage, ()))
            parts.append((f"{stage} x{factor:.2f}" if factor is not None else stage)
                         + (f" ({named})" if named else ""))
        parts += [f"first: {reason}" for reason in self.first]
        return " · ".join(parts)

    def as_dict(self) -> dict[str, object]:
        """The explanation as plain JSON values."""
        return {
            "arms": {arm: {"rank": p.rank, "score": p.score} for arm, p in self.arms.items()},
            "fused": self.fused,
            "stages": [
                {"stage": stage, "score": score,
                 **({"parts": [{"reason": r, "factor": f} for r, f in self.parts[stage]]}
                    if stage in self.parts else {})}
                for stage, score in self.stages
            ],
            "first": list(self.first),
            "score": self.score,
        }


class Trace:
    """What one ranking did to each candidate, stage by stage: filled by `pipeline.rank`, read
    with `explain`. A crowded search ranks twice; `begin` starts over with the second."""

    def __init__(self) -> None:
        self.begin({}, ())

    def begin(
        self, hits: Mapping[str, Sequence[tuple[str, float]]], fused: Iterable[tuple[str, float]]
    ) -> None:
        """A ranking starts from these arms' hits, fused into these scores."""
        self._arms: dict[str, dict[str, ArmPlace]] = {}
        for arm, arm_hits in hits.items():
            for rank, (chunk_id, score) in enumerate(arm_hits, 1):
                self._arms.setdefault(chunk_id, {}).setdefault(arm, ArmPlace(rank, score))
        self._fused: dict[str, float] = dict(fused)
        self._stages: dict[str, list[tuple[str, float]]] = {}
        self._first: dict[str, list[str]] = {}
        self._lifts: dict[str, float] = {}  # what definitions first added to a score
        self._parts: dict[str, dict[str, tuple[Part, ...]]] = {}

    def stage(
        self, name: str, candidates: Sequence[Scored[C]], parts: PartsOf | None = None
    ) -> None:
        """Each candidate's score after stage `name`; kept where the stage changed it, with
        the named factors `parts` gives for it. A definition put first is a reason, not a
        factor: the level it is lifted by says nothing of its evidence, and the stages after
        it are read without it."""
        for chunk, score in candidates:
            chunk_id = chunk.id
            steps = self._stages.setdefault(chunk_id, [])
            before = steps[-1][1] if steps else self._fused.get(chunk_id, 0.0)
            lifted = score - self._lifts.get(chunk_id, 0.0)
            if abs(lifted - before) <= 1e-12 * max(1.0, abs(before)):
                continue
            if name == DEFINITIONS_FIRST:
                self._lifts[chunk_id] = score - before
                self.put_first([chunk_id], DEFINITION)
            else:
                steps.append((name, lifted))
                if parts is not None:
                    self._parts.setdefault(chunk_id, {})[name] = tuple(parts(chunk))

    def carried(self, chunk_ids: Iterable[str]) -> dict[str, tuple[Any, ...]]:
        """What this ranking recorded for these chunks, to `carry` past the next `begin`."""
        return {
            chunk_id: tuple(record.get(chunk_id) for record in self._per_chunk())
            for chunk_id in chunk_ids
        }

    def carry(self, carried: Mapping[str, tuple[Any, ...]]) -> None:
        """Put back what an earlier ranking recorded for some chunks (`carried`): they rank
        in this one as that one ranked them."""
        for chunk_id, values in carried.items():
            for record, value in zip(self._per_chunk(), values):
                if value is not None:
                    record[chunk_id] = value  # type: ignore[index]

    def _per_chunk(self) -> tuple[dict[str, Any], ...]:
        """Everything this trace records per chunk id, in one order."""
        return (self._arms, self._fused, self._stages, self._first, self._lifts, self._parts)

    def put_first(self, chunk_ids: Collection[str], reason: str) -> None:
        """These chunks were put above every score, for `reason`."""
        for chunk_id in chunk_ids:
            reasons = self._first.setdefault(chunk_id, [])
            if reason not in reasons:
                reasons.append(reason)

    def explain(self, chunk_id: str) -> Explanation:
        """The explanation of one ranked chunk."""
        return Explanation(
            arms=dict(self._arms.get(chunk_id, {})),
            fused=self._fused.get(chunk_id, 0.0),
            stages=tuple(self._stages.get(chunk_id, ())),
            first=tuple(self._first.get(chunk_id, ())),
            parts=dict(self._parts.get(chunk_id, {})),
        )


def traced(
    trace: Trace | None, stage: str, candidates: list[Scored[C]], parts: PartsOf | None = None
) -> list[Scored[C]]:
    """`candidates`, their scores recorded in `trace` after `stage` (when there is one), with
    the named factors `parts` gives for each candidate the stage changed."""
    if trace is not None:
        trace.stage(stage, candidates, parts)
    return candidates


def put_first(trace: Trace | None, chunk_ids: Collection[str], reason: str) -> None:
    """Record in `trace` (when there is one) that these chunks were put above every score."""
    if trace is not None:
        trace.put_first(chunk_ids, reason)
