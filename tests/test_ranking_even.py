"""The even ranking (`sharc.ranking.even`): a plain order of the arms' files, and the blend of
it with the staged order for questions in words."""

from __future__ import annotations

import pytest
from ranking_helpers import Candidate, chunk
from sharc.ranking import RankingSettings, rank
from sharc.ranking.even import (
    blend_files,
    even_file_order,
    path_share,
    place_factor,
    question_words,
)
from sharc.ranking.fusion import FAST_SEMANTIC, KEYWORD, SEMANTIC
from sharc.ranking.records import TIER_DOCS


def test_the_words_of_a_question_that_can_name_a_file() -> None:
    assert question_words("How are the plugins loaded at startup?") == {
        "plugins", "loaded", "startup"
    }
    assert question_words("is it on") == frozenset()


def test_a_file_is_named_by_the_words_its_name_or_folder_begins_or_equals() -> None:
    words = question_words("how are plugins loaded")  # plugins, loaded
    # `plugin` begins "plugins"; `loader` neither begins nor is begun by "loaded".
    assert path_share("lib/plugin/loader.js", words) == pytest.approx(0.5)
    assert path_share("lib/pluginLoaded.ts", words) == pytest.approx(1.0)  # camelCase parts
    assert path_share("src/PluginsLoaded.java", words) == pytest.approx(1.0)
    assert path_share("src/registry.py", words) == 0.0
    assert path_share("lib/config.py", question_words("the configuration")) == 1.0
    assert path_share("lib/retry.py", question_words("retries")) == 0.0
    # A part shorter than three letters begins too much to count.
    assert path_share("src/pl.py", words) == 0.0
    assert path_share("src/a.py", frozenset()) == 0.0


def test_tests_examples_shims_and_package_files_are_set_aside_unless_asked_for() -> None:
    assert place_factor("src/app.py") == 1.0
    assert place_factor("tests/test_app.py") == pytest.approx(0.3)
    assert place_factor("tests/test_app.py", tests=True) == 1.0
    assert place_factor("examples/basic.py") == pytest.approx(0.3)
    assert place_factor("src/compat/py2.py") == pytest.approx(0.3)
    assert place_factor("vendor/lib/x.go") == pytest.approx(0.3)
    assert place_factor("pkg/__init__.py") == pytest.approx(0.5)
    assert place_factor("types/index.d.ts") == pytest.approx(0.7)


def _records(*candidates: Candidate) -> dict[str, Candidate]:
    return {c.id: c for c in candidates}


def test_the_even_order_weighs_both_arms_alike_and_ranks_code_files() -> None:
    helper, registry, docs = (
        chunk("src/text.py", "label"), chunk("src/registry.py", "register"),
        chunk("README.md", "", tier=TIER_DOCS),
    )
    records = _records(helper, registry, docs)
    hits = {
        # The vectors put the helper first; BM25, by far more, the registry.
        SEMANTIC: [(helper.id, 0.80), (registry.id, 0.78), (docs.id, 0.9)],
        KEYWORD: [(registry.id, 12.0), (helper.id, 2.0), (docs.id, 1.0)],
    }
    assert even_file_order("sort the labels", hits, records) == ["src/registry.py", "src/text.py"]
    # Documentation is not among the files it orders, whatever its scores.
    assert "README.md" not in even_file_order("readme", hits, records)
    assert even_file_order("anything", {SEMANTIC: [], KEYWORD: []}, records) == []
    # Arms that score every hit alike give every file nothing but its place.
    flat = {SEMANTIC: [(helper.id, 0.5), (registry.id, 0.5)], KEYWORD: [(registry.id, 1.0)]}
    assert set(even_file_order("sort", flat, records)) == {"src/registry.py", "src/text.py"}


def test_a_file_named_by_the_question_and_a_file_of_many_candidates_rise() -> None:
    one, named, far = chunk("src/utils.py", "helper"), chunk("src/schedule.py"), chunk("z.py")
    parts = [chunk("src/engine.py", f"step{i}") for i in range(6)]
    records = _records(one, named, far, *parts)
    semantic = [(one.id, 0.9), (named.id, 0.85), *((p.id, 0.8) for p in parts), (far.id, 0.1)]
    keyword = [(one.id, 9.0), (named.id, 8.5), *((p.id, 8.0) for p in parts), (far.id, 1.0)]
    hits = {SEMANTIC: semantic, KEYWORD: keyword}
    order = even_file_order("how is work scheduled", hits, records)
    # `schedule` begins "scheduled"; six candidates outweigh one a little better.
    assert order == ["src/schedule.py", "src/engine.py", "src/utils.py", "z.py"]
    # A test file comes after, unless the question asks for tests.
    test = chunk("tests/test_schedule.py", "test_tick")
    records[test.id] = test
    hits = {SEMANTIC: [*semantic, (test.id, 0.95)], KEYWORD: [*keyword, (test.id, 9.5)]}
    assert even_file_order("how is work scheduled", hits, records)[0] == "src/schedule.py"
    asked = even_file_order("how is work scheduled", hits, records, tests=True)
    assert asked[0] == "tests/test_schedule.py"


