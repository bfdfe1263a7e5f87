"""Definitions first: a query that is one name puts its definitions ahead, the surest and
most visible first, and of a name defined more than once the primary definition, read
from the code (`sharc.ranking.visibility`, `built_upon`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest
from ranking_helpers import Candidate
from sharc.manifest import DefinitionRow, ReferenceRow
from sharc.ranking import KEYWORD, SEMANTIC, QueryIntent, RankingSettings, rank_hits
from sharc.ranking.boosts import definition_match, definition_tier
from sharc.ranking.visibility import (
    MISSED_DEFINITIONS,
    DefinitionFacts,
    declared_stub,
    declared_with_keyword,
    definition_finder,
)

# Definitions first: a query that is one name


def _ranked_ids(query: str, scored: list[tuple[Candidate, float]], **settings: object) -> list[str]:
    records = {c.id: c for c, _ in scored}
    ordered = sorted(scored, key=lambda pair: -pair[1])
    hits = {arm: [(c.id, score) for c, score in ordered] for arm in (KEYWORD, SEMANTIC)}
    ranked = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids},
                       settings=RankingSettings(**settings), max_per_file=None)  # type: ignore[arg-type]
    return [c.id for c, _ in ranked.candidates]


def test_a_query_that_is_one_name_puts_its_definitions_first_whatever_the_arms_scored() -> None:
    scored = [
        (Candidate("use", "src/query.ex", "", fqn="Postgrex.Query", kind="module"), 0.9),
        (Candidate("other", "lib/a.ex", "parse", fqn="Postgrex.Query.parse"), 0.8),
        (Candidate("def", "lib/postgrex.ex", "query", fqn="Postgrex.query"), 0.08),
    ]
    assert _ranked_ids("Postgrex.query", scored)[0] == "def"
    assert _ranked_ids("Postgrex.query", scored, definitions_first=False)[0] == "use"
    # A question in words that mentions the name is no search for its definition alone.
    assert not QueryIntent.of("where is Postgrex.query called").single_name


def test_the_surest_definition_comes_first() -> None:
    scored = [
        (Candidate("impl", "src/error.rs", "Error", fqn="Error", kind="impl"), 0.9),
        (Candidate("lower", "src/context.rs", "error", fqn="Chain.error", kind="method"), 0.8),
        (Candidate("function", "src/make.rs", "Error", fqn="make.Error"), 0.5),
        (Candidate("struct", "src/lib.rs", "Error", fqn="Error", kind="struct"), 0.1),
        (Candidate("other", "src/kind.rs", "Error", fqn="other.Error", kind="struct"), 0.05),
    ]
    # Type over function over extension; the score orders a tier; another case is no tier.
    assert _ranked_ids("Error", scored) == ["struct", "other", "function", "impl", "lower"]
    # The qualified name outranks every unqualified match.
    assert _ranked_ids("other::Error", scored)[:2] == ["other", "struct"]
    matches = [definition_match(c, QueryIntent.of("other::Error")) for c, _ in scored]
    assert [definition_tier(m) for m in matches] == [1, 0, 3, 4, 8]


def test_a_name_in_another_case_does_not_jump_ahead() -> None:
    scored = [
        (Candidate("module", "lib/sidekiq/job.rb", "", fqn="Sidekiq.Job", kind="module"), 0.9),
        (Candidate("method", "lib/sidekiq/api.rb", "job", fqn="Sidekiq.Work.job"), 0.5),
    ]
    assert _ranked_ids("Sidekiq::Job", scored) == ["module", "method"]


def test_a_module_counts_as_a_class_of_its_name_and_its_own_file_decides() -> None:
    scored = [
        (Candidate("class", "lib/other.rb", "Inner", fqn="Other.Inner", kind="class"), 0.9),
        (Candidate("module", "lib/outer/inner.rb", "Inner", fqn="Outer.Inner", kind="module"),
         0.4),
        (Candidate("function", "lib/make.rb", "Inner", fqn="Make.Inner"), 0.95),
    ]
    matches = [definition_match(c, QueryIntent.of("Inner")) for c, _ in scored]
    assert [definition_tier(m) for m in matches] == [4, 4, 3]
    # Alike in tier, the module in the file named after it comes first, whatever the arms
    # scored; a function of the name (no module, no type) after both.
    assert _ranked_ids("Inner", scored) == ["module", "class", "function"]
    assert _ranked_ids("Outer::Inner", scored)[0] == "module"


def test_a_type_asked_in_lower_case_is_found_in_the_file_named_after_it() -> None:
    scored = [
        (Candidate("method", "src/rules/ExternalResource.java", "statement",
                   fqn="ExternalResource.statement", kind="method"), 0.9),
        (Candidate("use", "src/runner/Runner.java", "run", fqn="Runner.run"), 0.8),
        (Candidate("type", "src/model/Statement.java", "Statement", kind="class"), 0.3),
        (Candidate("elsewhere", "src/model/Steps.java", "Statement", fqn="Steps.Statement",
                   kind="class"), 0.35),
    ]
    # The type's home comes first, then the method of the query's own spelling; a type of
    # that name in another file is no surer than any other name in another case.
    assert _ranked_ids("statement", scored)[:2] == ["type", "method"]
    matches = [definition_match(c, QueryIntent.of("statement")) for c, _ in scored]
    assert [definition_tier(m) for m in matches] == [3, 0, 4, 0]
    # Asked with the type's own capital, the method is no definition of it.
    assert _ranked_ids("Statement", scored)[:2] == ["type", "elsewhere"]
    # A module the chunker cut into parts, in its file: its home too.
    parts = [
        (Candidate("method", "lib/sidekiq/api.rb", "job", fqn="Sidekiq.Work.job"), 0.9),
        (Candidate("part", "lib/sidekiq/job.rb", "", fqn="Sidekiq.Job", kind="module"), 0.4),
    ]
    assert _ranked_ids("sidekiq::job", parts) == ["part", "method"]
    # Read in blocks (an arm alone, a limit), only a definition in the query's case is
    # lifted: the bound that stops the reading holds for those.
    records = {c.id: c for c, _ in scored}
    hits = [("type", 0.9), ("use", 0.8), ("method", 0.3), ("elsewhere", 0.2)]
    blockwise = rank_hits(
        "statement", {KEYWORD: hits},
        lambda ids: {i: records[i] for i in ids}, limit=2,
        defines=lambda ids, names, missed=True: {"method": DefinitionFacts()},
    )
    assert blockwise.candidates[0][0].id == "method"


def test_definitions_in_tests_docs_or_config_do_not_jump_ahead() -> None:
    scored = [
        (Candidate("use", "src/app.py", "run"), 0.9),
        (Candidate("test", "tests/test_app.py", "App", kind="class"), 0.5),
        (Candidate("docs", "docs/app.md", "App", tier=2, kind="section"), 0.5),
        (Candidate("def", "src/app_impl.py", "App", kind="class"), 0.05),
    ]
    assert _ranked_ids("App", scored) == ["def", "use", "test", "docs"]
    # Asked for tests, a test's definition is a definition like any other.
    assert _ranked_ids("App", scored[:2])[0] == "use"
    assert rank_hits("App", {KEYWORD: [("test", 0.5)]},
                     lambda ids: {"test": scored[1][0]}, include_tests=True).candidates[0][1] > 1


def test_a_private_definition_follows_a_public_one_of_the_same_tier() -> None:
    scored = [
        (Candidate("helper", "lib/protocol.ex", "connect", fqn="Protocol.connect"), 0.9),
        (Candidate("api", "lib/protocol.ex", "connect", fqn="Protocol.connect"), 0.4),
        (Candidate("type", "lib/conn.ex", "Connect", fqn="Connect", kind="module"), 0.95),
    ]
    records = {c.id: c for c, _ in scored}
    hits = {KEYWORD: [(c.id, score) for c, score in scored]}

    def ranked(query: str, private: set[str]) -> list[str]:
        defines = lambda ids, names: {  # noqa: E731
            i: DefinitionFacts(private=i in private) for i in ids if records[i].symbol in names
        }
        result = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids}, limit=3,
                           max_per_file=None, defines=defines)
        return [c.id for c, _ in result.candidates[:3]]

    assert ranked("connect", set()) == ["helper", "api", "type"]
    assert ranked("connect", {"helper"}) == ["api", "helper", "type"]
    # Privacy orders only within a tier: a qualified match stays first.
    assert ranked("Protocol.connect", {"helper"})[:2] == ["api", "helper"]
    assert ranked("Protocol.connect", {"api"})[:2] == ["helper", "api"]


def test_deprecated_and_crate_visible_definitions_follow_public_ones() -> None:
    scored = [
        (Candidate("moved", "src/chain.rs", "Chain", kind="struct"), 0.9),
        (Candidate("private", "src/imp.rs", "Chain", kind="struct"), 0.7),
        (Candidate("public", "src/lib.rs", "Chain", kind="struct"), 0.5),
    ]
    records = {c.id: c for c, _ in scored}
    hits = {KEYWORD: [(c.id, score) for c, score in scored]}

    def ranked(facts: dict[str, DefinitionFacts]) -> list[str]:
        defines = lambda ids, names: {i: facts.get(i, DefinitionFacts()) for i in ids}  # noqa: E731
        result = rank_hits("Chain", hits, lambda ids: {i: records[i] for i in ids}, limit=3,
                           max_per_file=None, defines=defines)
        return [c.id for c, _ in result.candidates[:3]]

    assert ranked({}) == ["moved", "private", "public"]
    private = DefinitionFacts(private=True)
    crate = DefinitionFacts(restricted=True)
    old = DefinitionFacts(deprecated=True)
    # pub before pub(crate) before private, whatever the scores.
    assert ranked({"moved": crate, "private": private}) == ["public", "moved", "private"]
    assert ranked({"moved": old, "private": crate}) == ["public", "private", "moved"]
    assert ranked({"moved": old, "private": private}) == ["public", "moved", "private"]


def test_a_name_no_arm_finds_ranks_nothing() -> None:
    # Definitions first reads every candidate of a one-name query: there may be none.
    for query in ("App", "how is the app started"):
        assert rank_hits(query, {KEYWORD: [], SEMANTIC: []}, lambda ids: {}, limit=10).candidates == []


# The primary definition of a name defined more than once


def _primary(query: str, scored: list[tuple[Candidate, float]],
             facts: dict[str, DefinitionFacts] | None = None) -> list[str]:
    records = {c.id: c for c, _ in scored}
    hits = {KEYWORD: [(c.id, score) for c, score in scored]}
    defines = lambda ids, names: {  # noqa: E731
        i: (facts or {}).get(i, DefinitionFacts()) for i in ids if records[i].symbol in names
    }
    result = rank_hits(query, hits, lambda ids: {i: records[i] for i in ids}, limit=len(scored),
                       max_per_file=None, defines=defines)
    return [c.id for c, _ in result.candidates]


def test_a_partial_class_is_found_in_the_file_named_after_it() -> None:
    scored = [
        (Candidate("settings", "src/Store.Settings.cs", "Store", fqn="Shop.Store", kind="class"), 0.9),
        (Candidate("cache", "src/Store.Cache.cs", "Store", fqn="Shop.Store", kind="class"), 0.8),
        (Candidate("main", "src/Store.cs", "Store", fqn="Shop.Store", kind="class"), 0.3),
    ]
    assert _primary("Store", scored)[0] == "main"


def test_the_shortest_qualified_name_and_a_body_come_first() -> None:
    scored = [
        (Candidate("deep", "lib/http/auth/basic/client.rb", "Client",
                   fqn="Http.Auth.Basic.Client", kind="class"), 0.9),
        (Candidate("top", "lib/http/client.rb", "Client", fqn="Http.Client", kind="class"), 0.5),
    ]
    assert _primary("Client", scored) == ["top", "deep"]
    # A one-line reopening in another file named like it, or a forward declaration, follows
    # the definition with a body.
    scored = [
        (Candidate("reopened", "lib/engine.rb", "Engine", fqn="Engine", kind="class"), 0.9),
        (Candidate("body", "lib/core/engine.rb", "Engine", fqn="Engine", kind="class"), 0.4),
    ]
    stub = {"reopened": DefinitionFacts(stub=True)}
    assert _primary("Engine", scored, stub) == ["body", "reopened"]


class _Declarations:
    """A definition source over fixed `(id, language, symbol, header, code)` rows."""

    def __init__(
        self, rows: list[tuple[str, str, str, str, str]], imports: Sequence[ReferenceRow] = ()
    ) -> None:
        self.rows = rows
        self.imports = list(imports)

    def references_of_paths(
        self, paths: Sequence[str], kinds: Sequence[str] = ()
    ) -> list[ReferenceRow]:
        return [r for r in self.imports if r.path in paths and (not kinds or r.kind in kinds)]

    def definitions_among(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> list[tuple[str, str, str, str, str]]:
        return [row for row in self.rows if row[0] in chunk_ids and row[2] in names]

    def definition_lines(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        return {}  # each chunk's own lines stand for its definition

    def module_preambles(self, paths: Iterable[str]) -> dict[str, str]:
        return {}

    def definitions_named(self, names: Sequence[str]) -> list[DefinitionRow]:
        """Whole definitions: a part (`#part2`) counts by its first part."""
        return [
            DefinitionRow(row[0], *_place(row[0], row[2]), 1, 1, row[1])
            for row in self.rows
            if row[2] in names and "#part" not in row[0]
        ]


def _place(chunk_id: str, symbol: str) -> tuple[str, str, str, str]:
    """Path, kind, symbol and qualified name of a fake definition: `path::fqn` ids say their
    own; other ids have no path, and the symbol for a qualified name."""
    path, _, fqn = chunk_id.partition("::")
    return (path, "", symbol, fqn) if fqn else ("", "", symbol, symbol)


def test_the_part_that_declares_a_name_comes_before_its_cut_off_doc_comment() -> None:
    # A trait with a long doc comment: the chunker cut the comment into a part of its own.
    doc = "/// Provides the `context` method.\n///\n/// ```\n/// use anyhow::Context;\n/// ```\n"
    body = "pub trait Context<T, E> {\n    fn context(self) -> T;\n    fn with(self) -> T;\n}\n"
    facts = definition_finder(_Declarations([
        ("doc", "rust", "Context", "", doc), ("trait", "rust", "Context", "", body),
    ]))(["doc", "trait"], ["Context"])
    assert facts["doc"].undeclared and not facts["trait"].undeclared
    scored = [
        (Candidate("doc", "src/lib.rs", "Context", fqn="Context", kind="trait",
                   start_line=470, end_line=579), 0.9),
        (Candidate("trait", "src/lib.rs", "Context", fqn="Context", kind="trait",
                   start_line=580, end_line=628), 0.8),
    ]
    assert _primary("Context", scored, facts) == ["trait", "doc"]
    assert _primary("Context", scored) == ["doc", "trait"]  # the larger part, without facts


def test_the_part_with_the_declaration_comes_before_the_part_whose_examples_call_it() -> None:
    # A long `@doc` heredoc the chunker cut in two: the first part only calls `start_link` in
    # its examples; the second ends the heredoc and declares it.
    examples = "Starts a pool.\n\n    {:ok, pid} = Postgrex.start_link(opts)\n\n" * 20
    declaring = (
        '  Then:\n    Postgrex.start_link(opts)\n"""\ndef start_link(opts) do\n  go(opts)\nend\n'
    )
    facts = definition_finder(_Declarations([
        ("examples", "elixir", "start_link", "", examples),
        ("declaring", "elixir", "start_link", "", declaring),
    ]))(["examples", "declaring"], ["start_link"])
    assert facts["declaring"].keyword_declared and not facts["examples"].keyword_declared
    assert not facts["examples"].undeclared  # it does name it: only the keyword tells
    scored = [
        (Candidate("examples", "lib/postgrex.ex", "start_link", fqn="Postgrex.start_link",
                   start_line=145, end_line=216), 0.9),
        (Candidate("declaring", "lib/postgrex.ex", "start_link", fqn="Postgrex.start_link",
                   start_line=218, end_line=252), 0.8),
    ]
    assert _primary("start_link", scored, facts) == ["declaring", "examples"]
    assert _primary("start_link", scored) == ["examples", "declaring"]  # the larger, without facts


