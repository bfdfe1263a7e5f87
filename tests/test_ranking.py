"""The ranking stages, each on its own, and the pipeline that runs them: plain records in,
plain lists out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest
from sharc.manifest import DefinitionRow, ReferenceRow
from sharc.ranking import (
    DEFAULT_SETTINGS,
    KEYWORD,
    SEMANTIC,
    QueryIntent,
    QueryKind,
    RankingSettings,
    classify_query,
    content_words,
    covers_words,
    diversify,
    fuse,
    is_generated_path,
    is_test_path,
    is_vendored_path,
    name_words_match,
    normalize_scores,
    query_identifiers,
    rank,
    rank_hits,
    reciprocal_rank_fusion,
    result_groups,
    score_fusion,
    wants_config,
    wants_docs,
    wants_tests,
    weights_for,
)
from sharc.ranking.boosts import (
    apply_boosts,
    boost_bound,
    boost_factor,
    definition_match,
    definition_tier,
)
from sharc.ranking.coherence import apply_coherence
from sharc.ranking.files import evidence_gates, file_scores, lift_files, rank_files
from sharc.ranking.graph import (
    GraphFacts,
    apply_neighbours,
    defined_names,
    neighbour_evidence,
    seed_files,
    wants_neighbours,
)
from sharc.ranking.learned import FEATURES, LinearWeights, features
from sharc.ranking.penalties import apply_penalties, penalty_bound, penalty_factor
from sharc.ranking.query import MAX_WORD_STARTS, holds_word_start, lower_alike, word_starts
from sharc.ranking.visibility import (
    MISSED_DEFINITIONS,
    DefinitionFacts,
    declared_stub,
    declared_with_keyword,
    definition_finder,
)


@dataclass(frozen=True)
class Candidate:
    """A plain candidate record, as the manifest's `RankRecord` gives them."""

    id: str
    path: str
    symbol: str = ""
    fqn: str = ""
    tier: int = 1
    kind: str = "function"
    start_line: int = 1
    end_line: int = 10
    generated: bool = False
    language: str = ""


def rerank(
    query: str,
    kind: QueryKind | None,
    candidates: list[tuple[Candidate, float]],
    *,
    include_tests: bool | None = None,
    settings: RankingSettings = DEFAULT_SETTINGS,
    fused: bool = False,
) -> list[tuple[Candidate, float]]:
    """Stages 4-6 over `candidates`, best first (what `rank` does after fusion)."""
    intent = QueryIntent.of(query, kind, include_tests=include_tests, fused=fused)
    scored = apply_boosts(candidates, intent, settings)
    scored = apply_coherence(scored, settings)
    scored = apply_penalties(scored, intent, settings)
    return sorted(scored, key=lambda pair: -pair[1])


def rerank_adjustments(
    chunk: Candidate, intent: QueryIntent, settings: RankingSettings = DEFAULT_SETTINGS
) -> float:
    return boost_factor(chunk, intent, settings) * penalty_factor(chunk, intent, settings)


# Reciprocal rank fusion


def test_rrf_math() -> None:
    fused = dict(
        reciprocal_rank_fusion(
            {KEYWORD: ["a", "b", "c"], SEMANTIC: ["c", "a"]},
            {KEYWORD: 1.0, SEMANTIC: 0.5},
            k=60,
        )
    )
    assert fused["a"] == pytest.approx(1.0 / 61 + 0.5 / 62)
    assert fused["b"] == pytest.approx(1.0 / 62)
    assert fused["c"] == pytest.approx(1.0 / 63 + 0.5 / 61)


def test_rrf_orders_by_score() -> None:
    fused = reciprocal_rank_fusion(
        {KEYWORD: ["a", "b", "c"], SEMANTIC: ["c", "b", "a"]}, {KEYWORD: 1.0, SEMANTIC: 1.0}, k=0
    )
    # k=0: a = 1 + 1/3, c = 1/3 + 1, b = 1/2 + 1/2. a and c tie: first seen wins.
    assert [item for item, _ in fused] == ["a", "c", "b"]
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)


def test_rrf_weights_decide_between_arms() -> None:
    rankings = {KEYWORD: ["kw"], SEMANTIC: ["sem"]}
    assert reciprocal_rank_fusion(rankings, {KEYWORD: 1.0, SEMANTIC: 0.3})[0][0] == "kw"
    assert reciprocal_rank_fusion(rankings, {KEYWORD: 0.3, SEMANTIC: 1.0})[0][0] == "sem"
    # Equal weights: the heavier-listed arm first is a tie; order of appearance decides.
    assert [i for i, _ in reciprocal_rank_fusion(rankings, {})] == ["kw", "sem"]


def test_rrf_edge_cases() -> None:
    assert reciprocal_rank_fusion({}, {}) == []
    assert reciprocal_rank_fusion({KEYWORD: []}, {KEYWORD: 1.0}) == []
    # A duplicate within one arm counts once, at its best rank.
    fused = dict(reciprocal_rank_fusion({KEYWORD: ["a", "a", "b"]}, {KEYWORD: 1.0}, k=60))
    assert fused == {"a": pytest.approx(1 / 61), "b": pytest.approx(1 / 63)}
    # An arm without a weight counts 1.0.
    assert dict(reciprocal_rank_fusion({"other": ["x"]}, {}, k=0)) == {"x": 1.0}
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({KEYWORD: ["a"]}, {}, k=-1)


def test_normalize_scores() -> None:
    weights = {KEYWORD: 1.0, SEMANTIC: 0.5}
    top_everywhere = 1.0 / 61 + 0.5 / 61
    scores = normalize_scores([top_everywhere, 1.0 / 61, 0.0, 5.0], weights=weights, k=60)
    assert scores[0] == pytest.approx(1.0)
    assert scores[1] == pytest.approx(1.0 / 1.5)
    assert scores[2] == 0.0
    assert scores[3] == 1.0  # lifted past the best by reranking: clipped
    assert normalize_scores([1 / 61], arms=1) == [pytest.approx(1.0)]
    assert normalize_scores([0.1], weights={}) == [0.0]
    with pytest.raises(TypeError):
        normalize_scores([0.1])


# Score fusion


def test_score_fusion_min_max_per_arm() -> None:
    hits = {
        KEYWORD: [("a", 30.0), ("b", 20.0), ("c", 10.0)],
        SEMANTIC: [("b", 0.9), ("c", 0.7), ("d", 0.5)],
    }
    fused = dict(score_fusion(hits, {KEYWORD: 1.0, SEMANTIC: 3.0}))
    # keyword share 1/4: a=1, b=0.5, c=0; semantic share 3/4: b=1, c=0.5, d=0
    assert fused == pytest.approx({"b": 0.25 * 0.5 + 0.75, "c": 0.75 * 0.5, "a": 0.25, "d": 0.0})
    assert [item for item, _ in score_fusion(hits, {KEYWORD: 1.0, SEMANTIC: 3.0})][:2] == ["b", "c"]


def test_score_fusion_floor_score_keeps_credit_for_an_arms_hits() -> None:
    hits = {
        KEYWORD: [("kw_only", 30.0), ("both", 10.0), ("k3", 5.0)],
        SEMANTIC: [("s1", 0.9), ("both", 0.6), ("s3", 0.3), ("past", 0.2)],
    }
    weights = {KEYWORD: 1.0, SEMANTIC: 1.0}
    plain = dict(score_fusion(hits, weights, floor_rank=3))
    lifted = dict(score_fusion(hits, weights, floor_rank=3, floor_score={SEMANTIC: 0.2}))
    # The semantic hits scale to 0.2-1 instead of 0-1; the keyword arm's are untouched, and so
    # is a hit past the floor rank.
    assert lifted["s3"] == pytest.approx(0.5 * 0.2) and plain["s3"] == 0.0
    assert lifted["both"] == pytest.approx(plain["both"] + 0.5 * 0.2 * (1 - 0.5))
    assert lifted["kw_only"] == plain["kw_only"] and lifted["past"] == plain["past"] == 0.0
    assert lifted["s1"] == plain["s1"] == pytest.approx(0.5)
    # A keyword hit the vectors could not have returned (no vector) counts what the keyword
    # arm gave it for the semantic share too, as a search without vectors would.
    unseen = dict(score_fusion(hits, weights, floor_rank=3, floor_score={SEMANTIC: 0.2},
                               unseen={SEMANTIC: {"kw_only", "k3", "s1"}}))  # fmt: skip
    assert unseen["kw_only"] == pytest.approx(1.0) and lifted["kw_only"] == pytest.approx(0.5)
    assert unseen["k3"] == plain["k3"] == 0.0  # the keyword arm's floor: nothing to count
    assert unseen["s1"] == lifted["s1"]  # returned by the vectors: its own score stands


def test_score_fusion_edges() -> None:
    assert score_fusion({}, {}) == []
    assert score_fusion({KEYWORD: []}, {KEYWORD: 1.0}) == []
    # One arm ran: its own normalised scores, the best is 1.
    assert score_fusion({SEMANTIC: [("x", 0.4)]}, {SEMANTIC: 0.5, KEYWORD: 0.5}) == [("x", 1.0)]
    # Equal scores all count 1; a repeated id counts once, at its best.
    assert dict(score_fusion({KEYWORD: [("a", 2.0), ("a", 1.0), ("b", 2.0)]}, {})) == {
        "a": 1.0,
        "b": 1.0,
    }
    # Hits below the floor rank clip to 0 instead of going negative.
    ranked = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    assert dict(score_fusion({KEYWORD: ranked}, {}, floor_rank=2)) == {"a": 1.0, "b": 0.0, "c": 0.0}
    # A short list has run out of matches: its floor is what a non-match scores.
    assert dict(score_fusion({KEYWORD: ranked}, {}, exhausted_floor={KEYWORD: 0.0})) == {
        "a": 1.0,
        "b": pytest.approx(2 / 3),
        "c": pytest.approx(1 / 3),
    }
    with pytest.raises(ValueError):
        score_fusion({KEYWORD: ranked}, {}, floor_rank=0)


def test_covers_words_in_any_form() -> None:
    code = "def load_plugins(names):\n    return [import_module(n) for n in names]"
    assert covers_words("how are plugins loaded", code)
    assert covers_words("the plugin loader", "class PluginLoader: ...")
    assert not covers_words("how are plugins loaded lazily", code)
    assert not covers_words("how is it", code)  # no content word: nothing to cover