def test_the_blend_moves_files_and_keeps_the_scores_scale_and_grouping() -> None:
    a1, a2, b, c = chunk("a.py", "one"), chunk("a.py", "two"), chunk("b.py"), chunk("c.py")
    staged = [(a1, 0.9), (b, 0.85), (a2, 0.8), (c, 0.5)]
    # Merged at an even share (k 10): a 1/11 + 1/13, b 1/12 + 1/11, c 1/13 + 1/12.
    blended = blend_files(staged, ["b.py", "c.py", "gone.py", "a.py"], 0.5, 10)
    assert [(x.id, round(s, 4)) for x, s in blended] == [
        (b.id, 0.9), (a1.id, 0.85), (a2.id, round(0.85 * 0.8 / 0.9, 4)), (c.id, 0.5)
    ]
    # Nothing to blend, or no share of it: the staged order as it was.
    assert blend_files(staged, [], 0.5, 10) == staged
    assert blend_files(staged, ["c.py", "b.py", "a.py"], 0.0, 10) == staged
    assert blend_files([], ["a.py"], 0.5, 10) == []


def test_the_blend_applies_to_fused_questions_in_words_only() -> None:
    helper = Candidate("helper", "src/text.py", "plugin_label")
    module = Candidate("module", "src/plugins.py", "register")
    other = Candidate("other", "src/colours.py", "palette")
    records = {c.id: c for c in (helper, module, other)}
    arms = {
        KEYWORD: lambda query, depth: [("helper", 9.0), ("module", 8.0), ("other", 1.0)],
        SEMANTIC: lambda query, depth: [("helper", 0.90), ("module", 0.70), ("other", 0.1)],
    }

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    def first(query: str, share: float, **options: object) -> str:
        settings = RankingSettings(even_share=share, file_keyword_lift=0.0)
        ranked = rank(query, options.pop("arms", arms), read, settings=settings, **options)
        return ranked.candidates[0][0].id

    question = "how are plugins registered"
    assert first(question, 0.0) == "helper"
    # The even ranking puts `plugins.py`, named by the question, first: at a share of one
    # its order is the order.
    assert first(question, 1.0) == "module"
    # Not for a name, nor for an arm searched alone.
    assert first("plugin_label", 1.0) == "helper"
    assert first(question, 1.0, arms={KEYWORD: arms[KEYWORD]}) == "helper"


def test_the_setting_is_a_share() -> None:
    with pytest.raises(ValueError, match="shares must lie in 0-1"):
        RankingSettings(even_share=1.5)
    with pytest.raises(ValueError, match="shares must lie in 0-1"):
        RankingSettings(fast_opinion_share=-0.1)
    assert RankingSettings().plain().even_share == 0.0
    assert RankingSettings().plain().fast_opinion_share == 0.0


def test_the_fast_opinion_orders_files_by_bm25_and_the_fast_vectors_and_is_never_fused() -> None:
    helper = Candidate("helper", "src/text.py", "plugin_label")
    module = Candidate("module", "src/registry.py", "register")
    other = Candidate("other", "src/colours.py", "palette")
    unfused = Candidate("unfused", "src/loader.py", "load")  # only the fast vectors find it
    records = {c.id: c for c in (helper, module, other, unfused)}
    searched: list[str] = []

    def fast(query: str, depth: int) -> list[tuple[str, float]]:
        searched.append(query)
        return [("module", 0.9), ("unfused", 0.8), ("other", 0.3), ("helper", 0.1)]

    arms = {
        KEYWORD: lambda query, depth: [("helper", 9.0), ("module", 4.0), ("other", 1.0)],
        SEMANTIC: lambda query, depth: [("helper", 0.90), ("module", 0.70), ("other", 0.1)],
        FAST_SEMANTIC: fast,
    }

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    def order(query: str, share: float) -> list[str]:
        settings = RankingSettings(even_share=0.0, fast_opinion_share=share, file_keyword_lift=0)
        ranked = rank(query, arms, read, settings=settings)
        assert ranked.arms == (KEYWORD, SEMANTIC)  # the fast arm is not one the search fused
        return [chunk.id for chunk, _ in ranked.candidates]

    question = "sort the colour labels"
    assert order(question, 0.0)[0] == "helper"
    assert searched == []  # off: not searched at all
    # At a share of one the even order of BM25 and the fast vectors is the order; the chunk
    # only the fast vectors returned is not a candidate: they place files, not chunks.
    assert order(question, 1.0) == ["module", "helper", "other"]
    assert searched == [question]
    # Not for a name: not even searched.
    assert order("plugin_label", 1.0)[0] == "helper"
    assert searched == [question]


def test_a_grab_bag_file_keeps_its_staged_place_and_is_judged_by_its_best_part() -> None:
    a, b, c = chunk("a.py"), chunk("b.py"), chunk("c.py")
    staged = [(a, 0.9), (b, 0.85), (c, 0.5)]
    # The even order wants b.py first; a gate of 0 leaves b.py where the stages put it.
    moved = blend_files(staged, ["b.py", "a.py", "c.py"], 0.6, 10)
    assert [x.id for x, _ in moved][:2] == [b.id, a.id]
    kept = blend_files(staged, ["b.py", "a.py", "c.py"], 0.6, 10, {"b.py": 0.0, "a.py": 0.0})
    assert [x.id for x, _ in kept] == [a.id, b.id, c.id]
    # Many weak parts lift a file; not a grab-bag's.
    parts = [chunk("bag.py", f"f{i}") for i in range(5)]
    one, far = chunk("one.py"), chunk("far.py")
    records = _records(one, far, *parts)
    semantic = [(one.id, 0.9), *((p.id, 0.85) for p in parts), (far.id, 0.1)]
    keyword = [(one.id, 9.0), *((p.id, 8.5) for p in parts), (far.id, 1.0)]
    hits = {SEMANTIC: semantic, KEYWORD: keyword}
    assert even_file_order("find it", hits, records)[0] == "bag.py"
    assert even_file_order("find it", hits, records, gates={"bag.py": 0.0})[0] == "one.py"