def test_a_whole_definition_the_arms_missed_joins_the_candidates() -> None:
    # A long C++ class cut into parts: later parts name `App` more often than the one that
    # declares it, so the arms return them and not the declaration.
    head = "/// Creates a program.\nclass App {\n  protected:\n    std::string name_;\n"
    later = "    App *needs(App *app);\n    bool got_subcommand(const App *subcom) const;\n"
    rows = [
        ("App.hpp::CLI.App::class", "cpp", "App", "", head),
        ("App.hpp::CLI.App::class#part2", "cpp", "App", "", later),
        ("App.hpp::CLI.App::class#part3", "cpp", "App", "", later),
    ]
    defines = definition_finder(_Declarations(rows))
    facts = defines(["App.hpp::CLI.App::class#part2", "App.hpp::CLI.App::class#part3"], ["App"])
    assert set(facts) == {row[0] for row in rows}  # the declaring part, though no arm had it
    assert facts["App.hpp::CLI.App::class"].keyword_declared
    assert not facts["App.hpp::CLI.App::class#part2"].keyword_declared  # `const App *`
    # A name with more definitions than that is common: the arms' candidates stand for it.
    many = [(f"f{n}.py::parse", "python", "parse", "", "def parse():\n    pass\n")
            for n in range(MISSED_DEFINITIONS + 1)]
    assert set(definition_finder(_Declarations(many))(["f0.py::parse"], ["parse"])) == {
        "f0.py::parse"
    }


