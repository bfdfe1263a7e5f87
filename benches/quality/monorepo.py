"""The repository benchmark's dev questions asked over one index of all 25 dev repositories.

A monorepo's index holds far more vectors than any one repository's (54,652 against at most
9,216), so its semantic arm is searched through the HNSW graph, not exactly (an index of more
than `sharc.vectors.DEFAULT_EXACT_THRESHOLD` vectors), and questions that fit several projects
compete across them. Each dev question keeps its targets, under its repository's directory.

Measured per search mode, file NDCG@10 (the mean over repositories, and per category, as the
repository benchmark reads it), and for the semantic arm how the vectors are searched: the
graph at the default width (at least `sharc.vectors.SEARCH_EXPANSION` candidates) against
usearch's own width (as many as the results asked for) and against an exact search (what an
index under the threshold gets), with the paired bootstrap interval over questions, the share
of the exact 100 nearest each width finds, and what each costs in time (a warm hybrid search,
the three taking turns).

    python -m benches.quality.monorepo       # -> results/quality_monorepo.json
    python -m benches.quality.monorepo --split test   # held out -> quality_monorepo_test.json

The tree is the dev repositories copied side by side into `benches/data/union/`; its index is
kept in `benches/data/index-cache/union/` (building it embeds every chunk: about half an hour
on 2 cores, once).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.provenance import git_commit, machine
from benches.quality.repos import CATEGORIES, DEPTH, Repo, RepoQuery, load_repos, score, unpack
from benches.speed.common import exact_up_to, hnsw_width

RESULTS = Path(__file__).resolve().parents[1] / "results"

#: The search modes scored, and the widths of the semantic arm's HNSW search compared.
MODES = ("hybrid", "keyword", "semantic")
NARROW = 0  # usearch's own width: as many candidates as results asked for

#: How the vectors are searched, beside the default: usearch's own width, and exactly.
SEARCHES = {
    "usearch_width": lambda: hnsw_width(NARROW),
    "exact": lambda: exact_up_to(1 << 62),
}


def union_tree(repos: Sequence[Repo], root: Path) -> Path:
    """`root` holding a copy of each repository's tree under its name (copied once)."""
    root.mkdir(parents=True, exist_ok=True)
    for repo in repos:
        target = root / repo.name
        if not target.is_dir():
            shutil.copytree(unpack(repo), target, symlinks=True)
    return root


def rooted(query: RepoQuery, directory: str) -> RepoQuery:
    """`query` with its targets under `directory`, as they lie in the union tree."""
    targets = tuple(dataclasses.replace(t, path=f"{directory}/{t.path}") for t in query.targets)
    return dataclasses.replace(query, targets=targets)


def ask_all(index: Any, repos: Sequence[Repo], mode: str) -> dict[str, tuple[str, str, float]]:
    """Each question's repository, category and file NDCG@10 over the union index."""
    return {
        query.id: (repo.name, query.category, score(
            rooted(query, repo.name), list(index.search(query.text, limit=DEPTH, mode=mode))
        ).file_ndcg)
        for repo in repos
        for query in repo.queries
    }


def summary(scored: dict[str, tuple[str, str, float]]) -> dict[str, float]:
    """File NDCG@10 in percent: the mean over repositories, overall and per category asked."""

    def over_repos(category: str | None) -> float | None:
        per_repo: dict[str, list[float]] = {}
        for repo, kind, value in scored.values():
            if category is None or kind == category:
                per_repo.setdefault(repo, []).append(value)
        means = [sum(values) / len(values) for values in per_repo.values()]
        return round(100 * sum(means) / len(means), 2) if means else None

    every = {"all": over_repos(None), **{c: over_repos(c) for c in CATEGORIES}}
    return {name: value for name, value in every.items() if value is not None}


def vector_recall(index: Any, repos: Sequence[Repo], index_dir: Path) -> dict[str, float]:
    """The share of each question's exact 100 nearest vectors that the HNSW search finds, at
    each width (the mean over every 4th dev question)."""
    from sharc.vectors import VectorStore

    texts = [q.text for repo in repos for q in repo.queries][::4]
    vectors = index.embedder().embed_queries(texts)
    graph = VectorStore.load(index_dir / "vectors.usearch", view=True, exact_threshold=0)
    exact = VectorStore.load(index_dir / "vectors.usearch", view=True, exact_threshold=1 << 62)
    recall = {}
    for name, width in (("usearch_width", NARROW), ("default_width", None)):
        shares = []
        for vector in vectors:
            nearest = {key for key, _ in exact.search(vector, 100)}
            with hnsw_width(width) if width is not None else contextlib.nullcontext():
                found = {key for key, _ in graph.search(vector, 100)}
            shares.append(len(nearest & found) / 100)
        recall[name] = round(100 * float(np.mean(shares)), 1)
    return recall