def test_a_question_whose_words_the_best_keyword_hit_holds_leans_on_keywords() -> None:
    records = {
        "kw": Candidate(id="kw", path="src/retry.py", symbol="backoff_delay"),
        "sem": Candidate(id="sem", path="src/timing.py", symbol="pause"),
    }
    hits = {KEYWORD: [("kw", 9.0), ("sem", 1.0)], SEMANTIC: [("sem", 0.8), ("kw", 0.6)]}
    texts = text_reader({"kw": "def backoff_delay(attempt): ...", "sem": "def pause(): ..."})

    def top(query: str) -> str:
        ranked = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids},
                           read_text=texts)  # fmt: skip
        return ranked.candidates[0][0].id

    assert top("the backoff delay") == "kw"  # both words in the keyword arm's best hit
    assert top("the backoff delay between attempts") == "sem"  # not all: vectors lead
    off = RankingSettings(covered_keyword=0.0)
    assert rank_hits("the backoff delay", hits, lambda ids: {i: records[i] for i in ids},
                     read_text=texts, settings=off).candidates[0][0].id == "sem"  # fmt: skip


def text_reader(texts: dict[str, str]) -> Callable[[Sequence[str]], dict[str, str]]:
    """A `TextReader` over `texts`: the texts of the ids it holds."""
    return lambda ids: {i: texts[i] for i in ids if i in texts}


def test_word_starts_find_a_word_in_any_form_at_the_start_of_a_word() -> None:
    starts = word_starts("how are plugins registered in the registry, parsing entries")
    assert starts == ["entr", "pars", "plugin", "regist", "registr"]
    code = "def loadPlugin(src):\n    entry = parse_registry(src)  # registers it"
    assert all(holds_word_start(code, code.lower(), start) for start in starts)
    for text in ("reloadplugin", "unregistered", "sparse"):  # inside a word: not a form
        assert not any(holds_word_start(text, text, start) for start in starts)
    assert holds_word_start("XMLParser", "xmlparser", "pars")  # a part of an identifier
    # Lowering `İ` gives two code points: positions in the lowered text must still match.
    text = "İİİİ = parse_entries(İstanbul)"
    assert len(lower_alike(text)) == len(text) < len(text.lower())
    assert holds_word_start(text, lower_alike(text), "entr")
    assert not holds_word_start("İİİİx", lower_alike("İİİİx"), "x")
    assert word_starts("how is it") == []
    many = " ".join(f"word{chr(97 + n // 26)}{chr(97 + n % 26)}x" for n in range(200))
    assert len(word_starts(many)) == MAX_WORD_STARTS  # the first ones, as the keyword arm


def test_a_question_searched_by_keywords_alone_ranks_the_hit_that_holds_its_words_first() -> None:
    records = {
        "many": Candidate(id="many", path="src/cache.py", symbol="evict"),
        "all": Candidate(id="all", path="src/store.py", symbol="expire_entries"),
    }
    texts = text_reader({
        "many": "def evict(): # eviction evicts: evict the evicted evictions",
        "all": "def expire_entries(cache): # evict expired cache entries",
    })
    hits = {KEYWORD: [("many", 9.0), ("all", 6.0)]}

    def order(query: str, settings: RankingSettings = DEFAULT_SETTINGS) -> list[str]:
        ranked = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids},
                           read_text=texts, settings=settings)  # fmt: skip
        return [chunk.id for chunk, _ in ranked.candidates]

    # BM25 sums one rare word's repeats; "all" holds every word of the question.
    assert order("how are expired cache entries evicted") == ["all", "many"]
    assert order("how are expired cache entries evicted",
                 RankingSettings(keyword_coverage=0.0)) == ["many", "all"]  # fmt: skip
    assert order("evict") == ["many", "all"]  # one word: nothing to weigh
    fused = {**hits, SEMANTIC: [("many", 0.5), ("all", 0.5)]}
    ranked = rank_hits("how are expired cache entries evicted", fused,
                       lambda ids: {i: records[i] for i in ids}, read_text=texts)  # fmt: skip
    assert ranked.candidates[0][0].id == "many"  # fused: the vectors weigh it instead


def test_fuse_dispatches_on_method_and_scores_in_unit_range() -> None:
    hits = {KEYWORD: [("kw", 12.0), ("both", 11.0)], SEMANTIC: [("both", 0.8), ("sem", 0.7)]}
    for method in ("score", "rrf"):
        weights = RankingSettings(method=method)
        fused = fuse(hits, QueryKind.MIXED, weights)
        assert {item for item, _ in fused} == {"kw", "both", "sem"}
        assert all(0.0 <= score <= 1.0 for _, score in fused)
        assert fused[0][0] == "both"
    # An identifier query leans on keywords, a sentence on vectors.
    solo = {KEYWORD: [("kw", 12.0), ("x", 1.0)], SEMANTIC: [("sem", 0.8), ("y", 0.1)]}
    assert fuse(solo, QueryKind.IDENTIFIER)[0][0] == "kw"
    assert fuse(solo, QueryKind.NATURAL_LANGUAGE)[0][0] == "sem"


def test_settings_validate() -> None:
    with pytest.raises(ValueError, match="method"):
        RankingSettings(method="borda")
    with pytest.raises(ValueError, match="0-1"):
        RankingSettings(natural_keyword=1.5)
    with pytest.raises(ValueError, match="lifts must not be negative"):
        RankingSettings(name_words_lift=-0.1)


# Query routing


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("getUserById", QueryKind.IDENTIFIER),
        ("HTTPException", QueryKind.IDENTIFIER),
        ("os.path.join", QueryKind.IDENTIFIER),
        ("get_user", QueryKind.IDENTIFIER),
        ("_private", QueryKind.IDENTIFIER),
        ("__init__", QueryKind.IDENTIFIER),
        ("Vec::new", QueryKind.IDENTIFIER),
        ("parse()", QueryKind.IDENTIFIER),
        ("ptr->next", QueryKind.IDENTIFIER),
        ("MAX_RETRIES", QueryKind.IDENTIFIER),
        ("HTTP", QueryKind.IDENTIFIER),
        ("UserService", QueryKind.IDENTIFIER),
        ("  getUserById  ", QueryKind.IDENTIFIER),
        ("how are routes registered", QueryKind.NATURAL_LANGUAGE),
        ("retry with exponential backoff", QueryKind.NATURAL_LANGUAGE),
        ("how does the API cache responses", QueryKind.NATURAL_LANGUAGE),
        ("where is getUserById called", QueryKind.MIXED),
        ("os.path.join usage", QueryKind.MIXED),
        ("authentication", QueryKind.MIXED),
        ("Router", QueryKind.MIXED),
        ("", QueryKind.NATURAL_LANGUAGE),
        ("   ", QueryKind.NATURAL_LANGUAGE),
    ],
)
def test_classify_query(query: str, kind: QueryKind) -> None:
    assert classify_query(query) is kind


def test_weights_lean_by_kind() -> None:
    identifier = weights_for(QueryKind.IDENTIFIER)
    natural = weights_for(QueryKind.NATURAL_LANGUAGE)
    assert identifier.weight(KEYWORD) > identifier.weight(SEMANTIC)
    assert natural.weight(SEMANTIC) > natural.weight(KEYWORD)
    assert identifier.k == natural.k == RankingSettings().k
    custom = RankingSettings(identifier_keyword=0.9, k=10)
    assert weights_for(QueryKind.IDENTIFIER, custom).as_dict() == {
        KEYWORD: 0.9, SEMANTIC: pytest.approx(0.1)
    }
    assert weights_for(QueryKind.MIXED, custom).k == 10
    assert identifier.weight("unknown arm") == 1.0


@pytest.mark.parametrize(
    ("query", "tests", "docs", "config"),
    [
        ("where is login tested", True, False, False),
        ("test_login", True, False, False),
        ("testLogin fixture", True, False, False),
        ("testLogin", True, False, False),
        ("user spec", True, False, False),
        ("latest release notes", False, False, False),
        ("contest winner", False, False, False),
        ("how to install", False, True, False),
        ("README", False, True, False),
        ("getting started guide", False, True, False),
        ("database settings in yaml", False, False, True),
        ("getUserById", False, False, False),
        ("unit test setup", True, False, False),
        ("which test files cover parsing", True, False, False),
        ("tests for printing values", True, False, False),
        ("where are the parser tests", True, False, False),
        ("mock transport", True, False, False),
        # A test framework's own words: test or spec not heading what is asked.
        ("deterministic ordering of test methods", False, False, False),
        ("test run flow from the command line", False, False, False),
        ("emit source for each spec type", False, False, False),
        ("fail a slow test by running it on another thread", False, False, False),
        ("running only the tests that belong to certain categories", False, False, False),
        ("how user mapping specs are parsed", False, False, False),
        ("how to test if two files are the same", False, False, False),
    ],
)
def test_intent_detectors(query: str, tests: bool, docs: bool, config: bool) -> None:
    assert (wants_tests(query), wants_docs(query), wants_config(query)) == (tests, docs, config)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("getUserById", ["getUserById"]),
        ("os.path.join()", ["join"]),
        ("Vec::new", ["new"]),
        ("where is getUserById called", ["getUserById"]),
        ("parse(text)", ["parse"]),
        ("how are routes registered", []),
        ("search", ["search"]),
    ],
)
def test_query_identifiers(query: str, names: list[str]) -> None:
    assert query_identifiers(query) == names


