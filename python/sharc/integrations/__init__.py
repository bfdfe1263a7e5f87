"""Retrievers for the frameworks services already use, each in its own extra:

- `sharc.integrations.langchain.SharcRetriever`: a LangChain `BaseRetriever` of `Document`s
  (`pip install 'sharc[langchain]'`);
- `sharc.integrations.llamaindex.SharcRetriever`: a LlamaIndex `BaseRetriever` of
  `NodeWithScore`s (`pip install 'sharc[llamaindex]'`).

Both search one `Index` (`Index.search`, `Index.asearch`) or several as one (`search_many`),
with the same options, and describe each hit with the same metadata (`hit_metadata`) and id
(`hit_id`). Nothing here is imported by `import sharc`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from sharc.index import Index, SearchMode, SearchResponse, SearchResult


@dataclass(frozen=True)
class SearchOptions:
    """`Index.search`'s options, as a retriever holds them."""

    limit: int = 4
    mode: SearchMode = "hybrid"
    extensions: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    path_prefix: str | None = None
    path_glob: str | None = None
    include_tests: bool | None = None
    max_per_file: int | None = 3
    group_by_file: bool = True

    def given(self, overrides: Mapping[str, Any], *, limit_name: str = "limit") -> SearchOptions:
        """These options with `overrides` for one call, the number of hits under the
        framework's name (`limit_name`); unknown names raise `TypeError`."""
        known = {limit_name if f.name == "limit" else f.name for f in fields(self)}
        if unknown := sorted(set(overrides) - known):
            raise TypeError(
                f"unknown search options: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        renamed = {("limit" if name == limit_name else name): v for name, v in overrides.items()}
        return replace(self, **renamed)


def search(target: Index | Sequence[Index], query: str, options: SearchOptions) -> SearchResponse:
    """One index's `search`, or `search_many` over several."""
    if isinstance(target, Index):
        return target.search(query, **_keywords(options))
    from sharc.multi_root import search_many

    return search_many(list(target), query, **_keywords(options))


async def asearch(
    target: Index | Sequence[Index], query: str, options: SearchOptions
) -> SearchResponse:
    """`search` without blocking the event loop."""
    if isinstance(target, Index):
        return await target.asearch(query, **_keywords(options))
    return await asyncio.to_thread(search, target, query, options)


def retrieved(
    target: Index | Sequence[Index], query: str, options: SearchOptions
) -> list[SearchResult]:
    """The hits a retriever returns (`search`): the first `limit` in reading order, each
    file's best followed by the file's other close hits (`SearchResponse.all_hits`)."""
    return search(target, query, options).all_hits()[: options.limit]


async def aretrieved(
    target: Index | Sequence[Index], query: str, options: SearchOptions
) -> list[SearchResult]:
    """`retrieved` without blocking the event loop."""
    return (await asearch(target, query, options)).all_hits()[: options.limit]


def hit_metadata(hit: SearchResult, target: Index | Sequence[Index]) -> dict[str, Any]:
    """What a retriever says about a hit besides its code: where it is (root, path, lines),
    what it is (symbol, qualified name, kind, language), its 0-1 score and its chunk id."""
    root = getattr(hit, "root", None) or str(target.root if isinstance(target, Index) else "")
    return {
        "location": hit.location, "root": root, "path": hit.path,
        "start_line": hit.start_line, "end_line": hit.end_line,
        "symbol": hit.symbol, "fqn": hit.fqn, "kind": hit.kind, "language": hit.language,
        "score": hit.score, "id": hit.id,
    }


def hit_id(hit: SearchResult) -> str:
    """A hit's chunk id, unique within its root; a hit of `search_many` has its root in front
    (frameworks drop documents whose ids repeat, and two roots can hold the same file)."""
    root = getattr(hit, "root", None)
    return os.path.join(root, hit.id) if root else hit.id


def _keywords(options: SearchOptions) -> dict[str, Any]:
    return {f.name: getattr(options, f.name) for f in fields(options)}
