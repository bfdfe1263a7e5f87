"""C and C++ companions: a header and its source ranked together (`sharc.ranking.companions`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sharc.ranking.companions import companion_stem, lift_companions


@dataclass(frozen=True)
class Record:
    """A candidate's record, as ranking reads it (`sharc.ranking.records.RankedChunk`)."""

    id: str
    path: str
    symbol: str = ""
    fqn: str = ""
    tier: int = 1
    kind: str = "function"
    start_line: int = 1
    end_line: int = 10


def scored(*pairs: tuple[str, float]) -> list[tuple[Record, float]]:
    return [(Record(f"{path}#{n}", path), score) for n, (path, score) in enumerate(pairs)]


def order(candidates: list[tuple[Record, float]]) -> list[str]:
    files: list[str] = []
    for record, _ in sorted(candidates, key=lambda pair: -pair[1]):
        if record.path not in files:
            files.append(record.path)
    return files


@pytest.mark.parametrize(
    ("path", "stem"),
    [
        ("include/spdlog/details/os-inl.h", "os"),
        ("include/spdlog/details/os.h", "os"),
        ("cJSON.c", "cjson"),
        ("include/CLI/impl/App_inl.hpp", "app"),
        ("src/jv_impl.cc", "jv"),
        ("src/lib.rs", None),
        ("lib/os.rb", None),
        ("docs/os.h.md", None),
    ],
)
def test_companion_stem(path: str, stem: str | None) -> None:
    assert companion_stem(path) == stem


def test_a_header_follows_its_source() -> None:
    candidates = scored(
        ("src/os-inl.h", 0.9), ("src/file_helper.h", 0.8), ("src/sink.h", 0.7), ("src/os.h", 0.3)
    )
    lifted = lift_companions(candidates, 0.99, window=40)
    assert order(lifted) == ["src/os-inl.h", "src/os.h", "src/file_helper.h", "src/sink.h"]
    assert lifted[3][1] == pytest.approx(0.891)
    assert [record for record, _ in lifted] == [record for record, _ in candidates]


def test_only_the_best_candidate_of_a_companion_rises() -> None:
    candidates = scored(("a.c", 1.0), ("b.c", 0.8), ("a.h", 0.4), ("a.h", 0.2))
    lifted = lift_companions(candidates, 0.9, window=40)
    assert [score for _, score in lifted] == [1.0, 0.8, 0.9, 0.2]


def test_a_companion_already_higher_keeps_its_score() -> None:
    candidates = scored(("a.c", 1.0), ("a.h", 0.995))
    assert lift_companions(candidates, 0.9, window=40) == candidates


def test_files_past_the_window_and_other_languages_stay() -> None:
    candidates = scored(("a.c", 1.0), ("b.py", 0.9), ("c.c", 0.8), ("a.h", 0.1))
    assert lift_companions(candidates, 0.9, window=3) == candidates
    python = scored(("util.py", 1.0), ("x.c", 0.5), ("util.pyi", 0.1))
    assert lift_companions(python, 0.9, window=40) == python


def test_a_stem_shared_by_many_files_is_no_unit() -> None:
    candidates = scored(
        ("a/util.c", 1.0), ("b/util.c", 0.9), ("c/util.h", 0.5), ("d/util.h", 0.4),
    )
    assert lift_companions(candidates, 0.99, window=40) == candidates


def test_off_at_zero() -> None:
    candidates = scored(("a.c", 1.0), ("a.h", 0.1))
    assert lift_companions(candidates, 0.0, window=40) == candidates


def test_the_ranking_brings_a_header_up_behind_its_source() -> None:
    from sharc.ranking import KEYWORD, SEMANTIC, rank_hits
    from sharc.ranking.settings import RankingSettings

    chunks = [
        Record("q", "src/queue.c", "queue_push"),
        Record("p", "src/pool.c", "pool_take"),
        Record("l", "src/log.c", "log_line"),
        Record("h", "include/queue.h", "queue_push"),
    ]
    records = {chunk.id: chunk for chunk in chunks}
    scores = {"q": 0.9, "p": 0.8, "l": 0.7, "h": 0.2}
    hits = {arm: [(c.id, scores[c.id]) for c in chunks] for arm in (KEYWORD, SEMANTIC)}

    def ranked(**settings: object) -> list[str]:
        ranking = rank_hits(
            "what happens when the queue is full", hits,
            lambda ids: {i: records[i] for i in ids if i in records},
            settings=RankingSettings(**settings),  # type: ignore[arg-type]
        )
        return [chunk.path for chunk, _ in ranking.candidates]

    assert ranked() == ["src/queue.c", "include/queue.h", "src/pool.c", "src/log.c"]
    assert ranked(companion_factor=0.0)[1:] == ["src/pool.c", "src/log.c", "include/queue.h"]
