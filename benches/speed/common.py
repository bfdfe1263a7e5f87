"""What every speed benchmark records: where results go, provenance, the machine."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from benches.quality.provenance import git_commit
from benches.quality.provenance import machine as _machine

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benches" / "results"


def machine() -> dict[str, Any]:
    return _machine()


def write_result(path: Path, result: dict[str, Any]) -> None:
    """Write one benchmark's JSON with the commit and date it was measured at."""
    result = {
        **result,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git": git_commit(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
