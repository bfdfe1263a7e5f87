"""Why a result ranks where it does (`sharc.ranking.explain`, `Index.search(explain=True)`,
`sharc search --explain`): the trace over fake arms, where the arms' ranks and every stage's
factor are known, then the real index (real model, usearch, tantivy) on the small repository,
where the explanation must account for each score shown and say what put a hit first."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from ranking_helpers import Candidate
from sharc.cli import main as cli_main
from sharc.index import Index
from sharc.multi_root import search_many
from sharc.ranking import DEFAULT_SETTINGS, KEYWORD, SEMANTIC, QueryIntent, QueryKind, rank
from sharc.ranking.boosts import boost_factor, boost_parts
from sharc.ranking.explain import (
    BOOSTS,
    DEFINITION,
    EVEN_OPINION,
    LOCATED_LINE,
    NAMED_DIRECTORY,
    NAMED_FILE,
    PENALTIES,
    QUOTED_TEXT,
    ArmPlace,
    Explanation,
    Trace,
)
from sharc.ranking.penalties import penalty_factor, penalty_parts

# The trace over fake arms


def _records() -> dict[str, Candidate]:
    return {
        "store": Candidate("store", "src/store.py", "save_task", fqn="save_task", end_line=30),
        "api": Candidate("api", "src/api.py", "create", fqn="create", end_line=12),
        "test": Candidate("test", "tests/test_store.py", "test_save", end_line=9),
    }


def _ranked(query: str, trace: Trace) -> dict[str, float]:
    records = _records()
    arms = {
        KEYWORD: lambda q, depth: [("test", 9.0), ("store", 7.0)],
        SEMANTIC: lambda q, depth: [("store", 0.8), ("api", 0.7), ("test", 0.6)],
    }
    ranking = rank(
        query, arms, lambda ids: {i: records[i] for i in ids if i in records}, limit=5,
        trace=trace,
    )
    return {chunk.id: score for chunk, score in ranking.candidates}


def test_the_trace_records_each_arms_rank_and_score() -> None:
    trace = Trace()
    _ranked("save a task to disk", trace)
    assert trace.explain("store").arms == {
        KEYWORD: ArmPlace(rank=2, score=7.0), SEMANTIC: ArmPlace(rank=1, score=0.8)
    }
    assert trace.explain("api").arms == {SEMANTIC: ArmPlace(rank=2, score=0.7)}
    assert trace.explain("unknown") == Explanation(arms={}, fused=0.0)


def test_the_stages_account_for_every_final_score() -> None:
    trace = Trace()
    scores = _ranked("save a task to disk", trace)
    for chunk_id, score in scores.items():
        explanation = trace.explain(chunk_id)
        assert explanation.fused > 0
        product = explanation.fused * math.prod(f for _, f in explanation.factors() if f)
        assert product == pytest.approx(explanation.score) == pytest.approx(score)
    # A test file the question does not ask for is penalised, and says so.
    test = trace.explain("test")
    assert dict(test.factors())[PENALTIES] == pytest.approx(DEFAULT_SETTINGS.test_factor)
    assert test.parts[PENALTIES] == (("test", DEFAULT_SETTINGS.test_factor),)
    assert "penalties x0.25 (test)" in test.summary()
    # A search without a trace ranks alike.
    assert _ranked("save a task to disk", Trace()) == scores


def test_a_definition_put_first_is_a_reason_not_a_factor() -> None:
    trace = Trace()
    scores = _ranked("save_task", trace)
    explanation = trace.explain("store")
    assert explanation.first == (DEFINITION,)
    assert max(scores, key=scores.__getitem__) == "store"
    # The level that put it first is above every score, not part of its evidence.
    assert scores["store"] > explanation.score
    assert "first: the definition of the name asked" in explanation.summary()
    assert trace.explain("api").first == ()


def test_an_explanation_reads_as_one_line_and_as_json() -> None:
    explanation = Explanation(
        arms={KEYWORD: ArmPlace(3, 12.4), SEMANTIC: ArmPlace(1, 0.712)},
        fused=0.8, stages=((BOOSTS, 1.2), (PENALTIES, 0.3)), first=(NAMED_FILE,),
        parts={PENALTIES: (("test", 0.25),)},
    )
    assert explanation.summary() == (
        "keyword #3 (12.4) · semantic #1 (0.712) · fused 0.800 · boosts x1.50 · penalties"
        " x0.25 (test) · first: a file the query names"
    )
    assert json.loads(json.dumps(explanation.as_dict())) == {
        "arms": {"keyword": {"rank": 3, "score": 12.4}, "semantic": {"rank": 1, "score": 0.712}},
        "fused": 0.8,
        "stages": [
            {"stage": "boosts", "score": 1.2},
            {"stage": "penalties", "score": 0.3,
             "parts": [{"reason": "test", "factor": 0.25}]},
        ],
        "first": ["a file the query names"],
        "score": 0.3,
    }
    found_by_name = Explanation(arms={}, fused=0.0, stages=(("boosts", 0.5),))
    assert found_by_name.factors() == [("boosts", None)]
    assert found_by_name.summary().startswith("found by name, not by an arm · fused 0.000")


@pytest.mark.parametrize(
    ("query", "kind"),
    [("save_task", QueryKind.IDENTIFIER), ("save a task in the store", QueryKind.NATURAL_LANGUAGE),
     ("where are tests for save_task", QueryKind.MIXED)],
)
def test_the_named_parts_multiply_to_each_stages_factor(query: str, kind: QueryKind) -> None:
    intent = QueryIntent.of(query, kind)
    for chunk in [*_records().values(), Candidate("doc", "docs/store.md", tier=2),
                  Candidate("one", "src/store.py", "x", start_line=4, end_line=4)]:
        boosts, penalties = boost_parts(chunk, intent, DEFAULT_SETTINGS), penalty_parts(
            chunk, intent, DEFAULT_SETTINGS)
        assert math.prod(f for _, f in boosts) == pytest.approx(
            boost_factor(chunk, intent, DEFAULT_SETTINGS))
        assert math.prod(f for _, f in penalties) == pytest.approx(
            penalty_factor(chunk, intent, DEFAULT_SETTINGS))
        assert all(f != 1.0 for _, f in boosts + penalties)


# The real index


def _shown_from_explanations(results: list) -> list[float]:  # type: ignore[type-arg]
    """Each hit's score as the explanations say it should read (none put first)."""
    best = max(hit.explanation.score for hit in results)
    return [min(1.0, hit.explanation.score / max(1.0, best)) for hit in results]


