"""The words of the keyword index: how a chunk's code tokens are joined for tantivy, the other
forms of a plain word (`word_forms`), and what each token of a query asks for (`query_terms`,
`token_roles`). Pure string functions; `sharc.keyword` builds its queries from them.
"""

from __future__ import annotations

import functools

from sharc.stems import english_stem

#: What a query token is (`token_roles`): a whole identifier, a part of one, or a plain word.
WHOLE, PART, WORD = "whole", "part", "word"


def _joined(tokens: list[str]) -> str:
    """Index text: the tokens, then the `~` spelling variant of each snake_case one (order
    does not matter: the fields keep frequencies, not positions). The Rust `index_text` does
    the same; this one serves injected tokenizers, and tests hold the two equal."""
    text = " ".join(tokens)
    if "_" not in text:
        return text
    variants = [_VARIANT + token.replace("_", "") for token in tokens if "_" in token]
    return " ".join([text, *(variant for variant in variants if variant != _VARIANT)])


#: Endings that turn an English stem into a word (`complet` -> complete, completion, completed).
_ENDINGS = (
    "", "e", "s", "es", "ed", "ing", "er", "ers", "ion", "ions", "ation", "ations", "ment",
    "ments", "al", "ly",
)


@functools.lru_cache(maxsize=1 << 14)
def word_forms(word: str) -> tuple[str, ...]:
    """The other forms of a plain English word that share its Snowball stem: `plugins` ->
    plugin; `parsing` -> parse, parses, parsed; `libraries` -> library; `retried` -> retry,
    retries. Candidates are the stem with common endings, kept only when the stemmer agrees,
    so a word never reaches an unrelated one (`parser` is not a form of `parse`); a search
    looks up only those its index holds."""
    if not word.isalpha() or len(word) < 3:
        return ()
    stem = english_stem(word)
    bases = [stem]
    if stem.endswith("i"):  # retry -> retri
        bases.append(stem[:-1] + "y")
    if len(stem) >= 3 and stem[-1] not in "aeiouwxy" and stem[-2] in "aeiou":
        bases.append(stem + stem[-1])  # run -> running
    candidates = dict.fromkeys(base + ending for base in bases for ending in _ENDINGS)
    return tuple(c for c in candidates if c != word and english_stem(c) == stem)


def query_terms(token: str) -> list[tuple[str, bool]]:
    """The terms a query token looks up, and whether each is a spelling variant.

    `getUserById` also finds `get_user_by_id` (through its indexed `~getuserbyid`), and
    `get_user_by_id` also finds `getUserById` (through plain `getuserbyid`), a little weaker
    than the spelling the query used.
    """
    bare = token.replace("_", "")
    if not bare:
        return [(token, False)]
    terms = [(token, False), (_VARIANT + bare, True)]
    if bare != token:
        terms.append((bare, True))
    return terms


#: Marks the underscore-free spelling of a snake_case identifier; `code_tokens` never emits it.
_VARIANT = "~"


def token_roles(tokens: list[str]) -> list[tuple[str, str]]:
    """Each token with its role: a whole identifier, one of its parts, or a plain word.

    `code_tokens` emits `getuserbyid get user by id`: a token is whole when the next tokens
    concatenate to it (underscores aside), and those next tokens are its parts.
    """
    roles = []
    parts_left = 0
    for position, token in enumerate(tokens):
        if parts_left:
            roles.append((token, PART))
            parts_left -= 1
            continue
        target = token.replace("_", "")
        joined = ""
        for following in range(position + 1, len(tokens)):
            joined += tokens[following]
            if len(joined) >= len(target):
                if joined == target and following > position + 1:
                    parts_left = following - position
                break
        roles.append((token, WHOLE if parts_left else WORD))
    return roles
