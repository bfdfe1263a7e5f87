"""The repository benchmark: hand-written questions over 38 real repositories in 19 languages.

Queries live in `benches/queries/repos/<repo>.json`, written by reading the code before any
result was seen: per repository 4 symbol, 4 semantic and 4 architecture questions, then at
least 4 topic questions (a whole area of the code in words, "how are plugins loaded"; targets:
the one to three files a maintainer opens first) and, where the repository has one, a symbol
question for a name defined more than once (`"duplicate": true`; target: the primary
definition). `SPLIT.json` holds
the dev/test split, fixed before any tuning: tune on dev, report test separately.

The repositories are the pinned snapshots in `../shared/eval/repos/` (unpacked once to
`benches/data/repos/`); their indexes are kept in `benches/data/index-cache/repos/` so a rerun
only syncs them (search-side tuning costs no embedding).

Metrics per query and search mode:

- file level (the headline): results are read as a ranked list of files, each file once at its
  best rank; NDCG@10 with binary gains (a target file is relevant), Recall@10 and MRR;
- chunk level: the first 10 results as returned, a result relevant when it overlaps a target's
  span (each target once): NDCG@10;
- definition at 1: for symbol queries, the first result holds the first line of a target span
  or lies at least half inside it (the chunk that defines the symbol, with its doc comment).

Means are taken per repository, then over repositories (the headline), and also per language
and per category; paired bootstrap intervals compare hybrid with each single arm per query, and
with `hybrid-previous`: hybrid search with the ranking defaults from before this benchmark
(`PREVIOUS_RANKING`), on the same indexes.

    python -m benches.quality.repos                   # dev and test -> results/quality_repos.json
    python -m benches.quality.repos --split dev --out /tmp/dev.json
    python -m benches.quality.repos --check           # targets exist and spans fit their files
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import tarfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.asked_otherwise import (
    FRAMINGS,
    file_name_queries,
    line_at_1,
    member_forms,
    retyped,
    text_at_1,
)
from benches.quality.dataset import QUERIES_DIR, RESULTS_DIR, Target, data_dir, eval_dir
from benches.quality.paired import against_baseline

REPO_QUERIES = QUERIES_DIR / "repos"
#: A second set of dev questions about whole topics and flows (`repos-fresh/<repo>.json`),
#: written on 2026-12-07 by readers of the code who saw neither sharc's results nor the
#: first set's, after fifty sessions of tuning on the first: what tells whether a mechanism
#: chosen on the first carries to questions it was not chosen on.
FRESH_QUERIES = QUERIES_DIR / "repos-fresh"
#: The same questions asked tersely, in 3-7 words as a search box is typed into ("streaming
#: response bodies"), written blind from them by a third reader: same ids and targets.
FRESH_TERSE_QUERIES = QUERIES_DIR / "repos-fresh-terse"
CATEGORIES = ("symbol", "semantic", "architecture", "topic")
MODES = ("hybrid", "keyword", "semantic", "hybrid-previous")
#: Modes that search the fast set of a two-stage index (`sharc.fast_vectors`): the first stage.
FAST_SET_MODES = ("hybrid-fast", "semantic-fast")
#: The ranking defaults before this benchmark existed: `hybrid-previous` searches with them.
PREVIOUS_RANKING = {
    "identifier_keyword": 0.7, "natural_keyword": 0.23, "qualified_match_factor": 1.0,
    "definition_file_factor": 1.0, "type_definition_factor": 1.0,
    "extending_definition_factor": 1.0, "path_words_lift": 0.0, "test_factor": 0.6,
    "example_factor": 1.0, "docs_factor": 0.75, "fragment_factor": 1.0,
    "declaration_factor": 1.0, "definitions_first": False, "semantic_floor_score": 0.0,
    "files_first": False, "even_share": 0.0, "fast_opinion_share": 0.0,
}
DEPTH = 30  # results read per query: enough to rank 10 distinct files
@dataclass(frozen=True)
class RepoQuery:
    id: str
    repo: str
    category: str
    text: str
    targets: tuple[Target, ...]
    #: A symbol query for a name defined more than once; its target is the primary definition.
    duplicate: bool = False


@dataclass(frozen=True)
class Repo:
    name: str
    language: str
    split: str
    archive: str
    queries: tuple[RepoQuery, ...]

    @property
    def root(self) -> Path:
        return data_dir() / "repos" / self.name


def load_repos(
    split: str = "all", names: Sequence[str] = (), questions: Path = REPO_QUERIES
) -> list[Repo]:
    """The repositories with their queries (from `questions`: the benchmark's, or
    `FRESH_QUERIES`, which holds dev repositories only), in name order."""
    table = json.loads((REPO_QUERIES / "SPLIT.json").read_text())["repos"]
    repos = []
    for name, info in sorted(table.items()):
        if (split != "all" and info["split"] != split) or (names and name not in names):
            continue
        if not (questions / f"{name}.json").is_file() and questions != REPO_QUERIES:
            continue
        payload = json.loads((questions / f"{name}.json").read_text())
        queries = tuple(
            RepoQuery(
                id=raw["id"],
                repo=name,
                category=raw["category"],
                text=raw["text"],
                targets=tuple(
                    Target(t["path"], t.get("start_line"), t.get("end_line"))
                    for t in raw["targets"]
                ),
                duplicate=bool(raw.get("duplicate", False)),
            )
            for raw in payload["queries"]
        )
        repos.append(Repo(name, info["language"], info["split"], info["archive"], queries))
    return repos


def _safe_member(member: tarfile.TarInfo, destination: str) -> tarfile.TarInfo | None:
    """The `data` filter, skipping what it refuses (os-lib's test tree holds a symlink to an
    absolute path, kept on purpose as a test input) instead of failing the whole archive."""
    try:
        return tarfile.data_filter(member, destination)
    except tarfile.FilterError:
        return None


def unpack(repo: Repo) -> Path:
    """The repository's tree, unpacked from its pinned archive on first use."""
    if repo.root.is_dir():
        return repo.root
    archive = eval_dir() / "repos" / repo.archive
    repo.root.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(repo.root.parent, filter=_safe_member)
    if not repo.root.is_dir():
        raise FileNotFoundError(f"{archive} did not unpack to {repo.root}")
    return repo.root


