"""Run the retrieval-quality benchmark: index each dataset per configuration, search, score.

    python -m benches.quality.run [--sets cosqa,csn,handwritten] [--configs PATTERN,...]
        [--datasets PATTERN,...] [--limit-queries N] [--depth 100]
        [--out benches/results/quality.json] [--details FILE.jsonl] [--list]

Configurations (`--list` prints them):

- `sharc:<embedding mode>:<search mode>`: the real pipeline, `Index.open(root,
  index_dir=tmp, embedding_mode=...)`, `update()`, `search(query, mode=...)`. Embedding modes
  independent / late / combined; search modes semantic / hybrid (the default: score fusion and
  structural boosts), plus, for the default embedding mode, `hybrid-rrf` (weighted reciprocal
  rank fusion with the structural boosts off: `RankingSettings.plain()`)
  and `hybrid-rrf-boosts` (RRF with the boosts on: sharc's default before score fusion).
  One index per embedding mode and dataset; its build time is each row's `index_seconds`.
- `sharc:keyword`: BM25 only, over an index built without vectors (`update(embed=False)`).
- `baseline:<chunker>`: the chunking ablation (see `baselines`): fixed 1000/200 windows,
  LangChain `from_language`, sharc chunks without / with headers; same model, cosine only.

The configurations are in `benches.quality.configs`, the index builders in
`benches.quality.engines`, the provenance recorded with each result in
`benches.quality.provenance`; this module loads the datasets, scores, reports and is the
command.

Build the data first: `python -m benches.quality.build`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import json
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benches.quality import handwritten, metrics
from benches.quality.configs import (
    DEFAULT_DEPTH,
    SETS,
    Config,
    ablation_groups,
    all_configs,
    default_embedding_mode,
    select_configs,
)
from benches.quality.dataset import REPO_ROOT, RESULTS_DIR, Dataset, data_dir
from benches.quality.engines import Built, Engines
from benches.quality.provenance import git_commit, machine, sharc_version

# -- datasets ----------------------------------------------------------------------------------


def load_datasets(sets: Sequence[str], patterns: str | None = None) -> list[Dataset]:
    """The built datasets of `sets`, optionally only names matching `patterns`."""
    base = data_dir()
    found: list[Dataset] = []
    missing: list[str] = []
    if "cosqa" in sets:
        path = base / "cosqa" / "dataset.json"
        if path.is_file():
            found.append(Dataset.from_json(path))
        else:
            missing.append(str(path))
    if "csn" in sets:
        paths = sorted((base / "csn").glob("*/dataset.json"))
        found.extend(Dataset.from_json(p) for p in paths)
        if not paths:
            missing.append(str(base / "csn"))
    if "handwritten" in sets:
        for path in handwritten.query_files():
            dataset = handwritten.load(path)
            if dataset.root.is_dir():
                found.append(dataset)
            else:
                missing.append(str(dataset.root))
    if missing:
        raise SystemExit(
            "datasets not built: " + ", ".join(missing) + "\nhint: python -m benches.quality.build"
        )
    if patterns:
        wanted = [p.strip() for p in patterns.split(",") if p.strip()]
        found = [d for d in found if any(fnmatch.fnmatchcase(d.name, p) for p in wanted)]
    return found


# -- running -----------------------------------------------------------------------------------


@dataclass
class Row:
    dataset: str
    set: str
    config: str
    scores: list[metrics.QueryScore] = field(default_factory=list)
    index_seconds: float | None = None
    search_seconds: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dataset": self.dataset, "set": self.set, "config": self.config}
        if self.error:
            out["error"] = self.error
            return out
        out["queries"] = len(self.scores)
        out["metrics"] = metrics.aggregate(self.scores)
        out["index_seconds"] = round(self.index_seconds or 0.0, 3)
        out["search_ms_per_query"] = round(
            1000.0 * (self.search_seconds or 0.0) / max(1, len(self.scores)), 2
        )
        out.update(self.info)
        return out


def evaluate(
    datasets: Sequence[Dataset],
    configs: Sequence[Config],
    engines: Engines,
    *,
    depth: int = DEFAULT_DEPTH,
    details: Callable[[dict[str, Any]], None] | None = None,
    log: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
) -> list[Row]:
    """Score every configuration on every dataset; one index per (dataset, build key)."""
    rows: list[Row] = []
    for dataset in datasets:
        by_build: dict[tuple[str, str | None], list[Config]] = {}
        for config in configs:
            by_build.setdefault(config.build_key, []).append(config)
        with tempfile.TemporaryDirectory(prefix="sharc-quality-") as tmp:
            for key, group in by_build.items():
                log(
                    f"[{dataset.name}] building {key[0]}:{key[1] or 'keyword'} "
                    f"({len(dataset.queries)} queries)"
                )
                try:
                    built = engines.build(dataset, group[0], Path(tmp))
                except Exception as exc:  # noqa: BLE001 - one failed build must not end the run
                    message = f"{type(exc).__name__}: {exc}"
                    log(f"  build failed: {message}\n{traceback.format_exc()}")
                    rows.extend(
                        Row(dataset.name, dataset.set, c.name, error=message) for c in group
                    )
                    continue
                log(f"  indexed in {built.index_seconds:.1f}s {built.info}")
                try:
                    for config in group:
                        rows.append(_score(dataset, config, built, depth, details, log))
                finally:
                    built.close()
    return rows


def _score(
    dataset: Dataset,
    config: Config,
    built: Built,
    depth: int,
    details: Callable[[dict[str, Any]], None] | None,
    log: Callable[[str], None],
) -> Row:
    row = Row(
        dataset.name,
        dataset.set,
        config.name,
        index_seconds=built.index_seconds,
        info=dict(built.info),
    )
    texts = [q.text for q in dataset.queries]
    started = time.perf_counter()
    try:
        ranked = built.search(texts, config, depth)
    except Exception as exc:  # noqa: BLE001
        row.error = f"{type(exc).__name__}: {exc}"
        log(f"  {config.name}: search failed: {row.error}")
        return row
    row.search_seconds = time.perf_counter() - started
    for query, results in zip(dataset.queries, ranked):
        score = metrics.score_query(results, query.targets, dataset.hit_rule)
        row.scores.append(score)
        if details:
            details(
                {
                    "dataset": dataset.name,
                    "config": config.name,
                    "query": query.id,
                    "rank": score.rank,
                    "top": [f"{r.path}:{r.start_line}-{r.end_line}" for r in results[:3]],
                }
            )
    summary = metrics.aggregate(row.scores)
    log(
        f"  {config.name}: MRR@10 {summary['mrr@10']:.1f} R@1 {summary['recall@1']:.1f} "
        f"R@10 {summary['recall@10']:.1f} nDCG@10 {summary['ndcg@10']:.1f}"
    )
    return row


def summarize_sets(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Per set x configuration: metrics pooled over all the set's queries, index time summed."""
    grouped: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        grouped.setdefault((row.set, row.config), []).append(row)
    out: dict[str, dict[str, Any]] = {}
    for (set_name, config), members in sorted(grouped.items()):
        ok = [r for r in members if not r.error]
        entry: dict[str, Any] = {"datasets": [r.dataset for r in members]}
        if len(ok) < len(members):
            entry["errors"] = {r.dataset: r.error for r in members if r.error}
        scores = [s for r in ok for s in r.scores]
        entry["queries"] = len(scores)
        entry["metrics"] = metrics.aggregate(scores)
        entry["index_seconds"] = round(sum(r.index_seconds or 0.0 for r in ok), 3)
        # Per query, in dataset and query order (the same for every configuration of a set):
        # the rank of the first relevant result, for paired comparisons (`benches.report`).
        entry["ranks"] = [s.rank for s in scores]
        out.setdefault(set_name, {})[config] = entry
    return out


