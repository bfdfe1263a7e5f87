"""Shared fixtures. The model cache (the prepared int8 model) is shared by the whole session."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from index_helpers import _open

if TYPE_CHECKING:
    from sharc.index import Index

FIXTURES = Path(__file__).parent / "fixtures"

# One cache for the session, set before anything reads it: the quantized model is prepared
# once, and nothing touches the user's real cache.
os.environ.setdefault("SHARC_CACHE_DIR", tempfile.mkdtemp(prefix="sharc-test-cache-"))
os.environ.setdefault("NO_PROGRESS", "1")


@pytest.fixture
def small_repo(tmp_path: Path) -> Path:
    """A writable copy of the small multi-language fixture repository."""
    target = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repo_small", target)
    return target


@pytest.fixture
def built(small_repo: Path, tmp_path: Path) -> Index:
    index = _open(small_repo, tmp_path)
    index.update()
    return index
