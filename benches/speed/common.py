"""What every speed benchmark records: where results go, provenance, the machine."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benches.quality.provenance import git_commit
from benches.quality.provenance import machine as _machine

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benches" / "results"


def machine() -> dict[str, Any]:
    return _machine()


@contextlib.contextmanager
def hnsw_width(expansion: int) -> Iterator[None]:
    """HNSW searches within look at no fewer than `expansion` candidates
    (`sharc.vectors.SEARCH_EXPANSION`; 0: usearch's own width, as many as asked for)."""
    import sharc.vectors

    kept = sharc.vectors.SEARCH_EXPANSION
    sharc.vectors.SEARCH_EXPANSION = expansion
    try:
        yield
    finally:
        sharc.vectors.SEARCH_EXPANSION = kept


@contextlib.contextmanager
def exact_up_to(count: int) -> Iterator[None]:
    """Vector stores within search exactly up to `count` vectors
    (`sharc.vectors.DEFAULT_EXACT_THRESHOLD`)."""
    import sharc.vectors

    kept = sharc.vectors.DEFAULT_EXACT_THRESHOLD
    sharc.vectors.DEFAULT_EXACT_THRESHOLD = count
    try:
        yield
    finally:
        sharc.vectors.DEFAULT_EXACT_THRESHOLD = kept


def write_result(path: Path, result: dict[str, Any]) -> None:
    """Write one benchmark's JSON with the commit and date it was measured at."""
    result = {
        **result,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git": git_commit(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")


def keyword_hit(sharc: Any, root: Path, index_dir: Path) -> bool:
    """Whether a keyword search of the index of `root` in `index_dir` finds a chunk yet (what
    the benchmarks poll for while a cold `sharc index` runs): False while the index is not
    there or is being created."""
    try:
        index = sharc.Index.open(root, index_dir=index_dir)
    except sharc.SharcError:
        return False
    try:
        return bool(index.search("return", mode="keyword"))
    except sharc.SharcError:  # not there yet, or being created
        return False
    finally:
        index.close()