def check(repos: Sequence[Repo], *, counted: bool = True) -> list[str]:
    """Problems with the query files: unknown categories, missing files, spans past the end,
    and with `counted`, too few questions of a category (the benchmark's own set)."""
    problems = []
    for repo in repos:
        root = unpack(repo)
        counts = {c: sum(q.category == c for q in repo.queries) for c in CATEGORIES}
        few = min(counts.values()) < 3 or counts["topic"] < 4 or len(repo.queries) < 10
        if counted and few:
            problems.append(f"{repo.name}: too few queries per category: {counts}")
        for query in repo.queries:
            if query.category not in CATEGORIES:
                problems.append(f"{query.id}: unknown category {query.category!r}")
            for target in query.targets:
                path = root / target.path
                if not path.is_file():
                    problems.append(f"{query.id}: no file {target.path}")
                    continue
                lines = path.read_bytes().count(b"\n") + 1
                if target.end_line is not None and target.end_line > lines:
                    problems.append(f"{query.id}: {target.path} has {lines} lines,"
                                    f" span ends at {target.end_line}")
    return problems


# -- scoring -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """One query under one mode."""

    file_rank: int | None  # rank of the first relevant file among distinct files
    file_ndcg: float
    file_recall: float
    chunk_ndcg: float
    definition_at_1: float | None  # symbol queries only
    #: File NDCG@10 over the first 10 results as returned: a later chunk of a file already
    #: shown gains nothing and takes a place (what a reader of the top 10 sees).
    shown_ndcg: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "file_rank": self.file_rank,
            "file_ndcg": round(self.file_ndcg, 4),
            "file_recall": round(self.file_recall, 4),
            "chunk_ndcg": round(self.chunk_ndcg, 4),
            "definition_at_1": self.definition_at_1,
            "shown_ndcg": round(self.shown_ndcg, 4),
        }


def distinct_files(results: Sequence[metrics.Located]) -> list[str]:
    """The files of `results` in order of their best rank."""
    seen: dict[str, None] = {}
    for result in results:
        seen.setdefault(metrics.normalize_path(result.path), None)
    return list(seen)


