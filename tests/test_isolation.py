"""One bad file never stops an update: every file type chunks, and a failure while reading,
splitting, chunking, tokenizing or embedding one file is that file's alone (real tree, real
model, real stores). The failed file keeps what was indexed for it and is tried again."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sharc
from sharc import _core
from sharc.chunking import chunk_files
from sharc.files import walk
from sharc.index import Index
from sharc.textsplit import separators_for

FIXTURES = Path(__file__).parent / "fixtures"
FLAKY = "taskboard/flaky.py"
FLAKY_SOURCE = '''"""Reports for the zyzzyva audit."""


def zyzzyva_report(tasks):
    """Count the tasks of the zyzzyva audit by owner."""
    counts = {}
    for task in tasks:
        counts[task.owner] = counts.get(task.owner, 0) + 1
    return counts
'''


def _samples() -> dict[str, Path]:
    """A real sample file for each language sharc maps, from the test fixtures."""
    samples: dict[str, Path] = {}
    for directory in (FIXTURES / "languages", FIXTURES / "chunk"):
        for path in sorted(directory.rglob("*")):
            classified = _core.classify_path(path.name)
            if path.is_file() and not path.name.endswith(".snap") and classified:
                samples.setdefault(classified[0], path)
    return samples


def test_every_mapped_file_type_chunks_a_real_sample(tmp_path: Path) -> None:
    samples = _samples()
    expected: dict[str, str] = {}
    for number, (pattern, language, tier) in enumerate(_core.known_file_types()):
        assert language in samples, f"add a sample of {language} to tests/fixtures/languages"
        name = f"sample{pattern}" if pattern.startswith(".") else pattern
        target = tmp_path / f"t{number:02d}" / name
        target.parent.mkdir()
        shutil.copyfile(samples[language], target)
        expected[f"t{number:02d}/{name}"] = language
        if tier != 1:
            separators_for(language)  # raises if the mapping is broken
    walked = walk(tmp_path)
    assert {f.path for f in walked.files} == set(expected)
    for chunked in chunk_files(tmp_path, walked.files):
        assert chunked.error is None, (chunked.path, chunked.error)
        assert chunked.chunks, f"{chunked.path}: no chunks"
        assert {c.language for c in chunked.chunks} == {expected[chunked.path]}


def test_perl_is_chunked_by_its_grammar() -> None:
    source = (FIXTURES / "languages" / "sample.pl").read_text()
    chunks = sharc.chunk_text("tasks.pl", source)
    assert chunks and all(c.language == "perl" for c in chunks)
    method = next(c for c in chunks if c.symbol == "tasks_of")
    assert (method.kind, method.fqn) == ("method", "TaskStore.tasks_of")
    assert method.header.startswith("# Context: package TaskStore (tasks.pl)")
    assert method.code.startswith("sub tasks_of {")


def test_a_perl_file_no_longer_stops_the_repository(small_repo: Path, tmp_path: Path) -> None:
    (small_repo / "tools").mkdir()
    shutil.copyfile(FIXTURES / "languages" / "sample.pl", small_repo / "tools" / "tasks.pl")
    command = [sys.executable, "-m", "sharc.cli", "index", str(small_repo), "--keyword-only",
               "--index-dir", str(tmp_path / "index")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "0 failed" in done.stderr
    index = sharc.Index.open(small_repo, index_dir=tmp_path / "index")
    assert index.search("tasks_of", mode="keyword")[0].path == "tools/tasks.pl"


def _index(repo: Path, tmp_path: Path) -> Index:
    (repo / FLAKY).write_text(FLAKY_SOURCE)
    return sharc.Index.open(repo, index_dir=tmp_path / "index")


def _edit_everything(repo: Path) -> None:
    """Change the flaky file and another file, and add a new one."""
    flaky = repo / FLAKY
    flaky.write_text(flaky.read_text().replace("by owner", "per owner") + "\n\nLIMIT = 3\n")
    models = repo / "taskboard" / "models.py"
    models.write_text(models.read_text() + "\n\ndef archived_marker():\n    return 'quokka'\n")
    (repo / "taskboard" / "export.py").write_text("def export_csv(tasks):\n    return 'wombat'\n")


def _assert_isolated(index: Index, repo: Path, failing: Callable[[], Any], reason: str) -> None:
    """With `failing` in force, an update fails the flaky file alone and keeps its old chunks;
    once it is gone, the next update indexes the file's new state."""
    before = index.search("zyzzyva_report", mode="keyword")[0]
    _edit_everything(repo)
    with failing():
        report = index.update(embed=False)
    assert [path for path, _ in report.failed] == [FLAKY]
    assert reason in report.failed[0][1]
    assert report.files_added == 1 and report.files_changed == 1
    kept = index.search("zyzzyva_report", mode="keyword")[0]
    assert (kept.id, kept.code) == (before.id, before.code)
    assert index.search("quokka", mode="keyword")[0].path == "taskboard/models.py"
    assert index.search("wombat", mode="keyword")[0].path == "taskboard/export.py"

    retried = index.update(embed=False)
    assert retried.failed == [] and retried.files_changed == 1
    assert "per owner" in index.search("zyzzyva_report", mode="keyword")[0].code


