"""LlamaIndex: `SharcRetriever`, a `BaseRetriever` over one sharc index or several.

    >>> from sharc.integrations.llamaindex import SharcRetriever
    >>> retriever = SharcRetriever(sharc.Index.open("path/to/repo"), similarity_top_k=5)
    >>> retriever.retrieve("where are routes registered")        # or await .aretrieve(...)

Each `NodeWithScore` holds a `TextNode` (a hit's code as text, its chunk id as id) and the hit's
0-1 score; the node's metadata is the LangChain retriever's (`sharc.integrations.hit_metadata`).
An LLM reading the node sees the location, symbol, qualified name, kind and language above the
code. The search options are `Index.search`'s, `similarity_top_k` for its `limit`: that many
nodes, the hits in reading order (grouped by file, the default: each file's best hit, then the
file's other close hits). With a list of indexes, they are searched as one (`sharc.search_many`). `aretrieve` searches in a worker
thread, never blocking the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence

try:
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as error:
    raise ImportError(
        f"{error}; install the LlamaIndex extra: pip install 'sharc[llamaindex]'"
    ) from error

from sharc.index import Index, SearchMode, SearchResult
from sharc.integrations import SearchOptions, aretrieved, hit_id, hit_metadata, retrieved

#: Metadata kept out of what an LLM or an embedding model reads with the code.
_HIDDEN_METADATA = ["root", "path", "start_line", "end_line", "score", "id"]


class SharcRetriever(BaseRetriever):
    """Code search as a LlamaIndex retriever: sharc hits as `NodeWithScore`s, best first."""

    def __init__(
        self,
        index: Index | Sequence[Index],
        *,
        similarity_top_k: int = 4,
        mode: SearchMode = "hybrid",
        extensions: Sequence[str] = (),
        languages: Sequence[str] = (),
        path_prefix: str | None = None,
        path_glob: str | None = None,
        include_tests: bool | None = None,
        max_per_file: int | None = 3,
        group_by_file: bool = True,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self.index = index if isinstance(index, Index) else list(index)
        self.options = SearchOptions(
            limit=similarity_top_k, mode=mode, extensions=tuple(extensions),
            languages=tuple(languages), path_prefix=path_prefix, path_glob=path_glob,
            include_tests=include_tests, max_per_file=max_per_file,
            group_by_file=group_by_file,
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._nodes(retrieved(self.index, query_bundle.query_str, self.options))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._nodes(await aretrieved(self.index, query_bundle.query_str, self.options))

    def _nodes(self, hits: list[SearchResult]) -> list[NodeWithScore]:
        return [
            NodeWithScore(
                node=TextNode(
                    id_=hit_id(hit), text=hit.code, metadata=hit_metadata(hit, self.index),
                    excluded_llm_metadata_keys=list(_HIDDEN_METADATA),
                    excluded_embed_metadata_keys=list(_HIDDEN_METADATA),
                ),
                score=hit.score,
            )
            for hit in hits
        ]


__all__ = ["SharcRetriever"]
