"""A learned correction of the hand-tuned ranking, trained on the repository benchmark's dev
repositories and judged on the held-out ones.

Searching is the slow part, so it happens once: `collect` runs every query (dev and test)
through the real search on the cached indexes, with the learned stage swapped for a recorder
that keeps the hand-tuned candidates and their feature rows (`sharc.ranking.learned.features`).
Training, cross-validation and evaluation then only reorder what was recorded:

    python -m benches.quality.learn_repos collect        # -> benches/data/learn-cache/
    python -m benches.quality.learn_repos train --penalties 1,10,100,1000

`train` picks the L2 penalty by cross-validation over the dev repositories (5 folds, by
repository), fits on all of dev, and compares learned and hand-tuned orders on the held-out
repositories with a paired bootstrap interval over queries. The `residual` variant keeps the
hand-tuned score as a free feature, so the penalty pulls the model toward the hand-tuned
order; `--write` stores the weights in `python/sharc/ranking/learned_weights.py` (what
`RankingSettings(combination="learned")` reads). Then the real benchmarks judge them:
`python -m benches.quality.tune_repos combination=learned` and the function-level sets.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import CATEGORIES, DEPTH, RepoQuery, defines, load_repos, score

CACHE = data_dir() / "learn-cache" / "recorded.pkl"


@dataclass(frozen=True)
class Candidate:
    """What scoring a result needs: where it is."""

    id: str
    path: str
    start_line: int
    end_line: int


@dataclass
class Recorded:
    """One query's hand-tuned candidates (best first), their feature rows and labels."""

    query: RepoQuery
    split: str
    candidates: list[Candidate]
    rows: Any  # float array, candidates x FEATURES
    relevant: Any  # bool array: the candidate's file is a target
    defining: Any  # bool array: the candidate defines a symbol query's target
    hits: dict[str, list[tuple[str, float]]]  # each arm's (id, score), best first


def collect(index_cache: Path) -> list[Recorded]:
    """Every query searched as the benchmark searches it, the learned stage recording."""
    import numpy as np
    from sharc.ranking import DEFAULT_SETTINGS, pipeline
    from sharc.ranking.learned import features

    from benches.quality.tune_repos import open_indexes

    captured: list[tuple[list[Any], Any, Any]] = []

    def record(ranked, hits, intent, settings, weights):  # noqa: ANN001, ANN202
        ordered = sorted(ranked, key=lambda pair: -pair[1])
        rows = np.asarray(features(ordered, hits, intent, settings, None), dtype=np.float64)
        arms = {arm: list(arm_hits) for arm, arm_hits in hits.items()}
        captured.append(([chunk for chunk, _ in ordered], rows, arms))
        return ordered

    pipeline.apply_learned = record
    settings = DEFAULT_SETTINGS.__class__(combination="learned")
    recorded = []
    for repo, index in open_indexes(load_repos("all"), index_cache):
        index.ranking_settings = settings
        for query in repo.queries:
            captured.clear()
            index.search(query.text, limit=DEPTH)
            if not captured:
                continue
            chunks, rows, hits = captured[-1]
            recorded.append(_labelled(query, repo.split, chunks, rows, hits))
        print(f"{repo.name:24} {repo.split:4} {len(repo.queries)} queries", file=sys.stderr,
              flush=True)
        index.close()
    return recorded


def _labelled(
    query: RepoQuery, split: str, chunks: list[Any], rows: Any,
    hits: dict[str, list[tuple[str, float]]],
) -> Recorded:
    import numpy as np

    candidates = [Candidate(c.id, c.path, c.start_line, c.end_line) for c in chunks]
    wanted = {metrics.normalize_path(t.path) for t in query.targets}
    relevant = np.array([metrics.normalize_path(c.path) in wanted for c in candidates], bool)
    spans = [t for t in query.targets if t.start_line]
    defining = np.array(
        [query.category == "symbol" and any(defines(c, t) for t in spans) for c in candidates],
        dtype=bool,
    )
    return Recorded(query, split, candidates, rows.reshape(len(candidates), -1), relevant,
                    defining, hits)


