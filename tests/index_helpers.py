"""Helpers shared by the index tests (`test_index_*.py`): an index of a repository, kept in
the test's own directory, and the symbol a query finds first. The `built` fixture (an index of
`small_repo`, built with the real model) is in `conftest.py`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sharc

if TYPE_CHECKING:
    from sharc.index import Index


def _open(repo: Path, tmp_path: Path, **settings: object) -> Index:
    return sharc.Index.open(repo, index_dir=tmp_path / "index", **settings)  # type: ignore[arg-type]


def _top(index: Index, query: str, **options: object) -> str:
    results = index.search(query, limit=5, **options)  # type: ignore[arg-type]
    assert results, f"no results for {query!r}"
    return results[0].symbol
