"""Boosts and penalties: the factor each candidate's score is multiplied by, for what it
is (a test, docs, vendored or generated code, a fragment, an example) and for how its name
and path match the query (`sharc.ranking.boosts`, `penalties`, `coherence`)."""

from __future__ import annotations

import pytest
from ranking_helpers import Candidate, chunk
from sharc.ranking import (
    DEFAULT_SETTINGS,
    QueryIntent,
    QueryKind,
    RankingSettings,
    content_words,
    is_generated_path,
    is_test_path,
    is_vendored_path,
    name_words_match,
)
from sharc.ranking.boosts import apply_boosts, boost_factor
from sharc.ranking.coherence import apply_coherence
from sharc.ranking.penalties import apply_penalties, penalty_factor


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


# Names made of the query words


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


def test_a_qualifier_names_the_directory_or_file_of_a_top_level_definition() -> None:
    # A crate, package or module is named after its directory or file, and a definition at
    # its top level says nothing of them in its own qualified name.
    settings = RankingSettings(qualified_match_factor=1.3, definition_file_factor=1.0)
    cases = [
        ("anyhow::Error", Candidate("a", "anyhow/src/lib.rs", "Error", fqn="Error"),
         Candidate("b", "cli11/include/CLI/Error.hpp", "Error", fqn="CLI.Error")),
        ("response.body",
         Candidate("a", "koa/lib/response.js", "body", fqn="module.exports.body",
                   language="javascript"),
         Candidate("b", "http.zig/src/request.zig", "body", fqn="Request.body", language="zig")),
        ("Util.keys", Candidate("a", "lua/which-key/util.lua", "keys", fqn="M.keys",
                                language="lua"),
         Candidate("b", "lua/pl/tablex.lua", "keys", fqn="keys", language="lua")),
        ("http_server::config::Config",
         Candidate("a", "crates/http-server/src/config.rs", "Config", fqn="Config"),
         Candidate("b", "crates/config/src/lib.rs", "Config", fqn="Config")),
    ]
    for query, named, other in cases:
        intent = QueryIntent.of(query)
        assert boost_factor(named, intent, settings) > boost_factor(other, intent, settings), query
    # A definition inside a container is qualified by the container, not by its file's path.
    intent = QueryIntent.of("web::engine")
    nested = Candidate("a", "lib/web/engine/loader.rb", "engine", fqn="Loader.engine")
    top = Candidate("b", "lib/web/engine/loader.rb", "engine", fqn="engine")
    assert boost_factor(top, intent, settings) > boost_factor(nested, intent, settings)
    # A module, then the class and the member: the member's whole qualified name within its
    # module, and the module its file.
    intent = QueryIntent.of("logging.Formatter.format")
    method = Candidate("a", "logging/__init__.py", "format", fqn="Formatter.format")
    function = Candidate("b", "locale.py", "format", fqn="format")
    other_class = Candidate("c", "logging/__init__.py", "format", fqn="Handler.format")
    assert boost_factor(method, intent, settings) > boost_factor(function, intent, settings)
    assert boost_factor(method, intent, settings) > boost_factor(other_class, intent, settings)
    # The qualifiers must come in the path's order.
    intent = QueryIntent.of("config::http_server::Config")
    assert boost_factor(cases[3][1], intent, settings) == boost_factor(cases[3][2], intent, settings)


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


# Path words, coherence, fragments, examples


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


def test_plain_settings_keep_fusion_and_drop_every_boost_and_penalty() -> None:
    plain = RankingSettings(path_words_lift=0.2, coherence_lift=0.3).plain()
    assert plain.natural_keyword == RankingSettings().natural_keyword
    test_file = Candidate("t", "tests/test_engine.py", "Engine", start_line=1, end_line=1)
    assert rerank_adjustments(test_file, QueryIntent.of("Engine", fused=True), plain) == 1.0
