"""Text a query quotes from the code: an error message pasted as it came (`Invalid value for
option`, `KeyError: 'no such task'`), or a string put in quotes ("where does 'connection
refused' come from"). What was asked for is the code that holds that very text, as grep
would find it; read as words, the message's words matched every chunk that speaks of them,
and only 45% of the dev benchmark's literals found a chunk that holds them first.

`asked_literal` reads the text; the ranking asks the keyword arm for it and puts the hits
that hold it (`holds`) before every other candidate, in the ranking's own order (the code
that raises a message before the test that expects it); the question as asked ranks the
rest. Where none of those hits holds it (each of its words common in the repository, so that
hundreds of chunks outrank the one that holds them all), the chunks that hold every word of
it are read instead (`KeywordStore.search_all_words`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A span in quotes of two words or more: `"connection refused"`, `'no such task'`; quotes
#: of another kind may lie inside (`"can't open '{path}'"`).
_QUOTED = re.compile(
    r"""(?<!\w)(?:"(?P<double>[^"\n]{1,300}\s[^"\n]{1,300})"|'(?P<single>[^'\n]{1,300}\s[^'\n]{1,300})'"""
    r"""|`(?P<back>[^`\n]{1,300}\s[^`\n]{1,300})`)(?!\w)"""
)
#: An error's name and its message: `KeyError: no such task`, `error: unknown option`.
_ERROR = re.compile(
    r"^\s*(?:[\w.]*(?:Error|Exception|Err|Failure|Panic)|error|fatal|panic)(?:\[\w+\])?:\s*"
    r"(?P<text>\S.{2,300}?)\s*$",
    re.DOTALL,
)
#: Words a question or a request opens with: a query that starts so is asked, not pasted (an
#: article may open a message: "The `timeout` option must be a number").
_QUESTION_OPENINGS = frozenset(
    """how what where why which when who whose whom does do did is are was were can could
    should would will shall may might must explain find list locate show tell give get
    implement implementation i we you please in into on for from with by about of to
    where's what's how's""".split()
)
#: Words a pasted message has at least; fewer is a name or a short question.
MIN_WORDS = 3
#: Keyword hits read for the text: a quoted or an error's message, and a message pasted bare
#: (as many of the chunks that hold every word of it, where those hold none of it).
QUOTED_DEPTH = 100
PASTED_DEPTH = 30


@dataclass(frozen=True, slots=True)
class Literal:
    """The text a query quotes from the code, and how many keyword hits to read for it."""

    text: str
    depth: int


def asked_literal(query: str) -> Literal | None:
    """The text `query` quotes from the code (None where it quotes none): a span in quotes of
    two words or more, the message after an error's name, or a query of `MIN_WORDS` words
    or more that does not open as a question (a message pasted bare)."""
    quoted = _QUOTED.search(query)
    if quoted is not None:
        text = quoted["double"] or quoted["single"] or quoted["back"]
        return Literal(text.strip(), QUOTED_DEPTH)
    error = _ERROR.match(query)
    if error is not None and len(error["text"].split()) >= 2:
        return Literal(error["text"].strip().strip("'\""), QUOTED_DEPTH)
    words = query.split()
    if len(words) >= MIN_WORDS and words[0].lower().strip("`'\"") not in _QUESTION_OPENINGS:
        return Literal(query.strip().rstrip(".?!"), PASTED_DEPTH)
    return None


def holds(text: str, literal: str) -> bool:
    """Whether `text` holds `literal`, in any case, any run of spaces read as one."""
    return _squeezed(literal) in _squeezed(text)


def _squeezed(text: str) -> str:
    return " ".join(text.split()).lower()
