"""The command line: data on stdout, messages on stderr, clear errors with hints."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest


def sharc(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sharc.cli", *args], capture_output=True, text=True, cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_files_is_a_dry_run_with_reasons(small_repo: Path) -> None:
    (small_repo / ".env").write_text("SECRET=1\n")
    (small_repo / "node_modules" / "x").mkdir(parents=True)
    (small_repo / "node_modules" / "x" / "index.js").write_text("module.exports = 1\n")
    result = sharc("files", str(small_repo), "--skipped", "--json")
    assert result.returncode == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    indexed = {r["path"]: r for r in rows if "tier" in r}
    skipped = {r["path"]: r for r in rows if "skipped" in r}
    assert indexed["taskboard/auth.py"]["tier"] == 1
    assert indexed["README.md"]["tier"] == 2
    assert skipped[".env"]["skipped"] == "secret"
    assert skipped["node_modules/"]["skipped"] == "ignored"
    assert "files" in result.stderr and "to index" in result.stderr


def test_chunks_of_a_file_shows_locations_and_headers(small_repo: Path) -> None:
    result = sharc("chunks", str(small_repo / "taskboard" / "storage.py"))
    assert result.returncode == 0
    assert "storage.py:" in result.stdout and "Context:" in result.stdout
    as_json = sharc("chunks", str(small_repo / "taskboard" / "storage.py"), "--json")
    chunks = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert any(c["kind"] == "method" and c["symbol"] == "delete_task" for c in chunks)
    assert all(c["start_line"] <= c["end_line"] for c in chunks)


def test_index_search_status_clear(small_repo: Path, tmp_path: Path) -> None:
    index_dir = str(tmp_path / "idx")
    built = sharc("index", str(small_repo), "--index-dir", index_dir)
    assert built.returncode == 0, built.stderr
    assert "indexed" in built.stderr and built.stdout == ""
    found = sharc("search", "hash a password with a salt", "--path", str(small_repo),
                  "--index-dir", index_dir, "--json", "--limit", "3")
    assert found.returncode == 0, found.stderr
    first = json.loads(found.stdout.splitlines()[0])
    assert first["symbol"] == "hash_password" and first["location"].startswith("taskboard/auth.py:")
    assert all(hit["path"] == first["path"] for hit in first["same_file_hits"])
    # One file per result, its other close hits indented under it; --flat: one hit per line.
    options = ("--path", str(small_repo), "--index-dir", index_dir, "--limit", "4")
    grouped = sharc("search", "task storage", *options).stdout.splitlines()
    assert grouped[0].startswith("taskboard/storage.py:")
    assert grouped[1].startswith("  taskboard/storage.py:")
    heads = [line.split(":")[0] for line in grouped if not line.startswith(" ")]
    assert len(heads) == len(set(heads)) == 4
    flat = sharc("search", "task storage", *options, "--flat").stdout.splitlines()
    assert len(flat) == 4 and not any(line.startswith(" ") for line in flat)
    assert flat[1] == grouped[1].strip()
    status = sharc("status", str(small_repo), "--index-dir", index_dir, "--json")
    assert json.loads(status.stdout)["chunks"] > 0
    assert sharc("clear", str(small_repo), "--index-dir", index_dir).returncode == 0
    missing = sharc("search", "x", "--path", str(small_repo), "--index-dir", index_dir)
    assert missing.returncode == 1
    assert "not indexed" in missing.stderr and "hint: run `sharc index PATH` first" in missing.stderr


def test_a_search_of_a_keyword_only_index_says_why_it_has_no_vectors(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = str(tmp_path / "idx")
    assert sharc("index", str(small_repo), "--index-dir", index_dir, "--keyword-only").returncode == 0
    found = sharc("search", "hash a password", "--path", str(small_repo), "--index-dir", index_dir)
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("taskboard/auth.py:")
    # Nothing is computing vectors: not "still being computed".
    assert "arms: keyword (the index has no vectors: `sharc index` computes them)" in found.stderr


def test_errors_are_messages_not_tracebacks(tmp_path: Path) -> None:
    result = sharc("files", str(tmp_path / "nope"))
    assert result.returncode == 1
    assert "error:" in result.stderr and "hint:" in result.stderr
    assert "Traceback" not in result.stderr
    bad = sharc("files", str(tmp_path), "--ignore", "src/{a,b")
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "invalid ignore pattern" in bad.stderr


def test_a_reader_that_stops_early_is_no_error() -> None:
    """`sharc chunks DIR --code | head -1`, with far more than a pipe's buffer to write: the
    closed pipe ends the command quietly."""
    tree = Path(__file__).resolve().parents[1] / "python" / "sharc"  # some 400 KB of Python
    command = [sys.executable, "-m", "sharc.cli", "chunks", str(tree), "--code"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()
    with process.stderr:
        errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0, errors
    assert "Broken pipe" not in errors and "BrokenPipeError" not in errors


def test_index_says_when_semantic_search_is_ready_and_estimates_the_rest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sharc import cli_index
    from sharc.index import Progress

    clock = iter([100.0, 103.0, 110.0, 120.0])
    monkeypatch.setattr(cli_index.time, "monotonic", lambda: next(clock))
    seen: list[Progress] = []
    ready = cli_index._SemanticReady(seen.append)
    ready(Progress("embedding", chunks_done=500, chunks_total=1000, vectors="fast"))
    assert capsys.readouterr().err == ""  # the fast set is not whole yet
    ready(Progress("ready", vectors="fast", elapsed=2.5))
    for done in (0, 100, 500, 1000):
        ready(Progress("embedding", chunks_done=done, chunks_total=100_000, vectors="default"))
    assert len(seen) == 6  # the progress display still gets every step
    err = capsys.readouterr().err
    assert err.count("semantic search is ready (fast vectors) after 2.5 s") == 1
    # 500 chunks in 10 s: 50 chunks/s, 99,500 left: 33 minutes; said once.
    assert err.count("about 33 minutes left") == 1


def test_sharc_index_says_when_semantic_search_is_ready(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    command = [sys.executable, "-m", "sharc.cli", "index", str(small_repo), "--index-dir",
               str(index_dir)]
    first = subprocess.run(command, capture_output=True, text=True, check=True)
    assert first.stderr.count("semantic search is ready (fast vectors)") == 1
    assert "by the fast model" in first.stderr
    # An update of an index searched on the default model's vectors does not say it again.
    (small_repo / "taskboard" / "extra.py").write_text("def tally(items):\n    return len(items)\n")
    again = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "semantic search is ready" not in again.stderr
    status = subprocess.run(command[:3] + ["status", str(small_repo), "--index-dir",
                                           str(index_dir)], capture_output=True, text=True)
    assert "search reads default" in status.stdout


def test_the_command_limits_malloc_arenas_unless_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sharc.cli import limit_malloc_arenas

    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert limit_malloc_arenas() is False
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        assert limit_malloc_arenas() is True
