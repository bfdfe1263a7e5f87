"""The rank records one search reads, each read from the manifest once.

A search reads the light record of a candidate (`RankRecord`: path, kind, symbol, lines) at
several stages: the vector hits are turned into chunk ids, the candidates are ranked in blocks,
a crowded search reads its deeper hits to leave tests out and then ranks those it kept, and
the stages that look names up read the definitions they find. Each is a B-tree lookup in
SQLite; on the repository benchmark a third of them read a record the same search had read
already. `SearchRecords` keeps what one search read, and reads a vector hit's record by its key
at once, so that the id it needs and the record the ranking reads next come in one lookup.
It lives as long as the search: a record is never older than the search that holds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sharc.manifest import Manifest, RankRecord


class SearchRecords:
    """The rank records of one search over `manifest`, read once each."""

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest
        self._by_id: dict[str, RankRecord | None] = {}  # None: no such chunk
        self._id_of_key: dict[int, str | None] = {}  # None: no chunk has the key

    def read(self, ids: Sequence[str]) -> dict[str, RankRecord]:
        """The record of each of `ids` that names a chunk (the ranking's `RecordReader`)."""
        missing = [chunk_id for chunk_id in dict.fromkeys(ids) if chunk_id not in self._by_id]
        if missing:
            found = self._manifest.rank_records_by_id(missing)
            self._by_id.update((chunk_id, found.get(chunk_id)) for chunk_id in missing)
        return {chunk_id: record for chunk_id in ids if (record := self._by_id[chunk_id])}

    def ids_by_key(self, keys: Iterable[int]) -> dict[int, str]:
        """The chunk id of each vector key that has a chunk, its record kept for `read` (a
        crowded search asks its arms again, deeper: their first hits are read once)."""
        keys = list(keys)
        missing = [key for key in dict.fromkeys(keys) if key not in self._id_of_key]
        if missing:
            found = self._manifest.rank_records_by_key(missing)
            self._by_id.update((record.id, record) for record in found.values())
            self._id_of_key.update(
                (key, record.id if (record := found.get(key)) else None) for key in missing
            )
        return {key: chunk_id for key in keys if (chunk_id := self._id_of_key[key])}
