"""The repository benchmark's questions asked otherwise, as people ask them: a symbol
question's name framed in words, typed in another case or convention, a member of a type
named in words, a topic question's first target file asked for by its name, and a line of a
symbol question's definition given by file and line. Every form
is a fixed template, written before sharc was measured on it; `benches.quality.repos` runs
them beside each question and reports what they find.
"""

from __future__ import annotations

import re

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
