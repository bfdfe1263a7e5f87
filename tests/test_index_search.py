"""The index end to end, searching: what a query finds first (definitions by name, by
question and in lower case, files and members named in words, a directory named in the
question), filters and modes, results as files with their other close hits, concurrent searches,
and how a keyword-only search ranks; the real model, real usearch, real tantivy, on a small real
repository."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest
import sharc
from index_helpers import _open, _top
from sharc.index import Index


def test_natural_language_and_identifier_queries_find_the_definition(built: Index) -> None:
    assert _top(built, "hash a password with a salt") == "hash_password"
    assert _top(built, "retry an action with exponential backoff") == "retry_with_backoff"
    assert _top(built, "TaskStore") == "TaskStore"
    assert _top(built, "verify_password") == "verify_password"
    assert _top(built, "NewQueue") == "NewQueue"
    response = built.search("delete a task from the database", limit=3)
    assert response.arms == ("keyword", "semantic")
    assert response.complete
    first = response[0]
    assert first.symbol == "delete_task" and first.kind == "method"
    assert first.location == f"taskboard/storage.py:{first.start_line}-{first.end_line}"
    assert 0 < first.score <= 1
    assert "def delete_task" in first.code and "Context:" in first.header


def test_a_question_about_one_names_definition_ranks_as_the_name(built: Index) -> None:
    bare = built.search("TaskStore", limit=5)
    asked = built.search("where is the TaskStore class defined?", limit=5)
    assert [r.id for r in asked] == [r.id for r in bare] and asked[0].symbol == "TaskStore"
    assert asked.query_kind == bare.query_kind == "identifier"
    assert _top(built, "the Task class") == "Task"
    assert _top(built, "how does `due_within` work") == "due_within"
    # A question that asks for something else is searched as asked.
    assert built.search("where is TaskStore used", limit=5).query_kind == "mixed"


def test_a_name_typed_in_lower_case_finds_its_definition(built: Index) -> None:
    # The arms read names without case; the definition is looked up as the code spells it.
    for query in ("taskstore", "where is taskstore defined", "the newqueue function"):
        assert _top(built, query) == _top(built, query.replace("taskstore", "TaskStore")
                                           .replace("newqueue", "NewQueue")), query
    assert _top(built, "taskstore") == "TaskStore"
    assert built.search("where is taskstore defined", limit=5).query_kind == "identifier"
    # A name typed with a capital means that case: nothing defines `Taskstore` as typed.
    assert built.search("where is Taskstore defined", limit=5).query_kind != "identifier"
    # A qualified name: the definition whose qualified name ends with it, in the code's case.
    manifest = built._reader_manifest()
    assert manifest.defined_spelling("taskstore.loadtasks") == "TaskStore.load_tasks"
    assert manifest.defined_spelling("Taskstore.load_tasks") is None  # a capital: as typed
    assert _top(built, "taskstore::loadtasks") == "load_tasks"
    # A word nothing defines in any case stays a question.
    assert built.search("how does caching work", limit=5).query_kind != "identifier"


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("storage.py", "taskboard/storage.py"),
        ("taskboard/storage.py", "taskboard/storage.py"),
        ("where is `queue.go`", "notifier/queue.go"),
        ("the queue file", "notifier/queue.go"),
        ("open tsconfig.json", "web/tsconfig.json"),
        ("TaskList.ts", "web/src/components/TaskList.ts"),
    ],
)
def test_a_file_asked_for_by_name_comes_first(built: Index, query: str, path: str) -> None:
    results = built.search(query, limit=5)
    assert results[0].path == path, [r.path for r in results]
    assert len(results) == 5  # the rest of the list as the name ranks it


def test_a_named_file_outside_the_filters_is_not_shown(built: Index) -> None:
    results = built.search("queue.go", languages=["python"], limit=5)
    assert results and all(r.language == "python" for r in results)


def test_a_question_that_names_a_directory_searches_it_first(built: Index) -> None:
    scoped = built.search("send a notification in notifier/", limit=6)
    inside = [r for r in scoped if r.path.startswith("notifier/")]
    assert scoped[: len(inside)] == inside and len(inside) >= 2  # the directory first ...
    assert len(scoped) == 6  # ... then the rest of the repository
    assert all(r.score <= inside[-1].score for r in scoped[len(inside):])
    # Searched as the question without its place, as `path_prefix` would.
    alone = built.search("send a notification", path_prefix="notifier/", limit=6)
    assert [r.id for r in alone] == [r.id for r in inside]
    # An explicit `path_prefix` wins; a path no file lies under is a question's words.
    assert all(r.path.startswith("taskboard/") for r in built.search(
        "send a notification in notifier/", path_prefix="taskboard/", limit=3))
    assert built.search("send a notification in nowhere/at/all", limit=3)
    # A directory named by its name.
    named = built.search("send a notification in the notifier package", limit=6)
    assert [r.id for r in named] == [r.id for r in scoped]


@pytest.mark.parametrize(
    ("query", "fqn"),
    [
        ("the delete_task method of TaskStore", "TaskStore.delete_task"),
        ("TaskStore's save_task method", "TaskStore.save_task"),
        ("how does Queue Push work", "main.Queue.Push"),
    ],
)
def test_a_member_named_in_words_finds_its_definition(built: Index, query: str, fqn: str) -> None:
    response = built.search(query, limit=3)
    assert response[0].fqn == fqn and response.query_kind == "identifier"


def test_filters_and_modes(built: Index) -> None:
    go_only = built.search("push a message on the queue", languages=["go"], limit=5)
    assert go_only and all(r.language == "go" for r in go_only)
    under = built.search("task", path_prefix="taskboard/", limit=10)
    assert under and all(r.path.startswith("taskboard/") for r in under)
    by_ext = built.search("task", extensions=[".ts"], limit=10)
    assert all(r.path.endswith(".ts") for r in by_ext)
    keyword = built.search("verify_password", mode="keyword")
    assert keyword.arms == ("keyword",) and keyword[0].symbol == "verify_password"
    semantic = built.search("check a password against its stored hash", mode="semantic")
    assert semantic.arms == ("semantic",)
    assert built.search("   ").results == []
    for hostile in ['"', "AND OR (", "::", "a:b", "ü" * 50, "x" * 5000]:
        built.search(hostile)


def test_results_are_spread_across_files(built: Index) -> None:
    results = built.search("task", limit=6)
    paths = [r.path for r in results]
    assert max(paths.count(p) for p in set(paths)) <= 2


def test_results_are_files_with_their_other_close_hits_under_them(built: Index) -> None:
    response = built.search("task storage", limit=4)
    paths = [hit.path for hit in response]
    assert len(paths) == len(set(paths)) == 4 and paths[0] == "taskboard/storage.py"
    assert response[0].symbol == "load_tasks" and response[0].same_file_hits
    for hit in response:
        assert len(hit.same_file_hits) <= 2  # max_per_file=3: the best and two more
        for other in hit.same_file_hits:
            # Scores as shown (scaled by the best result's): the order holds; which hits
            # are close enough is read on the raw scores (`test_ranking_files`).
            assert other.path == hit.path and hit.score >= other.score > 0
            assert not other.same_file_hits
    reading = response.all_hits()
    assert reading[: 1 + len(response[0].same_file_hits)] == [
        response[0], *response[0].same_file_hits
    ]
    assert len(reading) == sum(1 + len(hit.same_file_hits) for hit in response)
    assert all(len(hit.same_file_hits) <= 1 for hit in built.search("task storage", max_per_file=2))
    assert not any(hit.same_file_hits for hit in built.search("task storage", max_per_file=1))
    flat = built.search("task storage", limit=4, group_by_file=False)
    assert [hit.location for hit in flat][:2] == [
        response[0].location, response[0].same_file_hits[0].location
    ]
    assert not any(hit.same_file_hits for hit in flat)


def test_concurrent_searches_from_threads(built: Index) -> None:
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(5):
                assert built.search("hash a password")[0].symbol == "hash_password"
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def _keyword_index_of(tmp_path: Path, path: str, source: str) -> Index:
    """A keyword-only index of a repository holding one file."""
    root = tmp_path / "repo"
    (root / path).parent.mkdir(parents=True)
    (root / path).write_text(source)
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    return index


def _first_line(index: Index, query: str, limit: int = 1) -> list[int]:
    return [
        hit.start_line
        for hit in index.search(query, mode="keyword", limit=limit, group_by_file=False)
    ]


def test_a_public_definition_comes_before_a_private_one_of_the_same_name(tmp_path: Path) -> None:
    # The private helper says `connect` more often: BM25 prefers it.
    index = _keyword_index_of(
        tmp_path, "lib/protocol.ex",
        "defmodule Protocol do\n"
        "  def connect(opts) do\n    connect(opts[:host], opts[:port], opts)\n  end\n\n"
        "  def close(socket), do: :gen_tcp.close(socket)\n\n"
        "  defp connect(host, port, opts) do\n"
        "    # connect, then connect again when the first connect fails\n"
        "    :gen_tcp.connect(host, port, opts)\n  end\nend\n",
    )
    assert _first_line(index, "connect", limit=2) == [1, 8]
    assert _first_line(index, "Protocol.connect") == [1]
    index.close()


def test_a_rust_trait_private_at_the_crate_root_comes_before_a_pub_one_in_a_private_module(
    tmp_path: Path,
) -> None:
    # anyhow's shape: the crate's own `trait StdError` (private at the root, so crate-wide)
    # and a `pub trait StdError` that a private `mod ext` keeps inside `context.rs`.
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src/lib.rs").write_text(
        "mod context;\n\n"
        "trait StdError: Debug + Display {\n    fn source(&self) -> Option<&dyn StdError> {\n"
        "        None\n    }\n}\n"
    )
    (root / "src/context.rs").write_text(
        "mod ext {\n    use super::*;\n\n"
        "    pub trait StdError {\n        fn ext_context(self) -> Error;\n    }\n\n"
        "    impl StdError for Error {\n        fn ext_context(self) -> Error {\n"
        "            // StdError, StdError\n            self\n        }\n    }\n}\n"
    )
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    [first] = index.search("StdError", mode="keyword", limit=1)
    assert (first.path, first.start_line) == ("src/lib.rs", 3)
    index.close()


def _python_library(root: Path) -> None:
    """Names defined twice, as in Python's standard library: the copy BM25 prefers (it says the
    name more often) lies in a private module, a deprecated module or package, or is the
    smaller class; and a module-level function shares a method's name."""
    files = {
        "text.py": "class Template:\n    def __init__(self, source):\n        self.source = source\n",
        "pipes.py": (
            "import warnings\n\nwarnings._deprecated(__name__, remove=(3, 13))\n\n\n"
            "class Template:\n    # Template, Template: a pipeline Template\n"
            "    def clone(self):\n        return Template()\n"
        ),
        "io.py": "class IOBase:\n    def close(self):\n        pass\n",
        "_pyio.py": (
            "class IOBase:\n    # IOBase, the pure-Python IOBase\n"
            "    def __enter__(self):\n        return IOBase()\n"
        ),
        "metadata.py": (
            "class Distribution:\n    def read_text(self, name):\n        return name\n"
        ),
        "legacy/__init__.py": (
            "import warnings\n\n"
            "warnings.warn('the legacy package is deprecated',\n"
            "              DeprecationWarning, 2)\n"
        ),
        "legacy/dist.py": (
            "class Distribution:\n    # Distribution, a legacy Distribution\n"
            "    def run(self):\n        return Distribution()\n"
        ),
        "starters/fork.py": (
            "class Popen:\n    # Popen: a Popen that forks; Popen, Popen\n"
            "    def poll(self):\n" + "".join(f"        x{n} = {n}\n" for n in range(150))
            + "        return Popen()\n"
        ),
        # Over the chunker's 3,500 characters: cut into parts of about 100 lines each.
        "subprocess.py": "class Popen:\n" + "".join(
            f"    OPTION_{n} = {n}  # the option numbered {n}\n" for n in range(400)
        ),
        # attrs' shape: the public package only declares what a private module implements.
        "attrs/_make.py": (
            "def evolve(inst, **changes):\n    cls = inst.__class__\n"
            "    changes.update(fields(cls))\n    return cls(**changes)\n"
        ),
        "attrs/__init__.pyi": (
            "# evolve: evolve a copy, as evolve does\n"
            "def evolve(inst: _T, **changes: Any) -> _T: ...\n"
            "# asdict, asdict: a dict of the fields, like asdict\n"
            "def asdict(\n    inst: Any,\n    recurse: bool = ...,\n    filter: Any = ...,\n"
            "    dict_factory: Any = ...,\n    retain_collection_types: bool = ...,\n"
            ") -> dict[str, Any]: ...\n"
        ),
        "attrs/_funcs.py": (
            "def asdict(inst, recurse=True):\n    out = {}\n"
            "    for name in fields(inst):\n        out[name] = getattr(inst, name)\n"
            "    return out\n"
        ),
        "logging/__init__.py": (
            "class Formatter:\n    def format(self, record):\n        return str(record)\n"
        ),
        "locale.py": (
            "def format(percent, value):\n    # format the value: format, format\n"
            "    return percent % value\n"
        ),
    }
    for path, source in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(source)


