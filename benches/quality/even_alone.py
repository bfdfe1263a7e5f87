"""The even ranking alone (`sharc.ranking.even`) against sharc's search, on the repository
benchmark's questions: how far the staged pipeline's lead on the questions it was tuned on
holds elsewhere.

The even ranking is what the field's simplest strong tools do with two arms: an even score
fusion of each arm's raw hits, a lift for files named by the question's words and for files
of many candidates, tests and examples set aside, code only. This probe captures sharc's raw
arm hits from the live search (`pipeline.rank_hits`), orders their files by the even ranking,
and compares its file NDCG@10 with the search's on the same questions; a query that is one
name keeps the search's own answer (the even ranking has no definitions stage):

    python -m benches.quality.even_alone --split dev --ranking even_share=0
    python -m benches.quality.even_alone --split test
    python -m benches.quality.even_alone --questions fresh-terse

Against the staged search alone (`--ranking even_share=0`) it found (2026-12-07, stop 58)
that the even ranking alone trails it by 5.1 points on dev and leads it by 0.9 held out,
which led to the even opinion the search now takes (`RankingSettings.even_share`).

`--fast-opinion SHARE` asks instead what a third opinion would add: the even ranking over
BM25 and the fast model's vectors (the index's other vector set), merged into the search's
file order as the even opinion is (`blend_files`, k 10, that share), for questions in words.
The search can take that opinion since 2026-12-08 (stop 60; `RankingSettings.fast_opinion_share`,
off by default), so the probe is asked of the search without it:

    python -m benches.quality.even_alone --fast-opinion 0.3 --ranking fast_opinion_share=0 \
        [--questions fresh] [--split test]
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import CATEGORIES, DEPTH, load_repos, score


@dataclass(frozen=True)
class FileHit:
    """One file of an order, as the benchmark's scoring reads a result."""

    path: str
    start_line: int = 1
    end_line: int = 1


def main(argv: list[str] | None = None) -> int:
    from sharc.ranking import DEFAULT_SETTINGS, pipeline
    from sharc.ranking.even import blend_files, even_file_order
    from sharc.ranking.query import QueryIntent, QueryKind, classify_query

    from benches.quality.tune_repos import dev_repos, open_indexes, parse_variant

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--questions", choices=("benchmark", "fresh", "fresh-terse"),
                        default="benchmark", help="the dev repositories' other question sets")
    parser.add_argument("--ranking", default="",
                        help="field=value,... over the search's default ranking settings")
    parser.add_argument("--fast-opinion", type=float, default=None, metavar="SHARE",
                        help="the search merged with the even ranking of BM25 and the fast"
                        " model's vectors at this share, instead of the even ranking alone")
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    args = parser.parse_args(argv)
    captured: dict[str, Any] = {}
    original = pipeline.rank_hits

    def spy(query: str, hits: Any, read: Any, **kwargs: Any) -> Any:
        captured.setdefault("hits", hits)
        captured.setdefault("read", read)
        return original(query, hits, read, **kwargs)

    pipeline.rank_hits = spy
    searched: dict[str, float] = {}
    even: dict[str, float] = {}
    category: dict[str, str] = {}
    repo_of: dict[str, str] = {}
    repos = (load_repos(args.split) if args.questions == "benchmark"
             else dev_repos([], args.questions))
    settings = parse_variant(args.ranking, DEFAULT_SETTINGS)
    for repo, index in open_indexes(repos, args.index_cache):
        index.ranking_settings = settings
        for query in repo.queries:
            captured.clear()
            results = list(index.search(query.text, limit=DEPTH))
            searched[query.id] = score(query, results).file_ndcg
            category[query.id], repo_of[query.id] = query.category, repo.name
            kind = classify_query(query.text)
            intent = QueryIntent.of(query.text, kind)
            hits = captured.get("hits", {})
            if kind is QueryKind.IDENTIFIER or intent.single_name or not hits:
                even[query.id] = searched[query.id]
                continue
            if args.fast_opinion is not None:
                if len(hits) < 2:  # one arm answered: no even opinion either
                    even[query.id] = searched[query.id]
                    continue
                captured.clear()
                index.search(query.text, limit=DEPTH, vectors="fast")
                hits = captured.get("hits", {})
            ids = sorted({i for arm in hits.values() for i, _ in arm})
            records = captured["read"](ids)
            order = even_file_order(query.text, hits, records, tests=intent.tests)
            if args.fast_opinion is not None:
                own = [(FileHit(r.path, r.start_line, r.end_line), r.score) for r in results]
                blended = blend_files(own, order, args.fast_opinion, settings.even_k)
                even[query.id] = score(query, [hit for hit, _ in blended]).file_ndcg
            else:
                even[query.id] = score(query, [FileHit(path) for path in order]).file_ndcg
        print(f"{repo.name:24} {len(repo.queries)} queries", file=sys.stderr, flush=True)
        index.close()

    def over_repos(values: Mapping[str, float], wanted: str | None = None) -> float:
        per: dict[str, list[float]] = {}
        for qid, value in values.items():
            if wanted is None or category[qid] == wanted:
                per.setdefault(repo_of[qid], []).append(value)
        means = [sum(v) / len(v) for v in per.values()]
        return 100 * sum(means) / len(means) if means else math.nan

    def line(name: str, values: Mapping[str, float]) -> str:
        cats = " ".join(f"{c[:4]} {over_repos(values, c):5.1f}" for c in CATEGORIES)
        return f"{name:24} all {over_repos(values):5.1f} | {cats}"

    ids = sorted(searched)
    mean, low, high = metrics.paired_bootstrap([even[i] for i in ids], [searched[i] for i in ids])
    print(line("the search", searched))
    name = ("the even ranking alone" if args.fast_opinion is None
            else f"with the fast opinion {args.fast_opinion}")
    print(line(name, even) + f" | {mean:+.1f} [{low:+.1f}, {high:+.1f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
