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


def test_python_example_runs(small_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = re.findall(r"```python\n(.*?)```", README, re.S)
    code = block.replace("path/to/repo", str(small_repo))
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
