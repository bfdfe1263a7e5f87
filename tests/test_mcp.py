"""The MCP server, driven by the SDK's own client over stdio, as an assistant would."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest

pytest.importorskip("mcp")
pytest.importorskip("watchfiles")

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

FIXTURE = Path(__file__).parent / "fixtures" / "repo_small"
TOOLS = {
    "index_codebase", "search_code", "get_indexing_status", "clear_index", "sync_index",
    "start_watch", "stop_watch", "get_chunk", "find_references", "get_call_graph",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture
def server_env(tmp_path: Path) -> dict[str, str]:
    """Keyword-only servers: fast. The tests that ask questions use `model_env`."""
    return {
        "SHARC_CACHE_DIR": str(tmp_path / "cache"),
        "SHARC_WATCH_DEBOUNCE": "0.5",
        "SHARC_KEYWORD_ONLY": "1",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
    }


@pytest.fixture
def model_env(server_env: dict[str, str]) -> dict[str, str]:
    """Servers with the real embedding model."""
    return {**server_env, "SHARC_KEYWORD_ONLY": "0"}


@asynccontextmanager
async def connect(roots: list[Path], env: dict[str, str]) -> AsyncIterator[Client]:
    """A client session with a fresh server process; its stderr goes to server-N.log."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sharc.mcp_server", *(str(r) for r in roots)],
        env=env,
    )
    logs = Path(env["SHARC_CACHE_DIR"]).parent
    number = len(list(logs.glob("server-*.log")))
    with _open_log(logs / f"server-{number}.log") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            yield client


def _open_log(path: Path) -> TextIO:
    return open(path, "w")