def defines(result: metrics.Located, target: Target) -> bool:
    """The result is the target's definition: it holds the definition's first line (a chunk
    may carry the doc comment above it), or lies at least half inside the span."""
    if metrics.normalize_path(result.path) != metrics.normalize_path(target.path):
        return False
    starts_inside = result.start_line <= (target.start_line or 0) <= result.end_line
    return starts_inside or metrics.function_hit(result, target)


def score(query: RepoQuery, results: Sequence[metrics.Located]) -> Score:
    wanted = {metrics.normalize_path(t.path) for t in query.targets}
    files = distinct_files(results)[:10]
    gains = [1 if path in wanted else 0 for path in files]
    rank = next((i + 1 for i, gain in enumerate(gains) if gain), None)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(10, len(wanted))))
    file_ndcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / ideal
    chunk = metrics.score_query(metrics.read_in_order(results)[:10], query.targets, "overlap")
    definition = None
    if query.category == "symbol":
        definition = float(bool(results) and any(
            defines(results[0], t) for t in query.targets if t.start_line
        ))
    shown: set[str] = set()
    shown_gains = []
    for result in list(results)[:10]:
        path = metrics.normalize_path(result.path)
        shown_gains.append(1 if path in wanted and path not in shown else 0)
        shown.add(path)
    shown_ndcg = sum(g / math.log2(i + 2) for i, g in enumerate(shown_gains)) / ideal
    return Score(rank, file_ndcg, sum(gains) / min(10, len(wanted)), chunk.ndcg_at_10, definition,
                 shown_ndcg)


# -- running -----------------------------------------------------------------------------------


@dataclass
class RepoRun:
    repo: Repo
    index_seconds: float
    chunks: int
    scores: dict[str, dict[str, Score]] = field(default_factory=dict)  # mode -> query id -> score
    #: mode -> symbol query id -> its score in each of `FRAMINGS`
    framed: dict[str, dict[str, list[Score]]] = field(default_factory=dict)
    #: mode -> symbol query id -> its score in each of its `retyped` forms
    retyped: dict[str, dict[str, list[Score]]] = field(default_factory=dict)
    #: mode -> symbol query id (a member of a type) -> its score in each of `member_forms`
    members: dict[str, dict[str, list[Score]]] = field(default_factory=dict)
    #: mode -> topic query id -> 1.0 where its first target came first, in each of
    #: `FILE_NAME_FORMS`
    named: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    #: mode -> symbol query id -> 1.0 where the first result held the line, in each of
    #: `LOCATION_FORMS`
    located: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    #: mode -> query id -> 1.0 where the first result held the string pasted, in each of
    #: `LITERAL_FORMS`
    quoted: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    search_ms: dict[str, float] = field(default_factory=dict)


def run_repo(repo: Repo, modes: Sequence[str], index_cache: Path, *, rechunk: bool) -> RepoRun:
    import sharc

    root = unpack(repo)
    index = sharc.Index.open(root, index_dir=index_cache / repo.name)
    if rechunk and index.exists:
        _expire(index_cache / repo.name / "manifest.sqlite")
    started = time.perf_counter()
    report = index.update(embed=any(m != "keyword" for m in modes))
    seconds = time.perf_counter() - started
    if report.failed:
        print(f"  {repo.name}: {len(report.failed)} files failed: {report.failed[:3]}",
              file=sys.stderr)
    run = RepoRun(repo, seconds, index.stats().chunks)
    for mode in modes:
        index.ranking_settings = _settings_for(mode)
        options = _search_options(mode)
        index.search(repo.queries[0].text, **options)  # loads the model: not timed
        started = time.perf_counter()
        run.scores[mode] = {
            q.id: score(q, list(index.search(q.text, limit=DEPTH, **options)))
            for q in repo.queries
        }
        run.search_ms[mode] = 1000 * (time.perf_counter() - started) / len(repo.queries)
        run.framed[mode] = {
            q.id: [
                score(q, list(index.search(framing.format(name=q.text), limit=DEPTH, **options)))
                for framing in FRAMINGS
            ]
            for q in repo.queries if q.category == "symbol"
        }
        run.retyped[mode] = {
            q.id: [score(q, list(index.search(form, limit=DEPTH, **options)))
                   for form in retyped(q.text)]
            for q in repo.queries if q.category == "symbol" and retyped(q.text)
        }
        run.members[mode] = {
            q.id: [score(q, list(index.search(form, limit=DEPTH, **options)))
                   for form in member_forms(q.text)]
            for q in repo.queries if q.category == "symbol" and member_forms(q.text)
        }
        run.named[mode] = {
            q.id: [
                float(bool(hits) and hits[0].path == q.targets[0].path)
                for text in file_name_queries(q.targets[0].path)
                for hits in [list(index.search(text, limit=1, **options))]
            ]
            for q in repo.queries if q.category == "topic"
        }
        run.located[mode] = {
            q.id: line_at_1(index, repo.name, q, options)
            for q in repo.queries if q.category == "symbol" and q.targets[0].start_line
        }
        run.quoted[mode] = {
            q.id: found for q in repo.queries
            if (found := text_at_1(index, root, q, options)) is not None
        }
    return run


