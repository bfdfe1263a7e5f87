"""The writer: the model loads only when a chunk needs it, under the id the chunks were keyed
with, and chunking survives a kill a step at a time. Real model, usearch and tantivy."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sharc
from sharc import model_config
from sharc.index import Index

HEAVY = ("onnxruntime", "tokenizers", "usearch", "tantivy", "numpy")


def _open(root: Path, index_dir: Path, **settings: object) -> Index:
    return sharc.Index.open(root, index_dir=index_dir, **settings)  # type: ignore[arg-type]


def _index_in_a_process(root: Path, index_dir: Path) -> subprocess.CompletedProcess[str]:
    """`sharc index` in a new process; its stdout names the heavy modules it imported."""
    code = (
        "import sys; from sharc.cli import main; "
        f"main(['index', {str(root)!r}, '--index-dir', {str(index_dir)!r}]); "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


def test_a_no_op_index_of_the_fast_model_loads_neither_the_model_nor_the_stores(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    assert _open(small_repo, index_dir, model="fast").update().chunks_embedded > 0
    output = _index_in_a_process(small_repo, index_dir)
    assert output.stdout.strip() == ""
    assert "0 chunks embedded" in output.stderr


def test_a_no_op_index_loads_neither_the_model_nor_the_stores(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    built = _open(small_repo, index_dir).update()
    assert built.chunks_embedded > 0
    output = _index_in_a_process(small_repo, index_dir)
    assert output.stdout.strip() == ""
    assert "0 chunks embedded" in output.stderr
    stats = _open(small_repo, index_dir).stats()  # the count the writer recorded
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks

    # A change that needs the model loads it (the tokenizer comes with it); one that only
    # removes chunks does not (usearch brings onnxruntime's module, not a model).
    (small_repo / "taskboard" / "scheduler.py").unlink()
    output = _index_in_a_process(small_repo, index_dir)
    assert "tokenizers" not in output.stdout and "usearch" in output.stdout
    assert "0 chunks embedded" in output.stderr
    auth = small_repo / "taskboard" / "auth.py"
    auth.write_text(auth.read_text() + "\n\ndef forget_user(name):\n    return name\n")
    output = _index_in_a_process(small_repo, index_dir)
    assert "tokenizers" in output.stdout and "1 chunks embedded" in output.stderr
    index = _open(small_repo, index_dir)
    assert index.search("forget_user").arms == ("keyword", "semantic")
    stats = index.stats()
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks


def test_a_model_with_another_id_than_assumed_re_keys_every_chunk_before_embedding(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = _open(small_repo, tmp_path / "reference")
    reference.update()
    expected = reference.stats()
    # The files say CUDA, the machine has none: the chunks are keyed for the float model,
    # and the model that loads is the int8 copy.
    monkeypatch.setattr(model_config, "_cuda_build_installed", lambda: True)
    index = _open(small_repo, tmp_path / "index")
    report = index.update()
    assert report.files_added == expected.files and report.failed == []
    stats = index.stats()
    assert stats.model == expected.model == f"{model_config.DEFAULT_MODEL}+int8"
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks
    assert stats.chunks == expected.chunks
    assert _chunk_keys(tmp_path / "index") == _chunk_keys(tmp_path / "reference")
    assert index.search("hash a password with a salt", mode="semantic")[0].symbol == "hash_password"
    # The index remembers the id the model gave: the next update trusts it, and has no work.
    assert _open(small_repo, tmp_path / "index").update().chunks_embedded == 0
    assert _chunk_keys(tmp_path / "index") == _chunk_keys(tmp_path / "reference")


def _chunk_keys(index_dir: Path) -> set[tuple[str, int, str]]:
    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        return set(connection.execute("SELECT id, key, vector_key FROM chunks"))


def _committed_files(index_dir: Path) -> int:
    try:
        connection = sqlite3.connect(f"file:{index_dir / 'manifest.sqlite'}?mode=ro", uri=True)
    except sqlite3.OperationalError:
        return 0
    try:
        return int(connection.execute("SELECT count(*) FROM files").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        connection.close()


def _grow(root: Path, files: int) -> None:
    """Files of distinct functions, so that embedding them takes the model a while."""
    for number in range(files):
        target = root / "generated" / f"module_{number:03d}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(
            f"def step_{number}_{part}(value):\n"
            f'    """Advance stage {part} of pipeline {number}."""\n'
            f"    return value * {number + part} + {part}\n\n\n"
            for part in range(3)
        ))


@pytest.mark.slow
def test_kills_of_a_cold_index_each_leave_progress_behind(small_repo: Path, tmp_path: Path) -> None:
    _grow(small_repo, 150)
    total = len(sharc.walk(small_repo).files)
    index_dir = tmp_path / "index"
    command = [sys.executable, "-m", "sharc.cli", "index", str(small_repo), "--index-dir",
               str(index_dir)]
    committed = [0]
    while True:
        before = committed[-1]
        with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
            # Killed as soon as the run has committed anything new: this run's own work.
            while _committed_files(index_dir) == before and process.poll() is None:
                time.sleep(0.01)
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        committed.append(_committed_files(index_dir))
        assert committed[-1] > before, f"a kill lost the run's work: {committed}"
        if committed[-1] == total or len(committed) > 40:
            break
    # A handful of kills chunk the whole tree (the first batch of each run is committed at
    # once), and keyword search answered all along; no file is chunked twice.
    assert len(committed) < 20
    assert _open(small_repo, index_dir).search("step_149_2", mode="keyword")[0].symbol == "step_149_2"
    report = _open(small_repo, index_dir).update(embed=False)
    assert report.files_added == report.files_changed == 0
    assert report.files_unchanged == committed[-1]


def _files_of(index_dir: Path) -> set[str]:
    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        return {path for (path,) in connection.execute("SELECT path FROM files")}


def test_an_update_of_some_paths_looks_at_them_alone_and_agrees_with_a_whole_update(
    small_repo: Path, tmp_path: Path
) -> None:
    index = _open(small_repo, tmp_path / "index")
    index.update()
    auth = small_repo / "taskboard" / "auth.py"
    auth.write_text(auth.read_text() + "\n\ndef forget_user(name):\n    return name\n")
    (small_repo / "taskboard" / "extra.py").write_text("def extra_step():\n    return 2\n")
    (small_repo / "taskboard" / "scheduler.py").unlink()
    storage = small_repo / "taskboard" / "storage.py"
    storage.write_text(storage.read_text() + "\n\ndef unseen_yet():\n    return 3\n")
    (small_repo / "node_modules" / "lib").mkdir(parents=True)
    (small_repo / "node_modules" / "lib" / "index.js").write_text("function hidden() {}\n")

    report = index.update(paths=[
        "taskboard/auth.py", "./taskboard/extra.py", "taskboard/scheduler.py",
        "node_modules/lib/index.js",
    ])
    assert (report.files_added, report.files_changed, report.files_deleted) == (1, 1, 1)
    assert report.files_unchanged == 0  # nothing outside the paths was compared
    assert report.chunks_embedded >= 2
    assert index.search("forget_user", mode="keyword")[0].symbol == "forget_user"
    outside = index.search("unseen_yet", mode="keyword")  # outside the paths
    assert all(result.symbol != "unseen_yet" for result in outside)
    assert "node_modules/lib/index.js" not in _files_of(tmp_path / "index")

    # The same edits seen by a whole update leave the same index as updates of paths do.
    index.update(paths=["taskboard/storage.py"])
    assert index.update().files_changed == 0
    reference = _open(small_repo, tmp_path / "reference")
    reference.update()
    assert _chunk_keys(tmp_path / "index") == _chunk_keys(tmp_path / "reference")
    stats = index.stats()
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks


def test_an_update_of_a_directory_or_an_ignore_file_covers_what_it_may_change(
    small_repo: Path, tmp_path: Path
) -> None:
    index = _open(small_repo, tmp_path / "index")
    index.update(embed=False)
    files = _files_of(tmp_path / "index")
    moved = sum(path.startswith("notifier/") for path in files)
    assert moved >= 2

    # A directory moved away: its files go, the directory beside it (`notifier2`) is its own.
    (small_repo / "notifier").rename(small_repo / "notifier2")
    report = index.update(paths=["notifier"], embed=False)
    assert report.files_deleted == moved and report.files_added == 0
    report = index.update(paths=["notifier2/"], embed=False)
    assert report.files_added == moved

    # An ignore file changed: whatever it covers, anywhere, is in the update.
    gitignore = small_repo / ".gitignore"
    gitignore.write_text(gitignore.read_text() + "web/\n")
    report = index.update(paths=[".gitignore"], embed=False)
    assert report.files_deleted == sum(path.startswith("web/") for path in files)
    assert not any(path.startswith("web/") for path in _files_of(tmp_path / "index"))

    with pytest.raises(ValueError, match="not a path inside the root"):
        index.update(paths=["../elsewhere.py"], embed=False)
    assert _files_of(tmp_path / "index")  # nothing lost


def test_chunks_made_by_another_chunker_are_remade_and_keep_their_vectors(
    small_repo: Path, tmp_path: Path
) -> None:
    from sharc.manifest import CHUNKER_VERSION

    index_dir = tmp_path / "index"
    index = _open(small_repo, index_dir)
    index.update()
    keys = _chunk_keys(index_dir)
    # What an older chunker left: a stamp of its own, and a chunk it cut differently.
    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        connection.execute("UPDATE meta SET value = 'rules 0' WHERE key = 'chunker'")
        (chunk_id,) = connection.execute(
            "SELECT id FROM chunks WHERE symbol = 'hash_password'"
        ).fetchone()
        connection.execute("UPDATE chunks SET end_line = start_line WHERE id = ?", (chunk_id,))

    report = index.update()
    assert report.chunks_embedded == 0  # the texts did not change: their vectors serve
    assert _chunk_keys(index_dir) == keys
    # ...and cover every chunk still: a search does not say embeddings are being computed.
    assert index.search("hash a password").complete
    with sqlite3.connect(index_dir / "manifest.sqlite") as connection:
        (stamp,) = connection.execute("SELECT value FROM meta WHERE key = 'chunker'").fetchone()
        (start, end) = connection.execute(
            "SELECT start_line, end_line FROM chunks WHERE id = ?", (chunk_id,)
        ).fetchone()
    assert stamp == CHUNKER_VERSION and end > start
    again = index.update()
    assert (again.files_changed, again.chunks_embedded) == (0, 0)


def test_a_walk_against_known_records_returns_only_what_changed(tmp_path: Path) -> None:
    for name in ("same.py", "edited.py", "new.py"):
        (tmp_path / name).write_text(f"def {name[:-3]}():\n    return 1\n")
    stat = {p.name: p.stat() for p in tmp_path.iterdir()}
    known = [
        ("same.py", stat["same.py"].st_size, stat["same.py"].st_mtime_ns),
        ("edited.py", stat["edited.py"].st_size, stat["edited.py"].st_mtime_ns - 1),
        ("gone.py", 10, 10),
        ("gone/deeper.py", 10, 10),
    ]
    walked = sharc.walk(tmp_path, known=known)
    assert [f.path for f in walked.files] == ["edited.py", "new.py"]
    assert walked.unchanged == 1
    assert walked.missing == ["gone.py", "gone/deeper.py"]
    # Within a scope, only the records under it count.
    scoped = sharc.walk(tmp_path, scope=["same.py"], known=known[:1])
    assert (scoped.files, scoped.unchanged, scoped.missing) == ([], 1, [])




def test_a_missing_keyword_index_is_refilled_from_the_manifest(
    small_repo: Path, tmp_path: Path
) -> None:
    import shutil

    index_dir = tmp_path / "index"
    _open(small_repo, index_dir).update()
    shutil.rmtree(index_dir / "keyword")
    report = _open(small_repo, index_dir).update()
    assert (report.files_changed, report.chunks_embedded) == (0, 0)
    hits = _open(small_repo, index_dir).search("notify_due_tasks", mode="keyword")
    assert hits.results[0].symbol == "notify_due_tasks"
