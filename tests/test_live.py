"""LiveIndex: background jobs, cancellation, the writer lock across processes, the watcher and
its syntax guard. Keyword-only (embed=False) where vectors do not matter, to stay fast."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sharc.errors import NotIndexedError
from sharc.live import LiveIndex, LiveStatus

FIXTURE = Path(__file__).parent / "fixtures" / "repo_small"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture
def make_live(tmp_path: Path) -> Iterator[Callable[..., LiveIndex]]:
    made: list[LiveIndex] = []

    def make(root: Path, **options: object) -> LiveIndex:
        options.setdefault("index_dir", tmp_path / "index")
        options.setdefault("embed", False)
        options.setdefault("debounce", 0.3)
        options.setdefault("lock_retry", 0.2)
        live = LiveIndex(root, **options)  # type: ignore[arg-type]
        made.append(live)
        return live

    yield make
    for live in made:
        live.close()


def wait_for(predicate: Callable[[], object], timeout: float = 20.0, step: float = 0.1) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"condition not met within {timeout} s")


def top_paths(live: LiveIndex, query: str, limit: int = 3) -> list[str]:
    return [hit.path for hit in live.search(query, limit=limit, mode="keyword")]


def top_symbols(live: LiveIndex, query: str, limit: int = 5) -> list[str]:
    return [hit.symbol for hit in live.search(query, limit=limit, mode="keyword")]


def count_updates(live: LiveIndex) -> list[float]:
    """Record the start time of every `update` the live index runs."""
    calls: list[float] = []
    original = live._writer.update

    def counted(**options: object):  # type: ignore[no-untyped-def]
        calls.append(time.monotonic())
        return original(**options)

    live._writer.update = counted  # type: ignore[method-assign]
    return calls


def generate_files(root: Path, count: int) -> None:
    package = root / "generated"
    package.mkdir()
    for number in range(count):
        (package / f"module_{number:05d}.py").write_text(
            textwrap.dedent(
                f'''
                """Generated module {number}."""


                def compute_value_{number}(items: list[int]) -> int:
                    """Sum the items of batch {number} after scaling them."""
                    return sum(item * {number % 7 + 1} for item in items)


                class Handler{number}:
                    def handle(self, request: dict) -> dict:
                        return {{"id": {number}, "ok": bool(request)}}
                '''
            )
        )


def test_start_returns_at_once_and_indexes_in_the_background(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    live = make_live(repo)
    assert live.status().state == "not_indexed"
    started = time.monotonic()
    status = live.start()
    assert time.monotonic() - started < 1.0
    assert status.busy
    final = live.wait(30)
    assert final.state == "ready", final
    assert final.files >= 15 and final.chunks > final.files
    assert final.percent == 100.0 and final.phase == "done"
    assert final.last_sync is not None and final.index_size > 0
    assert top_paths(live, "verify_password")[0] == "taskboard/auth.py"
    assert top_paths(live, "renderTaskList")[0] == "web/src/components/TaskList.ts"


def test_search_before_anything_is_indexed_says_so(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    with pytest.raises(NotIndexedError):
        make_live(repo).search("anything")


def test_a_second_start_joins_the_running_job(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    generate_files(repo, 300)
    live = make_live(repo)
    calls = count_updates(live)
    live.start()
    second = live.start()
    assert "joined" in second.message
    assert live.wait(60).state == "ready"
    assert len(calls) == 1


def test_sync_during_a_job_runs_one_more_pass_after_it(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    generate_files(repo, 300)
    live = make_live(repo)
    calls = count_updates(live)
    live.start()
    (repo / "taskboard" / "late.py").write_text("def arrived_late():\n    return 1\n")
    live.sync()
    assert live.wait(60).state == "ready"
    assert len(calls) == 2
    assert top_paths(live, "arrived_late")[0] == "taskboard/late.py"


@pytest.mark.slow
def test_cancel_stops_a_long_job_within_a_second(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    generate_files(repo, 3000)
    live = make_live(repo)
    live.start()
    wait_for(lambda: live.status().files_done > 0 or live.status().phase == "chunking", 30, 0.02)
    started = time.monotonic()
    status = live.cancel(timeout=5)
    assert time.monotonic() - started < 1.0
    assert status.state == "cancelled", status
    # The index keeps its previous (empty) state; a new start resumes from there.
    assert live.start().busy
    assert live.wait(120).state == "ready"


@pytest.mark.slow
def test_another_process_holding_the_writer_lock(
    repo: Path, make_live: Callable[..., LiveIndex], tmp_path: Path
) -> None:
    live = make_live(repo)
    assert live.start().busy and live.wait(30).state == "ready"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from sharc.locking import WriterLock
            lock = WriterLock(Path({str(tmp_path / 'index' / 'writer.lock')!r}), what="test")
            lock.acquire()
            print("locked", flush=True)
            time.sleep(60)
        """)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        idle = live.status()
        assert idle.other_process == {"pid": holder.pid}
        assert "another process" in idle.message
        (repo / "taskboard" / "extra.py").write_text("def added_while_locked():\n    pass\n")
        live.sync()
        waiting = wait_for(lambda: (s := live.status()).state == "waiting" and s, 10)
        assert isinstance(waiting, LiveStatus) and waiting.busy
        assert waiting.other_process is not None and waiting.other_process["pid"] == holder.pid
        # Searching is not an error meanwhile: it answers from the committed index.
        assert top_paths(live, "verify_password")[0] == "taskboard/auth.py"
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert live.wait(30).state == "ready"
    assert top_paths(live, "added_while_locked")[0] == "taskboard/extra.py"


