"""The index end to end, building and opening it: where it lives, which files it holds,
clear errors for a missing, corrupt or newer index, clearing it, a writer killed mid-update
leaving a usable index, each vector kept once as int8, and an index from before the journal
upgraded without the model; the real model, real usearch, real tantivy, on a small real
repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sharc
from index_helpers import _open, _top
from sharc.index import Index
from writer_kill import KILL_AFTER_A_BATCH, killed_after_first_line


def _rows(index_dir: Path, sql: str) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        return connection.execute(sql).fetchall()


def test_index_lives_outside_the_repository(small_repo: Path) -> None:
    index = sharc.Index.open(small_repo)
    assert small_repo.resolve() not in index.index_dir.resolve().parents
    assert Path(os.environ["SHARC_CACHE_DIR"]) in index.index_dir.parents


def test_builds_scripts_and_templates_are_searched(small_repo: Path, tmp_path: Path) -> None:
    # A Rails view, a gem's spec, an MSBuild project, a PowerShell build script, a C++ module,
    # a jq program, a Go module's manifest.
    files = {
        "web/views/busy.html.erb": "<h1><%= t('BusyWorkers') %></h1>\n<%= quiet_button %>\n",
        "tasks.gemspec": "Gem::Specification.new do |spec|\n  spec.name = 'taskqueue'\nend\n",
        "src/Tasks.csproj": "<Project>\n  <PropertyGroup><RootNamespace>Quokkaboard</RootNamespace>"
        "</PropertyGroup>\n</Project>\n",
        "Build.ps1": "param([string]$Configuration = 'Release')\nInvoke-Psake -taskList pack\n",
        "src/modules/tasks.cppm": "export module tasks;\nexport int drain_tasks() { return 0; }\n",
        "src/builtin.jq": "def drain_queue(f): [.[] | select(f)];\n",
        "go.mod": "module example.com/quokkaqueue\n\ngo 1.22\n",
    }
    for path, text in files.items():
        (small_repo / path).parent.mkdir(parents=True, exist_ok=True)
        (small_repo / path).write_text(text)
    index = _open(small_repo, tmp_path)
    report = index.update(embed=False)
    assert not {path for path, _ in report.skipped} & set(files)
    for word, path in [("quiet_button", "web/views/busy.html.erb"), ("taskqueue", "tasks.gemspec"),
                       ("Quokkaboard", "src/Tasks.csproj"), ("Psake", "Build.ps1"),
                       ("drain_tasks", "src/modules/tasks.cppm"),
                       ("drain_queue", "src/builtin.jq"), ("quokkaqueue", "go.mod")]:
        assert index.search(word)[0].path == path, word


def test_search_before_indexing_and_corrupt_files_give_clear_errors(
    small_repo: Path, tmp_path: Path
) -> None:
    with pytest.raises(sharc.NotIndexedError):
        _open(small_repo, tmp_path).search("anything")
    index = _open(small_repo, tmp_path)
    index.update()
    (tmp_path / "index" / "vectors.usearch").write_bytes(b"garbage" * 100)
    with pytest.raises(sharc.IndexCorruptError):
        _open(small_repo, tmp_path).search("hash a password", mode="semantic")
    # An update repairs the derived stores from the manifest.
    index.update()
    assert _top(_open(small_repo, tmp_path), "hash a password with a salt") == "hash_password"
    (tmp_path / "index" / "manifest.sqlite").write_bytes(b"not a database" * 1000)
    with pytest.raises(sharc.IndexCorruptError):
        _open(small_repo, tmp_path).search("hash")


def test_newer_format_is_refused(small_repo: Path, tmp_path: Path) -> None:
    import sqlite3

    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    with sqlite3.connect(tmp_path / "index" / "manifest.sqlite") as connection:
        connection.execute("UPDATE meta SET value = '99' WHERE key = 'format_version'")
    with pytest.raises(sharc.IndexVersionError):
        _open(small_repo, tmp_path).search("hash")


def test_clear_removes_the_index(built: Index) -> None:
    built.clear()
    assert not built.exists
    with pytest.raises(sharc.NotIndexedError):
        built.search("x")


KILLER = """
import sys, sharc
index = sharc.Index.open(sys.argv[1], index_dir=sys.argv[2])
def progress(p):
    if p.phase == sys.argv[3]:
        print("ready", flush=True)
        import time; time.sleep(60)
