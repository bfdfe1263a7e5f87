"""The quality benchmark's scoring, stripping and runner, on tiny synthetic data.

No network, no built extension, no model: the runner is driven through its seams with a fake
index and a fake embedder.
"""

from __future__ import annotations

import ast
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # `pytest` run without `-m`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benches.quality import cosqa, csn, metrics, run, strip
from benches.quality.configs import Config, ablation_groups, all_configs, select_configs
from benches.quality.dataset import Dataset, Query, Target, split_lines
from benches.quality.engines import Engines
from benches.quality.metrics import Hit


def hits(*spans: tuple[str, int, int]) -> list[Hit]:
    return [Hit(path, start, end) for path, start, end in spans]


# -- hit rules ----------------------------------------------------------------------------------


def test_function_hit_needs_same_file_overlap_and_half_inside() -> None:
    gold = Target("a.py", 10, 20)
    assert metrics.function_hit(Hit("a.py", 10, 20), gold)
    assert metrics.function_hit(Hit("./a.py", 12, 15), gold)  # inside
    assert metrics.function_hit(Hit("a.py", 5, 14), gold)  # 5 of 10 lines inside: exactly half
    assert not metrics.function_hit(Hit("a.py", 4, 14), gold)  # 5 of 11: under half
    assert not metrics.function_hit(Hit("a.py", 1, 100), gold)  # the whole file contains it
    assert not metrics.function_hit(Hit("a.py", 21, 30), gold)  # adjacent, no overlap
    assert not metrics.function_hit(Hit("b.py", 10, 20), gold)


def test_overlap_hit_accepts_any_overlap_and_whole_file_targets() -> None:
    assert metrics.overlap_hit(Hit("a.py", 1, 100), Target("a.py", 10, 20))
    assert metrics.overlap_hit(Hit("a.py", 20, 25), Target("a.py", 10, 20))
    assert not metrics.overlap_hit(Hit("a.py", 21, 25), Target("a.py", 10, 20))
    assert metrics.overlap_hit(Hit("a.py", 500, 510), Target("a.py"))
    assert not metrics.overlap_hit(Hit("b.py", 1, 5), Target("a.py"))


# -- metrics -------------------------------------------------------------------------------------


def test_single_target_metrics() -> None:
    gold = (Target("a.py", 10, 20),)
    results = hits(("b.py", 1, 5), ("a.py", 30, 40), ("a.py", 11, 19), ("a.py", 12, 14))
    score = metrics.score_query(results, gold, "function")
    assert score.rank == 3
    assert score.rr == pytest.approx(1 / 3)
    assert score.rr_at_10 == pytest.approx(1 / 3)
    assert score.recall_at_1 == 0.0
    assert score.recall_at_10 == 1.0
    # the repeated hit at rank 4 gains nothing
    assert score.ndcg_at_10 == pytest.approx(1 / math.log2(4))


def test_rank_beyond_ten_counts_for_mrr_only() -> None:
    gold = (Target("a.py", 1, 3),)
    results = hits(*[("z.py", i, i) for i in range(11)], ("a.py", 1, 3))
    score = metrics.score_query(results, gold, "function")
    assert score.rank == 12
    assert score.rr == pytest.approx(1 / 12)
    assert score.rr_at_10 == 0.0 and score.recall_at_10 == 0.0 and score.ndcg_at_10 == 0.0


def test_no_hit_scores_zero() -> None:
    score = metrics.score_query(hits(("b.py", 1, 2)), (Target("a.py", 1, 2),), "overlap")
    assert score.rank is None
    assert (score.rr, score.recall_at_1, score.recall_at_10, score.ndcg_at_10) == (0, 0, 0, 0)
    assert metrics.score_query([], (Target("a.py"),), "overlap").rank is None


def test_multi_target_ndcg_counts_each_target_once() -> None:
    targets = (Target("a.py", 1, 10), Target("b.py", 1, 10))
    # rank 1 finds a, rank 2 finds a again (no gain), rank 3 finds b
    results = hits(("a.py", 1, 5), ("a.py", 6, 9), ("b.py", 2, 3))
    assert metrics.gains(results, targets, "overlap") == [1, 0, 1]
    score = metrics.score_query(results, targets, "overlap")
    ideal = 1 + 1 / math.log2(3)
    assert score.ndcg_at_10 == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert score.recall_at_1 == 1.0  # out of min(1, 2) targets
    assert score.recall_at_10 == 1.0
    assert score.rr == 1.0


