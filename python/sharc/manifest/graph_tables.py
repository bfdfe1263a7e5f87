"""The code graph's tables: `refs` (each reference, keyed by the chunk that makes it) and the
chunks read as definitions, with the stamps that say whether they are current."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from sharc.manifest.records import (
    _SELECT_REFS,
    DefinitionRow,
    ReferenceRow,
    _batches,
    _inflated,
)
from sharc.manifest.schema import (
    CHUNKER_VERSION,
    FOLDED_INDEX,
    FOLDED_SYMBOL,
    REFERENCES_VERSION,
    Database,
    folded_name,
)

if TYPE_CHECKING:
    pass


#: Of a class's base classes, how many are read for a member it inherits, and how many levels
#: up (`GraphTables.inherited_spelling`): a name asked that no definition's qualified name
#: ends with reads at most 1 + 2 x `INHERITED_BASES` classes' bases.
INHERITED_BASES = 5
INHERITED_LEVELS = 3


class GraphTables:
    """The manifest's code graph (`sharc.manifest.Manifest` forwards to it)."""

    def __init__(self, database: Database) -> None:
        self._db = database
        self._has_folded_index: bool | None = None

    def _folded_index(self) -> bool:
        """Whether the manifest has the `chunks_symbol_folded` index (asked once)."""
        if self._has_folded_index is None:
            self._has_folded_index = self._db.connection().execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                (FOLDED_INDEX,),
            ).fetchone() is not None
        return self._has_folded_index

    def has_references(self) -> bool:
        """Whether the `refs` table holds every file's references (perhaps read by an older
        extractor: the next update reads them again). A manifest whose table predates chunk
        keys has none until a writer opens it and the next update fills the new table."""
        try:
            if self._db.get_meta("references") is None:
                return False
            columns = {row[1] for row in self._db.connection().execute("PRAGMA table_info(refs)")}
        except sqlite3.DatabaseError:
            return False
        return "chunk_key" in columns

    def references_current(self) -> bool:
        """Whether every file's references were read by this extractor (`REFERENCES_VERSION`)."""
        return self._db.get_meta("references") == REFERENCES_VERSION

    def mark_references_complete(self) -> None:
        self._db.set_meta("references", REFERENCES_VERSION)

    def chunks_current(self) -> bool:
        """Whether every file's chunks were made by this chunker (`CHUNKER_VERSION`)."""
        return self._db.get_meta("chunker") == CHUNKER_VERSION

    def mark_chunks_current(self) -> None:
        self._db.set_meta("chunker", CHUNKER_VERSION)

    def put_references(self, path: str, rows: Iterable[ReferenceRow]) -> None:
        """Replace the references of `path` with `rows`, after its chunks are stored: a row
        names its chunk by id, and one whose chunk is not stored is left out."""
        connection = self._db.connection()
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
                rows = self._db.connection().execute(
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
            rows = self._db.connection().execute(
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
        connection = self._db.connection()
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
            rows = self._db.connection().execute(
                "SELECT id, path, kind, symbol, fqn, start_line, end_line, language FROM chunks"
                f" WHERE symbol IN ({', '.join('?' * len(batch))}) AND id NOT LIKE '%#part%'",
                batch,
            )
            found.extend(DefinitionRow(*row) for row in rows)
        found.sort(key=lambda row: (row.path, row.start_line, row.chunk_id))
        return found

    def defined_spelling(self, name: str) -> str | None:
        """The spelling the code defines `name` with, matched in any (ASCII) case and with or
        without underscores: `name` itself where a definition spells it so, else one that
        differs only in case, else the spelling most definitions use (`ShortByteString` for
        `shortbytestring` or `short_byte_string`); None where nothing defines it. A manifest
        written before the folded index (read-only until its next update) matches the name
        as spelled: a scan of every chunk per query would cost more than it finds."""
        connection = self._db.connection()
        if not self._folded_index():
            row = connection.execute(
                "SELECT 1 FROM chunks WHERE symbol = ? AND id NOT LIKE '%#part%' LIMIT 1",
                (name,),
            ).fetchone()
            return name if row else None
        row = connection.execute(
            f"SELECT symbol FROM chunks WHERE {FOLDED_SYMBOL} = ?"
            " AND id NOT LIKE '%#part%' GROUP BY symbol"
            " ORDER BY symbol = ? DESC, lower(symbol) = ? DESC, count(*) DESC, symbol LIMIT 1",
            (folded_name(name), name, name.lower()),
        ).fetchone()
        return row[0] if row else None

    def qualified_spelling(self, segments: Sequence[str]) -> list[str] | None:
        """The segments of a qualified name (`factorybot`, `factory`, `run`) as the code
        spells a definition whose qualified name ends with them (`FactoryBot`, `Factory`,
        `run`, not `FactoryBot::FactoryRunner#run`): a segment typed in lower case
        matches in any case and with or without underscores, one typed with a capital as
        typed; of several, the one that keeps the most segments as typed, then the
        shortest. None where no definition's qualified name ends so, or the manifest has no
        folded index (`defined_spelling`)."""
        if len(segments) < 2 or not self._folded_index():
            return None
        wanted = [folded_name(segment) for segment in segments]
        best: tuple[int, int, list[str]] | None = None
        for (fqn,) in self._db.connection().execute(
            f"SELECT DISTINCT fqn FROM chunks WHERE {FOLDED_SYMBOL} = ?"
            " LIMIT 500",
            (wanted[-1],),
        ):
            tail = [part for part in re.split(r"::|->|[.#:\\]", fqn) if part][-len(segments):]
            if len(tail) < len(segments) or [folded_name(part) for part in tail] != wanted:
                continue
            if any(typed[:1].isupper() and typed != part for typed, part in zip(segments, tail)):
                continue
            kept = sum(typed == part for typed, part in zip(segments, tail))
            rank = (-kept, len(fqn), tail)
            if best is None or rank < best:
                best = rank
        return best[2] if best is not None else None

    def inherited_spelling(self, segments: Sequence[str]) -> list[str] | None:
        """A member asked for through a class that inherits it (`SparseMatrix.InnerIterator`,
        where `SparseMatrix` only names its base's iterator): the same name with the class
        replaced by the nearest base class that defines the member, spelled as that
        definition is (`SparseCompressedBase.InnerIterator`). The class's bases are its
        `references` of kind `inherit`, in the order it names them, at most `INHERITED_BASES`
        of a level; their bases are tried next, up to `INHERITED_LEVELS` levels up (`Matrix`
        -> `PlainObjectBase` -> `DenseBase`). None where no base, as typed, does."""
        if len(segments) < 2:
            return None
        *outer, owner, member = segments
        seen = {owner}
        classes = [owner]
        for _ in range(INHERITED_LEVELS):
            bases = [b for b in self._bases_of(classes) if b not in seen][:INHERITED_BASES]
            for base in bases:
                spelled = self.qualified_spelling([*outer, base, member])
                if spelled is not None:
                    return spelled
            if not bases:
                return None
            seen.update(bases)
            classes = bases
        return None

    def _bases_of(self, classes: Sequence[str]) -> list[str]:
        """The names `classes` inherit from, in the order they are named."""
        bases: dict[str, None] = {}
        for name in classes:
            chunks = [row.chunk_id for row in self.definitions_named([name])]
            named = dict.fromkeys(
                row.name for row in self.references_of_chunks(chunks, parts=True)
                if row.kind == "inherit" and row.name != name
            )
            bases.update(named)
        return list(bases)

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
            rows = self._db.connection().execute(
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

    def definition_lines(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        """How many lines each definition of `chunk_ids` spans whole: a class or module the
        chunker cut into parts (`Popen::class`, `Popen::class#part2`, ...) from the first
        line of its first part to the last of its last, whichever part the id names."""
        spans: dict[str, int] = {}
        connection = self._db.connection()
        for chunk_id in dict.fromkeys(chunk_ids):
            whole = chunk_id.split("#part", 1)[0]
            start, end = connection.execute(
                "SELECT min(start_line), max(end_line) FROM chunks WHERE id = ?"
                " OR (id >= ? AND id < ?)",
                (whole, f"{whole}#part", f"{whole}#paru"),
            ).fetchone()
            if start is not None:
                spans[chunk_id] = end - start + 1
        return spans

    def module_preambles(self, paths: Iterable[str]) -> dict[str, str]:
        """The first run of top-level code of each file of `paths` that has one (its
        `<module>` chunk: imports, and what the module does when imported, above its first
        definition), in one read."""
        found: dict[str, str] = {}
        ids = [f"{path}::<module>" for path in dict.fromkeys(paths)]
        for batch in _batches(ids):
            rows = self._db.connection().execute(
                f"SELECT path, code FROM chunks WHERE id IN ({', '.join('?' * len(batch))})",
                batch,
            )
            found.update((path, _inflated(code)) for path, code in rows)
        return found

    def definitions_by_id(self, chunk_ids: Sequence[str]) -> list[DefinitionRow]:
        found: list[DefinitionRow] = []
        for batch in _batches(list(dict.fromkeys(chunk_ids))):
            rows = self._db.connection().execute(
                "SELECT id, path, kind, symbol, fqn, start_line, end_line, language FROM chunks"
                f" WHERE id IN ({', '.join('?' * len(batch))})",
                batch,
            )
            found.extend(DefinitionRow(*row) for row in rows)
        return found
