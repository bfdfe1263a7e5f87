"""Stage 7: files first. A user asks for the file that matters, and a file is better judged by
the evidence of all its candidates than by its best fragment: the big module that holds most
of a topic's logic scores several good chunks, the small helper one.

Each file scores its best chunk plus `file_share` of the next `file_chunks` ones; its best
chunk carries that score, so the files are ranked by it. A file's later chunks keep their
own score times `repeat_factor`: a second chunk of a file comes only where nothing else is
as strong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sharc.ranking.records import C, Scored
from sharc.ranking.settings import RankingSettings


def file_scores(candidates: Sequence[Scored[C]], share: float, chunks: int) -> dict[str, float]:
    """Per file: its best candidate's score plus `share` of the sum of its next `chunks`."""
    by_file: dict[str, list[float]] = {}
    for chunk, score in candidates:
        by_file.setdefault(chunk.path, []).append(score)
    scores = {}
    for path, found in by_file.items():
        found.sort(reverse=True)
        scores[path] = found[0] + share * sum(max(0.0, s) for s in found[1 : chunks + 1])
    return scores


def rank_files(candidates: Sequence[Scored[C]], settings: RankingSettings) -> list[Scored[C]]:
    """The best chunk of each file scored as its file (`file_scores`), the file's other
    chunks at their own score times `repeat_factor`; the order of `candidates` is kept."""
    if not settings.files_first:
        return list(candidates)
    totals = file_scores(candidates, settings.file_share, settings.file_chunks)
    if settings.file_sum_lift:
        totals = _lift_by_sum(candidates, totals, settings.file_sum_lift)
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


def _lift_by_sum(
    candidates: Sequence[Scored[C]], totals: dict[str, float], lift: float
) -> dict[str, float]:
    """`totals`, each file's raised by `lift` times the best candidate's score times the
    file's summed candidate scores relative to the largest sum of any file."""
    sums: dict[str, float] = {}
    for chunk, score in candidates:
        sums[chunk.path] = sums.get(chunk.path, 0.0) + max(0.0, score)
    largest = max(sums.values(), default=0.0)
    top = max((score for _, score in candidates), default=0.0)
    if largest <= 0 or top <= 0:
        return totals
    return {path: total + lift * top * sums[path] / largest for path, total in totals.items()}


def fuse_files(
    fused: Sequence[tuple[str, float]],
    normalised: Mapping[str, Mapping[str, float]],
    shares: Mapping[str, float],
    paths: Mapping[str, str],
    reach: float,
) -> list[tuple[str, float]]:
    """Fused `(id, score)` pairs, best first, each file's best one raised: in each arm by its
    share times `reach` times how far its scaled score falls short of the best scaled score
    of any chunk of its file in that arm. `paths` maps ids to files (ids without one keep
    their score)."""
    best: dict[tuple[str, str], float] = {}
    for arm, scores in normalised.items():
        for chunk_id, value in scores.items():
            path = paths.get(chunk_id)
            if path is not None and value > best.get((arm, path), 0.0):
                best[(arm, path)] = value
    raised: dict[str, tuple[int, float]] = {}
    for position, (chunk_id, score) in enumerate(fused):
        path = paths.get(chunk_id)
        if path is None:
            continue
        gain = sum(
            share * reach * max(0.0, best.get((arm, path), 0.0) - normalised[arm].get(chunk_id, 0.0))
            for arm, share in shares.items()
            if arm in normalised
        )
        current = raised.get(path)
        if current is None or score + gain > current[1]:
            raised[path] = (position, score + gain)
    lifted = list(fused)
    for position, score in raised.values():
        lifted[position] = (lifted[position][0], score)
    return sorted(lifted, key=lambda pair: -pair[1])


def file_bound(settings: RankingSettings) -> float:
    """The largest factor `rank_files` can give a file's best chunk (scores at most 1 each)."""
    if not settings.files_first:
        return 1.0
    return 1.0 + settings.file_share * settings.file_chunks + settings.file_sum_lift
