"""The repository benchmark's questions asked otherwise, as people ask them: a symbol
question's name framed in words, typed in another case or convention, a member of a type
named in words, a topic question's first target file asked for by its name, a line of a
symbol question's definition given by file and line, and a string in the code a question is
about pasted as a message. Every form
is a fixed template, written before sharc was measured on it; `benches.quality.repos` runs
them beside each question and reports what they find.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: Each symbol question asked again in words, as users ask for a definition ("where is
#: `Router` defined"); fixed on 2026-12-05 before sharc was measured on them. Reported as
#: definition at 1 and file NDCG@10 over every symbol question in every phrasing.
FRAMINGS = (
    "where is {name} defined", "the {name} definition", "implementation of {name}",
    "how does {name} work",
)
#: Each symbol question's name typed otherwise, as people type names they half remember or
#: carry over from another language (`retyped`): in lower case (`shortbytestring`, "where is
#: shortbytestring defined") and in the other convention (`short_byte_string` for
#: `ShortByteString`, `parseGitDirty` for `parse_git_dirty`); fixed on 2026-12-05 before
#: sharc was measured on them. Reported as definition at 1 over every such form.
LOWER_CASE = ("{lower}", "where is {lower} defined")


#: Each topic question's first target file asked for by its name, as people open a file they
#: know (`request.js`, "the request file"); fixed on 2026-12-05 before sharc was measured on
#: them. Reported as the share whose first result is that file (a name several files share
#: counts against it).
FILE_NAME_FORMS = ("{name}", "the {stem} file")


def file_name_queries(path: str) -> list[str]:
    """`FILE_NAME_FORMS` of one target file."""
    name = path.rsplit("/", 1)[-1]
    return [form.format(name=name, stem=name.rsplit(".", 1)[0]) for form in FILE_NAME_FORMS]


#: Each symbol question that names a member of a type (`Server.listen`, `Factory#run`)
#: asked in words about the member and its type, as people name a method they cannot spell
#: out; fixed on 2026-12-05 before sharc was measured on them. Reported as definition at 1.
MEMBER_FORMS = (
    "the {member} method of {owner}", "{owner}'s {member} method", "{member} in {owner}",
    "how does {owner} {member} work",
)


def member_forms(name: str) -> list[str]:
    """`MEMBER_FORMS` of a symbol question's name where it names a type's member."""
    match = re.fullmatch(r"(?:\w+(?:::|\.))*([A-Z]\w*)(?:\.|#|::)([a-z_]\w*[?!]?)", name)
    if match is None:
        return []
    owner, member = match.groups()
    return [form.format(owner=owner, member=member) for form in MEMBER_FORMS]


def retyped(name: str) -> list[str]:
    """The forms of a symbol question's name typed otherwise (`LOWER_CASE`, and the other
    convention of a one-word name with humps or underscores)."""
    forms = []
    if name.lower() != name:
        forms = [form.format(lower=name.lower()) for form in LOWER_CASE]
    if re.fullmatch(r"[A-Za-z]\w*", name):
        if re.search(r"[a-z0-9][A-Z]", name):
            forms.append(re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower())
        elif "_" in name.strip("_"):
            head, *rest = name.split("_")
            forms.append(head + "".join(part[:1].upper() + part[1:] for part in rest))
    return forms


#: A line inside each symbol question's definition (its middle) given by file and line, as
#: an error message, a stack trace or a reviewer gives it; fixed on 2026-12-06 before sharc
#: was measured on them. Reported as the share whose first result holds that line.
LOCATION_FORMS = (
    "{path}:{line}", "{path}:{line}:5", "/home/dev/src/{repo}/{path}:{line}",
    'File "/srv/app/{path}", line {line}, in {name}', "at {name} ({path}:{line}:13)",
    "line {line} of {path}",
)


def location_forms(repo: str, path: str, start: int, end: int, name: str) -> tuple[int, list[str]]:
    """The line `LOCATION_FORMS` give for a definition at `start`-`end` of `path` (its
    middle) and the forms; `name` is the question's name, its last part in a frame."""
    line = (start + end) // 2
    last = re.split(r"::|\.|#", name)[-1] or name
    return line, [
        form.format(path=path, line=line, repo=repo, name=last) for form in LOCATION_FORMS
    ]


#: A string of three words or more in the code a symbol or semantic question is about (its
#: first target), pasted as people paste an error message or quote one; fixed on 2026-12-06
#: before sharc was measured on them. Reported as the share whose first result holds it.
LITERAL_FORMS = ('{text}', '"{text}"', 'where does "{text}" come from', "Error: {text}")
_STRING = re.compile(r"""(["'])((?:(?!\1)[^\\\n]){12,80})\1""")


def literal_forms(code_lines: list[str]) -> tuple[str, list[str]] | None:
    """The first string literal of three words or more in `code_lines` (one with a lower-case
    letter, 12-80 characters, no escapes) and its `LITERAL_FORMS`; None where there is none."""
    for line in code_lines:
        for match in _STRING.finditer(line):
            text = match.group(2)
            if len(text.split()) >= 3 and re.search(r"[a-z]", text):
                return text, [form.format(text=text) for form in LITERAL_FORMS]
    return None


# -- scoring the forms that ask for one place (`benches.quality.repos` runs them) ----------

def line_at_1(index: Any, repo: str, query: Any, options: dict[str, Any]) -> list[float]:
    """1.0 per `LOCATION_FORMS` form where the first result holds the line given."""
    target = query.targets[0]
    line, forms = location_forms(
        repo, target.path, target.start_line or 1, target.end_line or target.start_line or 1,
        query.text,
    )
    return [
        float(bool(hits) and hits[0].path == target.path
              and hits[0].start_line <= line <= hits[0].end_line)
        for text in forms
        for hits in [list(index.search(text, limit=1, **options))]
    ]

def text_at_1(
    index: Any, root: Path, query: Any, options: dict[str, Any]
) -> list[float] | None:
    """1.0 per `LITERAL_FORMS` form where the first result holds the string pasted; None for
    a question whose first target holds no string of three words or more."""
    target = query.targets[0]
    if query.category not in ("symbol", "semantic") or not target.start_line:
        return None
    try:
        lines = (root / target.path).read_text(errors="replace").splitlines()
    except OSError:
        return None
    found = literal_forms(lines[target.start_line - 1 : target.end_line or target.start_line])
    if found is None:
        return None
    text, forms = found
    squeezed = " ".join(text.split()).lower()
    return [
        float(bool(hits) and squeezed in " ".join(hits[0].code.split()).lower())
        for form in forms
        for hits in [list(index.search(form, limit=1, **options))]
    ]

