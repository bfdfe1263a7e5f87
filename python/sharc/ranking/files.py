"""Stage 7: files first. A user asks for the file that matters, and a file is better judged by
the evidence of all its candidates than by its best fragment: the big module that holds most
of a topic's logic scores several good chunks, the small helper one.

Each file scores its best chunk plus `file_share` of the next `file_chunks` ones; its best
chunk carries that score, so the files are ranked by it. A file's later chunks keep their
own score times `repeat_factor`: a second chunk of a file comes only where nothing else is
as strong.

Then the evidence of whole files (`lift_files`): each file's candidates rise by
`file_keyword_lift` times the file's keyword score over its whole text, relative to the best
file's (`sharc.file_keywords`).

Both count for a file as far as its parts are about one thing (`evidence_gates`, from
`sharc.file_cohesion`): the later chunks and the words of a grab-bag file say nothing of the
one function a question is about.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from sharc.ranking.records import C, Scored
from sharc.ranking.settings import RankingSettings

#: `paths -> {path: cohesion}`: how far each file's parts are about one thing, 0-1
#: (`sharc.file_cohesion`); a path missing counts 1.
FileCohesion = Callable[[Collection[str]], Mapping[str, float]]


def evidence_gates(cohesion: Mapping[str, float], settings: RankingSettings) -> dict[str, float]:
    """Per file, how far its other chunks and its whole text count as its evidence, 0-1: 0
    up to a cohesion of `cohesion_floor`, 1 from `cohesion_full`, in proportion between."""
    low, full = settings.cohesion_floor, settings.cohesion_full
    if full <= low:
        return {}
    return {path: min(1.0, max(0.0, (value - low) / (full - low))) for path, value in cohesion.items()}


def cohesion_gates(
    paths: Collection[str], cohesion: FileCohesion | None, settings: RankingSettings
) -> dict[str, float] | None:
    """The `evidence_gates` of `paths`; None without the files' cohesion, or with the gate
    turned off."""
    if cohesion is None or settings.cohesion_full <= settings.cohesion_floor:
        return None
    return evidence_gates(cohesion(paths), settings)


def remembered(cohesion: FileCohesion) -> FileCohesion:
    """`cohesion`, each path read once (files first and the even opinion both ask)."""
    known: dict[str, float | None] = {}  # None: asked, not stored

    def read(paths: Collection[str]) -> Mapping[str, float]:
        missing = [path for path in paths if path not in known]
        if missing:
            found = cohesion(missing)
            known.update((path, found.get(path)) for path in missing)
        return {path: value for path in paths if (value := known[path]) is not None}

    return read


def file_scores(
    candidates: Sequence[Scored[C]],
    share: float,
    chunks: int,
    gates: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Per file: its best candidate's score plus `share` (times the file's gate, 1 where
    `gates` has none) of the sum of its next `chunks`."""
    by_file: dict[str, list[float]] = {}
    for chunk, score in candidates:
        by_file.setdefault(chunk.path, []).append(score)
    scores = {}
    gates = gates or {}
    for path, found in by_file.items():
        found.sort(reverse=True)
        evidence = sum(max(0.0, s) for s in found[1 : chunks + 1])
        scores[path] = found[0] + share * gates.get(path, 1.0) * evidence
    return scores


def rank_files(
    candidates: Sequence[Scored[C]],
    settings: RankingSettings,
    gates: Mapping[str, float] | None = None,
) -> list[Scored[C]]:
    """The best chunk of each file scored as its file (`file_scores`, each file's evidence
    times its gate), the file's other chunks at their own score times `repeat_factor`; the
    order of `candidates` is kept."""
    if not settings.files_first:
        return list(candidates)
    totals = file_scores(candidates, settings.file_share, settings.file_chunks, gates)
    best: dict[str, int] = {}
    for position, (chunk, score) in enumerate(candidates):
        current = best.get(chunk.path)
        if current is None or score > candidates[current][1]:
            best[chunk.path] = position
    ranked = []
    for position, (chunk, score) in enumerate(candidates):
        if best[chunk.path] == position:
            ranked.append((chunk, totals[chunk.path]))
        else:
            ranked.append((chunk, score * settings.repeat_factor))
    return ranked


def lift_files(
    candidates: Sequence[Scored[C]],
    shares: Mapping[str, float],
    lift: float,
    gates: Mapping[str, float] | None = None,
) -> list[Scored[C]]:
    """Every candidate times `1 + lift * share` of its file (`shares`: 0-1 per path, a
    path missing counts 0), the share times the file's gate (1 where `gates` has none); the
    order of `candidates` is kept."""
    if lift <= 0.0 or not shares:
        return list(candidates)
    gates = gates or {}
    return [
        (chunk, score * (1.0 + lift * gates.get(chunk.path, 1.0) * shares.get(chunk.path, 0.0)))
        for chunk, score in candidates
    ]


def file_bound(settings: RankingSettings) -> float:
    """The largest factor `rank_files` and `lift_files` can give a file's best chunk (scores
    at most 1 each)."""
    lifted = 1.0 + settings.file_keyword_lift
    if not settings.files_first:
        return lifted
    return (1.0 + settings.file_share * settings.file_chunks) * lifted
