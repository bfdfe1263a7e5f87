"""Records shared by the ranking tests (`test_ranking_*.py`): the candidate a ranking stage
reads, as the manifest gives them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """A plain candidate record, as the manifest's `RankRecord` gives them."""

    id: str
    path: str
    symbol: str = ""
    fqn: str = ""
    tier: int = 1
    kind: str = "function"
    start_line: int = 1
    end_line: int = 10
    generated: bool = False
    language: str = ""


def chunk(path: str, symbol: str = "", tier: int = 1, **extra: object) -> Candidate:
    """A `Candidate` whose id is its path and symbol."""
    return Candidate(id=f"{path}#{symbol}", path=path, symbol=symbol, tier=tier, **extra)  # type: ignore[arg-type]
