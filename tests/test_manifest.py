"""The manifest's storage: compressed code, the int8 vector journal, older float16 caches."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from sharc.manifest import ChunkRecord, FileRecord, Manifest
from sharc.manifest.schema import FOLDED_SYMBOL


def _record(index: int, code: str) -> ChunkRecord:
    return ChunkRecord(
        id=f"src/mod.py::f{index}",
        key=1000 + index,
        path="src/mod.py",
        language="python",
        tier=1,
        kind="function",
        symbol=f"f{index}",
        fqn=f"f{index}",
        start_line=index * 10 + 1,
        end_line=index * 10 + 9,
        header="# Context: module (src/mod.py)\n",
        code=code,
        vector_key=f"vk{index}",
    )


def _unit_vectors(count: int, dimension: int = 384) -> np.ndarray:
    matrix = np.random.default_rng(7).normal(size=(count, dimension)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_code_round_trips_compressed_or_not(tmp_path: Path) -> None:
    long_code = "def f():\n" + "    total = compute(total, 'ünïcode ✓')\n" * 40
    records = [_record(0, long_code), _record(1, "x=1"), _record(2, "")]
    manifest = Manifest(tmp_path / "manifest.sqlite", writable=True)
    manifest.put_chunks(records)
    manifest.commit()
    assert manifest.chunks_by_id([r.id for r in records]) == {r.id: r for r in records}
    assert manifest.chunk_ids_of("src/mod.py")[records[0].id] == records[0]
    assert {r.id: r for batch in manifest.iter_chunks() for r in batch} == {
        r.id: r for r in records
    }
    stored = sqlite3.connect(tmp_path / "manifest.sqlite").execute(
        "SELECT id, typeof(code), length(code) FROM chunks ORDER BY id"
    ).fetchall()
    kinds = {row[0]: (row[1], row[2]) for row in stored}
    # The long body is stored compressed, far below its length; tiny bodies stay text.
    assert kinds[records[0].id][0] == "blob"
    assert kinds[records[0].id][1] < len(long_code.encode()) / 5
    assert kinds[records[1].id][0] == "text"
    manifest.close()


def test_vector_journal_is_int8_and_accurate(tmp_path: Path) -> None:
    records = [_record(i, f"def f{i}(): pass") for i in range(20)]
    matrix = _unit_vectors(len(records))
    manifest = Manifest(tmp_path / "manifest.sqlite", writable=True)
    manifest.put_chunks(records)
    manifest.put_vectors([r.vector_key for r in records], matrix)
    manifest.commit()
    keys, cached = manifest.vectors_for(records)
    assert keys == [r.key for r in records]
    cosine = np.sum(cached * matrix, axis=1) / np.linalg.norm(cached, axis=1)
    assert cosine.min() > 0.999
    size = sqlite3.connect(tmp_path / "manifest.sqlite").execute(
        "SELECT max(length(vector)) FROM vectors"
    ).fetchone()[0]
    assert size == 384 + 4
    manifest.close()


def test_manifest_written_before_int8_keeps_float16(tmp_path: Path) -> None:
    path = tmp_path / "manifest.sqlite"
    manifest = Manifest(path, writable=True)
    manifest.put_chunks([_record(0, "pass")])
    manifest.commit()
    manifest.close()
    # An older manifest has no vector_format key and float16 blobs in its cache.
    older = sqlite3.connect(path)
    older.execute("DELETE FROM meta WHERE key = 'vector_format'")
    vector = _unit_vectors(1)[0]
    older.execute("INSERT INTO vectors VALUES ('vk0', ?)", (vector.astype(np.float16).tobytes(),))
    older.commit()
    older.close()
    manifest = Manifest(path, writable=True)
    keys, cached = manifest.vectors_for([_record(0, "pass")])
    assert keys == [1000]
    assert cached[0] == pytest.approx(vector, abs=1e-3)
    manifest.put_vectors(["vk1"], _unit_vectors(1))
    manifest.commit()
    assert sqlite3.connect(path).execute(
        "SELECT length(vector) FROM vectors WHERE vector_key = 'vk1'"
    ).fetchone()[0] == 384 * 2
    manifest.close()


def test_journal_clears_and_compaction_returns_the_space(tmp_path: Path) -> None:
    path = tmp_path / "manifest.sqlite"
    records = [_record(i, f"def f{i}(): pass") for i in range(2000)]
    manifest = Manifest(path, writable=True)
    assert manifest.journals_vectors
    manifest.put_chunks(records)
    manifest.put_vectors([r.vector_key for r in records], _unit_vectors(len(records)))
    manifest.commit()
    full = path.stat().st_size + (tmp_path / "manifest.sqlite-wal").stat().st_size
    assert manifest.clear_vectors() == 2000
    manifest.compact()
    manifest.close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert connection.execute("PRAGMA freelist_count").fetchone() == (0,)
    assert path.stat().st_size < full - 2000 * 388


def test_compaction_that_cannot_run_reports_and_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "manifest.sqlite"
    manifest = Manifest(path, writable=True)
    manifest.put_chunks([_record(0, "def kept(): pass")])
    manifest.commit()
    manifest._connection().execute("PRAGMA auto_vacuum=NONE")
    manifest._connection().execute("VACUUM")  # as a manifest from before incremental vacuum
    reader = sqlite3.connect(path)
    reader.execute("BEGIN EXCLUSIVE")  # another process holds the database: VACUUM cannot run
    try:
        manifest._connection().execute("PRAGMA busy_timeout=0")
        assert "locked" in (manifest.compact() or "")
    finally:
        reader.rollback()
        reader.close()
    assert [r.code for r in manifest.chunks_by_key([1000])] == ["def kept(): pass"]
    assert manifest.compact() is None
    assert manifest._connection().execute("PRAGMA auto_vacuum").fetchone() == (2,)
    manifest.close()


def test_places_and_defining_ids_are_read_without_the_code(tmp_path: Path) -> None:
    records = [_record(index, f"def f{index}(): pass") for index in range(1200)]
    manifest = Manifest(tmp_path / "manifest.sqlite", writable=True)
    manifest.put_chunks(records)
    manifest.commit()
    ids = [r.id for r in records]
    # More candidates than one statement takes, and names in another case are no definition.
    found = manifest.definitions_among(ids, ["f7", "f1100", "F8", "nope"])
    header = "# Context: module (src/mod.py)\n"
    assert sorted(found) == [
        (ids[1100], "python", "f1100", header, "def f1100(): pass"),
        (ids[7], "python", "f7", header, "def f7(): pass"),
    ]
    assert manifest.definitions_among(ids[:5], ["f7"]) == []
    assert manifest.definitions_among(ids, []) == []
    keys = np.array([r.key for r in records[::-1]], dtype=np.uint64)  # usearch's key type
    places = sorted(manifest.places_of(keys))
    assert [(p.key, p.vector_key) for p in places[:2]] == [(1000, "vk0"), (1001, "vk1")]
    assert len(places) == 1200 and places[5].start_line == 51
    assert sorted(manifest.embeddable_keys().tolist()) == [r.key for r in records]
    manifest.close()


def test_a_name_is_found_as_the_code_spells_it_in_any_case(tmp_path: Path) -> None:
    def named(index: int, symbol: str, suffix: str = "") -> ChunkRecord:
        return dataclasses.replace(
            _record(index, f"class {symbol}: pass"),
            id=f"src/mod.py::{symbol}{suffix}{index}", symbol=symbol,
        )

    manifest = Manifest(tmp_path / "manifest.sqlite", writable=True)
    manifest.put_chunks([
        named(0, "ShortByteString"), named(1, "ShortByteString"), named(2, "shortByteString"),
        named(3, "job"), named(4, "Job"), named(5, "Part", "#part"), named(6, "parse_git_dirty"),
    ])
    manifest.commit()
    # The spelling most definitions use; the name itself where one spells it so.
    assert manifest.defined_spelling("shortbytestring") == "ShortByteString"
    assert manifest.defined_spelling("shortByteString") == "shortByteString"
    assert manifest.defined_spelling("JOB") in {"job", "Job"}
    assert manifest.defined_spelling("job") == "job" and manifest.defined_spelling("Job") == "Job"
    # Another convention: underscores or none.
    assert manifest.defined_spelling("short_byte_string") == "ShortByteString"
    assert manifest.defined_spelling("parseGitDirty") == "parse_git_dirty"
    # A later part of a split definition is not one; a name nothing defines has no spelling.
    assert manifest.defined_spelling("part") is None
    assert manifest.defined_spelling("nothing") is None
    plan = sqlite3.connect(tmp_path / "manifest.sqlite").execute(
        f"EXPLAIN QUERY PLAN SELECT symbol FROM chunks WHERE {FOLDED_SYMBOL} = ?", ("x",)
    ).fetchall()
    assert "chunks_symbol_folded" in str(plan)  # looked up, not scanned
    manifest.close()
    # A manifest from before the index, read before its next update: names as spelled only.
    with sqlite3.connect(tmp_path / "manifest.sqlite") as connection:
        connection.execute("DROP INDEX chunks_symbol_folded")
    older = Manifest(tmp_path / "manifest.sqlite", writable=False)
    assert older.defined_spelling("ShortByteString") == "ShortByteString"
    assert older.defined_spelling("shortbytestring") is None
    older.close()


def test_files_are_found_by_their_name_or_the_end_of_their_path(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "manifest.sqlite", writable=True)
    paths = ["lib/request.js", "test/request.test.js", "docs/Request.md", "request.js",
             "a/b/lib/request.js", "src/50%_off.py", "src/50x_off.py"]
    manifest.put_chunks([
        dataclasses.replace(_record(i, "x = 1"), id=f"{path}::m{i}", path=path)
        for i, path in enumerate(paths)
    ])
    for path in paths:
        manifest.put_file(FileRecord(path, 1, 1, "h", "javascript", 1, None, 0))
    manifest.commit()
    assert manifest.files_named("request.js", 10) == [
        "request.js", "lib/request.js", "a/b/lib/request.js",
    ]
    assert manifest.files_named("lib/request.js", 10) == ["lib/request.js", "a/b/lib/request.js"]
    assert manifest.files_named("request", 10, stem=True) == [
        "request.js", "lib/request.js", "docs/Request.md", "a/b/lib/request.js",
    ]
    assert manifest.files_named("50%_off.py", 10) == ["src/50%_off.py"]  # no wildcards
    # Each file with its first chunks; a name more files share: the files alone.
    assert manifest.named_files("lib/request.js") == {
        "lib/request.js": ["lib/request.js::m0"], "a/b/lib/request.js": ["a/b/lib/request.js::m4"],
    }
    assert manifest.named_files("request.js", read_first=2) == {
        "request.js": [], "lib/request.js": [], "a/b/lib/request.js": [],
    }
    assert manifest.named_files("Server.listen") == {}  # no file type: no lookup
    # Directories, by path or by a name only one of them has.
    assert manifest.directory("a/b") == "a/b" and manifest.directory("a/b/lib") == "a/b/lib"
    assert manifest.directory("a/c") is None
    assert manifest.directory("docs") == "docs" and manifest.directory("B") == "a/b"
    assert manifest.directory("lib") is None  # lib/ and a/b/lib/
    assert manifest.directory("nowhere") is None
    manifest.close()


def test_a_search_reads_each_rank_record_once(tmp_path: Path) -> None:
    from sharc.search_records import SearchRecords

    records = [_record(index, f"def f{index}(): pass") for index in range(700)]
    manifest = Manifest(tmp_path / "manifest.sqlite", writable=True)
    manifest.put_chunks(records)
    manifest.commit()
    asked: list[list[str]] = []
    reading = manifest.rank_records_by_id
    manifest.rank_records_by_id = lambda ids: asked.append(list(ids)) or reading(ids)  # type: ignore[method-assign]
    search = SearchRecords(manifest)
    # A vector hit's record comes with its id (more keys than one statement takes).
    ids = search.ids_by_key([r.key for r in records[:600]] + [99])  # 99: no such chunk
    assert len(ids) == 600 and ids[1003] == "src/mod.py::f3"
    found = search.read([records[3].id, records[650].id, "src/gone.py::g", records[3].id])
    assert list(found) == [records[3].id, records[650].id]
    assert found[records[3].id] == reading([records[3].id])[records[3].id]
    assert found[records[650].id].start_line == 6501 and found[records[650].id].symbol == "f650"
    assert asked == [[records[650].id, "src/gone.py::g"]]  # only what no read had brought
    search.read([records[650].id, "src/gone.py::g"])  # a missing chunk is remembered too
    assert len(asked) == 1
    # Asked again, deeper (a crowded search), only the keys no lookup had brought are read.
    by_key: list[list[int]] = []
    keyed = manifest.rank_records_by_key
    manifest.rank_records_by_key = lambda keys: by_key.append(list(keys)) or keyed(keys)  # type: ignore[method-assign]
    deeper = search.ids_by_key([99, records[2].key, records[640].key, records[2].key])
    assert deeper == {records[2].key: records[2].id, records[640].key: records[640].id}
    assert by_key == [[records[640].key]]
    manifest.close()