def test_a_definition_the_arms_missed_is_ranked_with_the_others() -> None:
    records = {
        "head": Candidate("head", "include/App.hpp", "App", fqn="CLI.App", kind="class",
                          start_line=112, end_line=199),
        "part7": Candidate("part7", "include/App.hpp", "App", fqn="CLI.App", kind="class",
                           start_line=889, end_line=989),
        "user": Candidate("user", "src/main.cpp", "main", fqn="main", kind="function",
                          start_line=1, end_line=9),
    }

    def defines(ids: Sequence[str], names: Sequence[str]) -> dict[str, DefinitionFacts]:
        facts = {"part7": DefinitionFacts(), "head": DefinitionFacts(keyword_declared=True)}
        return {chunk_id: facts[chunk_id] for chunk_id in facts if "App" in names}

    ranking = rank_hits(
        "CLI::App", {KEYWORD: [("part7", 9.0), ("user", 8.0)]},
        lambda ids: {i: records[i] for i in ids if i in records}, defines=defines,
    )
    assert [chunk.id for chunk, _ in ranking.candidates] == ["head", "part7", "user"]


@pytest.mark.parametrize(("symbol", "code"), [
    ("parse", "pub(crate) fn parse(input: &str) {"),
    ("call", "def self.call(env)"),
    ("setup", "function M.setup(opts)"),
    ("Handle", "func (r *Router) Handle(w http.ResponseWriter) {"),
    ("Engine", "export default class Engine {"),
    ("size", "fun String.size(): Int ="),
    ("App", "export const App = () => {"),
    ("MAX", "pub const MAX: u32 = 5;"),
])
def test_definition_keywords_just_before_the_name(symbol: str, code: str) -> None:
    assert declared_with_keyword(symbol, code)


