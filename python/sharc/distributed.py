"""Indexing on a Ray cluster: chunking and embedding on the workers, the index written here.

The driver (this process) walks the tree and works out what changed, as a local update does
(`sharc.writer`). Then:

    changed files ──► chunk tasks (CPU, the Rust core) ──► driver: manifest + keyword steps
    chunks to embed ──► embedding actors (one model load each; a GPU each where there are
                        GPUs) ──► driver: journal, then usearch, one batch at a time

Both go out a window of batches at a time and come back in order, so the driver commits the
same steps and journals the same batches as a local build, and writes the same index (chunk
ids, texts, keyword documents; vectors within the model's numeric tolerance). The driver is
the only writer: a worker never touches the index, so a worker that dies costs its batch in
flight (Ray restarts the actor and runs the batch again), and a driver that dies loses nothing
journaled (the next update resumes from the journal).

Workers read the files themselves: the tree must be at the same path on every node (a shared
or synced checkout); with `ray.init()` on one machine it is.
"""

from __future__ import annotations

import os
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sharc.errors import ClusterError

if TYPE_CHECKING:
    from sharc._core import Chunk, WalkedFile
    from sharc.chunking import ChunkedFile
    from sharc.embed_policy import EmbedPolicy
    from sharc.manifest import ChunkRecord
    from sharc.vector_sync import Failure

INSTALL_HINT = "install sharc's ray extra: pip install 'sharc[ray]'"
CONNECT_TIMEOUT_SECONDS = 5.0
_CHUNK_FIELDS = (
    "id", "path", "language", "tier", "kind", "symbol", "fqn", "start_line", "end_line",
    "header", "text", "code",
)

Report = Callable[..., None]
EmbedderFactory = Callable[..., Any]  # (model, device=...) -> an Embedder, on a worker


class Executor(Protocol):
    """Where an update chunks and embeds (`IndexWriter(executor=...)`)."""

    def start(self, report: Report) -> Report:
        """Get ready (connect); returns `report` with the workers alive added."""

    def stop(self) -> None:
        """Release the workers."""

    def chunk_batches(
        self, root: Path, batches: Sequence[Sequence[WalkedFile]], policy: EmbedPolicy
    ) -> Iterator[list[ChunkedFile]]:
        """The chunked files of each batch, in order."""

    def embedder(self, model: str | None, *, device: str, root: Path) -> Any:
        """The model on the workers: `model_id`, `dimension`, `batch_chunks` and
        `embed_record_batches` (`sharc.vector_sync`)."""


@dataclass
class RayExecutor:
    """Chunk and embed on a Ray cluster; `Index.update(executor=RayExecutor(...))`.

    `address`: the cluster (`host:port`, `ray://host:port`, `auto`); None: the one `ray.init()`
    finds or starts, or the one this process is connected to already. `actors`: embedding
    actors (None: one per GPU, else one per node), each with `actor_cpus` CPUs, and a GPU when
    the cluster has GPUs. `batch_chunks`: chunks per embedding batch (journaled as one).
    `load_embedder`: what the actors load the model with (a picklable callable; benchmarks
    pass a timed stand-in); None: `sharc.embedding.load_embedder`.
    """

    address: str | None = None
    actors: int | None = None
    actor_cpus: float = 1.0
    batch_chunks: int = 32
    load_embedder: EmbedderFactory | None = None
    max_restarts: int = 3
    _cpus: int = field(default=1, init=False)
    _gpus: int = field(default=0, init=False)
    _nodes: int = field(default=1, init=False)
    _pool: _ActorPool | None = field(default=None, init=False)

    def start(self, report: Report) -> Report:
        ray = import_ray()
        connect(ray, self.address)
        resources = ray.cluster_resources()
        self._cpus = max(1, int(resources.get("CPU", 1)))
        self._gpus = int(resources.get("GPU", 0))
        self._nodes = max(1, sum(1 for node in ray.nodes() if node.get("Alive")))

        def with_workers(phase: str, **counts: int) -> None:
            report(phase, workers=self.workers_alive(), **counts)

        return with_workers

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.kill()
            self._pool = None

    def workers_alive(self) -> int:
        """The embedding actors alive once there are any; before, the CPUs chunk tasks use."""
        return self._pool.alive if self._pool is not None else self._cpus

    def chunk_batches(
        self, root: Path, batches: Sequence[Sequence[WalkedFile]], policy: EmbedPolicy
    ) -> Iterator[list[ChunkedFile]]:
        import ray

        # Chunking again after the actors started (the model goes by another id than the
        # chunk keys assumed): their CPUs would keep the chunk tasks waiting.
        self.stop()
        task = ray.remote(num_cpus=1, max_retries=self.max_restarts)(chunk_on_worker)
        policy_ref = ray.put(policy)
        root_text = os.fspath(root)
        requests = ([_file_fields(f) for f in batch] for batch in batches)
        for portable in ordered(
            lambda files: task.remote(root_text, files, policy_ref), requests, 2 * self._cpus
        ):
            yield [_from_portable(chunked, chunks) for chunked, chunks in portable]

    def embedder(self, model: str | None, *, device: str, root: Path) -> _RemoteEmbedder:
        key = (model, device, os.fspath(root))
        if self._pool is None or self._pool.key != key:
            self.stop()
            count = self.actors or (self._gpus or self._nodes)
            self._pool = _ActorPool.create(
                key, count, cpus=self.actor_cpus, gpu=self._gpus > 0,
                factory=self.load_embedder, max_restarts=self.max_restarts,
            )
        return _RemoteEmbedder(self._pool, self.batch_chunks)


