"""Ranking by file: a file scored by its chunks, its whole text, how well its parts belong
together and the files linked to it, and how one file's hits are grouped and shown
(`sharc.ranking.files`, `graph`, `shaping`)."""

from __future__ import annotations

import pytest
from ranking_helpers import Candidate, chunk
from sharc.ranking import (
    KEYWORD,
    SEMANTIC,
    QueryIntent,
    RankingSettings,
    diversify,
    rank,
    rank_hits,
    result_groups,
)
from sharc.ranking.files import evidence_gates, file_scores, lift_files, rank_files
from sharc.ranking.graph import (
    GraphFacts,
    apply_neighbours,
    defined_names,
    neighbour_evidence,
    seed_files,
    wants_neighbours,
)

# Diversification and result groups


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
