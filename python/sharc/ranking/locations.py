"""Places in the code a query gives by file and line: `lib/app.ts:42`, `src/main.rs:10:5`,
`lib/app.ts#L42`, "line 42 of lib/app.ts", and the frames of a stack trace or an error
message pasted as it came (`File "/srv/app/pkg/mod.py", line 589, in request`,
`at render (/home/ci/web/src/view.js:12:5)`, `Bar.java:42`, `/go/src/app/server.go:88 +0x1d`).
A user or an agent asking about such a line wants the code that holds it: the chunk around
the line comes first (`sharc.ranking.shaping.first_of`). Which indexed file a path
from another machine is, and which chunk holds the line, is for the caller to look up
(`Manifest.chunk_at`)."""

from __future__ import annotations

import bisect
import re
import sys
from dataclasses import dataclass

#: One word of a query that is a file's path or name with an extension, then its line:
#: `a/b.py:12`, `b.py:12:5`, `b.rb:12:in`, `b.js#L12`, `b.py:12-20`; a leading `/`, `./` or
#: drive is part of the path. Matched whole against each word, its directories possessively:
#: no backtracking over a long path.
_PATH_LINE = re.compile(
    r"""(?P<file>(?:[A-Za-z]:)?[/\\]?(?:[\w.@+-]++[/\\])*+[\w.-]*\w\.[A-Za-z][\w+-]{0,9})
    (?::(?P<line>\d{1,7})(?::\d{1,5}|-\d{1,7})?(?::in)?:?|\#L(?P<anchor>\d{1,7})(?:-L?\d{1,7})?)""",
    re.VERBOSE,
)
#: What separates the words `_PATH_LINE` reads: spaces, brackets, quotes, commas.
_WORD_BREAK = re.compile(r"[\s()\[\]{}<>\"'`,;]+")
#: Longest word read as a path (a longer one is no file's path).
_LONGEST_PATH = 400
#: A Python traceback's frame: `File "/srv/app/pkg/mod.py", line 589, in request`.
_PYTHON_FRAME = re.compile(r"""File\s+"(?P<file>[^"\n]{1,400})",\s+line\s+(?P<line>\d{1,7})""")
#: In words: "line 42 of lib/app.ts", "line 42 in app.ts", "lib/app.ts line 42", "app.ts,
#: line 42". After "line 42 of", a path may hold spaces (`Parsable Types/Command.swift`).
_LINE_OF_FILE = re.compile(
    r"""\bline\s+(?P<line>\d{1,7})\s+(?:of|in)\s+[`'"]?
        (?P<file>[^\n`'"]{0,300}?\w\.[A-Za-z][\w+-]{0,9})(?=$|[\s`'",;:)])
    |(?<![^\s`'"(])(?P<file2>[\w./\\@+-]{0,300}\w\.[A-Za-z][\w+-]{0,9})[`'"]?,?\s+line\s+(?P<line2>\d{1,7})\b""",
    re.VERBOSE | re.IGNORECASE,
)
#: Most frames a query's locations are read from (a long trace pasted whole).
MAX_LOCATIONS = 10


@dataclass(frozen=True, slots=True)
class Location:
    """A file as the query gives it (a path from any machine, or a name) and a line in it."""

    file: str
    line: int


@dataclass(frozen=True, slots=True)
class LocatedQuery:
    """The locations a query gives, the innermost frame first, and the rest of the query
    (the error message around them, a question), empty where it is only locations."""

    locations: tuple[Location, ...]
    rest: str


def asked_locations(query: str) -> LocatedQuery | None:
    """The file-and-line locations in `query` (None where it gives none). A Python
    traceback lists its innermost frame last, so its frames are read bottom up; other
    traces, and locations in words, in the order given."""
    found: list[tuple[int, int, Location]] = []  # (start, end, location)
    python = [
        (m.start(), m.end(), Location(m["file"], int(m["line"])))
        for m in _PYTHON_FRAME.finditer(query)
    ]
    taken = _Spans([(start, end) for start, end, _ in python])
    for match in _LINE_OF_FILE.finditer(query):
        if not taken.holds(match.start()):
            file = _spoken_path(match["file"]) if match["file"] else match["file2"]
            line = match["line"] or match["line2"]
            found.append((match.start(), match.end(), Location(file, int(line))))
            taken.add(match.start(), match.end())
    start = 0
    for word in _WORD_BREAK.split(query):
        start = query.find(word, start) if word else start
        end = start + len(word)
        match = _PATH_LINE.fullmatch(word) if len(word) <= _LONGEST_PATH else None
        if match is not None and not taken.holds(start):
            line = match["line"] or match["anchor"]
            found.append((start, end, Location(match["file"], int(line))))
            taken.add(start, end)
        start = end
    if not python and not found:
        return None
    ordered = [location for _, _, location in reversed(python)]
    ordered += [location for _, _, location in sorted(found, key=lambda item: item[0])]
    locations = tuple(dict.fromkeys(ordered))[:MAX_LOCATIONS]
    return LocatedQuery(locations, _rest(query, taken.spans))


def _spoken_path(text: str) -> str:
    """The path in the words after "line 42 of": from the first word with a `/` on (a
    directory's name may hold spaces), else the last word ("the file app.ts" -> app.ts)."""
    words = text.split()
    first = next((n for n, word in enumerate(words) if "/" in word or "\\" in word), None)
    return " ".join(words[first:]) if first is not None else words[-1]


class _Spans:
    """The spans of a query its locations take, sorted: whether a position lies in one is a
    binary search (a trace pasted whole has thousands of frames)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = sorted(spans)

    def holds(self, position: int) -> bool:
        at = bisect.bisect_right(self.spans, (position, sys.maxsize)) - 1
        return at >= 0 and self.spans[at][0] <= position < self.spans[at][1]

    def add(self, start: int, end: int) -> None:
        bisect.insort(self.spans, (start, end))


def _rest(query: str, spans: list[tuple[int, int]]) -> str:
    """`query` without the `spans` of its locations, and without what only framed them
    (`at`, `in`, brackets, `+0x1d`, the words of a traceback's header)."""
    kept, last = [], 0
    for start, end in spans:
        kept.append(query[last:start])
        last = max(last, end)
    kept.append(query[last:])
    text = " ".join(kept)
    text = re.sub(r"\+0x[0-9a-f]+|Traceback \(most recent call last\):?", " ", text)
    text = re.sub(r"[()\[\]{}<>,:;]+", " ", text)
    words = [w for w in text.split() if w.lower() not in _FRAME_WORDS]
    return " ".join(words)


#: Words that only frame a location: "at", "in", "line", "of", "file".
_FRAME_WORDS = frozenset("at in line of file from see".split())
