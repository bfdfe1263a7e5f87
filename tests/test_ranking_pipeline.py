"""The pipeline end to end over fake arms: the stages in order, how deep the arms are
searched, bounded reading of records, and the learned combination
(`sharc.ranking.pipeline`, `learned`)."""

from __future__ import annotations

import pytest
from ranking_helpers import Candidate
from sharc.ranking import (
    DEFAULT_SETTINGS,
    KEYWORD,
    SEMANTIC,
    QueryIntent,
    QueryKind,
    RankingSettings,
    rank,
    rank_hits,
)
from sharc.ranking.boosts import boost_bound, boost_factor
from sharc.ranking.explain import AFTER_THE_CODE, Trace
from sharc.ranking.learned import FEATURES, LinearWeights, features
from sharc.ranking.penalties import penalty_bound, penalty_factor
from sharc.ranking.visibility import DefinitionFacts

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


def test_a_crowded_search_still_gives_as_many_results_as_asked() -> None:
    # Among each arm's best 400 only two chunks are code: the search past the tests ranks
    # them first, and the tests fill the places left, below them, in their first order (it
    # gave the two alone: BM25 over a repository of tests answered 4 files of 10).
    records = {f"t{i}": Candidate(f"t{i}", f"tests/test_{i}.py", f"test_{i}") for i in range(400)}
    records["c0"] = Candidate("c0", "src/convert.py", "convert", end_line=30)
    records["c1"] = Candidate("c1", "src/types.py", "TypeMap", end_line=30)
    ranked_ids = [f"t{i}" for i in range(400)]
    ranked_ids[150:150] = ["c0"]
    ranked_ids[250:250] = ["c1"]

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        return [(chunk_id, 1.0 - rank / 1000) for rank, chunk_id in enumerate(ranked_ids[:depth])]

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    query = "built-in converters for special types"
    # Tests as strong as code (no penalty): scaled below it.
    for settings in (DEFAULT_SETTINGS, RankingSettings(test_factor=1.0)):
        trace = Trace()
        ranked = rank(query, {KEYWORD: arm}, read, settings=settings, trace=trace)
        ids = [chunk.id for chunk, _ in ranked.candidates]
        assert ids[:2] == ["c0", "c1"] and len(ids) >= 10
        assert ids[2:6] == ["t0", "t1", "t2", "t3"]
        scores = [score for _, score in ranked.candidates]
        assert scores == sorted(scores, reverse=True)
        # Explained, a test says where its first ranking placed it, and its score.
        test = trace.explain("t0")
        assert test.arms[KEYWORD].rank == 1 and test.score == pytest.approx(scores[2])
    assert test.stages[-1][0] == AFTER_THE_CODE


def test_files_past_one_files_hundred_chunks_are_searched_for_deeper() -> None:
    # One file's 150 methods fill the keyword arm's best hundred (`CLI::App`, App.hpp): the
    # other files asked for come from a search four times deeper, after them, in order.
    records = {f"m{i}": Candidate(f"m{i}", "include/App.hpp", f"method_{i}") for i in range(150)}
    records |= {f"f{i}": Candidate(f"f{i}", f"src/other_{i}.cpp", f"use_{i}") for i in range(20)}
    records["t"] = Candidate("t", "tests/test_app.cpp", "test_app")
    ordered = [f"m{i}" for i in range(150)] + ["t"] + [f"f{i}" for i in range(20)]
    depths: list[int] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        depths.append(depth)
        return [(chunk_id, 10.0 - rank / 100) for rank, chunk_id in enumerate(ordered[:depth])]

    def read(ids: list[str]) -> dict[str, Candidate]:
        return {i: records[i] for i in ids if i in records}

    trace = Trace()
    ranked = rank("CLI::App", {KEYWORD: arm}, read, limit=10, max_per_file=1, trace=trace)
    ids = [chunk.id for chunk, _ in ranked.candidates]
    assert depths == [100, 400]
    files = list(dict.fromkeys(chunk.path for chunk, _ in ranked.candidates))
    # Ranked over the deeper lists, the test BM25 places first among them keeps its penalty.
    assert ids[0] == "m0" and files[1:10] == [f"src/other_{i}.cpp" for i in range(9)], files
    assert "tests/test_app.cpp" in files[10:]
    scores = [score for _, score in ranked.candidates]
    assert scores == sorted(scores, reverse=True)
    assert trace.explain("m0").arms[KEYWORD].rank == 1  # the first search's own record
    assert trace.explain("f0").arms[KEYWORD].rank == 152
    # Where the arm has no more to give, it is not asked again.
    depths.clear()
    ordered = ordered[:50]
    short = rank("CLI::App", {KEYWORD: arm}, read, limit=10, max_per_file=1)
    assert {chunk.path for chunk, _ in short.candidates} == {"include/App.hpp"}
    assert depths == [100]


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
