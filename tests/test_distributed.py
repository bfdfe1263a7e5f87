"""Indexing on a Ray cluster (`sharc.distributed`): the same index as a local build, workers
that die, a driver that stops or is killed, a cluster that cannot be reached. One local cluster of 2 CPUs
for the module; the real model, usearch and tantivy."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import sharc
from sharc.errors import CancelledError, ClusterError
from sharc.index import Index

FIXTURES = Path(__file__).parent / "fixtures"
QUERIES = (
    "parse the configuration file",
    "send a notification email",
    "add a task to the board",
    "render the web page",
    "TaskBoard",
)
BATCH = 8  # chunks per embedding batch: several batches even on the small repository


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (make test-ray)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("distributed") / "repo"
    shutil.copytree(FIXTURES / "repo_small", target)
    return target


@pytest.fixture(scope="module")
def local(repo: Path) -> Index:
    index = Index.open(repo, index_dir=repo.parent / "local")
    index.update()
    return index


def _executor(**options: object) -> sharc.distributed.RayExecutor:
    from sharc.distributed import RayExecutor

    return RayExecutor(batch_chunks=BATCH, **options)  # type: ignore[arg-type]


def _embeddable(index: Index) -> int:
    """The chunks the policy embeds (a file's preamble lines are keyword-only)."""
    stats = index.stats()
    return stats.chunks - stats.keyword_only_chunks


def _records(index: Index) -> list[tuple[object, ...]]:
    with sqlite3.connect(index.index_dir / "manifest.sqlite") as connection:
        return connection.execute(
            "SELECT id, key, path, kind, symbol, fqn, start_line, end_line, header, code,"
            " vector_key FROM chunks ORDER BY id"
        ).fetchall()


def _vectors(index: Index) -> dict[int, np.ndarray]:
    from sharc.vectors import VectorStore

    store = VectorStore.load(index.index_dir / "vectors.usearch")
    keys, matrix = store.vectors(store.keys())
    return {int(key): row.astype(np.float32) for key, row in zip(keys, matrix)}


def _assert_same_index(built: Index, local: Index) -> None:
    assert _records(built) == _records(local)  # ids, texts, keys: so the keyword documents too
    built_vectors, local_vectors = _vectors(built), _vectors(local)
    assert built_vectors.keys() == local_vectors.keys()
    assert len(built_vectors) == _embeddable(built) > 20
    for key, vector in local_vectors.items():
        other = built_vectors[key]
        cosine = vector @ other / (np.linalg.norm(vector) * np.linalg.norm(other))
        assert cosine > 0.999, key
    for query in QUERIES:
        for mode in ("hybrid", "semantic", "keyword"):
            ours = [(hit.id, round(hit.score, 3)) for hit in built.search(query, mode=mode)]
            theirs = [(hit.id, round(hit.score, 3)) for hit in local.search(query, mode=mode)]
            assert ours == theirs, (query, mode)


def test_a_ray_build_is_the_local_build(
    cluster: object, repo: Path, local: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.embedding import load_embedder
    from sharc.vectors import BUILD_EXPANSION, VectorStore

    widths: dict[int, set[int]] = {}  # how widely the driver links each model's vectors
    upsert = VectorStore.upsert

    def recording(store: VectorStore, keys: object, vectors: np.ndarray) -> None:
        widths.setdefault(store.dimension, set()).add(store.link_width)
        upsert(store, keys, vectors)  # type: ignore[arg-type]

    monkeypatch.setattr(VectorStore, "upsert", recording)
    progress: list[sharc.Progress] = []
    index = Index.open(repo, index_dir=repo.parent / "ray")
    report = index.update(executor=_executor(), progress=progress.append)
    assert not report.errors
    # The default model's vectors linked widely, the fast model's at usearch's width.
    fast, default = load_embedder("fast").dimension, load_embedder().dimension
    assert widths == {fast: {128}, default: {BUILD_EXPANSION}}
    assert report.chunks_embedded == _embeddable(index)
    _assert_same_index(index, local)
    phases = {p.phase for p in progress}
    assert {"chunking", "embedding", "done"} <= phases
    assert all(p.workers >= 1 for p in progress)
    embedding = [p for p in progress if p.phase == "embedding"]
    assert embedding[-1].chunks_done == embedding[-1].chunks_total == report.chunks_embedded
    # A second update with nothing changed starts no worker and changes nothing.
    again = index.update(executor=_executor())
    assert again.chunks_embedded == again.chunks_added == 0


class CountingEmbedder:
    """The real model, writing the size of each batch it embeds to `log` (one line each):
    what every actor embedded, the ones killed included."""

    def __init__(self, model: str | None, *, device: str, log: str) -> None:
        from sharc.embedding import load_embedder

        self._embedder = load_embedder(model, device=device)
        self.model_id, self.dimension = self._embedder.model_id, self._embedder.dimension
        self._log = log

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        vectors = self._embedder.embed_documents(texts)
        with open(self._log, "a") as log:
            log.write(f"{len(texts)}\n")
        return vectors


def test_a_killed_worker_costs_only_its_batch(
    cluster: object, repo: Path, local: Index, tmp_path: Path
) -> None:
    from functools import partial

    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests
    log = tmp_path / "embedded.log"
    executor = _executor(load_embedder=partial(CountingEmbedder, log=str(log)))
    killed: list[int] = []

    def kill_once(progress: sharc.Progress) -> None:
        pool = executor._pool
        default = progress.phase == "embedding" and progress.vectors == "default"
        if default and progress.chunks_done and not killed:
            assert pool is not None
            killed.append(pool.pids[0])
            os.kill(pool.pids[0], signal.SIGKILL)

    index = Index.open(repo, index_dir=repo.parent / "killed")
    report = index.update(executor=executor, progress=kill_once)
    assert killed, "the update embedded in one batch; nothing was killed"
    assert not report.errors
    # Ray restarted the actor, which ran the batches it held again: each journaled once.
    assert report.chunks_embedded == _embeddable(index)
    _assert_same_index(index, local)
    # What the kill cost: at most the batches the actor held (two in flight per actor).
    embedded = sum(int(line) for line in log.read_text().split())
    assert report.chunks_embedded <= embedded <= report.chunks_embedded + 2 * BATCH


def test_a_worker_gone_for_good_leaves_its_batches_to_the_others(
    cluster: object, repo: Path, local: Index
) -> None:
    executor = _executor(actors=2, max_restarts=0)
    killed: list[int] = []
    alive: list[int] = []

    def kill_once(progress: sharc.Progress) -> None:
        pool = executor._pool
        default = progress.phase == "embedding" and progress.vectors == "default"
        if default and progress.chunks_done and not killed:
            assert pool is not None
            killed.append(pool.pids[0])
            os.kill(pool.pids[0], signal.SIGKILL)
        if progress.phase == "embedding":
            alive.append(progress.workers)

    index = Index.open(repo, index_dir=repo.parent / "gone")
    report = index.update(executor=executor, progress=kill_once)
    assert killed and not report.errors
    assert alive[0] == 2 and alive[-1] == 1  # the progress counts the workers alive
    assert report.chunks_embedded == _embeddable(index)
    _assert_same_index(index, local)


class RenamedEmbedder(CountingEmbedder):
    """The real model under another id: as a GPU worker's model may be named otherwise than
    the driver expected (no int8 copy there)."""

    def __init__(self, model: str | None, *, device: str, log: str) -> None:
        super().__init__(model, device=device, log=log)
        self.model_id += "-renamed"


def test_a_model_named_otherwise_keys_every_chunk_again(
    cluster: object, repo: Path, tmp_path: Path
) -> None:
    from functools import partial

    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    factory = partial(RenamedEmbedder, log=str(tmp_path / "embedded.log"))
    # Two actors hold both CPUs: chunking again must not wait on them.
    executor = _executor(actors=2, load_embedder=factory)
    index = Index.open(repo, index_dir=repo.parent / "renamed")
    report = index.update(executor=executor)
    assert not report.errors
    assert index.stats().embedded_chunks == _embeddable(index) > 20
    with sqlite3.connect(index.index_dir / "manifest.sqlite") as connection:
        (settings,) = connection.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
    assert '-renamed"' in settings


def test_a_stopped_driver_resumes_without_embedding_again(
    cluster: object, repo: Path, local: Index
) -> None:
    index = Index.open(repo, index_dir=repo.parent / "resumed")
    journaled: list[int] = []

    def stop_after_a_batch(progress: sharc.Progress) -> None:
        default = progress.phase == "embedding" and progress.vectors == "default"
        if default and progress.chunks_done:
            journaled.append(progress.chunks_done)

    with pytest.raises(CancelledError):
        index.update(executor=_executor(), progress=stop_after_a_batch,
                     cancel=lambda: bool(journaled))
    first = journaled[0]
    assert 0 < first < local.stats().chunks
    report = index.update(executor=_executor())
    assert report.chunks_embedded == _embeddable(local) - first
    _assert_same_index(index, local)


KILLED_DRIVER = f"""
import sys
from sharc.distributed import RayExecutor
from sharc.index import Index
Index.open(sys.argv[1], index_dir=sys.argv[2]).update(
    executor=RayExecutor(sys.argv[3], batch_chunks={BATCH})
)
"""


def test_a_killed_driver_resumes_from_the_journal(
    cluster: object, repo: Path, local: Index
) -> None:
    import subprocess
    import time

    index_dir = repo.parent / "killed-driver"
    address = cluster.get_runtime_context().gcs_address  # type: ignore[attr-defined]
    driver = subprocess.Popen(
        [sys.executable, "-c", KILLED_DRIVER, str(repo), str(index_dir), address]
    )
    journal = index_dir / "manifest.sqlite"
    deadline = time.monotonic() + 240
    while driver.poll() is None and time.monotonic() < deadline:
        if journal.exists() and _journaled(journal):
            driver.kill()  # SIGKILL: no cleanup at all
            break
        time.sleep(0.02)
    assert driver.wait() == -signal.SIGKILL, "the driver finished before a batch was journaled"
    journaled = _journaled(journal)
    assert 0 < journaled < local.stats().chunks
    index = Index.open(repo, index_dir=index_dir)
    report = index.update(executor=_executor())
    assert report.chunks_embedded == _embeddable(local) - journaled
    _assert_same_index(index, local)


def _journaled(manifest: Path) -> int:
    try:
        with sqlite3.connect(f"file:{manifest}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT count(*) FROM vectors").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_an_unreachable_cluster_changes_nothing(cluster: object, repo: Path, local: Index) -> None:
    before = (local.index_dir / "manifest.sqlite").read_bytes()
    with pytest.raises(ClusterError, match="cannot reach the Ray cluster at 127.0.0.1:9"):
        local.update(force=True, executor=_executor(address="127.0.0.1:9"))
    assert (local.index_dir / "manifest.sqlite").read_bytes() == before
    fresh = Index.open(repo, index_dir=repo.parent / "never")
    with pytest.raises(ClusterError):
        fresh.update(executor=_executor(address="127.0.0.1:9"))
    assert not fresh.index_dir.exists()


def test_cli_indexes_on_ray(cluster: object, repo: Path, local: Index) -> None:
    from sharc.cli import main

    index_dir = repo.parent / "cli"
    assert main(["index", str(repo), "--index-dir", str(index_dir), "--ray"]) == 0
    assert _records(Index.open(repo, index_dir=index_dir)) == _records(local)


def test_cli_without_ray_says_how_to_get_it(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from sharc.cli import main

    monkeypatch.setitem(__import__("sys").modules, "ray", None)  # as if not installed
    index_dir = tmp_path / "index"
    assert main(["index", str(small_repo), "--index-dir", str(index_dir), "--ray"]) != 0
    err = capsys.readouterr().err
    assert "ray" in err and "pip install 'sharc[ray]'" in err
    assert not index_dir.exists()
