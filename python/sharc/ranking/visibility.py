"""What a definition's declaration says beyond its name, for the definitions-first stage to
order definitions of the same name: whether it is declared private (of two definitions of the
name a query asks for, the public one is more often the one meant: `def connect` over `defp
connect`, `pub fn parse` over `fn parse`), visible only within its crate (`pub(crate)`),
deprecated (a class kept for old callers over the one it moved to), and whether it is a Ruby
class method (`Client#push` asks for the instance method).

Only what the declaration says counts: a marker word before the name (`private`, `defp`, `local
function`...), Rust's `pub`, whose absence is private (crate-wide at the crate's root), and the
inline modules around it (`rust_reach`), and a deprecation marker above it.
Languages whose visibility is not on the line (Go's capital letters, Python's underscores give
another name; Ruby's `private` sections, Erlang's exports are elsewhere) are never judged
private.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple, Protocol

from sharc.ranking.built_upon import ImportRow, built_upon, inherited
from sharc.ranking.modules import declares_only, deprecated_modules, in_private_module

#: Words that, before a definition's name on its line, make it private to its file, module or
#: type.
PRIVATE_MARKERS = frozenset(
    {"private", "fileprivate", "defp", "defmacrop", "defguardp", "local", "private[this]"}
)
#: Languages where a definition without `pub` is private.
PUB_LANGUAGES = frozenset({"rust", "zig"})

_COMMENT_STARTS = (
    "#", "//", "--", "/*", "*", ";", "%", "(*", "{-", '"""', "'''", "@doc", "@moduledoc",
)


