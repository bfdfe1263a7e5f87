"""The README tells the truth: its example runs, its tables match the results, its commands exist.

The same holds for the pages it links to: benches/README.md (every benchmark figure) and
docs/guide.md (the service and retriever examples).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
GUIDE = (REPO / "docs" / "guide.md").read_text()


def _report():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(REPO))
    try:
        from benches import report
    finally:
        sys.path.remove(str(REPO))
    return report


@pytest.mark.parametrize("document", ["README.md", "benches/README.md"])
def test_benchmark_tables_match_the_results_json(document: str) -> None:
    report = _report()
    path = REPO / document
    assert report.section(path) == report.DOCUMENTS[path](report.RESULTS), (
        "run `python -m benches.report` after `make bench`"
    )


def test_readme_reads_in_two_minutes() -> None:
    assert len(README.splitlines()) <= 230, "move detail to docs/guide.md or benches/README.md"
    assert "](benches/README.md)" in README and "](docs/guide.md)" in README


def test_repository_table_shows_topic_and_duplicates_when_the_results_have_them(
    tmp_path: Path,
) -> None:
    report = _report()
    data = json.loads((report.RESULTS / "quality_repos.json").read_text())
    for entry in data["splits"].values():  # results from before the topic questions
        for summary in entry["modes"].values():
            summary["categories"].pop("topic", None)
            summary.pop("definition_at_1_duplicate", None)
            summary["overall"].pop("shown_ndcg", None)
    older = tmp_path / "older"
    older.mkdir()
    (older / "quality_repos.json").write_text(json.dumps(data))
    plain = report.render_summary(older)
    assert "| topic |" not in plain and "defined more than once" not in plain
    for entry in data["splits"].values():
        for summary in entry["modes"].values():
            summary["categories"]["topic"] = {"file_ndcg": 61.25}
            summary["definition_at_1_duplicate"] = 87.5
            summary["overall"]["shown_ndcg"] = 70.0
    (tmp_path / "quality_repos.json").write_text(json.dumps(data))
    summary, details = report.render_summary(tmp_path), report.render_details(tmp_path)
    for text in (summary, details):
        assert "| architecture | topic | definition at 1 |" in text
        assert "| definition at 1, names defined more than once |" in text
        assert "| 61.2 |" in text and "| 87.5 |" in text
    assert "as returned" in details and "as returned" not in summary


def _python_block(containing: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README + GUIDE, re.S)
    (block,) = [b for b in blocks if containing in b]
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


def test_concurrency_results_are_a_full_run() -> None:
    result = json.loads((REPO / "benches" / "results" / "speed_concurrency.json").read_text())
    assert set(result["threads"]) == {"1", "2", "4"} and result["chunks"] >= 100_000
