"""The public API: small, sorted, typed, and cheap to import."""

from __future__ import annotations

import subprocess
import sys

import sharc


def test_all_is_sorted_and_resolves() -> None:
    assert sharc.__all__ == sorted(sharc.__all__)
    for name in sharc.__all__:
        assert getattr(sharc, name) is not None, name


def test_import_is_cheap() -> None:
    code = (
        "import sys, sharc, sharc.cli; "
        "heavy = [m for m in ('onnxruntime', 'usearch', 'tantivy', 'mcp', 'tokenizers',"
        " 'langchain_text_splitters', 'langchain_core', 'llama_index', 'fastapi', 'asyncio',"
        " 'sharc.integrations') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert output.stdout.strip() == ""


def test_errors_share_a_base() -> None:
    for name in ("ModelError", "IndexCorruptError", "IndexLockedError", "NotIndexedError",
                 "IndexVersionError", "PathNotAllowedError", "CancelledError"):
        assert issubclass(getattr(sharc, name), sharc.SharcError)
    assert issubclass(sharc.PatternError, ValueError)
