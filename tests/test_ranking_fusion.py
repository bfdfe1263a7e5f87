"""Fusing the arms' hits into one list: reciprocal rank fusion, score fusion, the weights
each kind of query gives the arms, and the settings that tune them
(`sharc.ranking.fusion`, `sharc.ranking.settings`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from ranking_helpers import Candidate
from sharc.ranking import (
    DEFAULT_SETTINGS,
    KEYWORD,
    SEMANTIC,
    QueryKind,
    RankingSettings,
    fuse,
    normalize_scores,
    rank_hits,
    reciprocal_rank_fusion,
    score_fusion,
    weights_for,
)

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