# File kinds


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_app.py",
        "src/tests/helpers.py",
        "test_app.py",
        "pkg/app_test.py",
        "server/handler_test.go",
        "web/app.test.ts",
        "web/app.spec.js",
        "web/__tests__/app.jsx",
        "lib/user_spec.rb",
        "src/test/java/com/x/UserServiceTest.java",
        "conftest.py",
        "src/UnitTests/Bug/Mapping.cs",
        "src/IntegrationTests/Queries.cs",
        "src/Polly.Core.Tests/Retry.cs",
        "pkg/e2e-tests/run.go",
    ],
)
def test_test_paths(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize(
    "path", ["src/app.py", "src/latest.py", "src/contest.py", "src/testing_utils_impl.go",
             "src/attestation.rs", "Contest.java", "src/latest/app.py", "Contests/Rules.cs"]
)  # fmt: skip
def test_not_test_paths(path: str) -> None:
    assert not is_test_path(path)


def test_vendored_and_generated_paths() -> None:
    assert is_vendored_path("vendor/github.com/x/y.go")
    assert is_vendored_path("src/third_party/zlib/inflate.c")
    assert is_vendored_path("web/node_modules/react/index.js")
    assert not is_vendored_path("src/vendors.py")
    assert is_vendored_path("include/spdlog/fmt/bundled/format.h")
    assert is_generated_path("api/user_pb2.py")
    assert is_generated_path("api/user.pb.go")
    assert is_generated_path("web/schema.generated.ts")
    assert is_generated_path("static/app.min.js")
    assert not is_generated_path("src/generator.py")


# Reranking


def chunk(path: str, symbol: str = "", tier: int = 1, **extra: object) -> Candidate:
    return Candidate(id=f"{path}#{symbol}", path=path, symbol=symbol, tier=tier, **extra)  # type: ignore[arg-type]


def test_rerank_pushes_tests_down_unless_asked() -> None:
    candidates = [
        (chunk("tests/test_auth.py", "test_login"), 1.0),
        (chunk("src/auth.py", "login"), 0.8),
    ]
    assert [c.path for c, _ in rerank("login flow", None, candidates)] == [
        "src/auth.py",
        "tests/test_auth.py",
    ]
    assert rerank("login tests", None, candidates)[0][0].path == "tests/test_auth.py"
    assert rerank("login flow", None, candidates, include_tests=True)[0][0].path == (
        "tests/test_auth.py"
    )
    assert rerank("login tests", None, candidates, include_tests=False)[0][0].path == (
        "src/auth.py"
    )


def test_pages_of_a_docs_directory_count_as_docs() -> None:
    """HTML pages and text in `docs/` that no parser cut are documentation; code parsed there
    is not."""
    candidates = [
        (chunk("docs/libraries/pl.xml.html", tier=4), 1.0),
        (chunk("doc/ReleaseNotes4.10.html", tier=4), 0.95),
        (chunk("docs/conf.py", "setup", tier=1), 0.4),
        (chunk("lua/pl/xml.lua", "parse", tier=1), 0.3),
        (chunk("templates/page.html", tier=4), 0.25),
    ]
    ranked = [c.path for c, _ in rerank("xml document parsing", None, candidates)]
    assert ranked == [
        "docs/conf.py", "lua/pl/xml.lua", "templates/page.html", "docs/libraries/pl.xml.html",
        "doc/ReleaseNotes4.10.html",
    ]
    asked = [c.path for c, _ in rerank("xml parsing docs", None, candidates)]
    assert asked[0] == "docs/libraries/pl.xml.html"


def test_rerank_factors_compound() -> None:
    weights = RankingSettings()
    intent = QueryIntent.of("how are requests retried")
    vendored_test = chunk("vendor/lib/tests/test_x.py")
    assert rerank_adjustments(vendored_test, intent) == pytest.approx(
        weights.test_factor * weights.vendored_factor
    )
    assert rerank_adjustments(chunk("README.md", tier=2), intent) == weights.docs_factor
    assert rerank_adjustments(chunk("README.md", tier=2), QueryIntent.of("install guide")) == 1.0
    assert rerank_adjustments(chunk("config.yaml", tier=3), intent) == weights.config_factor
    assert rerank_adjustments(chunk("src/x.py", generated=True), intent) == (
        weights.generated_factor
    )
    assert rerank_adjustments(chunk("src/app.py", "retry"), intent) == 1.0


def test_rerank_lifts_the_definition_of_the_named_identifier() -> None:
    weights = RankingSettings()
    definition = chunk("src/users.py", "getUserById")
    caller = chunk("src/routes.py", "handler")
    candidates = [(caller, 1.0), (definition, 0.7)]
    reranked = rerank("getUserById", QueryKind.IDENTIFIER, candidates)
    assert reranked[0] == (definition, pytest.approx(0.7 * weights.symbol_match_factor))
    lowercase = QueryIntent.of("getuserbyid")
    assert rerank_adjustments(definition, lowercase) == pytest.approx(
        (1 + weights.symbol_match_factor) / 2
    )
    # Natural-language queries name no identifier.
    assert (
        rerank_adjustments(chunk("a.py", "how"), QueryIntent.of("how are routes registered")) == 1.0
    )
    assert rerank_adjustments(chunk("p.py", "join"), QueryIntent.of("os.path.join")) == (
        weights.symbol_match_factor
    )


def test_rerank_is_stable_and_works_on_any_record() -> None:
    class Record:
        def __init__(self, path: str) -> None:
            self.path, self.symbol, self.fqn, self.tier = path, "", "", 1
            self.start_line, self.end_line = 1, 20

    records = [(Record(f"src/{n}.py"), 1.0) for n in range(5)]
    assert [r.path for r, _ in rerank("anything", None, records)] == [r.path for r, _ in records]


# Diversification


def test_diversify_caps_per_file_and_keeps_order() -> None:
    paths = ["a", "a", "a", "b", "a", "c", "b", "b"]
    results = [chunk(path, str(n)) for n, path in enumerate(paths)]
    shaped = diversify(results, max_per_file=2)
    assert [(c.path, c.symbol) for c in shaped] == [
        ("a", "0"), ("a", "1"), ("b", "3"), ("c", "5"), ("b", "6"),
        ("a", "2"), ("a", "4"), ("b", "7"),
    ]  # fmt: skip
    assert sorted(shaped, key=lambda c: int(c.symbol)) == results


def test_result_groups_are_files_with_their_close_later_candidates() -> None:
    scored = [("a", 2.0), ("b", 0.9), ("a", 0.8), ("a", 0.75), ("c", 0.6), ("a", 0.7),
              ("b", 0.5), ("d", 0.4), ("c", 0.1)]  # fmt: skip
    pairs = [(chunk(path, str(n)), score) for n, (path, score) in enumerate(scored)]

    def shown(groups: list[list[tuple[Candidate, float]]]) -> list[list[str]]:
        return [[c.symbol for c, _ in group] for group in groups]

    # A score above 1 counts as 1: "a"'s later candidates need 0.7 of 1, not of 2.
    grouped = result_groups(pairs, 3, by_file=True, per_file=3, share=0.7)
    assert shown(grouped) == [["0", "2", "3"], ["1"], ["4"]]  # "b" at 0.5 < 0.7 x 0.9
    assert shown(result_groups(pairs, 3, by_file=True, per_file=None, share=0.7)) == [
        ["0", "2", "3", "5"], ["1"], ["4"]
    ]
    assert shown(result_groups(pairs, 9, by_file=True, per_file=1, share=0.0)) == [
        ["0"], ["1"], ["4"], ["7"]
    ]
    assert shown(result_groups(pairs, 2, by_file=False, per_file=3, share=0.7)) == [["0"], ["1"]]
    assert result_groups([], 5, by_file=True, per_file=3, share=0.7) == []


def test_shown_scores_keep_the_order_of_scores_above_one() -> None:
    scored = [("a", 2.0), ("b", 1.5), ("a", 1.2), ("c", 0.5)]
    pairs = [(chunk(path, str(n)), score) for n, (path, score) in enumerate(scored)]
    for by_file in (True, False):
        shown = [score for group in result_groups(pairs, 3, by_file=by_file, per_file=2,
                                                  share=0.7) for _, score in group]
        assert shown[0] == 1.0 and all(0.0 < s < 1.0 for s in shown[1:])
        assert len(set(shown)) == len(shown)  # no two read 1.00 where the ranking told them apart
    weak = [(chunk("a"), 0.8), (chunk("b"), 0.3)]
    assert [s for [(_, s)] in result_groups(weak, 2, by_file=True, per_file=1, share=0.7)] == [
        0.8, 0.3
    ]  # at most 1 already: as scored


def test_diversify_pairs_and_custom_paths() -> None:
    pairs = [(chunk("a"), 3.0), (chunk("a"), 2.0), (chunk("b"), 1.0)]
    assert [c.path for c, _ in diversify(pairs, max_per_file=1)] == ["a", "b", "a"]
    plain = [("x.py", 1), ("x.py", 2), ("y.py", 3)]
    assert diversify(plain, 1, path_of=lambda item: item[0]) == [
        ("x.py", 1),
        ("y.py", 3),
        ("x.py", 2),
    ]
    assert diversify([], 2) == []
    with pytest.raises(ValueError):
        diversify(plain, 0, path_of=lambda item: item[0])


def test_content_words_split_names_and_drop_glue() -> None:
    assert content_words("getUserNames") == {"user", "name"}
    assert content_words("how are the user names fetched") == {"user", "name", "fetched"}
    assert content_words("ids has bus") == {"ids", "has", "bus"}  # short words stay as they are
    assert content_words("betweenness_centrality") == content_words("betweenness centralities")
    assert len(content_words("betweenness_centrality")) == 2
    assert content_words("parse_HTTPResponses") == {"parse", "http", "response"}
    # A plural and its singular share one form, whatever English does with the ending.
    assert content_words("classes and entries") == content_words("class entry")
    assert content_words("cookies") == content_words("cookie") == {"cookie"}
    assert content_words("process address") == {"process", "address"}


def test_name_words_match() -> None:
    name = frozenset({"betweenness", "centrality"})
    assert name_words_match(name, frozenset({"betweenness", "centrality"})) == 1.0
    # The whole name, half the query.
    assert name_words_match(name, frozenset({"betweenness", "centrality", "node", "graph"})) == (
        pytest.approx(0.5**0.5)
    )
    # Half the name, all of a one-word query.
    assert name_words_match(name, frozenset({"centrality"})) == 0.5
    assert name_words_match(name, frozenset({"shortest", "path"})) == 0.0
    assert name_words_match(frozenset(), name) == 0.0


def test_names_made_of_the_query_words_rise_in_fused_searches_only() -> None:
    weights = RankingSettings()
    query = "betweenness centrality of nodes"
    definition = chunk("nx/algo.py", "betweenness_centrality")
    other = chunk("nx/shortest.py", "all_shortest_paths")
    candidates = [(other, 1.0), (definition, 0.9)]
    fused = rerank(query, QueryKind.NATURAL_LANGUAGE, candidates, fused=True)
    expected = 0.9 * (
        1
        + weights.name_words_lift
        * name_words_match(content_words("betweenness_centrality"), content_words(query))
    )
    assert fused[0] == (definition, pytest.approx(expected))
    assert fused[1] == (other, 1.0)
    # One arm alone: no lift, its order stands.
    assert rerank(query, QueryKind.NATURAL_LANGUAGE, candidates) == candidates
    # A lone identifier gets the exact-symbol lift instead.
    assert QueryIntent.of("betweenness_centrality", fused=True).words == frozenset()
    assert (
        rerank(query, None, candidates, fused=True, settings=RankingSettings(name_words_lift=0.0))
        == candidates
    )


# Definitions of qualified names, and the file named after a symbol


def test_a_qualified_query_lifts_the_chunk_whose_qualified_name_ends_with_it() -> None:
    settings = RankingSettings(qualified_match_factor=1.3, definition_file_factor=1.0)
    nested = Candidate("a", "lib/web/engine/loader.rb", "Engine", fqn="Web.Engine.Loader.Engine")
    defining = Candidate("b", "lib/web/engine.rb", "Engine", fqn="Web.Engine")
    for query in ("Web::Engine", "Web.Engine", "Web#Engine"):
        intent = QueryIntent.of(query)
        assert intent.qualified == (("Web", "Engine"),)
        assert rerank_adjustments(defining, intent, settings) == pytest.approx(1.6 * 1.3)
        assert rerank_adjustments(nested, intent, settings) == pytest.approx(1.6)
    # The last segment alone still finds both definitions, equally.
    bare = QueryIntent.of("Engine")
    assert rerank_adjustments(defining, bare, settings) == rerank_adjustments(nested, bare, settings)


def test_kotlin_reaches_a_companion_objects_members_through_its_class() -> None:
    settings = RankingSettings(qualified_match_factor=1.3, definition_file_factor=1.0)
    intent = QueryIntent.of("Buffer.of")
    companion = Candidate("a", "okio/Buffer.kt", "of", fqn="Buffer.Companion.of", language="kotlin")
    elsewhere = Candidate("b", "okio/Segment.kt", "of", fqn="Segment.Companion.of", language="kotlin")
    assert rerank_adjustments(companion, intent, settings) == pytest.approx(1.6 * 1.3)
    assert rerank_adjustments(elsewhere, intent, settings) == pytest.approx(1.6)
    # Only Kotlin's companions are reached that way.
    other = Candidate("c", "src/buffer.rb", "of", fqn="Buffer.Companion.of", language="ruby")
    assert rerank_adjustments(other, intent, settings) == pytest.approx(1.6)


def test_the_file_named_after_a_symbol_holds_its_definition() -> None:
    settings = RankingSettings(definition_file_factor=1.15)
    intent = QueryIntent.of("Engine")
    in_its_file = Candidate("a", "lib/web/engine.rb", "Engine")
    reopened = Candidate("b", "lib/web/engine/configuration.rb", "Engine")
    assert rerank_adjustments(in_its_file, intent, settings) == pytest.approx(1.6 * 1.15)
    assert rerank_adjustments(reopened, intent, settings) == pytest.approx(1.6)
    snake = Candidate("c", "src/http_client.py", "HttpClient")
    assert rerank_adjustments(snake, QueryIntent.of("HttpClient"), settings) == pytest.approx(
        1.6 * 1.15
    )
    # Only a chunk that matches the name: a file named after it lifts nothing else.
    other = Candidate("d", "lib/web/engine.rb", "boot")
    assert rerank_adjustments(other, intent, settings) == 1.0


# Path words, coherence, fragments


def test_files_named_by_the_query_words_rise_in_fused_searches() -> None:
    settings = RankingSettings(path_words_lift=0.4)
    cookies = Candidate("a", "src/requests/cookies.py", "extract")
    mention = Candidate("b", "src/requests/sessions.py", "send")
    query = "cookie handling"
    fused = rerank(query, None, [(mention, 1.0), (cookies, 0.9)], fused=True, settings=settings)
    assert fused[0][0] is cookies
    assert fused[0][1] == pytest.approx(0.9 * (1 + 0.4 * (0.5**0.5)))
    # A directory named by the words counts half; single-arm searches stay as they were.
    nested = Candidate("c", "src/logging/handlers.rs", "init")
    intent = QueryIntent.of("logging setup", fused=True)
    assert rerank_adjustments(nested, intent, settings) == pytest.approx(1 + 0.4 * 0.5 * 0.5**0.5)
    assert rerank(query, None, [(mention, 1.0), (cookies, 0.9)], settings=settings)[0][0] is mention


def test_file_coherence_lifts_the_best_chunk_of_a_file_with_more_evidence() -> None:
    settings = RankingSettings(coherence_lift=0.5, coherence_chunks=2)
    lone = Candidate("lone", "a.py", "bootstrap")
    best, second, third = (Candidate(n, "app.py", n) for n in ("main", "setup", "load"))
    candidates = [(lone, 1.0), (best, 0.9), (second, 0.6), (third, 0.4)]
    lifted = dict((c.id, s) for c, s in apply_coherence(candidates, settings))
    assert lifted["main"] == pytest.approx(0.9 * (1 + 0.5 * (0.6 + 0.4) / 2))
    assert lifted["setup"] == 0.6 and lifted["load"] == 0.4 and lifted["lone"] == 1.0
    assert apply_coherence(candidates, RankingSettings()) == candidates


def test_fragments_go_down_unless_the_query_names_them() -> None:
    settings = RankingSettings(fragment_factor=0.7, fragment_lines=2)
    alias = Candidate("a", "rules.rs", "Rules", start_line=62, end_line=62)
    walk = Candidate("b", "walk.rs", "walk", start_line=10, end_line=60)
    intent = QueryIntent.of("where are ignore rules applied during the walk")
    assert penalty_factor(alias, intent, settings) == 0.7
    assert penalty_factor(walk, intent, settings) == 1.0
    assert penalty_factor(alias, QueryIntent.of("Rules"), settings) == 1.0


def test_plain_settings_keep_fusion_and_drop_every_boost_and_penalty() -> None:
    plain = RankingSettings(path_words_lift=0.2, coherence_lift=0.3).plain()
    assert plain.natural_keyword == RankingSettings().natural_keyword
    test_file = Candidate("t", "tests/test_engine.py", "Engine", start_line=1, end_line=1)
    assert rerank_adjustments(test_file, QueryIntent.of("Engine", fused=True), plain) == 1.0


# The pipeline


def test_rank_runs_the_stages_over_the_arms_candidates() -> None:
    records = {
        "def": Candidate("def", "src/store.py", "TaskStore", fqn="TaskStore", end_line=40),
        "use": Candidate("use", "src/api.py", "create", fqn="create", end_line=12),
        "test": Candidate("test", "tests/test_store.py", "test_store", end_line=9),
        "gone": Candidate("gone", "src/old.py"),
    }
    arms = {
        KEYWORD: lambda query, depth: [("use", 9.0), ("test", 8.0), ("def", 7.0), ("x", 1.0)],
        SEMANTIC: lambda query, depth: [("test", 0.9), ("def", 0.8), ("use", 0.7)],
    }

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records and i != "gone"}

    ranked = rank("TaskStore", arms, read)
    assert ranked.kind is QueryKind.IDENTIFIER and ranked.arms == (KEYWORD, SEMANTIC)
    assert [c.id for c, _ in ranked.candidates] == ["def", "use", "test"]
    only_src = rank("TaskStore", arms, read, accepts=lambda r: r.path.startswith("src/"))
    assert [c.id for c, _ in only_src.candidates] == ["def", "use"]
    keyword_only = rank("TaskStore", {KEYWORD: arms[KEYWORD]}, read)
    assert keyword_only.arms == (KEYWORD,)