async def call(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    if result.is_error:
        raise ToolCallError(text)
    return text


class ToolCallError(Exception):
    pass


async def status_of(client: Client, root: Path) -> dict[str, Any]:
    text = await call(client, "get_indexing_status", path=str(root))
    return json.loads(text.split("\n", 1)[1])


async def until(check: Callable[[], Awaitable[Any]], within: float = 60.0) -> Any:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        value = await check()
        if value:
            return value
        await anyio.sleep(0.2)
    raise AssertionError(f"condition not met within {within} s")


async def index_and_wait(client: Client, root: Path, within: float = 90.0) -> dict[str, Any]:
    started = time.monotonic()
    text = await call(client, "index_codebase", path=str(root))
    assert time.monotonic() - started < 5.0, "index_codebase must return at once"
    assert "Watching" in text

    async def ready() -> dict[str, Any] | None:
        status = await status_of(client, root)
        return status if status["state"] == "ready" else None

    return await until(ready, within)


def first_location(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("1. Location "):
            return line.split()[2]
    raise AssertionError(f"no results in:\n{text}")


def generate(root: Path, count: int) -> None:
    package = root / "generated"
    package.mkdir()
    for number in range(count):
        (package / f"module_{number:05d}.py").write_text(
            f"def compute_value_{number}(items):\n"
            f"    '''Scale and sum batch {number}.'''\n"
            f"    return sum(i * {number % 7 + 1} for i in items)\n\n\n"
            f"class Handler{number}:\n    def handle(self, request):\n        return {number}\n"
        )


def run(main: Callable[[], Awaitable[None]]) -> None:
    anyio.run(main)


def test_tools_keep_claude_contexts_names_and_parameters(
    repo: Path, server_env: dict[str, str]
) -> None:
    async def main() -> None:
        async with connect([repo], server_env) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert TOOLS <= set(tools)
            index = tools["index_codebase"].input_schema["properties"]
            assert {"path", "force", "customExtensions", "ignorePatterns"} <= set(index)
            assert "ctx" not in index
            search = tools["search_code"].input_schema
            assert {"path", "query", "limit", "extensionFilter"} <= set(search["properties"])
            assert search["properties"]["limit"]["default"] == 3
            assert set(search["required"]) == {"path", "query"}

    run(main)


def test_find_references_and_the_call_graph(repo: Path, server_env: dict[str, str]) -> None:
    async def main() -> None:
        async with connect([repo], server_env) as client:
            await index_and_wait(client, repo)
            text = await call(client, "find_references", path=str(repo), symbol="Task")
            head, *lines = text.splitlines()
            assert "reference(s) to 'Task'; defined at taskboard/models.py:" in head
            assert "taskboard/api.py:36  call in create_task" in text
            assert any(line.startswith("taskboard/storage.py:9  import") for line in lines)
            imports = await call(client, "find_references", path=str(repo), symbol="Task",
                                 kinds=["import"])
            assert all(" import in " in line for line in imports.splitlines()[1:])
            with pytest.raises(ToolCallError, match="unknown kinds"):
                await call(client, "find_references", path=str(repo), symbol="Task",
                           kinds=["bogus"])

            graph = await call(client, "get_call_graph", path=str(repo),
                               symbol="create_task", depth=2)
            nodes = json.loads(graph.split("\n", 1)[1])
            assert nodes[0]["fqn"] == "create_task" and nodes[0]["depth"] == 0
            called = {edge["name"] for edge in nodes[0]["edges"]}
            assert "Task" in called
            assert any(node["fqn"] == "Task" and node["depth"] == 1 for node in nodes)
            callers = await call(client, "get_call_graph", path=str(repo), symbol="Task",
                                 direction="callers", depth=1)
            assert '"fqn": "create_task"' in callers

            searched = await call(client, "search_code", path=str(repo), query="create_task",
                                  includeGraph=True)
            assert "Calls: " in searched
            assert "Why: " not in searched
            explained = await call(client, "search_code", path=str(repo), query="create_task",
                                   explain=True)
            why = [line for line in explained.splitlines() if line.startswith("Why: ")]
            assert why and "first: the definition of the name asked" in why[0]

    run(main)


@pytest.mark.slow
def test_index_poll_search_and_read_a_chunk(repo: Path, model_env: dict[str, str]) -> None:
    async def main() -> None:
        async with connect([repo], model_env) as client:
            assert (await status_of(client, repo))["state"] == "not_indexed"
            status = await index_and_wait(client, repo)
            # Every chunk the policy embeds (a file's preamble lines are keyword-only).
            assert status["files"] >= 15 and status["chunks_total"] <= status["chunks"]
            assert status["embedded_chunks"] == status["chunks_total"] > 0
            assert status["fast_embedded_chunks"] == status["chunks_total"]
            assert status["searched_vectors"] == "default"
            assert status["percent"] == 100.0 and status["index_size"] > 0
            assert status["last_sync"] and status["watching"] is True

            text = await call(client, "search_code", path=str(repo),
                              query="hash a password with a random salt")
            assert first_location(text).startswith("taskboard/auth.py:")
            assert "(keyword + semantic; default vectors)" in text.splitlines()[0]
            assert "hash_password" in text.split("\n2. ")[0]
            assert "```python" in text and "Context:" in text
            score = float(text.split("score ", 1)[1].split()[0])
            assert 0.0 <= score <= 1.0

            # Each result is a file; its other close hits are named under it.
            text = await call(client, "search_code", path=str(repo), query="task storage")
            first = text.split("\n2. ")[0]
            assert first_location(text).startswith("taskboard/storage.py:")
            assert "Also in this file: taskboard/storage.py:" in first

            text = await call(client, "search_code", path=str(repo), query="retry_with_backoff")
            assert first_location(text).startswith("taskboard/scheduler.py:")

            text = await call(client, "search_code", path=str(repo), limit=1,
                              query="retry network errors when fetching", extensionFilter=[".ts"])
            assert first_location(text).startswith("web/src/api.ts:")
            assert "\n2. " not in text

            # Scoped to a directory inside the root.
            text = await call(client, "search_code", path=str(repo / "notifier"),
                              query="bounded queue safe for concurrent use")
            assert first_location(text).startswith("notifier/queue.go:")

            chunk = await call(client, "get_chunk", path=str(repo),
                               location="taskboard/auth.py:19")
            assert "verify_password" in chunk and "function" in chunk.splitlines()[0]
            chunk = await call(client, "get_chunk", path=str(repo),
                               location="taskboard/auth.py:12-16", contextLines=1)
            assert chunk.splitlines()[0].startswith("Location taskboard/auth.py:12-16")
            assert len(chunk.splitlines()) == 1 + 5 + 2
            whole = await call(client, "get_chunk", path=str(repo), location="web/src/api.ts")
            source = (repo / "web" / "src" / "api.ts").read_text()
            assert len(whole.splitlines()) == 1 + len(source.splitlines())

    run(main)


def test_watcher_updates_results_and_the_syntax_guard_keeps_old_ones(
    repo: Path, server_env: dict[str, str]
) -> None:
    async def main() -> None:
        async with connect([repo], server_env) as client:
            await index_and_wait(client, repo)
            storage = repo / "taskboard" / "storage.py"
            storage.write_text(storage.read_text() + textwrap.dedent('''

                def export_tasks_as_csv(store: TaskStore, path: str) -> int:
                    """Write every task to a CSV file and return how many rows were written."""
                    import csv
                    tasks = store.load_tasks()
                    with open(path, "w", newline="") as handle:
                        writer = csv.writer(handle)
                        for task in tasks:
                            writer.writerow([task.id, task.title, task.owner])
                    return len(tasks)
            '''))

            async def exported() -> bool:
                text = await call(client, "search_code", path=str(repo),
                                  query="export_tasks_as_csv")
                return "export_tasks_as_csv" in text.split("\n2. ")[0]

            await until(exported, 30)

            auth = repo / "taskboard" / "auth.py"
            auth.write_text(auth.read_text().replace(
                "def verify_password(password: str, stored: str) -> bool:",
                "def verify_password(password: str, stored: str) -> bool:\n    if (\n",
            ))

            async def held() -> list[str]:
                return (await status_of(client, repo))["syntax_held"]

            assert await until(held, 30) == ["taskboard/auth.py"]
            text = await call(client, "search_code", path=str(repo), query="verify_password")
            assert first_location(text).startswith("taskboard/auth.py:")
            assert "hmac.compare_digest" in text
            summary = await call(client, "get_indexing_status", path=str(repo))
            assert "syntax errors keep their previous version" in summary

            await call(client, "stop_watch", path=str(repo))
            assert (await status_of(client, repo))["watching"] is False

    run(main)


@pytest.mark.slow
def test_clear_index_cancels_a_long_indexing_within_a_second(
    repo: Path, server_env: dict[str, str]
) -> None:
    generate(repo, 3000)

    async def main() -> None:
        async with connect([repo], server_env) as client:
            await call(client, "index_codebase", path=str(repo))

            async def working() -> bool:
                status = await status_of(client, repo)
                return status["state"] == "indexing" and (
                    status["files_done"] > 0 or status["chunks_done"] > 0
                )

            await until(working, 60)
            started = time.monotonic()
            text = await call(client, "clear_index", path=str(repo))
            assert time.monotonic() - started < 1.5
            assert "Cleared" in text
            status = await status_of(client, repo)
            assert status["state"] == "not_indexed" and status["watching"] is False
            with pytest.raises(ToolCallError, match="index_codebase"):
                await call(client, "search_code", path=str(repo), query="compute_value_7")

    run(main)


@pytest.mark.slow
def test_search_answers_while_vectors_are_still_being_computed(
    repo: Path, model_env: dict[str, str]
) -> None:
    generate(repo, 1500)

    async def main() -> None:
        async with connect([repo], model_env) as client:
            await call(client, "index_codebase", path=str(repo))

            async def embedding() -> bool:
                return (await status_of(client, repo))["phase"] == "embedding"

            await until(embedding, 60)
            text = await call(client, "search_code", path=str(repo), query="compute_value_777")
            assert first_location(text).startswith("generated/module_00777.py:")
            assert "indexing is still running" in text

    run(main)


def test_paths_outside_the_roots_are_refused(
    repo: Path, server_env: dict[str, str], tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("API_KEY = 'do-not-read'\n")
    (repo / "escape").symlink_to(outside, target_is_directory=True)

    async def main() -> None:
        async with connect([repo], server_env) as client:
            attempts = [
                ("index_codebase", {"path": str(outside)}),
                ("index_codebase", {"path": f"{repo}/../outside"}),
                ("search_code", {"path": str(repo / "escape"), "query": "API_KEY"}),
                ("get_indexing_status", {"path": "/"}),
                ("clear_index", {"path": str(tmp_path)}),
                ("get_chunk", {"path": str(repo), "location": "../outside/secret.py:1"}),
                ("get_chunk", {"path": str(repo), "location": "escape/secret.py:1"}),
            ]
            for tool, arguments in attempts:
                with pytest.raises(ToolCallError, match="PathNotAllowedError") as refused:
                    await call(client, tool, **arguments)
                assert "outside the roots" in str(refused.value)
                assert "do-not-read" not in str(refused.value)

    run(main)


def test_progress_notifications_while_waiting(repo: Path, server_env: dict[str, str]) -> None:
    async def main() -> None:
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        async with connect([repo], server_env) as client:
            result = await client.call_tool(
                "index_codebase", {"path": str(repo), "waitSeconds": 120},
                progress_callback=on_progress,
            )
            assert not result.is_error
            assert "up to date" in result.content[0].text
            assert seen and seen[-1][0] == 100.0 and seen[-1][1] == 100.0
            assert [p for p, _, _ in seen] == sorted(p for p, _, _ in seen)

    run(main)


@pytest.mark.slow
def test_two_servers_share_one_index(repo: Path, server_env: dict[str, str]) -> None:
    async def main() -> None:
        async with connect([repo], server_env) as first, connect([repo], server_env) as second:
            await call(first, "index_codebase", path=str(repo))
            await call(second, "index_codebase", path=str(repo))

            async def both_ready() -> bool:
                states = [(await status_of(c, repo))["state"] for c in (first, second)]
                return states == ["ready", "ready"]

            await until(both_ready, 120)
            for client in (first, second):
                text = await call(client, "search_code", path=str(repo), query="make_handler")
                assert first_location(text).startswith("taskboard/api.py:")
            # One wrote, the other saw the lock (or found the work done): both share one index.
            statuses = [await status_of(c, repo) for c in (first, second)]
            assert statuses[0]["files"] == statuses[1]["files"] > 0

    run(main)


def test_streamable_http_transport(repo: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, **server_env}
    with open(tmp_path / "http.log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "sharc.mcp_server", "--http", "--port", str(port), str(repo)],
            env=env, stdout=log, stderr=log,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert process.poll() is None, (tmp_path / "http.log").read_text()
                    assert time.monotonic() < deadline, "the HTTP server did not start"
                    time.sleep(0.2)

            async def main() -> None:
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    text = await call(client, "index_codebase", path=str(repo), waitSeconds=60)
                    assert "up to date" in text
                    text = await call(client, "search_code", path=str(repo),
                                      query="renderTaskList", limit=1)
                    assert first_location(text).startswith("web/src/components/TaskList.ts:")

            run(main)
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_a_new_server_syncs_an_existing_index_at_start(
    repo: Path, server_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.index import Index

    monkeypatch.setenv("SHARC_CACHE_DIR", server_env["SHARC_CACHE_DIR"])
    index = Index.open(repo)
    index.update(embed=False)
    index.close()
    # Changed while no server ran.
    (repo / "taskboard" / "archive.py").write_text("def archive_finished_tasks(store):\n    pass\n")

    async def main() -> None:
        async with connect([repo], server_env) as client:
            async def found() -> bool:
                text = await call(client, "search_code", path=str(repo),
                                  query="archive_finished_tasks")
                return "taskboard/archive.py" in text

            await until(found, 30)
            assert (await status_of(client, repo))["watching"] is True

    run(main)


def test_a_search_says_when_no_indexing_computes_the_missing_vectors(tmp_path: Path) -> None:
    from sharc.live.status import LiveStatus
    from sharc.mcp_tools import _format_results
    from sharc.search_types import SearchResponse

    partial = SearchResponse([], ("keyword",), "natural_language", complete=False)
    idle = LiveStatus(root=str(tmp_path), state="ready", indexed=True)
    text = _format_results(tmp_path, "hash a password", partial, idle)
    assert "vectors for part of its chunks only" in text and "still being computed" not in text
    running = LiveStatus(root=str(tmp_path), state="indexing", indexed=True, phase="embedding")
    assert "indexing is still running" in _format_results(tmp_path, "x", partial, running)
