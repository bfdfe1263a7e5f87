"""The `file_cohesion` table: each file's cohesion in one vector set (`sharc.file_cohesion`),
with the content hash of the file it was measured on, and the set's baseline in the meta table.

A value counts while its file has that content hash: a changed file is not read until the
writer measures it again. Manifests from before the table get it when a writer opens them;
a reader of one without it finds no value (every file then counts as one thing).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Mapping

from sharc.manifest.records import _batches
from sharc.manifest.schema import Database

#: The meta key (with the set's name) holding `{"model": id, "baseline": cosine}`.
META_PREFIX = "cohesion:"


class CohesionTable:
    """The stored cohesion of one vector set's files."""

    def __init__(self, database: Database, set_name: str) -> None:
        self._db = database
        self._set = set_name

    def _meta(self) -> dict[str, object]:
        try:
            stored = self._db.get_meta(META_PREFIX + self._set)
        except sqlite3.OperationalError:
            return {}
        try:
            found = json.loads(stored) if stored else {}
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}

    def model(self) -> str | None:
        """The id of the model whose vectors were last measured (None: never)."""
        model = self._meta().get("model")
        return model if isinstance(model, str) else None

    def baseline(self) -> float | None:
        """The mean cosine of two chunks picked at random (None: never measured)."""
        baseline = self._meta().get("baseline")
        return float(baseline) if isinstance(baseline, int | float) else None

    def set_baseline(self, model_id: str, baseline: float) -> None:
        self._db.set_meta(
            META_PREFIX + self._set, json.dumps({"model": model_id, "baseline": baseline})
        )

    def clear(self) -> None:
        """Forget every value and the baseline."""
        connection = self._db.connection()
        connection.execute("DELETE FROM file_cohesion WHERE vector_set = ?", (self._set,))
        connection.execute("DELETE FROM meta WHERE key = ?", (META_PREFIX + self._set,))

    def forget(self, paths: Collection[str]) -> None:
        self._db.connection().executemany(
            "DELETE FROM file_cohesion WHERE vector_set = ? AND path = ?",
            [(self._set, path) for path in paths],
        )

    def put(self, values: Mapping[str, float]) -> None:
        """Store each file's value with the content hash the manifest has for it now."""
        self._db.connection().executemany(
            "INSERT OR REPLACE INTO file_cohesion (vector_set, path, content_hash, value)"
            " SELECT ?, path, content_hash, ? FROM files WHERE path = ?",
            [(self._set, value, path) for path, value in values.items()],
        )

    def values(self, paths: Collection[str]) -> dict[str, float]:
        """The stored value of those of `paths` measured on the content they have now."""
        found: dict[str, float] = {}
        connection = self._db.connection()
        try:
            for batch in _batches(list(paths)):
                rows = connection.execute(
                    "SELECT c.path, c.value FROM file_cohesion c JOIN files f"
                    " ON f.path = c.path AND f.content_hash = c.content_hash"
                    f" WHERE c.vector_set = ? AND c.path IN ({', '.join('?' * len(batch))})",
                    [self._set, *batch],
                )
                found.update(rows)
        except sqlite3.OperationalError:  # a manifest from before the table, read-only
            return {}
        return found


def path_batches(database: Database, size: int) -> Iterator[list[str]]:
    """Every indexed path, `size` at a time, in path order."""
    connection = database.connection()
    after = ""
    while True:
        rows = connection.execute(
            "SELECT path FROM files WHERE path > ? ORDER BY path LIMIT ?", (after, size)
        ).fetchall()
        if not rows:
            return
        batch = [path for (path,) in rows]
        yield batch
        after = batch[-1]
