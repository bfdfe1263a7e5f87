"""Probe: does a file's centroid vector (the mean of its chunks' vectors) tell which file a
question about a topic is about? Post-processes sharc's own hybrid top 60 on the repository
benchmark's dev repositories: each file scores its best result plus `lift` times its
centroid's similarity to the query (min-max over the files listed), and the files are ranked
by that. `lift` 0 is the same post-processing without it (the baseline of the comparison).

    python -m benches.quality.file_centroids --lifts 0,0.1,0.2,0.4
"""

from __future__ import annotations

import argparse
import math
import sqlite3
from pathlib import Path

import numpy as np

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import CATEGORIES, load_repos, unpack


def centroids(index_dir: Path) -> dict[str, np.ndarray]:
    from sharc.vectors import VectorStore

    with sqlite3.connect(index_dir / "manifest.sqlite") as db:
        rows = db.execute("SELECT key, path, tier FROM chunks").fetchall()
    store = VectorStore.load(index_dir / "vectors.usearch")
    by_file: dict[str, list[int]] = {}
    for key, path, tier in rows:
        if tier in (1, 4):  # code
            by_file.setdefault(path, []).append(key)
    found = {}
    for path, keys in by_file.items():
        _, vectors = store.vectors(np.array(keys, dtype=np.uint64))
        if len(vectors) == 0:
            continue
        mean = vectors.mean(axis=0)
        found[path] = mean / (np.linalg.norm(mean) + 1e-9)
    return found


def ndcg(files: list[str], wanted: set[str]) -> float:
    gains = [1 if f in wanted else 0 for f in files[:10]]
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(10, len(wanted))))
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / ideal


def main() -> int:
    import sharc

    parser = argparse.ArgumentParser()
    parser.add_argument("--lifts", default="0,0.1,0.2,0.4")
    parser.add_argument("--repos", default="")
    parser.add_argument("--depth", type=int, default=60)
    args = parser.parse_args()
    lifts = [float(x) for x in args.lifts.split(",")]
    cache = data_dir() / "index-cache" / "repos"
    per_query: dict[float, dict[str, float]] = {lift: {} for lift in lifts}
    category: dict[str, str] = {}
    repo_of: dict[str, str] = {}
    names = [n for n in args.repos.split(",") if n]
    for repo in load_repos("dev", names):
        index = sharc.Index.open(unpack(repo), index_dir=cache / repo.name)
        if not index.exists:
            continue
        means = centroids(cache / repo.name)
        embedder = index.embedder()
        for query in repo.queries:
            results = list(index.search(query.text, limit=args.depth, max_per_file=None))
            best: dict[str, float] = {}
            for r in results:
                path = metrics.normalize_path(r.path)
                best[path] = max(best.get(path, 0.0), r.score)
            vector = np.asarray(embedder.embed_queries([query.text])[0], dtype=np.float32)
            vector /= np.linalg.norm(vector) + 1e-9
            sims = {p: float(means[p] @ vector) if p in means else 0.0 for p in best}
            low, high = min(sims.values(), default=0), max(sims.values(), default=1)
            spread = (high - low) or 1.0
            top = max(best.values(), default=1.0)
            wanted = {metrics.normalize_path(t.path) for t in query.targets}
            for lift in lifts:
                applied = 0.0 if query.category == "symbol" else lift
                scored = {p: s + applied * top * (sims[p] - high) for p, s in best.items()}
                files = sorted(scored, key=lambda p: -scored[p])
                per_query[lift][query.id] = ndcg(files, wanted)
            category[query.id] = query.category
            repo_of[query.id] = repo.name
    ids = sorted(category)
    base = per_query[lifts[0]]
    for lift in lifts:
        row = per_query[lift]
        cats = {}
        for c in CATEGORIES:
            vals = [row[i] for i in ids if category[i] == c]
            cats[c] = 100 * sum(vals) / max(1, len(vals))
        mean, low, high = metrics.paired_bootstrap([row[i] for i in ids], [base[i] for i in ids])
        print(f"lift {lift:4.2f}: all {100 * sum(row.values()) / len(row):5.1f} "
              + " ".join(f"{c[:4]} {v:5.1f}" for c, v in cats.items())
              + f" | vs {lifts[0]} {mean:+.1f} [{low:+.1f}, {high:+.1f}]", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
