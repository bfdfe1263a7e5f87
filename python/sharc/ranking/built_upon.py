"""Of several definitions of one name, the one the others build on: a definition whose file the
file of another definition of the same name imports. Haskell's lazy `ByteString`
(`Data/ByteString/Lazy/Internal.hs`) is made of strict chunks, and its module imports
`Data.ByteString.Internal.Type`, where the strict `ByteString` is defined: asked for
`ByteString`, the strict one comes first.

An import is read as the module path it names (`qualifier` then `name`: `Data.ByteString` and
`Internal`, `crate::error` and `Error`, `./errors`), and it names a file whose path, less its
extension, ends with those segments. A bare name (`import os`) names no file surely enough.

A class or mixin named with its qualifier builds on the definition it names (`inherited`):
ActiveModel's `Callbacks` includes `ActiveSupport::Callbacks`, and ActiveRecord's includes
`ActiveModel::Callbacks`; asked for `Callbacks`, the one they include comes first.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

#: What separates the segments of a module path, in the languages' spellings.
_SEPARATORS = re.compile(r"::|[./\\]")
#: Segments that say where to start, not where to go.
_RELATIVE = frozenset({"", "crate", "self", "super", "@"})


class ImportRow(Protocol):
    """An import, or a base class or mixin, named in a file (`sharc.manifest.ReferenceRow` of
    kind `import` or `inherit`)."""

    @property
    def path(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def qualifier(self) -> str: ...

    @property
    def kind(self) -> str: ...


def module_segments(name: str, qualifier: str) -> tuple[str, ...]:
    """The segments of the module path an import names: `("Data", "ByteString", "Internal")`
    for name `Internal` under `Data.ByteString`."""
    text = f"{qualifier}.{name}" if qualifier else name
    return tuple(part for part in _SEPARATORS.split(text) if part not in _RELATIVE)


def file_segments(path: str) -> tuple[str, ...]:
    """The segments of `path` less the file's extension: `("src", "errors")` for
    `src/errors.ts`."""
    directory, _, name = path.rpartition("/")
    stem = name.split(".", 1)[0] or name
    return (*directory.split("/"), stem) if directory else (stem,)


def built_upon(paths: Collection[str], imports: Iterable[ImportRow]) -> set[str]:
    """Those of `paths` that an import made in another of `paths` names."""
    return _named_by([(path, file_segments(path)) for path in paths], imports)


def inherited(definitions: Iterable[tuple[str, str]], bases: Iterable[ImportRow]) -> set[str]:
    """The files of `definitions` (path and qualified name, of one symbol) whose definition a
    base class or mixin named with its qualifier in the file of another of them is: the
    definition's path less its extension, then its qualified name, ends with the base's
    segments (`ActiveSupport::Callbacks` names `ActiveSupport.Callbacks` in
    `active_support/callbacks.rb`; Python's `class Callbacks(base.Callbacks)` the `Callbacks`
    of `base.py`). A bare base (`include Callbacks`) names none surely enough."""
    return _named_by(
        [(path, (*file_segments(path), *_SEPARATORS.split(fqn))) for path, fqn in definitions],
        bases,
    )


def _named_by(places: Sequence[tuple[str, tuple[str, ...]]], rows: Iterable[ImportRow]) -> set[str]:
    """The paths of `places` (a path and the segments that name what lies there) whose
    segments end with the module path a row made in another of those paths names (two
    segments at least)."""
    files = {path for path, _ in places}
    found: set[str] = set()
    for row in rows:
        wanted = module_segments(row.name, row.qualifier)
        if len(wanted) < 2 or row.path not in files:
            continue
        found.update(
            path for path, segments in places
            if path != row.path and segments[-len(wanted):] == wanted
        )
    return found