@pytest.mark.parametrize(("symbol", "code"), [
    ("start_link", "{:ok, pid} = Postgrex.start_link(opts)"),
    ("parse", "let tree = parse(input);"),
    ("Engine", "// class Engine\nreturn new Engine();"),
    ("App", "    bool got_subcommand(const App *subcom) const;"),
    ("App", "void run(const App &app);"),
])
def test_a_call_or_a_comment_declares_nothing(symbol: str, code: str) -> None:
    assert not declared_with_keyword(symbol, code)


def test_a_stub_is_a_forward_declaration_prototype_or_reopening() -> None:
    assert declared_stub("parser", "struct parser;\n")
    assert declared_stub("jv_parse", "/* Parses. */\njv jv_parse(const char *s);\n")
    assert declared_stub("Engine", "class Engine\n  include Plugins\nend\n")
    assert not declared_stub("Engine", "class Engine\n  def a; end\n  def b; end\n  def c; end\nend\n")
    assert not declared_stub("parse", "int parse(char *s) {\n  if (!s)\n    return 0;\n  return s[0];\n}\n")
    assert not declared_stub("missing", "def other():\n    pass\n")


def test_a_module_the_chunker_split_is_found_by_its_qualified_name() -> None:
    # The lines of a long module between its methods come as parts with no symbol.
    scored = [
        (Candidate("method", "lib/sidekiq/job.rb", "logger", fqn="Sidekiq.Job.logger"), 0.9),
        (Candidate("user", "lib/sidekiq/job_logger.rb", "JobLogger", fqn="Sidekiq.JobLogger",
                   kind="class"), 0.8),
        (Candidate("part", "lib/sidekiq/job.rb", "", fqn="Sidekiq.Job", kind="module",
                   start_line=160, end_line=163), 0.2),
        (Candidate("code", "lib/sidekiq/job.rb", "", fqn="", kind="module"), 0.1),
    ]
    assert _primary("Sidekiq::Job", scored)[0] == "part"
    assert _primary("Job", scored)[0] == "part"


