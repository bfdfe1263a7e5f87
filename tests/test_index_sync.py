"""The index end to end, keeping up with the tree: edits, additions, deletions and renames,
stable chunk ids, a keyword-only index that later gains vectors, a cancelled update, one writer
at a time, files that turn binary or into a key, a change of vector mode, and a reader seeing a
writer's commit; the real model, real usearch, real tantivy, on a small real repository."""

from __future__ import annotations

import textwrap
import threading
from pathlib import Path

import pytest
import sharc
from index_helpers import _open, _top


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
