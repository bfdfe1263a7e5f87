"""The index end to end: the real model, real usearch, real tantivy, on a small real repository."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import sharc
from sharc.index import Index


def _open(repo: Path, tmp_path: Path, **settings: object) -> Index:
    return sharc.Index.open(repo, index_dir=tmp_path / "index", **settings)  # type: ignore[arg-type]


def _top(index: Index, query: str, **options: object) -> str:
    results = index.search(query, limit=5, **options)  # type: ignore[arg-type]
    assert results, f"no results for {query!r}"
    return results[0].symbol


@pytest.fixture
def built(small_repo: Path, tmp_path: Path) -> Index:
    index = _open(small_repo, tmp_path)
    index.update()
    return index


def test_natural_language_and_identifier_queries_find_the_definition(built: Index) -> None:
    assert _top(built, "hash a password with a salt") == "hash_password"
    assert _top(built, "retry an action with exponential backoff") == "retry_with_backoff"
    assert _top(built, "TaskStore") == "TaskStore"
    assert _top(built, "verify_password") == "verify_password"
    assert _top(built, "NewQueue") == "NewQueue"
    response = built.search("delete a task from the database", limit=3)
    assert response.arms == ("keyword", "semantic")
    assert response.complete
    first = response[0]
    assert first.symbol == "delete_task" and first.kind == "method"
    assert first.location == f"taskboard/storage.py:{first.start_line}-{first.end_line}"
    assert 0 < first.score <= 1
    assert "def delete_task" in first.code and "Context:" in first.header


def test_a_question_about_one_names_definition_ranks_as_the_name(built: Index) -> None:
    bare = built.search("TaskStore", limit=5)
    asked = built.search("where is the TaskStore class defined?", limit=5)
    assert [r.id for r in asked] == [r.id for r in bare] and asked[0].symbol == "TaskStore"
    assert asked.query_kind == bare.query_kind == "identifier"
    assert _top(built, "the Task class") == "Task"
    assert _top(built, "how does `due_within` work") == "due_within"
    # A question that asks for something else is searched as asked.
    assert built.search("where is TaskStore used", limit=5).query_kind == "mixed"


def test_a_name_typed_in_lower_case_finds_its_definition(built: Index) -> None:
    # The arms read names without case; the definition is looked up as the code spells it.
    for query in ("taskstore", "where is taskstore defined", "the newqueue function"):
        assert _top(built, query) == _top(built, query.replace("taskstore", "TaskStore")
                                           .replace("newqueue", "NewQueue")), query
    assert _top(built, "taskstore") == "TaskStore"
    assert built.search("where is taskstore defined", limit=5).query_kind == "identifier"
    # A name typed with a capital means that case: nothing defines `Taskstore` as typed.
    assert built.search("where is Taskstore defined", limit=5).query_kind != "identifier"
    # A qualified name: the definition whose qualified name ends with it, in the code's case.
    manifest = built._reader_manifest()
    assert manifest.defined_spelling("taskstore.loadtasks") == "TaskStore.load_tasks"
    assert manifest.defined_spelling("Taskstore.load_tasks") is None  # a capital: as typed
    assert _top(built, "taskstore::loadtasks") == "load_tasks"
    # A word nothing defines in any case stays a question.
    assert built.search("how does caching work", limit=5).query_kind != "identifier"


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("storage.py", "taskboard/storage.py"),
        ("taskboard/storage.py", "taskboard/storage.py"),
        ("where is `queue.go`", "notifier/queue.go"),
        ("the queue file", "notifier/queue.go"),
        ("open tsconfig.json", "web/tsconfig.json"),
        ("TaskList.ts", "web/src/components/TaskList.ts"),
    ],
)
def test_a_file_asked_for_by_name_comes_first(built: Index, query: str, path: str) -> None:
    results = built.search(query, limit=5)
    assert results[0].path == path, [r.path for r in results]
    assert len(results) == 5  # the rest of the list as the name ranks it


def test_a_named_file_outside_the_filters_is_not_shown(built: Index) -> None:
    results = built.search("queue.go", languages=["python"], limit=5)
    assert results and all(r.language == "python" for r in results)


def test_a_question_that_names_a_directory_searches_it_first(built: Index) -> None:
    scoped = built.search("send a notification in notifier/", limit=6)
    inside = [r for r in scoped if r.path.startswith("notifier/")]
    assert scoped[: len(inside)] == inside and len(inside) >= 2  # the directory first ...
    assert len(scoped) == 6  # ... then the rest of the repository
    assert all(r.score <= inside[-1].score for r in scoped[len(inside):])
    # Searched as the question without its place, as `path_prefix` would.
    alone = built.search("send a notification", path_prefix="notifier/", limit=6)
    assert [r.id for r in alone] == [r.id for r in inside]
    # An explicit `path_prefix` wins; a path no file lies under is a question's words.
    assert all(r.path.startswith("taskboard/") for r in built.search(
        "send a notification in notifier/", path_prefix="taskboard/", limit=3))
    assert built.search("send a notification in nowhere/at/all", limit=3)
    # A directory named by its name.
    named = built.search("send a notification in the notifier package", limit=6)
    assert [r.id for r in named] == [r.id for r in scoped]


@pytest.mark.parametrize(
    ("query", "fqn"),
    [
        ("the delete_task method of TaskStore", "TaskStore.delete_task"),
        ("TaskStore's save_task method", "TaskStore.save_task"),
        ("how does Queue Push work", "main.Queue.Push"),
    ],
)
def test_a_member_named_in_words_finds_its_definition(built: Index, query: str, fqn: str) -> None:
    response = built.search(query, limit=3)
    assert response[0].fqn == fqn and response.query_kind == "identifier"


def test_filters_and_modes(built: Index) -> None:
    go_only = built.search("push a message on the queue", languages=["go"], limit=5)
    assert go_only and all(r.language == "go" for r in go_only)
    under = built.search("task", path_prefix="taskboard/", limit=10)
    assert under and all(r.path.startswith("taskboard/") for r in under)
    by_ext = built.search("task", extensions=[".ts"], limit=10)
    assert all(r.path.endswith(".ts") for r in by_ext)
    keyword = built.search("verify_password", mode="keyword")
    assert keyword.arms == ("keyword",) and keyword[0].symbol == "verify_password"
    semantic = built.search("check a password against its stored hash", mode="semantic")
    assert semantic.arms == ("semantic",)
    assert built.search("   ").results == []
    for hostile in ['"', "AND OR (", "::", "a:b", "ü" * 50, "x" * 5000]:
        built.search(hostile)


def test_results_are_spread_across_files(built: Index) -> None:
    results = built.search("task", limit=6)
    paths = [r.path for r in results]
    assert max(paths.count(p) for p in set(paths)) <= 2


def test_edits_additions_deletions_and_renames_follow(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    first = index.update()
    assert first.files_added > 10 and first.chunks_embedded > 20

    noop = index.update()
    assert (noop.files_added, noop.files_changed, noop.files_deleted) == (0, 0, 0)
    assert noop.chunks_embedded == 0

    auth = small_repo / "taskboard" / "auth.py"
    auth.write_text(auth.read_text() + textwrap.dedent('''

        def revoke_session_token(token: str, revoked: set[str]) -> None:
            """Invalidate a session token so it can no longer be used to log in."""
            revoked.add(token)
            return None
        '''))
    (small_repo / "taskboard" / "labels.py").write_text(textwrap.dedent('''
        def colour_for_label(label: str) -> str:
            """Pick a stable display colour for a task label."""
            palette = ["red", "green", "blue", "orange"]
            return palette[sum(map(ord, label)) % len(palette)]
        '''))
    (small_repo / "taskboard" / "scheduler.py").unlink()
    (small_repo / "notifier" / "queue.go").rename(small_repo / "notifier" / "message_queue.go")

    changed = index.update()
    assert changed.files_changed == 1 and changed.files_deleted == 2 and changed.files_added == 2
    # Only the new symbol and the renamed file's chunks are embedded again, not the whole repo.
    assert 0 < changed.chunks_embedded < first.chunks_embedded / 2

    assert _top(index, "revoke a session token") == "revoke_session_token"
    assert _top(index, "colour_for_label") == "colour_for_label"
    assert all(r.path != "taskboard/scheduler.py" for r in index.search("retry_with_backoff", limit=10))
    assert index.search("NewQueue")[0].path == "notifier/message_queue.go"
    stats = index.stats()
    assert stats.files == first.files_added
    assert stats.chunks - stats.keyword_only_chunks == stats.embedded_chunks


def test_ids_are_stable_and_overwrite(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    index.update()
    before = index.stats().chunks
    storage = small_repo / "taskboard" / "storage.py"
    storage.write_text(storage.read_text().replace("def delete_task", "def delete_task_by_id"))
    index.update()
    assert index.stats().chunks == before
    assert index.search("delete_task_by_id")[0].symbol == "delete_task_by_id"


def test_keyword_only_index_answers_and_later_gains_vectors(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    response = index.search("hash_password")
    assert response.arms == ("keyword",) and response[0].symbol == "hash_password"
    index.update()
    assert index.search("hash_password").arms == ("keyword", "semantic")


def test_builds_scripts_and_templates_are_searched(small_repo: Path, tmp_path: Path) -> None:
    # A Rails view, a gem's spec, an MSBuild project, a PowerShell build script, a C++ module.
    files = {
        "web/views/busy.html.erb": "<h1><%= t('BusyWorkers') %></h1>\n<%= quiet_button %>\n",
        "tasks.gemspec": "Gem::Specification.new do |spec|\n  spec.name = 'taskqueue'\nend\n",
        "src/Tasks.csproj": "<Project>\n  <PropertyGroup><RootNamespace>Quokkaboard</RootNamespace>"
        "</PropertyGroup>\n</Project>\n",
        "Build.ps1": "param([string]$Configuration = 'Release')\nInvoke-Psake -taskList pack\n",
        "src/modules/tasks.cppm": "export module tasks;\nexport int drain_tasks() { return 0; }\n",
    }
    for path, text in files.items():
        (small_repo / path).parent.mkdir(parents=True, exist_ok=True)
        (small_repo / path).write_text(text)
    index = _open(small_repo, tmp_path)
    report = index.update(embed=False)
    assert not {path for path, _ in report.skipped} & set(files)
    for word, path in [("quiet_button", "web/views/busy.html.erb"), ("taskqueue", "tasks.gemspec"),
                       ("Quokkaboard", "src/Tasks.csproj"), ("Psake", "Build.ps1"),
                       ("drain_tasks", "src/modules/tasks.cppm")]:
        assert index.search(word)[0].path == path, word


def test_cancel_keeps_the_previous_state(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(sharc.CancelledError):
        index.update(cancel=cancel)
    index.update(embed=False)
    (small_repo / "taskboard" / "auth.py").unlink()

    def cancel_during_chunking(progress: sharc.Progress) -> None:
        if progress.phase == "walking":
            cancel.set()

    with pytest.raises(sharc.CancelledError):
        index.update(progress=cancel_during_chunking, cancel=cancel)
    # The cancelled update committed nothing: auth.py is still indexed.
    assert index.search("hash_password", mode="keyword")[0].path == "taskboard/auth.py"


def test_one_writer_at_a_time(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    lock = index._writer_lock()
    lock.acquire()
    try:
        with pytest.raises(sharc.IndexLockedError, match="one writer at a time"):
            _open(small_repo, tmp_path).update(embed=False)
        # Readers keep working while the writer holds the lock.
        assert _open(small_repo, tmp_path).search("hash_password", mode="keyword")
    finally:
        lock.release()


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
    with subprocess.Popen(
        [sys.executable, "-c", KILLER, str(small_repo), str(tmp_path / "index"), phase],
        stdout=subprocess.PIPE, text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()

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


KILL_AFTER_A_BATCH = """
import sys, time, sharc
index = sharc.Index.open(sys.argv[1], index_dir=sys.argv[2])
def progress(p):
    if p.phase == "embedding" and p.vectors == "default" and p.chunks_done > 0:
        print(p.chunks_done, p.chunks_total, flush=True)
        time.sleep(60)
