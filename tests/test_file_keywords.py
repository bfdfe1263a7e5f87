"""The file keyword index (`sharc.file_keywords`): one BM25 document per indexed file, written
in the steps of the chunk index, repaired from the manifest, and read by ranking."""

from __future__ import annotations

from pathlib import Path

import sharc
from sharc.file_keywords import GENERATION_META, file_doc_id, file_evidence, path_of
from sharc.keyword import KeywordDoc
from sharc.manifest import Manifest
from sharc.stores import FILE_KEYWORD, open_keyword


def _documents(index_dir: Path) -> set[str]:
    store = open_keyword(index_dir, writable=False, name=FILE_KEYWORD)
    try:
        return store.all_ids()
    finally:
        store.close()


def _expected(index_dir: Path) -> set[str]:
    """One document per file of the manifest that has chunks."""
    manifest = Manifest(index_dir / "manifest.sqlite", writable=False)
    try:
        return {
            file_doc_id(path, record.content_hash)
            for path, record in manifest.files().items()
            if manifest.chunk_ids_of(path)
        }
    finally:
        manifest.close()


def _update(root: Path, index_dir: Path) -> None:
    sharc.Index.open(root, index_dir=index_dir).update(embed=False)


def test_each_file_is_one_document_kept_in_step_with_its_changes(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    _update(small_repo, index_dir)
    documents = _documents(index_dir)
    assert documents == _expected(index_dir)
    assert {path_of(d) for d in documents} >= {"taskboard/auth.py", "notifier/queue.go"}

    before = {path_of(d): d for d in documents}
    labels = small_repo / "taskboard" / "labels.py"
    labels.write_text("def colour_for_label(label):\n    return ['red', 'green'][len(label) % 2]\n")
    with (small_repo / "taskboard" / "storage.py").open("a") as handle:
        handle.write("\n\ndef archive_board(board):\n    return list(board)\n")
    (small_repo / "taskboard" / "auth.py").unlink()
    (small_repo / "notifier" / "queue.go").write_text("")
    _update(small_repo, index_dir)

    after = {path_of(d): d for d in _documents(index_dir)}
    assert set(after.values()) == _expected(index_dir)
    assert "taskboard/labels.py" in after
    assert after["taskboard/storage.py"] != before["taskboard/storage.py"]
    assert after["taskboard/models.py"] == before["taskboard/models.py"]
    assert "taskboard/auth.py" not in after and "notifier/queue.go" not in after


def test_a_missing_or_lagging_file_index_is_rebuilt_from_the_manifest(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    _update(small_repo, index_dir)
    expected = _expected(index_dir)

    # A document a kill left behind, and a generation that says the index lags.
    store = open_keyword(index_dir, writable=True, name=FILE_KEYWORD)
    store.upsert([KeywordDoc(id=file_doc_id("gone.py", "0" * 32), path="gone.py", body="x")])
    store.commit()
    store.close()
    manifest = Manifest(index_dir / "manifest.sqlite", writable=True)
    manifest.set_meta(GENERATION_META, "-1")
    manifest.commit()
    manifest.close()
    _update(small_repo, index_dir)
    assert _documents(index_dir) == expected

    # An index from before the file index (or one whose directory was lost) gets one.
    for entry in sorted((index_dir / FILE_KEYWORD).rglob("*"), reverse=True):
        entry.unlink() if entry.is_file() else entry.rmdir()
    (index_dir / FILE_KEYWORD).rmdir()
    _update(small_repo, index_dir)
    assert _documents(index_dir) == expected


def test_file_evidence_scores_whole_files_against_the_best_one(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "plugins.py").write_text(
        "def discover_plugins(paths):\n    '''Find plugin modules under paths.'''\n"
        "    return [p for p in paths if p.endswith('_plugin.py')]\n\n\n"
        "def load_plugin(module):\n    '''Import a plugin module and return its entry point.'''\n"
        "    return __import__(module).entry_point\n\n\n"
        "def register_plugin(registry, plugin):\n    registry[plugin.name] = plugin\n"
    )
    (root / "src" / "text.py").write_text(
        "def plugin_label(name):\n    return name.title()\n"
    )
    (root / "src" / "colours.py").write_text("def palette():\n    return ['red']\n")
    index_dir = tmp_path / "index"
    _update(root, index_dir)
    store = open_keyword(index_dir, writable=False, name=FILE_KEYWORD)
    try:
        evidence = file_evidence(store)
        question = "how are plugin modules discovered and loaded"
        shares = evidence(question, {"src/plugins.py", "src/text.py", "src/colours.py"})
        assert shares["src/plugins.py"] == 1.0
        assert 0.0 < shares["src/text.py"] < 0.5
        assert "src/colours.py" not in shares
        # Only the files asked about are scored, still against the best file of the index.
        assert set(evidence(question, {"src/text.py"})) == {"src/text.py"}
        assert evidence(question, {"src/text.py"})["src/text.py"] == shares["src/text.py"]
        assert evidence(question, set()) == {}
        assert evidence("zebra", {"src/plugins.py"}) == {}
        assert file_evidence(store, languages=["go"])(question, {"src/plugins.py"}) == {}
    finally:
        store.close()


def test_hybrid_search_ranks_with_the_evidence_of_whole_files(
    small_repo: Path, tmp_path: Path, monkeypatch: object
) -> None:
    from sharc import ranking

    index = sharc.Index.open(small_repo, index_dir=tmp_path / "index")
    index.update()
    seen: list[object] = []
    real_rank = ranking.rank

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(kwargs.get("files"))
        return real_rank(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ranking, "rank", spy)  # type: ignore[attr-defined]
    question = "how are passwords hashed and checked"
    results = index.search(question)
    assert results[0].path == "taskboard/auth.py"
    evidence = seen[-1]
    assert callable(evidence)
    shares = evidence(question, {"taskboard/auth.py", "taskboard/models.py"})
    assert shares["taskboard/auth.py"] == max(shares.values())
    index.search(question, mode="keyword")
    assert seen[-1] is None
