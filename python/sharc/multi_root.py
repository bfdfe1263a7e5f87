"""One query over several indexes, `search_many(indexes, query)`: for services that serve many
repositories.

The candidates are pooled before they are ranked, so every hit is on one score scale: each arm
(BM25, vectors) runs in every index, the arms' raw scores are merged into one list per arm, and
the ranking pipeline (`sharc.ranking.rank`) fuses, boosts, penalises and shapes those lists once,
as if the roots were one tree. Merging the indexes' own results would not do: each index
normalises its scores over its own candidates, so its best hit scores near 1 however weak.

Vector similarities share a scale only under one model: semantic and hybrid search need the
indexes that have vectors to share their model (keyword search takes any mix), and the query is
embedded once. The indexes read one vector set (`sharc.fast_vectors`): the default model's when
every one of them reads it, else the fast model's where they have it. BM25 scores keep each
index's own term statistics, as in that index alone, and so does the evidence of whole files
(`sharc.file_keywords`): each file against the best file of its own index.

Each hit is a `RootedResult`: a `SearchResult` that names the root it came from.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sharc.errors import NotIndexedError
from sharc.file_cohesion import reader as cohesion_reader
from sharc.index import (
    Index,
    SearchFilters,
    SearchMode,
    SearchResponse,
    SearchResult,
    chunk_texts,
)
from sharc.scoped_search import scoped_search
from sharc.search_arms import all_words_arm, keyword_arm, query_vectors, vector_arm
from sharc.search_records import SearchRecords
from sharc.search_types import nested
from sharc.vector_reader import unseen_by_vectors
from sharc.vector_sets import DEFAULT_SET
from sharc.writer import stored_settings

if TYPE_CHECKING:
    from sharc.manifest import Manifest, RankRecord
    from sharc.ranking.files import FileCohesion
    from sharc.ranking.pipeline import Arm, FileEvidence, UnseenFinder
    from sharc.ranking.visibility import DefinitionFacts
    from sharc.vector_reader import SearchedVectors, VectorChoice
    from sharc.vector_segments import SegmentedVectors

#: Ranking keys files by path (file coherence, results per file) and reads words and the test,
#: vendored and generated rules from it. Each root's paths are read with a mark in front, one
#: private-use character and a slash: no letter or digit for the path words, and every `(^|/)`
#: rule still anchors after the slash, so two roots' `src/app.py` stay apart and rank as alone.
_FIRST_MARK = 0xF0000
_MAX_ROOTS = 0xFFFD


@dataclass(frozen=True)
class RootedResult(SearchResult):
    """A hit of `search_many`: a `SearchResult` and the root (absolute path) it belongs to."""

    root: str


def search_many(
    indexes: Sequence[Index | str | os.PathLike[str]],
    query: str,
    *,
    limit: int = 10,
    mode: SearchMode = "hybrid",
    extensions: Sequence[str] = (),
    languages: Sequence[str] = (),
    path_prefix: str | None = None,
    path_glob: str | None = None,
    include_tests: bool | None = None,
    max_per_file: int | None = 3,
    group_by_file: bool = True,
    vectors: VectorChoice | None = None,
    explain: bool = False,
) -> SearchResponse:
    """Search several indexes as one: the hits of every root ranked on one score scale.

    `indexes` are open `Index` objects (their model and readers stay warm between calls) or
    roots, opened with their remembered settings for this call only. The options are
    `Index.search`'s, applied in every root; the ranking settings are the first index's. The
    response holds `RootedResult`s; it is complete when every index has all its vectors.
    Raises `ValueError` for a root given twice, or for semantic or hybrid search over indexes
    built with different models; `NotIndexedError` names a root that has no index.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if not indexes:
        raise ValueError("search_many needs at least one index")
    if len(indexes) > _MAX_ROOTS:
        raise ValueError(f"search_many takes at most {_MAX_ROOTS} indexes")
    opened = [item if isinstance(item, Index) else Index.open(item) for item in indexes]
    try:
        _refuse_duplicates(opened)

        def search(question: str, prefix: str | None) -> SearchResponse:
            return _search(
                opened, question, limit=limit, mode=mode,
                filters=SearchFilters(tuple(extensions), tuple(languages), prefix, path_glob),
                include_tests=include_tests, max_per_file=max_per_file,
                group_by_file=group_by_file, vectors=vectors, explain=explain,
            )

        query = query.strip()
        if path_prefix is None and query:  # "retries in lib/queue/": that directory first
            manifests = [index._reader_manifest() for index in opened]
            scoped = scoped_search(
                search, query, limit,
                lambda place: next(filter(None, (m.directory(place) for m in manifests)), None),
                by_file=group_by_file,
            )
            if scoped is not None:
                return scoped
        return search(query, path_prefix)
    finally:
        for index, item in zip(opened, indexes):
            if index is not item:
                index.close()