def test_a_search_explains_each_hit_only_when_asked(built: Index) -> None:
    question = "retry an action with exponential backoff"
    assert all(hit.explanation is None for hit in built.search(question).all_hits())
    response = built.search(question, limit=5, explain=True)
    plain = built.search(question, limit=5)
    assert [hit.id for hit in response.all_hits()] == [hit.id for hit in plain.all_hits()]
    hits = response.all_hits()
    assert all(isinstance(hit.explanation, Explanation) for hit in hits)
    assert not any(hit.explanation.first for hit in hits)
    # The explanation accounts for the score a user reads.
    assert [hit.score for hit in hits] == pytest.approx(_shown_from_explanations(hits))
    top = response[0].explanation
    assert top.arms and all(place.rank >= 1 for place in top.arms.values())
    assert set(top.arms) <= {KEYWORD, SEMANTIC}


def test_each_arm_alone_explains_with_its_own_rank(built: Index) -> None:
    for mode, arm in (("keyword", KEYWORD), ("semantic", SEMANTIC)):
        response = built.search("hash a password with a salt", mode=mode, explain=True)
        assert {name for hit in response.all_hits() for name in hit.explanation.arms} == {arm}
        ranks = [hit.explanation.arms[arm].rank for hit in response.all_hits()]
        assert len(set(ranks)) == len(ranks)


def test_what_put_a_hit_first_is_said(built: Index) -> None:
    assert DEFINITION in built.search("TaskStore", explain=True)[0].explanation.first
    assert NAMED_FILE in built.search("storage.py", explain=True)[0].explanation.first
    located = built.search("taskboard/models.py:33", explain=True)[0]
    assert located.path == "taskboard/models.py" and LOCATED_LINE in located.explanation.first
    quoted = built.search('"task titles are limited to 200 characters"', explain=True)[0]
    assert quoted.path == "taskboard/models.py" and QUOTED_TEXT in quoted.explanation.first
    scoped = built.search("how are tasks queued in notifier/", explain=True, limit=3)
    inside = [hit for hit in scoped.all_hits() if hit.path.startswith("notifier/")]
    assert inside and all(NAMED_DIRECTORY in hit.explanation.first for hit in inside)
    assert all(NAMED_DIRECTORY not in hit.explanation.first
               for hit in scoped.all_hits() if not hit.path.startswith("notifier/"))


def test_several_roots_and_asyncio_explain_too(built: Index, tmp_path: Path) -> None:
    many = search_many([built], "delete a task from the database", explain=True)
    assert many[0].explanation is not None and many[0].root == str(built.root)
    response = asyncio.run(built.asearch("TaskStore", limit=3, explain=True))
    assert DEFINITION in response[0].explanation.first


def test_the_cli_prints_why_under_each_hit(
    built: Index, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--path", str(built.root), "--index-dir", str(built.index_dir)]
    assert cli_main(["search", "delete a task from the database", *where, "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    hits = [line for line in lines if not line.startswith(" ")]
    whys = [line.strip() for line in lines if line.strip().startswith("why: ")]
    assert hits and len(whys) == len([line for line in lines if "why: " not in line])
    assert all("fused" in why for why in whys)
    assert cli_main(["search", "TaskStore", *where, "--explain", "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert DEFINITION in first["explanation"]["first"]
    assert cli_main(["search", "TaskStore", *where, "--json"]) == 0
    assert "explanation" not in json.loads(capsys.readouterr().out.splitlines()[0])


def test_the_even_opinion_places_files_of_a_question_in_words_and_keeps_their_scores(
    built: Index,
) -> None:
    questions = ("retry an action with exponential backoff", "where are tasks saved to disk",
                 "how are passwords hashed")
    staged_settings = dataclasses.replace(DEFAULT_SETTINGS, even_share=0.0)

    def searched(question: str, settings: object) -> list[Any]:
        built.ranking_settings = settings  # type: ignore[assignment]
        return built.search(question, limit=50, explain=True).all_hits()

    try:
        for question in questions:
            blended, staged = searched(question, DEFAULT_SETTINGS), searched(question, staged_settings)
            # The same files with the same best scores: only which file holds which changes.
            def tops(hits: list[Any]) -> list[float]:
                best: dict[str, float] = {}
                for hit in hits:
                    best[hit.path] = max(best.get(hit.path, 0.0), hit.explanation.score)
                return sorted(best.values())

            assert {h.path for h in blended} == {h.path for h in staged}
            assert tops(blended) == pytest.approx(tops(staged))
            assert not any(EVEN_OPINION in dict(h.explanation.stages) for h in staged)
        named = searched("TaskStore", DEFAULT_SETTINGS)
        assert not any(EVEN_OPINION in dict(h.explanation.stages) for h in named)
    finally:
        built.ranking_settings = DEFAULT_SETTINGS