class _Patch:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: object, name: str, value: object):
        self.monkeypatch, self.target, self.name, self.value = monkeypatch, target, name, value

    def __call__(self) -> _Patch:
        return self

    def __enter__(self) -> None:
        self.monkeypatch.setattr(self.target, self.name, self.value)

    def __exit__(self, *_: object) -> None:
        self.monkeypatch.undo()


def test_a_text_splitter_that_raises_fails_only_its_file(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _index(small_repo, tmp_path)
    index.update(embed=False)
    doc = small_repo / "docs" / "architecture.md"
    before = index.search("architecture", mode="keyword", path_prefix="docs")[0]
    doc.write_text(doc.read_text() + "\n## Quotas\n\nEach owner gets ten tasks.\n")
    (small_repo / "NOTES.md").write_text("# Notes\n\nThe platypus release.\n")
    import sharc.chunking

    real = sharc.chunking.split_text_file

    def split(path: str, *args: object) -> list[object]:
        if path == "docs/architecture.md":
            raise RuntimeError("splitter bug")
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sharc.chunking, "split_text_file", split)
    report = index.update(embed=False)
    assert report.failed == [("docs/architecture.md",
                              "the text splitter failed on this file: RuntimeError: splitter bug")]
    assert index.search("platypus", mode="keyword")[0].path == "NOTES.md"
    kept = index.search("architecture", mode="keyword", path_prefix="docs")[0]
    assert (kept.id, kept.code) == (before.id, before.code)
    monkeypatch.undo()
    assert index.update(embed=False).failed == []
    assert index.search("quotas", mode="keyword")[0].path == "docs/architecture.md"