# -- report ------------------------------------------------------------------------------------


def report(
    rows: Sequence[Row],
    datasets: Sequence[Dataset],
    configs: Sequence[Config],
    engines: Engines,
    settings: dict[str, Any],
) -> dict[str, Any]:
    default_mode = default_embedding_mode()
    return {
        "benchmark": "sharc retrieval quality",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git": git_commit(),
        "sharc_version": sharc_version(),
        "model": engines.model_id,
        "machine": machine(),
        "settings": {**settings, "default_embedding_mode": default_mode},
        "metrics_note": "percent; MRR over the top `depth` results, the rest at 10; "
        "function hit rule for cosqa/csn, overlap rule for handwritten",
        "datasets": {
            d.name: {
                "set": d.set,
                "version": d.version,
                "queries": len(d.queries),
                "hit_rule": d.hit_rule,
                **({"language": d.meta["language"]} if "language" in d.meta else {}),
            }
            for d in datasets
        },
        "configs": {c.name: {k: v for k, v in vars(c).items() if k != "name"} for c in configs},
        "ablations": ablation_groups(default_mode),
        "sets": summarize_sets(rows),
        "rows": [r.to_json() for r in rows],
    }


# -- command line --------------------------------------------------------------------------------


def _ensure_sharc_importable() -> None:
    """Use the installed sharc, else the in-tree package (extension built in place)."""
    try:
        import sharc  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(REPO_ROOT / "python"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Measure sharc's retrieval quality on CoSQA dev, CodeSearchNet-style sets "
        "and hand-written queries (build the data first: python -m benches.quality.build)."
    )
    parser.add_argument(
        "--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS)
    )
    parser.add_argument("--configs", default="", help="comma-separated name patterns (fnmatch)")
    parser.add_argument("--datasets", default="", help="comma-separated dataset name patterns")
    parser.add_argument("--limit-queries", type=int, default=0, help="first N queries per dataset")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="results per query")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "quality.json")
    parser.add_argument("--details", type=Path, help="write per-query ranks as JSON lines")
    parser.add_argument(
        "--no-cache", action="store_true", help="baselines: embed without the cache"
    )
    parser.add_argument(
        "--index-cache",
        type=Path,
        help="keep sharc indexes here and reuse them on reruns (for tuning search only; "
        "e.g. benches/work/indexes)",
    )
    parser.add_argument("--list", action="store_true", help="list configurations and datasets")
    parser.add_argument("--ranking", default="",
                        help="field=value,... over the default ranking settings (sharc hybrid)")
    args = parser.parse_args(argv)
    _ensure_sharc_importable()
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    if set(sets) - set(SETS):
        parser.error(f"unknown sets: {', '.join(sorted(set(sets) - set(SETS)))}")
    configs = select_configs(all_configs(), args.configs)
    if args.list:
        for config in all_configs():
            print(config.name)
        for dataset in load_datasets(sets, args.datasets or None):
            print(f"{dataset.name}\t{len(dataset.queries)} queries\t{dataset.version}")
        return 0
    datasets = [d.limited(args.limit_queries) for d in load_datasets(sets, args.datasets or None)]
    if not datasets:
        parser.error("no dataset selected")
    engines = Engines(
        use_cache=not args.no_cache, index_cache=args.index_cache, ranking=args.ranking
    )
    details_file = args.details.open("w", encoding="utf-8") if args.details else None
    try:
        write_detail = (
            (lambda rec: details_file.write(json.dumps(rec) + "\n")) if details_file else None
        )
        rows = evaluate(datasets, configs, engines, depth=args.depth, details=write_detail)
    finally:
        if details_file:
            details_file.close()
    settings = {
        "index_cache": str(args.index_cache) if args.index_cache else None,
        "depth": args.depth,
        "limit_queries": args.limit_queries or None,
        "sets": sets,
        "configs": args.configs or "all",
        "datasets": args.datasets or "all",
        "ranking": args.ranking or "defaults",
    }
    payload = report(rows, datasets, configs, engines, settings)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
