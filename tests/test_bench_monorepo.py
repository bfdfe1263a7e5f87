"""The monorepo benchmark (benches/speed/monorepo.py) on a tiny tree, so that it cannot rot:
the generator (deterministic, every kind of file, reused by its stamp) and one quick
measurement with the real `sharc index` processes."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # `pytest` run without `-m`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benches.speed import monorepo

FILES = 150


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("monorepo") / "tree"
    monorepo.build_tree(root, FILES, stdlib_only=True)
    return root


def test_rename_identifiers_keeps_dunders_and_keywords() -> None:
    text = "def parse_args(fooBar, x):\n    return __init__(fooBar) if x else None\n"
    renamed = monorepo.rename_identifiers(text, "atlas")
    assert renamed == (
        "def parse_args_atlas(fooBarAtlas, x):\n    return __init__(fooBarAtlas) if x else None\n"
    )
    assert monorepo.rename_identifiers("macro_rules! m { }", "atlas") == "macro_rules! m { }"


def test_tree_has_every_kind_and_is_deterministic(tree: Path, tmp_path: Path) -> None:
    stamp = monorepo.build_tree(tree, FILES, stdlib_only=True)  # reused: the stamp matches
    assert stamp["files_written"] == FILES
    assert sum(stamp["by_kind"].values()) == FILES
    assert set(stamp["by_kind"]) == {"renamed_copy", *monorepo.SHARES}
    files = [p for p in tree.rglob("*") if p.is_file() and p.name != ".monorepo-stamp.json"]
    assert len(files) == FILES
    again = tmp_path / "again"
    monorepo.build_tree(again, FILES, stdlib_only=True)
    (again / ".monorepo-stamp.json").unlink()
    copy = tmp_path / "copy"
    copy_files = [p for p in tree.rglob("*") if p.is_file() and p.name != ".monorepo-stamp.json"]
    for path in copy_files:
        target = copy / path.relative_to(tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    assert _digest(again) == _digest(copy)


def test_policy_sees_what_a_monorepo_holds(tree: Path) -> None:
    walked, sample = monorepo.walk_and_chunk(tree, sample_size=5)
    assert walked["files"] >= FILES - 2  # the walk may skip a file (a secret-like name)
    rules = walked["policy"]["keyword_only_chunks_by_rule"]
    assert {"generated", "vendored", "lockfile", "minified", "data"} <= set(rules)
    assert walked["policy"]["duplicate_texts_saved"] > 0  # the copied twins
    assert len(sample) == 5


@pytest.mark.slow
def test_quick_measurement(tree: Path, tmp_path: Path) -> None:
    result = monorepo.measure(tree, tmp_path / "work", sample_size=0, first_timeout=60)
    keyword, fast = result["keyword_only_index"], result["fast_index"]
    assert keyword["chunks"] == fast["chunks"] == result["walk_chunk"]["chunks"]
    assert keyword["embedded_chunks"] == 0 and keyword["peak_rss_mb"] > 0
    assert fast["embedded_chunks"] == result["walk_chunk"]["policy"]["embedded_chunks"]
    assert result["savings"]["dedup_saved"] > 0
    assert result["first_keyword_result"]["seconds"] is not None
    assert set(result["targets"]) == set(monorepo.TARGETS)
