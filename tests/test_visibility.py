"""Definitions declared private, read from their declaration line."""

from __future__ import annotations

import pytest
from sharc.ranking.query import QueryIntent
from sharc.ranking.visibility import (
    class_level,
    declared_deprecated,
    declared_private,
    declared_restricted,
    rust_reach,
)

PRIVATE = [
    ("elixir", "connect", "@doc false\ndefp connect(host, port) do\n  :ok\nend"),
    ("elixir", "status", "defmacrop status(opts) do\nend"),
    ("rust", "parse", "/// Parses it; see `parse`.\nfn parse(input: &str) -> u8 {\n}"),
    ("zig", "init", "fn init(self: *Self) void {}"),
    ("java", "run", "  // run() is called once\n  private void run() {\n  }"),
    ("kotlin", "load", "@JvmStatic\nprivate fun load(): Int = 1"),
    ("swift", "reset", "fileprivate func reset() {}"),
    ("lua", "helper", "local function helper(x)\n  return x\nend"),
    ("typescript", "flush", "  private async flush(): Promise<void> {}"),
]
PUBLIC = [
    ("elixir", "connect", "@impl true\ndef connect(opts) do\n  # defp connect below\nend"),
    ("rust", "parse", "#[inline]\npub fn parse(input: &str) -> u8 {}"),
    ("rust", "parse", "pub(crate) fn parse(input: &str) -> u8 {}"),
    ("zig", "init", "pub fn init(self: *Self) void {}"),
    ("java", "run", "public void run() { private_helper(); }"),
    ("python", "_private", "def _private(self):\n    pass"),  # the name says it, not the line
    ("go", "parse", "func parse(s string) int {"),  # Go's case gives another name
    ("ruby", "push", "def push(item)\n  raw_push(item)\nend"),
    ("c", "run", "int run(void);"),
    ("rust", "fmt", ""),  # no line names it: nothing to judge
]


@pytest.mark.parametrize(("language", "symbol", "code"), PRIVATE)
def test_private_declarations(language: str, symbol: str, code: str) -> None:
    assert declared_private(language, symbol, code)


@pytest.mark.parametrize(("language", "symbol", "code"), PUBLIC)
def test_public_or_unknown_declarations(language: str, symbol: str, code: str) -> None:
    assert not declared_private(language, symbol, code)


@pytest.mark.parametrize(
    ("header", "code", "expected"),
    [
        ("# Context: class Client (c.rb)\n", "def self.push(item)\n  new.push(item)\nend", True),
        ("# Context: class << self > class Client (c.rb)\n", "def push(item)\nend", True),
        ("# Context: class Client (c.rb)\n", "# push it\ndef push(item)\nend", False),
    ],
)
def test_ruby_class_methods(header: str, code: str, expected: bool) -> None:
    assert class_level("ruby", "push", header, code) is expected
    assert class_level("python", "push", header, code) is False


@pytest.mark.parametrize(
    ("query", "instance"),
    [
        ("Sidekiq::Client#push", True),
        ("Client#valid?", True),
        ("Client.push", False),
        ("Sidekiq::Client", False),
        ("#push", False),
    ],
)
def test_a_hash_before_the_last_part_names_an_instance_method(query: str, instance: bool) -> None:
    assert QueryIntent.of(query).instance_member is instance


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("pub(crate) struct Chain<'a> {\n}", True),
        ("pub(super) fn parse(input: &str) {}", True),
        ("pub(in crate::de) fn parse(input: &str) {}", True),
        ("pub struct Chain<'a> {\n    state: crate::chain::ChainState<'a>,\n}", False),
        ("fn parse(input: &str) {}", False),  # private, not restricted
    ],
)
def test_rust_visibility_within_the_crate_is_restricted(code: str, expected: bool) -> None:
    symbol = "Chain" if "Chain" in code else "parse"
    assert declared_restricted("rust", symbol, code) is expected
    assert declared_restricted("go", symbol, code) is False