def import_ray() -> Any:
    """The `ray` module, or a `ClusterError` that says how to install it."""
    try:
        import ray
    except ImportError as error:
        raise ClusterError(f"indexing on Ray needs the ray package; {INSTALL_HINT}") from error
    return ray


def connect(ray: Any, address: str | None) -> None:
    """Connect to the cluster at `address`; a `ClusterError` if it cannot be reached."""
    host_port = _host_port(address)
    if host_port is not None:
        # Ray itself waits a long while on an address nobody answers at.
        try:
            socket.create_connection(host_port, timeout=CONNECT_TIMEOUT_SECONDS).close()
        except OSError as error:
            raise ClusterError(
                f"cannot reach the Ray cluster at {address}: {error}"
                " (start one with `ray start --head` and pass the address it prints)"
            ) from error
    if ray.is_initialized():
        return
    options: dict[str, Any] = {"log_to_driver": False}
    if address is None and not os.environ.get("RAY_ADDRESS"):
        options["include_dashboard"] = False  # a local cluster, started here
    try:
        ray.init(address=address, **options)
    except Exception as error:  # noqa: BLE001 - Ray raises several types for "not reachable"
        raise ClusterError(f"cannot connect to the Ray cluster at {address}: {error}") from error


def _host_port(address: str | None) -> tuple[str, int] | None:
    if not address or address == "auto" or address == "local":
        return None
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return None
    return host, int(port)


def ordered(submit: Callable[[Any], Any], items: Iterable[Any], window: int) -> Iterator[Any]:
    """`submit` each item (it returns an object ref), keeping up to `window` in flight; yields
    their results in order. Closing the iterator cancels what is still in flight."""
    import ray

    in_flight: deque[Any] = deque()
    try:
        for item in items:
            in_flight.append(submit(item))
            if len(in_flight) >= window:
                yield ray.get(in_flight.popleft())
        while in_flight:
            yield ray.get(in_flight.popleft())
    finally:
        for ref in in_flight:
            _cancel(ray, ref)


def _cancel(ray: Any, ref: Any) -> None:
    try:
        ray.cancel(ref)
    except Exception:  # noqa: BLE001, S110 - already done, or an actor task Ray cannot cancel
        pass


# -- chunking ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _File:
    """A walked file as a task receives it (the core's `WalkedFile` does not pickle)."""

    path: str
    language: str
    tier: int
    size: int
    mtime_ns: int


def _file_fields(walked: WalkedFile) -> tuple[str, str, int, int, int]:
    return walked.path, walked.language, walked.tier, walked.size, walked.mtime_ns


def chunk_on_worker(
    root: str, files: list[tuple[str, str, int, int, int]], policy: EmbedPolicy
) -> list[tuple[ChunkedFile, list[tuple[Any, ...]]]]:
    """A Ray task: chunk `files` with the Rust core, as `sharc.chunking.chunk_files` does
    locally; each file's chunks as plain fields (the core's `Chunk` does not pickle)."""
    from sharc.chunking import chunk_files

    chunked = chunk_files(root, [_File(*fields) for fields in files], policy=policy)  # type: ignore[misc]
    return [(replace(c, chunks=[]), [_portable_chunk(ch) for ch in c.chunks]) for c in chunked]


def _portable_chunk(chunk: Chunk) -> tuple[Any, ...]:
    """A chunk's fields, its references as `(name, kind, line, qualifier)` (neither pickles)."""
    references = [(r.name, r.kind, r.line, r.qualifier) for r in chunk.references]
    return (*(getattr(chunk, f) for f in _CHUNK_FIELDS), references)


def _from_portable(chunked: ChunkedFile, chunks: list[tuple[Any, ...]]) -> ChunkedFile:
    from sharc._core import Chunk, Reference

    return replace(chunked, chunks=[
        Chunk(
            **dict(zip(_CHUNK_FIELDS, c[:-1])),
            references=[
                Reference(name=name, kind=kind, line=line, qualifier=qualifier)
                for name, kind, line, qualifier in c[-1]
            ],
        )
        for c in chunks
    ])


# -- embedding -----------------------------------------------------------------------------


