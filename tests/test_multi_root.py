"""`sharc.search_many` and `sharc search --path A --path B`: several indexes searched as one,
on one score scale, each hit naming its root (real model, usearch and tantivy)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sharc
from sharc.index import Index

FIXTURES = Path(__file__).parent / "fixtures"


def run_sharc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sharc.cli", *args], capture_output=True, text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Index]:
    """`full`: the small repository; `partial`: the same without its password hashing, plus a
    file of its own; `keyword`: a keyword-only copy of `partial`."""
    base = tmp_path_factory.mktemp("roots")
    full = shutil.copytree(FIXTURES / "repo_small", base / "full")
    partial = shutil.copytree(FIXTURES / "repo_small", base / "partial")
    (partial / "taskboard" / "auth.py").unlink()
    (partial / "taskboard" / "invoices.py").write_text(
        "def invoice_total(lines, tax_rate):\n"
        '    """Sum the invoice lines and add the tax."""\n'
        "    subtotal = sum(line.amount for line in lines)\n"
        "    return subtotal * (1 + tax_rate)\n"
    )
    indexes = {
        "full": sharc.Index.open(full, index_dir=base / "index-full"),
        "partial": sharc.Index.open(partial, index_dir=base / "index-partial"),
        "keyword": sharc.Index.open(partial, index_dir=base / "index-keyword"),
    }
    indexes["full"].update()
    indexes["partial"].update()
    indexes["keyword"].update(embed=False)
    return indexes


def _hits(response: sharc.index.SearchResponse) -> list[tuple[str, str, float]]:
    return [(hit.root, hit.id, hit.score) for hit in response]  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
@pytest.mark.parametrize(
    "query",
    ["hash a password with a salt", "TaskStore", "sort_for_display", "where is taskstore defined",
     "storage.py"],
)
def test_one_index_ranks_as_it_does_alone(roots: dict[str, Index], query: str, mode: str) -> None:
    alone = roots["full"].search(query, mode=mode, limit=8)  # type: ignore[arg-type]
    many = sharc.search_many([roots["full"]], query, mode=mode, limit=8)  # type: ignore[arg-type]
    assert [(h.id, h.score) for h in many] == [(h.id, h.score) for h in alone]
    assert {hit.root for hit in many} == {str(roots["full"].root)}  # type: ignore[attr-defined]
    assert (many.arms, many.query_kind, many.complete) == (
        alone.arms, alone.query_kind, alone.complete,
    )


def test_hits_of_every_root_share_one_score_scale(roots: dict[str, Index]) -> None:
    query = "hash a password with a salt"
    full, partial = roots["full"], roots["partial"]
    alone = partial.search(query, limit=5)  # no password hashing there: its best is weak
    many = sharc.search_many([partial, full], query, limit=20, max_per_file=None)
    assert (many[0].root, many[0].symbol) == (str(full.root), "hash_password")  # type: ignore[attr-defined]
    merged = {(hit.root, hit.id): hit.score for hit in many}  # type: ignore[attr-defined]
    best_alone = merged[(str(partial.root), alone[0].id)]
    # Alone, an index scales its own best hit up; among both, it keeps its place below.
    assert best_alone < alone[0].score
    assert best_alone < many[0].score
    assert all(score <= many[0].score for score in merged.values())


def test_the_same_file_in_two_roots_stays_two_files(roots: dict[str, Index]) -> None:
    full, partial = roots["full"], roots["partial"]
    many = sharc.search_many([full, partial], "sort_for_display", limit=4, max_per_file=1)
    top = {(hit.root, hit.path, hit.symbol) for hit in many[:2]}  # type: ignore[attr-defined]
    assert top == {
        (str(full.root), "taskboard/models.py", "sort_for_display"),
        (str(partial.root), "taskboard/models.py", "sort_for_display"),
    }
    # Alike within the roots' keyword statistics (each has a file the other lacks).
    assert many[0].score == pytest.approx(many[1].score, rel=0.01)


def test_each_root_answers_what_only_it_holds(roots: dict[str, Index]) -> None:
    full, partial = roots["full"], roots["partial"]
    many = sharc.search_many([full, partial], "invoice_total", limit=3)
    assert (many[0].root, many[0].symbol) == (str(partial.root), "invoice_total")  # type: ignore[attr-defined]
    assert many[0].location == "taskboard/invoices.py:1-4"
    # A name in another case is looked up in every root.
    many = sharc.search_many([full, partial], "where is taskstore defined", limit=3)
    assert many.query_kind == "identifier" and many[0].symbol == "TaskStore"
    # A directory named as the place to look: searched first in every root that has it.
    many = sharc.search_many([full, partial], "send a notification in notifier/", limit=4)
    assert {hit.path.split("/")[0] for hit in many[:2]} == {"notifier"}
    # A file asked for by name, in the one root that has it.
    many = sharc.search_many([full, partial], "invoices.py", limit=3)
    assert (many[0].root, many[0].path) == (str(partial.root), "taskboard/invoices.py")  # type: ignore[attr-defined]


def test_filters_apply_in_every_root(roots: dict[str, Index]) -> None:
    full, partial = roots["full"], roots["partial"]
    go = sharc.search_many([full, partial], "deliver notifications", extensions=["go"], limit=10)
    assert go and all(hit.path.endswith(".go") for hit in go)
    assert {hit.root for hit in go} == {str(full.root), str(partial.root)}  # type: ignore[attr-defined]
    under = sharc.search_many(
        [full, partial], "task", path_prefix="web/", mode="keyword", limit=10
    )
    assert under and all(hit.path.startswith("web/") for hit in under)
    glob = sharc.search_many([full, partial], "task", path_glob="*/models.py", limit=10)
    assert glob and {hit.path for hit in glob} == {"taskboard/models.py"}


def test_a_keyword_only_index_joins_by_keywords(roots: dict[str, Index]) -> None:
    full, keyword = roots["full"], roots["keyword"]
    many = sharc.search_many([full, keyword], "invoice_total", limit=3)
    assert many.arms == ("keyword", "semantic") and many.complete is False
    assert (many[0].root, many[0].symbol) == (str(keyword.root), "invoice_total")  # type: ignore[attr-defined]
    assert sharc.search_many([keyword], "x", mode="keyword").complete
    with pytest.raises(sharc.NotIndexedError, match="none of these roots has vectors"):
        sharc.search_many([keyword], "invoice total", mode="semantic")


def test_chunks_without_vectors_rank_by_their_keywords(
    roots: dict[str, Index], tmp_path: Path
) -> None:
    """A chunk the vectors have not seen (keyword-only, or not embedded yet) counts its BM25
    score for the semantic share too, alone and among several roots alike."""
    query = "sum the invoice lines and add the tax"
    full, keyword = roots["full"], roots["keyword"]
    many = sharc.search_many([full, keyword], query, limit=3)
    assert (many[0].root, many[0].symbol) == (str(keyword.root), "invoice_total")  # type: ignore[attr-defined]

    root = shutil.copytree(FIXTURES / "repo_small", tmp_path / "growing")
    index = sharc.Index.open(root, index_dir=tmp_path / "index-growing")
    index.update()
    (root / "taskboard" / "invoices.py").write_text(
        (roots["partial"].root / "taskboard" / "invoices.py").read_text()
    )
    index.update(embed=False)  # the new file's chunk has no vector yet
    alone = index.search(query, limit=3)
    assert alone[0].symbol == "invoice_total" and alone.complete is False
    many = sharc.search_many([index], query, limit=3)
    assert [(h.id, h.score) for h in many] == [(h.id, h.score) for h in alone]


def test_indexes_of_different_models_are_refused_but_for_keywords(
    roots: dict[str, Index], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sharc.multi_root
    from sharc.writer import stored_settings

    partial_manifest = roots["partial"].index_dir / "manifest.sqlite"

    def settings(manifest):  # type: ignore[no-untyped-def]
        stored = stored_settings(manifest)
        return {**stored, "model_id": "another-model"} if manifest.path == partial_manifest else stored

    monkeypatch.setattr(sharc.multi_root, "stored_settings", settings)
    both = [roots["full"], roots["partial"]]
    with pytest.raises(ValueError, match="different models.*another-model"):
        sharc.search_many(both, "hash a password")
    assert sharc.search_many(both, "hash_password", mode="keyword")[0].symbol == "hash_password"


def test_roots_are_checked(roots: dict[str, Index], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="given twice"):
        sharc.search_many([roots["full"], roots["full"]], "x")
    with pytest.raises(ValueError, match="at least one"):
        sharc.search_many([], "x")
    with pytest.raises(ValueError, match="limit"):
        sharc.search_many([roots["full"]], "x", limit=0)
    unindexed = tmp_path / "unindexed"
    unindexed.mkdir()
    with pytest.raises(sharc.NotIndexedError, match="unindexed"):
        sharc.search_many([roots["full"], str(unindexed)], "x")
    assert len(sharc.search_many([roots["full"]], "   ")) == 0


def test_cli_searches_several_paths(roots: dict[str, Index]) -> None:
    full, partial = roots["full"], roots["partial"]
    both = ["--path", str(full.root), "--path", str(partial.root),
            "--index-dir", str(full.index_dir), "--index-dir", str(partial.index_dir)]
    found = run_sharc("search", "sort_for_display", *both, "--json", "--limit", "4")
    assert found.returncode == 0, found.stderr
    rows = [json.loads(line) for line in found.stdout.splitlines()]
    assert {row["root"] for row in rows[:2]} == {str(full.root), str(partial.root)}
    assert all(row["symbol"] == "sort_for_display" for row in rows[:2])
    text = run_sharc("search", "invoice_total", *both, "--limit", "1")
    assert text.stdout.startswith(f"{partial.root / 'taskboard' / 'invoices.py'}:1-4  ")
    one_dir = run_sharc("search", "x", *both[:4], "--index-dir", str(full.index_dir))
    assert one_dir.returncode == 1
    assert "one --index-dir per --path" in one_dir.stderr
