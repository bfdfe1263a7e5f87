"""The manifest: SQLite, the index's source of truth.

It holds every indexed file (path, size, mtime, content hash) and every chunk with its code
(deflated where that saves space). The keyword and vector stores are derived from it and may lag
behind after a crash; search resolves their hits through the manifest, so a chunk deleted here
is never returned, and the next update brings the derived stores back in line.

Vectors live in one place, the usearch file. The `vectors` table is their journal: a batch of
new vectors is committed here before it goes into usearch, and the rows are dropped once a saved
usearch file holds them, so a crash costs no embedding work and the index keeps one copy of each
vector. (Manifests written before the journal kept every vector here, as a cache; the next
update turns theirs into a journal.)

A chunk the embedding policy leaves without a vector has its rule in `chunks.keyword_only`, and
its file the reason in `files.keyword_only` (`sharc.embed_policy`); NULL means embedded. Manifests
written before the policy get both columns, empty, when a writer opens them (readers do without);
the index then judges their files again on its next update.

The package: `Manifest` here is a facade over one database (`schema`: the schema, migrations
and meta) and its table families, each a small object it holds: `file_table`, `chunk_table`,
`graph_tables` (the code graph), `vector_journal` and `cohesion_table`; `records` holds the
rows they exchange.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sharc import _core
from sharc.errors import IndexCorruptError
from sharc.manifest.chunk_table import ChunkTable
from sharc.manifest.cohesion_table import CohesionTable, path_batches
from sharc.manifest.file_table import FileTable
from sharc.manifest.graph_tables import GraphTables
from sharc.manifest.records import (
    ChunkPlace,
    ChunkRecord,
    DefinitionRow,
    FileRecord,
    RankRecord,
    ReferenceRow,
    RemovedChunk,
)
from sharc.manifest.records import _pack_int8 as _pack_int8
from sharc.manifest.schema import (
    CHUNKER_VERSION,
    FORMAT_VERSION,
    JOURNAL_LAYOUT,
    MMAP_BYTES,
    REFERENCES_VERSION,
    VECTOR_FORMAT,
    Database,
    check_version,
    create_or_upgrade,
)
from sharc.manifest.vector_journal import VectorJournal

if TYPE_CHECKING:
    import numpy as np

    from sharc.vector_sets import VectorSet


class Manifest:
    """One SQLite database in WAL mode: one writer, any number of concurrent readers.

    Connections are per thread, so one `Manifest` serves concurrent searches.
    """

    def __init__(self, path: Path, *, writable: bool) -> None:
        self.path = path
        self.writable = writable
        self._db = Database(path, writable=writable)
        if writable:
            path.parent.mkdir(parents=True, exist_ok=True)
            create_or_upgrade(self._db)
        elif not path.exists():
            raise IndexCorruptError(f"the index manifest {path} is missing")
        check_version(self._db)
        self._files = FileTable(self._db)
        self._chunks = ChunkTable(self._db)
        self._graph = GraphTables(self._db)
        self._vectors = VectorJournal(self._db)
        self._fast_vectors: VectorJournal | None = None
        self._cohesion: dict[str, CohesionTable] = {}

    def _connection(self) -> sqlite3.Connection:
        return self._db.connection()

    def close(self) -> None:
        self._db.close()

    # -- meta ------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        return self._db.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self._db.set_meta(key, value)

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    # -- transactions ----------------------------------------------------------------------

    def commit(self) -> None:
        self._connection().commit()

    def rollback(self) -> None:
        self._connection().rollback()

    def compact(self) -> str | None:
        """Give free pages back to the file system (commits first); returns why it could not.

        Manifests created before incremental vacuum are rewritten once with it turned on (that
        needs room for a copy). A failure changes nothing: the next update tries again.
        """
        connection = self._connection()
        connection.commit()
        try:
            if connection.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
                connection.execute("PRAGMA auto_vacuum=INCREMENTAL")
                connection.execute("VACUUM")
            elif connection.execute("PRAGMA freelist_count").fetchone()[0]:
                connection.execute("PRAGMA incremental_vacuum")
            connection.commit()
        except sqlite3.OperationalError as error:
            connection.rollback()
            return str(error)
        return None


    # -- files (`sharc.manifest.file_table`) -----------------------------------------------

    def file_stats(self, under: Collection[str] | None = None) -> dict[str, tuple[int, int]]:
        return self._files.file_stats(under)

    def file_stat_rows(self, under: Collection[str] | None = None) -> list[tuple[str, int, int]]:
        return self._files.file_stat_rows(under)

    def file(self, path: str) -> FileRecord | None:
        return self._files.file(path)

    def files(self) -> dict[str, FileRecord]:
        return self._files.files()

    def put_file(self, record: FileRecord, *, keyword_only: str | None = None) -> None:
        return self._files.put_file(record, keyword_only=keyword_only)

    def forget_files(self) -> None:
        return self._files.forget_files()

    def expire_file_stats(self) -> None:
        return self._files.expire_file_stats()

    def keyword_only_reason(self, path: str) -> str | None:
        return self._files.keyword_only_reason(path)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        return self._files.touch_file(path, size, mtime_ns)

    def delete_file(self, path: str) -> list[RemovedChunk]:
        return self._files.delete_file(path)

    def directory(self, place: str) -> str | None:
        return self._files.directory(place)

    def files_named(self, name: str, limit: int, *, stem: bool = False) -> list[str]:
        return self._files.files_named(name, limit, stem=stem)

    # -- the code graph (`sharc.manifest.graph_tables`) ------------------------------------

    def has_references(self) -> bool:
        return self._graph.has_references()

    def references_current(self) -> bool:
        return self._graph.references_current()

    def mark_references_complete(self) -> None:
        return self._graph.mark_references_complete()

    def chunks_current(self) -> bool:
        return self._graph.chunks_current()

    def mark_chunks_current(self) -> None:
        return self._graph.mark_chunks_current()

    def put_references(self, path: str, rows: Iterable[ReferenceRow]) -> None:
        return self._graph.put_references(path, rows)

    def references_named(self, name: str, kinds: Sequence[str] = ()) -> list[ReferenceRow]:
        return self._graph.references_named(name, kinds)

    def references_of_chunks(
        self, chunk_ids: Sequence[str], *, parts: bool = False
    ) -> list[ReferenceRow]:
        return self._graph.references_of_chunks(chunk_ids, parts=parts)

    def references_of_paths(
        self, paths: Sequence[str], kinds: Sequence[str] = ()
    ) -> list[ReferenceRow]:
        return self._graph.references_of_paths(paths, kinds)

    def references_in_paths(
        self, names: Sequence[str], paths: Sequence[str]
    ) -> list[ReferenceRow]:
        return self._graph.references_in_paths(names, paths)

    def definitions_named(self, names: Sequence[str]) -> list[DefinitionRow]:
        return self._graph.definitions_named(names)

    def defined_spelling(self, name: str) -> str | None:
        """`GraphTables.defined_spelling`; a qualified name given with dots (`sidekiq.job`)
        is spelled as a definition whose qualified name ends with it (`Sidekiq.Job`,
        `qualified_spelling`), or else as the member of a base class its class inherits
        (`GraphTables.inherited_spelling`)."""
        if "." in name:
            segments = name.split(".")
            graph = self._graph
            spelled = graph.qualified_spelling(segments) or graph.inherited_spelling(segments)
            return ".".join(spelled) if spelled is not None else None
        return self._graph.defined_spelling(name)

    def definitions_among(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> list[tuple[str, str, str, str, str]]:
        return self._graph.definitions_among(chunk_ids, names)

    def definitions_by_id(self, chunk_ids: Sequence[str]) -> list[DefinitionRow]:
        return self._graph.definitions_by_id(chunk_ids)

    def definition_lines(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        return self._graph.definition_lines(chunk_ids)

    def module_preambles(self, paths: Iterable[str]) -> dict[str, str]:
        return self._graph.module_preambles(paths)

    # -- chunks (`sharc.manifest.chunk_table`) ---------------------------------------------

    def first_chunk_ids(self, paths: Sequence[str], count: int) -> dict[str, list[str]]:
        return self._chunks.first_chunk_ids(paths, count)

    def named_files(
        self, name: str, *, limit: int = 50, read_first: int = 5, chunks: int = 2
    ) -> dict[str, list[str]]:
        """The indexed files a query's file name or path names (`files_named`, at most
        `limit`; a name without an extension, `request`, names the files of that name with
        any), each with the ids of its first `chunks` chunks where at most `read_first` files
        share the name (else none: the ranking picks among those it found). Empty for a name
        of no file type sharc indexes (`Server.listen`), without a lookup."""
        stem = "." not in name.rsplit("/", 1)[-1]
        if not stem and _core.classify_path(name) is None:
            return {}
        paths = self.files_named(name, limit, stem=stem)
        if len(paths) > read_first:
            return {path: [] for path in paths}
        return self.first_chunk_ids(paths, chunks)

    def chunk_at(self, file: str, line: int) -> tuple[str, str] | None:
        """The indexed path a query's `file` names (a path from any machine, a path in the
        repository or a bare name: of the indexed files of its name, the one whose path
        shares the most of its end, the shorter on a tie) and the id of its chunk that holds
        `line` (`chunk_at_line`); None where no indexed file has that name."""
        parts = [part for part in re.split(r"[/\\]", file) if part not in ("", ".")]
        if not parts or _core.classify_path(parts[-1]) is None:
            return None
        named = self.files_named(parts[-1], 1000)  # `index.js` may be a monorepo's thousand

        def shared_end(path: str) -> int:
            shared = 0
            for mine, theirs in zip(reversed(path.split("/")), reversed(parts)):
                if mine.lower() != theirs.lower():
                    break
                shared += 1
            return shared

        best = max(named, key=shared_end, default=None)  # `max` keeps the first of a tie
        if best is None or shared_end(best) == 0:
            return None
        chunk_id = self._chunks.chunk_at_line(best, line)
        return (best, chunk_id) if chunk_id is not None else None

    def chunk_ids_of(self, path: str) -> dict[str, ChunkRecord]:
        return self._chunks.chunk_ids_of(path)

    def put_chunks(
        self, records: Sequence[ChunkRecord], keyword_only: Mapping[str, str] | None = None
    ) -> None:
        return self._chunks.put_chunks(records, keyword_only)

    def keyword_only_rules_of(self, path: str) -> dict[str, str]:
        return self._chunks.keyword_only_rules_of(path)

    def delete_chunks(self, ids: Iterable[str]) -> None:
        return self._chunks.delete_chunks(ids)

    def chunks_by_id(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        return self._chunks.chunks_by_id(ids)

    def chunks_by_key(self, keys: Sequence[int]) -> list[ChunkRecord]:
        return self._chunks.chunks_by_key(keys)

    def places_of(self, keys: Sequence[int]) -> Iterator[ChunkPlace]:
        return self._chunks.places_of(keys)

    def keys_by_vector_key(self, vector_keys: Sequence[str]) -> dict[str, list[int]]:
        return self._chunks.keys_by_vector_key(vector_keys)

    def rank_records_by_id(self, ids: Sequence[str]) -> dict[str, RankRecord]:
        return self._chunks.rank_records_by_id(ids)

    def rank_records_by_key(self, keys: Sequence[int]) -> dict[int, RankRecord]:
        return self._chunks.rank_records_by_key(keys)

    def iter_chunks(self, batch_size: int = 2000) -> Iterator[list[ChunkRecord]]:
        return self._chunks.iter_chunks(batch_size)

    def chunk_keys(self) -> set[int]:
        return self._chunks.chunk_keys()

    def embeddable_keys(self) -> np.ndarray:
        return self._chunks.embeddable_keys()

    def embeddable_keys_of(self, paths: Sequence[str], most: int) -> dict[str, list[int]]:
        return self._chunks.embeddable_keys_of(paths, most)

    def sample_embeddable_keys(self, count: int) -> list[int]:
        return self._chunks.sample_embeddable_keys(count)

    def path_batches(self, size: int) -> Iterator[list[str]]:
        return path_batches(self._db, size)

    def cohesion(self, vector_set: VectorSet) -> CohesionTable:
        """The stored file cohesion of `vector_set` (`sharc.file_cohesion`)."""
        table = self._cohesion.get(vector_set.name)
        if table is None:
            table = self._cohesion.setdefault(
                vector_set.name, CohesionTable(self._db, vector_set.name)
            )
        return table

    def keyword_only_counts(self) -> tuple[int, int]:
        return self._chunks.keyword_only_counts()

    def chunk_ids(self) -> set[str]:
        return self._chunks.chunk_ids()

    def counts(self) -> tuple[int, int]:
        return self._chunks.counts()

    # -- vectors (`sharc.manifest.vector_journal`) -----------------------------------------

    def journal(self, vector_set: VectorSet) -> VectorJournal:
        """The journal and tombstones of `vector_set` (the methods below: the default set's)."""
        if vector_set.journal == "vectors":
            return self._vectors
        if self._fast_vectors is None:
            self._fast_vectors = VectorJournal(self._db, vector_set)
        return self._fast_vectors

    @property
    def journals_vectors(self) -> bool:
        return self._vectors.journals_vectors

    def has_journaled_vectors(self) -> bool:
        return self._vectors.has_journaled_vectors()

    def keys_without_vector(self) -> list[int]:
        return self._vectors.keys_without_vector()

    def put_vectors(self, vector_keys: Sequence[str], vectors: np.ndarray) -> None:
        return self._vectors.put_vectors(vector_keys, vectors)

    def vectors_for(
        self, records: Sequence[ChunkRecord | ChunkPlace]
    ) -> tuple[list[int], np.ndarray]:
        return self._vectors.vectors_for(records)

    def vector_tombstones(self) -> list[int]:
        return self._vectors.vector_tombstones()

    def count_vector_tombstones(self) -> int:
        return self._vectors.count_vector_tombstones()

    def add_vector_tombstones(self, keys: Iterable[int]) -> None:
        return self._vectors.add_vector_tombstones(keys)

    def remove_vector_tombstones(self, keys: Iterable[int]) -> set[int]:
        return self._vectors.remove_vector_tombstones(keys)

    def clear_vector_tombstones(self) -> None:
        return self._vectors.clear_vector_tombstones()

    def clear_vectors(self) -> int:
        return self._vectors.clear_vectors()


__all__ = [
    "CHUNKER_VERSION",
    "FORMAT_VERSION",
    "JOURNAL_LAYOUT",
    "MMAP_BYTES",
    "REFERENCES_VERSION",
    "VECTOR_FORMAT",
    "ChunkPlace",
    "ChunkRecord",
    "DefinitionRow",
    "FileRecord",
    "Manifest",
    "RankRecord",
    "ReferenceRow",
    "RemovedChunk",
]