def _search(
    indexes: list[Index],
    query: str,
    *,
    limit: int,
    mode: SearchMode,
    filters: SearchFilters,
    include_tests: bool | None,
    max_per_file: int | None,
    group_by_file: bool,
    vectors: VectorChoice | None,
    explain: bool = False,
) -> SearchResponse:
    from sharc import ranking
    from sharc.ranking.explain import Trace

    manifests = [index._reader_manifest() for index in indexes]
    if not query:
        return SearchResponse([], (), "empty", True, None)
    searched_name = None
    arms: dict[str, Arm] = {}
    unseen: UnseenFinder | None = None
    complete = True
    searched: list[SearchedVectors | None] = []
    # Per index, as `Index.search` keeps them: the keyword hits' keys, and the vector hits'
    # keys no chunk has any more.
    keys: list[dict[str, int]] = [{} for _ in indexes]
    stale: list[set[int]] = [set() for _ in indexes]
    records = [SearchRecords(manifest) for manifest in manifests]
    trace = Trace() if explain else None
    all_words = None
    if mode in ("hybrid", "keyword"):
        keyword_stores = [index._readers.keyword() for index in indexes]
        arms[ranking.KEYWORD] = _pooled([
            keyword_arm(store, filters.languages, filters.path_prefix, keys[number],
                        records[number].ids_by_key)
            for number, store in enumerate(keyword_stores)
        ])
        all_words = _pooled([
            all_words_arm(store, filters.languages, filters.path_prefix)
            for store in keyword_stores
        ])
    if mode in ("hybrid", "semantic"):
        searched = _searched_vectors(indexes, manifests, vectors)
        chosen = [s for s in searched if s is not None]
        complete = all(
            s.complete if s is not None else m.get_meta(DEFAULT_SET.complete) == "1"
            for s, m in zip(searched, manifests)
        )
        searched_name = chosen[0].name if chosen else None
        stores = [None if s is None else s.vectors for s in searched]
        semantic = _semantic_arms(indexes, manifests, records, searched, stale)
        if semantic:
            arms[ranking.SEMANTIC] = _pooled(semantic)
            unseen = _unseen_finder(stores, keys, stale)
        elif mode == "semantic":
            raise NotIndexedError("none of these roots has vectors yet; run `sharc index` first")
        if semantic and mode == "hybrid" and indexes[0].ranking_settings.fast_opinion_share > 0:
            fast = _fast_arms(indexes, manifests, records, searched)
            if fast:
                arms[ranking.FAST_SEMANTIC] = _pooled(fast)
    ranked = ranking.rank(
        query, arms, _record_reader(records), limit=limit,
        settings=indexes[0].ranking_settings,
        accepts=(
            (lambda r: filters.accepts(_unmarked(r.path), r.language)) if filters.active else None
        ),
        include_tests=include_tests, max_per_file=1 if group_by_file else max_per_file,
        defines=_definition_finder(manifests), unseen=unseen,
        read_text=_text_reader(manifests),
        files=_file_evidence(indexes, mode, filters),
        spelled=_spelling_finder(manifests), files_named=_file_finder(manifests),
        locate=_chunk_locator(manifests),
        cohesion=_cohesion(manifests, searched) if searched else None,
        all_words=all_words, trace=trace,
    )
    groups = ranking.result_groups(
        ranked.candidates, limit, by_file=group_by_file, per_file=max_per_file,
        share=indexes[0].ranking_settings.same_file_share,
    )
    wanted: dict[int, list[str]] = {}
    for group in groups:
        for candidate, _ in group:
            number, chunk_id = _untagged(candidate.id)
            wanted.setdefault(number, []).append(chunk_id)
    chunks = {number: manifests[number].chunks_by_id(ids) for number, ids in wanted.items()}

    def hit(candidate: Any, score: float) -> RootedResult | None:
        number, chunk_id = _untagged(candidate.id)
        if (r := chunks[number].get(chunk_id)) is None:
            return None
        return RootedResult.of(
            r, score, root=str(indexes[number].root),
            explanation=trace.explain(candidate.id) if trace else None,
        )

    results: list[SearchResult] = nested([
        [found for candidate, score in group if (found := hit(candidate, score)) is not None]
        for group in groups
    ])
    return SearchResponse(
        results, ranked.arms, ranked.kind.value, complete,
        searched_name if ranking.SEMANTIC in ranked.arms else None,
    )