def test_one_result_over_two_targets_credits_one() -> None:
    targets = (Target("a.py", 1, 10), Target("a.py", 5, 20))
    results = hits(("a.py", 1, 30), ("a.py", 15, 16))
    assert metrics.gains(results, targets, "overlap") == [1, 1]
    score = metrics.score_query(results, targets, "overlap")
    assert score.ndcg_at_10 == pytest.approx(1.0)
    partial = metrics.score_query(hits(("a.py", 1, 30)), targets, "overlap")
    assert partial.recall_at_10 == pytest.approx(0.5)


def test_aggregate_is_percent_means() -> None:
    gold = (Target("a.py", 1, 2),)
    first = metrics.score_query(hits(("a.py", 1, 2)), gold, "function")
    second = metrics.score_query(hits(("b.py", 1, 2), ("a.py", 1, 2)), gold, "function")
    summary = metrics.aggregate([first, second])
    assert summary["mrr"] == pytest.approx(75.0)
    assert summary["recall@1"] == pytest.approx(50.0)
    assert summary["recall@10"] == pytest.approx(100.0)
    assert summary["ndcg@10"] == pytest.approx(round(100 * (1 + 1 / math.log2(3)) / 2, 2))
    assert metrics.aggregate([]) == {name: 0.0 for name in metrics.METRICS}


def test_query_needs_a_target() -> None:
    with pytest.raises(ValueError):
        metrics.score_query([], (), "function")


def test_target_validates_span() -> None:
    with pytest.raises(ValueError):
        Target("a.py", 5, 4)
    with pytest.raises(ValueError):
        Target("a.py", 5, None)


# -- dataset builders ------------------------------------------------------------------------------


def test_split_lines_only_breaks_on_newline() -> None:
    assert split_lines("a\x0cb\nc\u2028d\n") == ["a\x0cb\n", "c\u2028d\n"]
    assert split_lines("a\nb") == ["a\n", "b"]
    assert split_lines("") == []


def test_cosqa_dedents_method_bodies_and_records_spans(tmp_path: Path) -> None:
    method = 'def get(self):\n        """Doc."""\n        return self.x\n'
    tabbed = "def f(a):\n\t\tif a:\n\t\t\treturn 1"
    py2 = "def g():\n    print 'x'"
    assert cosqa.normalize_function(method) == 'def get(self):\n    """Doc."""\n    return self.x'
    assert cosqa.normalize_function(tabbed) == "def f(a):\n\tif a:\n\t\treturn 1"
    assert cosqa.normalize_function(py2) == py2
    pool = {method: 0, tabbed: 1, py2: 2}
    pool.update({f"def h{i}():\n    return {i}": i for i in range(3, 20)})
    spans = cosqa.layout_pool(pool, tmp_path / "repo")
    assert spans[0] == Target("cosqa_pool/mod_0000.py", 1, 3)
    assert spans[1] == Target("cosqa_pool/mod_0000.py", 6, 8)
    assert spans[16] == Target("cosqa_pool/mod_0001.py", 1, 2)
    for idx, code in ((v, k) for k, v in pool.items()):
        target = spans[idx]
        lines = split_lines((tmp_path / "repo" / target.path).read_text())
        text = "".join(lines[target.start_line - 1 : target.end_line]).rstrip("\n")
        assert text == cosqa.normalize_function(code)


PY_SOURCE = '''"""Module doc."""
import os


def documented(x):
    """Return the thing, e.g. a value. More text.

    Details.
    """
    y = x + 1
    z = y * 2
    return z


class Box:
    """A box."""

    @property
    def size(self):
        "Only a docstring."

    def inline(self): "doc"; return 1

    def __len__(self):
        """The length of the box."""
        a = 1
        b = 2
        return a + b
'''


def test_strip_python_removes_every_docstring_and_keeps_parsing() -> None:
    stripped = strip.strip_python(PY_SOURCE)
    tree = ast.parse(stripped)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
            assert ast.get_docstring(node) is None
    assert "def size(self):\n        pass\n" in stripped
    assert "def inline(self): pass; return 1" in stripped
    functions = {f.qualname: f for f in strip.python_functions(PY_SOURCE, stripped)}
    documented = functions["documented"]
    lines = split_lines(stripped)
    assert lines[documented.start_line - 1].startswith("def documented")
    assert lines[documented.end_line - 1].strip() == "return z"
    assert documented.body_lines == 3
    assert strip.first_sentence(documented.doc) == "Return the thing, e.g. a value"
    assert lines[functions["Box.size"].start_line - 1].strip() == "@property"


