"""The repository benchmark's questions in words asked with a directory named as the place to
look ("Q in D/", "Q under D", "in D/: Q", "Q in the B package", B the last part of D), D the
directory of the question's first target file (questions whose first target lies below the
top directory): file NDCG@10 against the question alone, paired per question, and the share
of the top 10 that lies under D.

    python -m benches.quality.scopes                 # dev third
    python -m benches.quality.scopes --split test    # the held-out third, once at the end

Opens the cached indexes of `python -m benches.quality.repos` (no re-embedding). Naming the
answer's directory gives away where it is: the share under D says whether a named place is
respected; the NDCG says what that is worth to such a question.
"""

from __future__ import annotations

import argparse

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import DEPTH, load_repos, score
from benches.quality.tune_repos import open_indexes

#: The scopings measured on 2026-12-05 (stop 39), fixed before measuring.
SCOPINGS = ("{q} in {d}/", "{q} under {d}", "in {d}/: {q}", "{q} in the {b} package")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    args = parser.parse_args(argv)
    alone: list[float] = []
    scoped: dict[str, list[float]] = {form: [] for form in SCOPINGS}
    under: dict[str, list[float]] = {form: [] for form in SCOPINGS}
    opened = open_indexes(load_repos(args.split), data_dir() / "index-cache" / "repos")
    for repo, index in opened:
        for query in repo.queries:
            directory = query.targets[0].path.rpartition("/")[0]
            if query.category == "symbol" or "/" not in directory:
                continue
            alone.append(score(query, list(index.search(query.text, limit=DEPTH))).file_ndcg)
            for form in SCOPINGS:
                text = form.format(q=query.text, d=directory, b=directory.rpartition("/")[2])
                hits = list(index.search(text, limit=DEPTH))
                scoped[form].append(score(query, hits).file_ndcg)
                top = hits[:10]
                under[form].append(
                    sum(hit.path.startswith(directory + "/") for hit in top) / max(1, len(top))
                )
    print(f"{args.split}: {len(alone)} questions, file NDCG@10 alone {_percent(alone):.1f}")
    for form in SCOPINGS:
        mean, low, high = metrics.paired_bootstrap(scoped[form], alone)
        print(f"  {form:14} {_percent(scoped[form]):5.1f} {mean:+.1f} [{low:+.1f}, {high:+.1f}]"
              f"  top 10 under D {_percent(under[form]):5.1f}")
    return 0


def _percent(values: list[float]) -> float:
    return 100.0 * sum(values) / max(1, len(values))


if __name__ == "__main__":
    raise SystemExit(main())
