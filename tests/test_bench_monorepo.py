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

from benches.speed import monorepo, monorepo_tree

FILES = 150


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("monorepo") / "tree"
    monorepo_tree.build_tree(root, FILES, stdlib_only=True)
    return root


def test_rename_identifiers_keeps_dunders_and_keywords() -> None:
    text = "def parse_args(fooBar, x):\n    return __init__(fooBar) if x else None\n"
    renamed = monorepo_tree.rename_identifiers(text, "atlas")
    assert renamed == (
        "def parse_args_atlas(fooBarAtlas, x):\n    return __init__(fooBarAtlas) if x else None\n"
    )
    assert monorepo_tree.rename_identifiers("macro_rules! m { }", "atlas") == "macro_rules! m { }"


def test_tree_has_every_kind_and_is_deterministic(tree: Path, tmp_path: Path) -> None:
    stamp = monorepo_tree.build_tree(tree, FILES, stdlib_only=True)  # reused: the stamp matches
    assert stamp["files_written"] == FILES
    assert sum(stamp["by_kind"].values()) == FILES
    assert set(stamp["by_kind"]) == {"renamed_copy", *monorepo_tree.SHARES}
    files = [p for p in tree.rglob("*") if p.is_file() and p.name != ".monorepo-stamp.json"]
    assert len(files) == FILES
    again = tmp_path / "again"
    monorepo_tree.build_tree(again, FILES, stdlib_only=True)
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


def test_summarise_estimates_the_fast_index_from_a_probe() -> None:
    keyword = {"seconds": 100.0, "peak_rss_mb": 800.0, "cpu_seconds": 40.0}
    probe = {"seconds_before_embedding": 10.0, "chunks_to_embed": 9_000, "chunks_per_s": 100.0}
    walked = {"chunks": 20_000, "policy": {
        "keyword_only_chunks": 5_000, "keyword_only_chunks_by_rule": {"generated": 5_000},
        "embedded_chunks": 15_000, "distinct_embedded_texts": 9_000,
        "duplicate_texts_saved": 6_000}}
    result = monorepo.summarise({
        "walk_chunk": walked, "keyword_only_index": keyword, "fast_embedding_probe": probe,
        "first_keyword_result": {"seconds": 12.0},
        "embedding_sample": {"default_chunks_per_s": 90.0},
    })
    assert result["fast_index_estimate"]["seconds"] == 200
    assert result["targets"]["fast_vs_keyword_only"]["estimated"] == 2.0
    assert result["targets"]["fast_vs_keyword_only"]["measured"] is None
    assert result["targets"]["first_keyword_result_seconds"]["met"]
    assert result["savings"]["dedup_saved"] == 6_000
    assert result["default_model_estimate"]["embedding_seconds"] == 100
    fast = {"seconds": 250.0, "peak_rss_mb": 900.0, "cpu_seconds": 90.0, "chunks": 20_000,
            "keyword_only_chunks": 5_000, "keyword_only_files": 3, "embedded_chunks": 15_000,
            "chunks_embedded_by_model": 9_000}
    measured = monorepo.summarise({"keyword_only_index": keyword, "fast_index": fast})
    assert measured["ratios"]["fast_index_vs_keyword_only"] == 2.5
    assert not measured["targets"]["fast_vs_keyword_only"]["met"]
    assert measured["targets"]["peak_rss_mb"]["measured"] == 900.0