RUST_SOURCE = """//! Crate docs.
use std::fmt;

/// Parse the input.
///
/// More details.
#[inline]
pub fn parse(a: u8) -> u8 {
    let b = a;
    let c = b;
    c
}

impl Thing {
    /// Make a [`Thing`] from parts.
    pub fn new() -> Self {
        let x = 1;
        let y = 2;
        Self { x, y }
    }
}

#[cfg(test)]
mod tests {
    /// A test helper with a long body.
    #[test]
    fn check() {
        let a = 1;
        let b = 2;
        assert_eq!(a + 1, b);
    }
}
"""


def test_strip_rust_doc_comments_and_find_functions() -> None:
    pytest.importorskip("tree_sitter_language_pack")
    stripped = strip.strip_rust(RUST_SOURCE)
    assert "///" not in stripped and "//!" not in stripped
    functions = {f.qualname: f for f in strip.rust_functions(RUST_SOURCE, stripped)}
    lines = split_lines(stripped)
    parse = functions["parse"]
    assert lines[parse.start_line - 1].strip() == "#[inline]"
    assert lines[parse.end_line - 1].strip() == "}"
    assert parse.body_lines == 3 and strip.first_sentence(parse.doc) == "Parse the input"
    assert strip.first_sentence(functions["Thing::new"].doc) == "Make a Thing from parts"
    assert functions["tests::check"].in_test


def test_csn_candidates_skip_tests_dunders_short_bodies_and_duplicates() -> None:
    from benches.quality.sdists import Package

    pkg = Package("demo", "1.0", "python", ("src/demo",))
    stripped = strip.strip_python(PY_SOURCE)
    texts = {
        "src/demo/core.py": (PY_SOURCE, stripped),
        "src/demo/tests/test_core.py": (PY_SOURCE, stripped),
        "docs/conf.py": (PY_SOURCE, stripped),
    }
    found = csn.candidates(pkg, texts)
    assert [(c.path, c.function.qualname) for c in found] == [("src/demo/core.py", "documented")]
    assert csn.is_test_path("pkg/tests/helpers.py") and csn.is_test_path("test_x.py")
    assert not csn.is_test_path("src/demo/testing_utils.py")


def test_csn_select_drops_duplicated_queries_and_caps_deterministically() -> None:
    def candidate(path: str, line: int, query: str) -> csn.Candidate:
        function = strip.Function("f", "f", line, line + 5, 4, query)
        return csn.Candidate(path, function, query)

    found = [candidate("b.py", i, f"query number {i}") for i in range(10)]
    found += [candidate("a.py", 1, "same words here"), candidate("a.py", 9, "Same words here")]
    chosen = csn.select(found, cap=4)
    assert len(chosen) == 4
    assert [c.function.start_line for c in chosen] == [0, 3, 6, 9]
    assert all(c.query != "same words here" for c in chosen)
    assert csn.select(list(reversed(found)), cap=4) == chosen


def test_dataset_round_trips_through_json(tmp_path: Path) -> None:
    dataset = Dataset(
        "demo",
        "csn",
        tmp_path / "repo",
        "function",
        [Query("q1", "find it", (Target("a.py", 1, 2), Target("b.py")), "docstring")],
        version="demo==1",
        meta={"language": "python"},
    )
    dataset.to_json(tmp_path / "out" / "dataset.json")
    loaded = Dataset.from_json(tmp_path / "out" / "dataset.json")
    assert loaded.root == (tmp_path / "repo").resolve()
    assert loaded.queries == dataset.queries
    assert (loaded.name, loaded.set, loaded.hit_rule, loaded.version) == (
        "demo",
        "csn",
        "function",
        "demo==1",
    )
    assert len(dataset.limited(0).queries) == 1 and dataset.limited(1).queries == dataset.queries


# -- runner ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeResult:
    path: str
    start_line: int
    end_line: int
    score: float = 1.0