def _file_evidence(
    indexes: list[Index], mode: SearchMode, filters: SearchFilters
) -> FileEvidence | None:
    """Each index's evidence of whole files (`Index._file_evidence`), over marked paths."""
    each = [
        index._file_evidence(mode, filters.languages, filters.path_prefix) for index in indexes
    ]
    if all(evidence is None for evidence in each):
        return None

    def evidence(query: str, paths: Collection[str]) -> Mapping[str, float]:
        return _by_index(paths, lambda number, unmarked: (
            own(query, unmarked) if (own := each[number]) is not None else {}
        ))

    return evidence


def _cohesion(
    manifests: list[Manifest], searched: list[SearchedVectors | None]
) -> FileCohesion | None:
    """Each index's stored file cohesion in the vectors it searched (`sharc.file_cohesion`),
    over marked paths."""
    each = [
        None if vectors is None else cohesion_reader(manifest, vectors.vector_set)
        for manifest, vectors in zip(manifests, searched)
    ]
    if all(cohesion is None for cohesion in each):
        return None

    def cohesion(paths: Collection[str]) -> Mapping[str, float]:
        return _by_index(paths, lambda number, unmarked: (
            own(unmarked) if (own := each[number]) is not None else {}
        ))

    return cohesion


def _by_index(
    paths: Collection[str], read: Callable[[int, list[str]], Mapping[str, float]]
) -> dict[str, float]:
    """What `read(index number, its paths unmarked)` gives for each index that `paths`
    (marked) name, under the marked paths."""
    by_index: dict[int, list[str]] = {}
    for marked in paths:
        by_index.setdefault(_number_of(marked), []).append(_unmarked(marked))
    found: dict[str, float] = {}
    for number, unmarked in by_index.items():
        mark = _mark(number)
        found.update((mark + path, value) for path, value in read(number, unmarked).items())
    return found


def _text_reader(manifests: list[Manifest]) -> Callable[[Sequence[str]], dict[str, str]]:
    """`chunk_texts` of tagged chunk ids, each from its index's manifest."""

    def read(tagged: Sequence[str]) -> dict[str, str]:
        by_index: dict[int, dict[str, str]] = {}
        for tag in tagged:
            number, chunk_id = _untagged(tag)
            by_index.setdefault(number, {})[chunk_id] = tag
        texts: dict[str, str] = {}
        for number, tags in by_index.items():
            found = chunk_texts(manifests[number], list(tags))
            texts.update((tags[chunk_id], text) for chunk_id, text in found.items())
        return texts

    return read


def _refuse_duplicates(indexes: list[Index]) -> None:
    seen: dict[str, Index] = {}
    for index in indexes:
        key = os.path.realpath(index.index_dir)
        if key in seen:
            raise ValueError(f"{index.root} is given twice (both use the index at {key})")
        seen[key] = index


