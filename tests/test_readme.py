"""The README tells the truth: its example runs, its tables match the results, its commands exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def test_benchmark_tables_match_the_results_json() -> None:
    sys.path.insert(0, str(REPO))
    try:
        from benches.report import readme_section, render
    finally:
        sys.path.remove(str(REPO))
    assert readme_section() == render(), "run `python -m benches.report` after `make bench`"


def _python_block(containing: str) -> str:
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if containing in b]
    return block


def test_python_example_runs(small_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _python_block("index.update()").replace("path/to/repo", str(small_repo))
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 5
    assert all(re.match(r"\S+:\d+-\d+ \d\.\d\d \w+ ", line) for line in lines), lines


def test_every_command_is_documented_and_has_help() -> None:
    from sharc.cli import _parser

    commands = _parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in commands:
        assert f"`sharc {name}" in README, f"README does not document `sharc {name}`"
        result = subprocess.run(
            [sys.executable, "-m", "sharc.cli", name, "--help"], capture_output=True, text=True
        )
        assert result.returncode == 0 and "usage:" in result.stdout


def test_mcp_config_snippet_names_the_installed_command() -> None:
    assert '"command": "sharc"' in README and '"mcp"' in README


def test_service_example_runs(small_repo: Path) -> None:
    from fastapi.testclient import TestClient

    code = _python_block("FastAPI").replace("path/to/repo", str(small_repo))
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    with TestClient(namespace["app"]) as client:  # runs the lifespan: the index is built
        one = client.get("/search/api", params={"q": "hash a password with a salt"}).json()
        everywhere = client.get("/search", params={"q": "TaskStore", "limit": 2}).json()
    assert one["results"][0]["symbol"] == "hash_password" and len(one["results"]) == 5
    assert one["arms"] == ["keyword", "semantic"] and one["complete"] is True
    assert everywhere["results"][0]["root"] == str(small_repo.resolve())
    assert everywhere["results"][0]["symbol"] == "TaskStore"


@pytest.mark.parametrize("framework", ["langchain", "llamaindex"])
def test_retriever_examples_run(
    small_repo: Path, capsys: pytest.CaptureFixture[str], framework: str
) -> None:
    if framework == "llamaindex":
        pytest.importorskip(
            "llama_index.core", reason="llama-index-core is not installed (sharc[llamaindex])"
        )
    __import__("sharc").Index.open(small_repo).update()
    code = _python_block(f"sharc.integrations.{framework}").replace("path/to/repo", str(small_repo))
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("taskboard/storage.py:"), lines


def test_concurrency_table_matches_its_results() -> None:
    import json

    sys.path.insert(0, str(REPO))
    try:
        from benches.speed.concurrency import readme_section, readme_table
    finally:
        sys.path.remove(str(REPO))
    result = json.loads((REPO / "benches" / "results" / "speed_concurrency.json").read_text())
    assert set(result["threads"]) == {"1", "2", "4"} and result["chunks"] >= 100_000
    assert readme_section(README) == readme_table(result), (
        "run `python -m benches.speed.concurrency`"
    )
