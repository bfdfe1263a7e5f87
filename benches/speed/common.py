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
def vectors_setting(name: str, value: int) -> Iterator[None]:
    """`sharc.vectors.<name>` set to `value` within, as each search reads it."""
    import sharc.vectors

    kept = getattr(sharc.vectors, name)
    setattr(sharc.vectors, name, value)
    try:
        yield
    finally:
        setattr(sharc.vectors, name, kept)


def hnsw_width(expansion: int) -> contextlib.AbstractContextManager[None]:
    """HNSW searches within look at no fewer than `expansion` candidates
    (`sharc.vectors.SEARCH_EXPANSION`; 0: usearch's own width, as many as asked for)."""
    return vectors_setting("SEARCH_EXPANSION", expansion)


def exact_up_to(count: int) -> contextlib.AbstractContextManager[None]:
    """Vector stores within search exactly up to `count` vectors
    (`sharc.vectors.DEFAULT_EXACT_THRESHOLD`)."""
    return vectors_setting("DEFAULT_EXACT_THRESHOLD", count)


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
