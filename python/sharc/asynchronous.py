"""`await index.asearch(...)` and `await index.aupdate(...)`: `Index` for asyncio services.

Both run the synchronous method in a worker thread (the loop's default executor), so the event
loop goes on serving while a search or an update works; the Rust core, tantivy, usearch and
ONNX Runtime release the GIL around their heavy work.

Cancelling the task that awaits `aupdate` sets the update's cancel event, then waits (without
blocking the loop) until the writer has stopped at its next check, a batch of files or of
embeddings later: when `asyncio.CancelledError` reaches the caller, the index is in its last
committed state and the writer lock is free. A cancelled `asearch` returns at once; the search
itself (milliseconds) finishes in its thread and is dropped.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from sharc.search_types import SearchMode, SearchResponse
    from sharc.update_types import UpdateReport
    from sharc.vector_reader import VectorChoice


class AsyncIndexMethods:
    """The asyncio half of `sharc.Index` (a mixin: `Index` holds the synchronous methods)."""

    if TYPE_CHECKING:
        search: Callable[..., SearchResponse]
        update: Callable[..., UpdateReport]

    async def asearch(
        self,
        query: str,
        *,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        extensions: Sequence[str] = (),
        languages: Sequence[str] = (),
        path_prefix: str | None = None,
        path_glob: str | None = None,
        include_tests: bool | None = None,
        max_per_file: int | None = 3,
        group_by_file: bool = True,
        graph: bool = False,
        vectors: VectorChoice | None = None,
        explain: bool = False,
    ) -> SearchResponse:
        """`Index.search` in a worker thread: the event loop is never blocked."""
        import asyncio  # here: `sharc.index` is imported by every CLI command

        return await asyncio.to_thread(
            self.search, query, limit=limit, mode=mode, extensions=extensions,
            languages=languages, path_prefix=path_prefix, path_glob=path_glob,
            include_tests=include_tests, max_per_file=max_per_file,
            group_by_file=group_by_file, graph=graph, vectors=vectors, explain=explain,
        )

    async def aupdate(self, **options: Any) -> UpdateReport:
        """`Index.update` in a worker thread, with its options (`progress`, `embed`, `force`,
        `hold`, ...) but `cancel`: cancelling the awaiting task cancels the update.

        `progress` is called from the worker thread (use `loop.call_soon_threadsafe` to reach
        the loop). Raises what `update` raises; on cancellation, `asyncio.CancelledError` once
        the writer has stopped, the index keeping its last committed state.
        """
        import asyncio

        if "cancel" in options:
            raise TypeError("aupdate is cancelled by cancelling the task that awaits it")
        cancel = threading.Event()
        work = asyncio.get_running_loop().run_in_executor(
            None, functools.partial(self.update, cancel=cancel, **options)
        )
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            cancel.set()
            await _stopped(work)
            raise


async def _stopped(work: asyncio.Future[UpdateReport]) -> None:
    """Wait for a cancelled update's thread to return, through further cancellations too (the
    first one is re-raised by the caller). Its outcome, usually `sharc.CancelledError`, is
    dropped: the caller asked for the cancellation."""
    import asyncio

    while not work.done():
        try:
            await asyncio.wait({work})
        except asyncio.CancelledError:
            continue
    if not work.cancelled():
        work.exception()  # retrieved, so asyncio does not log it as never retrieved
