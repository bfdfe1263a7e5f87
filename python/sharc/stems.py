"""English stems (Snowball, through tantivy's stemmer): how a question's words meet the code's
other forms of them (`plugins`, `plugin` -> plugin; `parsing`, `parse` -> pars)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tantivy


@functools.lru_cache(maxsize=1 << 16)
def english_stem(word: str) -> str:
    """The Snowball English stem of one lowercase word (a matching key, not a word)."""
    analyzed = _stemmer().analyze(word)
    return analyzed[0] if analyzed else word


@functools.lru_cache(maxsize=1)
def _stemmer() -> tantivy.TextAnalyzer:
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
