"""LangChain: `SharcRetriever`, a `BaseRetriever` over one sharc index or several.

    >>> from sharc.integrations.langchain import SharcRetriever
    >>> retriever = SharcRetriever(index=sharc.Index.open("path/to/repo"), k=5)
    >>> retriever.invoke("where are routes registered")            # or await .ainvoke(...)
    >>> retriever.invoke("TaskStore", k=1, mode="keyword")           # options for one call

Each `Document` holds a hit's code as `page_content` and its chunk id as `id` (its root in
front when several indexes are searched: `hit_id`); the metadata says where it is (location,
root, path, start_line, end_line), what it is (symbol, fqn, kind, language), its 0-1 score and
its chunk id. The search options are fields: `k` (sharc's `limit`), `mode`, `extensions`,
`languages`, `path_prefix`, `path_glob`, `include_tests`, `max_per_file`, `group_by_file`.
Grouped by file (the default), the `k` documents are the hits in reading order: each file's
best hit, then the file's other close hits. With a list of indexes, they are searched as
one (`sharc.search_many`). `ainvoke` searches in a worker thread,
never blocking the event loop.
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as error:  # pragma: no cover - langchain-core comes with the text splitters
    raise ImportError(
        f"{error}; install the LangChain extra: pip install 'sharc[langchain]'"
    ) from error

from sharc.index import Index, SearchMode, SearchResult
from sharc.integrations import SearchOptions, aretrieved, hit_id, hit_metadata, retrieved


class SharcRetriever(BaseRetriever):
    """Code search as a LangChain retriever: sharc hits as `Document`s, best first."""

    #: The index to search, or several indexes searched as one.
    index: Index | list[Index]
    #: How many documents to return: the hits in reading order, each file's best followed by
    #: the file's other close hits (`group_by_file`, as `Index.search` groups them).
    k: int = 4
    mode: SearchMode = "hybrid"
    extensions: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    path_prefix: str | None = None
    path_glob: str | None = None
    include_tests: bool | None = None
    max_per_file: int | None = 3
    group_by_file: bool = True

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **options: Any
    ) -> list[Document]:
        return self._documents(retrieved(self.index, query, self._options(options)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **options: Any
    ) -> list[Document]:
        return self._documents(await aretrieved(self.index, query, self._options(options)))

    def _options(self, overrides: dict[str, Any]) -> SearchOptions:
        return SearchOptions(
            limit=self.k, mode=self.mode, extensions=tuple(self.extensions),
            languages=tuple(self.languages), path_prefix=self.path_prefix,
            path_glob=self.path_glob, include_tests=self.include_tests,
            max_per_file=self.max_per_file, group_by_file=self.group_by_file,
        ).given(overrides, limit_name="k")

    def _documents(self, hits: list[SearchResult]) -> list[Document]:
        return [
            Document(page_content=hit.code, metadata=hit_metadata(hit, self.index), id=hit_id(hit))
            for hit in hits
        ]


__all__ = ["SharcRetriever"]
