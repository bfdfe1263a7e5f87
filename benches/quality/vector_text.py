"""How much of a chunk the default model should see: the first 256 tokens (what sharc embeds),
only the first 128 (a faster encoder pass), or every token, through extra vectors over the
rest of a long chunk (each window repeats the chunk's header) scored by their maximum or
pooled into one vector by their mean.

On the repository benchmark's dev repositories, every chunk is embedded each way (float
vectors, the header without its path, brute-force similarity), then each query is ranked
twice: by the semantic arm alone, and through the whole hybrid pipeline with the index's own
keyword arm (`sharc.ranking.rank_hits`). File NDCG@10, each variant against the first 256
tokens, with paired bootstrap intervals over queries:

    python -m benches.quality.vector_text \\
        --out benches/results/quality_vector_text.json     # dev only; tens of minutes

The cached indexes of `python -m benches.quality.repos` give the keyword arm and the records.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benches.quality import metrics
from benches.quality.dataset import RESULTS_DIR, data_dir
from benches.quality.repos import CATEGORIES, DEPTH, Repo, load_repos, score, unpack

CACHE = data_dir() / "vector-text"
#: Lines a window repeats from the one before, when it holds more than four times as many.
OVERLAP_LINES = 2
#: How much a later window's similarity is worth against the first window's (`max-0.02`).
LATER_WINDOW_HANDICAP = 0.02
VARIANTS = ("first-256", "first-128", "max", "max-0.02", "mean")


@dataclass
class RepoVectors:
    """Every chunk of one repository, embedded each way."""

    ids: list[str]
    spans: list[metrics.Hit]
    first: np.ndarray  # the first 256 tokens of each chunk
    short: np.ndarray  # the first 128 tokens
    rest: np.ndarray  # one row per later window
    owner: np.ndarray  # the chunk each later window belongs to

    @functools.cached_property
    def pooled(self) -> np.ndarray:
        """One vector per chunk: the normalised sum of all its windows' vectors."""
        pooled = self.first.copy()
        np.add.at(pooled, self.owner, self.rest)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    def scores(self, query: np.ndarray) -> dict[str, np.ndarray]:
        first = self.first @ query
        later = self.rest @ query
        best = first.copy()
        np.maximum.at(best, self.owner, later)
        handicapped = first.copy()
        np.maximum.at(handicapped, self.owner, later - LATER_WINDOW_HANDICAP)
        return {
            "first-256": first,
            "first-128": self.short @ query,
            "max": best,
            "max-0.02": handicapped,
            "mean": self.pooled @ query,
        }


def later_windows(tokenizer: Any, header: str, code: str, budget: int) -> list[str]:
    """The texts of a chunk's windows after the first `budget` tokens: the header, then runs
    of whole lines that fit beside it, from the line the first window stopped in."""
    encoding = tokenizer.encode(header + code, add_special_tokens=False)
    if len(encoding.ids) <= budget:
        return []
    seen = encoding.offsets[budget - 1][1] - len(header)
    lines = code.split("\n")
    starts = np.cumsum([0] + [len(line) + 1 for line in lines])
    line = max(0, int(np.searchsorted(starts, seen, side="right")) - 1)
    room = max(32, budget - len(tokenizer.encode(header, add_special_tokens=False).ids))
    sizes = [len(e.ids) + 1 for e in tokenizer.encode_batch(lines, add_special_tokens=False)]
    windows = []
    while line < len(lines):
        end, total = line, 0
        while end < len(lines) and (end == line or total + sizes[end] <= room):
            total += sizes[end]
            end += 1
        windows.append(header + "\n".join(lines[line:end]))
        if end >= len(lines):
            break
        overlap = OVERLAP_LINES if end - line > 4 * OVERLAP_LINES else 0
        line = end - overlap
    return windows


