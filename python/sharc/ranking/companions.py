"""Stage 7b: C and C++ companions. A header and the source that implements it (`os.h` and
`os-inl.h`, `cJSON.h` and `cJSON.c`, `App.hpp` and `impl/App_inl.hpp`) are one unit to a
reader: the header says what there is, the source how it works, and a question about either
is answered by both. The arms rarely rank them together (a header's declarations share few
words and little meaning with a question about behaviour), so each file among the best
files of a search brings its companions up behind it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sharc.ranking.records import C, Scored

#: A C or C++ file's name: its stem, then an optional `-inl` / `_impl` part and the extension.
_C_FAMILY = re.compile(
    r"^(?P<stem>.+?)(?:[-_](?:inl|impl))?\.(?:h|hh|hpp|hxx|c|cc|cpp|cxx|ipp|inl|tpp)$",
    re.IGNORECASE,
)

#: More files than this sharing a stem among the best files are not one unit
#: (`util.h` in every directory of a monorepo).
MAX_COMPANIONS = 3


def companion_stem(path: str) -> str | None:
    """The name a C or C++ file shares with its companions (`os` for `include/os-inl.h`,
    `App` for `impl/App_inl.hpp`), None for a file of another language."""
    match = _C_FAMILY.match(path.rsplit("/", 1)[-1])
    return match.group("stem").lower() if match else None


def lift_companions(
    candidates: Sequence[Scored[C]], factor: float, window: int
) -> list[Scored[C]]:
    """`candidates` with each C or C++ file among the best `window` files followed by its
    companions there: a companion's best candidate rises to `factor` times the best score of
    its unit where that is above its own (at most `MAX_COMPANIONS` files a unit); the order
    of `candidates` is kept."""
    if factor <= 0.0 or not candidates:
        return list(candidates)
    best: dict[str, int] = {}
    for position, (chunk, score) in enumerate(candidates):
        current = best.get(chunk.path)
        if current is None or score > candidates[current][1]:
            best[chunk.path] = position
    leading = sorted(best, key=lambda path: -candidates[best[path]][1])[:window]
    units: dict[str, list[str]] = {}
    for path in leading:
        stem = companion_stem(path)
        if stem is not None:
            units.setdefault(stem, []).append(path)
    lifted = list(candidates)
    for paths in units.values():
        if len(paths) < 2 or len(paths) > MAX_COMPANIONS:
            continue
        top = candidates[best[paths[0]]][1]
        for path in paths[1:]:
            chunk, score = candidates[best[path]]
            lifted[best[path]] = (chunk, max(score, factor * top))
    return lifted
