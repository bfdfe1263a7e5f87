"""The vector journal: new vectors committed here before a saved usearch file holds them, and
the tombstones of keys the main usearch file holds but that no longer count. One journal per
vector set (`sharc.vector_sets.VectorSet`), each in its own pair of tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from sharc.manifest.records import (
    ChunkPlace,
    ChunkRecord,
    _pack_float16,
    _pack_int8,
    _unpack_float16,
    _unpack_int8,
)
from sharc.manifest.schema import JOURNAL_LAYOUT, Database

if TYPE_CHECKING:
    import numpy as np

    from sharc.vector_sets import VectorSet

#: The tables of the default set, which manifests have had from the start.
_DEFAULT_TABLES = ("vectors", "vector_tombstones")


class VectorJournal:
    """The vectors and tombstones of one set in the manifest (`sharc.manifest.Manifest`
    forwards the default set's methods to it, and gives any set's by `Manifest.journal`)."""

    def __init__(self, database: Database, vector_set: VectorSet | None = None) -> None:
        self._db = database
        self._table, self._tombstones = (
            _DEFAULT_TABLES if vector_set is None else (vector_set.journal, vector_set.tombstones)
        )
        # Only the default set's journal predates int8 (and the journal itself).
        self._legacy = self._table == _DEFAULT_TABLES[0]
        self._cached_vector_format: str | None = None if self._legacy else "i8"

    @property
    def journals_vectors(self) -> bool:
        """False for manifests that still hold every vector (written before the journal)."""
        return not self._legacy or self._db.get_meta("vector_layout") == JOURNAL_LAYOUT

    def has_journaled_vectors(self) -> bool:
        """Whether the journal (or, before it, the cache) holds any vector."""
        row = self._db.connection().execute(f"SELECT 1 FROM {self._table} LIMIT 1").fetchone()
        return row is not None

    def keys_without_vector(self) -> list[int]:
        """Keys of the chunks whose vector is not in the journal table."""
        rows = self._db.connection().execute(
            f"SELECT c.key FROM chunks c LEFT JOIN {self._table} v"
            " ON v.vector_key = c.vector_key WHERE v.vector_key IS NULL"
        )
        return [row[0] for row in rows]

    def put_vectors(self, vector_keys: Sequence[str], vectors: np.ndarray) -> None:
        import numpy as np  # only the vector methods need it: a sync with nothing to embed

        pack = _pack_int8 if self._vector_format() == "i8" else _pack_float16
        matrix = np.asarray(vectors, dtype=np.float32)
        self._db.connection().executemany(
            f"INSERT OR REPLACE INTO {self._table} (vector_key, vector) VALUES (?, ?)",
            [(key, pack(matrix[i])) for i, key in enumerate(vector_keys)],
        )

    def vectors_for(
        self, records: Sequence[ChunkRecord | ChunkPlace]
    ) -> tuple[list[int], np.ndarray]:
        """The journaled vectors of `records` (those that have one): chunk keys and a matrix."""
        import numpy as np

        by_vector_key: dict[str, bytes] = {}
        connection = self._db.connection()
        wanted = list({r.vector_key for r in records})
        for start in range(0, len(wanted), 500):
            batch = wanted[start : start + 500]
            marks = ",".join("?" * len(batch))
            for key, blob in connection.execute(
                f"SELECT vector_key, vector FROM {self._table} WHERE vector_key IN ({marks})",
                batch,
            ):
                by_vector_key[key] = blob
        unpack = _unpack_int8 if self._vector_format() == "i8" else _unpack_float16
        keys = [r.key for r in records if r.vector_key in by_vector_key]
        rows = [unpack(by_vector_key[r.vector_key]) for r in records if r.vector_key in by_vector_key]
        matrix = np.vstack(rows) if rows else np.zeros((0, 0), np.float32)
        return keys, matrix

    def _vector_format(self) -> str:
        if self._cached_vector_format is None:
            self._cached_vector_format = self._db.get_meta("vector_format") or "f16"
        return self._cached_vector_format

    def vector_tombstones(self) -> list[int]:
        try:
            rows = self._db.connection().execute(f"SELECT key FROM {self._tombstones}")
            return [row[0] for row in rows]
        except sqlite3.OperationalError:  # a manifest from before the delta, not yet written
            return []

    def count_vector_tombstones(self) -> int:
        query = f"SELECT count(*) FROM {self._tombstones}"
        return int(self._db.connection().execute(query).fetchone()[0])

    def add_vector_tombstones(self, keys: Iterable[int]) -> None:
        self._db.connection().executemany(
            f"INSERT OR IGNORE INTO {self._tombstones} (key) VALUES (?)",
            [(int(k),) for k in keys],
        )

    def remove_vector_tombstones(self, keys: Iterable[int]) -> set[int]:
        """Drop `keys` from the tombstones; returns those that were there (the main file
        holds their vectors)."""
        connection = self._db.connection()
        removed = set()
        for key in keys:
            query = f"DELETE FROM {self._tombstones} WHERE key = ?"
            if connection.execute(query, (int(key),)).rowcount:
                removed.add(int(key))
        return removed

    def clear_vector_tombstones(self) -> None:
        self._db.connection().execute(f"DELETE FROM {self._tombstones}")

    def clear_vectors(self) -> int:
        """Empty the journal (its vectors are in a saved usearch file); from then on the
        manifest journals. Returns how many rows went."""
        cursor = self._db.connection().execute(f"DELETE FROM {self._table}")
        if self._legacy:
            self._db.set_meta("vector_layout", JOURNAL_LAYOUT)
        return cursor.rowcount
