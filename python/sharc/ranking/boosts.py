"""Stage 4: query-aware boosts. The chunk that defines what the query names rises, and so do
chunks whose names or files are made of the query's words."""

from __future__ import annotations

import functools
import math
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sharc.ranking.query import QueryIntent, content_words
from sharc.ranking.records import (
    EXTENDING_KINDS,
    TYPE_KINDS,
    C,
    Part,
    RankedChunk,
    Scored,
    named,
)
from sharc.ranking.settings import RankingSettings


def name_words_match(name_words: frozenset[str], query_words: frozenset[str]) -> float:
    """How well a name's words match a query's words, 0-1: the share of the name the query
    covers, times the square root of the share of the query the name covers."""
    if not name_words or not query_words:
        return 0.0
    shared = len(name_words & query_words)
    return (shared / len(name_words)) * math.sqrt(shared / len(query_words))


#: Directory names that say where code lives, not what it does.
_LAYOUT_DIRECTORIES = frozenset(
    "src lib libs pkg internal source sources main java kotlin scala include com org net".split()
)


@functools.lru_cache(maxsize=1 << 16)
def path_words(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content words of a file's stem (`logging_config.rs` -> logging, config) and of its
    two nearest directories that are not layout (`src`, `lib`, ...)."""
    directory, name = posixpath.split(path.replace("\\", "/"))
    stem = name.split(".", 1)[0]
    directories = [d for d in directory.split("/") if d and d not in _LAYOUT_DIRECTORIES][-2:]
    return content_words(stem), content_words(" ".join(directories))


def path_words_match(path: str, query_words: frozenset[str]) -> float:
    """How well a file's name (fully) or its directories (half) match the query's words, 0-1."""
    stem, directories = path_words(path)
    return max(
        name_words_match(stem, query_words), 0.5 * name_words_match(directories, query_words)
    )


def _referable(fqn: str, language: str) -> str:
    """A qualified name as code refers to it: Kotlin reaches a companion object's members
    through its class (`Moshi.Builder.of`, not `Moshi.Builder.Companion.of`)."""
    if language == "kotlin" and "Companion" in fqn:
        return ".".join(part for part in fqn.split(".") if part != "Companion")
    return fqn


#: The names a language's modules export through, which stand for the file itself:
#: CommonJS's `module.exports.body` is the file's `body`, and Lua's modules by convention fill
#: and return a table `M`.
MODULE_OBJECTS = {
    "javascript": ("module.exports", "exports"),
    "typescript": ("module.exports", "exports"),
    "lua": ("M",),
}


def _within_module(fqn: str, language: str) -> list[str]:
    """A definition's qualified name within its module, by segment: less the object its
    module exports through, which stands for the file (`module.exports.body` is `body`)."""
    for module_object in MODULE_OBJECTS.get(language, ()):
        if fqn.startswith(module_object + "."):
            fqn = fqn[len(module_object) + 1 :]
            break
    return fqn.split(".")


def _qualified_by_place(fqn: str, language: str, path: str, segments: tuple[str, ...]) -> bool:
    """Whether the last of `segments` are the definition's whole qualified name within its
    module and the ones before them name its file's place (`_qualified_by_path`): the
    top-level `Error` under `anyhow/` for `anyhow::Error`, and the method `Formatter.format`
    of `logging/__init__.py` for `logging.Formatter.format`."""
    own = _within_module(fqn, language)
    place = len(segments) - len(own)
    return (
        place >= 1
        and list(segments[place:-1]) == own[:-1]
        and _qualified_by_path(path, segments[:place])
    )


def _qualified_by_path(path: str, qualifiers: tuple[str, ...]) -> bool:
    """Whether a qualified name's qualifiers name, in order, directories or the file of
    `path` (any case, `_` and `-` aside): a module is a file and a package or crate a
    directory named as code refers to it, so `anyhow::Error` is the `Error` under `anyhow/`,
    `response.body` the `body` of `response.js`, `Util.keys` the `keys` of `util.lua`, where
    the definitions' own qualified names (`Error`, `body`, `M.keys`) do not say so."""
    parts = [_squashed(part) for part in path.split("/")]
    parts[-1] = parts[-1].split(".", 1)[0]
    place = 0
    for qualifier in qualifiers:
        wanted = _squashed(qualifier)
        while place < len(parts) and parts[place] != wanted:
            place += 1
        if place == len(parts):
            return False
        place += 1
    return True


def _squashed(name: str) -> str:
    return re.sub(r"[_\-]", "", name).lower()


@dataclass(frozen=True, slots=True)
class DefinitionMatch:
    """How a chunk defines an identifier the query names (all False: it does not)."""

    #: The chunk's symbol is the name as written, or only case-insensitively.
    exact: bool = False
    case_insensitive: bool = False
    #: Its qualified name ends with the query's qualified name (`Web::Engine`), or it is
    #: defined at its module's top level and its path names the qualifiers (`anyhow::Error`
    #: under `anyhow/`).
    qualified: bool = False
    #: It defines a type the capitalised name stands for (class, struct, trait...).
    type_definition: bool = False
    #: It only extends a type defined elsewhere (`impl`, `extension`).
    extending: bool = False
    #: Its file is named after it (`engine.rb` for `Engine`).
    definition_file: bool = False
    #: It defines a module or namespace of a capitalised name (`module Sidekiq::Job`).
    module_definition: bool = False

    @property
    def matched(self) -> bool:
        return self.exact or self.case_insensitive


NO_DEFINITION = DefinitionMatch()


def definition_match(chunk: RankedChunk, intent: QueryIntent) -> DefinitionMatch:
    """Whether and how `chunk` defines an identifier the query names."""
    symbol = defined_name(chunk) if intent.identifiers else ""
    if not symbol:
        return NO_DEFINITION
    exact = symbol in intent.identifiers
    if not exact and symbol.lower() not in {name.lower() for name in intent.identifiers}:
        return NO_DEFINITION
    fqn = "." + _referable(chunk.fqn, getattr(chunk, "language", ""))
    kind = getattr(chunk, "kind", "")
    # The whole name but its extension: `Store.Settings.cs` holds a part of `Store`, and
    # `Store.cs` the definition.
    stem = posixpath.basename(chunk.path).rsplit(".", 1)[0]
    qualified = any(
        fqn.endswith("." + ".".join(segments))
        or _qualified_by_place(fqn[1:], getattr(chunk, "language", ""), chunk.path, segments)
        for segments in intent.qualified
        if segments[-1].lower() == symbol.lower()
    )
    return DefinitionMatch(
        exact=exact,
        case_insensitive=not exact,
        qualified=qualified,
        extending=kind in EXTENDING_KINDS,
        type_definition=kind in TYPE_KINDS and symbol[:1].isupper(),
        definition_file=_squashed(stem) == _squashed(symbol),
        module_definition=kind in MODULE_KINDS and symbol[:1].isupper(),
    )


#: Kinds that name a module of code rather than a type.
MODULE_KINDS = frozenset({"module", "namespace"})
#: Kinds whose long bodies the chunker cuts into parts: the lines of a module or class
#: between its members come as chunks of that kind with no symbol of their own.
PART_KINDS = frozenset({"module", "class", "namespace", "object"})


def defined_name(chunk: RankedChunk) -> str:
    """The name a chunk defines: its symbol or, for a part of a module or class that the
    chunker split (no symbol, its container's kind), the last segment of its qualified name:
    a 360-line `Sidekiq::Job` is found by its name in the parts between its methods."""
    if chunk.symbol:
        return chunk.symbol
    if getattr(chunk, "kind", "") in PART_KINDS and chunk.fqn:
        return chunk.fqn.rsplit(".", 1)[-1]
    return ""


def definition_tier(match: DefinitionMatch) -> int:
    """How surely a chunk is the definition a one-name query asks for, 0 (it does not define
    the name as written) to 8. A name with the query's case counts (`def job` is no
    definition of `Job`: case-insensitive matches keep their lift in `definition_factor`),
    and its qualities count in this order, each above all the ones after it: its qualified
    name ends with the query's (`Web::Engine`), it defines rather than extends (`struct
    Error`, not `impl Error`), it defines the type or module a capitalised name stands for
    (`class App`, not its constructor; Ruby's `module Inner` as much as another file's
    `class Inner`, so that the file named after it decides). A type or module in the file
    named after it counts in any case, as a plain function of the query's spelling does and
    above it: `statement` asks for `class Statement` in `Statement.java` before a method
    `statement` elsewhere, and `sidekiq::job` for `module Sidekiq::Job` in `job.rb`."""
    named = match.type_definition or match.module_definition
    if not match.exact:
        return 4 if named and match.definition_file and not match.extending else 0
    return 1 + 4 * match.qualified + 2 * (not match.extending) + named


def definition_factor(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> float:
    """The lift of a chunk that defines an identifier the query names: its symbol is the name
    (case-insensitively: half the lift), more when its qualified name ends with the query's
    qualified name, when it defines a type the capitalised name stands for (less when it only
    extends one) and when its file is named after it."""
    match = definition_match(chunk, intent)
    if not match.matched:
        return 1.0
    factor = settings.symbol_match_factor
    if match.case_insensitive:
        factor = (1.0 + settings.symbol_match_factor) / 2
    if match.qualified:
        factor *= settings.qualified_match_factor
    if match.extending:
        factor *= settings.extending_definition_factor
    elif match.type_definition:
        factor *= settings.type_definition_factor
    if match.definition_file:
        factor *= settings.definition_file_factor
    return factor


def boost_factor(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> float:
    """Every boost of one chunk, compounded."""
    return chunk_boost(chunk, intent, settings) * path_boost(chunk.path, intent, settings)


def chunk_boost(
    chunk: RankedChunk,
    intent: QueryIntent,
    settings: RankingSettings,
    parts: list[Part] | None = None,
) -> float:
    """The boosts of what the chunk defines: the query's identifier, or a name of its words;
    each that applies is named in `parts` when given."""
    factor = definition_factor(chunk, intent, settings)
    if factor != 1.0 and parts is not None:
        parts.append(("defines the name asked", factor))
    if intent.words and chunk.symbol and settings.name_words_lift:
        match = name_words_match(content_words(chunk.symbol), intent.words)
        if match:
            factor *= named(parts, "a name of the query's words",
                            1.0 + settings.name_words_lift * match)
    return factor


def path_boost(
    path: str, intent: QueryIntent, settings: RankingSettings, parts: list[Part] | None = None
) -> float:
    """The boost of a file named by the query's words (named in `parts` when given)."""
    if intent.words and settings.path_words_lift:
        match = path_words_match(path, intent.words)
        if match:
            return named(parts, "a file named by the query's words",
                         1.0 + settings.path_words_lift * match)
    return 1.0


def boost_parts(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> list[Part]:
    """Each boost that applies to one chunk, named, with its factor (`boost_factor` is their
    product)."""
    parts: list[Part] = []
    chunk_boost(chunk, intent, settings, parts)
    path_boost(chunk.path, intent, settings, parts)
    return parts


def boost_bound(intent: QueryIntent, settings: RankingSettings) -> float:
    """The largest factor `boost_factor` can give any chunk for this query."""
    factor = 1.0
    if intent.identifiers:
        factor = max(1.0, settings.symbol_match_factor) * max(1.0, settings.definition_file_factor)
        factor *= max(1.0, settings.type_definition_factor, settings.extending_definition_factor)
        if intent.qualified:
            factor *= max(1.0, settings.qualified_match_factor)
    if intent.words:
        factor *= (1.0 + settings.name_words_lift) * (1.0 + settings.path_words_lift)
    return factor


def apply_boosts(
    candidates: Sequence[Scored[C]], intent: QueryIntent, settings: RankingSettings
) -> list[Scored[C]]:
    by_path: dict[str, float] = {}  # a search's candidates share a few dozen files
    boosted = []
    for chunk, score in candidates:
        path_factor = by_path.get(chunk.path)
        if path_factor is None:
            path_factor = by_path[chunk.path] = path_boost(chunk.path, intent, settings)
        boosted.append((chunk, score * path_factor * chunk_boost(chunk, intent, settings)))
    return boosted
