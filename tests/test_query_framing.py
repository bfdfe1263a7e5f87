"""How a query is framed does not change what it finds: a question about one name's
definition ("where is `Router` defined", "the Router class") ranks what a search for the name
ranks, its definitions first, and a request for code ("find the code responsible for X in
this repository") ranks what X ranks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from sharc.manifest.schema import folded_name
from sharc.ranking import KEYWORD, SEMANTIC, QueryKind, rank
from sharc.ranking.framing import (
    framed_name,
    member_question,
    named_file,
    scoped_question,
    stripped_request,
)
from sharc.ranking.named_files import named_files_first
from sharc.ranking.query import respelled
from sharc.ranking.visibility import DefinitionFacts


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("where is getUserById defined", ("getUserById", True)),
        ("Where is CLI::App defined?", ("CLI::App", True)),
        ("implementation of os.path.join()", ("os.path.join()", True)),
        ("how does `parse` work", ("parse", True)),
        ("the Router class", ("Router", False)),
        ("what is a Router?", ("Router", False)),
        ("class Engine", ("Engine", False)),
        ("where is parse defined", ("parse", False)),
        ("how does caching work", ("caching", False)),  # a name only if something defines it
        ("where is the find function defined", ("find", False)),
        ("where is Attribute defined", ("Attribute", False)),  # a kind's word as a name
        ("where is struct cjson defined", ("cjson", False)),
        ("the bytecase macro", ("bytecase", False)),
        ("show me the TaskStore class", ("TaskStore", True)),
        ("where\u2019s getUserById defined", ("getUserById", True)),
        ("search for the Router class", ("Router", False)),
        ("what methods does TaskStore have", ("TaskStore", True)),
        ("the constructor of Router", ("Router", False)),
    ],
)
def test_the_name_a_question_about_its_definition_asks_for(
    query: str, named: tuple[str, bool]
) -> None:
    assert framed_name(query) == named


@pytest.mark.parametrize(
    "query",
    [
        "Router",  # a bare name is already a search for the name
        "getUserById",
        "where is Router used",  # asks for its uses
        "who calls getUserById",
        "tests for the Router class",
        "where is the config file",  # two words left
        "Router and Engine class",
        "where is it defined",  # nothing left but framing
        "where is <script> defined",  # not a name
    ],
)
def test_questions_that_are_not_about_one_definition(query: str) -> None:
    assert framed_name(query) is None


def _defines(known: set[str]):  # type: ignore[no-untyped-def]
    def defines(
        ids: Sequence[str], names: Sequence[str], *, missed: bool = True
    ) -> dict[str, DefinitionFacts]:
        return {f"src/{name}.py::{name}": DefinitionFacts() for name in names if name in known}

    return defines


@dataclass(frozen=True)
class _Record:
    id: str
    path: str
    symbol: str
    fqn: str
    kind: str = "function"
    tier: int = 1
    start_line: int = 1
    end_line: int = 20
    generated: bool = False
    language: str = "python"


_RECORDS = {
    record.id: record
    for record in (
        _Record("src/Router.py::Router", "src/Router.py", "Router", "Router", kind="class"),
        _Record("src/guide.py::where", "src/guide.py", "where", "where"),
    )
}


def _read(ids: Sequence[str]) -> dict[str, _Record]:
    return {i: _RECORDS[i] for i in ids if i in _RECORDS}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("shortbytestring", ("ShortByteString", True)),
        ("sidekiq::job", ("Sidekiq::Job", True)),
        ("server.listen", ("Server.listen", True)),
        ("Worker", ("Worker", False)),  # a capital means that case: only `worker` is defined
        ("Server", ("Server", True)),
        ("missing", ("missing", False)),
        ("sidekiq::missing", ("Sidekiq::missing", False)),
        ("parse()", ("parse()", False)),
        ("short_byte_string", ("ShortByteString", True)),  # another convention
        ("parseGitDirty", ("parse_git_dirty", True)),
        ("ParseGitDirty", ("ParseGitDirty", False)),  # a capital: as typed, a type's name
    ],
)
def test_names_typed_in_lower_case_are_respelled_segment_by_segment(
    name: str, expected: tuple[str, bool]
) -> None:
    defined = ["ShortByteString", "Sidekiq", "Job", "worker", "Server", "listen", "parse",
               "parse_git_dirty"]

    def spelling(segment: str) -> str | None:  # as `Manifest.defined_spelling` answers
        same = [d for d in defined if folded_name(d) == folded_name(segment)]
        return segment if segment in same else next(iter(same), None)

    assert respelled(name, spelling) == expected


def test_a_qualified_name_is_first_respelled_whole() -> None:
    # As `Manifest.defined_spelling` answers a dotted name: a definition whose qualified name
    # ends with it (`Sidekiq.Job`), whatever the segments alone would be (the method `job`).
    whole = {"sidekiq.job": "Sidekiq.Job", "endpoint.urlrequest": "Endpoint.urlRequest"}

    def spelling(name: str) -> str | None:
        return whole.get(name.lower(), "job" if name == "job" else None)

    assert respelled("sidekiq::job", spelling) == ("Sidekiq::Job", True)
    assert respelled("endpoint.urlrequest", spelling) == ("Endpoint.urlRequest", True)
    assert respelled("other::job", spelling) == ("other::job", True)  # segment by segment


def test_a_name_in_another_case_is_asked_as_the_code_spells_it() -> None:
    asked: list[str] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        asked.append(query)
        return [("src/Router.py::Router", 0.5)]

    arms = {KEYWORD: arm, SEMANTIC: arm}
    spelled = {"router": "Router"}.get
    for query in ("where is router defined?", "router", "`router`"):
        asked.clear()
        rank(query, arms, _read, spelled=spelled)
        assert set(asked) == {"Router"}, query
    # A question in words, and a word nothing defines, are searched as asked.
    for query in ("how are routes registered", "where is caching defined"):
        asked.clear()
        rank(query, arms, _read, spelled=spelled)
        assert set(asked) == {query}


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("request.js", "request.js"),
        ("lib/request.js", "lib/request.js"),
        ("./src/app.ts", "src/app.ts"),
        ("where is `request.js`?", "request.js"),
        ("open the cJSON.c file", "cJSON.c"),
        ("the request file", "request"),
        ("the methods file", "methods"),  # methods.rb: a word that frames questions, named
        ("where is the types file?", "types"),
        ("the file", None),
        ("which file defines it", None),
        ("open the class file", "class"),
        ("Server.listen", "Server.listen"),  # a file only if one is indexed: the caller asks
        ("where is request.js used", None),
        ("request.js and response.js", None),
        ("the request", None),
        ("how are files uploaded", None),
        ("os.path.join()", None),
    ],
)
def test_a_query_that_names_one_file(query: str, named: str | None) -> None:
    assert named_file(query) == named


def test_the_named_files_come_first_with_their_first_chunks_where_unreturned() -> None:
    asked: list[str] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        asked.append(query)
        return [("src/guide.py::where", 1.0), ("src/Router.py::Router", 0.5)]

    arms = {KEYWORD: arm, SEMANTIC: arm}
    files = {"Router.py": {"src/Router.py": ["src/Router.py::Router"]},
             "guide.py": {"src/guide.py": ["src/guide.py::where"]}}
    ranked = rank("the Router.py file", arms, _read, files_named=lambda n: files.get(n, {}))
    assert set(asked) == {"Router.py"}
    assert [chunk.id for chunk, _ in ranked.candidates[:2]] == [
        "src/Router.py::Router", "src/guide.py::where",
    ]
    assert ranked.candidates[0][1] > ranked.candidates[1][1]
    # A file no arm returned comes first with its first chunks; filters still apply.
    only_guide = {KEYWORD: lambda q, d: [("src/guide.py::where", 1.0)]}
    ranked = rank("Router.py", only_guide, _read, files_named=lambda n: files.get(n, {}))
    assert ranked.candidates[0][0].id == "src/Router.py::Router"
    ranked = rank("Router.py", only_guide, _read, files_named=lambda n: files.get(n, {}),
                  accepts=lambda record: record.path != "src/Router.py")
    assert [chunk.id for chunk, _ in ranked.candidates] == ["src/guide.py::where"]
    # A name shared across kinds: code before docs, whatever the arms said.
    docs = _Record("docs/router.md::Router", "docs/router.md", "", "Router", kind="section",
                   tier=2)
    code = _RECORDS["src/Router.py::Router"]
    lifted = named_files_first([(docs, 1.0), (code, 0.5)],
                               {"docs/router.md": [], "src/Router.py": []}, _read)
    assert [chunk.path for chunk, _ in lifted] == ["src/Router.py", "docs/router.md"]
    # A header and its source file ("the cJSON file"): the code before what declares it.
    header = _Record("cJSON.h::cJSON", "cJSON.h", "", "cJSON", kind="struct")
    source = _Record("cJSON.c::cJSON_Parse", "cJSON.c", "", "cJSON_Parse")
    stub = _Record("lib/index.d.ts::App", "lib/index.d.ts", "", "App", kind="interface")
    lifted = named_files_first([(header, 1.0), (stub, 0.9), (source, 0.5)],
                               {"cJSON.h": [], "cJSON.c": [], "lib/index.d.ts": []}, _read)
    assert [chunk.path for chunk, _ in lifted] == ["cJSON.c", "cJSON.h", "lib/index.d.ts"]
    # A name no file has: searched as asked.
    asked.clear()
    rank("where is Nothing.py", arms, _read, files_named=lambda n: {})
    assert asked and "Nothing.py" in asked[0]


@pytest.mark.parametrize(
    ("query", "scoped"),
    [
        ("retries in lib/queue/", ("retries", "lib/queue")),
        ("how are errors handled under src/server", ("how are errors handled", "src/server")),
        ("in the pkg/cache directory, where is eviction", ("where is eviction", "pkg/cache")),
        ("eviction (in pkg/cache)", ("eviction", "pkg/cache")),
        ("tasks in ./taskboard/ that are due", ("tasks that are due", "taskboard")),
        ("read/write lock", ("lock", "read/write")),  # the caller finds no such directory
        ("how are tokens read in the lexer package", ("how are tokens read", "lexer")),
        ("errors under the handlers folder", ("errors", "handlers")),
        ("errors in the parser module", None),  # a module may be a file
        ("lib/request.js", None),  # a file, not a place
        ("lib/queue/", None),  # a place and no question
        ("parse in src/ and lib/", None),  # two places
        ("http://example.com/x handler", None),
        ("how are routes registered", None),
    ],
)
def test_a_question_that_names_the_directory_to_look_in(
    query: str, scoped: tuple[str, str] | None
) -> None:
    assert scoped_question(query) == scoped


@pytest.mark.parametrize(
    ("query", "member"),
    [
        ("the listen method of Server", ("Server", "listen")),
        ("Server's listen method", ("Server", "listen")),
        ("parse in OParser", ("OParser", "parse")),
        ("how does Server listen work", ("Server", "listen")),
        ("the run method of the Factory class", ("Factory", "run")),
        ("the find method of Viper", ("Viper", "find")),  # a name before its kind, whatever else
        ("errors in Parser", ("Parser", "errors")),  # the caller finds no such member
        ("how are errors handled in the parser", None),
        ("retry of jobs in Queue", None),
        ("Server.listen", None),  # a qualified name already
        ("the Router class", None),
    ],
)
def test_a_question_that_names_a_member_of_a_type(
    query: str, member: tuple[str, str] | None
) -> None:
    assert member_question(query) == member


def test_a_member_named_in_words_is_asked_as_its_qualified_name() -> None:
    asked: list[str] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        asked.append(query)
        return [("src/server.py::Server.listen", 1.0)]

    def defines(
        ids: Sequence[str], names: Sequence[str], *, missed: bool = True
    ) -> dict[str, DefinitionFacts]:
        known = {"listen": "src/server.py::Server.listen", "errors": "src/log.py::errors",
                 "subparser": "src/Options/Applicative/Builder.hs::subparser"}
        return {known[name]: DefinitionFacts() for name in names if name in known}

    arms = {KEYWORD: arm, SEMANTIC: arm}
    for query in ("the listen method of Server", "Server's listen method", "listen in Server"):
        asked.clear()
        rank(query, arms, _read, defines=defines)
        assert set(asked) == {"Server.listen"}, query
    # A module a file is (Haskell's, Python's) owns what the file defines.
    asked.clear()
    rank("the subparser function of Builder", arms, _read, defines=defines)
    assert set(asked) == {"Builder.subparser"}
    # The type does not define it (or nothing does): a question, searched as asked.
    for query in ("errors in Parser", "the close method of Server"):
        asked.clear()
        rank(query, arms, _read, defines=defines)
        assert set(asked) == {query}


def test_the_arms_are_asked_the_name_when_something_defines_it() -> None:
    asked: list[str] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        asked.append(query)
        return [("src/guide.py::where", 1.0), ("src/Router.py::Router", 0.5)]

    arms = {KEYWORD: arm, SEMANTIC: arm}
    ranked = rank("where is the Router class defined?", arms, _read,
                  defines=_defines({"Router"}))
    assert set(asked) == {"Router"}
    assert ranked.kind is QueryKind.MIXED  # one capitalised word, as a bare `Router` is
    assert ranked.candidates[0][0].id == "src/Router.py::Router"
    # Nothing defines `Router`: a question in words, searched as asked.
    asked.clear()
    ranked = rank("where is the Router class defined?", arms, _read, defines=_defines(set()))
    assert set(asked) == {"where is the Router class defined"}
    assert ranked.kind is QueryKind.NATURAL_LANGUAGE
    # A name of code's shape needs no lookup.
    asked.clear()
    rank("where is getUserById defined", arms, _read)
    assert set(asked) == {"getUserById"}


@pytest.mark.parametrize(
    ("query", "stripped"),
    [
        ("Find the code responsible for retrying failed jobs in this repository",
         "retrying failed jobs"),
        ("find the code for how plugins load", "how plugins load"),
        ("where is the logic for parsing headers", "parsing headers"),
        ("show me the functions that parse dates", "parse dates"),
        ("show me the implementation of TaskStore", "TaskStore"),
        ("code that parses dates?", "parses dates"),
        ("retry failed jobs in this repo?", "retry failed jobs"),
        # The repository as the place or the subject of the question.
        ("How does the codebase handle retries?", "handle retries"),
        ("Where in the code is the retry delay computed?", "Where is the retry delay computed"),
        ("In this repo, where is the retry delay computed?", "where is the retry delay computed"),
        ("how does the app start", "how does the app start"),
        ("I am looking for where retries are scheduled", "retries are scheduled"),
        # Which part holds it, and a sentence that only asks.
        ("Which file contains the retry delay?", "the retry delay"),
        ("What module handles retries?", "retries"),
        ("retry delay. Show the relevant functions.", "retry delay"),
        ("How are plugins loaded? Where should I look?", "How are plugins loaded"),
        ("What does this do?", "What does this do"),
        ("empty?", "empty?"),  # a name's mark, not a sentence's
        # A clause that leaves a kind of file out names what is not wanted.
        ("retry logic, not the tests", "retry logic"),
        ("retry logic (look in the source, not the tests)", "retry logic"),
        ("retry logic excluding test files", "retry logic"),
        ("parse dates without docs", "parse dates"),
        ("what happens when no route matches the URL",
         "what happens when no route matches the URL"),
        ("tests that do not run", "tests that do not run"),
        ("how to run without config", "how to run without config"),
        # Not a request for code: kept as asked.
        ("Find the shortest path between two nodes", "Find the shortest path between two nodes"),
        ("parts of speech tagging", "parts of speech tagging"),
        ("functions to convert a string", "functions to convert a string"),
        ("which test files cover parsing", "which test files cover parsing"),
        ("the code", "the code"),
    ],
)
def test_the_words_of_a_request_for_code_are_left_out(query: str, stripped: str) -> None:
    assert stripped_request(query) == stripped


def test_the_arms_are_asked_the_question_without_the_request_around_it() -> None:
    asked: list[str] = []

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        asked.append(query)
        return [("src/Router.py::Router", 1.0)]

    rank("Find the code responsible for routing requests in this repository",
         {KEYWORD: arm, SEMANTIC: arm}, _read)
    assert set(asked) == {"routing requests"}
    asked.clear()
    rank("show me the implementation of Router", {KEYWORD: arm, SEMANTIC: arm}, _read,
         defines=_defines({"Router"}))
    assert set(asked) == {"Router"}


def test_a_question_that_leaves_tests_out_does_not_ask_for_them() -> None:

    records = {
        "src/retry.py::backoff": _Record("src/retry.py::backoff", "src/retry.py", "backoff",
                                         "backoff"),
        "tests/test_retry.py::test_backoff": _Record(
            "tests/test_retry.py::test_backoff", "tests/test_retry.py", "test_backoff",
            "test_backoff"),
    }

    def arm(query: str, depth: int) -> list[tuple[str, float]]:
        return [("tests/test_retry.py::test_backoff", 1.0), ("src/retry.py::backoff", 0.9)]

    def read(ids: Sequence[str]) -> dict[str, _Record]:
        return {i: records[i] for i in ids if i in records}

    for query in ("retry backoff, not the tests", "retry backoff excluding test files"):
        ranked = rank(query, {KEYWORD: arm, SEMANTIC: arm}, read)
        assert ranked.candidates[0][0].path == "src/retry.py", query
    asked = rank("retry backoff tests", {KEYWORD: arm, SEMANTIC: arm}, read)
    assert asked.candidates[0][0].path == "tests/test_retry.py"
