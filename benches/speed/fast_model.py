"""Embedding throughput: the fast model (static vectors) against the default model; and the
time to embed one query with each.

Chunks: every chunk an index would embed (default embedding policy) of the 38 repositories of
the repository benchmark (benches/data/repos, unpacked by a run of benches.quality.repos), as
``header + code``. A
seeded sample of them goes through both models in the same run, block by block in turn,
embedding alone (the models are loaded before the clock starts; the fast model starts with an
empty piece cache); the fast model then embeds every chunk, to show its rate at scale.

    python -m benches.speed.fast_model [--sample 3000] [--out benches/results/speed_fast_model.json]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from benches.speed.common import REPO, RESULTS, machine, write_result

REPOS = REPO / "benches" / "data" / "repos"
SEED = 7
BLOCK = 200


def repository_chunks(root: Path) -> list[str]:
    """``header + code`` of every chunk the default policy embeds, repositories in name order."""
    import sharc
    from sharc.embed_policy import policy_from_settings

    policy = policy_from_settings(None)
    texts: list[str] = []
    for repo in sorted(p for p in root.iterdir() if p.is_dir()):
        walked = sharc.walk(repo)
        for chunked in sharc.chunk_files(repo, walked.files, policy=policy):
            skip = chunked.keyword_only.chunk_ids if chunked.keyword_only else frozenset()
            texts.extend(c.header + c.code for c in chunked.chunks if c.id not in skip)
    return texts


def timed(embed, texts: list[str]) -> tuple[float, np.ndarray]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    vectors = embed(texts)
    return time.perf_counter() - started, vectors


def query_latency(default, queries: list[str]) -> dict:  # type: ignore[no-untyped-def]
    """p50 milliseconds to embed one query (as a search does), alternating query by query:
    the fast model's static sum alone, the fast model as shipped (mixed with its teacher's
    vector of the query, `default` serving as the teacher) and the default model alone."""
    from sharc.static_embedding import load_static_embedder

    encoders = {
        "static_sum": load_static_embedder().embed_queries,
        "fast_with_teacher": load_static_embedder(query_teacher=lambda: default).embed_queries,
        "default_model": default.embed_queries,
    }
    for embed in encoders.values():  # warm: the teacher loads, caches fill
        embed(queries[:5])
    spent: dict[str, list[float]] = {name: [] for name in encoders}
    for query in queries:
        for name, embed in encoders.items():
            started = time.perf_counter()
            embed([query])
            spent[name].append(time.perf_counter() - started)
    p50 = {name: float(np.percentile(times, 50)) * 1e3 for name, times in spent.items()}
    return {
        "queries": len(queries),
        **{f"{name}_p50_ms": round(ms, 3) for name, ms in p50.items()},
        "fast_with_teacher_vs_default_model": round(
            p50["fast_with_teacher"] / p50["default_model"], 3
        ),
    }


def benchmark_questions() -> list[str]:
    """The repository benchmark's questions, every split."""
    from benches.quality.repos import load_repos

    return [query.text for repo in load_repos("all") for query in repo.queries]


def main(argv: list[str] | None = None) -> int:
    from sharc.embedding import load_embedder, physical_cores

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=3000, help="chunks both models embed")
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_fast_model.json")
    args = parser.parse_args(argv)

    texts = repository_chunks(REPOS)
    if not texts:
        raise SystemExit(f"no chunks under {REPOS}: run python -m benches.quality.repos first")
    sample = random.Random(SEED).sample(texts, min(args.sample, len(texts)))
    print(f"{len(texts)} chunks; both models embed a sample of {len(sample)}", file=sys.stderr)

    started = time.perf_counter()
    default = load_embedder()
    default_load = time.perf_counter() - started
    started = time.perf_counter()
    fast = load_embedder("fast")
    fast_load = time.perf_counter() - started

    # Block by block, one model then the other: a machine shared with other work slows both
    # alike. The fast model's piece cache fills as it would in one index's first update.
    fast_seconds = default_seconds = 0.0
    fast_parts, default_parts = [], []
    for start in range(0, len(sample), BLOCK):
        block = sample[start : start + BLOCK]
        seconds, vectors = timed(fast.embed_documents, block)
        fast_seconds += seconds
        fast_parts.append(vectors)
        seconds, vectors = timed(default.embed_documents, block)
        default_seconds += seconds
        default_parts.append(vectors)
    fast_vectors, default_vectors = np.vstack(fast_parts), np.vstack(default_parts)
    warm_seconds, _ = timed(fast.embed_documents, sample)
    all_fast = load_embedder("fast")
    all_seconds, _ = timed(all_fast.embed_documents, texts)

    default_rate = len(sample) / default_seconds
    fast_rate = len(sample) / fast_seconds
    result = {
        "benchmark": "embedding throughput, fast model vs default model (same chunks, same run)",
        "chunks_source": "benches/data/repos (38 repositories), default embedding policy",
        "chunks_total": len(texts),
        "sample": len(sample),
        "seed": SEED,
        "threads": physical_cores(),
        "baseline": {
            "model": default.model_id,
            "load_seconds": round(default_load, 3),
            "seconds": round(default_seconds, 3),
            "chunks_per_second": round(default_rate, 1),
        },
        "fast": {
            "model": fast.model_id,
            "dimension": fast.dimension,
            "load_seconds": round(fast_load, 3),
            "seconds": round(fast_seconds, 3),
            "chunks_per_second": round(fast_rate, 1),
            "chunks_per_second_warm_cache": round(len(sample) / warm_seconds, 1),
            "all_chunks_seconds": round(all_seconds, 3),
            "all_chunks_per_second": round(len(texts) / all_seconds, 1),
        },
        "speedup": round(fast_rate / default_rate, 1),
        "speedup_at_scale": round(len(texts) / all_seconds / default_rate, 1),
        "machine": machine(),
    }
    result["query_embedding"] = query_latency(default, benchmark_questions())
    if fast.projection is not None:
        teacher = default_vectors @ fast.projection
        teacher /= np.linalg.norm(teacher, axis=1, keepdims=True)
        result["fast"]["mean_cosine_to_teacher"] = round(
            float(np.mean(np.sum(teacher * fast_vectors, axis=1))), 4
        )
    write_result(args.out, result)
    print(f"default {default_rate:.0f} chunks/s, fast {fast_rate:.0f} chunks/s"
          f" ({result['speedup']}x; {result['speedup_at_scale']}x over all {len(texts)} chunks)"
          f" -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