def test_a_file_whose_whole_text_matches_the_question_rises_in_fused_searches() -> None:
    records = {
        "helper": Candidate("helper", "src/text.py", "plugin_label"),
        "module": Candidate("module", "src/registry.py", "register"),
        "other": Candidate("other", "src/colours.py", "palette"),
    }
    arms = {
        KEYWORD: lambda query, depth: [("helper", 9.0), ("module", 8.6), ("other", 1.0)],
        SEMANTIC: lambda query, depth: [("helper", 0.9), ("module", 0.86), ("other", 0.1)],
    }
    asked: list[tuple[str, set[str]]] = []

    def files(query: str, paths: object) -> dict[str, float]:
        asked.append((query, set(paths)))  # type: ignore[call-overload]
        return {"src/registry.py": 1.0, "src/text.py": 0.1}

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    def order(query: str, **options: object) -> list[str]:
        ranked = rank(query, options.pop("arms", arms), read, files=files, **options)
        return [chunk.id for chunk, _ in ranked.candidates]

    question = "how are plugins discovered and loaded"
    assert order(question)[0] == "module"
    assert asked == [(question, {"src/registry.py", "src/text.py", "src/colours.py"})]
    # Off, for a query that is one name, and for an arm searched alone: the best chunk wins.
    assert order(question, settings=RankingSettings(file_keyword_lift=0.0))[0] == "helper"
    assert order("plugin_label")[0] == "helper"
    assert order(question, arms={KEYWORD: arms[KEYWORD]})[0] == "helper"
    assert len(asked) == 1
    lifted = lift_files([(records["helper"], 0.5)], {"src/text.py": 0.5}, 1.0)
    assert lifted == [(records["helper"], 0.75)]
    assert lift_files([(records["helper"], 0.5)], {}, 1.0) == [(records["helper"], 0.5)]


def test_code_crowded_out_by_tests_is_searched_for_deeper() -> None:
    # A repository made mostly of tests: each arm's best hundred are all tests, and the module
    # the question is about comes only at rank 300 (within four times as deep).
    records = {f"t{i}": Candidate(f"t{i}", f"tests/test_{i}.py", f"test_{i}") for i in range(400)}
    records["core"] = Candidate("core", "src/collections.py", "map_collection", end_line=40)
    ranked_ids = [f"t{i}" for i in range(300)] + ["core"] + [f"t{i}" for i in range(300, 400)]
    depths: list[int] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        depths.append(depth)
        return [(chunk_id, 1.0 - rank / 1000) for rank, chunk_id in enumerate(ranked_ids[:depth])]

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    arms = {KEYWORD: arm, SEMANTIC: arm}
    query = "how are lists and dictionaries mapped"
    ranked = rank(query, arms, read)
    assert ranked.candidates[0][0].id == "core"
    assert depths == [100, 100, 400, 400]
    depths.clear()
    shallow = rank(query, arms, read, settings=RankingSettings(crowded_depth_factor=1))
    assert "core" not in {c.id for c, _ in shallow.candidates} and depths == [100, 100]
    # Asked for tests, the tests are what the question is about: no second search.
    depths.clear()
    rank(query + " in the tests", arms, read)
    assert depths == [100, 100]


