"""A question that names a directory as the place to look ("retries in lib/queue/", "how
are errors handled under src/server", "tokens in the lexer package") searches that directory first, as `path_prefix`
would, and the rest of the repository fills the list after it: the clause that names the
place is not searched for (its path words matched every file under `lib/`, and only 71% of a
dev question's top 10 lay in the directory it named)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sharc.ranking.explain import NAMED_DIRECTORY
from sharc.ranking.framing import scoped_question
from sharc.search_types import SearchResponse, SearchResult

#: `(question, path_prefix or None) -> response`: one search with every other option fixed.
Searcher = Callable[[str, str | None], SearchResponse]


def scoped_search(
    search: Searcher,
    query: str,
    limit: int,
    directory_of: Callable[[str], str | None],
    *,
    by_file: bool = True,
) -> SearchResponse | None:
    """The response to a question that names an indexed directory (`scoped_question`; its
    path or its name, which `directory_of` finds among the indexed files): the directory's
    results first, then the others, scored no higher than the last of the directory's; None
    where the query names no such directory. `by_file`: the results are files (a search
    grouped by file), so a file the directory's results hold is not shown again."""
    scope = scoped_question(query)
    directory = directory_of(scope[1]) if scope is not None else None
    if scope is None or directory is None:
        return None
    question = scope[0]
    inside = search(question, directory + "/")
    inside = replace(inside, results=[_in_scope(hit) for hit in inside.results])
    if len(inside.results) >= limit:
        return inside
    everywhere = search(question, None)

    def key(hit: SearchResult) -> tuple[str | None, str]:
        return getattr(hit, "root", None), hit.path if by_file else hit.id

    shown = {key(hit) for hit in inside.results}
    floor = min((hit.score for hit in inside.results), default=1.0)
    rest = [_capped(hit, floor) for hit in everywhere.results if key(hit) not in shown]
    return replace(
        everywhere if not inside.results else inside,
        results=[*inside.results, *rest][:limit],
        complete=inside.complete and everywhere.complete,
    )


def _in_scope(hit: SearchResult) -> SearchResult:
    """`hit` and the hits of its file under it, their explanations (where asked for) saying
    that the directory the question names put them first."""
    if hit.explanation is None:
        return hit
    return replace(
        hit,
        explanation=replace(hit.explanation, first=(*hit.explanation.first, NAMED_DIRECTORY)),
        same_file_hits=tuple(_in_scope(other) for other in hit.same_file_hits),
    )


def _capped(hit: SearchResult, floor: float) -> SearchResult:
    """`hit` and the hits of its file under it scored no higher than `floor`."""
    return replace(
        hit,
        score=min(hit.score, floor),
        same_file_hits=tuple(_capped(other, floor) for other in hit.same_file_hits),
    )
