"""Stage 4: query-aware boosts. The chunk that defines what the query names rises, and so do
chunks whose names or files are made of the query's words."""

from __future__ import annotations

import functools
import math
import posixpath
import re
from collections.abc import Sequence

from sharc.ranking.query import QueryIntent, content_words
from sharc.ranking.records import EXTENDING_KINDS, TYPE_KINDS, C, RankedChunk, Scored
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


def _squashed(name: str) -> str:
    return re.sub(r"[_\-]", "", name).lower()


def definition_factor(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> float:
    """The lift of a chunk that defines an identifier the query names: its symbol is the name
    (case-insensitively: half the lift), more when its qualified name ends with the query's
    qualified name, when it defines a type the capitalised name stands for (less when it only
    extends one) and when its file is named after it."""
    if not intent.identifiers or not chunk.symbol:
        return 1.0
    if chunk.symbol in intent.identifiers:
        factor = settings.symbol_match_factor
    elif chunk.symbol.lower() in {name.lower() for name in intent.identifiers}:
        factor = (1.0 + settings.symbol_match_factor) / 2
    else:
        return 1.0
    fqn = "." + chunk.fqn
    if any(fqn.endswith("." + ".".join(segments)) for segments in intent.qualified):
        factor *= settings.qualified_match_factor
    kind = getattr(chunk, "kind", "")
    if kind in EXTENDING_KINDS:
        factor *= settings.extending_definition_factor
    elif kind in TYPE_KINDS and chunk.symbol[:1].isupper():
        factor *= settings.type_definition_factor
    stem = posixpath.basename(chunk.path).split(".", 1)[0]
    if _squashed(stem) == _squashed(chunk.symbol):
        factor *= settings.definition_file_factor
    return factor


def boost_factor(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> float:
    """Every boost of one chunk, compounded."""
    factor = definition_factor(chunk, intent, settings)
    if intent.words and chunk.symbol and settings.name_words_lift:
        match = name_words_match(content_words(chunk.symbol), intent.words)
        factor *= 1.0 + settings.name_words_lift * match
    if intent.words and settings.path_words_lift:
        factor *= 1.0 + settings.path_words_lift * path_words_match(chunk.path, intent.words)
    return factor


def apply_boosts(
    candidates: Sequence[Scored[C]], intent: QueryIntent, settings: RankingSettings
) -> list[Scored[C]]:
    return [(chunk, score * boost_factor(chunk, intent, settings)) for chunk, score in candidates]
