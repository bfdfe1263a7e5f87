"""What a live index reports: `LiveStatus`, built from the running job, the index on disk and
the process (if another) that holds the writer lock.

`live_status` is a pure function of those three, so the facade (`sharc.live.LiveIndex.status`)
only gathers them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sharc.index import IndexStats
    from sharc.update_types import Progress

BUSY_STATES = frozenset({"indexing", "waiting", "cancelling"})


@dataclass(frozen=True)
class JobSnapshot:
    """The job runner's state at one moment (`sharc.live.jobs.JobRunner.snapshot`)."""

    running: bool
    state: str
    progress: Progress | None
    held: tuple[str, ...]
    errors: tuple[str, ...]
    message: str
    last_sync: float | None
    elapsed: float


@dataclass(frozen=True)
class LiveStatus:
    """Where a live index stands: the running job's progress and the index on disk.

    `state` is one of: not_indexed, idle, indexing, waiting (another process holds the writer
    lock), cancelling, cancelled, failed, ready. Searches work in every state once something
    is indexed.
    """

    root: str
    state: str
    phase: str = ""
    files_done: int = 0
    files_total: int = 0
    chunks_done: int = 0
    chunks_total: int = 0
    percent: float = 0.0
    #: While embedding: the vector set, "fast" or "default" (`sharc.fast_vectors`).
    vectors: str = ""
    elapsed: float = 0.0
    indexed: bool = False
    files: int = 0
    chunks: int = 0
    embedded_chunks: int = 0
    #: Chunks with a fast-model vector, and the vectors searches read ("fast", "default").
    fast_embedded_chunks: int = 0
    searched_vectors: str | None = None
    index_size: int = 0
    last_sync: float | None = None
    watching: bool = False
    syntax_held: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    other_process: dict[str, Any] | None = None
    message: str = ""

    @property
    def busy(self) -> bool:
        """Whether indexing is running (here, or waiting for another process)."""
        return self.state in BUSY_STATES

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["syntax_held"] = list(self.syntax_held)
        data["errors"] = list(self.errors)
        data["percent"] = round(self.percent, 1)
        data["elapsed"] = round(self.elapsed, 2)
        return data


def live_status(
    root: str,
    jobs: JobSnapshot,
    stats: IndexStats | None,
    other: dict[str, Any] | None,
    *,
    embed: bool,
    watching: bool,
    errors: tuple[str, ...],
) -> LiveStatus:
    """The status from the job's state (`jobs`), the index's `stats` (None: nothing indexed
    yet) and the `other` process writing the index, if any."""
    state, message, last_sync = jobs.state, jobs.message, jobs.last_sync
    job_running, progress = jobs.running, jobs.progress
    if state in ("idle", "ready", "not_indexed", "cancelled", "failed") and not job_running:
        if stats is None and state in ("idle", "ready"):
            state = "not_indexed"
        elif stats is not None and state in ("idle", "not_indexed"):
            state = "ready"
        if other is not None:
            message = f"being indexed by another process (pid {other['pid']})"
    values: dict[str, Any] = {}
    if job_running and progress is None and state == "indexing":
        values = {"phase": "starting"}  # loading the model, walking the tree
    elif job_running and progress is not None:
        values = {
            "phase": progress.phase,
            "files_done": progress.files_done,
            "files_total": progress.files_total,
            "chunks_done": progress.chunks_done,
            "chunks_total": progress.chunks_total,
            "percent": progress.percent,
            "vectors": progress.vectors,
        }
    elif not job_running and other is not None and "phase" in other:
        values = {k: other[k] for k in (
            "phase", "files_done", "files_total", "chunks_done", "chunks_total", "percent",
            "vectors",
        ) if k in other}
    elif state == "ready" and stats is not None:
        values = {
            "phase": "done",
            "percent": 100.0,
            "files_done": stats.files,
            "files_total": stats.files,
            "chunks_done": stats.embedded_chunks if embed else stats.chunks,
            # Keyword-only chunks (by the embedding policy) are never embedded.
            "chunks_total": (
                stats.chunks - stats.keyword_only_chunks if embed else stats.chunks
            ),
        }
    if stats is not None and stats.last_update:
        # Another process may have synced later than this one.
        last_sync = max(last_sync or 0.0, stats.last_update)
    return LiveStatus(
        root=root,
        state=state,
        elapsed=jobs.elapsed,
        indexed=stats is not None and stats.files > 0,
        files=stats.files if stats else 0,
        chunks=stats.chunks if stats else 0,
        embedded_chunks=stats.embedded_chunks if stats else 0,
        fast_embedded_chunks=stats.fast_embedded_chunks if stats else 0,
        searched_vectors=stats.searched_vectors if stats else None,
        index_size=stats.size_bytes if stats else 0,
        last_sync=last_sync,
        watching=watching,
        syntax_held=jobs.held,
        errors=tuple(errors),
        other_process=other,
        message=message,
        **values,
    )


def held_message(held: Iterable[str]) -> str:
    return (
        "kept the previous version of files with syntax errors (re-indexed once they parse): "
        + ", ".join(sorted(held))
    )
