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
"""

from __future__ import annotations

import sqlite3
import threading
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from sharc import _core
from sharc.errors import IndexCorruptError, IndexVersionError

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

FORMAT_VERSION = 1
#: How new manifests journal vectors: int8 with a float32 scale per vector. Manifests without the
#: `vector_format` meta key hold float16 (they were written before int8) and keep doing so.
VECTOR_FORMAT = "i8"
#: The `vector_layout` meta value of manifests whose `vectors` table is a journal.
JOURNAL_LAYOUT = "journal"
MMAP_BYTES = 1 << 31

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    language TEXT NOT NULL,
    tier INTEGER NOT NULL,
    error TEXT,
    syntax_errors INTEGER NOT NULL DEFAULT 0,
    keyword_only TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY,
    key INTEGER NOT NULL UNIQUE,
    path TEXT NOT NULL,
    language TEXT NOT NULL,
    tier INTEGER NOT NULL,
    kind TEXT NOT NULL,
    symbol TEXT NOT NULL,
    fqn TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    header TEXT NOT NULL,
    code TEXT NOT NULL,
    vector_key TEXT NOT NULL,
    keyword_only TEXT
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE INDEX IF NOT EXISTS chunks_vector_key ON chunks (vector_key);
CREATE TABLE IF NOT EXISTS vectors (vector_key TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vector_tombstones (key INTEGER PRIMARY KEY);
-- A reference names its chunk by the chunk's key (its path and id are the chunk's): 0.16-0.32x
-- the bytes of spelling both out in every row and in two indexes (benches/speed/index_size).
CREATE TABLE IF NOT EXISTS refs (
    chunk_key INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    line INTEGER NOT NULL,
    qualifier TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_name ON refs (name);
CREATE INDEX IF NOT EXISTS refs_chunk ON refs (chunk_key);
CREATE INDEX IF NOT EXISTS chunks_symbol ON chunks (symbol);
"""
#: The `references` meta value of a manifest whose `refs` table holds every file's references,
#: read by this version of the extractor (`sharc._core.references_version`). Manifests from
#: before the code graph get the table, empty, when a writer opens them; their next update, as
#: the first one after the extractor changed, reads every file again (without embedding
#: anything again) to fill it.
REFERENCES_VERSION = _core.references_version()
#: The `chunker` meta value of a manifest whose chunks were all made by this chunker
#: (`sharc._core.chunker_version`). After an upgrade that changes chunking, the next update
#: reads every file again and replaces the chunks that changed (unchanged texts keep their
#: vectors). Manifests from before the stamp count as made by another chunker.
CHUNKER_VERSION = _core.chunker_version()


@dataclass(frozen=True)
class FileRecord:
    """What the manifest knows of one indexed file."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str
    language: str
    tier: int
    error: str | None
    syntax_errors: int


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk as stored: everything a search result shows."""

    id: str
    key: int
    path: str
    language: str
    tier: int
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int
    header: str
    code: str
    vector_key: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


class ReferenceRow(NamedTuple):
    """One edge as stored: the chunk at `path` that refers to `name`, and how."""

    path: str
    chunk_id: str
    name: str
    kind: str
    line: int
    qualifier: str


class DefinitionRow(NamedTuple):
    """A chunk that defines a name: its id, place, kind and fully qualified name."""

    chunk_id: str
    path: str
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int


class ChunkPlace(NamedTuple):
    """Where a chunk is, its key and its vector key: enough to order work by file and to find
    copies without reading code."""

    path: str
    start_line: int
    key: int
    vector_key: str


class RemovedChunk(NamedTuple):
    """A chunk an update removed or re-keyed: its vector may serve a chunk with the same text."""

    id: str
    key: int
    vector_key: str


@dataclass(frozen=True, slots=True)
class RankRecord:
    """What filtering and reranking read about a search candidate: no code, no header."""

    id: str
    path: str
    language: str
    tier: int
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int


_CHUNK_COLUMNS = ", ".join(ChunkRecord.__dataclass_fields__)
_RANK_COLUMNS = ", ".join(RankRecord.__dataclass_fields__)
_FILE_COLUMNS = ", ".join(FileRecord.__dataclass_fields__)


