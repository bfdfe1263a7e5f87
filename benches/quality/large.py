"""Questions about large repositories: the Python 3.11 standard library, Rails and Eigen.

The repository benchmark's repositories hold at most 9,735 chunks; the standard library, tests
included, holds about 64,000 in 2,054 files, so a question's answer competes with far more
files that share its words (`http/server.py` beside `wsgiref/`, `fnmatch.py` beside `re/`),
and the vectors are searched through the HNSW graph (above
`sharc.vectors.DEFAULT_EXACT_THRESHOLD` vectors). Its 60 questions in words
(`benches/queries/large/`: topic, architecture and one function's behaviour) were written by
readers of the code who ran no search; the split was fixed with them: odd numbers tune, even
numbers check (`half_of`). Each is asked twice: as written, and in a terse form of 3-7 words
(`benches/queries/large-terse/`: "log record formatting"), as a search box is typed into.
A third set asks for 48 names the library defines in more than one file (`Template`,
`Popen`, `asyncio.Queue`, `logging.Formatter.format`; `benches/queries/large-symbols/`),
each with the definition a Python programmer means as its target, written blind by another
reader; it is scored by whether the first result is that definition.

Rails' six core gems (`--corpus rails`: about 1,000 Ruby files in one tree, classes reopened
across files and core classes extended) are asked the same two kinds, written blind:
questions in words about a topic, an architecture or one method (`benches/queries/rails-
topics/`) and names defined or opened in more than one file (`ActiveRecord::Base`,
`String#squish`; `benches/queries/rails-symbols/`).

Eigen's headers (`--corpus eigen`: C++ templates under macros and preprocessor conditionals,
names forward-declared, specialised and nested in many classes) are asked the same two kinds,
written blind (`benches/queries/eigen-topics/`, `benches/queries/eigen-symbols/`:
`Matrix`, `SparseMatrix::InnerIterator`).

Measured per set, half and mode, file NDCG@10 (the definition at 1 for the names; the mean
over questions), overall and per category, and hybrid against each other mode with the
paired bootstrap interval.

    python -m benches.quality.large                  # -> results/quality_large.json
    python -m benches.quality.large --corpus rails   # -> results/quality_large_rails.json
    python -m benches.quality.large --corpus eigen   # -> results/quality_large_eigen.json

The trees are laid out once under `benches/data/large/` (`benches.quality.large_trees`),
their indexes kept in `benches/data/index-cache/large/` (building the standard library's
embeds every chunk: about 18 minutes on 2 cores, once).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import QUERIES_DIR, Target, data_dir
from benches.quality.large_trees import (
    EIGEN_PACKAGE_VERSION,
    PYTHON_VERSION,
    RAILS_VERSION,
    eigen_tree,
    rails_tree,
    stdlib_tree,
)
from benches.quality.provenance import git_commit, machine
from benches.quality.repos import DEPTH, RepoQuery, score

RESULTS = Path(__file__).resolve().parents[1] / "results"
CATEGORIES = ("topic", "architecture", "semantic")
#: The symbol sets' own category: it is scored by the definition at 1 too.
SYMBOL = "symbol"
HALVES = ("tune", "check")


@dataclass(frozen=True)
class Corpus:
    """A large repository: its name, what it is, how its tree is laid out, its question sets
    (name -> folder of `{name}*.json` files) and where its results go."""

    name: str
    description: str
    tree: Callable[[Path], Path]
    questions: dict[str, Path]
    results: str


CORPORA = {
    "cpython-lib": Corpus(
        "cpython-lib",
        f"the Python {PYTHON_VERSION[0]}.{PYTHON_VERSION[1]} standard library",
        stdlib_tree,
        {
            # As written, each asked tersely (3-7 words, as typed into a search box: "log
            # record formatting", written blind from the first by a third reader), and names
            # defined in more than one file (`Template`, `asyncio.Queue`), each with its
            # primary definition as the target, written blind by another reader.
            "full": QUERIES_DIR / "large",
            "terse": QUERIES_DIR / "large-terse",
            "symbols": QUERIES_DIR / "large-symbols",
        },
        "quality_large.json",
    ),
    "rails": Corpus(
        "rails",
        f"Ruby on Rails {RAILS_VERSION}'s six core gems",
        rails_tree,
        {"full": QUERIES_DIR / "rails-topics", "symbols": QUERIES_DIR / "rails-symbols"},
        "quality_large_rails.json",
    ),
    "eigen": Corpus(
        "eigen",
        f"Eigen {EIGEN_PACKAGE_VERSION.split('-')[0]}'s C++ headers",
        eigen_tree,
        {"full": QUERIES_DIR / "eigen-topics", "symbols": QUERIES_DIR / "eigen-symbols"},
        "quality_large_eigen.json",
    ),
}
#: The standard library's question sets, as they were first named.
QUESTIONS = {name: CORPORA["cpython-lib"].questions[name] for name in ("full", "terse")}
SYMBOLS = CORPORA["cpython-lib"].questions["symbols"]

#: Each mode scored: `Index.search`'s options.
MODES: dict[str, dict[str, str]] = {
    "hybrid": {},
    "keyword": {"mode": "keyword"},
    "semantic": {"mode": "semantic"},
    "hybrid-fast": {"vectors": "fast"},
    "semantic-fast": {"mode": "semantic", "vectors": "fast"},
}


def half_of(query_id: str) -> str:
    """The half a question belongs to, by its number (`cpy-a07`: 7): odd tunes, even checks."""
    number = int(query_id.rsplit("-", 1)[1][1:])
    return "check" if number % 2 == 0 else "tune"


def load_questions(directory: Path = QUESTIONS["full"]) -> list[RepoQuery]:
    """Every question of `directory`'s files, in file and id order."""
    questions = []
    for path in sorted(directory.glob("*.json")):
        name = json.loads(path.read_text())["repo"]
        for raw in json.loads(path.read_text())["queries"]:
            targets = tuple(
                Target(t["path"], t.get("start_line"), t.get("end_line")) for t in raw["targets"]
            )
            questions.append(RepoQuery(raw["id"], name, raw["category"], raw["text"], targets,
                                       duplicate=bool(raw.get("duplicate", False))))
    return questions


