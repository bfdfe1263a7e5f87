"""The code graph on a real index: real tree-sitter references, the real manifest, the CLI."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest
import sharc
from sharc.cli import main
from sharc.graph import SAME_DIRECTORY, SAME_FILE, Edge, linked_files

FILES = {
    "pkg/store.py": """\
        from pkg.util import normalize


        class Store:
            def load(self, key):
                return normalize(self.fetch(key))

            def fetch(self, key):
                return key


        def helper():
            return Store().load("x")
        """,
    "pkg/util.py": """\
        def normalize(value):
            return value.strip()


        def load(path):
            return open(path).read()
        """,
    "pkg/cache.py": """\
        from pkg.util import load


        def warm(thing):
            thing.load("k")
            return load("path")
        """,
    "app/main.py": """\
        from pkg.store import helper


        def run():
            helper()
            return helper()
        """,
    "web/format.ts": """\
        export function normalize(value: string): string { return value.trim(); }
        """,
}


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, FILES)
    return root


@pytest.fixture
def index(repo: Path, tmp_path: Path) -> sharc.Index:
    opened = sharc.Index.open(repo, index_dir=tmp_path / "index")
    opened.update(embed=False)
    return opened


def _keyword_index(tmp_path: Path, files: dict[str, str]) -> sharc.Index:
    """A keyword-only index of a repository holding `files` (the graph needs no vectors)."""
    root = tmp_path / "repo"
    write(root, files)
    index = sharc.Index.open(root, index_dir=tmp_path / "index")
    index.update(embed=False)
    return index


def _callers_by_site(index: sharc.Index, symbol: str) -> dict[str, Edge]:
    """The call sites of `symbol`, by location (`path:line`)."""
    return {edge.location: edge for edge in index.callers(symbol)}


def test_chunks_carry_their_references() -> None:
    chunks = sharc.chunk_text("pkg/store.py", textwrap.dedent(FILES["pkg/store.py"]))
    load = next(c for c in chunks if c.fqn == "Store.load")
    assert {(r.name, r.kind, r.line) for r in load.references} == {
        ("normalize", "call", 6), ("fetch", "call", 6),
    }
    module = next(c for c in chunks if c.kind == "module")
    imported = {(r.name, r.qualifier) for r in module.references}
    assert ("util", "pkg") in imported and ("normalize", "") in imported


def test_a_unique_name_in_the_same_directory_is_a_sure_edge(index: sharc.Index) -> None:
    (edge,) = index.callers("normalize")
    assert (edge.path, edge.line, edge.source.fqn) == ("pkg/store.py", 6, "Store.load")
    # The TypeScript `normalize` is another language: never a candidate for a Python call.
    assert [c.definition.path for c in edge.candidates] == ["pkg/util.py"]
    assert edge.candidates[0].scope == SAME_DIRECTORY
    assert edge.confidence >= 0.75 and not edge.ambiguous


def test_an_ambiguous_name_lists_every_candidate_nearest_first(index: sharc.Index) -> None:
    edges = {(e.path, e.line): e for e in index.callers("load")}
    # `thing.load(...)`: a method of some object, or util's function through a module.
    through_thing = edges["pkg/cache.py", 5]
    assert through_thing.ambiguous
    assert [(c.definition.fqn, c.scope) for c in through_thing.candidates] == [
        ("Store.load", SAME_DIRECTORY), ("load", SAME_DIRECTORY),
    ]
    assert through_thing.candidates[0].confidence == through_thing.candidates[1].confidence
    assert sum(c.confidence for c in through_thing.candidates) < 1.0  # a share stays outside
    # A bare `load(...)` in Python is never a method.
    bare = edges["pkg/cache.py", 6]
    assert [c.definition.id for c in bare.candidates] == ["pkg/util.py::load"]
    # `Store().load(...)`: the receiver names the class.
    typed = edges["pkg/store.py", 13]
    assert typed.candidates[0].definition.fqn == "Store.load" and not typed.ambiguous
    assert typed.candidates[0].scope == f"{SAME_FILE}, receiver"
    # Asking for one definition keeps the sites that may mean it, with its share.
    precise = {e.location: e.confidence for e in index.callers("Store.load")}
    assert set(precise) == {"pkg/store.py:13", "pkg/cache.py:5"}
    assert precise["pkg/cache.py:5"] == through_thing.candidates[0].confidence
    util = {e.location for e in index.callers("pkg/util.py::load")}
    assert util == {"pkg/cache.py:5", "pkg/cache.py:6", "pkg/store.py:13"}


def test_callees_and_the_call_graph_follow_sure_edges(index: sharc.Index) -> None:
    calls = index.callees("run")
    assert [(e.line, e.name) for e in calls] == [(5, "helper"), (6, "helper")]
    assert calls[0].candidates[0].definition.id == "pkg/store.py::helper"
    nodes = index.graph().call_graph("run", depth=2)
    assert [(n.depth, n.definition.fqn) for n in nodes][:2] == [(0, "run"), (1, "helper")]
    # helper's sure call to `Store.load` is followed; warm's ambiguous one would not be.
    assert (2, "Store.load") in [(n.depth, n.definition.fqn) for n in nodes]
    warm = index.graph().call_graph("warm", depth=1)
    assert any(e.name == "load" and e.ambiguous for e in warm[0].edges)
    assert [n.definition.fqn for n in warm if n.depth == 1] == ["load"]
    callers = index.graph().call_graph("pkg/util.py::normalize", depth=2, direction="callers")
    assert [n.definition.fqn for n in callers] == ["normalize", "Store.load", "helper"]


def test_references_of_every_kind(index: sharc.Index) -> None:
    kinds = {(e.path, e.kind) for e in index.references("helper")}
    assert kinds == {("app/main.py", "import"), ("app/main.py", "call")}
    assert [e.kind for e in index.references("helper", kinds=["import"])] == ["import"]


def test_a_changed_file_replaces_its_edges_and_a_deleted_one_drops_them(
    repo: Path, index: sharc.Index
) -> None:
    assert len(index.callers("helper")) == 2
    write(repo, {"app/main.py": "from pkg.store import helper\n\n\ndef run():\n    helper()\n"})
    index.update(embed=False)
    assert [e.line for e in index.callers("helper")] == [5]
    (repo / "app" / "main.py").unlink()
    index.update(embed=False)
    assert index.callers("helper") == []
    (repo / "pkg" / "util.py").unlink()
    index.update(embed=False)
    (edge,) = index.callers("normalize")
    assert edge.candidates == () and edge.confidence == 0.0 and not edge.ambiguous


def test_an_index_from_before_the_graph_is_filled_by_the_next_update(
    repo: Path, index: sharc.Index, tmp_path: Path
) -> None:
    manifest = tmp_path / "index" / "manifest.sqlite"
    with sqlite3.connect(manifest) as connection:
        connection.execute("DROP TABLE refs")
        connection.execute("DELETE FROM meta WHERE key = 'references'")
    reopened = sharc.Index.open(repo, index_dir=tmp_path / "index")
    with pytest.raises(sharc.GraphNotBuiltError, match="sharc index"):
        reopened.callers("normalize")
    report = reopened.update(embed=False)
    assert report.chunks_added == 0 and report.files_changed == 0
    assert len(reopened.callers("normalize")) == 1


def test_search_results_can_carry_callers_and_callees(index: sharc.Index) -> None:
    hits = index.search("Store load", mode="keyword", graph=True)
    load = next(h for h in hits if h.fqn == "Store.load")
    assert load.calls[:2] == ("Store.fetch (pkg/store.py:8)", "normalize (pkg/util.py:1)")
    # warm's `thing.load` may also mean util's `load`: that edge is marked ambiguous.
    assert load.called_by == ("helper (pkg/store.py:13)", "warm (pkg/cache.py:5)?")
    plain = index.search("Store load", mode="keyword")
    assert all(h.called_by == () and h.calls == () for h in plain)


def test_cli_callers_callees_and_refs(
    index: sharc.Index, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--path", str(repo), "--index-dir", str(tmp_path / "index")]
    assert main(["callers", "normalize", *where, "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    edge = json.loads(line)
    assert edge["location"] == "pkg/store.py:6" and edge["from"]["fqn"] == "Store.load"
    assert edge["candidates"][0]["id"] == "pkg/util.py::normalize"

    assert main(["callees", "warm", *where]) == 0
    out = capsys.readouterr().out
    assert "pkg/cache.py:5  load  -> Store.load (same directory, 0.46), load" in out
    assert "[ambiguous]" in out
    assert "pkg/cache.py:6  load  -> load (same directory" in out

    assert main(["refs", "helper", "--kind", "import", *where]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("app/main.py:1  import")
    assert "1 of 1 references to helper" in captured.err


def test_cli_says_how_to_fill_the_graph_of_an_old_index(
    index: sharc.Index, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(tmp_path / "index" / "manifest.sqlite") as connection:
        connection.execute("DELETE FROM meta WHERE key = 'references'")
    code = main(["callers", "normalize", "--path", str(repo), "--index-dir",
                 str(tmp_path / "index")])
    assert code == 1
    assert "run `sharc index` to fill it" in capsys.readouterr().err


def test_references_from_another_extractor_are_read_again(
    repo: Path, index: sharc.Index, tmp_path: Path
) -> None:
    with sqlite3.connect(tmp_path / "index" / "manifest.sqlite") as connection:
        connection.execute("UPDATE meta SET value = 'older' WHERE key = 'references'")
        connection.execute(
            "DELETE FROM refs WHERE chunk_key IN"
            " (SELECT key FROM chunks WHERE path = 'pkg/store.py')"
        )
    # Stale references still answer until the next update reads every file again.
    assert index.callers("normalize") == []
    report = index.update(embed=False)
    assert report.chunks_added == 0
    assert len(index.callers("normalize")) == 1


def _orphan_references(manifest_path: Path) -> int:
    with sqlite3.connect(manifest_path) as connection:
        return connection.execute(
            "SELECT count(*) FROM refs WHERE chunk_key NOT IN (SELECT key FROM chunks)"
        ).fetchone()[0]


def test_edits_and_deletions_leave_no_reference_without_its_chunk(
    repo: Path, index: sharc.Index, tmp_path: Path
) -> None:
    manifest = tmp_path / "index" / "manifest.sqlite"
    assert "pkg/store.py:13" in {e.location for e in index.callers("Store.load")}
    # The edit changes the text (so the key) of `Store.load` and drops `helper`.
    store = textwrap.dedent(FILES["pkg/store.py"])
    edited = store.replace("normalize(self.fetch(key))", "normalize(self.fetch(key)) or key")
    (repo / "pkg/store.py").write_text(edited.split("def helper")[0])
    index.update(embed=False)
    assert _orphan_references(manifest) == 0
    assert [e.location for e in index.callers("normalize")] == ["pkg/store.py:6"]
    assert "pkg/store.py:13" not in {e.location for e in index.callers("Store.load")}
    (repo / "pkg/store.py").unlink()
    index.update(embed=False)
    assert _orphan_references(manifest) == 0
    assert index.callers("normalize") == []


def test_an_index_with_path_keyed_references_is_read_again_into_the_keyed_table(
    repo: Path, index: sharc.Index, tmp_path: Path
) -> None:
    manifest = tmp_path / "index" / "manifest.sqlite"
    with sqlite3.connect(manifest) as connection:  # the table as sharc wrote it before keys
        connection.execute("DROP TABLE refs")
        connection.execute(
            "CREATE TABLE refs (path TEXT NOT NULL, chunk_id TEXT NOT NULL, name TEXT NOT NULL,"
            " kind TEXT NOT NULL, line INTEGER NOT NULL, qualifier TEXT NOT NULL)"
        )
        connection.execute(
            "INSERT INTO refs VALUES ('pkg/store.py', 'pkg/store.py::Store.load', 'normalize',"
            " 'call', 6, '')"
        )
    reader = sharc.Index.open(repo, index_dir=tmp_path / "index")
    with pytest.raises(sharc.GraphNotBuiltError, match="run `sharc index`"):
        reader.callers("normalize")
    reader.update(embed=False)  # the writer drops the old table; every file is read again
    assert [e.location for e in reader.callers("normalize")] == ["pkg/store.py:6"]
    assert _orphan_references(manifest) == 0


def test_chunks_cross_to_ray_workers_with_their_references() -> None:
    import pickle

    from sharc.chunking import ChunkedFile
    from sharc.distributed import _from_portable, _portable_chunk

    chunks = sharc.chunk_text("pkg/store.py", textwrap.dedent(FILES["pkg/store.py"]))
    portable = pickle.loads(pickle.dumps([_portable_chunk(c) for c in chunks]))
    back = _from_portable(ChunkedFile("pkg/store.py", "python", 1, "hash"), portable).chunks
    assert [c.references for c in back] == [c.references for c in chunks]
    assert any(c.references for c in back)


def test_a_bare_call_is_no_caller_of_a_method(index: sharc.Index) -> None:
    # pkg/cache.py:6 calls `load(...)` bare: util's function, never `Store.load`.
    assert "pkg/cache.py:6" not in {e.location for e in index.callers("Store.load")}
    assert "pkg/cache.py:6" in {e.location for e in index.callers("load")}


def test_linked_files_follow_references_both_ways_and_updates(
    repo: Path, index: sharc.Index
) -> None:
    manifest = index._reader_manifest()
    files = {
        "pkg/store.py": frozenset({"Store", "load", "fetch", "helper"}),
        "pkg/util.py": frozenset({"normalize", "load"}),
        "pkg/cache.py": frozenset({"warm"}),
        "app/main.py": frozenset({"run"}),
    }
    linked = linked_files(manifest, ["pkg/store.py", "pkg/cache.py"], files)
    # store calls normalize (util) and is imported and called by main; cache imports util.
    assert linked["pkg/store.py"] == {"pkg/util.py", "app/main.py"}
    assert linked["pkg/cache.py"] == {"pkg/util.py", "pkg/store.py"}  # thing.load: a name
    assert linked_files(manifest, [], files) == {}
    # A changed file replaces its links (main no longer uses store); a deleted one drops them.
    write(repo, {"app/main.py": "def run():\n    return 1\n"})
    index.update(embed=False)
    linked = linked_files(index._reader_manifest(), ["pkg/store.py"], files)
    assert linked["pkg/store.py"] == {"pkg/util.py", "pkg/cache.py"}
    (repo / "pkg" / "cache.py").unlink()
    index.update(embed=False)
    linked = linked_files(index._reader_manifest(), ["pkg/store.py"], files)
    assert linked["pkg/store.py"] == {"pkg/util.py"}


def test_search_with_graph_neighbours_on_reads_the_graph(index: sharc.Index) -> None:
    import dataclasses

    plain = [h.id for h in index.search("load a value and normalize it", mode="keyword")]
    index.ranking_settings = dataclasses.replace(index.ranking_settings, neighbour_lift=0.3)
    lifted = index.search("load a value and normalize it", mode="keyword")
    assert sorted(h.id for h in lifted) == sorted(plain)


def test_a_receiver_named_after_the_class_points_at_its_method(tmp_path: Path) -> None:
    # JavaScript's `Reply.prototype.send` is a method of `Reply`; a Ruby variable
    # `declaration_list` holds a `DeclarationList`. Neither caller imports the definition's
    # file, so only the receiver makes either call sure.
    files = {
        "lib/reply.js": """\
            function Reply (res) { this.res = res }
            Reply.prototype.send = function (payload) { return this.res.end(payload) }
            Reply.prototype.sendTwice = function (payload) { this.send(payload); this.send(payload) }
            module.exports = Reply
            """,
        "test/reply.test.js": """\
            function check (reply, other) {
              reply.send('ok')
              return other.send('no')
            }
            """,
        "lib/shop/declaration_list.rb": """\
            module Shop
              class DeclarationList
                def declare_attribute(name)
                  name
                end
              end
            end
            """,
        "spec/shop/declaration_list_spec.rb": """\
            def check(declaration_list, other)
              declaration_list.declare_attribute(:name)
              other.declare_attribute(:name)
            end
            """,
    }
    index = _keyword_index(tmp_path, files)
    sites = _callers_by_site(index, "Reply.send")
    assert not sites["test/reply.test.js:2"].ambiguous  # `reply`
    assert sites["test/reply.test.js:2"].candidates[0].scope.endswith("receiver")
    assert sites["test/reply.test.js:3"].ambiguous  # `other`: any object's `send`
    assert not sites["lib/reply.js:3"].ambiguous  # `this` in another method of Reply
    sites = _callers_by_site(index, "DeclarationList.declare_attribute")
    assert not sites["spec/shop/declaration_list_spec.rb:2"].ambiguous
    assert sites["spec/shop/declaration_list_spec.rb:3"].ambiguous


def test_a_c_file_reaches_what_its_included_headers_include(tmp_path: Path) -> None:
    # The test includes only its helpers' header; that header includes the library's.
    files = {
        "lib/json.h": "int json_create(void);\n",
        "lib/json.c": '#include "json.h"\n\nint json_create(void)\n{\n    return 1;\n}\n',
        "tests/common.h": '#include "../lib/json.h"\n#include <stdio.h>\n',
        "tests/add.c": '#include "common.h"\n\nint main(void)\n{\n    return json_create();\n}\n',
        "tools/other.c": "int main(void)\n{\n    return json_create();\n}\n",
    }
    sites = _callers_by_site(_keyword_index(tmp_path, files), "json_create")
    assert sites["tests/add.c:5"].candidates[0].scope == "imported"
    assert not sites["tests/add.c:5"].ambiguous
    assert sites["tools/other.c:3"].ambiguous  # includes nothing: maybe another library's


def test_a_rust_file_reaches_the_module_it_declares(tmp_path: Path) -> None:
    # Each integration test declares the shared helpers' module (`tests/common/mod.rs`).
    files = {
        "tests/common/mod.rs": "pub fn bail_fmt() -> u32 {\n    7\n}\n",
        "tests/test_downcast.rs": "mod common;\n\nuse self::common::*;\n\n#[test]\n"
                                  "fn downcast() {\n    assert_eq!(bail_fmt(), 7);\n}\n",
        "benches/other.rs": "fn run() -> u32 {\n    bail_fmt()\n}\n",
    }
    sites = _callers_by_site(_keyword_index(tmp_path, files), "bail_fmt")
    assert sites["tests/test_downcast.rs:7"].candidates[0].scope == "imported"
    assert not sites["tests/test_downcast.rs:7"].ambiguous
    assert sites["benches/other.rs:2"].ambiguous


def test_a_script_reaches_the_modules_a_barrel_re_exports(tmp_path: Path) -> None:
    # The tests import the package's `index`, which re-exports the module that defines it.
    files = {
        "source/utils/type-guards.ts": "export function isHTTPError(error: unknown): boolean {\n"
                                       "  return error instanceof Error;\n}\n",
        "source/index.ts": "export {isHTTPError} from './utils/type-guards.js';\n",
        "test/hooks.ts": "import {isHTTPError} from '../source/index.js';\n\n"
                         "export const check = (error: unknown) => isHTTPError(error);\n",
        "test/dir.ts": "import {isHTTPError} from '../source';\n\n"
                       "export const check = (error: unknown) => isHTTPError(error);\n",
        "scripts/other.ts": "export const check = (error: unknown) => isHTTPError(error);\n",
    }
    sites = _callers_by_site(_keyword_index(tmp_path, files), "isHTTPError")
    for through_index in ("test/hooks.ts:3", "test/dir.ts:3"):
        assert sites[through_index].candidates[0].scope == "imported", through_index
        assert not sites[through_index].ambiguous
    assert sites["scripts/other.ts:1"].ambiguous


def test_a_mixin_named_with_its_qualifier_points_at_that_module(tmp_path: Path) -> None:
    # Three modules and a class named `Callbacks`; the controller's own module of that name
    # includes ActiveSupport's, which only its qualifier tells apart from the others.
    files = {
        "activesupport/lib/active_support/callbacks.rb": """\
            module ActiveSupport
              module Callbacks
                def run_callbacks(kind)
                  yield
                end
              end
            end
            """,
        "activemodel/lib/active_model/callbacks.rb": """\
            module ActiveModel
              module Callbacks
                def define_model_callbacks(*names)
                  names
                end
              end
            end
            """,
        "actionpack/lib/abstract_controller/callbacks.rb": """\
            module AbstractController
              module Callbacks
                include ActiveSupport::Callbacks
                include Comparable
              end
            end
            """,
        "actionpack/lib/action_dispatch/callbacks.rb": """\
            module ActionDispatch
              class Callbacks
              end
            end
            """,
        "lib/widget.rb": """\
            class Widget
              include Callbacks
            end
            """,
        "activerecord/lib/active_record/callbacks.rb": """\
            module ActiveRecord
              module Callbacks
                def create_or_update(**options)
                  _run_save_callbacks { super }
                end
              end
            end
            """,
        "activerecord/lib/active_record/base.rb": """\
            module ActiveRecord
              class Base
                include Callbacks
              end
            end
            """,
    }
    index = _keyword_index(tmp_path, files)
    sites = {edge.location: edge for edge in index.references("Callbacks", kinds=["inherit"])}
    qualified = sites["actionpack/lib/abstract_controller/callbacks.rb:3"]
    assert not qualified.ambiguous
    assert qualified.candidates[0].definition.fqn == "ActiveSupport.Callbacks"
    assert qualified.candidates[0].scope.endswith("qualified")
    # A bare mixin inside a namespace means the module of that name beside it there, as
    # Ruby's lookup finds it; outside any, a name defined in four files stays ambiguous (and
    # may mean a module).
    enclosed = sites["activerecord/lib/active_record/base.rb:3"]
    assert not enclosed.ambiguous
    assert enclosed.candidates[0].definition.fqn == "ActiveRecord.Callbacks"
    assert enclosed.candidates[0].scope.endswith("enclosing")
    bare = sites["lib/widget.rb:2"]
    assert bare.ambiguous, bare
    assert {c.definition.kind for c in bare.candidates} >= {"module"}