def search_latency(index: Any, repos: Sequence[Repo], rounds: int = 3) -> dict[str, float]:
    """Warm p50 of a hybrid search (limit 10) each way the vectors are searched, over every
    8th dev question, the ways taking turns question by question (each question searched once
    first, untimed), and the median of the per-search ratio of the default to each other."""
    texts = [q.text for repo in repos for q in repo.queries][::8]
    ways = {"default_width": contextlib.nullcontext, **SEARCHES}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for text in texts:
        index.search(text)
        for round_ in range(rounds):
            names = list(ways)[round_ % len(ways):] + list(ways)[: round_ % len(ways)]
            for name in names:
                with ways[name]():
                    started = time.perf_counter()
                    index.search(text)
                    seconds[name].append(time.perf_counter() - started)
    default = np.array(seconds["default_width"])
    return {
        **{f"{name}_p50_ms": round(1000 * float(np.median(values)), 2)
           for name, values in seconds.items()},
        "median_ratio": round(float(np.median(default / np.array(seconds["usearch_width"]))), 3),
        "exact_median_ratio": round(float(np.median(np.array(seconds["exact"]) / default)), 3),
        "searches": len(default),
    }


def run(index_dir: Path, tree: Path, split: str = "dev") -> dict[str, Any]:
    import sharc
    import sharc.vectors

    repos = load_repos(split)
    index = sharc.Index.open(union_tree(repos, tree), index_dir=index_dir)
    index.update(compact=True)  # one vector file, no tombstones: searched as a fresh index is
    scored = {mode: ask_all(index, repos, mode) for mode in MODES}
    others = {}
    for way, searched in SEARCHES.items():
        with searched():
            others[way] = {mode: ask_all(index, repos, mode) for mode in ("hybrid", "semantic")}
    ids = list(scored["hybrid"])
    stats = index.stats()

    def paired(new: dict, base: dict) -> list[float]:
        difference = metrics.paired_bootstrap([new[i][2] for i in ids], [base[i][2] for i in ids])
        return [round(v, 2) for v in difference]

    widths = {
        mode: {
            "usearch_width": summary(others["usearch_width"][mode]),
            "default_against_usearch_width": paired(scored[mode], others["usearch_width"][mode]),
            "exact": summary(others["exact"][mode]),
            "exact_against_default": paired(others["exact"][mode], scored[mode]),
        }
        for mode in ("hybrid", "semantic")
    }
    return {
        "benchmark": "monorepo",
        "split": split,
        "date": dt.date.today().isoformat(),
        "git": git_commit(),
        "machine": machine(),
        "index": {"repositories": len(repos), "files": stats.files, "chunks": stats.chunks,
                  "search_expansion": sharc.vectors.SEARCH_EXPANSION,
                  "exact_threshold": sharc.vectors.DEFAULT_EXACT_THRESHOLD,
                  "build_expansion": sharc.vectors.BUILD_EXPANSION},
        "queries": len(ids),
        "modes": {mode: summary(values) for mode, values in scored.items()},
        "hnsw_width": widths,
        "vector_recall_at_100": vector_recall(index, repos, index_dir),
        "search_latency": search_latency(index, repos),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev",
                        help="the dev repositories (tuned on), or the held-out ones")
    parser.add_argument("--out", type=Path, help="default: results/quality_monorepo[_test].json")
    parser.add_argument("--index-dir", type=Path, help="default: data/index-cache/union[-test]")
    parser.add_argument("--tree", type=Path, help="default: data/union[-test]")
    args = parser.parse_args(argv)
    suffix = "" if args.split == "dev" else "-test"
    out = args.out or RESULTS / f"quality_monorepo{suffix.replace('-', '_')}.json"
    index_dir = args.index_dir or data_dir() / "index-cache" / f"union{suffix}"
    result = run(index_dir, args.tree or data_dir() / f"union{suffix}", args.split)
    out.write_text(json.dumps(result, indent=1) + "\n")
    shown = ("modes", "hnsw_width", "vector_recall_at_100", "search_latency")
    json.dump({k: result[k] for k in shown},
              sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
