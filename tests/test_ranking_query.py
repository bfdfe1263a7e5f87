"""What a query says: its kind, what it asks for (tests, docs, config), the names it
holds, and the forms of its words (`sharc.ranking.query`)."""

from __future__ import annotations

import pytest
from sharc.ranking import (
    QueryKind,
    classify_query,
    content_words,
    covers_words,
    query_identifiers,
    wants_config,
    wants_docs,
    wants_tests,
)
from sharc.ranking.query import MAX_WORD_STARTS, holds_word_start, lower_alike, word_starts


def test_covers_words_in_any_form() -> None:
    code = "def load_plugins(names):\n    return [import_module(n) for n in names]"
    assert covers_words("how are plugins loaded", code)
    assert covers_words("the plugin loader", "class PluginLoader: ...")
    assert not covers_words("how are plugins loaded lazily", code)
    assert not covers_words("how is it", code)  # no content word: nothing to cover
    # A form counts at a word's or an identifier part's start, not inside a word.
    assert covers_words("parsing registries", "fn parse_registry(&self)")
    assert not covers_words("parsing registries", "fn sparse_registry(&self)")


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
