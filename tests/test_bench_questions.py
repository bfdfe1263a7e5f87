"""The benchmarks' question sets, as files: the fresh dev questions (as written and asked
tersely) beside the repository benchmark's, and the large repositories' sets (the standard
library's questions in words and names, Rails' questions and names): ids, splits, targets.
Where a large repository's tree is laid out here (or, for the standard library, the running
Python is 3.11), every target is checked against it."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest


def test_fresh_questions_are_dev_only_and_join_the_benchmark_without_clashing_ids() -> None:
    from benches.quality.repos import FRESH_QUERIES, REPO_QUERIES, load_repos
    from benches.quality.tune_repos import dev_repos

    fresh = load_repos("all", questions=FRESH_QUERIES)
    assert len(fresh) == 25 and {repo.split for repo in fresh} == {"dev"}
    assert {q.category for repo in fresh for q in repo.queries} == {"topic", "architecture"}
    benchmark = load_repos("dev", questions=REPO_QUERIES)
    both = dev_repos([], "both")
    assert [repo.name for repo in both] == [repo.name for repo in benchmark]
    ids = [q.id for repo in both for q in repo.queries]
    assert len(ids) == len(set(ids)) == sum(len(r.queries) for r in fresh + benchmark)
    assert dev_repos(["koa"], "fresh")[0].queries == next(
        repo.queries for repo in fresh if repo.name == "koa"
    )
    # Asked tersely: the same questions (ids, categories, targets), 3-7 words each.
    terse = dev_repos([], "fresh-terse")
    assert [(q.id, q.category, q.targets) for r in terse for q in r.queries] == [
        (q.id, q.category, q.targets) for r in fresh for q in r.queries
    ]
    assert all(3 <= len(q.text.split()) <= 7 for r in terse for q in r.queries)


def test_large_repository_questions_split_in_halves_and_name_stdlib_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sysconfig

    from benches.quality import large, large_trees

    questions = large.load_questions()
    assert len(questions) == 60 and len({q.id for q in questions}) == 60
    assert {q.category for q in questions} == set(large.CATEGORIES)
    assert large.half_of("cpy-a01") == "tune" and large.half_of("cpy-b30") == "check"
    for category in large.CATEGORIES:
        halves = {large.half_of(q.id) for q in questions if q.category == category}
        assert halves == set(large.HALVES), category
    # The terse set asks the same things: same ids, categories and targets, 3-7 words each.
    terse = large.load_questions(large.QUESTIONS["terse"])
    assert [(q.id, q.category, q.targets) for q in terse] == [
        (q.id, q.category, q.targets) for q in questions
    ]
    assert all(3 <= len(q.text.split()) <= 7 for q in terse)
    if sys.version_info[:2] == large_trees.PYTHON_VERSION:
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        missing = [t.path for q in questions for t in q.targets if not (stdlib / t.path).is_file()]
        assert missing == []
    # Another Python's standard library is not the one the questions name: refused, not copied.
    with pytest.raises(SystemExit, match="2.7"):
        large_trees.stdlib_tree(tmp_path / "lib", version=(2, 7))
    assert not (tmp_path / "lib").exists()
    # Rails comes from Debian's packages: without Debian's tools, a clear refusal.
    monkeypatch.setattr(large_trees.shutil, "which", lambda tool: None)
    with pytest.raises(SystemExit, match="apt-get"):
        large_trees.rails_tree(tmp_path / "rails")
    assert not (tmp_path / "rails").exists()


def test_large_repository_names_each_target_a_definition_the_library_holds() -> None:
    import re
    import sysconfig

    from benches.quality import large, large_trees

    names = large.load_questions(large.SYMBOLS)
    assert len(names) == 48 and len({q.id for q in names}) == 48
    assert all(q.category == large.SYMBOL and q.duplicate and len(q.targets) == 1 for q in names)
    qualified = [q for q in names if "." in q.text]
    for half in large.HALVES:  # both halves ask bare and qualified names
        assert {("." in q.text) for q in names if large.half_of(q.id) == half} == {True, False}
    assert 10 <= len(qualified) <= 20
    if sys.version_info[:2] != large_trees.PYTHON_VERSION:
        return
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for q in names:
        [target] = q.targets
        lines = (stdlib / target.path).read_text(encoding="utf-8").splitlines()
        first = lines[target.start_line - 1]
        name = q.text.rsplit(".", 1)[-1]
        # The first line declares the name, or decorates the declaration that follows.
        declared = re.search(rf"\b(class|def)\s+{name}\b", first) or (
            first.lstrip().startswith("@")
            and re.search(rf"\b(class|def)\s+{name}\b", lines[target.start_line])
        )
        assert declared, (q.id, target.path, first)


def _large_sets(name: str) -> tuple[list[Any], list[Any], Path]:
    """A large corpus's questions in words and names, checked for their count, unique ids,
    both halves in every category and the names' kind; and where its tree is laid out."""
    from benches.quality import large
    from benches.quality.dataset import data_dir

    corpus = large.CORPORA[name]
    questions = large.load_questions(corpus.questions["full"])
    names = large.load_questions(corpus.questions["symbols"])
    assert len(questions) == 40 and len(names) == 48
    assert len({q.id for q in questions + names}) == 88
    for category in large.CATEGORIES:
        halves = {large.half_of(q.id) for q in questions if q.category == category}
        assert halves == set(large.HALVES), category
    assert all(q.category == large.SYMBOL and q.duplicate for q in names)
    return questions, names, data_dir() / "large" / corpus.name


def test_rails_sets_split_in_halves_and_target_definitions_in_its_gems() -> None:
    questions, names, tree = _large_sets("rails")
    if not tree.is_dir():
        return  # laid out by `python -m benches.quality.large --corpus rails`
    missing = [t.path for q in questions + names for t in q.targets
               if not (tree / t.path).is_file()]
    assert missing == []
    for q in names:
        [target] = q.targets
        line = (tree / target.path).read_text(encoding="utf-8").splitlines()[target.start_line - 1]
        name = re.split(r"::|#|\.", q.text)[-1]
        assert re.search(rf"\b(class|module|def)\s+(self\.)?(\w+::)*{re.escape(name)}(?!\w)", line), (
            q.id, line)


def test_eigen_sets_split_in_halves_and_target_definitions_in_its_headers() -> None:
    questions, names, tree = _large_sets("eigen")
    # Only files with an extension are indexed: no target is a module header (`Eigen/Core`).
    assert all(Path(t.path).suffix == ".h" for q in questions + names for t in q.targets)
    if not tree.is_dir():
        return  # laid out by `python -m benches.quality.large --corpus eigen`
    for q in names:
        [target] = q.targets
        lines = (tree / target.path).read_text(encoding="utf-8").splitlines()
        head = " ".join(lines[target.start_line - 1:target.start_line + 9])
        name = re.split(r"::", q.text)[-1]
        assert re.search(rf"\b{re.escape(name)}\b", head), (q.id, head)
        # A body's end, or a declaration's (`traits` is declared only, and specialised).
        assert lines[target.end_line - 1].rstrip().endswith(("}", ";")), (q.id, target.end_line)
