"""The keyword store over real tantivy indexes in tmp_path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sharc.errors import IndexCorruptError, IndexLockedError, SharcError
from sharc.keyword import KeywordDoc, KeywordStore, word_forms
from sharc.vectors import key_of


def reference_code_tokens(text: str) -> list[str]:
    """A Python copy of `rust/tokens.rs`, for when the extension is not built."""
    tokens: list[str] = []
    for word in re.split(r"[^\w]|(?<=[^\W_])(?=$)", text):
        word = word.strip("_")
        if not word:
            continue
        parts: list[str] = []
        for piece in filter(None, word.split("_")):
            parts.extend(_split_case(piece))
        tokens.append(word.lower())
        if len(parts) > 1:
            tokens.extend(part.lower() for part in parts)
    return tokens


def _class(char: str) -> str:
    if char.isupper():
        return "upper"
    if char.islower():
        return "lower"
    return "digit" if char.isnumeric() else "other"


def _split_case(piece: str) -> list[str]:
    parts, start = [], 0
    for i in range(1, len(piece)):
        previous, current = _class(piece[i - 1]), _class(piece[i])
        following = _class(piece[i + 1]) if i + 1 < len(piece) else None
        if (previous, current) == ("lower", "upper"):
            boundary = True
        elif (previous, current) == ("upper", "upper"):
            boundary = following == "lower"
        elif (previous, current) == ("digit", "digit"):
            boundary = False
        else:
            boundary = "digit" in (previous, current)
        if boundary:
            parts.append(piece[start:i])
            start = i
    parts.append(piece[start:])
    return parts


def reference_tokenize(texts: list[str]) -> list[list[str]]:
    return [reference_code_tokens(text) for text in texts]


try:
    from sharc._core import code_tokens_batch as rust_tokenize
except ImportError:  # the extension is not built: run on the reference
    rust_tokenize = None

TOKENIZE = rust_tokenize or reference_tokenize


def test_reference_tokenizer_matches_the_documented_examples() -> None:
    assert reference_code_tokens("parseHTTPResponse2(snake_case_name)") == [
        "parsehttpresponse2", "parse", "http", "response", "2",
        "snake_case_name", "snake", "case", "name",
    ]  # fmt: skip
    assert reference_code_tokens("getUserById") == ["getuserbyid", "get", "user", "by", "id"]
    assert reference_code_tokens("__init__ x") == ["init", "x"]
    assert reference_code_tokens("  ... ") == []


@pytest.mark.skipif(rust_tokenize is None, reason="sharc._core is not built")
def test_reference_tokenizer_matches_rust() -> None:
    texts = ["parseHTTPResponse2(x)", "größeBerechnen", "a.b::C->d", "XMLHttpRequest v2beta3"]
    assert rust_tokenize is not None
    assert rust_tokenize(texts) == reference_tokenize(texts)


@pytest.mark.skipif(rust_tokenize is None, reason="sharc._core is not built")
def test_rust_index_text_matches_the_python_join() -> None:
    from sharc._core import index_text_batch
    from sharc.keyword import _joined

    texts = [
        "def get_user_by_id(user_id): return USERS[user_id]",
        "parseHTTPResponse2 __dunder__ a_b_c ünïcode_name x",
        "",
        "___",
        "src/auth/user_service.ts",
    ]
    assert index_text_batch(texts) == [_joined(tokens) for tokens in reference_tokenize(texts)]


@pytest.mark.skipif(rust_tokenize is None, reason="sharc._core is not built")
def test_default_tokenizer_is_the_rust_one(tmp_path: Path) -> None:
    with KeywordStore.open(tmp_path / "keyword", writable=True) as store:
        store.upsert([KeywordDoc(id="a", path="a.py", body="def parseHTTPResponse2(): ...")])
        store.commit()
        assert ids(store.search("http response", 5)) == ["a"]


def doc(chunk_id: str, path: str, body: str, symbol: str = "", **fields: object) -> KeywordDoc:
    return KeywordDoc(id=chunk_id, path=path, body=body, symbol=symbol, **fields)  # type: ignore[arg-type]


def corpus() -> list[KeywordDoc]:
    """`getUserById` defined once and called from five places; `HTTPException` likewise."""
    docs = [
        doc(
            "def",
            "src/users/repository.py",
            "def getUserById(user_id):\n    return db.users.find_one({'id': user_id})",
            symbol="getUserById",
            fqn="UserRepository.getUserById",
            language="python",
            kind="method",
        ),
        doc(
            "exc",
            "src/errors.py",
            "class HTTPException(Exception):\n    status_code = 500",
            symbol="HTTPException",
            language="python",
            kind="class",
        ),
    ]
    callers = ["api/routes.py", "api/admin.py", "jobs/sync.py", "web/views.js", "cli/main.py"]
    for number, path in enumerate(callers):
        language = "javascript" if path.endswith(".js") else "python"
        docs.append(
            doc(
                f"ref{number}",
                path,
                f"def handler_{number}(request):\n    user = repo.getUserById(request.id)\n"
                f"    if user is None:\n        raise HTTPException(404)\n"
                f"    return getUserById(user.manager_id)",
                symbol=f"handler_{number}",
                language=language,
                kind="function",
            )
        )
    filler = [
        ("src/orders.py", "def list_orders(customer):\n    return db.orders.find(customer)"),
        ("src/payments.py", "def charge_card(card, amount):\n    gateway.charge(card, amount)"),
        ("src/email.py", "def send_welcome_email(address):\n    mailer.send(address)"),
        ("src/cache.py", "class LRUCache:\n    def get(self, key): ..."),
        ("src/config.py", "DATABASE_URL = os.environ['DATABASE_URL']"),
        ("docs/guide.md", "# Guide\nHow to install the package and configure users."),
        ("src/auth.py", "def login(username, password):\n    return check(username, password)"),
        ("src/ids.py", "def new_id():\n    return uuid4().hex"),
        ("lib/my-app (old)/legacy.py", "def old_user_lookup(uid):\n    return legacy[uid]"),
        ("src/search.py", "def find_user_by_email(email):\n    return users.get(email)"),
        ("src/util.go", "func ParseHTTPResponse2(r io.Reader) (*Response, error) {}"),
        ("src/stats.py", "def count_active_users():\n    return len(active)"),
        ("src/tasks.py", "def schedule(job):\n    queue.put(job)"),
    ]
    for number, (path, body) in enumerate(filler):
        language = {"py": "python", "md": "markdown", "go": "go"}[path.rsplit(".", 1)[1]]
        symbol = body.split("(")[0].split()[-1].rstrip(":") if "(" in body else ""
        docs.append(doc(f"fill{number}", path, body, symbol=symbol, language=language))
    return docs


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    return tmp_path / "keyword"


@pytest.fixture
def store(directory: Path):  # type: ignore[no-untyped-def]
    store = KeywordStore.open(directory, writable=True, tokenize=TOKENIZE)
    store.upsert(corpus())
    store.commit()
    yield store
    store.close()


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [chunk_id for chunk_id, _ in hits]


def test_count_and_all_ids(store: KeywordStore) -> None:
    assert store.count() == 20
    assert store.all_ids() == {d.id for d in corpus()}


@pytest.mark.parametrize("query", ["getUserById", "getuserbyid", "UserRepository.getUserById"])
def test_identifier_query_finds_the_definition_first(store: KeywordStore, query: str) -> None:
    hits = store.search(query, 10)
    assert ids(hits)[0] == "def"
    assert set(ids(hits)[1:6]) == {f"ref{n}" for n in range(5)}
    assert hits[0][1] > hits[1][1]


def test_acronym_identifier_finds_the_class_first(store: KeywordStore) -> None:
    assert ids(store.search("HTTPException", 10))[0] == "exc"
    assert ids(store.search("parseHTTPResponse2", 3))[0] == "fill10"


def test_split_words_match_camel_case(store: KeywordStore) -> None:
    hits = ids(store.search("user by id", 10))
    assert "def" in hits[:3]
    assert "fill8" not in hits[:1]


def test_snake_case_words_match(store: KeywordStore) -> None:
    assert ids(store.search("send welcome email", 3))[0] == "fill2"
    assert ids(store.search("find_user_by_email", 3))[0] == "fill9"


def test_path_components_match(store: KeywordStore) -> None:
    assert ids(store.search("payments", 3))[0] == "fill1"


@pytest.mark.parametrize(
    "query",
    ['"', '"unbalanced', "AND OR (", ":", "field:value", "a:b:c", "*", "?", "\\", "(((", ")",
     "NOT", "-", "+", "~2", "^3", "[1 TO 2]", "{", "é", "日本語のクエリ", "🙂", "", "   ",
     "\x00", "a" * 500, " ".join(["user"] * 200), "SELECT * FROM users; --"],
)  # fmt: skip
def test_any_user_input_is_a_valid_query(store: KeywordStore, query: str) -> None:
    hits = store.search(query, 5)
    assert isinstance(hits, list)
    assert store.search(query, 5, languages=["python"], path_prefix=query) is not None


def test_limit_zero_returns_nothing(store: KeywordStore) -> None:
    assert store.search("getUserById", 0) == []


def test_language_filter(store: KeywordStore) -> None:
    hits = ids(store.search("getUserById", 10, languages=["javascript"]))
    assert hits == ["ref3"]
    assert store.search("getUserById", 10, languages=[]) == []
    both = ids(store.search("getUserById", 20, languages=["python", "javascript"]))
    assert set(both[:6]) == {"def", *(f"ref{n}" for n in range(5))}
    assert "fill10" not in both  # go


def test_path_prefix_filter(store: KeywordStore) -> None:
    assert ids(store.search("getUserById", 10, path_prefix="api/")) in (
        ["ref0", "ref1"],
        ["ref1", "ref0"],
    )
    assert ids(store.search("user", 10, path_prefix="lib/my-app (old)/")) == ["fill8"]
    assert ids(store.search("getUserById", 10, path_prefix="src/users/repository.py")) == ["def"]
    assert store.search("getUserById", 10, path_prefix="nowhere/") == []
    assert ids(store.search("getUserById", 10, path_prefix="src"))[0] == "def"
    long_prefix = "deep/" * 400
    assert store.search("getUserById", 10, path_prefix=long_prefix) == []


def test_filter_scores_do_not_change_ranking(store: KeywordStore) -> None:
    unfiltered = dict(store.search("getUserById", 10))
    filtered = dict(store.search("getUserById", 10, languages=["python"]))
    for chunk_id, score in filtered.items():
        assert score == pytest.approx(unfiltered[chunk_id])


def test_upsert_same_id_replaces(store: KeywordStore) -> None:
    store.upsert([doc("def", "src/users/repository.py", "def fetchAccount(): ...", "fetchAccount")])
    store.commit()
    assert store.count() == 20
    assert "def" not in ids(store.search("getUserById", 10))
    assert ids(store.search("fetchAccount", 3))[0] == "def"


def test_ids_known_absent_are_added_without_a_delete(store: KeywordStore) -> None:
    store.upsert(
        [
            doc("new1", "src/new.py", "def brandNewThing(): ...", "brandNewThing"),
            doc("def", "src/users/repository.py", "def fetchAccount(): ...", "fetchAccount"),
        ],
        absent={"new1"},
    )
    store.commit()
    assert store.count() == 21  # one added; "def" was not in `absent`, so it was replaced
    assert ids(store.search("brandNewThing", 3))[0] == "new1"
    assert ids(store.search("fetchAccount", 3))[0] == "def"


def test_delete_and_delete_paths(store: KeywordStore) -> None:
    store.delete(["ref0", "ref1", "missing"])
    store.delete_paths(["src/orders.py", "src/payments.py"])
    assert store.count() == 20  # not visible before commit
    store.commit()
    assert store.count() == 16
    assert store.all_ids().isdisjoint({"ref0", "ref1", "fill0", "fill1"})


def test_rollback_drops_uncommitted_changes(store: KeywordStore) -> None:
    store.delete(["def"])
    store.rollback()
    store.commit()
    assert "def" in store.all_ids()


def test_clear(store: KeywordStore) -> None:
    store.clear()
    assert store.count() == 0
    assert store.search("getUserById", 10) == []
    assert store.all_ids() == set()


def test_key_field_defaults_to_key_of_id(store: KeywordStore) -> None:
    import tantivy

    searcher = store._searcher
    hits = searcher.search(tantivy.Query.all_query(), 50).hits
    keys = searcher.fast_field_values("key", [address for _, address in hits])
    assert set(keys) == {key_of(d.id) for d in corpus()}


def test_reader_sees_commits_after_reload(directory: Path, store: KeywordStore) -> None:
    reader = KeywordStore.open(directory, writable=False, tokenize=TOKENIZE)
    assert reader.count() == 20
    store.upsert([doc("new", "src/new.py", "def brandNewThing(): ...", "brandNewThing")])
    store.commit()
    assert "new" not in ids(reader.search("brandNewThing", 5))  # the reader keeps its snapshot...
    reader.reload()  # ...until it reloads
    assert ids(reader.search("brandNewThing", 5))[0] == "new"
    assert reader.count() == 21


def test_reader_in_another_process_while_writer_holds_the_lock(
    directory: Path, store: KeywordStore
) -> None:
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from sharc.errors import IndexLockedError
        from sharc.keyword import KeywordStore
        import test_keyword
        reader = KeywordStore.open(Path({str(directory)!r}), writable=False,
                                   tokenize=test_keyword.TOKENIZE)
        print(reader.count(), reader.search("getUserById", 1)[0][0])
        try:
            KeywordStore.open(Path({str(directory)!r}), writable=True)
        except IndexLockedError:
            print("locked")
        """
    )
    path = os.pathsep.join([str(Path(__file__).parent), *sys.path])
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=path),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "def", "locked"]


