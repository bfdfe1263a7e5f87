"""The LangChain retriever against langchain-core's documented retriever contract: `invoke` and
`ainvoke` return `Document`s, the number of results is a constructor field (`k`) and a per-call
argument, the retriever composes as a `Runnable`. The framework's own standard tests are in
test_integration_langchain_standard.py."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest
import sharc
from sharc.index import Index

pytest.importorskip(
    "langchain_core", reason="langchain-core is not installed: pip install 'sharc[langchain]'"
)
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402
from sharc.integrations.langchain import SharcRetriever  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
QUERY = "hash a password with a salt"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    base = tmp_path_factory.mktemp("langchain")
    repo = shutil.copytree(FIXTURES / "repo_small", base / "repo")
    built = sharc.Index.open(repo, index_dir=base / "index")
    built.update()
    return built


def test_documents_carry_the_code_and_where_it_is(index: Index) -> None:
    retriever = SharcRetriever(index=index, k=3)
    assert isinstance(retriever, BaseRetriever)
    documents = retriever.invoke(QUERY)
    assert len(documents) == 3 and all(isinstance(d, Document) for d in documents)
    top = documents[0]
    hit = index.search(QUERY, limit=1)[0]
    assert top.page_content == hit.code and top.id == hit.id
    assert top.metadata == {
        "location": "taskboard/auth.py:12-16", "root": str(index.root),
        "path": "taskboard/auth.py", "start_line": 12, "end_line": 16,
        "symbol": "hash_password", "fqn": "hash_password", "kind": "function",
        "language": "python", "score": hit.score, "id": "taskboard/auth.py::hash_password",
    }


def test_k_is_a_field_and_a_per_call_argument(index: Index) -> None:
    assert len(SharcRetriever(index=index, k=1).invoke(QUERY)) == 1
    assert len(SharcRetriever(index=index, k=5).invoke(QUERY)) == 5
    retriever = SharcRetriever(index=index)
    assert len(retriever.invoke(QUERY, None, k=2)) == 2
    assert len(retriever.invoke(QUERY)) == retriever.k == 4
    with pytest.raises(TypeError, match="unknown search options: top_k.*known: .*k, "):
        retriever.invoke(QUERY, top_k=2)


def test_search_options_are_fields(index: Index) -> None:
    keyword = SharcRetriever(index=index, mode="keyword", k=10).invoke("TaskStore")
    assert keyword and keyword[0].metadata["symbol"] == "TaskStore"
    go = SharcRetriever(index=index, extensions=("go",), k=10).invoke("deliver notifications")
    assert go and all(d.metadata["path"].endswith(".go") for d in go)
    python = SharcRetriever(index=index, languages=("python",), path_prefix="taskboard/", k=10)
    assert all(d.metadata["path"].startswith("taskboard/") for d in python.invoke("a task"))
    tests = SharcRetriever(index=index, include_tests=True, k=3).invoke("test sorting tasks")
    assert tests[0].metadata["path"].startswith("tests/")
    overridden = SharcRetriever(index=index).invoke("deliver notifications", extensions=["ts"])
    assert overridden and all(d.metadata["path"].endswith(".ts") for d in overridden)


def test_ainvoke_searches_in_a_thread(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    search = index.search

    def search_behind_the_gate(query: str, **options: object) -> sharc.index.SearchResponse:
        assert gate.wait(60)  # opened by the loop: it must not be blocked by this search
        return search(query, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "search", search_behind_the_gate)
    retriever = SharcRetriever(index=index, k=2)

    async def main() -> list[Document]:
        retrieving = asyncio.create_task(retriever.ainvoke(QUERY))
        await asyncio.sleep(0)
        gate.set()
        return await retrieving

    documents = asyncio.run(main())
    assert len(documents) == 2 and documents[0].metadata["symbol"] == "hash_password"


def test_it_composes_as_a_runnable(index: Index) -> None:
    chain = SharcRetriever(index=index, k=2) | RunnableLambda(
        lambda documents: [d.metadata["location"] for d in documents]
    )
    assert chain.batch([QUERY, "TaskStore"])[0][0] == "taskboard/auth.py:12-16"


def test_several_indexes_are_searched_as_one(index: Index, tmp_path: Path) -> None:
    other_repo = shutil.copytree(index.root, tmp_path / "other")
    other = sharc.Index.open(other_repo, index_dir=tmp_path / "index")
    other.update(embed=False)
    documents = SharcRetriever(
        index=[index, other], k=4, mode="keyword", group_by_file=False
    ).invoke("hash_password")
    assert {d.metadata["root"] for d in documents[:2]} == {str(index.root), str(other.root)}
    assert len({d.id for d in documents}) == 4  # the same chunk in two roots: two ids
    assert documents[0].id == f"{documents[0].metadata['root']}/taskboard/auth.py::hash_password"