def _searched_vectors(
    indexes: list[Index], manifests: list[Manifest], asked: VectorChoice | None
) -> list[SearchedVectors | None]:
    """Per index, the vectors it reads: those `asked` for, else one set for all: the default
    model's when every index reads it, the fast model's where one does not yet."""
    if asked is None:
        names = {index._vectors.searched_name(m) for index, m in zip(indexes, manifests)}
        asked = "fast" if "fast" in names else None
    searched: list[SearchedVectors | None] = []
    for index, manifest in zip(indexes, manifests):
        try:
            searched.append(index._vectors.choose(manifest, asked))
        except NotIndexedError:  # no fast set here (turned off): its model's, if the same
            searched.append(index._vectors.choose(manifest, None))
    return searched


def _semantic_arms(
    indexes: list[Index],
    manifests: list[Manifest],
    records: list[SearchRecords],
    searched: list[SearchedVectors | None],
    stale: list[set[int]],
) -> list[Arm | None]:
    """Per index, its vector arm (None without vectors), all fed one query vector; the keys of
    hits no chunk has any more go into the index's `stale` set, the records of the others
    into the index's `records`."""
    with_vectors = [n for n, chosen in enumerate(searched) if chosen is not None]
    if not with_vectors:
        return []
    models = {
        _model_of(searched[n], manifests[n]): n  # type: ignore[arg-type]
        for n in with_vectors
    }
    if len(models) > 1:
        named = ", ".join(f"{indexes[n].root} ({model or 'unknown'})" for model, n in models.items())
        raise ValueError(
            f"these indexes were built with different models, whose similarities are not on"
            f" one scale: {named}; search them with mode='keyword', or one at a time"
        )
    first = searched[with_vectors[0]]
    assert first is not None
    query_vector = query_vectors(first.embedder)
    arms: list[Arm | None] = [None] * len(indexes)
    for n in with_vectors:
        chosen = searched[n]
        assert chosen is not None
        arms[n] = vector_arm(records[n].ids_by_key, chosen.vectors, query_vector, stale[n])
    return arms


def _fast_arms(
    indexes: list[Index],
    manifests: list[Manifest],
    records: list[SearchRecords],
    searched: list[SearchedVectors | None],
) -> list[Arm | None]:
    """Per index, the arm of the fast model's vectors beside the default model's that it
    searched (`VectorReader.fast_beside`), for the fast opinion; none unless every index
    that searched vectors has them."""
    fast = [
        index._vectors.fast_beside(manifest, chosen)
        for index, manifest, chosen in zip(indexes, manifests, searched)
    ]
    if any(chosen is not None and beside is None for chosen, beside in zip(searched, fast)):
        return []
    return _semantic_arms(indexes, manifests, records, fast, [set() for _ in indexes])


def _model_of(searched: SearchedVectors, manifest: Manifest) -> str:
    """The model whose vectors an index reads: the fast model, or the index's."""
    if searched.name == "fast":
        return "fast"
    return str(stored_settings(manifest).get("model_id", ""))


def _unseen_finder(
    stores: list[SegmentedVectors | None], keys: list[dict[str, int]], stale: list[set[int]]
) -> UnseenFinder:
    """Of the tagged keyword hits given, those the pooled vector arm could not have returned:
    every hit of an index without vectors, and in the others those `Index.search` would name
    (`unseen_by_vectors`)."""
    finders = [
        unseen_by_vectors(keys[n], store, stale[n]) if store is not None and len(store) else None
        for n, store in enumerate(stores)
    ]

    def unseen(ids: Sequence[str]) -> list[str]:
        by_index: dict[int, list[tuple[str, str]]] = {}
        for tagged in ids:
            number, chunk_id = _untagged(tagged)
            by_index.setdefault(number, []).append((tagged, chunk_id))
        found: list[str] = []
        for number, pairs in by_index.items():
            finder = finders[number]
            if finder is None:
                found += [tagged for tagged, _ in pairs]
                continue
            without = set(finder([chunk_id for _, chunk_id in pairs]))
            found += [tagged for tagged, chunk_id in pairs if chunk_id in without]
        return found

    return unseen