def test_asking_for_more_results_does_not_change_the_first_ones() -> None:
    # Three tests match far better than any code: whether they crowd the code out is read
    # over the same first results whatever the limit (it was the first `limit`: 3 tests of
    # 3 or 8 crowded, 3 of 10 did not, and the first result changed with the limit).
    records = {f"t{i}": Candidate(f"t{i}", f"tests/test_{i}.py", f"test_{i}") for i in range(3)}
    records |= {f"c{i}": Candidate(f"c{i}", f"src/mod_{i}.py", f"step_{i}") for i in range(397)}
    scored = [("t0", 1.0), ("t1", 0.999), ("t2", 0.998)]
    scored += [(f"c{i}", 0.2 - i / 1000) for i in range(397)]

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        return scored[:depth]

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    arms = {KEYWORD: arm, SEMANTIC: arm}
    firsts = {
        limit: [c.id for c, _ in rank("how are jobs run", arms, read, limit=limit).candidates[:3]]
        for limit in (3, 8, 10, 12, 20, 40)
    }
    assert len({tuple(first) for first in firsts.values()}) == 1, firsts
    # The arms are asked as deep for 3 results as for 30 (the same candidates, ranked alike),
    # and deeper only for more results than that depth can hold.
    asked: list[int] = []

    def counting(query: str, depth: int) -> list[tuple[str, float]]:
        asked.append(depth)
        return scored[:depth]

    for limit in (3, 10, 30, 60):
        rank("how are jobs run", {KEYWORD: counting, SEMANTIC: counting}, read, limit=limit)
    assert asked == [100] * 6 + [180] * 2
    # A window of three reads the tests as a crowd: the code comes first, at every limit.
    narrow = RankingSettings(crowded_window=3)
    assert {
        rank("how are jobs run", arms, read, limit=limit, settings=narrow).candidates[0][0].id
        for limit in (3, 10, 40)
    } == {"c0"}


def test_a_name_defined_only_in_generated_code_is_still_found() -> None:
    # A tree of generated modules: the one that defines the queried name is asked for, and the
    # deeper search past the crowd must not drop it.
    records = {f"g{i}": Candidate(f"g{i}", f"generated/module_{i}.py", f"step_{i}_2")
               for i in range(150)}
    ranked_ids = [f"g{i}" for i in range(150)]
    depths: list[int] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        depths.append(depth)
        ordered = sorted(ranked_ids, key=lambda chunk_id: chunk_id != "g149")
        return [(chunk_id, 1.0 - rank / 1000) for rank, chunk_id in enumerate(ordered[:depth])]

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    # A search for the name's definition: found in the first search, among its neighbours.
    ranked = rank("step_149_2", {KEYWORD: arm}, read, limit=10)
    assert ranked.candidates[0][0].id == "g149" and depths == [100]
    # A question that names it searches past the crowd, and keeps the chunk it names.
    depths.clear()
    ranked = rank("what calls step_149_2", {KEYWORD: arm}, read, limit=10)
    assert ranked.candidates[0][0].id == "g149" and depths == [100, 400]


def test_examples_go_down_unless_asked_for() -> None:
    settings = RankingSettings(example_factor=0.4)
    for path in (
        "examples/help_usage.cpp", "samples/app.cs", "benches/run.rs", "bench/latency.cpp",
        "fuzz/app.cpp",
    ):
        sample = Candidate("e", path, "main")
        assert penalty_factor(sample, QueryIntent.of("how is help generated"), settings) == 0.4
        assert penalty_factor(sample, QueryIntent.of("an example of help"), settings) == 1.0
    for path in ("src/example_parser.py", "src/bench.c", "lib/benchmark_report.rb"):
        assert penalty_factor(Candidate("s", path), QueryIntent.of("x y"), settings) == 1.0


def test_a_capitalised_name_prefers_its_type_over_constructors_and_extensions() -> None:
    settings = RankingSettings(type_definition_factor=1.3, extending_definition_factor=0.7,
                               definition_file_factor=1.0)
    intent = QueryIntent.of("MoyaProvider")
    cls = Candidate("c", "Sources/Provider.swift", "MoyaProvider", kind="class")
    extension = Candidate("x", "Sources/Provider+Rx.swift", "MoyaProvider", kind="extension")
    constructor = Candidate("f", "Sources/Init.swift", "MoyaProvider", kind="function")
    factors = {c.id: rerank_adjustments(c, intent, settings) for c in (cls, extension, constructor)}
    assert factors == pytest.approx({"c": 1.6 * 1.3, "x": 1.6 * 0.7, "f": 1.6})
    # A lowercase name is a function's: no type preference.
    lower = Candidate("l", "src/x.py", "parse", kind="class")
    assert rerank_adjustments(lower, QueryIntent.of("parse"), settings) == pytest.approx(1.6)


# Definitions first: a query that is one name


def _ranked_ids(query: str, scored: list[tuple[Candidate, float]], **settings: object) -> list[str]:
    records = {c.id: c for c, _ in scored}
    ordered = sorted(scored, key=lambda pair: -pair[1])
    hits = {arm: [(c.id, score) for c, score in ordered] for arm in (KEYWORD, SEMANTIC)}
    ranked = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids},
                       settings=RankingSettings(**settings), max_per_file=None)  # type: ignore[arg-type]
    return [c.id for c, _ in ranked.candidates]


def test_a_query_that_is_one_name_puts_its_definitions_first_whatever_the_arms_scored() -> None:
    scored = [
        (Candidate("use", "src/query.ex", "", fqn="Postgrex.Query", kind="module"), 0.9),
        (Candidate("other", "lib/a.ex", "parse", fqn="Postgrex.Query.parse"), 0.8),
        (Candidate("def", "lib/postgrex.ex", "query", fqn="Postgrex.query"), 0.08),
    ]
    assert _ranked_ids("Postgrex.query", scored)[0] == "def"
    assert _ranked_ids("Postgrex.query", scored, definitions_first=False)[0] == "use"
    # A question in words that mentions the name is no search for its definition alone.
    assert not QueryIntent.of("where is Postgrex.query called").single_name


def test_the_surest_definition_comes_first() -> None:
    scored = [
        (Candidate("impl", "src/error.rs", "Error", fqn="Error", kind="impl"), 0.9),
        (Candidate("lower", "src/context.rs", "error", fqn="Chain.error", kind="method"), 0.8),
        (Candidate("function", "src/make.rs", "Error", fqn="make.Error"), 0.5),
        (Candidate("struct", "src/lib.rs", "Error", fqn="Error", kind="struct"), 0.1),
        (Candidate("other", "src/kind.rs", "Error", fqn="other.Error", kind="struct"), 0.05),
    ]
    # Type over function over extension; the score orders a tier; another case is no tier.
    assert _ranked_ids("Error", scored) == ["struct", "other", "function", "impl", "lower"]
    # The qualified name outranks every unqualified match.
    assert _ranked_ids("other::Error", scored)[:2] == ["other", "struct"]
    matches = [definition_match(c, QueryIntent.of("other::Error")) for c, _ in scored]
    assert [definition_tier(m) for m in matches] == [1, 0, 3, 4, 8]


def test_a_name_in_another_case_does_not_jump_ahead() -> None:
    scored = [
        (Candidate("module", "lib/sidekiq/job.rb", "", fqn="Sidekiq.Job", kind="module"), 0.9),
        (Candidate("method", "lib/sidekiq/api.rb", "job", fqn="Sidekiq.Work.job"), 0.5),
    ]
    assert _ranked_ids("Sidekiq::Job", scored) == ["module", "method"]


def test_a_type_asked_in_lower_case_is_found_in_the_file_named_after_it() -> None:
    scored = [
        (Candidate("method", "src/rules/ExternalResource.java", "statement",
                   fqn="ExternalResource.statement", kind="method"), 0.9),
        (Candidate("use", "src/runner/Runner.java", "run", fqn="Runner.run"), 0.8),
        (Candidate("type", "src/model/Statement.java", "Statement", kind="class"), 0.3),
        (Candidate("elsewhere", "src/model/Steps.java", "Statement", fqn="Steps.Statement",
                   kind="class"), 0.35),
    ]
    # The type's home comes first, then the method of the query's own spelling; a type of
    # that name in another file is no surer than any other name in another case.
    assert _ranked_ids("statement", scored)[:2] == ["type", "method"]
    matches = [definition_match(c, QueryIntent.of("statement")) for c, _ in scored]
    assert [definition_tier(m) for m in matches] == [3, 0, 4, 0]
    # Asked with the type's own capital, the method is no definition of it.
    assert _ranked_ids("Statement", scored)[:2] == ["type", "elsewhere"]
    # A module the chunker cut into parts, in its file: its home too.
    parts = [
        (Candidate("method", "lib/sidekiq/api.rb", "job", fqn="Sidekiq.Work.job"), 0.9),
        (Candidate("part", "lib/sidekiq/job.rb", "", fqn="Sidekiq.Job", kind="module"), 0.4),
    ]
    assert _ranked_ids("sidekiq::job", parts) == ["part", "method"]
    # Read in blocks (an arm alone, a limit), only a definition in the query's case is
    # lifted: the bound that stops the reading holds for those.
    records = {c.id: c for c, _ in scored}
    hits = [("type", 0.9), ("use", 0.8), ("method", 0.3), ("elsewhere", 0.2)]
    blockwise = rank_hits(
        "statement", {KEYWORD: hits},
        lambda ids: {i: records[i] for i in ids}, limit=2,
        defines=lambda ids, names, missed=True: {"method": DefinitionFacts()},
    )
    assert blockwise.candidates[0][0].id == "method"


def test_definitions_in_tests_docs_or_config_do_not_jump_ahead() -> None:
    scored = [
        (Candidate("use", "src/app.py", "run"), 0.9),
        (Candidate("test", "tests/test_app.py", "App", kind="class"), 0.5),
        (Candidate("docs", "docs/app.md", "App", tier=2, kind="section"), 0.5),
        (Candidate("def", "src/app_impl.py", "App", kind="class"), 0.05),
    ]
    assert _ranked_ids("App", scored) == ["def", "use", "test", "docs"]
    # Asked for tests, a test's definition is a definition like any other.
    assert _ranked_ids("App", scored[:2])[0] == "use"
    assert rank_hits("App", {KEYWORD: [("test", 0.5)]},
                     lambda ids: {"test": scored[1][0]}, include_tests=True).candidates[0][1] > 1