def test_a_short_type_stands_in_only_where_types_are_declared_forward_or_reopened() -> None:
    from sharc.ranking.visibility import stands_in

    assert stands_in("c", "parser", "struct parser;\n")
    assert stands_in("ruby", "Engine", "class Engine\n  include Plugins\nend\n")
    # A short function hands on to the one with the body, in any language.
    assert stands_in("go", "Get", "func Get(key string) any { return v.Get(key) }\n")
    # Where nothing declares a type forward, a short type is the whole of it.
    assert not stands_in("haskell", "ByteString", "data ByteString = BS !(ForeignPtr Word8)\n  !Int\n")
    assert not stands_in("rust", "Unit", "pub struct Unit;\n")


def test_of_two_definitions_of_a_name_the_one_the_other_imports_is_built_upon() -> None:
    strict = "Data/ByteString/Internal/Type.hs::ByteString"
    lazy = "Data/ByteString/Lazy/Internal.hs::ByteString"
    other = "Data/ByteString/Short/Internal.hs::ShortByteString"
    rows = [
        (strict, "haskell", "ByteString", "", "data ByteString = BS !(ForeignPtr Word8) !Int\n"),
        (lazy, "haskell", "ByteString", "", "data ByteString\n  = Empty\n  | Chunk !S.ByteString ByteString\n"),
        (other, "haskell", "ShortByteString", "", "data ShortByteString = SBS ByteArray#\n"),
    ]
    imports = [
        ReferenceRow("Data/ByteString/Lazy/Internal.hs", lazy, "Type", "import", 3,
                     "Data.ByteString.Internal"),
        ReferenceRow("Data/ByteString/Lazy/Internal.hs", lazy, "Internal", "import", 4,
                     "Data.ByteString.Short"),  # not a definition of the name asked
        ReferenceRow("Data/ByteString/Internal/Type.hs", strict, "Word", "import", 5, "Data"),
    ]
    facts = definition_finder(_Declarations(rows, imports))(
        [strict, lazy, other], ["ByteString", "ShortByteString"], missed=False
    )
    assert facts[strict].built_upon and not facts[lazy].built_upon
    assert not facts[other].built_upon  # defined once: nothing to tell apart
    assert not facts[strict].stub  # a short type is whole where nothing declares it forward


