"""Where the benchmark results lie and how they are read: one result file, or every quality
file merged (per set and configuration, or per dataset row)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benches" / "results"


def load(name: str, results: Path) -> dict[str, Any] | None:
    """One result file, or None where it has not been written."""
    path = results / name
    return json.loads(path.read_text()) if path.exists() else None


def load_quality(results: Path = RESULTS) -> dict[str, dict[str, Any]]:
    """Every quality result file merged: {set: {config: entry}} (later files win)."""
    merged: dict[str, dict[str, Any]] = {}
    for path in sorted(results.glob("quality*.json")):
        data = json.loads(path.read_text())
        for set_name, configs in data.get("sets", {}).items():
            for config, entry in configs.items():
                merged.setdefault(set_name, {})[config] = {**entry, "commit": data["git"]["commit"]}
    return merged


def load_rows(results: Path = RESULTS) -> list[dict[str, Any]]:
    """Every per-dataset row of every quality result file (later files win)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(results.glob("quality*.json")):
        for row in json.loads(path.read_text()).get("rows", []):
            if "metrics" in row:
                rows[(row["dataset"], row["config"])] = row
    return list(rows.values())


def subset_metrics(rows: list[dict[str, Any]], config: str, datasets: set[str]) -> dict | None:
    """Query-weighted means of a configuration's metrics over some datasets (exact: every
    metric is a mean over queries)."""
    chosen = [r for r in rows if r["config"] == config and r["dataset"] in datasets]
    if {r["dataset"] for r in chosen} != datasets:
        return None
    total = sum(r["queries"] for r in chosen)
    return {
        name: sum(r["metrics"][name] * r["queries"] for r in chosen) / total
        for name in chosen[0]["metrics"]
    } | {"queries": total, "index_seconds": sum(r.get("index_seconds", 0) for r in chosen)}
