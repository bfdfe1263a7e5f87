"""The last stage for a query that names a file ("request.js", "the cJSON.c file",
`lib/app.ts`): the files of that name come first,
each with its best candidates, or where no arm returned one of them, with its first chunks
(where the file begins; the finder gives none for a name many files share, `index.js`).
Among files of the same name code comes before docs and config, and code before the
declarations of it (`cJSON.c` before `cJSON.h` for "the cJSON file", `index.ts` before
`index.d.ts`); the ranking's order stands within each; the rest of the list follows as
ranked."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from sharc.ranking.penalties import is_declaration_path
from sharc.ranking.records import C, Scored
from sharc.ranking.shaping import diversify

#: C-family headers: beside the source file of their name, what it declares, not its code.
_HEADER = re.compile(r"\.(?:h|hh|hpp|hxx|h\+\+)$", re.IGNORECASE)


def named_files_first(
    candidates: Sequence[Scored[C]],
    named: Mapping[str, Sequence[str]],
    read: Callable[[Sequence[str]], Mapping[str, C]],
    *,
    accepts: Callable[[C], bool] | None = None,
    max_per_file: int | None = 2,
) -> list[Scored[C]]:
    """`candidates` (best first) with the chunks of the `named` files (path -> the ids of
    its first chunks, the files in the order a tie between them goes) above every other,
    scored just above the best; `read` reads the first chunks of a named file no arm
    returned, `accepts` filters them as the search's filters do."""
    if not named:
        return list(candidates)
    lifted = [pair for pair in candidates if pair[0].path in named]
    rest = [pair for pair in candidates if pair[0].path not in named]
    found = {chunk.path for chunk, _ in lifted}
    unread = [i for path, ids in named.items() if path not in found for i in ids]
    records = read(unread) if unread else {}
    lifted += [
        (records[i], 0.0) for i in unread if i in records and (accepts is None or accepts(records[i]))
    ]
    # Files of a name shared across kinds ("the request file": lib/request.js and
    # docs/api/request.md): code before docs and config, code before its declarations, each
    # kind in the ranking's order.
    lifted.sort(key=lambda pair: (getattr(pair[0], "tier", 1), _declares(pair[0].path)))
    top = max((score for _, score in candidates), default=0.0)
    # Above the best, in the order they are in: each one a little above the next.
    step = max(top, 1.0) * 1e-6
    ranked = [
        (chunk, top + step * (len(lifted) - position))
        for position, (chunk, _) in enumerate(lifted)
    ] + rest
    return diversify(ranked, max_per_file=max_per_file) if max_per_file else ranked


def _declares(path: str) -> bool:
    """A file of declarations: a C-family header, a `.d.ts` or `.pyi` stub, an interface."""
    return bool(_HEADER.search(path)) or is_declaration_path(path)
