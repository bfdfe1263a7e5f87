"""Indexing on Ray (`sharc.distributed`) against the in-process build, and a simulated scale-out.

1. Overhead: a full build of `--tree` in-process, then on a local Ray cluster with one
   embedding actor, then with two (the real model), in the same run; the cluster is started
   before the clocks (a cluster runs for many builds), each actor's model load is inside them.
2. Scale-out: the same pipeline with N = 1, 2, 4, 8 actors whose encoder is a timed stand-in
   (`StandInEncoder`: `--seconds-per-1k-tokens` of sleep per batch, tokens counted as
   characters / 4, deterministic vectors), on `--scale-tree`, and once with a stand-in that
   takes no time: what the driver alone (journal, usearch, Ray's round trips) can take. The
   embedding rate is timed from the first embedding progress report (actors started, models
   loaded) to the last.

    python -m benches.speed.distributed [--tree benches/data/repos/attrs]
        [--scale-tree benches/data/repos/moshi] [--out benches/results/speed_distributed.json]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benches.speed.common import REPO, RESULTS, machine, write_result

CLUSTER_CPUS = 2
ACTOR_COUNTS = (1, 2, 4, 8)


class StandInEncoder:
    """An encoder that sleeps as a real one computes: `seconds_per_1k_tokens` per thousand
    tokens of a batch (characters / 4); its vectors are a hash of the text."""

    def __init__(
        self, model: str | None, *, device: str, model_id: str, dimension: int,
        seconds_per_1k_tokens: float,
    ) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self.seconds_per_1k_tokens = seconds_per_1k_tokens

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        tokens = sum(len(text) for text in texts) / 4
        time.sleep(self.seconds_per_1k_tokens * tokens / 1000)
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            row = np.random.default_rng(seed).standard_normal(self.dimension)
            rows.append(row / np.linalg.norm(row))
        return np.asarray(rows, dtype=np.float32)


class _EmbeddingClock:
    """Progress callback: when embedding started and ended, and how many chunks."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.last: float | None = None
        self.chunks = 0

    def __call__(self, progress: Any) -> None:
        if progress.phase == "embedding":
            now = time.perf_counter()
            self.first = now if self.first is None else self.first
            self.last = now
            self.chunks = progress.chunks_done

    @property
    def rate(self) -> float:
        assert self.first is not None and self.last is not None
        return self.chunks / (self.last - self.first)


def build(tree: Path, index_dir: Path, executor: Any = None) -> tuple[float, Any, _EmbeddingClock]:
    from sharc.index import Index

    shutil.rmtree(index_dir, ignore_errors=True)
    clock = _EmbeddingClock()
    index = Index.open(tree, index_dir=index_dir)
    started = time.perf_counter()
    report = index.update(executor=executor, progress=clock)
    return time.perf_counter() - started, report, clock


def overhead(tree: Path, work: Path) -> dict[str, Any]:
    from sharc.distributed import RayExecutor

    local_s, local, _ = build(tree, work / "local")
    one_s, one, _ = build(tree, work / "ray1", RayExecutor(actors=1))
    two_s, two, _ = build(tree, work / "ray2", RayExecutor(actors=2))
    assert local.chunks_embedded == one.chunks_embedded == two.chunks_embedded > 0
    return {
        "tree": str(tree.relative_to(REPO)),
        "chunks_embedded": local.chunks_embedded,
        "in_process_s": round(local_s, 2),
        "ray_1_actor_s": round(one_s, 2),
        "ray_2_actors_s": round(two_s, 2),
        "ray_1_actor_overhead": round(one_s / local_s - 1, 3),
        "ray_2_actors_speedup_vs_1": round(one_s / two_s, 3),
    }


def scale_out(tree: Path, work: Path, seconds_per_1k_tokens: float) -> dict[str, Any]:
    from functools import partial

    from sharc.distributed import RayExecutor
    from sharc.model_config import expected_model_id, model_config

    identity = {
        "model_id": expected_model_id(None, device="auto", remembered=None),
        "dimension": model_config(None)[0].dimension,
    }
    rows = []
    for seconds, counts in ((0.0, (1,)), (seconds_per_1k_tokens, ACTOR_COUNTS)):
        for count in counts:
            factory = partial(StandInEncoder, seconds_per_1k_tokens=seconds, **identity)
            executor = RayExecutor(actors=count, actor_cpus=CLUSTER_CPUS / 8, load_embedder=factory)
            wall, report, clock = build(tree, work / f"scale{count}-{seconds}", executor)
            assert report.chunks_embedded == clock.chunks > 0 and not report.errors
            rows.append({
                "actors": count, "seconds_per_1k_tokens": seconds,
                "chunks_embedded": report.chunks_embedded, "wall_s": round(wall, 2),
                "embedding_s": round(clock.chunks / clock.rate, 2),
                "chunks_per_s": round(clock.rate, 1),
            })
            print(rows[-1], flush=True)
    return {"tree": str(tree.relative_to(REPO)), "runs": rows}


def main(argv: list[str] | None = None) -> int:

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=REPO / "benches/data/repos/attrs")
    parser.add_argument("--scale-tree", type=Path, default=REPO / "benches/data/repos/moshi")
    parser.add_argument("--seconds-per-1k-tokens", type=float, default=0.02)
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_distributed.json")
    args = parser.parse_args(argv)

    import ray

    # The stand-in encoder is this module's: the workers import it from the repository.
    ray.init(num_cpus=CLUSTER_CPUS, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    result: dict[str, Any] = {"machine": machine(), "cluster_cpus": CLUSTER_CPUS}
    with tempfile.TemporaryDirectory(prefix="sharc-distributed-") as work:
        if not args.skip_overhead:
            result["overhead"] = overhead(args.tree.resolve(), Path(work))
            print(result["overhead"], flush=True)
        result["scale_out"] = scale_out(
            args.scale_tree.resolve(), Path(work), args.seconds_per_1k_tokens
        )
    ray.shutdown()
    write_result(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
