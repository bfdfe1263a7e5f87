"""The job runner of a live index: one background job at a time, each an `Index.update` of what
changed, retried while another process holds the writer lock, followed by another pass when
files changed while it ran.

`JobRunner` holds the job's state (where it stands, its progress, what the syntax guard holds);
the facade (`sharc.live.LiveIndex`) asks it for jobs and reads its `snapshot`. What a job looks
at is planned by the facade's `plan` callback (`sharc.live.changes`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.errors import CancelledError, IndexLockedError
from sharc.live.changes import Plan
from sharc.live.progress_file import PROGRESS_WRITE_SECONDS, write_progress
from sharc.live.status import JobSnapshot, held_message

if TYPE_CHECKING:
    from sharc.index import Index
    from sharc.update_types import Progress, UpdateReport


@dataclass
class Job:
    force: bool
    from_watcher: bool
    #: The paths the watcher saw change (relative); None: the whole tree is compared.
    paths: frozenset[str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    rerun: bool = False
    #: What the pass after this one looks at: paths seen meanwhile, or None for everything.
    rerun_paths: frozenset[str] | None = None
    thread: threading.Thread | None = None

    def rerun_with(self, paths: frozenset[str] | None) -> None:
        """Ask for another pass over `paths` as well (None: over the whole tree)."""
        if self.rerun and self.rerun_paths is None:
            return
        self.rerun_paths = (
            None if paths is None else (self.rerun_paths or frozenset()) | paths
        )
        self.rerun = True


#: What a job should update: (the job, whether the last job left the index in line with the
#: disk, the files the syntax guard holds) -> the plan, or None when nothing changed.
Planner = Callable[[Job, bool, frozenset[str]], "Plan | None"]


class JobRunner:
    """Runs the jobs of one index's writer (`writer`, an `Index`) in a background thread."""

    def __init__(
        self,
        writer: Index,
        *,
        plan: Planner,
        embed: bool,
        lock_retry: float,
        supports_hold: bool,
    ) -> None:
        self.writer = writer
        self.index_dir: Path = writer.index_dir
        self.embed = embed
        self.lock_retry = lock_retry
        self._plan = plan
        self._supports_hold = supports_hold
        self._lock = threading.RLock()
        self._job_ended = threading.Condition(self._lock)
        self._job: Job | None = None
        self._state = "idle"
        self._progress: Progress | None = None
        self._progress_written = 0.0
        self._errors: tuple[str, ...] = ()
        self._message = ""
        self._last_sync: float | None = None
        self._last_elapsed = 0.0
        self._clean = False  # the last job brought the index in line with the disk
        self._held: frozenset[str] = frozenset()

    # -- what the facade asks for ----------------------------------------------------------

    def start(self, *, force: bool) -> bool:
        """Start a job unless one runs; returns whether one was already running (joined)."""
        with self._lock:
            joined = self._job is not None
            if not joined:
                self._start_job(force=force, from_watcher=False)
        return joined

    def sync(self, paths: frozenset[str] | None = None, *, from_watcher: bool = False) -> None:
        """Compare `paths` (None: the whole tree) with the index: now, or in another pass
        after the running job, since files may have changed after it walked them."""
        with self._lock:
            if self._job is not None:
                self._job.rerun_with(paths)
            else:
                self._start_job(force=False, from_watcher=from_watcher, paths=paths)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until no job runs (or `timeout` seconds pass)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._job is not None:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self._job_ended.wait(remaining)

    def cancel(self) -> bool:
        """Ask the running job to stop; returns whether there was one."""
        with self._lock:
            job = self._job
            if job is None:
                return False
            job.rerun = False
            job.rerun_paths = None
            job.cancel.set()
            self._state = "cancelling"
        return True

    def forget(self, message: str) -> None:
        """The index was deleted: nothing indexed, nothing held, no progress."""
        with self._lock:
            self._state = "not_indexed"
            self._progress = None
            self._errors = ()
            self._held = frozenset()
            self._last_sync = None
            self._message = message

    def note(self, message: str) -> None:
        with self._lock:
            self._message = message

    def snapshot(self) -> JobSnapshot:
        with self._lock:
            job = self._job
            return JobSnapshot(
                running=job is not None,
                state=self._state,
                progress=self._progress,
                held=tuple(sorted(self._held)),
                errors=self._errors,
                message=self._message,
                last_sync=self._last_sync,
                elapsed=(time.monotonic() - job.started) if job is not None
                else self._last_elapsed,
            )

    # -- the job thread --------------------------------------------------------------------

    def _start_job(
        self, *, force: bool, from_watcher: bool, paths: frozenset[str] | None = None
    ) -> None:
        job = Job(force=force, from_watcher=from_watcher, paths=paths)
        job.thread = threading.Thread(
            target=self._run_job, args=(job,), name=f"sharc-index:{self.writer.root.name}",
            daemon=True,
        )
        self._job = job
        self._state = "indexing"
        self._progress = None
        self._message = "rebuilding the index" if force else "indexing"
        job.thread.start()

    def _run_job(self, job: Job) -> None:
        try:
            while True:
                finished = self._run_once(job)
                with self._lock:
                    if not (finished and job.rerun and not job.cancel.is_set()):
                        break
                    job.rerun = False
                    job.force = False
                    job.paths, job.rerun_paths = job.rerun_paths, None
                    job.from_watcher = job.paths is not None
                    job.started = time.monotonic()
        except BaseException as error:  # noqa: BLE001 - a job thread must never die silently
            with self._lock:
                self._state = "failed"
                self._errors = (*self._errors, f"{type(error).__name__}: {error}")
                self._message = f"indexing failed: {error}"
        finally:
            with self._lock:
                self._job = None
                self._job_ended.notify_all()

    def _run_once(self, job: Job) -> bool:
        """One update, retried while another process holds the writer lock.

        Returns True when the index is in line with the disk (updated or nothing to do).
        """
        while True:
            if job.cancel.is_set():
                self._finish(job, "cancelled", "indexing cancelled before it started")
                return False
            with self._lock:
                clean, held = self._clean, self._held
            plan = self._plan(job, clean, held)
            if plan is None:
                with self._lock:
                    self._state = "ready" if self.writer.exists else "not_indexed"
                    self._message = "no indexed file changed"
                return True
            if job.from_watcher and plan.changed <= len(plan.hold) and not plan.deleted:
                with self._lock:
                    self._held = plan.hold
                    self._state = "ready"
                    self._message = held_message(plan.hold)
                return True
            try:
                report = self._update(job, plan)
            except IndexLockedError as error:
                with self._lock:
                    self._state = "waiting"
                    self._message = f"being indexed by another process; waiting. {error}"
                job.cancel.wait(self.lock_retry)
                continue
            except CancelledError as error:
                self._finish(job, "cancelled", str(error))
                return False
            except Exception as error:  # noqa: BLE001 - reported in the status, not raised
                self._finish(job, "failed", f"indexing failed: {type(error).__name__}: {error}",
                             errors=(f"{type(error).__name__}: {error}",))
                return False
            with self._lock:
                # Without `hold` support the update re-indexed the broken files as they are.
                self._held = plan.hold if self._supports_hold else frozenset()
                self._last_sync = time.time()
            summary = (
                f"indexed: {report.files_added} added, {report.files_changed} changed,"
                f" {report.files_deleted} deleted, {report.files_unchanged} unchanged files;"
                f" {report.chunks_embedded} chunks embedded in {report.elapsed:.1f} s"
            )
            if plan.hold and self._supports_hold:
                summary += "; " + held_message(plan.hold)
            self._finish(job, "ready", summary, errors=tuple(report.errors))
            return True

    def _update(self, job: Job, plan: Plan) -> UpdateReport:
        extra: dict[str, Any] = {}
        if plan.hold and self._supports_hold:
            extra["hold"] = sorted(plan.hold)
        with self._lock:
            self._state = "indexing"
            self._message = "rebuilding the index" if job.force else "indexing"
        if plan.scope is not None:
            extra["paths"] = sorted(plan.scope)
        return self.writer.update(
            progress=lambda progress: self._on_progress(job, progress),
            cancel=job.cancel,
            embed=self.embed,
            force=job.force,
            **extra,
        )

    def _finish(
        self, job: Job, state: str, message: str, *, errors: tuple[str, ...] = ()
    ) -> None:
        with self._lock:
            self._state = state
            self._message = message
            self._errors = errors
            self._last_elapsed = time.monotonic() - job.started
            self._clean = state == "ready"
        self._write_progress(job, state)

    def _on_progress(self, job: Job, progress: Progress) -> None:
        with self._lock:
            self._progress = progress
            if self._state != "cancelling":
                self._state = "indexing"
        now = time.monotonic()
        if now - self._progress_written >= PROGRESS_WRITE_SECONDS or progress.phase == "done":
            self._progress_written = now
            self._write_progress(job, "indexing")

    def _write_progress(self, job: Job, state: str) -> None:
        write_progress(self.index_dir, self._progress, state, job.started)