def test_second_writer_is_refused(directory: Path, store: KeywordStore) -> None:
    with pytest.raises(IndexLockedError, match="another process"):
        KeywordStore.open(directory, writable=True, tokenize=TOKENIZE)
    store.close()
    with KeywordStore.open(directory, writable=True, tokenize=TOKENIZE) as again:
        assert again.count() == 20


def test_read_only_store_refuses_writes(directory: Path, store: KeywordStore) -> None:
    reader = KeywordStore.open(directory, writable=False, tokenize=TOKENIZE)
    assert not reader.writable
    with pytest.raises(SharcError, match="read-only"):
        reader.upsert(corpus()[:1])
    with pytest.raises(SharcError, match="read-only"):
        reader.commit()
    reader.close()


def test_uncommitted_changes_are_dropped_on_close(directory: Path, store: KeywordStore) -> None:
    store.delete(["def"])
    store.close()
    reader = KeywordStore.open(directory, writable=False, tokenize=TOKENIZE)
    assert reader.count() == 20


def test_missing_index_for_reading(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        KeywordStore.open(tmp_path / "nothing", writable=False, tokenize=TOKENIZE)


def test_empty_store(directory: Path) -> None:
    with KeywordStore.open(directory, writable=True, tokenize=TOKENIZE) as store:
        assert store.count() == 0
        assert store.all_ids() == set()
        assert store.search("anything", 5) == []
        store.upsert([])
        store.commit()


def test_corrupt_meta_raises_index_corrupt(directory: Path, store: KeywordStore) -> None:
    store.close()
    (directory / "meta.json").write_text("{garbage")
    for writable in (False, True):
        with pytest.raises(IndexCorruptError, match="keyword"):
            KeywordStore.open(directory, writable=writable, tokenize=TOKENIZE)


def test_damaged_segments_raise_index_corrupt(directory: Path, store: KeywordStore) -> None:
    store.close()
    for file in directory.iterdir():
        if file.suffix in (".idx", ".term", ".store", ".fast", ".fieldnorm", ".pos"):
            file.write_bytes(b"\x00" * 7)
    with pytest.raises(IndexCorruptError, match=re.escape(str(directory))):
        reader = KeywordStore.open(directory, writable=False, tokenize=TOKENIZE)
        reader.search("getUserById", 5)
        reader.all_ids()


def test_other_schema_raises_index_corrupt(directory: Path) -> None:
    import tantivy

    directory.mkdir()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("something_else", stored=True)
    tantivy.Index(builder.build(), path=str(directory))
    with pytest.raises(IndexCorruptError, match="schema"):
        KeywordStore.open(directory, writable=False, tokenize=TOKENIZE)
    with pytest.raises(IndexCorruptError, match="schema"):
        KeywordStore.open(directory, writable=True, tokenize=TOKENIZE)


def test_from_chunk() -> None:
    class Chunk:
        id, path, language, tier, kind = "c1", "a.py", "python", 1, "function"
        symbol, fqn, header, code = "run", "Job.run", "# a.py > Job", "def run(): pass"

    built = KeywordDoc.from_chunk(Chunk())
    assert built.symbol == "run" and built.fqn == "Job.run"
    assert built.body == "# a.py > Job\ndef run(): pass"


@pytest.mark.parametrize(
    ("word", "forms", "not_forms"),
    [
        ("plugins", {"plugin"}, set()),
        ("parsing", {"parse", "parses", "parsed"}, {"parser", "parsing"}),
        ("libraries", {"library"}, set()),
        ("retried", {"retry", "retries", "retrying"}, set()),
        ("completions", {"complete", "completion", "completed"}, {"completions"}),
        ("running", {"run", "runs"}, set()),
    ],
)  # fmt: skip
def test_word_forms_share_the_stem(word: str, forms: set[str], not_forms: set[str]) -> None:
    found = set(word_forms(word))
    assert forms <= found and not (not_forms & found)


def test_word_forms_leave_identifiers_and_short_words_alone() -> None:
    assert word_forms("getuserbyid2") == () and word_forms("id") == ()


def test_a_question_finds_the_other_forms_of_its_words(directory: Path) -> None:
    store = KeywordStore.open(directory, writable=True)
    store.upsert([
        doc("loader", "src/plugin_loader.py", "def load_plugin(name): register(import_module(name))",
            "load_plugin"),
        doc("other", "src/colors.py", "def paint(theme): return theme.colors", "paint"),
    ])  # fmt: skip
    store.commit()
    assert ids(store.search("how are plugins loaded", 5)) == ["loader"]
    # Another form counts less than the word as the code spells it.
    [(_, as_spelled)] = store.search("plugin", 5)
    [(_, other_form)] = store.search("plugins", 5)
    assert 0 < other_form < as_spelled
    # An identifier is looked up as spelled (and by its parts): no other forms.
    # (`plugins` counts no more than `widgets`, which no chunk holds in any form.)
    assert store.search("registerPlugins", 5) == store.search("registerWidgets", 5) != []