def test_a_mixin_or_base_named_with_its_qualifier_is_built_upon() -> None:
    support = "activesupport/lib/active_support/callbacks.rb::ActiveSupport.Callbacks"
    model = "activemodel/lib/active_model/callbacks.rb::ActiveModel.Callbacks"
    record = "activerecord/lib/active_record/callbacks.rb::ActiveRecord.Callbacks"
    body = "module Callbacks\n  def run_callbacks(kind)\n    yield\n  end\nend\n"
    rows = [(chunk_id, "ruby", "Callbacks", "", body) for chunk_id in (support, model, record)]
    bases = [
        ReferenceRow(model.split("::")[0], model, "Callbacks", "inherit", 68, "ActiveSupport"),
        ReferenceRow(record.split("::")[0], record, "Callbacks", "inherit", 305, "ActiveModel"),
        # A bare mixin names no definition surely enough.
        ReferenceRow(support.split("::")[0], support, "Callbacks", "inherit", 9, ""),
    ]
    facts = definition_finder(_Declarations(rows, bases))(
        [support, model, record], ["Callbacks"], missed=False
    )
    assert facts[support].built_upon and facts[model].built_upon
    assert not facts[record].built_upon

    from sharc.ranking.built_upon import inherited

    # Python's `class Callbacks(base.Callbacks)`: the module's path names the definition.
    pairs = [("pkg/base.py", "Callbacks"), ("pkg/hooks.py", "Callbacks")]
    base = ReferenceRow("pkg/hooks.py", "pkg/hooks.py::Callbacks", "Callbacks", "inherit", 3,
                        "base")
    assert inherited(pairs, [base]) == {"pkg/base.py"}
    # Made in a file that defines no such name, a base tells nothing of these definitions.
    elsewhere = base._replace(path="pkg/other.py")
    assert inherited(pairs, [elsewhere]) == set()


def test_an_import_names_the_file_whose_path_ends_with_its_module_path() -> None:
    from sharc.ranking.built_upon import built_upon, file_segments, module_segments

    assert module_segments("Internal", "Data.ByteString") == ("Data", "ByteString", "Internal")
    assert module_segments("Error", "crate::error") == ("error", "Error")
    assert module_segments("errors", "./lib") == ("lib", "errors")
    assert file_segments("src/lib/errors.ts") == ("src", "lib", "errors")
    paths = {"src/lib/errors.ts", "src/app/errors.ts", "src/app/main.ts"}
    row = ReferenceRow("src/app/errors.ts", "x", "errors", "import", 1, "../lib")
    assert built_upon(paths, [row]) == {"src/lib/errors.ts"}
    bare = ReferenceRow("src/app/errors.ts", "x", "errors", "import", 1, "")
    assert built_upon(paths, [bare]) == set()  # one segment names no file surely enough


def test_a_python_module_named_with_one_underscore_is_private_to_its_package() -> None:
    from sharc.ranking.modules import declares_only, in_private_module

    assert declares_only("src/attr/__init__.pyi") and declares_only("types/index.d.ts")
    assert declares_only("lib/index.d.mts")
    assert not declares_only("src/attr/__init__.py") and not declares_only("src/odd.ts")

    assert in_private_module("_pyio.py")
    assert in_private_module("tomllib/_parser.py")
    assert in_private_module("src/_vendor/six.py")  # a private package
    assert not in_private_module("json/__init__.py")
    assert not in_private_module("pkg/__main__.py")
    assert not in_private_module("io.py")
    assert not in_private_module("src/my_lib/parser_.py")


@pytest.mark.parametrize("code", [
    "import warnings\n\nwarnings._deprecated(__name__, remove=(3, 13))\n",
    "from warnings import _deprecated\n\n_deprecated(__name__, _MESSAGE, remove=(3, 12))\n",
    "import warnings\nwarnings.warn(_DEPRECATION_MESSAGE,\n              DeprecationWarning, 2)\n",
    "from warnings import warn\nwarn('use json instead', category=PendingDeprecationWarning)\n",
])
def test_a_module_that_warns_on_import_that_it_is_deprecated(code: str) -> None:
    from sharc.ranking.modules import warns_deprecated

    assert warns_deprecated(code)


@pytest.mark.parametrize("code", [
    # Another warning, a conditional one, one inside a function, and a mention in text.
    "import warnings\nwarnings.warn('slow path', RuntimeWarning)\nX = DeprecationWarning\n",
    "if sys.platform == 'win32':\n    warnings.warn('old', DeprecationWarning)\n",
    "def load():\n    warnings.warn('load is deprecated', DeprecationWarning)\n",
    "# warnings.warn(..., DeprecationWarning) is what callers see\nimport warnings\n",
    "import warnings\nwarnings.warn('x')\nfilterwarnings('ignore', category=DeprecationWarning)\n",
])
def test_a_module_that_only_mentions_a_deprecation_is_not_deprecated(code: str) -> None:
    from sharc.ranking.modules import warns_deprecated

    assert not warns_deprecated(code)


