"""The keyword-only latency benchmark (benches/speed/keyword_query.py) on a tiny tree, so that
it cannot rot: both searches timed, over the real keyword index, the result written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # `pytest` run without `-m`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benches.speed import keyword_query
from benches.speed.corpus import QUERIES


def test_keyword_query_times_both_searches_and_writes_the_result(tmp_path: Path) -> None:
    out = tmp_path / "speed_keyword_query.json"
    keyword_query.main([
        "--chunks", "300", "--rounds", "1", "--work", str(tmp_path / "work"), "--out", str(out)
    ])
    result = json.loads(out.read_text())
    assert result["chunks"] >= 300 and result["queries"] == len(QUERIES)
    assert 0 < result["without_coverage_p50_ms"] and 0 < result["p50_ms"] <= result["p99_ms"]
    assert result["p50_vs_without_coverage"] == result["p50_ms"] / result["without_coverage_p50_ms"]
    assert result["git"]["commit"]