index.update(progress=progress)
"""


@pytest.mark.slow
def test_vectors_embedded_before_a_kill_are_not_embedded_again(
    small_repo: Path, tmp_path: Path
) -> None:
    # Killed after the first batch was journaled, long before usearch was saved.
    with subprocess.Popen(
        [sys.executable, "-c", KILL_AFTER_A_BATCH, str(small_repo), str(tmp_path / "index")],
        stdout=subprocess.PIPE, text=True,
    ) as process:
        assert process.stdout is not None
        done, total = map(int, process.stdout.readline().split())
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert 0 < done < total
    assert not (tmp_path / "index" / "vectors.usearch").exists()

    report = _open(small_repo, tmp_path).update()
    assert report.chunks_embedded == total - done
    stats = _open(small_repo, tmp_path).stats()
    assert stats.chunks - stats.keyword_only_chunks == stats.embedded_chunks == total
    assert _rows(tmp_path / "index", "SELECT count(*) FROM vectors") == [(0,)]


def test_clear_removes_the_index(built: Index) -> None:
    built.clear()
    assert not built.exists
    with pytest.raises(sharc.NotIndexedError):
        built.search("x")


def test_results_are_files_with_their_other_close_hits_under_them(built: Index) -> None:
    response = built.search("task storage", limit=4)
    paths = [hit.path for hit in response]
    assert len(paths) == len(set(paths)) == 4 and paths[0] == "taskboard/storage.py"
    assert response[0].symbol == "load_tasks" and response[0].same_file_hits
    for hit in response:
        assert len(hit.same_file_hits) <= 2  # max_per_file=3: the best and two more
        for other in hit.same_file_hits:
            # Scores as shown (scaled by the best result's): the order holds; which hits
            # are close enough is read on the raw scores (`test_ranking_files`).
            assert other.path == hit.path and hit.score >= other.score > 0
            assert not other.same_file_hits
    reading = response.all_hits()
    assert reading[: 1 + len(response[0].same_file_hits)] == [
        response[0], *response[0].same_file_hits
    ]
    assert len(reading) == sum(1 + len(hit.same_file_hits) for hit in response)
    assert all(len(hit.same_file_hits) <= 1 for hit in built.search("task storage", max_per_file=2))
    assert not any(hit.same_file_hits for hit in built.search("task storage", max_per_file=1))
    flat = built.search("task storage", limit=4, group_by_file=False)
    assert [hit.location for hit in flat][:2] == [
        response[0].location, response[0].same_file_hits[0].location
    ]
    assert not any(hit.same_file_hits for hit in flat)


def test_concurrent_searches_from_threads(built: Index) -> None:
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(5):
                assert built.search("hash a password")[0].symbol == "hash_password"
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_index_lives_outside_the_repository(small_repo: Path) -> None:
    index = sharc.Index.open(small_repo)
    assert small_repo.resolve() not in index.index_dir.resolve().parents
    assert Path(os.environ["SHARC_CACHE_DIR"]) in index.index_dir.parents


def test_binary_and_private_key_files_are_never_indexed(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    # Files that turn binary or into a key after the first index: a sync only stats files, so
    # the content rules apply when the changed file is read.
    (small_repo / "taskboard" / "auth.py").write_bytes(b"def x():\n    return 1\n\0\0\0")
    (small_repo / "taskboard" / "models.py").write_text(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    report = index.update(embed=False)
    # Skipped (a decision: the old chunks go), not failed (which would keep them).
    skipped = dict(report.skipped)
    assert "binary" in skipped["taskboard/auth.py"]
    assert "secret" in skipped["taskboard/models.py"]
    assert report.failed == [] and report.errors == []
    paths = {r.path for r in index.search("def", mode="keyword", limit=50, max_per_file=None)}
    assert "taskboard/auth.py" not in paths and "taskboard/models.py" not in paths


def test_switching_the_vector_mode_re_embeds_everything(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    first = index.update()
    late = _open(small_repo, tmp_path, embedding_mode="late")
    report = late.update()
    assert report.chunks_embedded == first.chunks_embedded
    assert late.stats().embedding_mode == "late"
    assert _top(late, "hash a password with a salt") == "hash_password"
    assert _open(small_repo, tmp_path, embedding_mode="late").update().chunks_embedded == 0


def _rows(index_dir: Path, sql: str) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        return connection.execute(sql).fetchall()


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


def _keyword_index_of(tmp_path: Path, path: str, source: str) -> Index:
    """A keyword-only index of a repository holding one file."""
    root = tmp_path / "repo"
    (root / path).parent.mkdir(parents=True)
    (root / path).write_text(source)
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    return index


def _first_line(index: Index, query: str, limit: int = 1) -> list[int]:
    return [
        hit.start_line
        for hit in index.search(query, mode="keyword", limit=limit, group_by_file=False)
    ]


def test_a_public_definition_comes_before_a_private_one_of_the_same_name(tmp_path: Path) -> None:
    # The private helper says `connect` more often: BM25 prefers it.
    index = _keyword_index_of(
        tmp_path, "lib/protocol.ex",
        "defmodule Protocol do\n"
        "  def connect(opts) do\n    connect(opts[:host], opts[:port], opts)\n  end\n\n"
        "  def close(socket), do: :gen_tcp.close(socket)\n\n"
        "  defp connect(host, port, opts) do\n"
        "    # connect, then connect again when the first connect fails\n"
        "    :gen_tcp.connect(host, port, opts)\n  end\nend\n",
    )
    assert _first_line(index, "connect", limit=2) == [1, 8]
    assert _first_line(index, "Protocol.connect") == [1]
    index.close()


def test_a_rust_trait_private_at_the_crate_root_comes_before_a_pub_one_in_a_private_module(
    tmp_path: Path,
) -> None:
    # anyhow's shape: the crate's own `trait StdError` (private at the root, so crate-wide)
    # and a `pub trait StdError` that a private `mod ext` keeps inside `context.rs`.
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src/lib.rs").write_text(
        "mod context;\n\n"
        "trait StdError: Debug + Display {\n    fn source(&self) -> Option<&dyn StdError> {\n"
        "        None\n    }\n}\n"
    )
    (root / "src/context.rs").write_text(
        "mod ext {\n    use super::*;\n\n"
        "    pub trait StdError {\n        fn ext_context(self) -> Error;\n    }\n\n"
        "    impl StdError for Error {\n        fn ext_context(self) -> Error {\n"
        "            // StdError, StdError\n            self\n        }\n    }\n}\n"
    )
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    [first] = index.search("StdError", mode="keyword", limit=1)
    assert (first.path, first.start_line) == ("src/lib.rs", 3)
    index.close()


def test_a_ruby_instance_method_query_finds_the_instance_method(tmp_path: Path) -> None:
    index = _keyword_index_of(
        tmp_path, "lib/client.rb",
        "class Client\n"
        "  def push(item)\n    raw_push(item)\n  end\n\n"
        "  class << self\n"
        "    def push(item)\n      new.push(item).push(item)\n    end\n  end\nend\n",
    )
    # BM25 prefers the class method (it says push more often); `#` names the instance method.
    assert _first_line(index, "Client.push") == [7]
    assert _first_line(index, "Client#push") == [2]
    index.close()


def test_a_key_only_a_config_file_holds_leads_a_keyword_only_search(
    small_repo: Path, tmp_path: Path
) -> None:
    # BM25 alone: the project file holds `LangVersion` whole, the code only its parts; ranked
    # by rank alone the config file's penalty put the code first.
    (small_repo / "src").mkdir(exist_ok=True)
    (small_repo / "src/Tasks.csproj").write_text(
        "<Project>\n  <PropertyGroup>\n    <LangVersion>latest</LangVersion>\n"
        "  </PropertyGroup>\n</Project>\n"
    )
    (small_repo / "taskboard/about.py").write_text(
        '"""Version and language of the package."""\n\n__version__ = "1.0"\nlang = "en"\n\n\n'
        "def version_string(lang: str = lang) -> str:\n"
        '    return f"{lang} {__version__}"\n'
    )
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    results = index.search("LangVersion")
    assert results.arms == ("keyword",)
    assert results[0].path == "src/Tasks.csproj", [r.path for r in results]


def test_a_question_searched_by_keywords_alone_finds_the_code_that_holds_its_words(
    small_repo: Path, tmp_path: Path
) -> None:
    # BM25 alone sums the weights of the words each chunk holds: the notes that repeat its
    # two rare words led; the function that holds every word of the question leads now.
    (small_repo / "taskboard/notes.py").write_text(
        "def expired_eviction(expired):\n"
        '    """Eviction: expired, eviction, expired, eviction, expired."""\n'
        "    return [expired, expired]\n"
    )
    (small_repo / "taskboard/sweeper.py").write_text(
        "def sweep(cache, now):\n"
        '    """Evict the cache entries that expired."""\n'
        "    return {key: entry for key, entry in cache.items() if entry.expires > now}\n"
    )
    (small_repo / "taskboard/caches.py").write_text("".join(
        f"def cache_{n}(entries):\n    return [cache for cache in entries]\n\n\n"
        for n in range(12)
    ))
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    question = "how are expired cache entries evicted"
    results = index.search(question, limit=3)
    assert results.arms == ("keyword",)
    assert results[0].symbol == "sweep", [r.location for r in results]
    index.ranking_settings = dataclasses.replace(index.ranking_settings, keyword_coverage=0.0)
    assert index.search(question, limit=3)[0].path == "taskboard/notes.py"  # as BM25 ranks
    index.close()


def test_a_reader_reloads_the_keyword_index_only_after_a_commit(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.keyword import KeywordStore

    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    reloads: list[Path] = []
    original = KeywordStore.reload
    monkeypatch.setattr(
        KeywordStore, "reload", lambda self: (reloads.append(self.directory), original(self))[1]
    )
    reader = _open(small_repo, tmp_path)  # another process's view, as a server has
    for _ in range(2):  # the second search notes the commit it holds (reloading once)
        assert reader.search("hash_password", mode="keyword")
    reloads.clear()
    for _ in range(3):
        assert reader.search("hash_password", mode="keyword")
    assert reloads == []  # nothing written: no reload, the same snapshot
    (small_repo / "taskboard" / "tokens.py").write_text(
        "def mint_quokka_token():\n    return 'q'\n"
    )
    index.update(embed=False)
    assert reader.search("mint_quokka_token", mode="keyword")[0].symbol == "mint_quokka_token"
    assert reloads  # the commit was seen