def test_a_definition_in_a_deprecated_package_or_private_module_follows_the_public_one() -> None:
    class Library(_Declarations):
        def module_preambles(self, paths: Iterable[str]) -> dict[str, str]:
            code = {"legacy/__init__.py": "import warnings\nwarnings.warn('gone', "
                                          "DeprecationWarning)\n",
                    "text.py": "import re\n"}
            return {path: code[path] for path in paths if path in code}

        def definition_lines(self, chunk_ids: Sequence[str]) -> dict[str, int]:
            return {"legacy/dist.py::Distribution": 1400}

    rows = [(f"{path}::{name}", "python", name, "", f"class {name}:\n    pass\n")
            for path, name in [("legacy/dist.py", "Distribution"), ("meta.py", "Distribution"),
                               ("_pyio.py", "IOBase"), ("io.py", "IOBase"),
                               ("text.py", "Template")]]
    facts = definition_finder(Library(rows))([row[0] for row in rows],
                                             ["Distribution", "IOBase", "Template"])
    assert facts["legacy/dist.py::Distribution"].deprecated
    assert facts["legacy/dist.py::Distribution"].lines == 1400
    assert not facts["meta.py::Distribution"].deprecated
    assert facts["_pyio.py::IOBase"].internal and not facts["io.py::IOBase"].internal
    assert not facts["_pyio.py::IOBase"].restricted  # no demotion: after a body, see below
    assert not facts["text.py::Template"].deprecated
    # A name only a private module implements (a public stub declares it) is not internal:
    # against another project's or language's definition of it, nothing says it is less meant.
    rows = [("attr/_next_gen.py::define", "python", "define", "", "def define(cls):\n"
             "    return cls\n"),
            ("attr/__init__.pyi::define", "python", "define", "", "def define(cls): ...\n"),
            ("lib/types.ex::Types.define", "elixir", "define", "", "def define(m) do\n  m\nend\n")]
    facts = definition_finder(Library(rows))([row[0] for row in rows], ["define"])
    assert not facts["attr/_next_gen.py::define"].internal
    assert facts["attr/__init__.pyi::define"].stub


def test_a_cpp_primary_template_comes_before_its_specialisations() -> None:
    # The specialisations say `packet_traits` more often: BM25 prefers them.
    primary = ("Core/GenericPacketMath.h::packet_traits", "cpp", "packet_traits", "",
               "template<typename T> struct packet_traits : default_packet_traits\n{\n};\n")
    special = [(f"Core/arch/{arch}/PacketMath.h::packet_traits", "cpp", "packet_traits", "",
                "template<> struct packet_traits<float> : default_packet_traits\n{\n};\n")
               for arch in ("AVX", "SSE")]
    rows = [*special, primary]
    facts = definition_finder(_Declarations(rows))([row[0] for row in rows], ["packet_traits"])
    assert [facts[row[0]].specialisation for row in rows] == [True, True, False]
    scored = [(Candidate(row[0], row[0].split("::")[0], "packet_traits", fqn="packet_traits",
                         kind="struct", language="cpp"), score)
              for row, score in zip(rows, (0.9, 0.8, 0.4))]
    assert _primary("packet_traits", scored, facts)[0] == primary[0]


def test_a_cpp_template_only_declared_comes_before_its_many_specialisations() -> None:
    # Eigen declares `traits` once and specialises it in more headers than make a name
    # common: the arms return specialisations, and the declaration must still join them.
    declared = ("util/ForwardDeclarations.h::traits", "cpp", "traits", "",
                "template<typename T> struct traits;\n")
    special = [(f"Core/Expr{n}.h::traits", "cpp", "traits", "",
                f"template<typename T> struct traits<Expr{n}<T> >\n{{\n  typedef T Scalar;\n}};\n")
               for n in range(MISSED_DEFINITIONS + 10)]
    rows = [*special, declared]
    defines = definition_finder(_Declarations(rows))
    facts = defines([special[0][0], special[1][0]], ["traits"])
    assert set(facts) == {special[0][0], special[1][0], declared[0]}
    assert facts[declared[0]].stub and not facts[declared[0]].specialisation
    assert facts[special[0][0]].specialisation and not facts[special[0][0]].stub
    scored = [(Candidate(row[0], row[0].split("::")[0], "traits", fqn="Eigen.internal.traits",
                         kind="struct", language="cpp"), score)
              for row, score in ((special[0], 0.9), (special[1], 0.8), (declared, 0.1))]
    assert _primary("Eigen::internal::traits", scored, facts)[0] == declared[0]
    # A body still comes before a declaration where neither is a specialisation.
    plain = {row[0]: DefinitionFacts(stub=row is declared) for row, _ in
             [(declared, 0), (special[0], 0)]}
    assert _primary("traits", scored[::2], plain) == [special[0][0], declared[0]]