@pytest.mark.parametrize(
    ("chunk_id", "header", "declared", "expected"),
    [
        # Private at the crate's root: the whole crate sees it, as `pub(crate)`.
        ("src/lib.rs::StdError::class", "// Context: trait StdError (src/lib.rs)\n",
         "private", "restricted"),
        ("src/main.rs::run", "", "private", "restricted"),
        ("crates/cli/src/bin/sharc-index.rs::run", "", "private", "restricted"),
        ("src/bin/tools/helpers.rs::run", "", "private", "private"),
        ("src/error.rs::render", "", "private", "private"),
        ("src/lib.rs::tests.helper", "// Context: mod tests (src/lib.rs)\n", "private", "private"),
        # `pub` inside a private inline module: the module around it sees it.
        ("src/context.rs::ext.StdError::class",
         "// Context: trait StdError > mod ext (src/context.rs)\n", "public", "private"),
        ("src/lib.rs::ext.StdError::class",
         "// Context: trait StdError > mod ext (src/lib.rs)\n", "public", "restricted"),
        ("src/lib.rs::outer.inner.f",
         "// Context: mod inner > pub mod outer (src/lib.rs)\n", "public", "private"),
        ("src/lib.rs::outer.inner.f",
         "// Context: pub mod inner > mod outer (src/lib.rs)\n", "public", "restricted"),
        # Public modules keep a `pub` item public; a `pub(crate)` one narrows it to the crate.
        ("src/lib.rs::api.open", "// Context: pub mod api (src/lib.rs)\n", "public", "public"),
        ("src/io.rs::shared.close",
         "// Context: pub(crate) mod shared #[cfg(unix)] (src/io.rs)\n", "public", "restricted"),
        ("src/io.rs::Reader.read", "// Context: impl Reader (src/io.rs)\n", "public", "public"),
        ("src/io.rs::Reader.read", "// Context: impl Reader (src/io.rs)\n", "restricted",
         "restricted"),
    ],
)
def test_rust_reach_reads_the_modules_around_a_definition(
    chunk_id: str, header: str, declared: str, expected: str
) -> None:
    reach = rust_reach(chunk_id, header, declared == "private", declared == "restricted")
    assert reach == (expected == "private", expected == "restricted")


DEPRECATED = [
    (
        "KotlinJsonAdapterFactory",
        '@Deprecated(\n  message = "moved",\n  replaceWith = ReplaceWith("a.b.KotlinJsonAdapterFactory"),'
        "\n)\npublic class KotlinJsonAdapterFactory : JsonAdapter.Factory",
    ),
    ("parse", '#[deprecated(since = "1.2", note = "use read")]\npub fn parse() {}'),
    ("Parse", "// Parse reads it.\n//\n// Deprecated: use Read.\nfunc Parse() {}"),
    ("fetch", "/**\n * Fetches it.\n * @deprecated use get\n */\nexport function fetch() {}"),
    ("Run", '[Obsolete("use RunAsync")]\npublic void Run() {}'),
    ("run", '@available(*, deprecated, message: "use start")\nfunc run() {}'),
    ("old", "[[deprecated]] int old(void);"),
]
NOT_DEPRECATED = [
    ("parse", "pub fn parse() {\n    // the deprecated form is gone\n}"),
    ("fetch", "export function fetch() {\n  warn('@deprecated below');\n}"),
    ("Run", "public void Run() {}\n[Obsolete]\npublic void Stop() {}"),
]


@pytest.mark.parametrize(("symbol", "code"), DEPRECATED)
def test_deprecation_markers_above_a_declaration(symbol: str, code: str) -> None:
    assert declared_deprecated(symbol, code)


@pytest.mark.parametrize(("symbol", "code"), NOT_DEPRECATED)
def test_markers_below_the_declaration_do_not_count(symbol: str, code: str) -> None:
    assert not declared_deprecated(symbol, code)


@pytest.mark.parametrize(("symbol", "code"), [
    ("packet_traits", "template<> struct packet_traits<float> : default_packet_traits\n{\n};"),
    ("traits", "template<typename Lhs, typename Rhs>\nstruct traits<Product<Lhs, Rhs> >\n{\n};"),
    ("pload", "template<> EIGEN_STRONG_INLINE Packet4f pload<Packet4f>(const float* from) {}"),
    ("Matrix", "/** A matrix. \\sa Matrix */\nclass Matrix <_Scalar, 1, 1> {};"),
])
def test_a_cpp_specialisation_names_template_arguments_where_it_is_declared(
    symbol: str, code: str
) -> None:
    from sharc.ranking.visibility import specialises

    assert specialises("cpp", symbol, code)
    assert not specialises("python", symbol, code)  # no templates to specialise


@pytest.mark.parametrize(("symbol", "code"), [
    ("packet_traits", "template<typename T> struct packet_traits : default_packet_traits\n{};"),
    # Its own name as a base's argument, after the declaration.
    ("Matrix", "template<typename S>\nclass Matrix : public PlainObjectBase<Matrix<S> >\n{};"),
    ("pload", "template<typename Packet> EIGEN_DEVICE_FUNC inline Packet\n"
              "pload(const typename unpacket_traits<Packet>::type* from) { return *from; }"),
    ("traits", "// traits<Matrix> is specialised below\ntemplate<typename T> struct traits;"),
])
def test_a_cpp_primary_template_is_no_specialisation(symbol: str, code: str) -> None:
    from sharc.ranking.visibility import specialises

    assert not specialises("cpp", symbol, code)


