"""The manifest's database: the schema, the migrations a writer applies to older manifests, the
format version check, the meta table, and one SQLite connection per thread.

Meta keys the writer stamps: `format_version`, `vector_format`, `vector_layout`, `references`
(the extractor that read every file's references) and `chunker` (the chunker that made every
chunk).
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from sharc import _core
from sharc.errors import IndexCorruptError, IndexVersionError

P = ParamSpec("P")
R = TypeVar("R")

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
-- The fast model's vectors beside the default model's (`sharc.vector_sets.FAST_SET`): always int8.
CREATE TABLE IF NOT EXISTS fast_vectors (vector_key TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS fast_vector_tombstones (key INTEGER PRIMARY KEY);
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
-- How far each file's parts are about one thing, per vector set (`sharc.file_cohesion`).
CREATE TABLE IF NOT EXISTS file_cohesion (
    vector_set TEXT NOT NULL,
    path TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (vector_set, path)
);
CREATE INDEX IF NOT EXISTS chunks_symbol_folded ON chunks (replace(lower(symbol), '_', ''));
"""
#: A chunk's symbol folded as `folded_name` folds a name: how a name typed in another case or
#: convention (`short_byte_string` for `ShortByteString`) finds its definitions; the
#: `chunks_symbol_folded` index serves lookups written with this very expression.
FOLDED_SYMBOL = "replace(lower(symbol), '_', '')"
FOLDED_INDEX = "chunks_symbol_folded"


def folded_name(name: str) -> str:
    """`name` in lower case (ASCII, as SQLite's `lower`) without underscores."""
    return "".join(c.lower() if c.isascii() else c for c in name).replace("_", "")


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


class Database:
    """One SQLite database in WAL mode: one writer, any number of concurrent readers, each
    thread on its own connection."""

    def __init__(self, path: Path, *, writable: bool) -> None:
        self.path = path
        self.writable = writable
        self._local = threading.local()

    def connection(self) -> sqlite3.Connection:
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

    def get_meta(self, key: str) -> str | None:
        row = self.connection().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.connection().execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


def create_or_upgrade(database: Database) -> None:
    """Create the tables of a new manifest and stamp it, or bring an older one's tables up to
    this schema (a writer does, on opening)."""
    connection = database.connection()
    try:
        # Space freed by the journal goes back to the file system (only settable before the
        # first table exists; older manifests get it from `compact`). Set on an existing
        # file, the pragma is a write, and closing the connection then checkpoints the WAL:
        # most of what opening an index to find nothing to do cost.
        if connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None:
            connection.execute("PRAGMA auto_vacuum=INCREMENTAL")
        _drop_path_keyed_references(connection)
        connection.executescript(_SCHEMA)
        _add_policy_columns(connection)
        version = database.get_meta("format_version")
        if version is None:
            database.set_meta("format_version", str(FORMAT_VERSION))
            database.set_meta("vector_format", VECTOR_FORMAT)
            database.set_meta("vector_layout", JOURNAL_LAYOUT)
            # A new manifest has no file whose references or chunks are out of date.
            database.set_meta("references", REFERENCES_VERSION)
            database.set_meta("chunker", CHUNKER_VERSION)
            connection.commit()
    except sqlite3.DatabaseError as error:
        raise IndexCorruptError(
            f"cannot read the index manifest {database.path}: {error}"
        ) from error


def _add_policy_columns(connection: sqlite3.Connection) -> None:
    """Give a manifest from before the embedding policy its `keyword_only` columns."""
    for table in ("files", "chunks"):
        columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        if "keyword_only" not in columns:
            connection.execute(f"ALTER TABLE {table} ADD COLUMN keyword_only TEXT")
    # The few chunks with a rule, counted without reading every chunk (`keyword_only_counts`).
    connection.execute(
        "CREATE INDEX IF NOT EXISTS chunks_keyword_only ON chunks (keyword_only, path)"
        " WHERE keyword_only IS NOT NULL"
    )
    connection.commit()


def _drop_path_keyed_references(connection: sqlite3.Connection) -> None:
    """Drop the `refs` table of a manifest that spelled out each reference's path and
    chunk id, and forget that its references are complete: the next update reads every
    file again (nothing is embedded again) and fills the keyed table."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(refs)")}
    if "path" in columns:
        connection.execute("DROP TABLE refs")
        connection.execute("DELETE FROM meta WHERE key = 'references'")
        connection.commit()


def reads_manifest(method: Callable[P, R]) -> Callable[P, R]:
    """`method`, with a damaged manifest that it finds while reading (a file that is no
    database, a malformed page) reported as `IndexCorruptError`. Opening a manifest checks
    its first page only; the others are read as a search needs them."""

    @functools.wraps(method)
    def reading(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.OperationalError:
            raise  # locked, busy, out of memory: not damage
        except sqlite3.DatabaseError as error:
            raise IndexCorruptError(f"cannot read the index manifest: {error}") from error

    return reading


def check_version(database: Database) -> None:
    try:
        version = database.get_meta("format_version")
    except sqlite3.DatabaseError as error:
        raise IndexCorruptError(f"cannot read the index manifest {database.path}: {error}") from error
    if version is None:
        raise IndexCorruptError(f"the index manifest {database.path} has no format version")
    if int(version) > FORMAT_VERSION:
        raise IndexVersionError(
            f"the index at {database.path.parent} has format {version}; this sharc reads up to"
            f" {FORMAT_VERSION}"
        )
