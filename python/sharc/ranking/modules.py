"""What a definition's module says of everything in it: kept to its package (a Python module
named with one leading underscore), deprecated (a Python module that warns so when it is
imported), or declarations only (a `.pyi` or `.d.ts` stub). Of several definitions of one
name, these come after the public, current, implemented one: `io.IOBase` before the
pure-Python twin in `_pyio.py`, `string.Template` before the one of the deprecated `pipes`,
`importlib.metadata.Distribution` before the one of the deprecated `distutils` package, and
attrs' `asdict` in `_funcs.py` before its declaration in `__init__.pyi`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import Protocol

#: Files of declarations only: type stubs, whose every definition stands in for code elsewhere.
_DECLARATIONS_ONLY = re.compile(r"\.(pyi|d\.[cm]?ts)$")
#: A statement at a module's top level that warns on import: `warnings.warn(...)`,
#: `warn(...)`, `warnings._deprecated(__name__, ...)`, `_deprecated(...)` (CPython's helper).
_TOP_LEVEL_WARNING = re.compile(r"^(?:warnings\.)?(_deprecated|warn)\(", re.MULTILINE)
#: The categories that say a module is on its way out.
_DEPRECATION = re.compile(r"\b(?:Pending)?DeprecationWarning\b")
#: A line that starts a new top-level statement (not a continuation or a closing bracket).
_NEXT_STATEMENT = re.compile(r"^[^\s)\]}#]", re.MULTILINE)


class ModuleSource(Protocol):
    """What is read: the first run of Python modules' top-level code, above their first
    definition, where a module warns on import (`sharc.manifest.Manifest`)."""

    def module_preambles(self, paths: Iterable[str]) -> dict[str, str]: ...


def in_private_module(path: str) -> bool:
    """Whether a Python file is a module its package keeps to itself: its name, or the name of
    a package it lies in, begins with one underscore (`_pyio.py`, `tomllib/_parser.py`,
    `importlib/_bootstrap_external.py`; not `__init__.py` or `__main__.py`). What it defines
    is reached through a public module, which defines the same name where both implement it
    (`io` and its pure-Python twin `_pyio`): there the public one comes first."""
    parts = path.split("/")
    parts[-1] = parts[-1].split(".", 1)[0]
    return any(part.startswith("_") and not part.startswith("__") for part in parts)


def declares_only(path: str) -> bool:
    """Whether a file holds declarations and no code: a Python type stub (`__init__.pyi`) or a
    TypeScript declaration file (`index.d.ts`), however long a declaration in it is."""
    return _DECLARATIONS_ONLY.search(path) is not None


def warns_deprecated(code: str) -> bool:
    """Whether a module's top-level code warns, unconditionally, that the module is
    deprecated: `warnings._deprecated(__name__, remove=(3, 13))`, or `warnings.warn(...)`
    with a `DeprecationWarning` (an indented warning is conditional, and not read)."""
    for match in _TOP_LEVEL_WARNING.finditer(code):
        following = _NEXT_STATEMENT.search(code, match.end())
        statement = code[match.start() : following.start() if following else len(code)]
        if match.group(1) == "_deprecated" or _DEPRECATION.search(statement):
            return True
    return False


def deprecated_modules(source: ModuleSource, paths: Iterable[str]) -> set[str]:
    """Those of the Python files `paths` that are deprecated: their module warns so, or the
    `__init__.py` of a package they lie in does (`distutils/dist.py`)."""
    paths = set(paths)
    if not paths:
        return set()
    packages = {path: _packages_of(path) for path in paths}
    code = source.module_preambles(sorted(paths.union(*packages.values())))
    warned = {path for path, text in code.items() if warns_deprecated(text)}
    return {path for path in paths if path in warned or not warned.isdisjoint(packages[path])}


def _packages_of(path: str) -> set[str]:
    """The `__init__.py` of each directory above `path`."""
    found = set()
    directory = posixpath.dirname(path)
    while directory:
        found.add(f"{directory}/__init__.py")
        directory = posixpath.dirname(directory)
    return found
