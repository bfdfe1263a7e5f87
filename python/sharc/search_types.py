"""What a search returns: `SearchResult` (one hit), `SearchResponse` (the hits and the arms that
answered), `SearchMode` (which arms to ask) and `SearchFilters` (monorepo scoping); and
`IndexStats`, the state of an index on disk.

The lowest floor of the search side: `sharc.index`, `sharc.multi_root`, `sharc.asynchronous` and
the integrations all import these records, and this module imports only the standard library.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Self

if TYPE_CHECKING:
    from sharc.ranking.explain import Explanation

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
    #: In a search grouped by file (the default), this hit is its file's best; these are the
    #: file's other hits that score close to it, best first (`Index.search`).
    same_file_hits: tuple[SearchResult, ...] = field(default=(), kw_only=True)
    #: With `search(explain=True)`: where each arm placed this hit, its fused score and what
    #: each ranking stage did to it (`sharc.ranking.explain.Explanation`).
    explanation: Explanation | None = field(default=None, kw_only=True)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    @classmethod
    def of(cls, record: Any, score: float, **extra: Any) -> Self:
        """The hit of a stored chunk (a manifest's chunk record), its score as shown (at most
        1: `ranking.shown_scores` scaled it); `extra`: the fields a subclass adds."""
        return cls(
            path=record.path, start_line=record.start_line, end_line=record.end_line,
            score=min(1.0, score), kind=record.kind, symbol=record.symbol, fqn=record.fqn,
            language=record.language, header=record.header, code=record.code, id=record.id,
            **extra,
        )


@dataclass(frozen=True)
class SearchResponse(Sequence[SearchResult]):
    """The results of a search, with the arms that answered it."""

    results: list[SearchResult]
    arms: tuple[str, ...]
    query_kind: str
    complete: bool  # False while the vectors searched are still being computed
    #: The vectors the semantic arm read: "fast" (the fast model's), "default" (the index's
    #: model's), None when no vectors answered (`sharc.fast_vectors`).
    vectors: str | None = None

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self.results[index]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)

    def all_hits(self) -> list[SearchResult]:
        """Every hit in reading order: each result, then its `same_file_hits`."""
        return [hit for result in self.results for hit in (result, *result.same_file_hits)]


def nested(groups: Sequence[Sequence[SearchResult]]) -> list[SearchResult]:
    """One result per group: its first hit, carrying the group's others as `same_file_hits`
    (empty groups left out)."""
    return [
        replace(group[0], same_file_hits=tuple(group[1:])) if len(group) > 1 else group[0]
        for group in groups
        if group
    ]


@dataclass(frozen=True)
class IndexStats:
    """The state of an index on disk."""

    root: str
    index_dir: str
    files: int
    chunks: int
    embedded_chunks: int
    #: Chunks the embedding policy keeps from the model (no vector by design), and their files.
    keyword_only_chunks: int
    keyword_only_files: int
    model: str
    embedding_mode: str
    size_bytes: int
    last_update: float | None
    generation: int
    #: Chunks with a fast-model vector beside the model's (`sharc.fast_vectors`; 0 without).
    fast_embedded_chunks: int = 0
    #: The vectors a search reads unless told: "fast", "default", None (none yet).
    searched_vectors: str | None = None


@dataclass(frozen=True)
class SearchFilters:
    """Monorepo scoping: keep hits whose file matches all given filters."""

    extensions: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    path_prefix: str | None = None
    path_glob: str | None = None

    def accepts(self, path: str, language: str) -> bool:
        if self.extensions and not path.lower().endswith(
            tuple("." + e.lower().lstrip(".") for e in self.extensions)
        ):
            return False
        if self.languages and language not in self.languages:
            return False
        if self.path_prefix and not path.startswith(self.path_prefix.strip("/").removeprefix("./")):
            return False
        if self.path_glob:
            from fnmatch import fnmatchcase

            return fnmatchcase(path, self.path_glob)
        return True

    @property
    def active(self) -> bool:
        return bool(self.extensions or self.languages or self.path_prefix or self.path_glob)
