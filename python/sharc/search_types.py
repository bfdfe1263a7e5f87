"""What a search returns: `SearchResult` (one hit), `SearchResponse` (the hits and the arms that
answered) and `SearchMode` (which arms to ask).

The lowest floor of the search side: `sharc.index`, `sharc.multi_root`, `sharc.asynchronous` and
the integrations all import these records, and this module imports only the standard library.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

SearchMode = Literal["hybrid", "semantic", "keyword"]


@dataclass(frozen=True)
class SearchResult:
    """One hit: where it is, how well it matches (0-1), and the code."""

    path: str
    start_line: int
    end_line: int
    score: float
    kind: str
    symbol: str
    fqn: str
    language: str
    header: str
    code: str
    id: str
    #: With `search(graph=True)`, for the top hits: the chunks that call this one and the
    #: definitions it calls, as `fqn (path:line)` labels (`?`: an ambiguous edge).
    called_by: tuple[str, ...] = field(default=(), kw_only=True)
    calls: tuple[str, ...] = field(default=(), kw_only=True)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True)
class SearchResponse(Sequence[SearchResult]):
    """The results of a search, with the arms that answered it."""

    results: list[SearchResult]
    arms: tuple[str, ...]
    query_kind: str
    complete: bool  # False while vectors are still being computed

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self.results[index]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)
