"""`Index.asearch` and `Index.aupdate`: the work runs in a thread, the event loop keeps serving,
and a cancelled update leaves the index in its last committed state (real model, usearch and
tantivy on the small fixture repository)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
import sharc
from sharc.index import Index

#: Only a guard against a deadlock (the test fails instead of hanging); nothing is timed.
GATE_SECONDS = 60


def _open(repo: Path, tmp_path: Path) -> Index:
    return sharc.Index.open(repo, index_dir=tmp_path / "index")


def _symbols(index: Index, query: str) -> set[str]:
    return {hit.symbol for hit in index.search(query, mode="keyword", limit=20)}


def test_asearch_runs_in_a_thread_while_the_loop_serves(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    search = index.search
    gate = threading.Event()
    passed: list[bool] = []

    def search_behind_the_gate(query: str, **options: object) -> sharc.index.SearchResponse:
        # Opened by a coroutine on the loop: if asearch ran the search on the loop's thread,
        # this would wait in vain.
        passed.append(gate.wait(GATE_SECONDS))
        return search(query, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "search", search_behind_the_gate)

    async def main() -> sharc.index.SearchResponse:
        searching = asyncio.create_task(
            index.asearch("hash_password", mode="keyword", limit=3, group_by_file=False)
        )
        await asyncio.sleep(0)
        gate.set()
        return await searching

    response = asyncio.run(main())
    assert passed == [True]
    assert response[0].symbol == "hash_password" and len(response) == 3


def _cancel_when(phase: str, *, chunks_done: int = 0, vectors: str | None = None):  # type: ignore[no-untyped-def]
    """A progress callback that stops the update's thread at `phase` (of the `vectors` set,
    if given) until the test resumes it, and the coroutine that cancels the task meanwhile."""
    resume = threading.Event()
    reached: list[asyncio.Event] = []
    loop: list[asyncio.AbstractEventLoop] = []

    def progress(report: sharc.Progress) -> None:
        if (
            report.phase == phase
            and report.chunks_done >= chunks_done
            and vectors in (None, report.vectors)
            and not resume.is_set()
        ):
            loop[0].call_soon_threadsafe(reached[0].set)
            assert resume.wait(GATE_SECONDS)

    async def run_and_cancel(start) -> None:  # type: ignore[no-untyped-def]
        loop.append(asyncio.get_running_loop())
        reached.append(asyncio.Event())
        task = asyncio.create_task(start(progress))
        await reached[0].wait()
        task.cancel()
        # One turn of the loop: the task takes its cancellation (and sets the update's cancel
        # event) before this coroutine goes on; only then does the update's thread resume.
        await asyncio.sleep(0)
        resume.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    return run_and_cancel


def test_cancelled_aupdate_keeps_the_last_committed_state(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    before = index.stats()
    (small_repo / "taskboard" / "auth.py").unlink()
    (small_repo / "taskboard" / "labels.py").write_text(
        "def colour_for_label(label):\n    return ['red', 'green'][len(label) % 2]\n"
    )
    run_and_cancel = _cancel_when("walking")
    asyncio.run(run_and_cancel(lambda progress: index.aupdate(embed=False, progress=progress)))

    after = index.stats()
    assert (after.files, after.chunks, after.generation) == (
        before.files, before.chunks, before.generation,
    )
    assert "hash_password" in _symbols(index, "hash_password")
    assert "colour_for_label" not in _symbols(index, "colour_for_label")

    # The writer lock is free again: the next update brings the change in.
    report = asyncio.run(index.aupdate(embed=False))
    assert (report.files_added, report.files_deleted) == (1, 1)
    assert "hash_password" not in _symbols(index, "hash_password")
    assert "colour_for_label" in _symbols(index, "colour_for_label")


def test_aupdate_cancelled_while_embedding_keeps_the_vectors_committed(
    small_repo: Path, tmp_path: Path
) -> None:
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    run_and_cancel = _cancel_when("embedding", chunks_done=1, vectors="default")
    asyncio.run(run_and_cancel(lambda progress: index.aupdate(progress=progress)))

    stats = index.stats()
    assert 0 < stats.embedded_chunks < stats.chunks
    # Search reads the fast vectors, whole, until the default model's are.
    assert stats.fast_embedded_chunks == stats.chunks - stats.keyword_only_chunks
    assert stats.searched_vectors == "fast"
    response = index.search("hash a password with a salt")
    assert response.arms == ("keyword", "semantic") and response.complete
    assert response.vectors == "fast"
    assert response[0].symbol == "hash_password"
    partial = index.search("hash a password with a salt", vectors="default")
    assert partial.vectors == "default" and not partial.complete

    report = asyncio.run(index.aupdate())
    embeddable = stats.chunks - stats.keyword_only_chunks
    assert report.chunks_embedded == embeddable - stats.embedded_chunks  # none again
    assert index.stats().embedded_chunks == embeddable
    finished = index.search("hash a password with a salt")
    assert finished.complete and finished.vectors == "default"


def test_aupdate_takes_its_cancellation_from_the_task(small_repo: Path, tmp_path: Path) -> None:
    index = _open(small_repo, tmp_path)
    with pytest.raises(TypeError, match="cancelling the task"):
        asyncio.run(index.aupdate(cancel=threading.Event()))


def test_asearch_takes_every_option_search_takes() -> None:
    import inspect

    wanted = inspect.signature(Index.search).parameters
    given = inspect.signature(Index.asearch).parameters
    assert list(given) == list(wanted)
    assert all(given[name].default == wanted[name].default for name in wanted)
