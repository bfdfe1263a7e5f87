"""LangChain's own standard retriever tests (`langchain_tests`), run on `SharcRetriever` over
the small fixture repository with the real model. Skipped where langchain-tests is not
installed (`pip install 'sharc[test-integrations]'`, `make test-integrations`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sharc
from sharc.index import Index

pytest.importorskip(
    "langchain_tests",
    reason="langchain-tests is not installed: pip install 'sharc[test-integrations]'"
    " (make test-integrations)",
)
from langchain_tests.integration_tests import RetrieversIntegrationTests  # noqa: E402
from sharc.integrations.langchain import SharcRetriever  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"

# The suite's one coroutine test is written for pytest-asyncio's auto mode; this project runs
# it in strict mode, which wants the mark. Marking the inherited function itself keeps it
# the suite's own (its guard fails on any test a subclass redefines).
pytest.mark.asyncio(RetrieversIntegrationTests.test_ainvoke_returns_documents)


class TestSharcRetrieverStandard(RetrieversIntegrationTests):
    index: Index

    @pytest.fixture(autouse=True, scope="class")
    @classmethod
    def _built_index(cls, tmp_path_factory: pytest.TempPathFactory) -> None:
        base = tmp_path_factory.mktemp("langchain-standard")
        repo = shutil.copytree(FIXTURES / "repo_small", base / "repo")
        cls.index = sharc.Index.open(repo, index_dir=base / "index")
        cls.index.update()

    @property
    def retriever_constructor(self) -> type[SharcRetriever]:
        return SharcRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, object]:
        return {"index": self.index}

    @property
    def retriever_query_example(self) -> str:
        return "hash a password with a salt"
