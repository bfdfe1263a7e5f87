"""The LlamaIndex retriever against llama-index-core's retriever contract: `retrieve` and
`aretrieve` take a string or a `QueryBundle` and return `NodeWithScore`s, best first, and the
retriever serves a `RetrieverQueryEngine`. Skipped where llama-index-core is not installed."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
import sharc
from sharc.index import Index

pytest.importorskip(
    "llama_index.core",
    reason="llama-index-core is not installed: pip install 'sharc[llamaindex]'"
    " (or 'sharc[test-integrations]' for every framework's tests)",
)
from llama_index.core.llms.mock import MockLLM  # noqa: E402
from llama_index.core.query_engine import RetrieverQueryEngine  # noqa: E402
from llama_index.core.response_synthesizers.no_text import NoText  # noqa: E402
from llama_index.core.retrievers import BaseRetriever  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode  # noqa: E402
from sharc.integrations.llamaindex import SharcRetriever  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
QUERY = "hash a password with a salt"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    base = tmp_path_factory.mktemp("llamaindex")
    repo = shutil.copytree(FIXTURES / "repo_small", base / "repo")
    built = sharc.Index.open(repo, index_dir=base / "index")
    built.update()
    return built


def test_nodes_carry_the_code_the_score_and_where_it_is(index: Index) -> None:
    retriever = SharcRetriever(index, similarity_top_k=3)
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve(QUERY)
    hits = index.search(QUERY, limit=3)
    assert len(nodes) == 3 and all(isinstance(n, NodeWithScore) for n in nodes)
    assert all(isinstance(n.node, TextNode) for n in nodes)
    assert [(n.node.node_id, n.node.text, n.score) for n in nodes] == [
        (h.id, h.code, h.score) for h in hits
    ]
    metadata = nodes[0].node.metadata
    assert metadata["location"] == "taskboard/auth.py:12-16"
    assert (metadata["symbol"], metadata["kind"], metadata["language"]) == (
        "hash_password", "function", "python",
    )
    # What an LLM reads: where the code is and what it defines, then the code.
    shown = nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert shown.startswith("location: taskboard/auth.py:12-16\nsymbol: hash_password\n")
    assert "score" not in shown and shown.endswith(hits[0].code)


def test_a_query_bundle_and_the_options(index: Index) -> None:
    nodes = SharcRetriever(index, similarity_top_k=1).retrieve(QueryBundle(QUERY))
    assert len(nodes) == 1 and nodes[0].node.metadata["symbol"] == "hash_password"
    go = SharcRetriever(index, extensions=["go"], similarity_top_k=10).retrieve("notifications")
    assert go and all(n.node.metadata["path"].endswith(".go") for n in go)
    keyword = SharcRetriever(index, mode="keyword").retrieve("TaskStore")
    assert keyword[0].node.metadata["symbol"] == "TaskStore"


def test_aretrieve(index: Index) -> None:
    nodes = asyncio.run(SharcRetriever(index, similarity_top_k=2).aretrieve(QUERY))
    assert len(nodes) == 2 and nodes[0].node.metadata["symbol"] == "hash_password"


def test_several_indexes_keep_their_nodes_apart(index: Index, tmp_path: Path) -> None:
    other_repo = shutil.copytree(index.root, tmp_path / "other")
    other = sharc.Index.open(other_repo, index_dir=tmp_path / "index")
    other.update(embed=False)
    nodes = SharcRetriever([index, other], mode="keyword", similarity_top_k=4).retrieve(
        "hash_password"
    )
    # LlamaIndex drops nodes whose ids repeat: the same chunk in two roots has two ids.
    assert len(nodes) == 4
    assert {n.node.metadata["root"] for n in nodes[:2]} == {str(index.root), str(other.root)}


def test_it_serves_a_query_engine(index: Index) -> None:
    # LlamaIndex's offline mock LLM, and no text asked of it: the engine hands back the
    # retrieved nodes as its source nodes.
    engine = RetrieverQueryEngine(
        SharcRetriever(index, similarity_top_k=2),
        response_synthesizer=NoText(llm=MockLLM()),
    )
    response = engine.query(QUERY)
    assert response.source_nodes[0].node.metadata["symbol"] == "hash_password"
