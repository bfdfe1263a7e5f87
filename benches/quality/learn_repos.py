"""A learned combination of the ranking features, trained on the repository benchmark's dev
repositories and judged on the held-out ones against the hand-tuned pipeline.

Searching is the slow part, so it happens once: `collect` runs both arms of every query (dev
and test) on the cached indexes and stores their hits, the candidates' records and the text of
the keyword arm's best hit. Everything after that replays the stored hits through
`sharc.ranking.rank_hits` (the same stages a search runs, but for the vectors' unseen-chunk
credit, which the benchmark's fully embedded indexes do not use), so training,
cross-validation and evaluation cost no search:

    python -m benches.quality.learn_repos collect     # hits -> benches/data/learn-cache/
    python -m benches.quality.learn_repos replay      # hand-tuned defaults from stored hits
    python -m benches.quality.learn_repos train --variant pure --penalties 0.1,1 --write \
        --out benches/results/quality_repos_learned.json    # CV on dev, fit, judge on test
    python -m benches.quality.learn_repos replay defaults combination=learned  # any settings

`train` chooses the L2 penalty by cross-validation over dev repositories (5 folds, by
repository), fits on all of dev, then compares learned and hand-tuned on test with a paired
bootstrap interval over queries. `--write` stores the weights in
`python/sharc/ranking/learned_weights.py` (what `RankingSettings(combination="learned")`
reads). The `pure` variant (the features alone) and `residual` (the hand-tuned score as one
more, unpenalised feature) cross-validated alike on dev (81.1 and 80.4 before the declaration
penalty); the shipped weights are `pure`'s.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.dataset import data_dir
from benches.quality.repos import CATEGORIES, DEPTH, Repo, RepoQuery, load_repos, score

CACHE = data_dir() / "learn-cache" / "repos.pkl"


@dataclass
class StoredQuery:
    """One query's arm hits, the records of every candidate they name, and the text of the
    keyword arm's best hit (what the covered-words keyword share reads)."""

    query: RepoQuery
    split: str
    hits: dict[str, list[tuple[str, float]]]
    records: dict[str, Any]
    texts: dict[str, str] = field(default_factory=dict)


def collect(repos: Sequence[Repo], index_cache: Path) -> list[StoredQuery]:
    """Both arms' hits for every query, at the depth a benchmark search uses."""
    from sharc.index import chunk_text
    from sharc.ranking import KEYWORD, SEMANTIC, candidate_depth

    from benches.quality.tune_repos import open_indexes

    stored = []
    depth = candidate_depth(DEPTH, False)
    for repo, index in open_indexes(list(repos), index_cache):
        manifest = index._reader_manifest()
        arms = {
            KEYWORD: index._keyword_arm((), None),
            SEMANTIC: index._semantic_arm(manifest, index._reader_vectors()),
        }
        for query in repo.queries:
            hits = {name: arm(query.text, depth) for name, arm in arms.items()}
            ids = sorted({chunk_id for arm_hits in hits.values() for chunk_id, _ in arm_hits})
            best = hits[KEYWORD][:1]
            texts = {
                chunk_id: text
                for chunk_id, _ in best
                if (text := chunk_text(manifest, chunk_id)) is not None
            }
            stored.append(
                StoredQuery(query, repo.split, hits, manifest.rank_records_by_id(ids), texts)
            )
        print(f"{repo.name:24} {repo.split:4} {len(repo.queries)} queries", file=sys.stderr,
              flush=True)
        index.close()
    return stored


def load(path: Path = CACHE) -> list[StoredQuery]:
    if not path.exists():
        raise SystemExit(f"no stored hits at {path}: run `python -m benches.quality.learn_repos"
                         " collect` first")
    return _Unpickler(path.open("rb")).load()


