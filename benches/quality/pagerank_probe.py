"""Probe (#27, "the centre of a topic"): file centrality from the code graph as a prior over
sharc's own top 60, on the repository benchmark's dev third only.

The graph: one node per indexed file; a reference (not an import) from a chunk of file A to a
name defined in 1-3 files adds 1 / (their number) to the edge A -> each of them. Centrality is
PageRank (damping 0.85, 30 steps) over it, either global or personalised (restarting at the
ten best files of the query's results, in proportion to their scores, as Aider's repository
map restarts at the files a chat mentions). Each result of a question in words is re-ranked
by `score * (1 + lift * c)`, `c` the file's centrality on a log scale relative to the most
central candidate file (0-1); names queries are left as they are.

    python -m benches.quality.pagerank_probe

Prints file NDCG@10 (mean over repositories) per variant, and the paired bootstrap interval
over queries against no lift.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict, namedtuple
from pathlib import Path

import numpy as np

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import load_repos, score
from benches.quality.tune_repos import open_indexes

Located = namedtuple("Located", "path start_line end_line")
LIFTS = (0.0, 0.1, 0.25, 0.5)


def file_graph(manifest: Path) -> tuple[dict[str, int], dict[tuple[int, int], float]]:
    connection = sqlite3.connect(f"file:{manifest}?mode=ro", uri=True)
    path_of = dict(connection.execute("SELECT key, path FROM chunks"))
    owners: dict[str, set[str]] = defaultdict(set)
    for path, symbol in connection.execute("SELECT path, symbol FROM chunks WHERE symbol != ''"):
        owners[symbol].add(path)
    node = {path: i for i, path in enumerate(sorted(set(path_of.values())))}
    edges: dict[tuple[int, int], float] = defaultdict(float)
    for key, name, kind in connection.execute("SELECT chunk_key, name, kind FROM refs"):
        source, defining = path_of.get(key), owners.get(name, ())
        if kind == "import" or source is None or not 1 <= len(defining) <= 3:
            continue
        for target in defining - {source}:
            edges[(node[source], node[target])] += 1.0 / len(defining)
    return node, edges


def pagerank(size: int, edges: dict, restart: np.ndarray | None = None) -> np.ndarray:
    restart = np.full(size, 1.0 / size) if restart is None else restart
    if not edges:
        return restart
    source = np.array([a for a, _ in edges])
    target = np.array([b for _, b in edges])
    weight = np.array(list(edges.values()))
    out = np.zeros(size)
    np.add.at(out, source, weight)
    share = weight / out[source]
    dangling = out == 0
    rank = restart.copy()
    for _ in range(30):
        spread = np.zeros(size)
        np.add.at(spread, target, rank[source] * share)
        rank = 0.15 * restart + 0.85 * (spread + rank[dangling].sum() * restart)
    return rank


def centrality(results, node, edges, global_rank, personal: bool) -> dict[str, float]:
    best: dict[str, float] = {}
    for path, _, _, value in results:
        best[path] = max(best.get(path, 0.0), value)
    rank = global_rank
    if personal:
        restart = np.zeros(len(node))
        for path in sorted(best, key=lambda p: -best[p])[:10]:
            if path in node:
                restart[node[path]] = best[path]
        rank = pagerank(len(node), edges, restart / restart.sum()) if restart.sum() else rank
    values = {path: rank[node[path]] for path in best if path in node}
    top = max(values.values(), default=0.0)
    return {p: math.log1p(100 * v / top) / math.log1p(100) for p, v in values.items()} if top else {}


def main() -> None:
    import sharc.index

    repos = load_repos("dev")
    cache = data_dir() / "index-cache" / "repos"
    sharc.index.min = lambda _ceiling, value: value  # the ranking's own scores, not clipped
    runs = {}
    for repo, index in open_indexes(repos, cache):
        runs[repo.name] = [
            (query, [(r.path, r.start_line, r.end_line, r.score)
                     for r in index.search(query.text, limit=60)])
            for query in repo.queries
        ]
    del sharc.index.min
    table: dict[tuple, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    flat: dict[tuple, list[float]] = defaultdict(list)
    for name, queries in runs.items():
        node, edges = file_graph(cache / name / "manifest.sqlite")
        global_rank = pagerank(len(node), edges)
        for query, results in queries:
            for personal in (False, True):
                prior = centrality(results, node, edges, global_rank, personal)
                for lift in LIFTS:
                    ranked = results
                    if query.category != "symbol" and lift:
                        ranked = sorted(results, key=lambda r: -r[3] * (1 + lift * prior.get(r[0], 0)))
                    value = score(query, [Located(*r[:3]) for r in ranked]).file_ndcg
                    flat[(personal, lift)].append(value)
                    for category in ("all", query.category):
                        table[(personal, lift)][(name, category)].append(value)
    for (personal, lift), cells in table.items():
        means = {}
        for category in ("all", "semantic", "architecture", "topic"):
            per_repo = [sum(v) / len(v) for (_, c), v in cells.items() if c == category]
            means[category] = 100 * sum(per_repo) / len(per_repo)
        low_high = metrics.paired_bootstrap(flat[(personal, lift)], flat[(personal, 0.0)])
        print(f"{'personalised' if personal else 'global':12} lift {lift:4}",
              " ".join(f"{c} {m:5.1f}" for c, m in means.items()),
              "vs no lift {:+.1f} [{:+.1f}, {:+.1f}]".format(*low_high))


if __name__ == "__main__":
    main()
