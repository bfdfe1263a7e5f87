"""The repository benchmark's questions in words asked the way users and coding agents wrap
them ("Find the code responsible for Q in this repository", "Q, not the tests"): file
NDCG@10 of each wrapping against the question alone, paired per question.

    python -m benches.quality.phrasings                 # dev third, every wrapping below
    python -m benches.quality.phrasings --split test    # the held-out third, once at the end
    python -m benches.quality.phrasings "Q, please"     # other wrappings ("Q" is the question)

Opens the cached indexes of `python -m benches.quality.repos` (no re-embedding). The
wrappings that `sharc.ranking.framing` leaves out score as the question alone by design; the
others say what is still left to do.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import DEPTH, load_repos, score
from benches.quality.tune_repos import open_indexes

#: The wrappings measured on 2026-12-05 (stop 38), in the order of the note's table.
WRAPPINGS = (
    "Q, not the tests",
    "Q excluding test files",
    "Q (look in the source, not the tests)",
    "Q without docs",
    "Which file contains Q?",
    "Find the code responsible for Q in this repository",
    "In this repo, where is Q?",
    "How does the codebase handle Q?",
    "Q. Show the relevant functions.",
    "Where in the code is Q?",
    "find the code for Q",
    "Q in the codebase",
    "code related to Q",
    "show me the implementation of Q",
    "I am looking for where Q",
    "I am trying to find how Q",
    "How does this project deal with Q?",
    "Where is Q implemented?",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wrappings", nargs="*", help="wrappings of the question Q")
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    args = parser.parse_args(argv)
    wrappings = args.wrappings or list(WRAPPINGS)
    opened = open_indexes(load_repos(args.split), args.index_cache)
    alone: dict[str, float] = {}
    wrapped: dict[str, dict[str, float]] = {w: {} for w in wrappings}
    for repo, index in opened:
        for query in repo.queries:
            if query.category == "symbol":
                continue
            alone[query.id] = score(query, list(index.search(query.text, limit=DEPTH))).file_ndcg
            for wrapping in wrappings:
                text = wrapping.replace("Q", query.text)
                results = list(index.search(text, limit=DEPTH))
                wrapped[wrapping][query.id] = score(query, results).file_ndcg
    ids = sorted(alone)
    print(f"{args.split}: {len(ids)} questions in words, file NDCG@10 alone"
          f" {100 * sum(alone.values()) / len(ids):.1f}")
    for wrapping in wrappings:
        mean, low, high = metrics.paired_bootstrap(
            [wrapped[wrapping][i] for i in ids], [alone[i] for i in ids]
        )
        print(f"  {wrapping:55} {mean:+.1f} [{low:+.1f}, {high:+.1f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