@pytest.mark.parametrize(("language", "header", "code"), [
    # A function of one C file, and one in C++'s unnamed namespace (the chunker's scope).
    ("c", "// Context: module cJSON (cJSON.c)\n", "static cJSON_bool parse_number(void)\n{\n}\n"),
    ("cpp", "// Context: namespace > namespace internal > namespace Eigen (GPU/PacketMath.h)\n",
     "EIGEN_STRONG_INLINE half2 parse_number(const half* from) {\n  return *from;\n}\n"),
])
def test_a_c_or_cpp_name_of_its_own_file_alone_is_private(
    language: str, header: str, code: str
) -> None:
    from sharc.ranking.visibility import internal_linkage

    assert internal_linkage(language, "parse_number", header, code)


@pytest.mark.parametrize(("language", "header", "code"), [
    # A static member of a class (visible wherever the class is), a named namespace, a
    # function without `static`, a `static_cast` in the declaring line, and another language.
    ("cpp", "// Context: class App > namespace CLI (App.hpp)\n",
     "static App *parse_number(int argc);\n"),
    ("cpp", "// Context: namespace detail > namespace CLI (App.hpp)\n",
     "inline int parse_number(const char *text) { return 0; }\n"),
    ("c", "// Context: module cJSON (cJSON.c)\n", "cJSON_bool parse_number(void)\n{\n}\n"),
    ("cpp", "// Context: namespace CLI (App.hpp)\n",
     "auto parse_number = static_cast<int (*)(const char *)>(atoi);\n"),
    ("java", "// Context: class Parser (Parser.java)\n", "static int parse_number() {}\n"),
])
def test_a_c_or_cpp_name_seen_beyond_its_file_is_not_private(
    language: str, header: str, code: str
) -> None:
    from sharc.ranking.visibility import internal_linkage

    assert not internal_linkage(language, "parse_number", header, code)


def test_a_block_comments_code_example_does_not_declare_the_name() -> None:
    from sharc.ranking.visibility import declared_with_keyword, specialises

    # Eigen's doc comment shows the class in use above the class itself, its lines without
    # a leading `*`; the primary template is the `class` line, no specialisation.
    code = (
        "/** \\class MatrixBase\n  * Base class:\n  * \\code\n"
        "    template<typename Derived>\n    void printFirstRow(const MatrixBase<Derived>& x)\n"
        "  * \\endcode\n  */\ntemplate<typename Derived> class MatrixBase\n  : public Dense\n{\n};\n"
    )
    assert not specialises("cpp", "MatrixBase", code)
    assert declared_with_keyword("MatrixBase", code)
    # A one-line block comment ends where it opens; the code after it counts.
    assert specialises("cpp", "traits", "/* the float one */\nstruct traits<float> {};\n")


@pytest.mark.parametrize(("language", "code"), [
    ("kotlin", "internal fun parse(source: String): Node {\n    return Node(source)\n}\n"),
    ("csharp", "internal static class parse\n{\n}\n"),
    ("rust", "pub(crate) fn parse(source: &str) -> Node {\n    Node::new(source)\n}\n"),
])
def test_a_declaration_kept_to_its_module_or_assembly_is_restricted(
    language: str, code: str
) -> None:
    from sharc.ranking.visibility import declared_restricted

    assert declared_restricted(language, "parse", code)


@pytest.mark.parametrize(("language", "code"), [
    ("kotlin", "fun parse(source: String) = internalParse(source)\n"),
    ("csharp", "protected internal virtual void parse() { }\n"),  # subclasses anywhere
    ("java", "/* internal */ public static Node parse(String s) { return null; }\n"),
    ("swift", "internal func parse() {}\n"),  # Swift's default: no marker tells
])
def test_a_declaration_seen_beyond_its_module_is_not_restricted(language: str, code: str) -> None:
    from sharc.ranking.visibility import declared_restricted

    assert not declared_restricted(language, "parse", code)


def test_a_go_internal_package_is_restricted() -> None:
    from sharc.ranking.visibility import in_internal_package

    assert in_internal_package("go", "pkg/internal/wire/decode.go")
    assert in_internal_package("go", "internal/decode.go")
    assert not in_internal_package("go", "pkg/wire/internal.go")  # a file so named
    assert not in_internal_package("java", "src/main/java/com/x/internal/Util.java")