def test_a_name_defined_too_often_to_read_is_left_to_the_arms() -> None:
    from sharc.ranking.visibility import SPECIALISED_READ

    # Specialised in more headers than are read, or defined more often than that without
    # being a template: no definition the arms missed is added.
    special = [(f"h{n}.h::traits", "cpp", "traits", "",
                f"template<> struct traits<T{n}> {{}};\n") for n in range(SPECIALISED_READ)]
    declared = ("fwd.h::traits", "cpp", "traits", "", "template<typename T> struct traits;\n")
    found = definition_finder(_Declarations([*special, declared]))(["h0.h::traits"], ["traits"])
    assert set(found) == {"h0.h::traits"}
    overloads = [(f"o{n}.h::swap", "cpp", "swap", "", f"void swap(T{n}& a, T{n}& b) {{}}\n")
                 for n in range(MISSED_DEFINITIONS + 1)]
    found = definition_finder(_Declarations(overloads))(["o0.h::swap"], ["swap"])
    assert set(found) == {"o0.h::swap"}


def test_a_cpp_function_of_one_file_alone_follows_the_one_every_file_sees() -> None:
    # Eigen's generic `pload` against a larger overload for one GPU type in an unnamed
    # namespace, and a C helper declared `static` against the library's function.
    generic = ("Core/GenericPacketMath.h::Eigen.internal.pload", "cpp", "pload",
               "// Context: namespace internal > namespace Eigen (Core/GenericPacketMath.h)\n",
               "template<typename Packet> inline Packet\npload(const Scalar* from) "
               "{ return *from; }\n")
    gpu = ("Core/arch/GPU/PacketMath.h::Eigen.internal.pload#3", "cpp", "pload",
           "// Context: namespace > namespace internal > namespace Eigen (GPU/PacketMath.h)\n",
           "namespace {\n\nhalf2 pload(const half* from) {\n  return *reinterpret_cast<const"
           " half2*>(from);\n}\n\n}\n")
    helper = ("src/tool.c::print_value", "c", "print_value", "// Context: module tool (tool.c)\n",
              "static void print_value(const item *value)\n{\n  puts(value->text);\n"
              "  puts(\"\\n\");\n}\n")
    library = ("src/lib.c::print_value", "c", "print_value", "// Context: module lib (lib.c)\n",
               "bool print_value(const item *value)\n{\n  return emit(value);\n}\n")
    rows = [gpu, generic, helper, library]
    facts = definition_finder(_Declarations(rows))([row[0] for row in rows],
                                                   ["pload", "print_value"])
    assert facts[gpu[0]].private and facts[helper[0]].private
    assert not facts[generic[0]].private and not facts[library[0]].private

    def scored(*found: tuple[str, str, str, str, str]) -> list[tuple[Candidate, float]]:
        return [(Candidate(row[0], row[0].split("::")[0], row[2], fqn=row[2], kind="function",
                           language=row[1], start_line=1, end_line=row[4].count("\n")), score)
                for row, score in zip(found, (0.9, 0.5))]

    assert _primary("pload", scored(gpu, generic), facts)[0] == generic[0]
    assert _primary("print_value", scored(helper, library), facts)[0] == library[0]
    assert _primary("pload", scored(gpu, generic))[0] == gpu[0]  # without facts, the larger


def test_a_definition_kept_to_its_module_follows_the_public_one() -> None:
    # Kotlin's `internal`, and a Go `internal` package: visible only inside the module.
    rows = [
        ("okio/internal/Buffer.kt::commonWrite", "kotlin", "commonWrite", "",
         "internal fun commonWrite(source: ByteArray): Buffer {\n  return this\n  // ...\n}\n"),
        ("okio/Buffer.kt::commonWrite", "kotlin", "commonWrite", "",
         "fun commonWrite(source: ByteArray): Buffer = write(source)\n"),
        ("internal/decode/decode.go::Decode", "go", "Decode", "",
         "func Decode(input []byte) (Value, error) {\n\treturn parse(input)\n\t// ...\n}\n"),
        ("decode.go::Decode", "go", "Decode", "",
         "func Decode(input []byte) (Value, error) {\n\treturn decode.Decode(input)\n}\n"),
    ]
    facts = definition_finder(_Declarations(rows))([row[0] for row in rows],
                                                   ["commonWrite", "Decode"])
    assert [facts[row[0]].restricted for row in rows] == [True, False, True, False]
    for internal, public in (rows[:2], rows[2:]):
        scored = [(Candidate(row[0], row[0].split("::")[0], row[2], fqn=row[2],
                             kind="function", language=row[1], start_line=1,
                             end_line=row[4].count("\n")), score)
                  for row, score in ((internal, 0.9), (public, 0.5))]
        assert _primary(public[2], scored, facts)[0] == public[0]
        assert _primary(public[2], scored)[0] == internal[0]  # without facts, the larger