class FakeIndex:
    """Answers from a table: query text -> results; records how it was opened and used."""

    opened: ClassVar[list[dict]] = []

    def __init__(self, root, *, index_dir, embedding_mode) -> None:  # type: ignore[no-untyped-def]
        FakeIndex.opened.append({"root": root, "embedding_mode": embedding_mode})
        self.embedded: bool | None = None

    def update(self, *, embed: bool = True):  # type: ignore[no-untyped-def]
        self.embedded = embed
        return type("Report", (), {"skipped": []})()

    def search(self, query: str, *, limit: int, mode: str) -> list[FakeResult]:
        assert mode in ("semantic", "keyword", "hybrid")
        if mode == "keyword":
            return [FakeResult("b.py", 1, 3), FakeResult("a.py", 1, 3)][:limit]
        return [FakeResult("a.py", 1, 3)][:limit]


def test_runner_scores_configurations_with_a_fake_index(tmp_path: Path) -> None:
    FakeIndex.opened = []
    dataset = Dataset(
        "fake/demo",
        "csn",
        tmp_path,
        "function",
        [Query("q", "find a", (Target("a.py", 1, 3),))],
        version="demo==1",
    )
    configs = [
        Config("sharc:keyword", "sharc", None, "keyword"),
        Config("sharc:late:semantic", "sharc", "late", "semantic"),
        Config("sharc:late:hybrid", "sharc", "late", "hybrid"),
    ]
    engines = Engines(index_factory=FakeIndex)
    details: list[dict] = []
    rows = run.evaluate(
        [dataset], configs, engines, depth=10, details=details.append, log=lambda message: None
    )
    by_name = {r.config: r for r in rows}
    assert by_name["sharc:keyword"].to_json()["metrics"]["mrr"] == pytest.approx(50.0)
    assert by_name["sharc:late:semantic"].to_json()["metrics"]["recall@1"] == pytest.approx(100.0)
    # one index per embedding mode: keyword alone, then late shared by two rows
    assert [o["embedding_mode"] for o in FakeIndex.opened] == ["independent", "late"]
    assert {d["config"] for d in details} == {c.name for c in configs}
    summary = run.summarize_sets(rows)
    assert summary["csn"]["sharc:late:hybrid"]["queries"] == 1
    payload = run.report(rows, [dataset], configs, engines, {"depth": 10})
    assert payload["datasets"]["fake/demo"]["queries"] == 1
    assert "cpu_count" in payload["machine"] and "commit" in payload["git"]


def test_runner_records_a_failed_build_and_goes_on(tmp_path: Path) -> None:
    class Broken(FakeIndex):
        def update(self, *, embed: bool = True):  # type: ignore[no-untyped-def]
            raise RuntimeError("no model")

    dataset = Dataset(
        "fake/demo", "cosqa", tmp_path, "function", [Query("q", "x", (Target("a.py", 1, 3),))]
    )
    rows = run.evaluate(
        [dataset],
        [Config("sharc:keyword", "sharc", None, "keyword")],
        Engines(index_factory=Broken),
        log=lambda message: None,
    )
    assert rows[0].error == "RuntimeError: no model"
    assert run.summarize_sets(rows)["cosqa"]["sharc:keyword"]["errors"]


def test_runner_reuses_cached_indexes_with_their_cold_time(tmp_path: Path) -> None:
    class Persistent(FakeIndex):
        def __init__(self, root, *, index_dir, embedding_mode) -> None:  # type: ignore[no-untyped-def]
            super().__init__(root, index_dir=index_dir, embedding_mode=embedding_mode)
            self.index_dir = Path(index_dir)

        def update(self, *, embed: bool = True):  # type: ignore[no-untyped-def]
            self.index_dir.mkdir(parents=True, exist_ok=True)
            (self.index_dir / "manifest.sqlite").touch()
            return super().update(embed=embed)

    dataset = Dataset(
        "csn/demo", "csn", tmp_path, "function", [Query("q", "x", (Target("a.py", 1, 3),))]
    )
    configs = [Config("sharc:keyword", "sharc", None, "keyword")]
    engines = Engines(index_factory=Persistent, index_cache=tmp_path / "indexes")
    first = run.evaluate([dataset], configs, engines, log=lambda message: None)[0]
    assert "index_reused" not in first.info
    assert (tmp_path / "indexes" / "csn__demo" / "keyword.build.json").is_file()
    second = run.evaluate([dataset], configs, engines, log=lambda message: None)[0]
    assert second.info["index_reused"] is True
    assert second.index_seconds == pytest.approx(first.index_seconds)