def embed_repo(repo: Repo, embedder: Any) -> RepoVectors:
    """Chunk `repo` as an index does and embed every chunk each way (cached)."""
    path = CACHE / f"{repo.name}.pkl"
    if path.exists():
        cached: RepoVectors = pickle.loads(path.read_bytes())
        return cached
    from sharc import _core

    root = unpack(repo)
    _, walked, *_ = _core.walk(root)
    ids, spans, texts, rest, owner = [], [], [], [], []
    budget = embedder.max_length - 2
    for file in _core.chunk_files(root, [(w.path, w.language) for w in walked]):
        for chunk in file.chunks:
            header = chunk.header.replace(chunk.path, "")
            ids.append(chunk.id)
            spans.append(metrics.Hit(chunk.path, chunk.start_line, chunk.end_line))
            texts.append(header + chunk.code)
            for window in later_windows(embedder._tokenizer, header, chunk.code, budget):
                rest.append(window)
                owner.append(len(ids) - 1)
    first = embedder.embed_documents(texts)
    embedder._truncating.enable_truncation(128)
    short = embedder.embed_documents(texts)
    embedder._truncating.enable_truncation(embedder.max_length)
    later = embedder.embed_documents(rest) if rest else np.zeros((0, first.shape[1]), np.float32)
    vectors = RepoVectors(ids, spans, first, short, later, np.array(owner, dtype=np.int64))
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(vectors))
    return vectors


def hybrid_ranker(index: Any) -> Callable[[str, list[tuple[str, float]]], list[Any]]:
    """Ranks a query's given semantic hits with the index's keyword arm and records."""
    from sharc.index import chunk_text
    from sharc.ranking import KEYWORD, SEMANTIC, candidate_depth, rank_hits

    manifest = index._reader_manifest()
    keyword = index._keyword_arm((), None)
    depth = candidate_depth(DEPTH, False)

    def rank(query: str, semantic: list[tuple[str, float]]) -> list[Any]:
        keyword_hits = keyword(query, depth)
        hits = {KEYWORD: keyword_hits, SEMANTIC: semantic}
        records = manifest.rank_records_by_id(sorted({i for h in hits.values() for i, _ in h}))
        best = {i: t for i, _ in keyword_hits[:1] if (t := chunk_text(manifest, i)) is not None}
        ranked = rank_hits(query, hits, lambda _ids: records, read_text=best.get)
        return [chunk for chunk, _ in ranked.candidates[:DEPTH]]

    return rank


def rank_both(
    query: Any,
    repo: str,
    scores: np.ndarray,
    chunks: tuple[Sequence[str], Sequence[metrics.Hit]],
    rank: Callable[[str, list[tuple[str, float]]], list[Any]],
    depth: int,
) -> dict[str, dict[str, Any]]:
    """A query's record per mode: the semantic arm alone ranked by `scores` (one per chunk of
    `chunks`, its ids and spans), and those hits through the hybrid pipeline (`rank`)."""
    ids, spans = chunks
    order = np.argsort(-scores)[:depth]
    alone = [spans[i] for i in order[:DEPTH]]
    hits = [(ids[i], float(scores[i])) for i in order]
    return {
        mode: {"repo": repo, "category": query.category,
               "file_ndcg": score(query, results).file_ndcg}
        for mode, results in (("semantic", alone), ("hybrid", rank(query.text, hits)))
    }