def _search_options(mode: str) -> dict[str, Any]:
    """`Index.search`'s options for a benchmark mode."""
    if mode in FAST_SET_MODES:
        return {"mode": mode.removesuffix("-fast"), "vectors": "fast"}
    return {"mode": "hybrid" if mode == "hybrid-previous" else mode}


def _settings_for(mode: str) -> Any:
    import dataclasses

    from sharc.ranking import DEFAULT_SETTINGS

    if mode == "hybrid-previous":
        return dataclasses.replace(DEFAULT_SETTINGS, **PREVIOUS_RANKING)
    return DEFAULT_SETTINGS


def _expire(manifest_path: Path) -> None:
    """Make the next sync chunk every file again (the chunker changed, the files did not):
    chunks whose text is unchanged keep their vectors."""
    from sharc.manifest import Manifest

    manifest = Manifest(manifest_path, writable=True)
    try:
        manifest.forget_files()
        manifest.commit()
    finally:
        manifest.close()


def _mean(values: Sequence[float]) -> float:
    return round(100.0 * sum(values) / len(values), 1) if values else float("nan")


def _metric(score: Score, name: str) -> float:
    if name == "file_mrr":
        return 1.0 / score.file_rank if score.file_rank else 0.0
    return float(getattr(score, name))


METRIC_NAMES = ("file_ndcg", "file_recall", "file_mrr", "chunk_ndcg", "shown_ndcg")


def summarize(runs: Sequence[RepoRun], mode: str) -> dict[str, Any]:
    """Means over repositories (each repository's mean over its queries), overall, per
    category and per language; definition-at-1 pooled over symbol queries."""

    def repo_means(selected: Sequence[RepoRun], category: str | None) -> dict[str, float]:
        per_repo: dict[str, list[float]] = {name: [] for name in METRIC_NAMES}
        for run in selected:
            scores = [s for qid, s in run.scores[mode].items()
                      if category is None or _category(run, qid) == category]
            if not scores:
                continue
            for name in METRIC_NAMES:
                per_repo[name].append(sum(_metric(s, name) for s in scores) / len(scores))
        return {name: _mean(values) for name, values in per_repo.items()}

    definition = [s.definition_at_1 for run in runs for s in run.scores[mode].values()
                  if s.definition_at_1 is not None]
    duplicates = {q.id for run in runs for q in run.repo.queries if q.duplicate}
    definition_duplicate = [s.definition_at_1 for run in runs
                            for qid, s in run.scores[mode].items()
                            if qid in duplicates and s.definition_at_1 is not None]
    framed = [s for run in runs for scores in run.framed.get(mode, {}).values() for s in scores]
    retyped_scores = [
        s for run in runs for scores in run.retyped.get(mode, {}).values() for s in scores
    ]
    languages = sorted({run.repo.language for run in runs})
    return {
        "repositories": len(runs),
        "queries": sum(len(run.scores[mode]) for run in runs),
        "overall": repo_means(runs, None),
        "categories": {c: repo_means(runs, c) for c in CATEGORIES},
        "languages": {
            lang: repo_means([r for r in runs if r.repo.language == lang], None)
            for lang in languages
        },
        "repos": {run.repo.name: repo_means([run], None)["file_ndcg"] for run in runs},
        "definition_at_1": _mean(definition),
        "definition_at_1_duplicate": _mean(definition_duplicate),
        "definition_at_1_framed": _mean(
            [s.definition_at_1 for s in framed if s.definition_at_1 is not None]
        ),
        "file_ndcg_framed": _mean([s.file_ndcg for s in framed]),
        "definition_at_1_member": _mean([
            s.definition_at_1 or 0.0 for run in runs
            for scores in run.members.get(mode, {}).values() for s in scores
        ]),
        "file_at_1_named": _mean(
            [v for run in runs for values in run.named.get(mode, {}).values() for v in values]
        ),
        "line_at_1_located": _mean(
            [v for run in runs for values in run.located.get(mode, {}).values() for v in values]
        ),
        "text_at_1_quoted": _mean(
            [v for run in runs for values in run.quoted.get(mode, {}).values() for v in values]
        ),
        "definition_at_1_retyped": _mean(
            [s.definition_at_1 for s in retyped_scores if s.definition_at_1 is not None]
        ),
        "search_ms": round(sum(r.search_ms[mode] for r in runs) / len(runs), 2),
    }


