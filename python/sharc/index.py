"""The index of one root: incremental, crash-safe sync and hybrid search.

Layout of an index directory (`sharc.stores`)::

    manifest.sqlite   files and chunks (with their code): the truth; and the vector journal
    keyword/          tantivy BM25 index over code-aware tokens (derived from the manifest)
    keyword-files/    the same over whole files, one document each (`sharc.file_keywords`)
    vectors.usearch   usearch ANN index of chunk vectors, the one copy of each
    vectors-fast.usearch   the fast model's vectors of the same chunks (`sharc.fast_vectors`)
    writer.lock       held by the one process that writes

`Index` is a facade: updates go to the writer (`sharc.writer`, and `sharc.vector_sync` for the
vectors), searches are read here and ranked by `sharc.ranking`.

An update commits the manifest first, in one transaction per step of its work, then brings the
derived stores in line and records the manifest generation they reflect. A crash between the two
leaves stores that lag; search resolves every hit through the manifest (deleted code never comes
back) and the next update reconciles them. Keyword search works as soon as the first step of
chunking is committed, before the model loads; vectors stream in behind it, and each search says
which arms answered. A cold index on a CPU has semantic search within seconds: the fast
model's vectors come first, and search reads them until the index's model has embedded every
chunk (`sharc.fast_vectors`; `SearchResponse.vectors` says which answered).

A chunk's vector key is derived from its id and its text, so a key in usearch always holds the
vector of the text the manifest has: bringing usearch in line is a difference of key sets
(`sharc.vector_sync`). New vectors are journaled in the manifest until a saved usearch file holds
them; a vector whose text is still in usearch under another key (moved or duplicated code) is
copied from there instead of recomputed. A vector key leaves out the chunk's own path (its header
names it), so copies of a file share their vectors: each distinct vector key meets the model
once per index, and its vector is given to every chunk that has it.

Not every chunk gets a vector: the embedding policy (`sharc.embed_policy`) keeps minified,
generated, vendored and data files, and the chunks of a file beyond its budget, keyword-only.
The manifest records which (and why); "every chunk key" above means every chunk key the policy
embeds. The index remembers its policy and judges its files again when it changes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.asynchronous import AsyncIndexMethods
from sharc.embed_policy import policy_from_settings
from sharc.errors import NotIndexedError
from sharc.file_cohesion import reader as cohesion_reader
from sharc.files import WalkSettings
from sharc.locking import WriterLock
from sharc.manifest import Manifest
from sharc.manifest.schema import reads_manifest
from sharc.paths import default_index_dir
from sharc.search_arms import all_words_arm, keyword_arm, query_vectors, vector_arm
from sharc.search_records import SearchRecords
from sharc.search_types import IndexStats as IndexStats
from sharc.search_types import SearchFilters as SearchFilters
from sharc.search_types import SearchMode as SearchMode
from sharc.search_types import SearchResponse as SearchResponse
from sharc.search_types import SearchResult as SearchResult
from sharc.search_types import nested
from sharc.store_readers import StoreReaders
from sharc.stores import (
    MANIFEST,
    directory_size,
    recorded_state,
    remove_index_files,
    writer_lock,
)
from sharc.vector_reader import VectorChoice, VectorReader, built_with_fast, unseen_by_vectors
from sharc.vector_sets import DEFAULT_SET, FAST_SET, VectorSet
from sharc.writer import DEFAULT_EMBEDDING_MODE as DEFAULT_EMBEDDING_MODE
from sharc.writer import (
    CancelCheck,
    EmbeddingMode,
    IndexWriter,
    Progress,
    ProgressCallback,
    UpdateReport,
    WriterSettings,
    stored_settings,
)

if TYPE_CHECKING:
    from sharc.distributed import Executor
    from sharc.embedding import Embedder
    from sharc.graph import Edge, Graph
    from sharc.ranking.explain import Trace
    from sharc.ranking.graph import GraphFacts
    from sharc.ranking.pipeline import FileEvidence
    from sharc.ranking.settings import RankingSettings

#: How many of the top search results get their callers and callees with `graph=True`.
GRAPH_HITS = 5


class Index(AsyncIndexMethods):
    """The search index of one root directory. Thread-safe for concurrent searches.

    A facade: `update` goes to an `IndexWriter`; searches read the stores here; `asearch`
    and `aupdate` (`sharc.asynchronous`) run them for asyncio.
    """

    def __init__(
        self,
        root: Path,
        index_dir: Path,
        *,
        model: str | None = None,
        embedding_mode: EmbeddingMode | None = None,
        walk_settings: WalkSettings | None = None,
        embed_anyway: Collection[str] | None = None,
        max_embedded_per_file: int | None = None,
        device: str = "auto",
        fast_vectors: bool | None = None,
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self._model_name = model
        self._embedding_mode = embedding_mode
        self._walk_settings = walk_settings
        self._embed_anyway = embed_anyway
        self._max_embedded_per_file = max_embedded_per_file
        # Bad rule names fail here, not in the middle of an update.
        policy_from_settings(None, off=embed_anyway, max_chunks_per_file=max_embedded_per_file)
        self._device = device
        self._fast_vectors = fast_vectors
        self._embedder: Embedder | None = None
        self._fast_embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()
        self._readers = StoreReaders(root, index_dir, self._writer_lock)
        self._vectors = VectorReader(
            index_dir, embedder=self.embedder, fast_embedder=self.fast_embedder
        )
        from sharc.ranking import DEFAULT_SETTINGS

        #: Arm weights, RRF constant, boosts and penalties (benchmarks tune them).
        self.ranking_settings = DEFAULT_SETTINGS

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        *,
        index_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
        embedding_mode: EmbeddingMode | None = None,
        ignore_patterns: Sequence[str] = (),
        custom_extensions: Sequence[str] = (),
        max_file_size: int | None = None,
        embed_anyway: Collection[str] | None = None,
        max_embedded_per_file: int | None = None,
        device: str = "auto",
        fast_vectors: bool | None = None,
    ) -> Index:
        """Open (without building) the index of `root`. `update()` builds or refreshes it.

        `model` is a directory holding model.onnx + tokenizer.json + sharc-model.json (None: the
        bundled all-MiniLM-L6-v2). Minified, generated, lockfile, data, source-map, snapshot and
        vendored files, and the chunks of a file beyond `max_embedded_per_file` (default 1000),
        are searchable by keyword only; `embed_anyway` names the rules to turn off (`"all"`, or
        `()` for none). `fast_vectors` (default on) keeps the fast model's vectors beside the
        model's: search has them seconds into a cold index and reads them until the model's
        cover every chunk (`sharc.fast_vectors`). Settings given here are remembered by the
        index (None: as remembered).
        """
        root_path = Path(root).expanduser()
        if not root_path.exists():
            raise FileNotFoundError(f"no such directory: {root_path}")
        if not root_path.is_dir():
            raise NotADirectoryError(f"not a directory: {root_path}")
        root_path = root_path.resolve()
        directory = Path(index_dir).expanduser() if index_dir else default_index_dir(root_path)
        settings = None
        if ignore_patterns or custom_extensions or max_file_size is not None:
            settings = WalkSettings(
                tuple(ignore_patterns),
                tuple(custom_extensions),
                max_file_size if max_file_size is not None else WalkSettings().max_file_size,
            )
        return cls(
            root_path,
            directory,
            model=model,
            embedding_mode=embedding_mode,
            walk_settings=settings,
            embed_anyway=embed_anyway,
            max_embedded_per_file=max_embedded_per_file,
            device=device,
            fast_vectors=fast_vectors,
        )

    @property
    def exists(self) -> bool:
        return (self.index_dir / MANIFEST).exists()

    def _writer_lock(self) -> WriterLock:
        return writer_lock(self.index_dir, self.root)

    def embedder(self) -> Embedder:
        """The embedding model, loaded once (it takes a second)."""
        with self._embedder_lock:
            if self._embedder is None:
                from sharc.embedding import load_embedder

                model = self._model_name
                if model is None and self.exists:
                    stored = stored_settings(self._reader_manifest()).get("model")
                    model = str(stored) if stored else None
                self._embedder = load_embedder(model, device=self._device)
            return self._embedder

    def fast_embedder(self) -> Embedder:
        """The fast model (`sharc.static_embedding`), loaded once: the fast set's vectors."""
        from sharc.model_config import FAST_MODEL

        with self._embedder_lock:
            if self._fast_embedder is None:
                if self._embedder is not None and self._model_name == FAST_MODEL:
                    self._fast_embedder = self._embedder
                else:
                    from sharc.embedding import load_embedder

                    self._fast_embedder = load_embedder(
                        FAST_MODEL, device=self._device, query_teacher=self._query_teacher
                    )
            return self._fast_embedder

    def _query_teacher(self) -> Embedder:
        """The default model for the fast set's queries: this index's own model where that
        is the default model (a two-stage index), so that it is loaded once."""
        from sharc.model_config import DEFAULT_MODEL

        if self._model_name in (None, DEFAULT_MODEL):
            embedder = self.embedder()
            if embedder.model_id.startswith(DEFAULT_MODEL):
                return embedder
        from sharc.embedding import load_embedder

        return load_embedder(device=self._device)

    # -- updating --------------------------------------------------------------------------

    def update(
        self,
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | threading.Event | None = None,
        embed: bool = True,
        force: bool = False,
        hold: Collection[str] = (),
        compact: bool = False,
        executor: Executor | None = None,
        paths: Collection[str | os.PathLike[str]] | None = None,
    ) -> UpdateReport:
        """Bring the index in line with the files on disk, touching only what changed.

        The model is loaded only if a chunk needs a vector. New vectors go to a delta file
        beside the main one, folded in when it grows past a tenth of it, or now with
        `compact`. Files in `hold` (relative paths) keep their indexed state whatever is on
        disk: the watcher's syntax guard holds a file while it does not parse. Raises
        `IndexLockedError` if another process is writing, `CancelledError` when `cancel` says
        so (the index keeps its last committed state). With an `executor`
        (`sharc.distributed.RayExecutor`), changed files are chunked and embedded on a Ray
        cluster; this process writes the index as it does alone, and the index is the same.

        `paths` (relative to the root: files or directories, added, changed or deleted) is
        for a caller that knows what changed, such as a file watcher: only they are walked
        and compared, by the same rules, and the rest of the index stays as it is. At a
        million chunks that skips a walk of the whole tree. A changed ignore file, changed
        settings or a first index make it a whole update; `force` ignores it.
        """
        writer = IndexWriter(
            self.root,
            self.index_dir,
            WriterSettings(
                model=self._model_name,
                embedding_mode=self._embedding_mode,
                walk=self._walk_settings,
                embed_anyway=self._embed_anyway,
                max_embedded_per_file=self._max_embedded_per_file,
                device=self._device,
                fast_vectors=self._fast_vectors,
            ),
            load_embedder=self._embedder_for,
            loaded_embedder=self._loaded_embedder,
            load_fast_embedder=self.fast_embedder,
            executor=executor,
        )
        try:
            return writer.update(
                progress=progress, cancel=cancel, embed=embed, force=force, hold=hold,
                compact=compact, paths=paths,
            )
        finally:
            self._forget_readers()

    def _embedder_for(self, model: str | None) -> Embedder:
        with self._embedder_lock:
            if self._loaded_embedder(model) is None:
                from sharc.embedding import load_embedder

                self._embedder = load_embedder(model, device=self._device)
                self._model_name = model
            assert self._embedder is not None
            return self._embedder

    def _loaded_embedder(self, model: str | None) -> Embedder | None:
        if self._embedder is None or (model or None) != (self._model_name or None):
            return None
        return self._embedder

    # -- reading ---------------------------------------------------------------------------

    def _reader_manifest(self) -> Manifest:
        return self._readers.manifest()

    def _forget_readers(self) -> None:
        self._readers.forget()
        self._vectors.forget()

    @reads_manifest
    def search(
        self,
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
        graph: bool = False,
        vectors: VectorChoice | None = None,
        explain: bool = False,
    ) -> SearchResponse:
        """Hybrid search: BM25 and vector candidates ranked by `sharc.ranking.rank`.

        Identifier queries lean on keywords and exact symbol matches; natural-language queries
        on vectors. Tests, docs, generated and vendored code rank lower unless the query asks
        for them. Grouped by file (the default), each of the `limit` results is one file's
        best hit, with up to `max_per_file - 1` of the file's other hits that score close to
        it in `same_file_hits` (`SearchResponse.all_hits` reads them all in order); with
        `group_by_file=False`, the results are chunks, at most `max_per_file` per file before
        every other file has had its place. `max_per_file=None`: no cap. With `graph`, the top `GRAPH_HITS` results carry `called_by` and `calls` (`sharc.graph`).
        `vectors` picks the vector set: `"fast"` (the fast model's), `"default"` (the index's
        model's), or None: the default model's once they cover every chunk, the fast model's
        until then (`SearchResponse.vectors` says which answered). A question that names an
        indexed directory as the place to look ("retries in lib/queue/") searches it first,
        then the rest (`sharc.scoped_search`), unless `path_prefix` is given. With
        `explain`, each hit carries why it ranks where it does (`SearchResult.explanation`).
        """
        from sharc import ranking
        from sharc.ranking.explain import Trace
        from sharc.ranking.visibility import definition_finder
        from sharc.scoped_search import scoped_search

        if limit < 1:
            raise ValueError("limit must be at least 1")
        filters = SearchFilters(tuple(extensions), tuple(languages), path_prefix, path_glob)
        manifest = self._reader_manifest()
        query = query.strip()
        if not query:
            return SearchResponse([], (), "empty", True, None)
        if path_prefix is None:  # "retries in lib/queue/": that directory first
            scoped = scoped_search(
                lambda question, prefix: self.search(
                    question, limit=limit, mode=mode, extensions=extensions,
                    languages=languages, path_prefix=prefix, path_glob=path_glob,
                    include_tests=include_tests, max_per_file=max_per_file,
                    group_by_file=group_by_file, graph=graph, vectors=vectors,
                    explain=explain,
                ),
                query, limit, manifest.directory, by_file=group_by_file,
            )
            if scoped is not None:
                return scoped
        arms: dict[str, ranking.pipeline.Arm] = {}
        unseen: ranking.pipeline.UnseenFinder | None = None
        complete = True
        # Which keyword hits the vectors could not have returned is told by their keys: no
        # vector, or one the manifest no longer names (the chunk changed, not yet embedded).
        keys: dict[str, int] = {}
        stale: set[int] = set()
        records = SearchRecords(manifest)  # each candidate's record read once
        trace = Trace() if explain else None
        all_words = None
        if mode in ("hybrid", "keyword"):
            keyword = self._readers.keyword()
            arms[ranking.KEYWORD] = keyword_arm(
                keyword, languages, path_prefix, keys, records.ids_by_key
            )
            all_words = all_words_arm(keyword, languages, path_prefix)
        searched = None
        if mode in ("hybrid", "semantic"):
            searched = self._vectors.choose(manifest, vectors)
            if searched is not None:
                # Kept by the writer: counting embedded chunks would cost a join per query.
                complete = searched.complete
                arms[ranking.SEMANTIC] = vector_arm(
                    records.ids_by_key, searched.vectors,
                    query_vectors(searched.embedder or self.embedder), stale,
                )
                unseen = unseen_by_vectors(keys, searched.vectors, stale)
                opinion = mode == "hybrid" and self.ranking_settings.fast_opinion_share > 0
                fast = self._vectors.fast_beside(manifest, searched) if opinion else None
                if fast is not None:  # its hits make the fast opinion
                    arms[ranking.FAST_SEMANTIC] = vector_arm(
                        records.ids_by_key, fast.vectors, query_vectors(fast.embedder)
                    )
            elif mode == "semantic":
                raise NotIndexedError(f"{self.root} has no vectors yet; run `sharc index` first")
            else:
                complete = manifest.get_meta(DEFAULT_SET.complete) == "1"
        ranked = ranking.rank(
            query, arms, records.read, limit=limit,
            settings=self.ranking_settings,
            accepts=(lambda r: filters.accepts(r.path, r.language)) if filters.active else None,
            include_tests=include_tests, max_per_file=1 if group_by_file else max_per_file,
            graph=_graph_facts(manifest, self.ranking_settings),
            defines=definition_finder(manifest), unseen=unseen,
            read_text=lambda chunk_ids: chunk_texts(manifest, chunk_ids),
            files=self._file_evidence(mode, languages, path_prefix),
            spelled=manifest.defined_spelling, files_named=manifest.named_files,
            locate=manifest.chunk_at,
            cohesion=cohesion_reader(manifest, searched.vector_set) if searched else None,
            all_words=all_words, trace=trace,
        )
        groups = ranking.result_groups(
            ranked.candidates, limit, by_file=group_by_file, per_file=max_per_file,
            share=self.ranking_settings.same_file_share,
        )
        return SearchResponse(
            _results(manifest, groups, trace, graph), ranked.arms, ranked.kind.value, complete,
            searched.name if searched is not None and ranking.SEMANTIC in ranked.arms else None,
        )

    def _file_evidence(
        self, mode: SearchMode, languages: Sequence[str], path_prefix: str | None
    ) -> FileEvidence | None:
        """How well candidate files match as a whole (`sharc.file_keywords`), for a hybrid
        search of an index that has the file index."""
        if mode != "hybrid" or (store := self._readers.file_keyword()) is None:
            return None
        from sharc.file_keywords import file_evidence

        return file_evidence(
            store,
            languages=list(languages) or None,
            path_prefix=(path_prefix.strip("/") if path_prefix else None),
        )

    # -- state -----------------------------------------------------------------------------

    # -- the code graph --------------------------------------------------------------------

    def graph(self) -> Graph:
        """The code graph (`sharc.graph`): references, callers, callees, call graphs."""
        from sharc.graph import Graph

        return Graph(self._reader_manifest())

    def references(
        self, symbol: str, *, kinds: Sequence[str] = (), path: str | None = None
    ) -> list[Edge]:
        """Every site that refers to `symbol` (a name, `Class.method` or a chunk id), with
        the definitions it may mean and how sure that is."""
        return self.graph().references(symbol, kinds=kinds, path=path)

    def callers(self, symbol: str, *, path: str | None = None) -> list[Edge]:
        """The call sites of `symbol`, most confident first."""
        return self.graph().callers(symbol, path=path)

    def callees(self, symbol: str, *, path: str | None = None) -> list[Edge]:
        """The calls `symbol` makes, each resolved to its candidate definitions."""
        return self.graph().callees(symbol, path=path)

    def stats(self) -> IndexStats:
        manifest = self._reader_manifest()
        files, chunks = manifest.counts()
        keyword_only_files, keyword_only_chunks = manifest.keyword_only_counts()
        settings = stored_settings(manifest)
        last = manifest.get_meta("last_update")
        return IndexStats(
            root=str(self.root),
            index_dir=str(self.index_dir),
            files=files,
            chunks=chunks,
            embedded_chunks=self._count_embedded(manifest, DEFAULT_SET),
            fast_embedded_chunks=(
                0 if built_with_fast(manifest) else self._count_embedded(manifest, FAST_SET)
            ),
            searched_vectors=self.searched_vectors(),
            keyword_only_chunks=keyword_only_chunks,
            keyword_only_files=keyword_only_files,
            model=str(settings.get("model_id", "")),
            embedding_mode=str(settings.get("embedding_mode", "")),
            size_bytes=directory_size(self.index_dir),
            last_update=float(last) if last else None,
            generation=manifest.generation(),
        )

    def searched_vectors(self) -> str | None:
        """The vectors a search reads unless told: "fast", "default", or None (none yet);
        reads no vectors (`IndexStats.searched_vectors` says the same)."""
        return self._vectors.searched_name(self._reader_manifest())

    def _count_embedded(self, manifest: Manifest, vector_set: VectorSet) -> int:
        recorded = recorded_state(manifest, self.index_dir, vector_set)
        if recorded is not None:
            return recorded.embedded  # counted by the writer: usearch stays unread
        import numpy as np

        vectors = self._vectors.vectors(manifest, vector_set)
        if vectors is None or not len(vectors):
            return 0
        keys = np.fromiter(manifest.chunk_keys(), dtype=np.uint64)
        return int(np.isin(keys, vectors.keys(), assume_unique=True).sum())

    def clear(self) -> None:
        """Delete the index (waits for no one: raises `IndexLockedError` if a writer runs)."""
        self._forget_readers()
        with self._writer_lock():
            remove_index_files(self.index_dir)

    def close(self) -> None:
        self._forget_readers()


