"""A question that names a directory searches it first, then the rest fills the list: the
merge, over a searcher that records what it is asked (the index end to end is in
test_index_search.py)."""

from __future__ import annotations

from sharc.scoped_search import scoped_search
from sharc.search_types import SearchResponse, SearchResult


def _hit(path: str, score: float) -> SearchResult:
    return SearchResult(path=path, start_line=1, end_line=2, score=score, kind="function",
                        symbol="f", fqn="f", language="python", header="", code="",
                        id=f"{path}::f")


HITS = {
    "lib/queue/": [_hit("lib/queue/retry.py", 0.6)],
    None: [_hit("lib/http/retry.py", 0.9), _hit("lib/queue/retry.py", 0.6),
           _hit("docs/retry.md", 0.3)],
}


def test_the_named_directory_comes_first_and_the_rest_fills_the_list() -> None:
    asked: list[tuple[str, str | None]] = []

    def search(question: str, prefix: str | None) -> SearchResponse:
        asked.append((question, prefix))
        return SearchResponse(HITS[prefix], ("keyword",), "natural_language", True)

    directories = {"lib/queue": "lib/queue", "queue": "lib/queue"}.get
    response = scoped_search(search, "retries in lib/queue/", 3, directories)
    assert response is not None
    assert asked == [("retries", "lib/queue/"), ("retries", None)]
    assert [(hit.path, hit.score) for hit in response] == [
        ("lib/queue/retry.py", 0.6), ("lib/http/retry.py", 0.6), ("docs/retry.md", 0.3),
    ]
    # Enough in the directory: nothing else is searched.
    asked.clear()
    response = scoped_search(search, "retries in lib/queue/", 1, directories)
    assert response is not None and len(response) == 1 and len(asked) == 1
    # A directory named by its name: the one the finder knows by it.
    asked.clear()
    response = scoped_search(search, "retries in the queue package", 1, directories)
    assert response is not None and asked == [("retries", "lib/queue/")]
    # A directory no file lies under, or none named: not a scoped search.
    assert scoped_search(search, "retries in lib/none/", 3, directories) is None
    assert scoped_search(search, "retries in the none folder", 3, directories) is None
    assert scoped_search(search, "retries", 3, directories) is None
