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

Build the data first: `python -m benches.quality.build`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fnmatch
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benches.quality import handwritten, metrics
from benches.quality.dataset import REPO_ROOT, RESULTS_DIR, Dataset, data_dir

EMBEDDING_MODES = ("independent", "late", "combined")
#: `--ranking`: `field=value,...` over `DEFAULT_SETTINGS` for sharc's score-fusion searches.
RANKING = ""


def rrf_weights():  # type: ignore[no-untyped-def]
    """RRF as sharc ran it before score fusion, at its best on the dev sets (k=20; keyword
    weight 0.25 against 1.0 for sentences, 0.8 against 1.0 mixed, 1.0 against 0.35 for
    identifiers), as keyword shares, without the name-word lift."""
    import dataclasses

    from sharc.ranking import DEFAULT_SETTINGS

    return dataclasses.replace(
        DEFAULT_SETTINGS, method="rrf", k=20, natural_keyword=0.25 / 1.25,
        mixed_keyword=0.8 / 1.8, identifier_keyword=1.0 / 1.35, name_words_lift=0.0,
    )
SETS = ("cosqa", "csn", "handwritten")
DEFAULT_DEPTH = 100


@dataclass(frozen=True)
class Config:
    """One row of the ablation grid."""

    name: str
    engine: str  # sharc | baseline
    embedding_mode: str | None = None  # sharc: independent | late | combined | None (keyword)
    search_mode: str = "semantic"  # sharc: semantic | keyword | hybrid
    boosts: bool = True  # sharc hybrid: structural boosts on
    fusion: str = "score"  # sharc hybrid: score (the default weights) | rrf (rrf_weights())
    chunker: str | None = None  # baseline: fixed | langchain | sharc-no-header | sharc-header

    @property
    def build_key(self) -> tuple[str, str | None]:
        """Configurations with the same key share one index."""
        if self.engine == "baseline":
            return ("baseline", self.chunker)
        return ("sharc", self.embedding_mode)


def default_embedding_mode() -> str:
    try:
        from sharc.index import DEFAULT_EMBEDDING_MODE

        return str(DEFAULT_EMBEDDING_MODE)
    except ImportError:
        return "independent"


def all_configs(default_mode: str | None = None) -> list[Config]:
    from benches.quality.baselines import CHUNKERS

    default_mode = default_mode or default_embedding_mode()
    configs = [Config("sharc:keyword", "sharc", None, "keyword")]
    for mode in EMBEDDING_MODES:
        configs.append(Config(f"sharc:{mode}:semantic", "sharc", mode, "semantic"))
        configs.append(Config(f"sharc:{mode}:hybrid", "sharc", mode, "hybrid"))
        if mode == default_mode:
            configs.append(
                Config(
                    f"sharc:{mode}:hybrid-rrf", "sharc", mode, "hybrid", boosts=False, fusion="rrf"
                )
            )
            configs.append(
                Config(f"sharc:{mode}:hybrid-rrf-boosts", "sharc", mode, "hybrid", fusion="rrf")
            )
    configs.extend(Config(f"baseline:{c}", "baseline", chunker=c) for c in CHUNKERS)
    return configs


def ablation_groups(default_mode: str) -> dict[str, list[str]]:
    """Which rows make up each README ablation table."""
    return {
        "retrieval": [
            "sharc:keyword",
            f"sharc:{default_mode}:semantic",
            f"sharc:{default_mode}:hybrid-rrf",
            f"sharc:{default_mode}:hybrid-rrf-boosts",
            f"sharc:{default_mode}:hybrid",
        ],
        "vectors": [f"sharc:{m}:{s}" for s in ("semantic", "hybrid") for m in EMBEDDING_MODES],
        "chunking": [
            "baseline:fixed",
            "baseline:langchain",
            "baseline:sharc-no-header",
            "baseline:sharc-header",
        ],
    }


def select_configs(configs: Sequence[Config], patterns: str | None) -> list[Config]:
    if not patterns:
        return list(configs)
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [c for c in configs if any(fnmatch.fnmatchcase(c.name, p) for p in wanted)]
    if not chosen:
        raise SystemExit(f"no configuration matches {patterns!r}; see --list")
    return chosen


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


# -- engines -----------------------------------------------------------------------------------


@dataclass
class Built:
    """An index ready to answer: `search(texts, config) -> ranked lists of located results`."""

    search: Callable[[Sequence[str], Config, int], list[list[Any]]]
    index_seconds: float
    info: dict[str, Any] = field(default_factory=dict)
    close: Callable[[], None] = lambda: None