class _Unpickler(pickle.Unpickler):
    """Reads what `collect` stored when this module ran as `__main__`."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(__name__ if module == "__main__" else module, name)


def replay(stored: StoredQuery, settings: Any, mode: str = "hybrid") -> list[Any]:
    """The ranked results a search in `mode` gives, from the stored hits."""
    from sharc.ranking import rank_hits

    hits = stored.hits if mode == "hybrid" else {mode: stored.hits[mode]}
    ranked = rank_hits(stored.query.text, hits, lambda ids: stored.records, settings=settings,
                       read_text=stored.texts.get)
    return [chunk for chunk, _ in ranked.candidates[:DEPTH]]


# -- training ----------------------------------------------------------------------------------


@dataclass
class Prepared:
    """One query's candidates (hand-tuned order), the feature rows and labels of those the
    learned combination rescores (the first `learned_depth`)."""

    stored: StoredQuery
    candidates: list[Any]
    rows: Any  # float array, candidates x FEATURES
    relevant: Any  # bool array: the chunk's file is a target
    defining: Any  # bool array: the chunk defines a symbol query's target


def prepare(stored: StoredQuery, settings: Any) -> Prepared:
    """The hand-tuned stages over the stored hits, and the features of their candidates."""
    import numpy as np
    from sharc.ranking import QueryIntent, classify_query, rank_hits
    from sharc.ranking.learned import features

    from benches.quality.repos import defines

    ranked = rank_hits(stored.query.text, stored.hits, lambda ids: stored.records,
                       read_text=stored.texts.get,
                       settings=settings, max_per_file=None)
    answered = [arm for arm, hits in stored.hits.items() if hits]
    intent = QueryIntent.of(stored.query.text, classify_query(stored.query.text),
                            fused=len(answered) > 1)
    rows = np.asarray(
        features(ranked.candidates, stored.hits, intent, settings, settings.learned_depth),
        dtype=float,
    )
    wanted = {metrics.normalize_path(t.path) for t in stored.query.targets}
    chunks = [chunk for chunk, _ in ranked.candidates]
    rescored = chunks[: len(rows)]
    relevant = np.array([metrics.normalize_path(c.path) in wanted for c in rescored], dtype=bool)
    spans = [t for t in stored.query.targets if t.start_line]
    defining = np.array(
        [stored.query.category == "symbol" and any(defines(c, t) for t in spans)
         for c in rescored],
        dtype=bool,
    )
    return Prepared(stored, chunks, rows.reshape(len(rescored), -1), relevant, defining)


@dataclass
class Model:
    """Weights over the raw features (standardisation folded in)."""

    weights: Any
    bias: float

    def scores(self, rows: Any) -> Any:
        return rows @ self.weights + self.bias


def fit(
    prepared: Sequence[Prepared],
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
    Plain numpy, full-batch Adam."""
    import numpy as np
    from sharc.ranking.learned import FEATURES

    used = [q for q in prepared if q.relevant.any()]
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

    def log_softmax_mass(scores: Any, mask: Any) -> tuple[Any, Any]:
        """Per query log(sum over mask of softmax), and the within-mask softmax."""
        top = np.maximum.reduceat(np.where(mask, scores, -np.inf), starts)
        top = np.where(np.isfinite(top), top, 0.0)
        e = np.where(mask, np.exp(scores - top[segment]), 0.0)
        total = np.add.reduceat(e, starts)
        with np.errstate(divide="ignore"):
            log_total = np.log(total) + top
        share = np.divide(e, total[segment], out=np.zeros_like(e), where=total[segment] > 0)
        return log_total, share

    w = np.zeros(len(FEATURES))
    if "hand" in FEATURES:
        w[FEATURES.index("hand")] = std[FEATURES.index("hand")]  # start at the hand-tuned order
    m, v = np.zeros_like(w), np.zeros_like(w)
    everything = np.ones_like(relevant)
    for step in range(1, steps + 1):
        s = x @ (w * keep)
        _, p_all = log_softmax_mass(s, everything)
        _, p_rel = log_softmax_mass(s, relevant)
        grad_s = p_all - p_rel
        _, p_def = log_softmax_mass(s, defining)
        grad_s += definition_weight * has_definition[segment] * (p_all - p_def)
        grad = (x.T @ grad_s) * keep / len(used) + 2 * penalty * penalised * w / len(used)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    raw = w * keep / std
    return Model(raw, float(-(raw * mean).sum()))


def ranked_by(prepared: Prepared, scores: Any | None) -> list[Any]:
    """The rescored candidates in the order of `scores` (None: the hand-tuned order), the
    rest after them, shaped as a search shapes them."""
    import numpy as np
    from sharc.ranking import diversify

    rescored = len(prepared.rows)
    order = range(rescored) if scores is None else np.argsort(-scores, kind="stable")
    ordered = [prepared.candidates[i] for i in order] + prepared.candidates[rescored:]
    return diversify(ordered)[:DEPTH]


def evaluate_model(prepared: Sequence[Prepared], model: Model | None) -> dict[str, Any]:
    """`evaluate` of the model's order (None: the hand-tuned order)."""
    ranked = {
        q.stored.query.id: ranked_by(q, model.scores(q.rows) if model else None)
        for q in prepared
    }
    return evaluate([q.stored for q in prepared], ranked)