def test_of_a_python_name_defined_twice_the_public_current_whole_one_comes_first(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    _python_library(root)
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)

    def first(query: str) -> tuple[str, int]:
        [hit] = index.search(query, mode="keyword", limit=1)
        return hit.path, hit.start_line

    assert first("Template") == ("text.py", 1)  # not the deprecated module's
    assert first("IOBase") == ("io.py", 1)  # not the private module's
    assert first("evolve") == ("attrs/_make.py", 1)  # a body, not the public stub
    assert first("asdict") == ("attrs/_funcs.py", 1)  # however long the stub's signature
    assert first("Distribution") == ("metadata.py", 1)  # not the deprecated package's
    # The 400-line class the chunker cut into parts is larger than the 150-line one, though
    # its first part is not.
    assert first("Popen") == ("subprocess.py", 1)
    parts = [hit for hit in index.search("Popen", mode="keyword", limit=30, group_by_file=False)
             if hit.path == "subprocess.py" and hit.symbol == "Popen"]
    assert len(parts) > 2 and parts[0].end_line < 200
    # A module, its class and the method: the method, not a function of another module.
    assert first("logging.Formatter.format") == ("logging/__init__.py", 2)
    index.close()


def test_a_cpp_class_whose_head_a_conditional_splits_is_found_as_a_definition(
    tmp_path: Path,
) -> None:
    # Written as Eigen's headers are: the base clause differs by branch, and the members
    # lead with macros that end their line. Before the conditional was straightened the class
    # fell apart into parse errors and `DenseBase` matched no definition.
    index = _keyword_index_of(
        tmp_path, "Eigen/src/Core/DenseBase.h",
        "namespace Eigen {\n"
        "template<typename Derived> class DenseBase\n"
        "#ifndef EIGEN_PARSED_BY_DOXYGEN\n"
        "  : public DenseCoeffsBase<Derived, internal::accessors_level<Derived>::value>\n"
        "#else\n"
        "  : public DenseCoeffsBase<Derived, DirectWriteAccessors>\n"
        "#endif // not EIGEN_PARSED_BY_DOXYGEN\n"
        "{\n"
        "  public:\n"
        "    EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR\n"
        "    inline Index nonZeros() const { return size(); }\n"
        "    class InnerIterator {\n"
        "      public:\n"
        "        Index index() const { return m_id; }\n"
        "        Index m_id;\n"
        "    };\n"
        "};\n"
        "}\n",
    )
    [hit] = index.search("DenseBase", mode="keyword", limit=1)
    # The namespace's opening line joins its first member.
    assert (hit.symbol, hit.start_line, hit.end_line) == ("DenseBase", 1, 17)
    assert "DirectWriteAccessors" in hit.code  # the branch set aside for the parse
    [hit] = index.search("InnerIterator", mode="keyword", limit=1)
    assert (hit.symbol, hit.start_line) == ("InnerIterator", 12)
    index.close()


