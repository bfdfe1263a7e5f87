"""What a definition's declaration says beyond its name, for the definitions-first stage to
order definitions of the same name: whether it is declared private (of two definitions of the
name a query asks for, the public one is more often the one meant: `def connect` over `defp
connect`, `pub fn parse` over `fn parse`), and whether it is a Ruby class method (`Client#push`
asks for the instance method).

Only what the line says counts: a marker word before the name (`private`, `defp`, `local
function`...), and Rust's `pub`, whose absence is private. Languages whose visibility is not on
the line (Go's capital letters, Python's underscores give another name; Ruby's `private`
sections, Erlang's exports are elsewhere) are never judged private.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

#: Words that, before a definition's name on its line, make it private to its file, module or
#: type.
PRIVATE_MARKERS = frozenset(
    {"private", "fileprivate", "defp", "defmacrop", "defguardp", "local", "private[this]"}
)
#: Languages where a definition without `pub` is private.
PUB_LANGUAGES = frozenset({"rust", "zig"})

_COMMENT_STARTS = ("#", "//", "--", "/*", "*", ";", "%", "(*", "{-", '"""', "'''", "@doc")


class DefinitionSource(Protocol):
    """What a definition finder reads: the manifest (`sharc.manifest.Manifest`)."""

    def definitions_among(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> list[tuple[str, str, str, str, str]]: ...


class DefinitionFacts(NamedTuple):
    """What the declaration of a definition says beyond its name."""

    #: Declared private (`declared_private`).
    private: bool = False
    #: A class method: Ruby's `def self.name`, or a method of a class's `class << self`.
    class_level: bool = False


def definition_finder(
    source: DefinitionSource,
) -> Callable[[Sequence[str], Sequence[str]], dict[str, DefinitionFacts]]:
    """The ranking's `DefinitionFinder` over a manifest: the candidates that define a name,
    each with its `DefinitionFacts`."""

    def defines(chunk_ids: Sequence[str], names: Sequence[str]) -> dict[str, DefinitionFacts]:
        return {
            chunk_id: DefinitionFacts(
                private=declared_private(language, symbol, code),
                class_level=class_level(language, symbol, header, code),
            )
            for chunk_id, language, symbol, header, code in source.definitions_among(
                chunk_ids, names
            )
        }

    return defines


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


def _words_before(symbol: str, code: str) -> list[str] | None:
    """The words before `symbol` on the first line that is not a comment and names it as a
    whole word (`pub(crate) fn` gives `pub`, `crate)`, `fn`)."""
    if not symbol:
        return None
    name = re.compile(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])")
    for line in code.splitlines():
        stripped = line.lstrip()
        found = None if stripped.startswith(_COMMENT_STARTS) else name.search(stripped)
        if found is not None:
            return stripped[: found.start()].replace("(", " ").split()
    return None