class FakeEmbedder:
    """Bag-of-words vectors over a tiny vocabulary: enough to rank deterministically."""

    model_id = "fake-bow"
    vocabulary = ("alpha", "beta", "gamma", "def", "return")

    def _embed(self, texts):  # type: ignore[no-untyped-def]
        import numpy as np

        rows = np.array(
            [[t.count(w) + 1e-3 for w in self.vocabulary] for t in texts], dtype=np.float32
        )
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    embed_documents = _embed
    embed_queries = _embed


def test_baseline_chunkers_and_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benches.quality import baselines

    text = "".join(f"line {i} alpha\n" if i < 60 else f"line {i} gamma\n" for i in range(120))
    windows = baselines.fixed_windows("x.py", text)
    assert windows[0].start_line == 1 and windows[0].text == text[:1000]
    assert windows[1].text == text[800:1800]
    assert windows[-1].text.endswith("line 119 gamma\n")
    starts = baselines.LineIndex(text)
    assert starts.line(0) == 1 and starts.line(len("line 0 alpha\n")) == 2

    root = tmp_path / "repo"
    root.mkdir()
    (root / "x.py").write_text(text)
    walked = type("Walked", (), {"path": "x.py", "language": "python", "tier": 1})
    monkeypatch.setattr(baselines, "walk_files", lambda root: [walked])
    cache = baselines.EmbeddingCache(tmp_path / "cache.sqlite", "fake-bow")
    built = baselines.BaselineIndex.build(root, "fixed", FakeEmbedder(), cache)
    assert built.cache_hits == 0 and len(built.chunks) == len(windows)
    again = baselines.BaselineIndex.build(root, "fixed", FakeEmbedder(), cache)
    assert again.cache_hits == len(windows)
    cache.close()
    top = built.search_many(["gamma"], limit=2)[0]
    assert top[0].end_line == 120  # the window with the most "gamma" lines ranks first
    assert len(top) == 2


def test_config_grid_names_and_groups() -> None:
    configs = all_configs("independent")
    names = [c.name for c in configs]
    assert len(names) == len(set(names))
    for group in ablation_groups("independent").values():
        assert set(group) <= set(names)
    assert select_configs(configs, "baseline:*") == [
        c for c in configs if c.engine == "baseline"
    ]


def test_paired_bootstrap_interval() -> None:
    same = [1.0, 0.5, 0.0, 0.25] * 10
    assert metrics.paired_bootstrap(same, same) == (0.0, 0.0, 0.0)
    better = [value + 0.1 for value in same]
    mean, low, high = metrics.paired_bootstrap(better, same)
    assert mean == pytest.approx(10.0) and low == pytest.approx(10.0) and high == pytest.approx(10.0)
    mixed = [1.0, 0.0] * 20
    mean, low, high = metrics.paired_bootstrap(mixed, mixed[::-1])
    assert mean == 0.0 and low < -10.0 and high > 10.0
    assert metrics.paired_bootstrap(mixed, mixed[::-1]) == (mean, low, high)  # seeded
    assert metrics.rr_at_10(2) == 0.5 and metrics.rr_at_10(11) == 0.0 and metrics.rr_at_10(None) == 0.0
    with pytest.raises(ValueError):
        metrics.paired_bootstrap([1.0], [1.0, 0.0])


def test_unpacking_skips_members_the_data_filter_refuses(tmp_path: Path) -> None:
    import io
    import os
    import tarfile

    from benches.quality.repos import _safe_member

    archive = tmp_path / "repo.tar"
    with tarfile.open(archive, "w") as tar:
        data = b"print('hi')\n"
        member = tarfile.TarInfo("repo/main.py")
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
        link = tarfile.TarInfo("repo/broken-abs-symlink")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "out", filter=_safe_member)
    assert (tmp_path / "out" / "repo" / "main.py").read_text() == "print('hi')\n"
    assert not os.path.lexists(tmp_path / "out" / "repo" / "broken-abs-symlink")