def test_a_cpp_template_only_declared_is_found_before_its_specialisations(
    tmp_path: Path,
) -> None:
    # Eigen declares `traits` in one header and specialises it in every other (here three
    # headers), each specialisation saying `traits` more often than the declaration does.
    root = tmp_path / "repo"
    files = {"Eigen/src/Core/util/ForwardDeclarations.h":
             "namespace Eigen {\nnamespace internal {\n\ntemplate<typename T> struct traits;\n"
             "\n}\n}\n"}
    for name in ("Product", "Block", "Map"):
        files[f"Eigen/src/Core/{name}.h"] = (
            f"namespace Eigen {{\nnamespace internal {{\ntemplate<typename T>\n"
            f"struct traits<{name}<T> > : traits<T>\n{{\n  typedef traits<T> Base;\n"
            f"  enum {{ Flags = traits<T>::Flags }};\n}};\n}}\n}}\n"
        )
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    for query in ("Eigen::internal::traits", "traits"):
        first = index.search(query, mode="keyword", limit=3)[0]
        assert first.path.endswith("ForwardDeclarations.h"), (query, first.path)
        assert "struct traits;" in first.code
    index.close()


def test_a_member_asked_through_a_class_that_inherits_it_is_the_base_classes(
    tmp_path: Path,
) -> None:
    # `Store.load` where `Store` defines no `load` of its own: its base class's. Another
    # class's `load` says `Store` more often.
    root = tmp_path / "repo"
    files = {
        "pkg/base.py": "class Loader:\n    def load(self, key):\n        return key\n",
        "pkg/store.py": "from pkg.base import Loader\n\n\nclass Store(Loader):\n"
                        "    def save(self, key):\n        return key\n",
        "pkg/cache.py": "class Cache:\n    def load(self, store):\n"
                        "        # Store, a Store, the Store to load from\n        return store\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    first = index.search("Store.load", mode="keyword", limit=3)[0]
    assert (first.path, first.symbol) == ("pkg/base.py", "load")
    # A class that defines the member keeps its own; a name no base defines is left as asked.
    assert index.search("Cache.load", mode="keyword", limit=1)[0].path == "pkg/cache.py"
    index.close()
    # Two levels up: `DiskStore(Store)`, `Store(Loader)`; a cycle of bases ends.
    (root / "pkg/disk.py").write_text(
        "from pkg.store import Store\n\n\nclass DiskStore(Store):\n    def path(self):\n"
        "        return '/'\n\n\nclass Ring(Ring2):\n    pass\n\n\nclass Ring2(Ring):\n"
        "    pass\n"
    )
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    first = index.search("DiskStore.load", mode="keyword", limit=3)[0]
    assert (first.path, first.symbol) == ("pkg/base.py", "load")
    assert index._reader_manifest().defined_spelling("Ring.load") is None  # noqa: SLF001
    index.close()


def test_a_ruby_instance_method_query_finds_the_instance_method(tmp_path: Path) -> None:
    index = _keyword_index_of(
        tmp_path, "lib/client.rb",
        "class Client\n"
        "  def push(item)\n    raw_push(item)\n  end\n\n"
        "  class << self\n"
        "    def push(item)\n      new.push(item).push(item)\n    end\n  end\nend\n",
    )
    # BM25 prefers the class method (it says push more often); `#` names the instance method.
    assert _first_line(index, "Client.push") == [7]
    assert _first_line(index, "Client#push") == [2]
    index.close()


def test_a_key_only_a_config_file_holds_leads_a_keyword_only_search(
    small_repo: Path, tmp_path: Path
) -> None:
    # BM25 alone: the project file holds `LangVersion` whole, the code only its parts; ranked
    # by rank alone the config file's penalty put the code first.
    (small_repo / "src").mkdir(exist_ok=True)
    (small_repo / "src/Tasks.csproj").write_text(
        "<Project>\n  <PropertyGroup>\n    <LangVersion>latest</LangVersion>\n"
        "  </PropertyGroup>\n</Project>\n"
    )
    (small_repo / "taskboard/about.py").write_text(
        '"""Version and language of the package."""\n\n__version__ = "1.0"\nlang = "en"\n\n\n'
        "def version_string(lang: str = lang) -> str:\n"
        '    return f"{lang} {__version__}"\n'
    )
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    results = index.search("LangVersion")
    assert results.arms == ("keyword",)
    assert results[0].path == "src/Tasks.csproj", [r.path for r in results]


def test_a_question_searched_by_keywords_alone_finds_the_code_that_holds_its_words(
    small_repo: Path, tmp_path: Path
) -> None:
    # BM25 alone sums the weights of the words each chunk holds: the notes that repeat its
    # two rare words led; the function that holds every word of the question leads now.
    (small_repo / "taskboard/notes.py").write_text(
        "def expired_eviction(expired):\n"
        '    """Eviction: expired, eviction, expired, eviction, expired."""\n'
        "    return [expired, expired]\n"
    )
    (small_repo / "taskboard/sweeper.py").write_text(
        "def sweep(cache, now):\n"
        '    """Evict the cache entries that expired."""\n'
        "    return {key: entry for key, entry in cache.items() if entry.expires > now}\n"
    )
    (small_repo / "taskboard/caches.py").write_text("".join(
        f"def cache_{n}(entries):\n    return [cache for cache in entries]\n\n\n"
        for n in range(12)
    ))
    index = _open(small_repo, tmp_path)
    index.update(embed=False)
    question = "how are expired cache entries evicted"
    results = index.search(question, limit=3)
    assert results.arms == ("keyword",)
    assert results[0].symbol == "sweep", [r.location for r in results]
    index.ranking_settings = dataclasses.replace(index.ranking_settings, keyword_coverage=0.0)
    assert index.search(question, limit=3)[0].path == "taskboard/notes.py"  # as BM25 ranks
    index.close()


def test_a_search_crowded_by_tests_still_gives_the_results_asked_for(tmp_path: Path) -> None:
    # A repository of tests: the keyword arm's best hits past the tests hold one module of
    # code. It comes first, and tests fill the places left (it answered with it alone).
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src/converters.py").write_text(
        "def convert_value(value, target_type):\n"
        '    """Pick the built-in converter for a special type."""\n'
        "    return CONVERTERS[target_type](value)\n"
    )
    (repo / "tests").mkdir()
    for n in range(150):
        (repo / "tests" / f"test_converter_{n}.py").write_text(
            f"def test_converter_{n}():\n"
            f"    # converter for special type {n}: built-in converter, special type\n"
            f"    assert convert_value({n}, 'special type') == {n}\n"
        )
    index = _open(repo, tmp_path)
    index.update(embed=False)
    results = index.search("built-in converter for a special type", limit=10)
    paths = [r.path for r in results]
    assert paths[0] == "src/converters.py" and len(paths) == 10, paths
    assert all(path.startswith("tests/") for path in paths[1:]), paths
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    index.close()