def _category(run: RepoRun, query_id: str) -> str:
    return next(q.category for q in run.repo.queries if q.id == query_id)


def comparisons(runs: Sequence[RepoRun], modes: Sequence[str]) -> dict[str, Any]:
    """Hybrid minus each single arm, file NDCG@10, per category, with paired bootstrap."""
    out: dict[str, Any] = {}
    if "hybrid" not in modes:
        return out
    for other in (m for m in modes if m != "hybrid"):  # the arms, and the previous ranking
        entry = {}
        for category in (None, *CATEGORIES):
            pairs = [
                (run.scores["hybrid"][q.id].file_ndcg, run.scores[other][q.id].file_ndcg)
                for run in runs for q in run.repo.queries
                if category is None or q.category == category
            ]
            if pairs:
                mean, low, high = metrics.paired_bootstrap(*zip(*pairs))
                entry[category or "all"] = [round(mean, 1), round(low, 1), round(high, 1)]
        out[f"hybrid-{other}"] = entry
    return out


def report(runs: Sequence[RepoRun], modes: Sequence[str]) -> dict[str, Any]:
    from benches.quality.provenance import git_commit, machine

    splits = {}
    for split in ("dev", "test"):
        selected = [run for run in runs if run.repo.split == split]
        if selected:
            splits[split] = {
                "modes": {mode: summarize(selected, mode) for mode in modes},
                "hybrid_vs_arms": comparisons(selected, modes),
            }
    return {
        "benchmark": "sharc repository benchmark (38 repositories, 19 languages)",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git": git_commit(),
        "machine": machine(),
        "metrics_note": "percent; means per repository, then over repositories; file level:"
        " distinct files in rank order, binary relevance; chunk level: overlap rule",
        "splits": splits,
        "index": {run.repo.name: {"seconds": round(run.index_seconds, 1), "chunks": run.chunks}
                  for run in runs},
        "queries": {
            q.id: {"category": q.category, "split": run.repo.split, "duplicate": q.duplicate,
                   **{mode: _query_json(run, mode, q.id) for mode in modes}}
            for run in runs for q in run.repo.queries
        },
    }


def _query_json(run: RepoRun, mode: str, query_id: str) -> dict[str, Any]:
    """A query's scores under `mode`; a symbol query's also asked in words (`FRAMINGS`)."""
    entry = run.scores[mode][query_id].to_json()
    framed = run.framed.get(mode, {}).get(query_id)
    if framed:
        entry["framed_definition_at_1"] = round(
            sum(s.definition_at_1 or 0.0 for s in framed) / len(framed), 4
        )
    members = run.members.get(mode, {}).get(query_id)
    if members:
        entry["member_definition_at_1"] = round(
            sum(s.definition_at_1 or 0.0 for s in members) / len(members), 4
        )
    named = run.named.get(mode, {}).get(query_id)
    if named:
        entry["named_file_at_1"] = round(sum(named) / len(named), 4)
    located = run.located.get(mode, {}).get(query_id)
    if located:
        entry["located_at_1"] = round(sum(located) / len(located), 4)
    quoted = run.quoted.get(mode, {}).get(query_id)
    if quoted:
        entry["quoted_at_1"] = round(sum(quoted) / len(quoted), 4)
    retyped_scores = run.retyped.get(mode, {}).get(query_id)
    if retyped_scores:
        entry["retyped_definition_at_1"] = round(
            sum(s.definition_at_1 or 0.0 for s in retyped_scores) / len(retyped_scores), 4
        )
    return entry