def test_a_private_definition_follows_a_public_one_of_the_same_tier() -> None:
    scored = [
        (Candidate("helper", "lib/protocol.ex", "connect", fqn="Protocol.connect"), 0.9),
        (Candidate("api", "lib/protocol.ex", "connect", fqn="Protocol.connect"), 0.4),
        (Candidate("type", "lib/conn.ex", "Connect", fqn="Connect", kind="module"), 0.95),
    ]
    records = {c.id: c for c, _ in scored}
    hits = {KEYWORD: [(c.id, score) for c, score in scored]}

    def ranked(query: str, private: set[str]) -> list[str]:
        defines = lambda ids, names: {  # noqa: E731
            i: DefinitionFacts(private=i in private) for i in ids if records[i].symbol in names
        }
        result = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids}, limit=3,
                           max_per_file=None, defines=defines)
        return [c.id for c, _ in result.candidates[:3]]

    assert ranked("connect", set()) == ["helper", "api", "type"]
    assert ranked("connect", {"helper"}) == ["api", "helper", "type"]
    # Privacy orders only within a tier: a qualified match stays first.
    assert ranked("Protocol.connect", {"helper"})[:2] == ["api", "helper"]
    assert ranked("Protocol.connect", {"api"})[:2] == ["helper", "api"]


def test_deprecated_and_crate_visible_definitions_follow_public_ones() -> None:
    scored = [
        (Candidate("moved", "src/chain.rs", "Chain", kind="struct"), 0.9),
        (Candidate("private", "src/imp.rs", "Chain", kind="struct"), 0.7),
        (Candidate("public", "src/lib.rs", "Chain", kind="struct"), 0.5),
    ]
    records = {c.id: c for c, _ in scored}
    hits = {KEYWORD: [(c.id, score) for c, score in scored]}

    def ranked(facts: dict[str, DefinitionFacts]) -> list[str]:
        defines = lambda ids, names: {i: facts.get(i, DefinitionFacts()) for i in ids}  # noqa: E731
        result = rank_hits("Chain", hits, lambda ids: {i: records[i] for i in ids}, limit=3,
                           max_per_file=None, defines=defines)
        return [c.id for c, _ in result.candidates[:3]]

    assert ranked({}) == ["moved", "private", "public"]
    private = DefinitionFacts(private=True)
    crate = DefinitionFacts(restricted=True)
    old = DefinitionFacts(deprecated=True)
    # pub before pub(crate) before private, whatever the scores.
    assert ranked({"moved": crate, "private": private}) == ["public", "moved", "private"]
    assert ranked({"moved": old, "private": crate}) == ["public", "private", "moved"]
    assert ranked({"moved": old, "private": private}) == ["public", "moved", "private"]


def test_a_name_no_arm_finds_ranks_nothing() -> None:
    # Definitions first reads every candidate of a one-name query: there may be none.
    for query in ("App", "how is the app started"):
        assert rank_hits(query, {KEYWORD: [], SEMANTIC: []}, lambda ids: {}, limit=10).candidates == []


# Bounded reading: a search reads records only while an unread one could still reach its top


def _many_candidates() -> tuple[dict[str, Candidate], list[tuple[str, float]]]:
    records = {}
    hits = []
    for number in range(300):
        path = f"src/m{number % 37}.py" if number % 5 else f"tests/test_m{number % 11}.py"
        symbol = "parse_config" if number in (150, 240) else f"helper_{number}"
        records[f"c{number}"] = Candidate(
            f"c{number}", path, symbol, fqn=symbol, end_line=1 + number % 7
        )
        hits.append((f"c{number}", 300.0 - number))
    return records, hits


#: Bounded reading is for rankings where each candidate's score is its own: ranked as files,
#: a file's score needs all its candidates, and every candidate is read.
CHUNKWISE = RankingSettings(files_first=False)


def test_bounded_reading_gives_the_same_top_and_reads_less() -> None:
    records, keyword_hits = _many_candidates()
    semantic_hits = [(chunk_id, score / 300) for chunk_id, score in reversed(keyword_hits)]
    read_ids: list[int] = []

    def read(ids: list[str]) -> dict[str, Candidate]:
        read_ids.append(len(ids))
        return {i: records[i] for i in ids}

    for query in ("parse config", "parse_config", "where is config parsed", "m3"):
        read_ids.clear()

        hits = {KEYWORD: keyword_hits[:100], SEMANTIC: semantic_hits[:100]}
        whole = rank_hits(query, hits, read, settings=CHUNKWISE)
        read_all = sum(read_ids)
        read_ids.clear()
        for limit in (30, 10, 1):
            read_ids.clear()
            bounded = rank_hits(query, hits, read, limit=limit, settings=CHUNKWISE)
            assert bounded.candidates[:limit] == whole.candidates[:limit], (query, limit)
        if not QueryIntent.of(query).single_name:  # a name's definitions may lie anywhere
            assert sum(read_ids) < read_all  # the top one needs less than everything


def test_a_name_whose_definitions_are_looked_up_reads_less_for_the_same_top() -> None:
    records, keyword_hits = _many_candidates()
    semantic_hits = [(chunk_id, score / 300) for chunk_id, score in reversed(keyword_hits)]
    hits = {KEYWORD: keyword_hits[:100], SEMANTIC: semantic_hits[:100]}
    read_ids: list[str] = []

    def read(ids: list[str]) -> dict[str, Candidate]:
        read_ids.extend(ids)
        return {i: records[i] for i in ids}

    def defines(ids: list[str], names: list[str]) -> dict[str, DefinitionFacts]:
        return {i: DefinitionFacts() for i in ids if records[i].symbol in names}

    # parse_config is defined by c150 and c240, in tests (so not lifted), helper_42 by a
    # candidate deep in both arms, helper_299 by the keyword arm's last, the semantic arm's
    # first.
    for query in ("parse_config", "helper_299", "helper_42", "nothing_defines_this"):
        whole = rank_hits(query, hits, read, settings=CHUNKWISE)
        read_all = len(read_ids)
        for limit in (10, 1):
            read_ids.clear()
            looked_up = rank_hits(
                query, hits, read, limit=limit, defines=defines, settings=CHUNKWISE
            )
            assert looked_up.candidates[:limit] == whole.candidates[:limit], (query, limit)
            assert len(read_ids) < read_all
        if query == "helper_42":  # fused far down, it defines the name: it comes first
            assert looked_up.candidates[0][0].id == "c42"
        read_ids.clear()


def test_bounds_cover_every_boost_and_penalty() -> None:
    records, _ = _many_candidates()
    settings = RankingSettings(test_factor=1.2)  # a "penalty" that lifts
    for query in ("parse_config", "parse config", "Config::parse_config"):
        intent = QueryIntent.of(query, fused=True)
        bound = boost_bound(intent, settings) * penalty_bound(settings)
        for chunk in records.values():
            lift = boost_factor(chunk, intent, settings) * penalty_factor(chunk, intent, settings)
            assert lift <= bound + 1e-12


# The learned combination


def test_learned_features_one_row_per_candidate() -> None:
    records, hits = _many_candidates()
    intent = QueryIntent.of("parse config", fused=True)
    ranked = [(records[i], 1.0 - n / 300) for n, (i, _) in enumerate(hits)]
    semantic = [(i, 0.9 - n / 1000) for n, (i, _) in enumerate(hits[100:200])]
    arm_hits = {KEYWORD: hits[:100], SEMANTIC: semantic}
    rows = features(ranked, arm_hits, intent, DEFAULT_SETTINGS)
    assert len(rows) == len(ranked) and {len(row) for row in rows} == {len(FEATURES)}
    named = dict(zip(FEATURES, rows[150]))
    assert named["name_words"] == 1.0 and named["keyword"] == 0.0 and named["semantic"] > 0
    assert dict(zip(FEATURES, rows[0]))["test"] == 1.0  # c0 lives in tests/
    assert len(features(ranked, arm_hits, intent, DEFAULT_SETTINGS, depth=10)) == 10


def test_learned_combination_orders_by_its_weights() -> None:
    records, hits = _many_candidates()
    read = lambda ids: {i: records[i] for i in ids}  # noqa: E731
    arm_hits = {KEYWORD: hits[:100], SEMANTIC: [(i, s / 300) for i, s in hits[:100]]}
    # Weighing only fragments: the one-line chunks come first, in hand-tuned order.
    settings = RankingSettings(
        combination="learned", learned_weights=(("fragment", 5.0), ("hand", 0.1))
    )
    ranked = rank_hits("where is it", arm_hits, read, settings=settings, max_per_file=None)
    lines = [chunk.end_line - chunk.start_line + 1 for chunk, _ in ranked.candidates]
    assert lines[0] <= 2 and all(0.0 <= score <= 1.0 for _, score in ranked.candidates)
    with pytest.raises(ValueError, match="unknown ranking features"):
        LinearWeights((("nonsense", 1.0),)).vector()
    with pytest.raises(ValueError, match="combination"):
        RankingSettings(combination="magic")


def test_shipped_learned_weights_name_known_features() -> None:
    from sharc.ranking.learned_weights import WEIGHTS

    assert LinearWeights(WEIGHTS).vector()


# Graph neighbours


def test_seed_files_are_the_files_of_the_strongest_candidates() -> None:
    candidates = [
        (Candidate("a1", "a.py", "run"), 0.9), (Candidate("a2", "a.py", "stop"), 0.95),
        (Candidate("b", "b.py", "load"), 0.8), (Candidate("c", "c.py"), 0.8),
    ]
    assert seed_files(candidates, 2) == ["a.py", "b.py"]
    assert seed_files(candidates, 0) == []
    assert defined_names(candidates) == {
        "a.py": frozenset({"run", "stop"}), "b.py": frozenset({"load"}), "c.py": frozenset()
    }


def test_graph_neighbours_lift_every_chunk_of_a_file_linked_to_a_strong_one() -> None:
    settings = RankingSettings(neighbour_lift=0.5, neighbour_seeds=2)
    launcher, manager = Candidate("l", "launcher.rb", "run"), Candidate("m", "manager.rb", "start")
    manager_stop = Candidate("s", "manager.rb", "stop")
    lone, weak = Candidate("x", "api.rb", "work"), Candidate("w", "util.rb", "log")
    candidates = [(launcher, 1.0), (lone, 0.8), (manager, 0.4), (manager_stop, 0.2), (weak, 0.5)]
    seeds = seed_files(candidates, settings.neighbour_seeds)
    assert seeds == ["launcher.rb", "api.rb"]
    linked = {"launcher.rb": frozenset({"manager.rb", "launcher.rb"}), "api.rb": frozenset()}
    assert neighbour_evidence(candidates, seeds, linked) == {"manager.rb": 1.0}
    lifted = dict((c.id, s) for c, s in apply_neighbours(candidates, seeds, linked, settings))
    assert lifted == pytest.approx({"l": 1.0, "x": 0.8, "m": 0.6, "s": 0.3, "w": 0.5})
    # A link from a weaker seed lifts by that seed's share of the best score.
    linked = {"launcher.rb": frozenset(), "api.rb": frozenset({"util.rb"})}
    assert neighbour_evidence(candidates, seeds, linked) == {"util.rb": pytest.approx(0.8)}
    assert apply_neighbours(candidates, seeds, {}, settings) == candidates