class Manifest:
    """One SQLite database in WAL mode: one writer, any number of concurrent readers.

    Connections are per thread, so one `Manifest` serves concurrent searches.
    """

    def __init__(self, path: Path, *, writable: bool) -> None:
        self.path = path
        self.writable = writable
        self._local = threading.local()
        self._cached_vector_format: str | None = None
        if writable:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = self._connection()
            try:
                # Space freed by the journal goes back to the file system (only settable
                # before the first table exists; older manifests get it from `compact`).
                # Set on an existing file, the pragma is a write, and closing the connection
                # then checkpoints the WAL: most of what opening an index to find nothing to
                # do cost.
                if connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None:
                    connection.execute("PRAGMA auto_vacuum=INCREMENTAL")
                self._drop_path_keyed_references(connection)
                connection.executescript(_SCHEMA)
                self._add_policy_columns(connection)
                version = self.get_meta("format_version")
                if version is None:
                    self.set_meta("format_version", str(FORMAT_VERSION))
                    self.set_meta("vector_format", VECTOR_FORMAT)
                    self.set_meta("vector_layout", JOURNAL_LAYOUT)
                    # A new manifest has no file whose references or chunks are out of date.
                    self.set_meta("references", REFERENCES_VERSION)
                    self.set_meta("chunker", CHUNKER_VERSION)
                    connection.commit()
            except sqlite3.DatabaseError as error:
                raise IndexCorruptError(f"cannot read the index manifest {path}: {error}") from error
        elif not path.exists():
            raise IndexCorruptError(f"the index manifest {path} is missing")
        self._check_version()

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            try:
                if self.writable:
                    connection = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                    connection.execute("PRAGMA journal_mode=WAL")
                    connection.execute("PRAGMA synchronous=NORMAL")
                else:
                    connection = sqlite3.connect(
                        f"file:{self.path}?mode=ro", uri=True, timeout=30,
                        check_same_thread=False,
                    )
                connection.execute("PRAGMA busy_timeout=30000")
                if not self.writable:
                    # Searches read rows at random: through a memory map they cost a fraction
                    # of a read() each. (The writer reads little, and its pages would count
                    # towards the memory indexing holds.)
                    connection.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            except sqlite3.DatabaseError as error:
                raise IndexCorruptError(
                    f"cannot open the index manifest {self.path}: {error}"
                ) from error
            self._local.connection = connection
        return connection

    @staticmethod
    def _add_policy_columns(connection: sqlite3.Connection) -> None:
        """Give a manifest from before the embedding policy its `keyword_only` columns."""
        for table in ("files", "chunks"):
            columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
            if "keyword_only" not in columns:
                connection.execute(f"ALTER TABLE {table} ADD COLUMN keyword_only TEXT")
        connection.commit()

    @staticmethod
    def _drop_path_keyed_references(connection: sqlite3.Connection) -> None:
        """Drop the `refs` table of a manifest that spelled out each reference's path and
        chunk id, and forget that its references are complete: the next update reads every
        file again (nothing is embedded again) and fills the keyed table."""
        columns = {row[1] for row in connection.execute("PRAGMA table_info(refs)")}
        if "path" in columns:
            connection.execute("DROP TABLE refs")
            connection.execute("DELETE FROM meta WHERE key = 'references'")
            connection.commit()

    def _has_policy_columns(self) -> bool:
        columns = {row[1] for row in self._connection().execute("PRAGMA table_info(chunks)")}
        return "keyword_only" in columns

    def _check_version(self) -> None:
        try:
            version = self.get_meta("format_version")
        except sqlite3.DatabaseError as error:
            raise IndexCorruptError(f"cannot read the index manifest {self.path}: {error}") from error
        if version is None:
            raise IndexCorruptError(f"the index manifest {self.path} has no format version")
        if int(version) > FORMAT_VERSION:
            raise IndexVersionError(
                f"the index at {self.path.parent} has format {version}; this sharc reads up to"
                f" {FORMAT_VERSION}"
            )

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    # -- meta ------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._connection().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._connection().execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

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

    # -- files -----------------------------------------------------------------------------

    def file_stats(self, under: Collection[str] | None = None) -> dict[str, tuple[int, int]]:
        """`{path: (size, mtime_ns)}` of every indexed file, or of those at or below the
        relative paths `under` (files or directories; `""` is the root): what a sync compares
        first."""
        return {path: (size, mtime) for path, size, mtime in self.file_stat_rows(under)}

    def file_stat_rows(self, under: Collection[str] | None = None) -> list[tuple[str, int, int]]:
        """`file_stats` as `(path, size, mtime_ns)` rows, each path once: the form the walk
        compares in Rust (`sharc.files.walk(known=...)`), read without building a dict."""
        if under is None or "" in under:
            return self._connection().execute("SELECT path, size, mtime_ns FROM files").fetchall()
        stats: dict[str, tuple[int, int]] = {}
        connection = self._connection()
        for place in under:
            # One range of the primary key, `place` to `place0` (`0` follows `/`), holds the
            # path and everything below it, with siblings such as `place.txt` to drop.
            rows = connection.execute(
                "SELECT path, size, mtime_ns FROM files WHERE path >= ? AND path < ?",
                (place, place + "0"),
            )
            below = place + "/"
            stats.update(
                (path, (size, mtime))
                for path, size, mtime in rows
                if path == place or path.startswith(below)
            )
        return [(path, size, mtime) for path, (size, mtime) in stats.items()]

    def file(self, path: str) -> FileRecord | None:
        row = self._connection().execute(
            f"SELECT {_FILE_COLUMNS} FROM files WHERE path = ?", (path,)
        ).fetchone()
        return None if row is None else FileRecord(*row)

    def files(self) -> dict[str, FileRecord]:
        rows = self._connection().execute(f"SELECT {_FILE_COLUMNS} FROM files")
        return {row[0]: FileRecord(*row) for row in rows}

    def put_file(self, record: FileRecord, *, keyword_only: str | None = None) -> None:
        """Store a file; `keyword_only`: why (some of) its chunks have no vector."""
        self._connection().execute(
            f"INSERT OR REPLACE INTO files ({_FILE_COLUMNS}, keyword_only)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.path, record.size, record.mtime_ns, record.content_hash, record.language,
             record.tier, record.error, record.syntax_errors, keyword_only),
        )

    def forget_files(self) -> None:
        """Make every file look new to the next sync (its chunks stay until replaced)."""
        self._connection().execute("DELETE FROM files")

    def expire_file_stats(self) -> None:
        """Make every file look changed to the next sync: it is read and chunked again (and
        stays as it is if its content and its verdict are the same)."""
        self._connection().execute("UPDATE files SET mtime_ns = -1")

    def keyword_only_reason(self, path: str) -> str | None:
        """Why the policy keeps (some) chunks of `path` from the model; None: it does not."""
        row = self._connection().execute(
            "SELECT keyword_only FROM files WHERE path = ?", (path,)
        ).fetchone()
        return None if row is None else row[0]

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self._connection().execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path)
        )

    def delete_file(self, path: str) -> list[RemovedChunk]:
        """Forget a file and its chunks; return the chunks removed."""
        connection = self._connection()
        removed = [
            RemovedChunk(*row)
            for row in connection.execute(
                "SELECT id, key, vector_key FROM chunks WHERE path = ?", (path,)
            )
        ]
        connection.execute(_DELETE_REFS_OF_PATH, (path,))
        connection.execute("DELETE FROM chunks WHERE path = ?", (path,))
        connection.execute("DELETE FROM files WHERE path = ?", (path,))
        return removed

    # -- the code graph --------------------------------------------------------------------

    def has_references(self) -> bool:
        """Whether the `refs` table holds every file's references (perhaps read by an older
        extractor: the next update reads them again). A manifest whose table predates chunk
        keys has none until a writer opens it and the next update fills the new table."""
        try:
            if self.get_meta("references") is None:
                return False
            columns = {row[1] for row in self._connection().execute("PRAGMA table_info(refs)")}
        except sqlite3.DatabaseError:
            return False
        return "chunk_key" in columns

    def references_current(self) -> bool:
        """Whether every file's references were read by this extractor (`REFERENCES_VERSION`)."""
        return self.get_meta("references") == REFERENCES_VERSION

    def mark_references_complete(self) -> None:
        self.set_meta("references", REFERENCES_VERSION)

    def chunks_current(self) -> bool:
        """Whether every file's chunks were made by this chunker (`CHUNKER_VERSION`)."""
        return self.get_meta("chunker") == CHUNKER_VERSION

    def mark_chunks_current(self) -> None:
        self.set_meta("chunker", CHUNKER_VERSION)

    def put_references(self, path: str, rows: Iterable[ReferenceRow]) -> None:
        """Replace the references of `path` with `rows`, after its chunks are stored: a row
        names its chunk by id, and one whose chunk is not stored is left out."""
        connection = self._connection()
        keys = dict(connection.execute("SELECT id, key FROM chunks WHERE path = ?", (path,)))
        connection.executemany("DELETE FROM refs WHERE chunk_key = ?", [(k,) for k in keys.values()])
        connection.executemany(
            "INSERT INTO refs (chunk_key, name, kind, line, qualifier) VALUES (?, ?, ?, ?, ?)",
            [
                (keys[row.chunk_id], row.name, row.kind, row.line, row.qualifier)
                for row in rows
                if row.chunk_id in keys
            ],
        )

    def references_named(self, name: str, kinds: Sequence[str] = ()) -> list[ReferenceRow]:
        """Every reference to `name`, by path and line."""
        return self._references_where("r.name", [name], kinds)

    def references_of_chunks(
        self, chunk_ids: Sequence[str], *, parts: bool = False
    ) -> list[ReferenceRow]:
        """Every reference made by the chunks `chunk_ids` (and, with `parts`, by the later
        parts of those that were split: `id#part2`, ...)."""
        found = self._references_where("c.id", chunk_ids, ())
        if parts:
            for chunk_id in dict.fromkeys(chunk_ids):
                rows = self._connection().execute(
                    f"{_SELECT_REFS} WHERE c.id >= ? AND c.id < ?",
                    (f"{chunk_id}#part", f"{chunk_id}#paru"),
                )
                found.extend(ReferenceRow(*row) for row in rows)
            found.sort(key=lambda row: (row.path, row.line, row.name, row.kind))
        return found

    def references_of_paths(
        self, paths: Sequence[str], kinds: Sequence[str] = ()
    ) -> list[ReferenceRow]:
        """Every reference made in the files `paths` (of `kinds`, if given)."""
        return self._references_where("c.path", paths, kinds)

    def _references_where(
        self, column: str, values: Sequence[str], kinds: Sequence[str]
    ) -> list[ReferenceRow]:
        found: list[ReferenceRow] = []
        kind_clause = f" AND r.kind IN ({', '.join('?' * len(kinds))})" if kinds else ""
        for batch in _batches(list(dict.fromkeys(values))):
            rows = self._connection().execute(
                f"{_SELECT_REFS} WHERE {column} IN ({', '.join('?' * len(batch))}){kind_clause}",
                (*batch, *kinds),
            )
            found.extend(ReferenceRow(*row) for row in rows)
        found.sort(key=lambda row: (row.path, row.line, row.name, row.kind))
        return found

    def references_in_paths(
        self, names: Sequence[str], paths: Sequence[str]
    ) -> list[ReferenceRow]:
        """The references to any of `names` made in the files `paths`."""
        found: list[ReferenceRow] = []
        connection = self._connection()
        for name_batch in _batches(list(dict.fromkeys(names)), 400):
            for path_batch in _batches(list(dict.fromkeys(paths)), 400):
                rows = connection.execute(
                    f"{_SELECT_REFS} WHERE r.name IN ({', '.join('?' * len(name_batch))})"
                    f" AND c.path IN ({', '.join('?' * len(path_batch))})",
                    (*name_batch, *path_batch),
                )
                found.extend(ReferenceRow(*row) for row in rows)
        found.sort(key=lambda row: (row.path, row.line, row.name, row.kind))
        return found

    def definitions_named(self, names: Sequence[str]) -> list[DefinitionRow]:
        """The symbol chunks whose symbol is one of `names` (a split symbol's first part only)."""
        found: list[DefinitionRow] = []
        for batch in _batches(list(dict.fromkeys(names))):
            rows = self._connection().execute(
                "SELECT id, path, kind, symbol, fqn, start_line, end_line FROM chunks"
                f" WHERE symbol IN ({', '.join('?' * len(batch))}) AND id NOT LIKE '%#part%'",
                batch,
            )
            found.extend(DefinitionRow(*row) for row in rows)
        found.sort(key=lambda row: (row.path, row.start_line, row.chunk_id))
        return found

    def definitions_among(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> list[tuple[str, str, str, str, str]]:
        """`(id, language, symbol, header, code)` of those of `chunk_ids` whose chunk's symbol
        is one of `names`, exactly: a search for a name finds its definitions among its
        candidates without reading the others' records."""
        names = list(dict.fromkeys(names))[:400]
        found: list[tuple[str, str, str, str, str]] = []
        if not names:
            return found
        for batch in _batches(list(dict.fromkeys(chunk_ids)), 500):
            rows = self._connection().execute(
                "SELECT id, language, symbol, header, code FROM chunks"
                f" WHERE id IN ({', '.join('?' * len(batch))})"
                # `+`: look the candidates up by id; by symbol, a common name (`__init__`)
                # would walk every chunk that defines it.
                f" AND +symbol IN ({', '.join('?' * len(names))})",
                (*batch, *names),
            )
            found.extend(
                (id_, language, symbol, header, _inflated(code))
                for id_, language, symbol, header, code in rows
            )
        return found

    def definitions_by_id(self, chunk_ids: Sequence[str]) -> list[DefinitionRow]:
        found: list[DefinitionRow] = []
        for batch in _batches(list(dict.fromkeys(chunk_ids))):
            rows = self._connection().execute(
                "SELECT id, path, kind, symbol, fqn, start_line, end_line FROM chunks"
                f" WHERE id IN ({', '.join('?' * len(batch))})",
                batch,
            )
            found.extend(DefinitionRow(*row) for row in rows)
        return found

    # -- chunks ----------------------------------------------------------------------------

    def chunk_ids_of(self, path: str) -> dict[str, ChunkRecord]:
        rows = self._connection().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE path = ?", (path,)
        )
        return {row[0]: _chunk_record(*row) for row in rows}

    def put_chunks(
        self, records: Sequence[ChunkRecord], keyword_only: Mapping[str, str] | None = None
    ) -> None:
        """Store chunks; `keyword_only` maps the ids of those left without a vector to the
        policy rule that says so."""
        rules = keyword_only or {}
        connection = self._connection()
        # A chunk stored again under a new key leaves its references behind otherwise.
        new_keys = {r.id: r.key for r in records}
        stale = [
            (key,)
            for batch in _batches(list(new_keys))
            for chunk_id, key in connection.execute(
                f"SELECT id, key FROM chunks WHERE id IN ({', '.join('?' * len(batch))})", batch
            )
            if new_keys[chunk_id] != key
        ]
        connection.executemany("DELETE FROM refs WHERE chunk_key = ?", stale)
        connection.executemany(
            f"INSERT OR REPLACE INTO chunks ({_CHUNK_COLUMNS}, keyword_only)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (r.id, r.key, r.path, r.language, r.tier, r.kind, r.symbol, r.fqn,
                 r.start_line, r.end_line, r.header, _pack_code(r.code), r.vector_key,
                 rules.get(r.id))
                for r in records
            ],
        )

    def keyword_only_rules_of(self, path: str) -> dict[str, str]:
        """`{chunk id: rule}` for the chunks of `path` that are keyword-only by policy."""
        rows = self._connection().execute(
            "SELECT id, keyword_only FROM chunks WHERE path = ? AND keyword_only IS NOT NULL",
            (path,),
        )
        return dict(rows.fetchall())

    def delete_chunks(self, ids: Iterable[str]) -> None:
        """Forget chunks and the references they make."""
        pairs = [(i,) for i in ids]
        connection = self._connection()
        connection.executemany(
            "DELETE FROM refs WHERE chunk_key = (SELECT key FROM chunks WHERE id = ?)", pairs
        )
        connection.executemany("DELETE FROM chunks WHERE id = ?", pairs)

    def chunks_by_id(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        return {r.id: r for r in self._chunks_where("id", ids)}

    def chunks_by_key(self, keys: Sequence[int]) -> list[ChunkRecord]:
        """The chunks of those `keys` that have one, in path and line order."""
        records = self._chunks_where("key", keys)
        records.sort(key=lambda r: (r.path, r.start_line, r.key))
        return records

    def places_of(self, keys: Sequence[int]) -> Iterator[ChunkPlace]:
        """Where the chunks of those `keys` that have one are, and their vector keys, in no
        order, streamed: a caller keeps them in the form it needs (a million rows as tuples
        would hold hundreds of MB)."""
        connection = self._connection()
        for start in range(0, len(keys), 500):
            batch = [int(key) for key in keys[start : start + 500]]
            marks = ",".join("?" * len(batch))
            rows = connection.execute(
                f"SELECT path, start_line, key, vector_key FROM chunks WHERE key IN ({marks})",
                batch,
            )
            for row in rows:
                yield ChunkPlace(*row)

    def keys_by_vector_key(self, vector_keys: Sequence[str]) -> dict[str, list[int]]:
        """The keys of the chunks whose text (and model) gives each of `vector_keys`."""
        found: dict[str, list[int]] = {}
        pairs = self._select_where(
            "vector_key, key", "vector_key", vector_keys, lambda vk, key: (vk, key)
        )
        for vector_key, key in pairs:
            found.setdefault(vector_key, []).append(key)
        return found

    def ids_by_key(self, keys: Sequence[int]) -> dict[int, str]:
        """The chunk id of each vector key that has a chunk."""
        return dict(self._select_where("key, id", "key", keys, lambda key, id_: (key, id_)))

    def rank_records_by_id(self, ids: Sequence[str]) -> dict[str, RankRecord]:
        """The light records search ranks candidates with (the code is read for the top only)."""
        return {r.id: r for r in self._select_where(_RANK_COLUMNS, "id", ids, RankRecord)}

    def _chunks_where(self, column: str, values: Sequence[object]) -> list[ChunkRecord]:
        return self._select_where(_CHUNK_COLUMNS, column, values, _chunk_record)

    def _select_where(
        self, columns: str, column: str, values: Sequence[object], make: Callable[..., T]
    ) -> list[T]:
        """`make(*row)` for the chunks whose `column` is one of `values`, in batches under
        SQLite's limit on parameters."""
        found: list[T] = []
        connection = self._connection()
        for start in range(0, len(values), 500):
            batch = list(values[start : start + 500])
            marks = ",".join("?" * len(batch))
            rows = connection.execute(
                f"SELECT {columns} FROM chunks WHERE {column} IN ({marks})", batch
            )
            found.extend(make(*row) for row in rows)
        return found

    def iter_chunks(self, batch_size: int = 2000) -> Iterator[list[ChunkRecord]]:
        cursor = self._connection().execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks ORDER BY path")
        while rows := cursor.fetchmany(batch_size):
            yield [_chunk_record(*row) for row in rows]

    def chunk_keys(self) -> set[int]:
        return {row[0] for row in self._connection().execute("SELECT key FROM chunks")}

    def embeddable_keys(self) -> np.ndarray:
        """The keys of the chunks that are to have a vector (not keyword-only by policy), as
        uint64 (usearch's key type), streamed into the array."""
        import numpy as np

        rows = self._connection().execute("SELECT key FROM chunks WHERE keyword_only IS NULL")
        return np.fromiter((row[0] for row in rows), dtype=np.uint64)

    def keyword_only_counts(self) -> tuple[int, int]:
        """Files with chunks the policy keeps from the model, and those chunks (0, 0 for a
        manifest from before the policy that no writer has opened yet)."""
        if not self._has_policy_columns():
            return 0, 0
        connection = self._connection()
        files = connection.execute(
            "SELECT count(*) FROM files WHERE keyword_only IS NOT NULL"
        ).fetchone()[0]
        # Only the chunks of files with a reason can have a rule: reading those alone spares
        # a scan of every chunk's code (a tenth of a second at 300k chunks).
        chunks = connection.execute(
            "SELECT count(*) FROM chunks WHERE keyword_only IS NOT NULL AND path IN"
            " (SELECT path FROM files WHERE keyword_only IS NOT NULL)"
        ).fetchone()[0]
        return int(files), int(chunks)

    def chunk_ids(self) -> set[str]:
        return {row[0] for row in self._connection().execute("SELECT id FROM chunks")}

    def counts(self) -> tuple[int, int]:
        connection = self._connection()
        files = connection.execute("SELECT count(*) FROM files").fetchone()[0]
        chunks = connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(files), int(chunks)

    # -- vectors ---------------------------------------------------------------------------

    @property
    def journals_vectors(self) -> bool:
        """False for manifests that still hold every vector (written before the journal)."""
        return self.get_meta("vector_layout") == JOURNAL_LAYOUT

    def has_journaled_vectors(self) -> bool:
        """Whether the journal (or, before it, the cache) holds any vector."""
        return self._connection().execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None

    def keys_without_vector(self) -> list[int]:
        """Keys of the chunks whose vector is not in the `vectors` table."""
        rows = self._connection().execute(
            "SELECT c.key FROM chunks c LEFT JOIN vectors v ON v.vector_key = c.vector_key"
            " WHERE v.vector_key IS NULL"
        )
        return [row[0] for row in rows]

    def put_vectors(self, vector_keys: Sequence[str], vectors: np.ndarray) -> None:
        import numpy as np  # only the vector methods need it: a sync with nothing to embed

        pack = _pack_int8 if self._vector_format() == "i8" else _pack_float16
        matrix = np.asarray(vectors, dtype=np.float32)
        self._connection().executemany(
            "INSERT OR REPLACE INTO vectors (vector_key, vector) VALUES (?, ?)",
            [(key, pack(matrix[i])) for i, key in enumerate(vector_keys)],
        )

    def vectors_for(self, records: Sequence[ChunkRecord]) -> tuple[list[int], np.ndarray]:
        """The journaled vectors of `records` (those that have one): chunk keys and a matrix."""
        import numpy as np

        by_vector_key: dict[str, bytes] = {}
        connection = self._connection()
        wanted = list({r.vector_key for r in records})
        for start in range(0, len(wanted), 500):
            batch = wanted[start : start + 500]
            marks = ",".join("?" * len(batch))
            for key, blob in connection.execute(
                f"SELECT vector_key, vector FROM vectors WHERE vector_key IN ({marks})", batch
            ):
                by_vector_key[key] = blob
        unpack = _unpack_int8 if self._vector_format() == "i8" else _unpack_float16
        keys = [r.key for r in records if r.vector_key in by_vector_key]
        rows = [unpack(by_vector_key[r.vector_key]) for r in records if r.vector_key in by_vector_key]
        matrix = np.vstack(rows) if rows else np.zeros((0, 0), np.float32)
        return keys, matrix

    def _vector_format(self) -> str:
        if self._cached_vector_format is None:
            self._cached_vector_format = self.get_meta("vector_format") or "f16"
        return self._cached_vector_format

    # -- tombstones: keys of the main usearch file that no longer count (`vector_segments`) --

    def vector_tombstones(self) -> list[int]:
        try:
            return [row[0] for row in self._connection().execute("SELECT key FROM vector_tombstones")]
        except sqlite3.OperationalError:  # a manifest from before the delta, not yet written
            return []

    def count_vector_tombstones(self) -> int:
        return int(self._connection().execute("SELECT count(*) FROM vector_tombstones").fetchone()[0])

    def add_vector_tombstones(self, keys: Iterable[int]) -> None:
        self._connection().executemany(
            "INSERT OR IGNORE INTO vector_tombstones (key) VALUES (?)", [(int(k),) for k in keys]
        )

    def remove_vector_tombstones(self, keys: Iterable[int]) -> set[int]:
        """Drop `keys` from the tombstones; returns those that were there (the main file
        holds their vectors)."""
        connection = self._connection()
        removed = set()
        for key in keys:
            if connection.execute("DELETE FROM vector_tombstones WHERE key = ?", (int(key),)).rowcount:
                removed.add(int(key))
        return removed

    def clear_vector_tombstones(self) -> None:
        self._connection().execute("DELETE FROM vector_tombstones")

    def clear_vectors(self) -> int:
        """Empty the journal (its vectors are in a saved usearch file); from then on the
        manifest journals. Returns how many rows went."""
        cursor = self._connection().execute("DELETE FROM vectors")
        self.set_meta("vector_layout", JOURNAL_LAYOUT)
        return cursor.rowcount


# -- encodings -----------------------------------------------------------------------------


#: Raw deflate with a 4 KiB window and little state: code chunks are small, and at these
#: settings compressing one costs a tenth of zlib's defaults for 1% less saving (about half).
_DEFLATE_LEVEL, _DEFLATE_WBITS, _DEFLATE_MEMLEVEL = 1, -12, 4


def _pack_code(code: str) -> str | bytes:
    """Code as stored: deflated bytes when that is smaller, else the text itself."""
    encoded = code.encode("utf-8")
    deflate = zlib.compressobj(_DEFLATE_LEVEL, zlib.DEFLATED, _DEFLATE_WBITS, _DEFLATE_MEMLEVEL)
    packed = deflate.compress(encoded) + deflate.flush()
    return packed if len(packed) < len(encoded) else code


def _chunk_record(*row: object) -> ChunkRecord:
    """A `chunks` row as a record, its code inflated (`_CHUNK_COLUMNS` order)."""
    code = row[11]
    if isinstance(code, bytes):
        row = (*row[:11], _inflated(code), *row[12:])
    return ChunkRecord(*row)  # type: ignore[arg-type]


def _inflated(code: str | bytes) -> str:
    """A `chunks.code` value as text: long bodies are stored deflated."""
    if isinstance(code, bytes):
        return zlib.decompress(code, _DEFLATE_WBITS).decode("utf-8")
    return code


def _pack_float16(vector: np.ndarray) -> bytes:
    import numpy as np

    return vector.astype(np.float16).tobytes()


def _unpack_float16(blob: bytes) -> np.ndarray:
    import numpy as np

    return np.frombuffer(blob, dtype=np.float16).astype(np.float32)


def _pack_int8(vector: np.ndarray) -> bytes:
    """A float32 scale, then the components as int8 in units of that scale (|error| <= scale/2)."""
    import numpy as np

    peak = float(np.max(np.abs(vector))) if vector.size else 0.0
    scale = peak / 127.0 if peak > 0 else 1.0
    quantized = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    return np.float32(scale).tobytes() + quantized.tobytes()


def _unpack_int8(blob: bytes) -> np.ndarray:
    import numpy as np

    scale = np.frombuffer(blob[:4], dtype=np.float32)[0]
    return np.frombuffer(blob[4:], dtype=np.int8).astype(np.float32) * scale


#: Every reference with its chunk's path and id (`ReferenceRow`'s columns), to be filtered.
_SELECT_REFS = (
    "SELECT c.path, c.id, r.name, r.kind, r.line, r.qualifier"
    " FROM refs AS r JOIN chunks AS c ON c.key = r.chunk_key"
)
_DELETE_REFS_OF_PATH = "DELETE FROM refs WHERE chunk_key IN (SELECT key FROM chunks WHERE path = ?)"


def _batches(values: Sequence[T], size: int = 500) -> Iterator[Sequence[T]]:
    """SQLite caps the parameters of one statement: ask in batches."""
    for start in range(0, len(values), size):
        yield values[start : start + size]