def test_a_core_chunker_error_fails_only_its_file(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _index(small_repo, tmp_path)
    index.update(embed=False)
    real = _core.chunk_files

    def chunk(root: str, files: list[tuple[str, str]], **options: object) -> list[object]:
        if any(path == FLAKY for path, _ in files):
            raise _core.CoreError("grammar exploded")
        return real(root, files, **options)  # type: ignore[arg-type]

    _assert_isolated(index, small_repo, _Patch(monkeypatch, _core, "chunk_files", chunk),
                     "CoreError: grammar exploded")


def test_an_unreadable_file_fails_only_itself(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _index(small_repo, tmp_path)
    index.update(embed=False)
    real = _core.chunk_files

    def chunk(root: str, files: list[tuple[str, str]], **options: object) -> list[object]:
        # What the core does with a file that vanishes or turns unreadable after the walk.
        gone = [(path + ".gone" if path == FLAKY else path, lang) for path, lang in files]
        return real(root, gone, **options)  # type: ignore[arg-type]

    _assert_isolated(index, small_repo, _Patch(monkeypatch, _core, "chunk_files", chunk),
                     "cannot read")


def _flaky_token_ids(index: Index) -> np.ndarray:
    return np.array(index.embedder()._tokenizer.encode("zyzzyva", add_special_tokens=False).ids)


class _FailingSession:
    """An ONNX Runtime session that fails on every batch holding the token run `bad_ids`."""

    def __init__(self, session: Any, bad_ids: np.ndarray) -> None:
        self.session, self.bad_ids = session, bad_ids

    def run(self, outputs: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        ids = feed["input_ids"]
        if ids.shape[1] >= len(self.bad_ids):
            windows = np.lib.stride_tricks.sliding_window_view(ids, len(self.bad_ids), axis=1)
            if (windows == self.bad_ids).all(axis=-1).any():
                raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return self.session.run(outputs, feed)


class _FailingTokenizer:
    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def encode_batch(self, texts: list[str], *args: object, **kwargs: object) -> list[Any]:
        if any("zyzzyva" in text for text in texts):
            raise ValueError("tokenizer: invalid sequence")
        return self.tokenizer.encode_batch(texts, *args, **kwargs)


@pytest.mark.parametrize("stage", ["encoder", "tokenizer"])
def test_an_embedding_error_leaves_only_its_file_without_vectors(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    index = _index(small_repo, tmp_path)
    embedder = index.embedder()
    if stage == "encoder":
        monkeypatch.setattr(embedder, "_session",
                            _FailingSession(embedder._session, _flaky_token_ids(index)))
    else:
        monkeypatch.setattr(embedder, "_truncating", _FailingTokenizer(embedder._truncating))
    report = index.update()
    assert [path for path, _ in report.failed] == [FLAKY]
    assert report.failed[0][1].startswith("embedding failed:")
    flaky_chunks = len(index._reader_manifest().chunk_ids_of(FLAKY))
    stats = index.stats()
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks - flaky_chunks
    assert index.search("zyzzyva_report", mode="keyword")[0].path == FLAKY
    semantic = index.search("retry a failed call with exponential backoff", mode="semantic",
                            vectors="default")
    assert semantic[0].path == "taskboard/scheduler.py"
    audit = index.search("count the audit's tasks by owner", mode="semantic", limit=50,
                         vectors="default")
    assert FLAKY not in {r.path for r in audit}
    # The default model's set is not whole: search stays on the fast set, which has the file.
    fast = index.search("count the audit's tasks by owner", mode="semantic", limit=50)
    assert fast.vectors == "fast" and FLAKY in {r.path for r in fast}

    monkeypatch.undo()
    retried = index.update()
    assert retried.failed == [] and retried.chunks_embedded == flaky_chunks
    stats = index.stats()
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks
    assert index.search("count the audit's tasks by owner", mode="semantic")[0].path == FLAKY


def test_a_search_during_the_first_update_says_indexing_has_just_started(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.errors import NotIndexedError
    from sharc.manifest import Manifest

    index = sharc.Index.open(small_repo, index_dir=tmp_path / "index")
    monkeypatch.setattr("sharc.store_readers.FIRST_KEYWORD_WAIT_SECONDS", 0.3)
    with index._writer_lock():  # what `update` holds; the manifest comes first
        Manifest(tmp_path / "index" / "manifest.sqlite", writable=True).close()
        with pytest.raises(NotIndexedError, match="has just started"):
            sharc.Index.open(small_repo, index_dir=tmp_path / "index").search("task")
    with pytest.raises(NotIndexedError, match="no keyword index yet"):
        sharc.Index.open(small_repo, index_dir=tmp_path / "index").search("task")
    index.update(embed=False)
    assert sharc.Index.open(small_repo, index_dir=tmp_path / "index").search("TaskStore")
