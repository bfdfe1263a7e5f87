"""The `files` table: every indexed file's size, mtime, content hash and verdicts."""

from __future__ import annotations

from collections.abc import Collection

from sharc.manifest.records import (
    _DELETE_REFS_OF_PATH,
    _FILE_COLUMNS,
    FileRecord,
    RemovedChunk,
)
from sharc.manifest.schema import Database

#: Longest path or name looked up (`PATH_MAX` on Linux): no file has a longer one, and SQLite
#: refuses a LIKE pattern of 50,000 bytes.
LONGEST_PATH = 4096


class FileTable:
    """The manifest's files (`sharc.manifest.Manifest` forwards to it)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def file_stats(self, under: Collection[str] | None = None) -> dict[str, tuple[int, int]]:
        """`{path: (size, mtime_ns)}` of every indexed file, or of those at or below the
        relative paths `under` (files or directories; `""` is the root): what a sync compares
        first."""
        return {path: (size, mtime) for path, size, mtime in self.file_stat_rows(under)}

    def file_stat_rows(self, under: Collection[str] | None = None) -> list[tuple[str, int, int]]:
        """`file_stats` as `(path, size, mtime_ns)` rows, each path once: the form the walk
        compares in Rust (`sharc.files.walk(known=...)`), read without building a dict."""
        if under is None or "" in under:
            return self._db.connection().execute("SELECT path, size, mtime_ns FROM files").fetchall()
        stats: dict[str, tuple[int, int]] = {}
        connection = self._db.connection()
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
        row = self._db.connection().execute(
            f"SELECT {_FILE_COLUMNS} FROM files WHERE path = ?", (path,)
        ).fetchone()
        return None if row is None else FileRecord(*row)

    def files_named(self, name: str, limit: int, *, stem: bool = False) -> list[str]:
        """At most `limit` indexed paths that are `name` or end with `/name` (a file's name,
        or the end of its path), in any ASCII case; with `stem`, those whose name is `name`
        and an extension (`request` -> lib/request.js, docs/request.md). Those spelled as
        typed first, then the shorter paths. One pass over the files' keys: a query names a
        file rarely."""
        if len(name) > LONGEST_PATH:
            return []
        tail = _like_literal(name) + (".%" if stem else "")
        rows = self._db.connection().execute(
            "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\'"
            " ORDER BY path = ? OR path GLOB ? OR path GLOB ? DESC, length(path), path",
            (tail, "%/" + tail, name, "*/" + _glob_literal(name), _glob_literal(name) + ".*"),
        )
        paths = [path for (path,) in rows]
        if stem:  # `request` names request.js, not request.test.js
            paths = [p for p in paths if p.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
                     == name.lower()]
        return paths[:limit]

    def directory(self, place: str) -> str | None:
        """The indexed directory a question names (`sharc.scoped_search`): `place` itself
        where it is a path (`lib/queue`) some indexed file lies under; for a bare name
        (`lexer`), the one directory of that name (any case) among the files' paths, None
        where there are several (`internal` in three places) or none."""
        if len(place) > LONGEST_PATH:
            return None
        connection = self._db.connection()
        if "/" in place:
            row = connection.execute(
                "SELECT 1 FROM files WHERE path >= ? AND path < ? LIMIT 1",
                (place + "/", place + "0"),  # `0` follows `/`
            ).fetchone()
            return place if row is not None else None
        literal = _like_literal(place)
        rows = connection.execute(
            "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\'",
            (literal + "/%", "%/" + literal + "/%"),
        )
        found: set[str] = set()
        wanted = place.lower()
        for (path,) in rows:
            parts = path.split("/")[:-1]
            depth = next(i for i, part in enumerate(parts) if part.lower() == wanted)
            found.add("/".join(parts[: depth + 1]))
            if len(found) > 1:
                return None
        return found.pop() if found else None

    def files(self) -> dict[str, FileRecord]:
        rows = self._db.connection().execute(f"SELECT {_FILE_COLUMNS} FROM files")
        return {row[0]: FileRecord(*row) for row in rows}

    def put_file(self, record: FileRecord, *, keyword_only: str | None = None) -> None:
        """Store a file; `keyword_only`: why (some of) its chunks have no vector."""
        self._db.connection().execute(
            f"INSERT OR REPLACE INTO files ({_FILE_COLUMNS}, keyword_only)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.path, record.size, record.mtime_ns, record.content_hash, record.language,
             record.tier, record.error, record.syntax_errors, keyword_only),
        )

    def forget_files(self) -> None:
        """Make every file look new to the next sync (its chunks stay until replaced)."""
        self._db.connection().execute("DELETE FROM files")

    def expire_file_stats(self) -> None:
        """Make every file look changed to the next sync: it is read and chunked again (and
        stays as it is if its content and its verdict are the same)."""
        self._db.connection().execute("UPDATE files SET mtime_ns = -1")

    def keyword_only_reason(self, path: str) -> str | None:
        """Why the policy keeps (some) chunks of `path` from the model; None: it does not."""
        row = self._db.connection().execute(
            "SELECT keyword_only FROM files WHERE path = ?", (path,)
        ).fetchone()
        return None if row is None else row[0]

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self._db.connection().execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path)
        )

    def delete_file(self, path: str) -> list[RemovedChunk]:
        """Forget a file and its chunks; return the chunks removed."""
        connection = self._db.connection()
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


def _like_literal(text: str) -> str:
    """`text` as a LIKE pattern (with `ESCAPE '\\'`) that matches only itself, in any ASCII
    case."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _glob_literal(text: str) -> str:
    """`text` as a GLOB pattern that matches only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