class EmbeddingWorker:
    """A Ray actor: the model, loaded once, embedding batches of chunk records."""

    def __init__(
        self, model: str | None, device: str, root: str, factory: EmbedderFactory | None
    ) -> None:
        if factory is None:
            from sharc.embedding import load_embedder

            factory = load_embedder
        self.embedder = factory(model, device=device)
        self.root = Path(root)

    def identity(self) -> tuple[str, int, int, bool]:
        """The model's id and dimension, this worker's process id, and whether the model is
        static (`Embedder.static`)."""
        embedder = self.embedder
        return embedder.model_id, embedder.dimension, os.getpid(), getattr(embedder, "static", False)

    def embed(
        self, records: Sequence[ChunkRecord], mode: str
    ) -> tuple[list[str], Any, list[Failure]]:
        """The ids of the records embedded, their vectors, and the files that failed."""
        from sharc.vector_sync import embed_isolating

        embedded, matrix, failures = embed_isolating(self.embedder, records, mode, self.root)  # type: ignore[arg-type]
        return [r.id for r in embedded], matrix, failures


@dataclass
class _ActorPool:
    key: tuple[str | None, str, str]
    actors: list[Any]
    model_id: str
    dimension: int
    pids: list[int]
    static: bool = False

    @classmethod
    def create(
        cls,
        key: tuple[str | None, str, str],
        count: int,
        *,
        cpus: float,
        gpu: bool,
        factory: EmbedderFactory | None,
        max_restarts: int,
    ) -> _ActorPool:
        import ray

        actor_class = ray.remote(EmbeddingWorker).options(
            num_cpus=cpus, num_gpus=1 if gpu else 0,
            max_restarts=max_restarts, max_task_retries=max_restarts,
        )
        model, device, root = key
        actors = [actor_class.remote(model, device, root, factory) for _ in range(count)]
        try:
            identities = ray.get([actor.identity.remote() for actor in actors])
        except Exception:
            for actor in actors:
                ray.kill(actor)
            raise
        if len({identity[:2] for identity in identities}) != 1:
            raise ClusterError(f"the embedding workers load different models: {identities}")
        model_id, dimension, _, static = identities[0]
        pids = [identity[2] for identity in identities]
        return cls(key, actors, model_id, dimension, pids, static)

    @property
    def alive(self) -> int:
        return len(self.actors)

    def kill(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []


@dataclass
class _RemoteEmbedder:
    """The model on the pool's actors, as `sharc.vector_sync` embeds with it."""

    pool: _ActorPool
    batch_chunks: int

    @property
    def model_id(self) -> str:
        return self.pool.model_id

    @property
    def dimension(self) -> int:
        return self.pool.dimension

    @property
    def static(self) -> bool:
        return self.pool.static

    def embed_record_batches(
        self, batches: Iterable[Sequence[ChunkRecord]], mode: str, root: Path
    ) -> Iterator[tuple[Sequence[ChunkRecord], list[ChunkRecord], Any, list[Failure]]]:
        """Each batch with its records embedded, their vectors and the files that failed, in
        order; two batches in flight per actor. An actor that dies is restarted by Ray and
        runs its batch again; one gone for good leaves its batches to the others."""
        pool = self.pool
        turn = 0

        def submit(records: Sequence[ChunkRecord]) -> tuple[Sequence[ChunkRecord], Any, Any]:
            nonlocal turn
            if not pool.actors:
                raise ClusterError("every embedding worker died; the next update resumes")
            actor = pool.actors[turn % len(pool.actors)]
            turn += 1
            return records, actor, actor.embed.remote(records, mode)

        for records, ids, matrix, failures in self._results(submit, batches, 2 * pool.alive):
            by_id = {r.id: r for r in records}
            yield records, [by_id[i] for i in ids], matrix, failures

    def _results(
        self, submit: Callable[[Sequence[ChunkRecord]], tuple[Any, Any, Any]],
        batches: Iterable[Sequence[ChunkRecord]], window: int,
    ) -> Iterator[tuple[Sequence[ChunkRecord], list[str], Any, list[Failure]]]:
        import ray
        from ray import exceptions

        # Older Rays have no "unavailable" (restarting) error: it does not reach them.
        unavailable = getattr(exceptions, "ActorUnavailableError", ())

        def first_result(sent: tuple[Any, Any, Any]) -> Any:
            records, actor, ref = sent
            while True:
                try:
                    return records, *ray.get(ref)
                except unavailable:  # restarting: send the batch again
                    records, actor, ref = submit(records)
                except exceptions.RayActorError:  # out of restarts: gone for good
                    if actor in self.pool.actors:
                        self.pool.actors.remove(actor)
                    records, actor, ref = submit(records)

        yield from (first_result(sent) for sent in _ordered_sends(submit, batches, window))


def _ordered_sends(
    submit: Callable[[Sequence[ChunkRecord]], tuple[Any, Any, Any]],
    batches: Iterable[Sequence[ChunkRecord]],
    window: int,
) -> Iterator[tuple[Any, Any, Any]]:
    """The sends of `batches`, in order, up to `window` ahead of the one yielded. Closing the
    iterator cancels the sends still in flight."""
    import ray

    in_flight: deque[tuple[Any, Any, Any]] = deque()
    try:
        for records in batches:
            in_flight.append(submit(records))
            if len(in_flight) >= window:
                yield in_flight.popleft()
        while in_flight:
            yield in_flight.popleft()
    finally:
        for _, _, ref in in_flight:
            _cancel(ray, ref)
