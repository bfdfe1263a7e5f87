"""Stage 7: shaping. Best first, and no file filling the top."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def diversify(
    results: Sequence[T],
    max_per_file: int = 2,
    *,
    path_of: Callable[[T], str] | None = None,
) -> list[T]:
    """Keep the order, but let no file have more than `max_per_file` results before every
    other result has had its place; the overflow follows, in its original order.

    `path_of` reads an item's path; by default the `path` attribute of the item, or of its first
    element for the `(chunk, score)` pairs the ranking stages return.
    """
    if max_per_file <= 0:
        raise ValueError(f"max_per_file must be positive, got {max_per_file}")
    read_path: Callable[[Any], str] = path_of or _path_of
    kept: list[T] = []
    overflow: list[T] = []
    per_file: dict[str, int] = {}
    for item in results:
        path = read_path(item)
        count = per_file.get(path, 0)
        (kept if count < max_per_file else overflow).append(item)
        per_file[path] = count + 1
    return kept + overflow


def _path_of(item: Any) -> str:
    if isinstance(item, tuple):
        item = item[0]
    return str(item.path)