def cross_validate(
    prepared: Sequence[Prepared], penalty: float, folds: int = 5, **options: Any
) -> dict[str, Any]:
    """Each dev repository scored by a model trained on the other folds' repositories."""
    repos = sorted({q.stored.query.repo for q in prepared})
    fold_of = {repo: i % folds for i, repo in enumerate(repos)}
    ranked: dict[str, list[Any]] = {}
    for fold in range(folds):
        train = [q for q in prepared if fold_of[q.stored.query.repo] != fold]
        model = fit(train, penalty, **options)
        for q in prepared:
            if fold_of[q.stored.query.repo] == fold:
                ranked[q.stored.query.id] = ranked_by(q, model.scores(q.rows))
    return evaluate([q.stored for q in prepared], ranked)


def evaluate(queries: Sequence[StoredQuery], ranked: dict[str, list[Any]]) -> dict[str, Any]:
    """File NDCG@10 per query, its means over repositories (overall and per category) and
    definition-at-1, for `ranked` results per query id."""
    per_query = {q.query.id: score(q.query, ranked[q.query.id]) for q in queries}
    per_repo: dict[str, dict[str, list[float]]] = {}
    for q in queries:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("collect", "replay", "train"))
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--penalties", default="0.01,0.1,1,10,100,1000")
    parser.add_argument("--variant", choices=("residual", "pure"), default="residual",
                        help="residual: the hand-tuned score is a free feature; pure: left out")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all",
                        help="replay: which repositories")
    parser.add_argument("variants", nargs="*", help="replay: field=value,... per variant")
    parser.add_argument("--hybrid-only", action="store_true", help="replay: no single arms")
    parser.add_argument("--out", type=Path, default=None,
                        help="train: write the figures as JSON (results/quality_repos_learned.json)")
    parser.add_argument("--write", action="store_true", help="store the weights in the package")
    args = parser.parse_args(argv)
    if args.command == "collect":
        stored = collect(load_repos("all"), args.index_cache)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_bytes(pickle.dumps(stored))
        print(f"{len(stored)} queries -> {args.cache}")
        return 0
    stored = load(args.cache)
    if args.command == "replay":
        from sharc.ranking import DEFAULT_SETTINGS

        from benches.quality.tune_repos import parse_variant

        base = None
        for variant in args.variants or [""]:
            settings = parse_variant(variant.removeprefix("defaults"), DEFAULT_SETTINGS)
            for split in ("dev", "test") if args.split == "all" else (args.split,):
                queries = [q for q in stored if q.split == split]
                ranked = {q.query.id: replay(q, settings) for q in queries}
                result = evaluate(queries, ranked)
                base = base or {}
                if split not in base:
                    base[split] = result
                print(line(f"{split} {variant or 'defaults'}", result)
                      + f" | vs first {compare(result, base[split])}", flush=True)
        if args.variants:
            return 0
        for split in ("dev", "test") if args.split == "all" else (args.split,):
            queries = [q for q in stored if q.split == split]
            for mode in ("hybrid", "keyword", "semantic")[: 1 if args.hybrid_only else 3]:
                ranked = {q.query.id: replay(q, DEFAULT_SETTINGS, mode) for q in queries}
                print(line(f"{split} {mode}", evaluate(queries, ranked)))
        return 0
    return train(stored, args)


def train(stored: Sequence[StoredQuery], args: argparse.Namespace) -> int:
    from sharc.ranking import DEFAULT_SETTINGS

    options: dict[str, Any] = (
        {"free": ("hand",)} if args.variant == "residual" else {"free": (), "drop": ("hand",)}
    )
    dev = [prepare(q, DEFAULT_SETTINGS) for q in stored if q.split == "dev"]
    test = [prepare(q, DEFAULT_SETTINGS) for q in stored if q.split == "test"]
    hand_dev = evaluate_model(dev, None)
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
    hand_test = evaluate_model(test, None)
    learned_test = evaluate_model(test, model)
    print(line("dev learned (fit on dev)", evaluate_model(dev, model)))
    print(line("test hand-tuned", hand_test))
    print(line(f"test learned penalty {penalty:g}", learned_test)
          + f" | vs hand {compare(learned_test, hand_test)}")
    from sharc.ranking.learned import FEATURES

    for name, weight in zip(FEATURES, model.weights):
        print(f"  {name:24} {weight:+.3f}")
    if args.write:
        write_weights(model, penalty, args.variant)
    if args.out:
        from benches.quality.run import git_commit

        args.out.write_text(json.dumps({
            "benchmark": "sharc repository benchmark: learned combination against hand-tuned",
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


if __name__ == "__main__":
    raise SystemExit(main())