def _pooled(arms: Sequence[Arm | None]) -> Arm:
    """One arm over every index's arm: their hits tagged with the index's number, best first
    by raw score (stable: ties keep the order of the indexes), cut at the depth asked for."""

    def search(query: str, depth: int) -> list[tuple[str, float]]:
        hits = [
            (_tagged(number, chunk_id), score)
            for number, arm in enumerate(arms)
            if arm is not None
            for chunk_id, score in arm(query, depth)
        ]
        hits.sort(key=lambda hit: -hit[1])
        return hits[:depth]

    return search


def _record_reader(
    records: list[SearchRecords],
) -> Callable[[Sequence[str]], Mapping[str, RankRecord]]:
    """Ranking's record reader over every index (each record read once in a search): tagged
    ids, marked paths."""

    def read(ids: Sequence[str]) -> Mapping[str, RankRecord]:
        by_index: dict[int, list[str]] = {}
        for tagged in ids:
            number, chunk_id = _untagged(tagged)
            by_index.setdefault(number, []).append(chunk_id)
        found = {}
        for number, chunk_ids in by_index.items():
            mark = _mark(number)
            for chunk_id, record in records[number].read(chunk_ids).items():
                tagged = _tagged(number, chunk_id)
                found[tagged] = record._replace(id=tagged, path=mark + record.path)
        return found

    return read


def _definition_finder(
    manifests: list[Manifest],
) -> Callable[..., dict[str, DefinitionFacts]]:
    """Ranking's definition finder over every index, on tagged ids."""
    from sharc.ranking.visibility import definition_finder

    finders = [definition_finder(manifest) for manifest in manifests]

    def defines(
        ids: Sequence[str], names: Sequence[str], *, missed: bool = True
    ) -> dict[str, DefinitionFacts]:
        by_index: dict[int, list[str]] = {}
        for tagged in ids:
            number, chunk_id = _untagged(tagged)
            by_index.setdefault(number, []).append(chunk_id)
        # Every index is asked: one whose candidates hold none of the name's parts may still
        # define it (`missed_definitions`).
        return {
            _tagged(number, chunk_id): facts
            for number, finder in enumerate(finders)
            for chunk_id, facts in finder(by_index.get(number, []), names, missed=missed).items()
        }

    return defines


def _spelling_finder(manifests: list[Manifest]) -> Callable[[str], str | None]:
    """Ranking's spelling finder over every index: the name itself where any index defines
    it so spelled, else the first index's other spelling of it."""

    def spelled(name: str) -> str | None:
        spellings = [manifest.defined_spelling(name) for manifest in manifests]
        if name in spellings:
            return name
        return next((spelling for spelling in spellings if spelling is not None), None)

    return spelled


def _file_finder(manifests: list[Manifest]) -> Callable[[str], dict[str, list[str]]]:
    """Ranking's file finder over every index: marked paths, tagged ids."""

    def named(name: str) -> dict[str, list[str]]:
        return {
            _mark(number) + path: [_tagged(number, chunk_id) for chunk_id in ids]
            for number, manifest in enumerate(manifests)
            for path, ids in manifest.named_files(name).items()
        }

    return named


def _chunk_locator(manifests: list[Manifest]) -> Callable[[str, int], tuple[str, str] | None]:
    """Ranking's chunk locator over every index, the first that holds the file: its path as
    in its root, the chunk's tagged id."""

    def locate(file: str, line: int) -> tuple[str, str] | None:
        for number, manifest in enumerate(manifests):
            if (found := manifest.chunk_at(file, line)) is not None:
                return found[0], _tagged(number, found[1])
        return None

    return locate


def _tagged(number: int, chunk_id: str) -> str:
    return f"{number}:{chunk_id}"


def _untagged(tagged: str) -> tuple[int, str]:
    number, chunk_id = tagged.split(":", 1)
    return int(number), chunk_id


def _mark(number: int) -> str:
    return chr(_FIRST_MARK + number) + "/"


def _unmarked(path: str) -> str:
    return path[2:]


def _number_of(marked: str) -> int:
    return ord(marked[0]) - _FIRST_MARK


__all__ = ["RootedResult", "search_many"]