class NamedDefinition(Protocol):
    """A chunk that defines a name (`sharc.manifest.DefinitionRow`)."""

    @property
    def chunk_id(self) -> str: ...

    @property
    def language(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def symbol(self) -> str: ...

    @property
    def fqn(self) -> str: ...


class DefinitionSource(Protocol):
    """What a definition finder reads: the manifest (`sharc.manifest.Manifest`)."""

    def definitions_among(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> list[tuple[str, str, str, str, str]]: ...

    def definitions_named(self, names: Sequence[str]) -> Sequence[NamedDefinition]: ...

    def definition_lines(self, chunk_ids: Sequence[str]) -> dict[str, int]: ...

    def module_preambles(self, paths: Iterable[str]) -> dict[str, str]: ...

    def references_of_paths(
        self, paths: Sequence[str], kinds: Sequence[str] = ()
    ) -> Sequence[ImportRow]: ...


#: A name with more whole definitions than this is a common one (`parse`, `init`): the arms'
#: candidates stand for it, and no definition the arms missed is added. A C++ template's
#: specialisations do not count (`unspecialised`).
MISSED_DEFINITIONS = 50
#: Of a name with more definitions than `MISSED_DEFINITIONS`, up to this many are read for
#: the C++ template's specialisations among them (Eigen specialises `traits` in 113
#: headers and declares one primary template); a name with more is common whatever they are.
SPECIALISED_READ = 400


class DefinitionFacts(NamedTuple):
    """What the declaration of a definition says beyond its name."""

    #: Declared private (`declared_private`), or a C or C++ name of its own file alone
    #: (`internal_linkage`).
    private: bool = False
    #: A class method: Ruby's `def self.name`, or a method of a class's `class << self`.
    class_level: bool = False
    #: Visible only within part of its program: Rust's `pub(crate)`, `pub(super)`, `pub(in
    #: path)`, Kotlin's and C#'s `internal` (`declared_restricted`), a Go `internal` package
    #: (`in_internal_package`).
    restricted: bool = False
    #: Marked deprecated above or on its declaration (`declared_deprecated`), or in a module
    #: that warns it is deprecated when imported (`sharc.ranking.modules`).
    deprecated: bool = False
    #: No body to speak of: a forward declaration, a prototype, a type reopened for a line
    #: or two elsewhere, or a short function that hands on to another (`stands_in`).
    stub: bool = False
    #: Its code never names it outside comments: the doc comment of a definition that the
    #: chunker cut off from the declaration it documents.
    undeclared: bool = False
    #: A line of its code declares it with a definition keyword (`declared_with_keyword`):
    #: of the parts of a definition the chunker cut, the one with `def start_link`, not the
    #: one whose doc examples call `start_link(...)`.
    keyword_declared: bool = False
    #: Its file is imported by the file of another definition of the same name: the one the
    #: others build on (`sharc.ranking.built_upon`).
    built_upon: bool = False
    #: The lines the whole definition spans, every part the chunker cut it into counted
    #: (0: not read; its chunk's own lines stand for it).
    lines: int = 0
    #: In a Python module its package keeps to itself (`_pyio.py`, `tomllib/_parser.py`;
    #: `sharc.ranking.modules.in_private_module`): of two definitions with a body, the one in
    #: the public module comes first; a public module's stub (`__init__.pyi`) does not.
    internal: bool = False
    #: A C++ template's specialisation (`template<> struct packet_traits<float>`,
    #: `struct traits<Product<Lhs, Rhs>>`; `specialises`): the primary template comes first,
    #: even one only declared.
    specialisation: bool = False


def definition_finder(
    source: DefinitionSource,
) -> Callable[..., dict[str, DefinitionFacts]]:
    """The ranking's `DefinitionFinder` over a manifest: the candidates that define a name,
    each with its `DefinitionFacts`, and unless told not to (`missed=False`), the whole
    definitions of the name that are not among them (`missed_definitions`)."""

    def defines(
        chunk_ids: Sequence[str], names: Sequence[str], *, missed: bool = True
    ) -> dict[str, DefinitionFacts]:
        if missed:
            chunk_ids = [*chunk_ids, *missed_definitions(source, chunk_ids, names)]
        found = {}
        rows = source.definitions_among(chunk_ids, names)
        # What other chunks tell (a definition's parts, its module's top level) is read only
        # where it tells definitions apart.
        apart = _told_apart(rows)
        spans = source.definition_lines([row[0] for row in apart])
        retired = deprecated_modules(
            source, [_path_of(row[0]) for row in apart if row[1] == "python"]
        )
        for chunk_id, language, symbol, header, code in rows:
            private = declared_private(language, symbol, code) or internal_linkage(
                language, symbol, header, code
            )
            restricted = declared_restricted(language, symbol, code) or in_internal_package(
                language, _path_of(chunk_id)
            )
            if language == "rust":
                private, restricted = rust_reach(chunk_id, header, private, restricted)
            found[chunk_id] = DefinitionFacts(
                private=private,
                class_level=class_level(language, symbol, header, code),
                restricted=restricted,
                deprecated=declared_deprecated(symbol, code) or _path_of(chunk_id) in retired,
                stub=stands_in(language, symbol, code) or declares_only(_path_of(chunk_id)),
                undeclared=bool(symbol) and _declaring_line(symbol, code) is None,
                keyword_declared=bool(symbol) and declared_with_keyword(symbol, code),
                lines=spans.get(chunk_id, 0),
                internal=language == "python" and in_private_module(_path_of(chunk_id)),
                specialisation=specialises(language, symbol, code),
            )
        return _with_foundations(source, _internal_beside_public(found, apart), apart)

    return defines


def _told_apart(
    rows: Sequence[tuple[str, str, str, str, str]],
) -> list[tuple[str, str, str, str, str]]:
    """The rows (`definitions_among`) of symbols defined in several files, but not in more
    than `MISSED_DEFINITIONS` (a C++ template's specialisations not counted): a common
    name's definitions (`__init__`, `run`) are left to the arms' scores."""
    files: dict[str, set[str]] = {}
    primaries: dict[str, set[str]] = {}
    for chunk_id, language, symbol, _, code in rows:
        files.setdefault(symbol, set()).add(_path_of(chunk_id))
        if not specialises(language, symbol, code):
            primaries.setdefault(symbol, set()).add(_path_of(chunk_id))
    return [
        row for row in rows
        if len(files[row[2]]) > 1 and len(primaries.get(row[2], ())) <= MISSED_DEFINITIONS
    ]


def _internal_beside_public(
    found: dict[str, DefinitionFacts], apart: Sequence[tuple[str, str, str, str, str]]
) -> dict[str, DefinitionFacts]:
    """`found` with `internal` kept only where a public Python module implements the same name
    too (`io.IOBase` beside `_pyio.IOBase`): a name only a private module implements (attrs'
    `define`, declared in a public stub) is no less the one meant than another project's or
    another language's definition of it."""
    symbols = {chunk_id: symbol for chunk_id, _, symbol, _, _ in apart}
    public = {
        symbol for chunk_id, language, symbol, _, _ in apart
        if language == "python" and not found[chunk_id].internal and not found[chunk_id].stub
    }
    return {
        chunk_id: facts._replace(internal=False)
        if facts.internal and symbols.get(chunk_id) not in public else facts
        for chunk_id, facts in found.items()
    }


def _with_foundations(
    source: DefinitionSource,
    found: dict[str, DefinitionFacts],
    apart: Sequence[tuple[str, str, str, str, str]],
) -> dict[str, DefinitionFacts]:
    """`found` with `built_upon` set for the definitions whose file the file of another
    definition of the same symbol imports, or whose definition it names as a base class or
    mixin with its qualifier (read for the symbols `_told_apart`: a common name's files
    import each other for other reasons)."""
    files: dict[str, set[str]] = {}
    for chunk_id, _, symbol, _, _ in apart:
        files.setdefault(symbol, set()).add(_path_of(chunk_id))
    if not files:
        return found
    shared = list(files.values())
    references = source.references_of_paths(sorted(set().union(*shared)), ("import", "inherit"))
    imports = [row for row in references if row.kind == "import"]
    upon = set().union(*(built_upon(paths, imports) for paths in shared))
    bases = [row for row in references if row.kind == "inherit"]
    if bases:
        places: dict[str, list[tuple[str, str]]] = {}
        for row in source.definitions_named(list(files)):
            places.setdefault(row.symbol, []).append((row.path, row.fqn))
        upon |= set().union(*(inherited(pairs, bases) for pairs in places.values()))
    return {
        chunk_id: facts._replace(built_upon=True) if _path_of(chunk_id) in upon else facts
        for chunk_id, facts in found.items()
    }


def _path_of(chunk_id: str) -> str:
    return chunk_id.split("::", 1)[0]


def missed_definitions(
    source: DefinitionSource, chunk_ids: Sequence[str], names: Sequence[str]
) -> list[str]:
    """The chunks that define one of `names` as a whole (a class the chunker cut into parts
    counts by its first part, the one that declares it) and are not among `chunk_ids`: in a
    large class the later parts can hold more of the name's uses than the declaration, so
    the arms return them and miss the part a search for the name is after. None for a name
    with more than `MISSED_DEFINITIONS` definitions, but for a C++ template specialised more
    often than that its primary template and the other definitions that are no
    specialisation (`unspecialised`)."""
    named = source.definitions_named(names)
    if len(named) > MISSED_DEFINITIONS:
        named = unspecialised(source, named, names)
    among = set(chunk_ids)
    return [row.chunk_id for row in named if row.chunk_id not in among]


def unspecialised(
    source: DefinitionSource, named: Sequence[NamedDefinition], names: Sequence[str]
) -> list[NamedDefinition]:
    """Of a name's many definitions (`definitions_named`), those that are no C++ template
    specialisation (`specialises`), where no more than `MISSED_DEFINITIONS` are left; none
    otherwise, nor for a name with more than `SPECIALISED_READ` (common whatever its
    definitions are) or without a C++ definition (nothing is read)."""
    if len(named) > SPECIALISED_READ or all(row.language != "cpp" for row in named):
        return []
    rows = source.definitions_among([row.chunk_id for row in named], names)
    special = {
        chunk_id for chunk_id, language, symbol, _, code in rows
        if specialises(language, symbol, code)
    }
    left = [row for row in named if row.chunk_id not in special]
    return left if len(left) <= MISSED_DEFINITIONS else []


def class_level(language: str, symbol: str, header: str, code: str) -> bool:
    """Whether a Ruby method belongs to its class rather than to its instances: `def self.`
    on its line, or a context that opens with `class << self` (the chunker's scope)."""
    if language != "ruby":
        return False
    if header.startswith("# Context: class << self"):
        return True
    words = _words_before(symbol, code)
    return words is not None and bool(words) and words[-1] == "self."


def declared_private(language: str, symbol: str, code: str) -> bool:
    """Whether the line that declares `symbol` in `code` makes it private."""
    words = _words_before(symbol, code)
    if words is None:
        return False
    if PRIVATE_MARKERS.intersection(words):
        return True
    return language in PUB_LANGUAGES and "pub" not in words


def declared_restricted(language: str, symbol: str, code: str) -> bool:
    """Whether a declaration is visible only within part of its program: a Rust one public
    only within part of its crate (`pub(crate)`, `pub(super)`, `pub(self)`, `pub(in path)`),
    a Kotlin or C# one declared `internal` (its module, its assembly)."""
    if language not in ("rust", *INTERNAL_KEYWORD_LANGUAGES):
        return False
    words = _words_before(symbol, code)
    if words is None:
        return False
    if language in INTERNAL_KEYWORD_LANGUAGES:  # C#'s `protected internal` reaches subclasses
        return "internal" in words and "protected" not in words
    return any(
        word == "pub" and following in _RESTRICTED_SCOPES
        for word, following in itertools.pairwise(words)
    )


#: Languages whose `internal` keeps a declaration to its module (Kotlin) or assembly (C#).
INTERNAL_KEYWORD_LANGUAGES = frozenset({"kotlin", "csharp"})


def in_internal_package(language: str, path: str) -> bool:
    """Whether a Go file lies in an `internal` package, which only the code of the module
    around that directory may import (`pkg/internal/wire/decode.go`)."""
    return language == "go" and "internal" in path.replace("\\", "/").split("/")[:-1]


#: The files whose module is a Rust crate's root: what is private there is crate-wide. Each
#: `src/bin/*.rs` is the root of a binary crate too (`is_crate_root`).
RUST_CRATE_ROOTS = frozenset({"lib.rs", "main.rs"})


def is_crate_root(path: str) -> bool:
    """Whether the Rust file at `path` is a crate's root: `lib.rs`, `main.rs`, or a binary's
    file directly under `src/bin/`."""
    directory, _, name = path.rpartition("/")
    return name in RUST_CRATE_ROOTS or directory == "src/bin" or directory.endswith("/src/bin")

#: An inline module among the scopes of a chunk's header, as the chunker labels it with its
#: visibility: `mod ext` (private), `pub mod api`, `pub(crate) mod shared`.
_RUST_MODULE = re.compile(r"(?:(pub)(\([^)]*\))?\s+)?mod\s+\w")


def rust_reach(chunk_id: str, header: str, private: bool, restricted: bool) -> tuple[bool, bool]:
    """How far a Rust definition reaches, as `(private, restricted)`, from what its own
    declaration says (`private`: no `pub`; `restricted`: `pub(crate)` and kin) and the inline
    modules around it in its chunk's `header`. A `pub` item inside a private `mod ext` is
    private to the module around `ext`; what is private at a crate's root (`is_crate_root`,
    not inside an inline module) is visible to the whole crate, as `pub(crate)` is.
    The file's own module counts as public: its `mod` line is in another file."""
    modules = [
        found for scope in _header_scopes(header) if (found := _RUST_MODULE.match(scope))
    ]  # innermost first
    at_crate_root = is_crate_root(_path_of(chunk_id))
    if private:  # visible in its own module, and in the whole crate if that is the root
        return (bool(modules) or not at_crate_root, not modules and at_crate_root)
    for depth, module in enumerate(modules):
        if module.group(1) is None:  # a private module: visible only in the one around it
            crate_wide = depth == len(modules) - 1 and at_crate_root
            return (not crate_wide, crate_wide)
        restricted = restricted or module.group(2) is not None
    return (False, restricted)


#: The scopes of a C or C++ chunk's header inside which `static` makes a member, not a name
#: of the file alone.
_TYPE_SCOPES = ("class ", "struct ", "union ")


def internal_linkage(language: str, symbol: str, header: str, code: str) -> bool:
    """Whether a C or C++ definition is visible only in its own file: inside an unnamed
    namespace (the chunker's scope `namespace`, without a name), or declared `static` outside
    a class, struct or union (`static int parse_args(...)`; in a class, `static` makes a
    member of the class, visible wherever the class is)."""
    if language not in ("c", "cpp"):
        return False
    scopes = _header_scopes(header)
    if "namespace" in scopes:
        return True
    words = _words_before(symbol, code)
    return (
        words is not None and "static" in words
        and not any(scope.startswith(_TYPE_SCOPES) for scope in scopes)
    )


def _header_scopes(header: str) -> list[str]:
    """The scopes a chunk's header names, innermost first: `// Context: trait StdError > mod
    ext (src/context.rs)` gives `trait StdError`, `mod ext`."""
    line = header.split("\n", 1)[0]
    _, marker, scopes = line.partition("Context: ")
    if not marker:
        return []
    scopes = scopes.rsplit(" (", 1)[0]
    return [scope.strip() for scope in scopes.split(" > ")]


#: What follows `pub(` in a Rust visibility that stops short of the whole program.
_RESTRICTED_SCOPES = frozenset({"crate)", "super)", "self)", "in"})

#: Deprecation markers: Java, Kotlin and Scala annotations, JSDoc, PHPDoc, YARD, LDoc and
#: Elixir's attribute (`@deprecated`), Python's `warnings.deprecated`, Rust's attribute, C++'s
#: and GCC's attributes, C#'s `[Obsolete]`, Swift's `@available(..., deprecated)` and Go's
#: "Deprecated:" paragraph.
_DEPRECATED = re.compile(
    r"@deprecated\b|#\[deprecated\b|\[\[deprecated\b|__attribute__\(\(deprecated\b"
    r"|\[Obsolete\b|@available\([^)]*\bdeprecated\b|^\s*(?://|#|--|\*)\s*Deprecated:",
    re.IGNORECASE | re.MULTILINE,
)


def declared_deprecated(symbol: str, code: str) -> bool:
    """Whether a deprecation marker stands on the line that declares `symbol` or above it, in
    the chunk (annotations, attributes and the doc comment a chunk starts with)."""
    line = _declaring_line(symbol, code)
    if line is None:
        return False
    return _DEPRECATED.search("\n".join(code.splitlines()[: line + 1])) is not None


#: Lines of code (not comments, not blank) a definition with a body has more of: `class
#: Engine; include Plugins; end` reopens a class, `struct parser;` declares one forward.
STUB_LINES = 3


def declared_stub(symbol: str, code: str) -> bool:
    """Whether the definition of `symbol` in `code` has no body to speak of: from its
    declaring line on, at most `STUB_LINES` lines of code, or one line ending in `;` (a
    forward declaration or prototype)."""
    line = _declaring_line(symbol, code)
    if line is None:
        return False
    lines = [
        text.strip() for text in code.splitlines()[line:]
        if text.strip() and not text.lstrip().startswith(_COMMENT_STARTS)
    ]
    if len(lines) == 1 and lines[0].endswith(";") and "{" not in lines[0]:
        return True
    return len(lines) <= STUB_LINES


#: Languages that declare a type forward or reopen it, so that a short type definition can
#: stand in for the one with the body: C, C++ and Objective-C (`struct parser;`), Ruby (a
#: class reopened to add a line), C# (a partial part), TypeScript and OCaml interfaces.
STUB_LANGUAGES = frozenset(
    {"c", "cpp", "objc", "ruby", "csharp", "typescript", "tsx", "ocaml_interface"}
)


#: Words that, before a name on its line, declare a type (or a module).
TYPE_KEYWORDS = frozenset({
    "class", "struct", "enum", "union", "interface", "trait", "protocol", "record", "object",
    "data", "newtype", "type", "module", "defmodule", "typedef",
})


def stands_in(language: str, symbol: str, code: str) -> bool:
    """Whether a definition with no body to speak of (`declared_stub`) stands in for another
    of its name: a short function anywhere (a wrapper that hands on to the one with the body:
    Go's package-level `Get` for `(*Viper).Get`), a short type only where types are declared
    forward or reopened (`STUB_LANGUAGES`). Elsewhere a short type is the whole of it:
    Haskell's `data ByteString = BS ...`, Rust's `struct Unit;`."""
    if not declared_stub(symbol, code):
        return False
    if language in STUB_LANGUAGES:
        return True
    words = _words_before(symbol, code)
    return not (words and TYPE_KEYWORDS.intersection(words))


def specialises(language: str, symbol: str, code: str) -> bool:
    """Whether a C++ definition specialises a template of its name: template arguments
    follow the name where it is declared (`template<> struct packet_traits<float>`,
    `Packet4f pload<Packet4f>(const float* from)`), where the primary template's name stands
    alone (`template<typename T> struct packet_traits`)."""
    if language != "cpp":
        return False
    line = _declaring_line(symbol, code)
    if line is None:
        return False
    declaring = code.splitlines()[line]
    found = _name_pattern(symbol).search(declaring)
    assert found is not None
    return declaring[found.end():].lstrip().startswith("<")


def _words_before(symbol: str, code: str) -> list[str] | None:
    """The words before `symbol` on the first line that is not a comment and names it as a
    whole word (`pub(crate) fn` gives `pub`, `crate)`, `fn`)."""
    line = _declaring_line(symbol, code)
    return None if line is None else _words_before_name(symbol, code.splitlines()[line])


def _words_before_name(symbol: str, line: str) -> list[str]:
    """The words before `symbol` on `line`, a line that names it (`(` splits words too)."""
    stripped = line.lstrip()
    found = _name_pattern(symbol).search(stripped)
    assert found is not None
    return stripped[: found.start()].replace("(", " ").split()


def _declaring_line(symbol: str, code: str) -> int | None:
    """The index of the first line of `code` that is not a comment and names `symbol` as a
    whole word (`_naming_lines`)."""
    return next(_naming_lines(symbol, code), None)


def _naming_lines(symbol: str, code: str) -> Iterator[int]:
    """The indexes of the lines of `code` that are not comments and name `symbol` as a whole
    word. A block comment opened at the start of a line (`/*`, `/**`) runs to the line that
    closes it, its lines comments whatever they start with (Eigen's doc comments hold code
    examples, `void print(const MatrixBase<Derived>& x)`, above the class). Lines inside a
    string that spans lines count: a part the chunker cut can start inside a docstring or
    heredoc, and where it does no line says so."""
    if not symbol:
        return
    name = _name_pattern(symbol)
    in_block = False
    for number, line in enumerate(code.splitlines()):
        stripped = line.lstrip()
        if in_block or stripped.startswith("/*"):
            in_block = "*/" not in (stripped if in_block else stripped[2:])
        elif not stripped.startswith(_COMMENT_STARTS) and name.search(stripped):
            yield number


#: Words that declare the name after them on their line, in the languages that have them.
DEFINITION_KEYWORDS = frozenset({
    "def", "defp", "defmacro", "defmacrop", "defguard", "defmodule", "defprotocol", "defstruct",
    "function", "func", "fn", "fun", "sub", "proc", "class", "struct", "enum", "union",
    "trait", "interface", "protocol", "module", "object", "record", "type", "typedef",
    "typealias", "namespace", "impl", "extension", "macro", "let", "const", "var", "val",
    "local",
})


#: After `const NAME`, what makes it the declaration of a constant (`const App = ...`, Rust's
#: `const MAX: u32`), not a C or C++ type named under a qualifier (`const App *parent`).
_CONSTANT_FOLLOWERS = ("=", ":", ";", ",")


def declared_with_keyword(symbol: str, code: str) -> bool:
    """Whether a line of `code` declares `symbol` with a definition keyword just before it
    (`def start_link`, `pub fn parse`, `def self.call`, `function M.setup`, Go's `func (r
    *Router) Handle`), not only names it (`{:ok, pid} = start_link(opts)` in an example,
    `const App *parent` in C++)."""
    lines = code.splitlines()
    for number in _naming_lines(symbol, code):
        words = _words_before_name(symbol, lines[number])
        while words and words[-1].endswith((".", ":")):  # a receiver or namespace: `self.`
            words.pop()
        if words and words[0] == "func":
            return True
        if words and words[-1] in DEFINITION_KEYWORDS:
            if words[-1] != "const" or _declares_constant(symbol, lines[number]):
                return True
    return False


def _declares_constant(symbol: str, line: str) -> bool:
    """Whether what follows `symbol` on `line` (after `const`) makes it a constant's name."""
    found = _name_pattern(symbol).search(line)
    assert found is not None
    rest = line[found.end() :].lstrip()
    return not rest or rest.startswith(_CONSTANT_FOLLOWERS)


def _name_pattern(symbol: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])")
