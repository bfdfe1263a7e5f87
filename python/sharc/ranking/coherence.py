"""Stage 5: file coherence. A file holding several relevant chunks is better evidence than one
chunk alone: its best chunk rises with the scores of the file's other candidates."""

from __future__ import annotations

from collections.abc import Sequence

from sharc.ranking.records import C, Scored
from sharc.ranking.settings import RankingSettings


def file_evidence(candidates: Sequence[Scored[C]], chunks: int) -> dict[str, float]:
    """Per file, 0-1: the summed scores of its `chunks` best candidates after its best one,
    relative to `chunks` times the best score of all candidates."""
    if not candidates or chunks <= 0:
        return {}
    top = max(score for _, score in candidates)
    if top <= 0:
        return {}
    by_file: dict[str, list[float]] = {}
    for chunk, score in candidates:
        by_file.setdefault(chunk.path, []).append(score)
    evidence = {}
    for path, scores in by_file.items():
        if len(scores) > 1:
            others = sorted(scores, reverse=True)[1 : chunks + 1]
            evidence[path] = min(1.0, sum(others) / (chunks * top))
    return evidence


def apply_coherence(candidates: Sequence[Scored[C]], settings: RankingSettings) -> list[Scored[C]]:
    """Lift the best chunk of each file by `coherence_lift` times the file's evidence."""
    if not settings.coherence_lift:
        return list(candidates)
    evidence = file_evidence(candidates, settings.coherence_chunks)
    best: dict[str, int] = {}
    for position, (chunk, score) in enumerate(candidates):
        current = best.get(chunk.path)
        if current is None or score > candidates[current][1]:
            best[chunk.path] = position
    lifted = list(candidates)
    for path, position in best.items():
        if path in evidence:
            chunk, score = lifted[position]
            lifted[position] = (chunk, score * (1.0 + settings.coherence_lift * evidence[path]))
    return lifted
