"""The `file_cohesion` table: each file's cohesion in one vector set (`sharc.file_cohesion`),
with the content hash of the file it was measured on, and the set's baseline in the meta table.

A value counts while its file has that content hash: a changed file is not read until the
writer measures it again. Manifests from before the table get it when a writer opens them;
a reader of one without it finds no value (every file then counts as one thing).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping

from sharc.manifest.schema import Database

#: The meta key (with the set's name) holding
#: `{"model": id, "baseline": cosine, "measured_ns": stamp}`.
META_PREFIX = "cohesion:"


class CohesionTable:
    """The stored cohesion of one vector set's files. A search reads them all at once
    (`measured`), kept until the writer measures again or changes a file. Thread-safe."""

    def __init__(self, database: Database, set_name: str) -> None:
        self._db = database
        self._set = set_name
        self._lock = threading.Lock()
        self._kept: tuple[tuple[str | None, str | None], dict[str, float]] | None = None

    def _stamp(self) -> str | None:
        try:
            return self._db.get_meta(META_PREFIX + self._set)
        except sqlite3.OperationalError:
            return None

    @staticmethod
    def _parsed(stamp: str | None) -> dict[str, object]:
        try:
            found = json.loads(stamp) if stamp else {}
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}

    def model(self) -> str | None:
        """The id of the model whose vectors were last measured (None: never)."""
        model = self._parsed(self._stamp()).get("model")
        return model if isinstance(model, str) else None

    def set_baseline(self, model_id: str, baseline: float) -> None:
        """Record a measure: the model, the baseline (the mean cosine of two chunks picked at
        random), and when (a stamp no other measure has), so that readers read the values
        again."""
        self._db.set_meta(META_PREFIX + self._set, json.dumps({
            "model": model_id, "baseline": baseline, "measured_ns": time.time_ns(),
        }))

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

    def measured(self, scale: Callable[[float, float], float]) -> Mapping[str, float] | None:
        """`scale(value, baseline)` of every file measured on the content it has now; None
        where the set was never measured. Read again after a measure or a change of files
        (the manifest's generation), else kept: a search asks for a few hundred files."""
        stamp = self._stamp()
        baseline = self._parsed(stamp).get("baseline")
        if not isinstance(baseline, int | float):
            return None
        key = (stamp, self._db.get_meta("generation"))
        with self._lock:
            if self._kept is None or self._kept[0] != key:
                rows = self._db.connection().execute(
                    "SELECT c.path, c.value FROM file_cohesion c JOIN files f"
                    " ON f.path = c.path AND f.content_hash = c.content_hash"
                    " WHERE c.vector_set = ?",
                    (self._set,),
                )
                self._kept = (key, {path: scale(raw, baseline) for path, raw in rows})
            return self._kept[1]


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