def run(
    repos: Sequence[Repo], index_cache: Path
) -> tuple[dict[str, dict[str, dict[str, Any]]], dict[str, int]]:
    """Per mode (`semantic`, `hybrid`) and variant: each query's category and file NDCG@10;
    and how many chunks and later windows were embedded."""
    import sharc
    from sharc.embedding import load_embedder
    from sharc.ranking import candidate_depth

    embedder = load_embedder()
    depth = candidate_depth(DEPTH, False)
    out: dict[str, dict[str, dict[str, Any]]] = {
        mode: {v: {} for v in VARIANTS} for mode in ("semantic", "hybrid")
    }
    counts = {"chunks": 0, "later_windows": 0, "chunks_with_later_windows": 0}
    for repo in repos:
        vectors = embed_repo(repo, embedder)
        index = sharc.Index.open(unpack(repo), index_dir=index_cache / repo.name)
        if not index.exists:
            raise SystemExit(f"no index of {repo.name}: run `python -m benches.quality.repos`")
        rank = hybrid_ranker(index)
        for query in repo.queries:
            query_vector = embedder.embed_queries([query.text])[0]
            for variant, scores in vectors.scores(query_vector).items():
                chunks = (vectors.ids, vectors.spans)
                for mode, record in rank_both(query, repo.name, scores, chunks, rank, depth).items():
                    out[mode][variant][query.id] = record
        index.close()
        counts["chunks"] += len(vectors.ids)
        counts["later_windows"] += len(vectors.rest)
        counts["chunks_with_later_windows"] += len(set(vectors.owner.tolist()))
        print(f"{repo.name:24} {len(vectors.ids)} chunks, {len(vectors.rest)} later windows",
              file=sys.stderr, flush=True)
    return out, counts


def encoding_speed(repos: Sequence[Repo], sample: int = 1500) -> dict[str, float]:
    """Chunks per second the default model encodes at 256 and at 128 tokens: the same
    shuffled sample of the repositories' chunks (path headers included, as an index embeds
    them), each length timed twice, alternating, the faster run kept."""
    import random
    import time

    from sharc import _core
    from sharc.embedding import load_embedder

    texts = []
    for repo in repos:
        root = unpack(repo)
        _, walked, *_ = _core.walk(root)
        for file in _core.chunk_files(root, [(w.path, w.language) for w in walked]):
            texts += [chunk.header + chunk.code for chunk in file.chunks]
    random.Random(0).shuffle(texts)
    texts = texts[:sample]
    embedder = load_embedder()
    embedder.embed_documents(texts[:50])  # warm up
    best: dict[str, float] = {}
    for length in (256, 128, 256, 128):
        embedder._truncating.enable_truncation(length)
        started = time.perf_counter()
        embedder.embed_documents(texts)
        rate = len(texts) / (time.perf_counter() - started)
        best[str(length)] = round(max(rate, best.get(str(length), 0.0)), 1)
    return best


def summarize(
    per_query: dict[str, dict[str, Any]], base: dict[str, Any], key: str = "vs_first_256"
) -> dict[str, Any]:
    """Mean over repositories and the paired difference with `base` (under `key`), overall
    and per category."""
    summary = {}
    for category in (None, *CATEGORIES):
        ids = [q for q, s in per_query.items() if category is None or s["category"] == category]
        repos = sorted({per_query[q]["repo"] for q in ids})
        mean = np.mean([
            np.mean([per_query[q]["file_ndcg"] for q in ids if per_query[q]["repo"] == repo])
            for repo in repos
        ])
        difference = metrics.paired_bootstrap(
            [per_query[q]["file_ndcg"] for q in ids], [base[q]["file_ndcg"] for q in ids]
        )
        summary[category or "all"] = {
            "file_ndcg": round(100 * float(mean), 1),
            key: [round(x, 1) for x in difference],
        }
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_vector_text.json")
    args = parser.parse_args(argv)
    from benches.quality.run import git_commit, machine

    per_query, counts = run(load_repos("dev"), args.index_cache)
    result = {
        "benchmark": "vector text: how much of each chunk the default model sees (dev only)",
        "date": dt.date.today().isoformat(),
        "git": git_commit(),
        "machine": machine(),
        "embedded": counts,
        "chunks_per_second_by_tokens": encoding_speed(load_repos("dev")),
        "command": "python -m benches.quality.vector_text",
        "modes": {
            mode: {v: summarize(runs[v], runs["first-256"]) for v in VARIANTS}
            for mode, runs in per_query.items()
        },
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for mode, variants in result["modes"].items():
        for variant, summary in variants.items():
            cells = "  ".join(
                f"{name} {s['file_ndcg']:5.1f} {s['vs_first_256']}" for name, s in summary.items()
            )
            print(f"{mode:8} {variant:10} {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