index.update(progress=progress)
"""


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["chunking", "keyword", "embedding"])
def test_kill_9_during_indexing_leaves_a_usable_index(
    small_repo: Path, tmp_path: Path, phase: str
) -> None:
    index = _open(small_repo, tmp_path)
    index.update()
    # Change the tree, then kill a writer in the middle of indexing the change.
    (small_repo / "taskboard" / "auth.py").unlink()
    (small_repo / "taskboard" / "labels.py").write_text(
        "def colour_for_label(label):\n    palette = ['red', 'green']\n    return palette[len(label) % 2]\n"
    )
    assert killed_after_first_line(KILLER, small_repo, tmp_path / "index", phase) == "ready"

    reader = _open(small_repo, tmp_path)
    # Old or new state: the index opens and answers, and every hit is a file it knows.
    known = {r.path for r in reader.search("password", limit=20)}
    assert known and all((small_repo / p).exists() or p == "taskboard/auth.py" for p in known)
    report = _open(small_repo, tmp_path).update()
    assert report.errors == []
    repaired = _open(small_repo, tmp_path)
    assert all(r.path != "taskboard/auth.py" for r in repaired.search("hash_password", limit=10))
    assert _top(repaired, "colour_for_label") == "colour_for_label"
    stats = repaired.stats()
    assert stats.chunks - stats.keyword_only_chunks == stats.embedded_chunks
    # The file keyword index holds one document per file, of its content now.
    from sharc.file_keywords import file_doc_id
    from sharc.stores import FILE_KEYWORD, open_keyword

    manifest = repaired._reader_manifest()
    files = open_keyword(tmp_path / "index", writable=False, name=FILE_KEYWORD)
    assert files.all_ids() == {
        file_doc_id(path, record.content_hash)
        for path, record in manifest.files().items()
        if manifest.chunk_ids_of(path)
    }
    files.close()


@pytest.mark.slow
def test_vectors_embedded_before_a_kill_are_not_embedded_again(
    small_repo: Path, tmp_path: Path
) -> None:
    # Killed after the first batch was journaled, long before usearch was saved.
    first_line = killed_after_first_line(KILL_AFTER_A_BATCH, small_repo, tmp_path / "index")
    done, total = map(int, first_line.split())
    assert 0 < done < total
    assert not (tmp_path / "index" / "vectors.usearch").exists()

    report = _open(small_repo, tmp_path).update()
    assert report.chunks_embedded == total - done
    stats = _open(small_repo, tmp_path).stats()
    assert stats.chunks - stats.keyword_only_chunks == stats.embedded_chunks == total
    assert _rows(tmp_path / "index", "SELECT count(*) FROM vectors") == [(0,)]


def test_each_vector_is_kept_once_as_int8(built: Index, tmp_path: Path) -> None:
    from sharc.vectors import VectorStore

    index_dir = tmp_path / "index"
    assert _rows(index_dir, "SELECT count(*) FROM vectors") == [(0,)]  # the journal is empty
    assert _rows(index_dir, "PRAGMA freelist_count") == [(0,)]
    assert VectorStore.load(index_dir / "vectors.usearch").dtype == "i8"
    stats = built.stats()
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks > 20


def _embedding_counter(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the chunks the index's model embeds (not the fast model, for the fast set)."""
    from sharc import vector_sync
    from sharc.static_embedding import StaticEmbedder

    embedded: list[int] = []
    real = vector_sync._embed_records

    def counting(embedder: object, records: list, mode: str, root: Path):  # type: ignore[no-untyped-def]
        if not isinstance(embedder, StaticEmbedder):
            embedded.append(len(records))
        return real(embedder, records, mode, root)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_sync, "_embed_records", counting)
    return embedded


def _rewrite_as_before_the_journal(index_dir: Path, *, uncached: str) -> None:
    """What an index written before the journal looked like: chunk keys from the id alone,
    every vector cached in the manifest (but `uncached`'s, as after a cancelled update),
    float16 in usearch."""
    import sqlite3

    import numpy as np
    from sharc.manifest import _pack_int8
    from sharc.vectors import VectorStore, key_of

    store = VectorStore.load(index_dir / "vectors.usearch")
    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        rows = connection.execute(
            "SELECT id, key, vector_key FROM chunks WHERE keyword_only IS NULL"
        ).fetchall()
        keys, matrix = store.vectors([key for _, key, _ in rows])
        vector_of = dict(zip(keys.tolist(), matrix))
        older = VectorStore(store.dimension, dtype="f16")
        older.upsert([key_of(id_) for id_, _, _ in rows], np.vstack([vector_of[k] for _, k, _ in rows]))
        connection.executemany(
            "UPDATE chunks SET key = ? WHERE id = ?", [(key_of(id_), id_) for id_, _, _ in rows]
        )
        connection.executemany(
            "INSERT INTO vectors (vector_key, vector) VALUES (?, ?)",
            [(vk, _pack_int8(vector_of[key])) for id_, key, vk in rows if id_ != uncached],
        )
        connection.execute("DELETE FROM meta WHERE key = 'vector_layout'")
        # Nor had it the fast set.
        connection.execute("DELETE FROM fast_vectors")
        connection.execute(
            "DELETE FROM meta WHERE key IN ('fast_vector_state', 'fast_vectors_complete',"
            " 'fast_model_id', 'searched_vectors')"
        )
    for name in ("vectors-fast.usearch", "vectors-fast-delta.usearch"):
        (index_dir / name).unlink(missing_ok=True)
        (index_dir / f"{name}.blake2b").unlink(missing_ok=True)
    older.save(index_dir / "vectors.usearch")


def test_an_index_from_before_the_journal_is_upgraded_without_the_model(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.vectors import VectorStore

    index_dir = tmp_path / "index"
    _open(small_repo, tmp_path).update()
    uncached = _rows(index_dir, "SELECT id FROM chunks WHERE symbol = 'hash_password'")[0][0]
    _rewrite_as_before_the_journal(index_dir, uncached=uncached)
    embedded = _embedding_counter(monkeypatch)

    index = _open(small_repo, tmp_path)
    report = index.update()
    # Only the chunk the cache lacked (its usearch vector could be stale) meets the model.
    assert report.chunks_embedded == 1 and sum(embedded) == 1
    assert _rows(index_dir, "SELECT count(*) FROM vectors") == [(0,)]
    assert _rows(index_dir, "PRAGMA auto_vacuum") == [(2,)]
    assert VectorStore.load(index_dir / "vectors.usearch").dtype == "i8"
    assert _top(index, "hash a password with a salt") == "hash_password"

    # A changed file re-keys its chunks: unchanged text takes its vector from the old key.
    auth = small_repo / "taskboard" / "auth.py"
    auth.write_text(auth.read_text() + '\n\ndef forget_user(name: str) -> None:\n    """Drop a user."""\n')
    embedded.clear()
    assert index.update().chunks_embedded == 1 and sum(embedded) == 1
    stats = index.stats()
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks
    assert _top(index, "hash a password with a salt") == "hash_password"