def test_graph_neighbours_run_for_words_only_and_when_on() -> None:
    on = RankingSettings(neighbour_lift=0.3)
    assert wants_neighbours(QueryIntent.of("how are jobs fetched and run"), on)
    assert wants_neighbours(QueryIntent.of("where is run_job called"), on)
    assert not wants_neighbours(QueryIntent.of("Sidekiq::Manager"), on)
    assert not wants_neighbours(QueryIntent.of("how are jobs fetched"), RankingSettings())
    with pytest.raises(ValueError, match="lifts"):
        RankingSettings(neighbour_lift=-0.1)
    assert RankingSettings(neighbour_lift=0.3).plain().neighbour_lift == 0.0


def test_rank_asks_the_graph_for_the_seeds_links_only_when_the_stage_is_on() -> None:
    records = {
        "app": Candidate("app", "lib/app.py", "serve"),
        "router": Candidate("router", "lib/router.py", "route"),
        "noise": Candidate("noise", "lib/noise.py", "serve_static"),
        "tail": Candidate("tail", "lib/tail.py", "tail"),
    }
    hits = {KEYWORD: [("app", 9.0), ("noise", 8.5), ("router", 8.0), ("tail", 1.0)],
            SEMANTIC: [("app", 0.9), ("noise", 0.85), ("router", 0.8), ("tail", 0.1)]}
    asked: list[tuple[list[str], dict[str, frozenset[str]]]] = []

    def linked_files(seeds, files):  # type: ignore[no-untyped-def]
        asked.append((list(seeds), dict(files)))
        return {"lib/app.py": frozenset({"lib/router.py"})}

    graph = GraphFacts(linked_files)
    read = lambda ids: {i: records[i] for i in ids}  # noqa: E731
    query = "how does a request reach its handler"
    plain = rank_hits(query, hits, read, graph=graph)
    assert asked == [] and [c.id for c, _ in plain.candidates][:3] == ["app", "noise", "router"]
    settings = RankingSettings(neighbour_lift=0.5, neighbour_seeds=1)
    lifted = rank_hits(query, hits, read, settings=settings, graph=graph, limit=2)
    assert asked[0][0] == ["lib/app.py"] and set(asked[0][1]) == set(
        r.path for r in records.values()
    )
    order = [c.id for c, _ in lifted.candidates]
    assert order.index("router") < order.index("noise")
    asked.clear()
    rank_hits("serve_static", hits, read, settings=settings, graph=graph)
    assert asked == []  # a lone identifier


# Files first


def test_a_file_is_scored_by_its_best_chunk_and_a_share_of_the_next() -> None:
    scored = [
        (Candidate("a1", "src/router.js", "route"), 0.8),
        (Candidate("a2", "src/router.js", "match"), 0.7),
        (Candidate("a3", "src/router.js", "mount"), 0.6),
        (Candidate("a4", "src/router.js", "use"), 0.5),
        (Candidate("b1", "src/util.js", "routeName"), 0.9),
    ]
    settings = RankingSettings(file_share=0.3, file_chunks=2)
    assert file_scores(scored, 0.3, 2) == pytest.approx({"src/router.js": 1.19, "src/util.js": 0.9})
    ranked = sorted(rank_files(scored, settings), key=lambda pair: -pair[1])
    # The module that holds the topic comes before the helper whose one function matches best.
    assert [c.id for c, _ in ranked][:2] == ["a1", "b1"]
    assert rank_files(scored, RankingSettings(files_first=False)) == scored


def test_a_grab_bag_file_is_judged_by_its_best_chunk_alone() -> None:
    scored = [
        (Candidate("a1", "src/utils.py", "slugify"), 0.8),
        (Candidate("a2", "src/utils.py", "retry"), 0.7),
        (Candidate("a3", "src/utils.py", "checksum"), 0.6),
        (Candidate("b1", "src/text.py", "normalize_title"), 0.9),
    ]
    settings = RankingSettings(file_share=0.3, file_chunks=2, cohesion_floor=0.3, cohesion_full=0.4)
    gates = evidence_gates({"src/utils.py": 0.2, "src/text.py": 0.35}, settings)
    assert gates == pytest.approx({"src/utils.py": 0.0, "src/text.py": 0.5})
    assert evidence_gates({"src/utils.py": 0.2}, RankingSettings(cohesion_floor=0.3, cohesion_full=0.3)) == {}
    assert file_scores(scored, 0.3, 2, gates) == pytest.approx({"src/utils.py": 0.8, "src/text.py": 0.9})
    assert file_scores(scored, 0.3, 2) == pytest.approx({"src/utils.py": 1.19, "src/text.py": 0.9})
    lifted = lift_files(scored[:1], {"src/utils.py": 1.0}, 0.5, {"src/utils.py": 0.5})
    assert lifted == [(scored[0][0], pytest.approx(1.0))]

    # Through the pipeline: the file's parts count only as far as the reader says they
    # belong together; without a reader, fully.
    records = {c.id: c for c, _ in scored}
    arms = {
        KEYWORD: lambda query, depth: [(c.id, 10 * s) for c, s in scored],
        SEMANTIC: lambda query, depth: [(c.id, s) for c, s in scored],
    }

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    def first(**options: object) -> str:
        ranked = rank("turn a title into a url slug", arms, read, **options)
        return ranked.candidates[0][0].id

    assert first() == "a1"
    asked: list[set[str]] = []

    def cohesion(paths: object) -> dict[str, float]:
        asked.append(set(paths))  # type: ignore[call-overload]
        return {"src/utils.py": 0.1, "src/text.py": 0.9}

    assert first(cohesion=cohesion) == "b1"
    assert asked == [{"src/utils.py", "src/text.py"}]
    off = RankingSettings(cohesion_floor=0.0, cohesion_full=0.0)
    assert first(cohesion=cohesion, settings=off) == "a1" and len(asked) == 1


def test_a_second_chunk_of_a_file_comes_only_where_nothing_else_is_as_strong() -> None:
    a1, a2 = Candidate("a1", "src/app.py", "create_app"), Candidate("a2", "src/app.py", "run_app")
    b1, c1 = Candidate("b1", "src/config.py", "load"), Candidate("c1", "src/cli.py", "main")
    settings = RankingSettings(repeat_factor=0.5)

    def order(scored: list[tuple[Candidate, float]]) -> list[str]:
        ranked = sorted(rank_files(scored, settings), key=lambda pair: -pair[1])
        return [c.id for c, _ in ranked]

    # a2 is more than twice as strong as b1: it comes second.
    assert order([(a1, 1.0), (a2, 0.95), (b1, 0.4), (c1, 0.2)]) == ["a1", "a2", "b1", "c1"]
    # Not so here: every other file's best comes first.
    assert order([(a1, 1.0), (b1, 0.9), (a2, 0.5), (c1, 0.45)]) == ["a1", "b1", "c1", "a2"]


# The primary definition of a name defined more than once


def _primary(query: str, scored: list[tuple[Candidate, float]],
             facts: dict[str, DefinitionFacts] | None = None) -> list[str]:
    records = {c.id: c for c, _ in scored}
    hits = {KEYWORD: [(c.id, score) for c, score in scored]}
    defines = lambda ids, names: {  # noqa: E731
        i: (facts or {}).get(i, DefinitionFacts()) for i in ids if records[i].symbol in names
    }
    result = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids}, limit=len(scored),
                       max_per_file=None, defines=defines)
    return [c.id for c, _ in result.candidates]


def test_a_partial_class_is_found_in_the_file_named_after_it() -> None:
    scored = [
        (Candidate("settings", "src/Store.Settings.cs", "Store", fqn="Shop.Store", kind="class"), 0.9),
        (Candidate("cache", "src/Store.Cache.cs", "Store", fqn="Shop.Store", kind="class"), 0.8),
        (Candidate("main", "src/Store.cs", "Store", fqn="Shop.Store", kind="class"), 0.3),
    ]
    assert _primary("Store", scored)[0] == "main"


def test_the_shortest_qualified_name_and_a_body_come_first() -> None:
    scored = [
        (Candidate("deep", "lib/http/auth/basic/client.rb", "Client",
                   fqn="Http.Auth.Basic.Client", kind="class"), 0.9),
        (Candidate("top", "lib/http/client.rb", "Client", fqn="Http.Client", kind="class"), 0.5),
    ]
    assert _primary("Client", scored) == ["top", "deep"]
    # A one-line reopening in another file named like it, or a forward declaration, follows
    # the definition with a body.
    scored = [
        (Candidate("reopened", "lib/engine.rb", "Engine", fqn="Engine", kind="class"), 0.9),
        (Candidate("body", "lib/core/engine.rb", "Engine", fqn="Engine", kind="class"), 0.4),
    ]
    stub = {"reopened": DefinitionFacts(stub=True)}
    assert _primary("Engine", scored, stub) == ["body", "reopened"]