def test_event_filter_applies_the_walkers_rules(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    (repo / "node_modules" / "left-pad").mkdir(parents=True)
    (repo / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1;\n")
    (repo / "web" / "node_modules").mkdir()
    (repo / "server.log").write_text("boot\n")
    (repo / ".git").mkdir()
    live = make_live(repo)
    live._walk()
    accepts = live.accepts_event
    assert accepts(str(repo / "taskboard" / "auth.py"))
    assert accepts(str(repo / "taskboard" / "brand_new.py"))
    assert not accepts(str(repo / "node_modules" / "left-pad" / "index.js"))
    assert not accepts(str(repo / "web" / "node_modules" / "x" / "y.js"))
    assert not accepts(str(repo / ".git" / "index"))
    assert not accepts(str(repo / "server.log"))
    assert not accepts(str(repo.parent / "elsewhere.py"))
    assert "node_modules" not in {d.name for d in live._top_level_directories()}


def test_watcher_indexes_changes_and_ignores_ignored_paths(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    live = make_live(repo)
    live.start()
    assert live.wait(30).state == "ready"
    calls = count_updates(live)
    live.watch()
    assert live.status().watching
    time.sleep(0.3)
    # Ignored: a dependency directory, a gitignored file, VCS internals.
    (repo / "node_modules" / "pkg").mkdir(parents=True)
    (repo / "node_modules" / "pkg" / "index.js").write_text("export const x = 1;\n")
    (repo / "tasks.sqlite").write_bytes(b"SQLite format 3\x00")
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    time.sleep(live.debounce + 1.5)
    live.wait(10)
    assert calls == []
    # A real edit: saved twice within the debounce window, indexed once.
    auth = repo / "taskboard" / "auth.py"
    auth.write_text(auth.read_text() + "\n\ndef rotate_signing_key():\n    return 1\n")
    auth.write_text(auth.read_text() + "\n\ndef revoke_all_sessions():\n    return 2\n")
    wait_for(lambda: "taskboard/auth.py" in top_paths(live, "revoke_all_sessions"), 20)
    live.wait(10)
    assert len(calls) == 1
    assert top_paths(live, "rotate_signing_key")[0] == "taskboard/auth.py"
    # A deleted file leaves the index.
    (repo / "taskboard" / "scheduler.py").unlink()
    wait_for(lambda: "taskboard/scheduler.py" not in top_paths(live, "retry_with_backoff"), 20)
    live.unwatch()
    assert not live.status().watching


def test_watcher_syncs_look_at_the_changed_paths_alone(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    live = make_live(repo)
    live.start()
    assert live.wait(30).state == "ready"
    seen: list[object] = []
    original = live._writer.update

    def recorded(**options: object):  # type: ignore[no-untyped-def]
        seen.append(options.get("paths"))
        return original(**options)

    live._writer.update = recorded  # type: ignore[method-assign]
    live.watch()
    time.sleep(0.3)
    storage = repo / "taskboard" / "storage.py"
    storage.write_text(storage.read_text() + "\n\ndef compact_journal(store):\n    pass\n")
    wait_for(lambda: top_symbols(live, "compact_journal")[:1] == ["compact_journal"], 20)
    live.wait(10)
    assert seen == [["taskboard/storage.py"]]
    # An ignore file may change what is indexed anywhere: the whole tree is compared.
    (repo / ".gitignore").write_text((repo / ".gitignore").read_text() + "notifier/\n")
    wait_for(lambda: not any(p.startswith("notifier/") for p in live._indexed_files()), 20)
    live.wait(10)
    assert seen[1:] == [None]
    live.unwatch()


def test_syntax_guard_keeps_the_previous_chunks_of_a_broken_file(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    live = make_live(repo)
    live.start()
    assert live.wait(30).state == "ready"
    live.watch()
    auth = repo / "taskboard" / "auth.py"
    original = auth.read_text()
    broken = original.replace(
        "def verify_password(password: str, stored: str) -> bool:",
        "def verify_password(password: str, stored: str) -> bool:\n    if (\n",
    ).replace("new_session_token", "issue_session_token")
    auth.write_text(broken)
    held = wait_for(lambda: live.status().syntax_held, 20)
    assert held == ("taskboard/auth.py",)
    live.wait(10)
    # The previous version stays searchable; the half-typed one is not indexed.
    assert top_symbols(live, "new_session_token")[0] == "new_session_token"
    assert "issue_session_token" not in top_symbols(live, "issue_session_token")
    # Fixed: indexed again, no longer held.
    auth.write_text(original.replace("new_session_token", "issue_session_token"))
    wait_for(lambda: top_symbols(live, "issue_session_token")[0] == "issue_session_token", 20)
    assert "new_session_token" not in top_symbols(live, "new_session_token")
    assert live.wait(10).syntax_held == ()


def test_syntax_guard_holds_a_broken_file_while_others_are_indexed(
    repo: Path, make_live: Callable[..., LiveIndex]
) -> None:
    live = make_live(repo)
    if not live._supports_hold:
        pytest.skip("Index.update has no hold= yet")
    assert live.start().busy and live.wait(30).state == "ready"
    models = repo / "taskboard" / "models.py"
    models.write_text(models.read_text().replace("def is_overdue", "def is_late(\n"))
    storage = repo / "taskboard" / "storage.py"
    storage.write_text(storage.read_text() + "\n\ndef vacuum_database(store):\n    pass\n")
    status = live.sync()
    status = live.wait(30)
    assert status.syntax_held == ("taskboard/models.py",)
    assert top_paths(live, "vacuum_database")[0] == "taskboard/storage.py"
    assert top_paths(live, "is_overdue")[0] == "taskboard/models.py"


def test_clear_cancels_indexing_and_deletes_the_index(
    repo: Path, make_live: Callable[..., LiveIndex], tmp_path: Path
) -> None:
    generate_files(repo, 1000)
    live = make_live(repo)
    live.start()
    live.watch()
    live.clear()
    status = live.status()
    assert status.state == "not_indexed" and not status.watching
    assert not (tmp_path / "index" / "manifest.sqlite").exists()
    with pytest.raises(NotIndexedError):
        live.search("compute_value_1")


@pytest.mark.slow
def test_real_model_search_while_ready(repo: Path, make_live: Callable[..., LiveIndex]) -> None:
    live = make_live(repo, embed=True)
    live.start()
    status = live.wait(120)
    assert status.state == "ready", status
    # Every chunk the policy embeds (a file's preamble lines are keyword-only).
    assert status.embedded_chunks == status.chunks_total > 0
    assert status.chunks_total <= status.chunks
    hits = live.search("hash a password with a random salt", limit=3)
    assert hits[0].path == "taskboard/auth.py" and hits[0].symbol == "hash_password"
    assert 0.0 <= hits[0].score <= 1.0
    assert os.path.isdir(status.root)