def test_doc_pairs_take_the_documenting_comment_out_of_the_answer() -> None:
    from tools.static_model.contrast import pair_of

    code = "/// Parse the settings file at a path.\nfn load(path: &Path) -> Config {\n    read(path)\n}"
    header = "// Context: module config (src/config.rs)\n"
    query, answer = pair_of({"code": code, "text": header + code}) or ("", "")
    assert query == "Parse the settings file at a path"
    assert answer == header + "fn load(path: &Path) -> Config {\n    read(path)\n}"
    assert pair_of({"code": "fn load() {\n    read(path)\n}", "text": "fn load() {}"}) is None
    only_comment = "# Parse the settings file at a path.\n# Then check it."
    assert pair_of({"code": only_comment, "text": only_comment}) is None


# -- the learned correction (`benches.quality.learn_repos`) ---------------------------------------


def test_learned_correction_fits_the_features_that_tell_the_targets() -> None:
    import numpy as np
    from sharc.ranking.learned import FEATURES

    from benches.quality import learn_repos
    from benches.quality.repos import RepoQuery

    rng = np.random.default_rng(0)
    cosine = FEATURES.index("cosine")
    recorded = []
    for n in range(40):
        rows = rng.normal(size=(12, len(FEATURES)))
        target = int(rng.integers(12))
        rows[target, cosine] += 3.0  # the one feature that tells the target file
        candidates = [learn_repos.Candidate(f"c{i}", f"f{i}.py", 1, 5) for i in range(12)]
        query = RepoQuery(f"q{n}", f"repo{n % 5}", "semantic", "how", (Target(f"f{target}.py"),))
        relevant = np.array([i == target for i in range(12)])
        recorded.append(learn_repos.Recorded(query, "dev", candidates, rows, relevant,
                                             np.zeros(12, bool), {}))
    model = learn_repos.fit(recorded, penalty=1.0, free=(), drop=("hand",))
    assert model.weights[cosine] == max(model.weights)
    learned = learn_repos.evaluate(recorded, lambda q: model.scores(q.rows))
    hand = learn_repos.evaluate(recorded, None)  # the recorded order: the target anywhere
    assert learned["file_ndcg"] > 95 > hand["file_ndcg"]
    assert learn_repos.ranked_by(recorded[0], model.scores(recorded[0].rows))[0].path == \
        recorded[0].query.targets[0].path


# -- the monorepo run (`benches.quality.monorepo`) ------------------------------------------------


def test_the_monorepo_run_scores_each_question_under_its_repository() -> None:
    from benches.quality import monorepo
    from benches.quality.repos import RepoQuery, score

    query = RepoQuery("q1", "koa", "topic", "the request object",
                      (Target("lib/request.js"), Target("lib/context.js")))
    rooted = monorepo.rooted(query, "koa")
    assert [t.path for t in rooted.targets] == ["koa/lib/request.js", "koa/lib/context.js"]
    found = hits(("koa/lib/request.js", 1, 9), ("fastify/lib/request.js", 1, 9))
    assert score(rooted, found).file_ndcg > score(query, found).file_ndcg == 0.0
    # Means per repository first, then over repositories, as the repository benchmark reads.
    scored = {"a1": ("a", "topic", 1.0), "a2": ("a", "symbol", 0.0), "b1": ("b", "topic", 0.5)}
    summary = monorepo.summary(scored)
    assert summary == {"all": 50.0, "topic": 75.0, "symbol": 0.0}


def test_a_width_given_to_the_vectors_search_holds_only_inside_its_block() -> None:
    import sharc.vectors

    from benches.speed.common import hnsw_width

    default = sharc.vectors.SEARCH_EXPANSION
    with hnsw_width(0):
        assert sharc.vectors.SEARCH_EXPANSION == 0
    assert sharc.vectors.SEARCH_EXPANSION == default
    with pytest.raises(RuntimeError), hnsw_width(700):
        raise RuntimeError
    assert sharc.vectors.SEARCH_EXPANSION == default


def test_parse_variant_reads_each_field_as_its_type() -> None:
    from sharc.ranking import DEFAULT_SETTINGS

    from benches.quality.tune_repos import parse_variant

    variant = parse_variant(
        "natural_keyword=0.2,candidates=70,files_first=false,method=rrf,learned_depth=30",
        DEFAULT_SETTINGS,
    )
    assert variant.natural_keyword == 0.2 and variant.candidates == 70
    assert variant.files_first is False and variant.method == "rrf"
    # An optional number left unset reads as the value is written.
    assert variant.learned_depth == 30 and isinstance(variant.learned_depth, int)
    assert parse_variant("", DEFAULT_SETTINGS) == DEFAULT_SETTINGS