class _Unpickler(pickle.Unpickler):
    """Reads what `collect` stored when this module ran as `__main__`."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(__name__ if module == "__main__" else module, name)


def load(path: Path = CACHE) -> list[Recorded]:
    if not path.exists():
        raise SystemExit(f"nothing recorded at {path}: run `python -m benches.quality.learn_repos"
                         " collect` first")
    return _Unpickler(path.open("rb")).load()


# -- training ----------------------------------------------------------------------------------


@dataclass
class Model:
    """Weights over the raw features (standardisation folded in)."""

    weights: Any
    bias: float

    def scores(self, rows: Any) -> Any:
        return rows @ self.weights + self.bias


def fit(
    recorded: Sequence[Recorded],
    penalty: float,
    *,
    free: Sequence[str] = ("hand",),
    drop: Sequence[str] = (),
    definition_weight: float = 1.0,
    steps: int = 400,
) -> Model:
    """Listwise training: per query, the log of the softmax probability that the top
    candidate lies in a target file (and, for symbol queries, that it is the definition),
    summed over queries; L2 `penalty` on the standardised weights except the `free` features.
    Plain numpy, full-batch Adam, starting from the hand-tuned order."""
    import numpy as np
    from sharc.ranking.learned import FEATURES

    used = [q for q in recorded if q.relevant.any() and len(q.rows)]
    rows = np.concatenate([q.rows for q in used])
    mean, std = rows.mean(axis=0), rows.std(axis=0)
    std[std < 1e-9] = 1.0
    x = (rows - mean) / std
    keep = np.array([name not in drop for name in FEATURES], dtype=float)
    penalised = np.array([name not in free for name in FEATURES], dtype=float)
    starts = np.cumsum([0] + [len(q.rows) for q in used])[:-1]
    segment = np.repeat(np.arange(len(used)), [len(q.rows) for q in used])
    relevant = np.concatenate([q.relevant for q in used])
    defining = np.concatenate([q.defining for q in used])
    has_definition = np.array([q.defining.any() for q in used])

    def softmax_within(scores: Any, mask: Any) -> Any:
        top = np.maximum.reduceat(np.where(mask, scores, -np.inf), starts)
        top = np.where(np.isfinite(top), top, 0.0)
        e = np.where(mask, np.exp(scores - top[segment]), 0.0)
        total = np.add.reduceat(e, starts)
        return np.divide(e, total[segment], out=np.zeros_like(e), where=total[segment] > 0)

    w = np.zeros(len(FEATURES))
    hand = FEATURES.index("hand")
    if "hand" not in drop:
        w[hand] = std[hand] * 10.0  # start at the hand-tuned order, sharply
    m, v = np.zeros_like(w), np.zeros_like(w)
    everything = np.ones_like(relevant)
    for step in range(1, steps + 1):
        s = x @ (w * keep)
        p_all = softmax_within(s, everything)
        grad_s = p_all - softmax_within(s, relevant)
        grad_s += definition_weight * has_definition[segment] * (
            p_all - softmax_within(s, defining))
        grad = (x.T @ grad_s) * keep / len(used) + 2 * penalty * penalised * w / len(used)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    raw = w * keep / std
    return Model(raw, float(-(raw * mean).sum()))


def ranked_by(recorded: Recorded, scores: Any | None) -> list[Candidate]:
    """The candidates in the order of `scores` (None: the hand-tuned order), two per file at
    most, as many as the benchmark reads."""
    import numpy as np

    order = range(len(recorded.candidates)) if scores is None else np.argsort(-scores,
                                                                              kind="stable")
    shown: dict[str, int] = {}
    ranked = []
    for i in order:
        candidate = recorded.candidates[i]
        if shown.get(candidate.path, 0) < 2:
            shown[candidate.path] = shown.get(candidate.path, 0) + 1
            ranked.append(candidate)
            if len(ranked) == DEPTH:
                break
    return ranked


def evaluate(
    recorded: Sequence[Recorded], scorer: Callable[[Recorded], Any] | None
) -> dict[str, Any]:
    """File NDCG@10 per query, its means over repositories (overall and per category) and
    definition-at-1, in the order of `scorer`'s scores (None: the hand-tuned order)."""
    per_query = {
        q.query.id: score(q.query, ranked_by(q, scorer(q) if scorer else None))
        for q in recorded
    }
    per_repo: dict[str, dict[str, list[float]]] = {}
    for q in recorded:
        bucket = per_repo.setdefault(q.query.repo, {})
        value = per_query[q.query.id].file_ndcg
        bucket.setdefault("all", []).append(value)
        bucket.setdefault(q.query.category, []).append(value)

    def over_repos(key: str) -> float:
        means = [sum(v[key]) / len(v[key]) for v in per_repo.values() if v.get(key)]
        return 100.0 * sum(means) / len(means) if means else float("nan")

    definitions = [s.definition_at_1 for s in per_query.values() if s.definition_at_1 is not None]
    return {
        "file_ndcg": round(over_repos("all"), 1),
        **{c: round(over_repos(c), 1) for c in CATEGORIES},
        "definition_at_1": round(100.0 * sum(definitions) / max(1, len(definitions)), 1),
        "per_query": {qid: s.file_ndcg for qid, s in per_query.items()},
    }


def cross_validate(
    recorded: Sequence[Recorded], penalty: float, folds: int = 5, **options: Any
) -> dict[str, Any]:
    """Each dev repository ordered by a model trained on the other folds' repositories."""
    repos = sorted({q.query.repo for q in recorded})
    fold_of = {repo: i % folds for i, repo in enumerate(repos)}
    scored: dict[str, Any] = {}
    for fold in range(folds):
        model = fit([q for q in recorded if fold_of[q.query.repo] != fold], penalty, **options)
        for q in recorded:
            if fold_of[q.query.repo] == fold:
                scored[q.query.id] = model.scores(q.rows)
    return evaluate(recorded, lambda q: scored[q.query.id])


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[float]:
    """Paired bootstrap of `a - b`, file NDCG@10 per query: mean and 95% interval."""
    ids = sorted(a["per_query"])
    mean, low, high = metrics.paired_bootstrap(
        [a["per_query"][i] for i in ids], [b["per_query"][i] for i in ids]
    )
    return [round(mean, 1), round(low, 1), round(high, 1)]


