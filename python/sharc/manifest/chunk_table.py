"""The `chunks` table: every chunk with its code, and the records search and sync read from it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from sharc.manifest.records import (
    _CHUNK_COLUMNS,
    _RANK_COLUMNS,
    ChunkPlace,
    ChunkRecord,
    RankRecord,
    T,
    _batches,
    _chunk_record,
    _pack_code,
)
from sharc.manifest.schema import Database

if TYPE_CHECKING:
    import numpy as np


class ChunkTable:
    """The manifest's chunks (`sharc.manifest.Manifest` forwards to it)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def chunk_ids_of(self, path: str) -> dict[str, ChunkRecord]:
        rows = self._db.connection().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE path = ?", (path,)
        )
        return {row[0]: _chunk_record(*row) for row in rows}

    def first_chunk_ids(self, paths: Sequence[str], count: int) -> dict[str, list[str]]:
        """The ids of the first `count` chunks of each of `paths` (by line), whole
        definitions and parts alike: where a file begins."""
        found: dict[str, list[str]] = {path: [] for path in paths}
        connection = self._db.connection()
        for path in paths:
            rows = connection.execute(
                "SELECT id FROM chunks WHERE path = ? ORDER BY start_line, end_line DESC LIMIT ?",
                (path, count),
            )
            found[path] = [chunk_id for (chunk_id,) in rows]
        return found

    def chunk_at_line(self, path: str, line: int) -> str | None:
        """The id of the innermost chunk of `path` that holds `line` (the method, not its
        class), or where none does (a blank line between definitions, an import), the chunk
        nearest to it; None for a file without chunks."""
        found = self._db.connection().execute(
            "SELECT id, start_line <= :line AND end_line >= :line AS holds FROM chunks"
            " WHERE path = :path ORDER BY holds DESC, CASE WHEN holds"
            " THEN end_line - start_line"
            " ELSE min(abs(start_line - :line), abs(end_line - :line)) END, start_line"
            " LIMIT 1",
            {"path": path, "line": line},
        ).fetchone()
        return found[0] if found else None

    def put_chunks(
        self, records: Sequence[ChunkRecord], keyword_only: Mapping[str, str] | None = None
    ) -> None:
        """Store chunks; `keyword_only` maps the ids of those left without a vector to the
        policy rule that says so."""
        rules = keyword_only or {}
        connection = self._db.connection()
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
        rows = self._db.connection().execute(
            "SELECT id, keyword_only FROM chunks WHERE path = ? AND keyword_only IS NOT NULL",
            (path,),
        )
        return dict(rows.fetchall())

    def delete_chunks(self, ids: Iterable[str]) -> None:
        """Forget chunks and the references they make."""
        pairs = [(i,) for i in ids]
        connection = self._db.connection()
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
        connection = self._db.connection()
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

    def rank_records_by_id(self, ids: Sequence[str]) -> dict[str, RankRecord]:
        """The light records search ranks candidates with (the code is read for the top only)."""
        return {r.id: r for r in self._select_where(
            _RANK_COLUMNS, "id", ids, lambda *row: RankRecord._make(row)
        )}

    def rank_records_by_key(self, keys: Sequence[int]) -> dict[int, RankRecord]:
        """`rank_records_by_id` for the chunks of vector keys, by key."""
        return dict(self._select_where(
            f"key, {_RANK_COLUMNS}", "key", keys, lambda key, *row: (key, RankRecord._make(row))
        ))

    def _chunks_where(self, column: str, values: Sequence[object]) -> list[ChunkRecord]:
        return self._select_where(_CHUNK_COLUMNS, column, values, _chunk_record)

    def _select_where(
        self, columns: str, column: str, values: Sequence[object], make: Callable[..., T]
    ) -> list[T]:
        """`make(*row)` for the chunks whose `column` is one of `values`, in batches under
        SQLite's limit on parameters."""
        found: list[T] = []
        connection = self._db.connection()
        for start in range(0, len(values), 500):
            batch = list(values[start : start + 500])
            marks = ",".join("?" * len(batch))
            rows = connection.execute(
                f"SELECT {columns} FROM chunks WHERE {column} IN ({marks})", batch
            )
            found.extend(make(*row) for row in rows)
        return found

    def iter_chunks(self, batch_size: int = 2000) -> Iterator[list[ChunkRecord]]:
        cursor = self._db.connection().execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks ORDER BY path")
        while rows := cursor.fetchmany(batch_size):
            yield [_chunk_record(*row) for row in rows]

    def chunk_keys(self) -> set[int]:
        return {row[0] for row in self._db.connection().execute("SELECT key FROM chunks")}

    def embeddable_keys(self) -> np.ndarray:
        """The keys of the chunks that are to have a vector (not keyword-only by policy), as
        uint64 (usearch's key type), streamed into the array."""
        import numpy as np

        rows = self._db.connection().execute("SELECT key FROM chunks WHERE keyword_only IS NULL")
        return np.fromiter((row[0] for row in rows), dtype=np.uint64)

    def embeddable_keys_of(self, paths: Sequence[str], most: int) -> dict[str, list[int]]:
        """The keys of at most `most` chunks of each of `paths` that are to have a vector:
        those with the smallest keys, which are digests, so a sample of the file."""
        found: dict[str, list[int]] = {}
        connection = self._db.connection()
        for batch in _batches(list(paths)):
            rows = connection.execute(
                "SELECT path, key FROM chunks WHERE keyword_only IS NULL"
                f" AND path IN ({', '.join('?' * len(batch))}) ORDER BY key",
                batch,
            )
            for path, key in rows:
                keys = found.setdefault(path, [])
                if len(keys) < most:
                    keys.append(key)
        return found

    def sample_embeddable_keys(self, count: int) -> list[int]:
        """The keys of `count` chunks that are to have a vector, picked as their digests
        fall (the smallest keys): a sample of the whole index."""
        rows = self._db.connection().execute(
            "SELECT key FROM chunks WHERE keyword_only IS NULL ORDER BY key LIMIT ?", (count,)
        )
        return [key for (key,) in rows]

    def keyword_only_counts(self) -> tuple[int, int]:
        """Files with chunks the policy keeps from the model, and those chunks (0, 0 for a
        manifest from before the policy that no writer has opened yet)."""
        if not self._has_policy_columns():
            return 0, 0
        # Read from the partial index `chunks_keyword_only`, not every chunk's code (a tenth
        # of a second at 300k chunks); a manifest no writer has opened since lacks it, and
        # is scanned.
        files, chunks = self._db.connection().execute(
            "SELECT count(DISTINCT path), count(*) FROM chunks WHERE keyword_only IS NOT NULL"
        ).fetchone()
        return int(files), int(chunks)

    def chunk_ids(self) -> set[str]:
        return {row[0] for row in self._db.connection().execute("SELECT id FROM chunks")}

    def counts(self) -> tuple[int, int]:
        connection = self._db.connection()
        files = connection.execute("SELECT count(*) FROM files").fetchone()[0]
        chunks = connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(files), int(chunks)

    def _has_policy_columns(self) -> bool:
        columns = {row[1] for row in self._db.connection().execute("PRAGMA table_info(chunks)")}
        return "keyword_only" in columns