def print_summary(result: dict[str, Any]) -> None:
    for split, entry in result["splits"].items():
        for mode, summary in entry["modes"].items():
            overall = summary["overall"]
            cats = " ".join(f"{c[:4]} {summary['categories'][c]['file_ndcg']:5.1f}"
                            for c in CATEGORIES)
            print(f"{split:4} {mode:8} NDCG@10 {overall['file_ndcg']:5.1f} R@10"
                  f" {overall['file_recall']:5.1f} MRR {overall['file_mrr']:5.1f} chunk"
                  f" {overall['chunk_ndcg']:5.1f} shown {overall['shown_ndcg']:5.1f} | {cats} | def@1"
                  f" {summary['definition_at_1']:5.1f} (names defined more than once"
                  f" {summary['definition_at_1_duplicate']:5.1f}; asked in words"
                  f" {summary['definition_at_1_framed']:5.1f}; typed otherwise"
                  f" {summary['definition_at_1_retyped']:5.1f}; a member in words"
                  f" {summary['definition_at_1_member']:5.1f}) | file asked by its name"
                  f" {summary['file_at_1_named']:5.1f} | line by file and line"
                  f" {summary['line_at_1_located']:5.1f} | a string pasted"
                  f" {summary['text_at_1_quoted']:5.1f}")
        for name, per_category in entry["hybrid_vs_arms"].items():
            print(f"{split:4} {name}: " + "  ".join(
                f"{c} {m:+.1f} [{lo:+.1f}, {hi:+.1f}]" for c, (m, lo, hi) in per_category.items()
            ))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--repos", default="", help="comma-separated repository names")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--index-cache", type=Path,
                        default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_repos.json")
    parser.add_argument("--check", action="store_true", help="only check the query files")
    parser.add_argument("--rechunk", action="store_true",
                        help="chunk every file again (after a chunker change)")
    parser.add_argument("--baseline", type=Path,
                        help="an earlier result file: hybrid's per-query change against it")
    parser.add_argument("--fresh", nargs="?", const="written", choices=("written", "terse"),
                        help="the second set of dev questions instead (`FRESH_QUERIES`), or"
                             " `--fresh terse`: the same asked tersely (`FRESH_TERSE_QUERIES`)")
    parser.add_argument("--baseline-note", default="",
                        help="what the baseline was, for the report (`the ranking before ...`)")
    args = parser.parse_args(argv)
    names = [n for n in args.repos.split(",") if n]
    questions = {None: REPO_QUERIES, "written": FRESH_QUERIES, "terse": FRESH_TERSE_QUERIES}
    repos = load_repos(args.split, names, questions[args.fresh])
    if args.check:
        problems = check(repos, counted=not args.fresh)
        print("\n".join(problems) or f"{sum(len(r.queries) for r in repos)} queries ok")
        return 1 if problems else 0
    modes = [m for m in args.modes.split(",") if m]
    runs = []
    for repo in repos:
        run = run_repo(repo, modes, args.index_cache, rechunk=args.rechunk)
        print(f"{repo.name:24} {repo.split:4} {run.chunks:6} chunks, index {run.index_seconds:6.1f}"
              f" s, hybrid NDCG "
              f"{_mean([s.file_ndcg for s in run.scores.get('hybrid', {}).values()])}",
              file=sys.stderr, flush=True)
        runs.append(run)
    result = report(runs, modes)
    if args.baseline is not None:
        result["vs_baseline"] = against_baseline(
            result, json.loads(args.baseline.read_text()), CATEGORIES
        )
        result["vs_baseline"]["note"] = args.baseline_note
        print(json.dumps(result["vs_baseline"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print_summary(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
