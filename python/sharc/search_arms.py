"""The two arms a search ranks (`sharc.ranking.pipeline.Arm`: a query and a depth in, chunk
ids and scores out), over the stores of one index: BM25 hits from the keyword index, and
vector hits from a vector set. `Index.search` and the search over several roots
(`sharc.multi_root`) build theirs here, per search.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from sharc.embedding import Embedder
    from sharc.keyword import KeywordStore
    from sharc.ranking.pipeline import Arm
    from sharc.vector_segments import SegmentedVectors

#: The chunk id of each vector key that has a chunk (`SearchRecords.ids_by_key`).
IdsOfKeys = Callable[[Sequence[int]], Mapping[int, str]]


def keyword_arm(
    keyword: KeywordStore,
    languages: Sequence[str],
    path_prefix: str | None,
    keys: dict[str, int] | None = None,
    ids_of: IdsOfKeys | None = None,
) -> Arm:
    """BM25 hits of `keyword`, in `languages` and under `path_prefix` when given; each hit's
    chunk key goes into `keys` when given (what the vectors could not have returned is told
    by them: `sharc.vector_reader.unseen_by_vectors`). With `ids_of`, the hits' ids come
    from their keys (and their records with them) rather than from the keyword index's
    stored documents (`_keyed_hits`)."""
    prefix = path_prefix.strip("/") if path_prefix else None
    options = {"languages": list(languages) or None, "path_prefix": prefix}

    def search(query: str, depth: int) -> list[tuple[str, float]]:
        hits = _keyed_hits(keyword, query, depth, options, ids_of)
        if keys is not None:
            keys.update((chunk_id, key) for chunk_id, _, key in hits if key is not None)
        return [(chunk_id, score) for chunk_id, score, _ in hits]

    return search


def _keyed_hits(
    keyword: KeywordStore,
    query: str,
    depth: int,
    options: dict[str, Any],
    ids_of: IdsOfKeys | None,
) -> list[tuple[str, float, int | None]]:
    """`KeywordStore.search_keyed`, by way of the keys where `ids_of` is given and names every
    hit: best first, hits of the same score in id order, as `search_keyed` gives them. Where
    a hit has no key (a segment written before the `key` field) or one the manifest does not
    hold yet (the keyword index commits an update's chunks first, and a changed chunk's key
    is new while its id, and the record the manifest still has under it, are not), the
    stored documents name the hits."""
    if ids_of is not None:
        scored = keyword.key_scores(query, depth, **options)
        keys = [key for key, _ in scored]
        if None not in keys:
            ids = ids_of(keys)  # type: ignore[arg-type]
            if len(ids) == len(set(keys)):
                hits = [(ids[key], score, key) for key, score in scored]  # type: ignore[index]
                return sorted(hits, key=lambda hit: (-hit[1], hit[0]))
    return keyword.search_keyed(query, depth, **options)


def all_words_arm(keyword: KeywordStore, languages: Sequence[str], path_prefix: str | None) -> Arm:
    """The chunks of `keyword` whose code holds every word of the query
    (`KeywordStore.search_all_words`): where the ranking looks for the code that holds a
    pasted message once the keyword arm's best hits hold none."""
    prefix = path_prefix.strip("/") if path_prefix else None

    def search(query: str, depth: int) -> list[tuple[str, float]]:
        return keyword.search_all_words(
            query, depth, languages=list(languages) or None, path_prefix=prefix
        )

    return search


def query_vectors(embedder: Callable[[], Embedder]) -> Callable[[str], np.ndarray]:
    """Each query's vector, embedded once per text: a crowded search asks its arms again,
    deeper, and a search over several roots asks each root's arm."""
    embedded: dict[str, np.ndarray] = {}

    def query_vector(query: str) -> np.ndarray:
        if (vector := embedded.get(query)) is None:
            vector = embedded[query] = embedder().embed_queries([query])[0]
        return vector

    return query_vector


def vector_arm(
    ids_of: IdsOfKeys,
    vectors: SegmentedVectors,
    query_vector: Callable[[str], np.ndarray],
    stale: set[int] | None = None,
) -> Arm:
    """Vector hits of `vectors`, as chunk ids (`ids_of`); the keys of hits no chunk has any
    more go into `stale` when given."""

    def search(query: str, depth: int) -> list[tuple[str, float]]:
        hits = vectors.search(query_vector(query), depth)
        ids = ids_of([key for key, _ in hits])
        if stale is not None:
            stale.update(key for key, _ in hits if key not in ids)
        return [(ids[key], similarity) for key, similarity in hits if key in ids]

    return search