class _Declarations:
    """A definition source over fixed `(id, language, symbol, header, code)` rows."""

    def __init__(
        self, rows: list[tuple[str, str, str, str, str]], imports: Sequence[ReferenceRow] = ()
    ) -> None:
        self.rows = rows
        self.imports = list(imports)

    def references_of_paths(
        self, paths: Sequence[str], kinds: Sequence[str] = ()
    ) -> list[ReferenceRow]:
        return [r for r in self.imports if r.path in paths and (not kinds or r.kind in kinds)]

    def definitions_among(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> list[tuple[str, str, str, str, str]]:
        return [row for row in self.rows if row[0] in chunk_ids and row[2] in names]

    def definitions_named(self, names: Sequence[str]) -> list[DefinitionRow]:
        """Whole definitions: a part (`#part2`) counts by its first part."""
        return [
            DefinitionRow(row[0], "", "", row[2], row[2], 1, 1)
            for row in self.rows
            if row[2] in names and "#part" not in row[0]
        ]


def test_the_part_that_declares_a_name_comes_before_its_cut_off_doc_comment() -> None:
    # A trait with a long doc comment: the chunker cut the comment into a part of its own.
    doc = "/// Provides the `context` method.\n///\n/// ```\n/// use anyhow::Context;\n/// ```\n"
    body = "pub trait Context<T, E> {\n    fn context(self) -> T;\n    fn with(self) -> T;\n}\n"
    facts = definition_finder(_Declarations([
        ("doc", "rust", "Context", "", doc), ("trait", "rust", "Context", "", body),
    ]))(["doc", "trait"], ["Context"])
    assert facts["doc"].undeclared and not facts["trait"].undeclared
    scored = [
        (Candidate("doc", "src/lib.rs", "Context", fqn="Context", kind="trait",
                   start_line=470, end_line=579), 0.9),
        (Candidate("trait", "src/lib.rs", "Context", fqn="Context", kind="trait",
                   start_line=580, end_line=628), 0.8),
    ]
    assert _primary("Context", scored, facts) == ["trait", "doc"]
    assert _primary("Context", scored) == ["doc", "trait"]  # the larger part, without facts


def test_the_part_with_the_declaration_comes_before_the_part_whose_examples_call_it() -> None:
    # A long `@doc` heredoc the chunker cut in two: the first part only calls `start_link` in
    # its examples; the second ends the heredoc and declares it.
    examples = "Starts a pool.\n\n    {:ok, pid} = Postgrex.start_link(opts)\n\n" * 20
    declaring = (
        '  Then:\n    Postgrex.start_link(opts)\n"""\ndef start_link(opts) do\n  go(opts)\nend\n'
    )
    facts = definition_finder(_Declarations([
        ("examples", "elixir", "start_link", "", examples),
        ("declaring", "elixir", "start_link", "", declaring),
    ]))(["examples", "declaring"], ["start_link"])
    assert facts["declaring"].keyword_declared and not facts["examples"].keyword_declared
    assert not facts["examples"].undeclared  # it does name it: only the keyword tells
    scored = [
        (Candidate("examples", "lib/postgrex.ex", "start_link", fqn="Postgrex.start_link",
                   start_line=145, end_line=216), 0.9),
        (Candidate("declaring", "lib/postgrex.ex", "start_link", fqn="Postgrex.start_link",
                   start_line=218, end_line=252), 0.8),
    ]
    assert _primary("start_link", scored, facts) == ["declaring", "examples"]
    assert _primary("start_link", scored) == ["examples", "declaring"]  # the larger, without facts


def test_a_whole_definition_the_arms_missed_joins_the_candidates() -> None:
    # A long C++ class cut into parts: later parts name `App` more often than the one that
    # declares it, so the arms return them and not the declaration.
    head = "/// Creates a program.\nclass App {\n  protected:\n    std::string name_;\n"
    later = "    App *needs(App *app);\n    bool got_subcommand(const App *subcom) const;\n"
    rows = [
        ("App.hpp::CLI.App::class", "cpp", "App", "", head),
        ("App.hpp::CLI.App::class#part2", "cpp", "App", "", later),
        ("App.hpp::CLI.App::class#part3", "cpp", "App", "", later),
    ]
    defines = definition_finder(_Declarations(rows))
    facts = defines(["App.hpp::CLI.App::class#part2", "App.hpp::CLI.App::class#part3"], ["App"])
    assert set(facts) == {row[0] for row in rows}  # the declaring part, though no arm had it
    assert facts["App.hpp::CLI.App::class"].keyword_declared
    assert not facts["App.hpp::CLI.App::class#part2"].keyword_declared  # `const App *`
    # A name with more definitions than that is common: the arms' candidates stand for it.
    many = [(f"f{n}.py::parse", "python", "parse", "", "def parse():\n    pass\n")
            for n in range(MISSED_DEFINITIONS + 1)]
    assert set(definition_finder(_Declarations(many))(["f0.py::parse"], ["parse"])) == {
        "f0.py::parse"
    }


def test_a_definition_the_arms_missed_is_ranked_with_the_others() -> None:
    records = {
        "head": Candidate("head", "include/App.hpp", "App", fqn="CLI.App", kind="class",
                          start_line=112, end_line=199),
        "part7": Candidate("part7", "include/App.hpp", "App", fqn="CLI.App", kind="class",
                           start_line=889, end_line=989),
        "user": Candidate("user", "src/main.cpp", "main", fqn="main", kind="function",
                          start_line=1, end_line=9),
    }

    def defines(ids: Sequence[str], names: Sequence[str]) -> dict[str, DefinitionFacts]:
        facts = {"part7": DefinitionFacts(), "head": DefinitionFacts(keyword_declared=True)}
        return {chunk_id: facts[chunk_id] for chunk_id in facts if "App" in names}

    ranking = rank_hits(
        "CLI::App", {KEYWORD: [("part7", 9.0), ("user", 8.0)]},
        lambda ids: {i: records[i] for i in ids if i in records}, defines=defines,
    )
    assert [chunk.id for chunk, _ in ranking.candidates] == ["head", "part7", "user"]


@pytest.mark.parametrize(("symbol", "code"), [
    ("parse", "pub(crate) fn parse(input: &str) {"),
    ("call", "def self.call(env)"),
    ("setup", "function M.setup(opts)"),
    ("Handle", "func (r *Router) Handle(w http.ResponseWriter) {"),
    ("Engine", "export default class Engine {"),
    ("size", "fun String.size(): Int ="),
    ("App", "export const App = () => {"),
    ("MAX", "pub const MAX: u32 = 5;"),
])
def test_definition_keywords_just_before_the_name(symbol: str, code: str) -> None:
    assert declared_with_keyword(symbol, code)


@pytest.mark.parametrize(("symbol", "code"), [
    ("start_link", "{:ok, pid} = Postgrex.start_link(opts)"),
    ("parse", "let tree = parse(input);"),
    ("Engine", "// class Engine\nreturn new Engine();"),
    ("App", "    bool got_subcommand(const App *subcom) const;"),
    ("App", "void run(const App &app);"),
])
def test_a_call_or_a_comment_declares_nothing(symbol: str, code: str) -> None:
    assert not declared_with_keyword(symbol, code)


def test_a_stub_is_a_forward_declaration_prototype_or_reopening() -> None:
    assert declared_stub("parser", "struct parser;\n")
    assert declared_stub("jv_parse", "/* Parses. */\njv jv_parse(const char *s);\n")
    assert declared_stub("Engine", "class Engine\n  include Plugins\nend\n")
    assert not declared_stub("Engine", "class Engine\n  def a; end\n  def b; end\n  def c; end\nend\n")
    assert not declared_stub("parse", "int parse(char *s) {\n  if (!s)\n    return 0;\n  return s[0];\n}\n")
    assert not declared_stub("missing", "def other():\n    pass\n")


def test_a_module_the_chunker_split_is_found_by_its_qualified_name() -> None:
    # The lines of a long module between its methods come as parts with no symbol.
    scored = [
        (Candidate("method", "lib/sidekiq/job.rb", "logger", fqn="Sidekiq.Job.logger"), 0.9),
        (Candidate("user", "lib/sidekiq/job_logger.rb", "JobLogger", fqn="Sidekiq.JobLogger",
                   kind="class"), 0.8),
        (Candidate("part", "lib/sidekiq/job.rb", "", fqn="Sidekiq.Job", kind="module",
                   start_line=160, end_line=163), 0.2),
        (Candidate("code", "lib/sidekiq/job.rb", "", fqn="", kind="module"), 0.1),
    ]
    assert _primary("Sidekiq::Job", scored)[0] == "part"
    assert _primary("Job", scored)[0] == "part"


def test_a_short_type_stands_in_only_where_types_are_declared_forward_or_reopened() -> None:
    from sharc.ranking.visibility import stands_in

    assert stands_in("c", "parser", "struct parser;\n")
    assert stands_in("ruby", "Engine", "class Engine\n  include Plugins\nend\n")
    # A short function hands on to the one with the body, in any language.
    assert stands_in("go", "Get", "func Get(key string) any { return v.Get(key) }\n")
    # Where nothing declares a type forward, a short type is the whole of it.
    assert not stands_in("haskell", "ByteString", "data ByteString = BS !(ForeignPtr Word8)\n  !Int\n")
    assert not stands_in("rust", "Unit", "pub struct Unit;\n")


def test_of_two_definitions_of_a_name_the_one_the_other_imports_is_built_upon() -> None:
    strict = "Data/ByteString/Internal/Type.hs::ByteString"
    lazy = "Data/ByteString/Lazy/Internal.hs::ByteString"
    other = "Data/ByteString/Short/Internal.hs::ShortByteString"
    rows = [
        (strict, "haskell", "ByteString", "", "data ByteString = BS !(ForeignPtr Word8) !Int\n"),
        (lazy, "haskell", "ByteString", "", "data ByteString\n  = Empty\n  | Chunk !S.ByteString ByteString\n"),
        (other, "haskell", "ShortByteString", "", "data ShortByteString = SBS ByteArray#\n"),
    ]
    imports = [
        ReferenceRow("Data/ByteString/Lazy/Internal.hs", lazy, "Type", "import", 3,
                     "Data.ByteString.Internal"),
        ReferenceRow("Data/ByteString/Lazy/Internal.hs", lazy, "Internal", "import", 4,
                     "Data.ByteString.Short"),  # not a definition of the name asked
        ReferenceRow("Data/ByteString/Internal/Type.hs", strict, "Word", "import", 5, "Data"),
    ]
    facts = definition_finder(_Declarations(rows, imports))(
        [strict, lazy, other], ["ByteString", "ShortByteString"], missed=False
    )
    assert facts[strict].built_upon and not facts[lazy].built_upon
    assert not facts[other].built_upon  # defined once: nothing to tell apart
    assert not facts[strict].stub  # a short type is whole where nothing declares it forward


def test_an_import_names_the_file_whose_path_ends_with_its_module_path() -> None:
    from sharc.ranking.built_upon import built_upon, file_segments, module_segments

    assert module_segments("Internal", "Data.ByteString") == ("Data", "ByteString", "Internal")
    assert module_segments("Error", "crate::error") == ("error", "Error")
    assert module_segments("errors", "./lib") == ("lib", "errors")
    assert file_segments("src/lib/errors.ts") == ("src", "lib", "errors")
    paths = {"src/lib/errors.ts", "src/app/errors.ts", "src/app/main.ts"}
    row = ReferenceRow("src/app/errors.ts", "x", "errors", "import", 1, "../lib")
    assert built_upon(paths, [row]) == {"src/lib/errors.ts"}
    bare = ReferenceRow("src/app/errors.ts", "x", "errors", "import", 1, "")
    assert built_upon(paths, [bare]) == set()  # one segment names no file surely enough