# -- helpers -------------------------------------------------------------------------------


def _results(
    manifest: Manifest, groups: Sequence[Sequence[tuple[Any, float]]], trace: Trace | None,
    graph: bool,
) -> list[SearchResult]:
    """The hits of ranked groups of candidates, their chunks read, each group's first hit
    carrying the others; with `trace`, each explained; with `graph`, the top ones with their
    callers and callees (`sharc.graph`)."""
    records = manifest.chunks_by_id([candidate.id for group in groups for candidate, _ in group])
    results = nested([
        [SearchResult.of(r, score, explanation=trace.explain(candidate.id) if trace else None)
         for candidate, score in group if (r := records.get(candidate.id)) is not None]
        for group in groups
    ])
    if graph and manifest.has_references():
        from sharc.graph import with_neighbours

        results = with_neighbours(results, manifest, GRAPH_HITS)
    return results


def chunk_texts(manifest: Manifest, chunk_ids: Sequence[str]) -> dict[str, str]:
    """Each chunk's header, code and path, as the ranking reads them (`ranking.TextReader`),
    for those of `chunk_ids` the manifest holds."""
    records = manifest.chunks_by_id(list(chunk_ids))
    return {i: f"{r.header}{r.code}\n{r.path}" for i, r in records.items()}


def _graph_facts(manifest: Manifest, settings: RankingSettings) -> GraphFacts | None:
    """What the ranking's graph neighbour stage reads, when it is on and the index has its
    graph (an index from before the graph ranks without it until its next update)."""
    import functools

    from sharc.graph import linked_files
    from sharc.ranking.graph import GraphFacts

    if not settings.neighbour_lift or not manifest.has_references():
        return None
    return GraphFacts(functools.partial(linked_files, manifest))


__all__ = [
    "Index",
    "IndexStats",
    "Progress",
    "SearchFilters",
    "SearchResponse",
    "SearchResult",
    "UpdateReport",
]