def ask(index: Any, questions: Sequence[RepoQuery], options: dict[str, str]) -> dict[str, float]:
    """Each question's file NDCG@10 searched with `options`; a symbol question's, whether its
    first result is the target definition (1 or 0)."""
    values = {}
    for q in questions:
        scored = score(q, list(index.search(q.text, limit=DEPTH, **options)))
        values[q.id] = (scored.file_ndcg if scored.definition_at_1 is None
                        else scored.definition_at_1)
    return values


def summary(questions: Sequence[RepoQuery], values: dict[str, float]) -> dict[str, float]:
    """File NDCG@10 (definition at 1 for symbol questions) in percent, the mean over
    questions, overall and per category."""
    groups: dict[str, list[float]] = {"all": [values[q.id] for q in questions]}
    for q in questions:
        groups.setdefault(q.category, []).append(values[q.id])
    return {name: round(100 * sum(v) / len(v), 2) for name, v in groups.items() if v}


def against(
    questions: Sequence[RepoQuery], new: dict[str, float], base: dict[str, float]
) -> dict[str, list[float]]:
    """`new` against `base`, paired over questions: overall and per category."""
    groups = {"all": list(questions)}
    for category in (*CATEGORIES, SYMBOL):
        groups[category] = [q for q in questions if q.category == category]
    return {
        name: [round(v, 2) for v in metrics.paired_bootstrap(
            [new[q.id] for q in group], [base[q.id] for q in group]
        )]
        for name, group in groups.items() if group
    }


def run(corpus: Corpus, index_dir: Path, tree: Path, ranking: str = "") -> dict[str, Any]:
    """Index `corpus`'s tree at `tree` (once, into `index_dir`) and ask it each set, ranked
    with the default settings or with `ranking`'s overrides of them (`field=value,...`)."""
    import sharc
    import sharc.vectors
    from sharc.ranking import DEFAULT_SETTINGS

    from benches.quality.tune_repos import parse_variant

    index = sharc.Index.open(corpus.tree(tree), index_dir=index_dir)
    index.update()
    index.ranking_settings = parse_variant(ranking, DEFAULT_SETTINGS)
    stats = index.stats()
    sets = {name: asked_as(index, load_questions(directory))
            for name, directory in corpus.questions.items()}
    return {
        "benchmark": "large",
        "corpus": corpus.name,
        "repository": corpus.description,
        "python": sys.version.split()[0],
        "date": dt.date.today().isoformat(),
        "git": git_commit(),
        "machine": machine(),
        "ranking": ranking or "defaults",
        "index": {"files": stats.files, "chunks": stats.chunks,
                  "exact_threshold": sharc.vectors.DEFAULT_EXACT_THRESHOLD},
        "sets": sets,
    }


def asked_as(index: Any, questions: Sequence[RepoQuery]) -> dict[str, Any]:
    """One set of questions: each half's summary per mode, hybrid against the other modes,
    and each question's score."""
    scored = {mode: ask(index, questions, options) for mode, options in MODES.items()}
    halves = {}
    for half in HALVES:
        asked = [q for q in questions if half_of(q.id) == half]
        halves[half] = {
            "queries": len(asked),
            "modes": {mode: summary(asked, values) for mode, values in scored.items()},
            "hybrid_vs": {
                mode: against(asked, scored["hybrid"], values)
                for mode, values in scored.items() if mode != "hybrid"
            },
        }
    per_query = {
        q.id: {"half": half_of(q.id), "category": q.category, "text": q.text,
               **{mode: round(values[q.id], 4) for mode, values in scored.items()}}
        for q in questions
    }
    return {"halves": halves, "queries": per_query}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="cpython-lib")
    parser.add_argument("--out", type=Path, help="default: results/<the corpus's file>")
    parser.add_argument("--index-dir", type=Path, help="default: index-cache/large/<corpus>")
    parser.add_argument("--tree", type=Path, help="default: data/large/<corpus>")
    parser.add_argument("--ranking", default="",
                        help="field=value,... over the default ranking settings (a variant)")
    args = parser.parse_args(argv)
    corpus = CORPORA[args.corpus]
    result = run(
        corpus,
        args.index_dir or data_dir() / "index-cache" / "large" / corpus.name,
        args.tree or data_dir() / "large" / corpus.name,
        args.ranking,
    )
    (args.out or RESULTS / corpus.results).write_text(json.dumps(result, indent=1) + "\n")
    json.dump({name: {half: entry["modes"] for half, entry in asked["halves"].items()}
               for name, asked in result["sets"].items()}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
