"""Locations a query gives by file and line (`sharc.ranking.locations`), and the chunk that
holds each coming first in a real index."""

from __future__ import annotations

from pathlib import Path

import pytest
import sharc
from sharc.ranking.locations import Location, asked_locations


@pytest.mark.parametrize(
    ("query", "file", "line", "rest"),
    [
        ("lib/app.ts:42", "lib/app.ts", 42, ""),
        ("src/main.rs:10:5:", "src/main.rs", 10, ""),
        ("lib/app.ts#L42-L50", "lib/app.ts", 42, ""),
        ("lib/app.ts:42-50", "lib/app.ts", 42, ""),
        ("/go/src/app/server.go:88 +0x1d", "/go/src/app/server.go", 88, ""),
        ("at render (/home/ci/web/src/view.js:12:5)", "/home/ci/web/src/view.js", 12, "render"),
        ("com.acme.Bar.run(Bar.java:42)", "Bar.java", 42, "com.acme.Bar.run"),
        ("/app/lib/worker.rb:12:in `perform'", "/app/lib/worker.rb", 12, "`perform'"),
        ("why does line 42 of lib/app.ts throw?", "lib/app.ts", 42, "why does throw?"),
        ("line 23 of Sources/Parsable Types/Command.swift", "Sources/Parsable Types/Command.swift",
         23, ""),
        ("app.ts, line 7", "app.ts", 7, ""),
        ('File "/srv/app/pkg/mod.py", line 589, in request', "/srv/app/pkg/mod.py", 589,
         "request"),
    ],
)
def test_a_file_and_line_is_read_in_the_forms_people_paste(
    query: str, file: str, line: int, rest: str
) -> None:
    asked = asked_locations(query)
    assert asked is not None and asked.locations == (Location(file, line),)
    assert asked.rest == rest


def test_a_python_traceback_is_read_innermost_frame_first() -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/taskboard/api.py", line 30, in list_tasks\n'
        "    return store.load_tasks()\n"
        '  File "/srv/app/taskboard/storage.py", line 60, in load_tasks\n'
        "KeyError: 'id'"
    )
    asked = asked_locations(trace)
    assert asked is not None
    assert [where.file for where in asked.locations] == [
        "/srv/app/taskboard/storage.py", "/srv/app/taskboard/api.py"
    ]
    assert "KeyError" in asked.rest and "Traceback" not in asked.rest


@pytest.mark.parametrize(
    "query", ["how are tasks stored", "Server.listen", "lib/app.ts", "v1.2.3", "12:30 meeting"]
)
def test_a_query_without_a_line_gives_no_location(query: str) -> None:
    assert asked_locations(query) is None


@pytest.fixture
def built(small_repo: Path, tmp_path: Path) -> sharc.Index:
    index = sharc.Index.open(small_repo, index_dir=tmp_path / "index")
    index.update(embed=False)
    return index


def test_the_chunk_that_holds_a_line_comes_first(built: sharc.Index) -> None:
    manifest = built._reader_manifest()
    # A path from another machine names the indexed file whose path shares its end.
    assert manifest.chunk_at("/srv/app/taskboard/storage.py", 60) == (
        "taskboard/storage.py", "taskboard/storage.py::TaskStore.load_tasks"
    )
    assert manifest.chunk_at("nope.py", 3) is None
    assert manifest.chunk_at("Makefile.unknown-type", 3) is None
    for query in ("taskboard/storage.py:60", "storage.py:60:9", "line 60 of storage.py",
                  "/home/me/taskboard/storage.py:60"):
        first = built.search(query, limit=3)[0]
        assert (first.path, first.symbol) == ("taskboard/storage.py", "load_tasks"), query
    # Where nothing indexed holds the file, the query is searched as written.
    assert built.search("elsewhere/unknown.py:3 hash_password", mode="keyword")[0].symbol == (
        "hash_password"
    )


def test_a_stack_trace_puts_its_frames_first_innermost_first(built: sharc.Index) -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/taskboard/api.py", line 28, in list_tasks\n'
        '  File "/srv/app/taskboard/storage.py", line 60, in load_tasks\n'
        "KeyError: 'id'"
    )
    hits = built.search(trace, limit=3, mode="keyword")
    assert [(hit.path, hit.symbol) for hit in hits[:2]] == [
        ("taskboard/storage.py", "load_tasks"), ("taskboard/api.py", "list_tasks")
    ]
    many = sharc.search_many([built], trace, limit=3, mode="keyword")
    assert [hit.symbol for hit in many[:2]] == ["load_tasks", "list_tasks"]


@pytest.mark.parametrize(
    "query",
    [
        "x" * 50_000 + ".py",  # longer than any path: SQLite refuses such a LIKE pattern
        "x" * 50_000 + ".py:12",
        "A" * 50_000,
        "a/" * 25_000,
        'File "/srv/app/taskboard/storage.py", line 60, in load_tasks\n' * 2_000,
        "line 1 of a " * 4_000,
        "Q in " + "a/" * 25_000,
    ],
)
def test_a_huge_or_odd_query_is_searched_not_refused(built: sharc.Index, query: str) -> None:
    """Each of these once raised or took seconds to minutes (patterns that backtracked over
    a long word)."""
    response = built.search(query, limit=3)
    assert len(response) <= 3