class Engines:
    """Builds indexes for configurations; `index_factory` and `embedder_factory` are seams for
    tests (default: `sharc.Index.open` and `sharc.embedding.load_embedder`).

    With `index_cache`, sharc indexes persist there (one per dataset and embedding mode) and a
    rerun only syncs them: for tuning search-side settings without re-embedding. The index time
    reported for a reused index is the one recorded when it was built cold. A change to the
    chunker or the embedder is not a file change: clear the cache after one.
    """

    def __init__(
        self,
        *,
        index_factory: Callable[..., Any] | None = None,
        embedder_factory: Callable[[], Any] | None = None,
        cache_path: Path | None = None,
        use_cache: bool = True,
        index_cache: Path | None = None,
    ) -> None:
        self._index_factory = index_factory
        self.index_cache = index_cache
        self._embedder_factory = embedder_factory
        self._embedder: Any = None
        self.cache_path = cache_path
        self.use_cache = use_cache
        self.model_id: str | None = None

    def index_factory(self) -> Callable[..., Any]:
        if self._index_factory is None:
            from sharc.index import Index

            self._index_factory = Index.open
        return self._index_factory

    def embedder(self) -> Any:
        if self._embedder is None:
            if self._embedder_factory is None:
                from sharc.embedding import load_embedder

                self._embedder_factory = load_embedder
            self._embedder = self._embedder_factory()
            self.model_id = getattr(self._embedder, "model_id", None)
        return self._embedder

    def build(self, dataset: Dataset, config: Config, workdir: Path) -> Built:
        if config.engine == "baseline":
            return self._build_baseline(dataset, config)
        return self._build_sharc(dataset, config, workdir)

    def _build_sharc(self, dataset: Dataset, config: Config, workdir: Path) -> Built:
        label = config.embedding_mode or "keyword"
        index_dir = workdir / f"index-{label}"
        if self.index_cache is not None:
            index_dir = self.index_cache / dataset.name.replace("/", "__") / label
        sidecar = index_dir.parent / f"{label}.build.json"
        reused = (index_dir / "manifest.sqlite").exists() and sidecar.is_file()
        index = self.index_factory()(
            dataset.root,
            index_dir=index_dir,
            embedding_mode=config.embedding_mode or default_embedding_mode(),
        )
        started = time.perf_counter()
        report = index.update(embed=config.embedding_mode is not None)
        seconds = time.perf_counter() - started
        info: dict[str, Any] = {}
        with contextlib.suppress(Exception):
            stats = index.stats()
            info = {
                "files": stats.files,
                "chunks": stats.chunks,
                "embedded_chunks": stats.embedded_chunks,
                "model": stats.model,
                "size_bytes": stats.size_bytes,
            }
            self.model_id = self.model_id or stats.model or None
        skipped = getattr(report, "skipped", None)
        if skipped is not None:
            info["skipped_files"] = len(skipped)
        if self.index_cache is not None:
            if reused:
                info["index_reused"] = True
                info["sync_seconds"] = round(seconds, 3)
                seconds = float(json.loads(sidecar.read_text())["index_seconds"])
            else:
                sidecar.parent.mkdir(parents=True, exist_ok=True)
                sidecar.write_text(
                    json.dumps({"index_seconds": seconds, "root": str(dataset.root)})
                )

        def search(texts: Sequence[str], cfg: Config, depth: int) -> list[list[Any]]:
            from sharc.ranking import DEFAULT_SETTINGS

            from benches.quality.tune_repos import parse_variant

            defaults = parse_variant(RANKING, DEFAULT_SETTINGS)
            settings = rrf_weights() if cfg.fusion == "rrf" else defaults
            index.ranking_settings = settings if cfg.boosts else settings.plain()
            return [
                metrics.read_in_order(index.search(t, limit=depth, mode=cfg.search_mode))[:depth]
                for t in texts
            ]

        return Built(search, seconds, info, getattr(index, "close", lambda: None))

    def _build_baseline(self, dataset: Dataset, config: Config) -> Built:
        from benches.quality.baselines import BaselineIndex, EmbeddingCache, default_cache_path

        embedder = self.embedder()
        cache_path = (self.cache_path or default_cache_path()) if self.use_cache else None
        cache = EmbeddingCache(cache_path, getattr(embedder, "model_id", "unknown"))
        try:
            built = BaselineIndex.build(dataset.root, config.chunker or "", embedder, cache)
        finally:
            cache.close()

        def search(texts: Sequence[str], cfg: Config, depth: int) -> list[list[Any]]:
            return built.search_many(texts, depth)

        info = {"chunks": len(built.chunks), "cache_hits": built.cache_hits}
        return Built(search, built.index_seconds, info)


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


# -- provenance ----------------------------------------------------------------------------------


def git_commit() -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    try:
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        dirty = None
    return {"commit": commit, "dirty": dirty}


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }
    with contextlib.suppress(AttributeError):
        info["cpus_available"] = len(os.sched_getaffinity(0))
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
                break
    return info


def sharc_version() -> str | None:
    try:
        import sharc

        return getattr(sharc, "__version__", None)
    except ImportError:
        return None


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
    global RANKING
    RANKING = args.ranking
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
    engines = Engines(use_cache=not args.no_cache, index_cache=args.index_cache)
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