def line(name: str, result: dict[str, Any]) -> str:
    cats = " ".join(f"{c[:4]} {result[c]:5.1f}" for c in CATEGORIES)
    return (f"{name:28} NDCG@10 {result['file_ndcg']:5.1f} | {cats} | def@1"
            f" {result['definition_at_1']:5.1f}")


def train(recorded: Sequence[Recorded], args: argparse.Namespace) -> int:
    from sharc.ranking.learned import FEATURES

    options: dict[str, Any] = (
        {"free": ("hand",)} if args.variant == "residual" else {"free": (), "drop": ("hand",)}
    )
    dev = [q for q in recorded if q.split == "dev"]
    test = [q for q in recorded if q.split == "test"]
    hand_dev = evaluate(dev, None)
    print(line("dev hand-tuned", hand_dev), flush=True)
    best: tuple[float, float] | None = None
    folds: dict[str, Any] = {}
    for penalty in (float(p) for p in args.penalties.split(",")):
        result = cross_validate(dev, penalty, **options)
        folds[f"{penalty:g}"] = {**_summary(result), "vs_hand": compare(result, hand_dev)}
        print(line(f"dev CV penalty {penalty:g}", result)
              + f" | vs hand {compare(result, hand_dev)}", flush=True)
        if best is None or result["file_ndcg"] >= best[0]:  # a tie: the larger penalty
            best = (result["file_ndcg"], penalty)
    assert best is not None
    penalty = best[1]
    model = fit(dev, penalty, **options)
    hand_test = evaluate(test, None)
    learned_test = evaluate(test, lambda q: model.scores(q.rows))
    print(line("dev learned (fit on dev)", evaluate(dev, lambda q: model.scores(q.rows))))
    print(line("test hand-tuned", hand_test))
    print(line(f"test learned penalty {penalty:g}", learned_test)
          + f" | vs hand {compare(learned_test, hand_test)}")
    for name, weight in zip(FEATURES, model.weights):
        print(f"  {name:24} {weight:+.3f}")
    if args.write:
        write_weights(model, penalty, args.variant)
    if args.out:
        from benches.quality.provenance import git_commit

        args.out.write_text(json.dumps({
            "benchmark": "sharc repository benchmark: learned correction against hand-tuned",
            "command": f"python -m benches.quality.learn_repos train --variant {args.variant}"
                       f" --penalties {args.penalties}",
            "git": git_commit(),
            "metrics_note": "file NDCG@10 in percent, means per repository then over"
            " repositories; intervals: paired bootstrap over queries (95%)",
            "dev_cross_validation": {"hand": _summary(hand_dev), "penalties": folds},
            "penalty": penalty,
            "test": {
                "hand": _summary(hand_test), "learned": _summary(learned_test),
                "learned_vs_hand": compare(learned_test, hand_test),
            },
            "weights": {name: round(float(w), 6) for name, w in zip(FEATURES, model.weights)},
        }, indent=1) + "\n")
        print(f"results -> {args.out}")
    return 0


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != "per_query"}


WEIGHTS_MODULE = Path(__file__).parents[2] / "python" / "sharc" / "ranking" / "learned_weights.py"


def write_weights(model: Model, penalty: float, variant: str) -> None:
    """The weights as `sharc.ranking.learned_weights`, with how they were made."""
    from sharc.ranking.learned import FEATURES

    pairs = "\n".join(f"    ({name!r}, {weight:.6g})," for name, weight in
                      zip(FEATURES, model.weights) if abs(weight) > 1e-9)
    WEIGHTS_MODULE.write_text(
        f'"""The learned combination\'s weights (`sharc.ranking.learned`), written by\n'
        f"`python -m benches.quality.learn_repos train --variant {variant} --write`, not by hand:"
        f"\ntrained on the repository benchmark\'s dev repositories (L2 penalty {penalty:g},"
        f" chosen by\ncross-validation over them).\"\"\"\n\n"
        f"WEIGHTS: tuple[tuple[str, float], ...] = (\n{pairs}\n)\nBIAS = {model.bias:.6g}\n"
    )
    print(f"weights -> {WEIGHTS_MODULE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("collect", "train"))
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--penalties", default="1,10,100,1000")
    parser.add_argument("--variant", choices=("residual", "pure"), default="residual",
                        help="residual: the hand-tuned score is a free feature; pure: left out")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the figures as JSON (results/quality_repos_learned.json)")
    parser.add_argument("--write", action="store_true", help="store the weights in the package")
    args = parser.parse_args(argv)
    if args.command == "collect":
        recorded = collect(args.index_cache)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_bytes(pickle.dumps(recorded))
        print(f"{len(recorded)} queries -> {args.cache}")
        return 0
    return train(load(args.cache), args)


if __name__ == "__main__":
    raise SystemExit(main())
