"""Two vector sets in one index (`sharc.fast_vectors`): the fast model's first, the default
model's after it, search on the fast ones until the default ones are whole; real models,
usearch and tantivy on the small fixture repository."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import sharc
from sharc.index import Index
from sharc.manifest import Manifest
from sharc.stores import MANIFEST
from sharc.vector_segments import open_for_search
from sharc.vector_sets import DEFAULT_SET, FAST_SET, VectorSet
from writer_kill import killed_after_first_line

QUESTION = "hash a password with a salt"


def _open(repo: Path, index_dir: Path, **settings: object) -> Index:
    return sharc.Index.open(repo, index_dir=index_dir, **settings)  # type: ignore[arg-type]


def _vectors_of(index_dir: Path, vector_set: VectorSet) -> dict[int, np.ndarray]:
    """Every key that counts in `vector_set`, with its vector."""
    manifest = Manifest(index_dir / MANIFEST, writable=False)
    try:
        vectors = open_for_search(index_dir, manifest, None, vector_set)
        if vectors is None:
            return {}
        keys = vectors.keys()
        found: dict[int, np.ndarray] = {}
        for store in (vectors._main, vectors._delta):  # the delta's win, as in search
            if store is not None:
                present, matrix = store.vectors(keys)
                found.update(zip(present.tolist(), matrix))
        return {key: found[key] for key in keys.tolist()}
    finally:
        manifest.close()


def _embeddable(index_dir: Path) -> set[int]:
    manifest = Manifest(index_dir / MANIFEST, writable=False)
    try:
        return set(manifest.embeddable_keys().tolist())
    finally:
        manifest.close()


def _same_vectors(first: Path, second: Path) -> None:
    for vector_set in (DEFAULT_SET, FAST_SET):
        one, other = _vectors_of(first, vector_set), _vectors_of(second, vector_set)
        assert one.keys() == other.keys() == _embeddable(first), vector_set.name
        for key, vector in one.items():
            assert float(vector @ other[key]) > 0.999, (vector_set.name, key)


def test_a_cold_index_makes_both_sets_and_searches_the_default_one(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    stages: list[str] = []
    index = _open(small_repo, index_dir)
    report = index.update(
        progress=lambda p: stages.append(p.vectors) if p.phase == "embedding" else None
    )
    # The fast set first, then the default model's.
    assert stages and stages[0] == "fast" and stages[-1] == "default"
    assert stages == sorted(stages, key=lambda name: name == "default")
    stats = index.stats()
    embeddable = stats.chunks - stats.keyword_only_chunks
    assert report.fast_chunks_embedded > 0 and report.chunks_embedded > 0
    assert stats.embedded_chunks == stats.fast_embedded_chunks == embeddable
    assert stats.searched_vectors == "default"
    assert (index_dir / FAST_SET.main).exists() and (index_dir / DEFAULT_SET.main).exists()

    default = index.search(QUESTION)
    assert default.vectors == "default" and default.complete
    fast = index.search(QUESTION, vectors="fast")
    assert fast.vectors == "fast" and fast.complete
    assert fast[0].symbol == default[0].symbol == "hash_password"
    # The fast set's queries go through the index's own default model (loaded once).
    assert index.fast_embedder()._teacher is index.embedder()
    assert index.search("hash_password", mode="keyword").vectors is None
    with pytest.raises(ValueError, match="vectors must be one of"):
        index.search(QUESTION, vectors="slow")  # type: ignore[arg-type]


def test_search_reads_the_fast_set_until_the_default_one_is_whole(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    index = _open(small_repo, index_dir)
    stop = threading.Event()
    seen: list[sharc.SearchResponse] = []

    def progress(p: sharc.Progress) -> None:
        # Between two batches of the default model: what a reader sees meanwhile.
        if p.phase == "embedding" and p.vectors == "default" and p.chunks_done > 0:
            if not seen:
                seen.append(_open(small_repo, index_dir).search(QUESTION))
            stop.set()

    with pytest.raises(sharc.CancelledError):
        index.update(progress=progress, cancel=stop)
    assert seen[0].vectors == "fast" and seen[0].complete
    assert seen[0][0].symbol == "hash_password"
    stats = index.stats()
    assert 0 < stats.embedded_chunks < stats.fast_embedded_chunks
    assert stats.searched_vectors == "fast"
    partial = index.search(QUESTION, vectors="default")
    assert partial.vectors == "default" and not partial.complete

    # The next update goes on with the default model alone, then switches.
    report = index.update()
    assert report.fast_chunks_embedded == 0
    assert report.chunks_embedded == stats.fast_embedded_chunks - stats.embedded_chunks
    assert index.search(QUESTION).vectors == "default"

    clean = tmp_path / "clean"
    _open(small_repo, clean).update()
    _same_vectors(index_dir, clean)


def test_updates_keep_both_sets_in_line_and_search_stays_on_the_default_set(
    small_repo: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    index = _open(small_repo, index_dir)
    index.update()
    auth = small_repo / "taskboard" / "auth.py"
    auth.write_text(auth.read_text() + '\n\ndef rotate_secret(key: str) -> str:\n    """Make a'
                    ' new signing secret from the old one."""\n    return key[::-1]\n')
    (small_repo / "taskboard" / "models.py").unlink()
    searched: list[str | None] = []

    def progress(p: sharc.Progress) -> None:
        if p.phase == "embedding" and p.vectors == "fast" and not searched:
            searched.append(_open(small_repo, index_dir).search(QUESTION).vectors)

    report = index.update(progress=progress)
    assert searched == ["default"]  # no switch back while an update runs
    assert report.fast_chunks_embedded >= 1 and report.chunks_embedded >= 1
    stats = index.stats()
    assert stats.embedded_chunks == stats.fast_embedded_chunks
    assert stats.embedded_chunks == stats.chunks - stats.keyword_only_chunks
    # Written to the delta and the tombstones, not by rewriting the main files.
    assert (index_dir / FAST_SET.delta).exists() and (index_dir / DEFAULT_SET.delta).exists()
    assert index.search("rotate_secret", vectors="fast")[0].symbol == "rotate_secret"

    clean = tmp_path / "clean"
    _open(small_repo, clean).update()
    _same_vectors(index_dir, clean)


def test_an_index_of_the_fast_model_or_without_the_fast_set_has_one_set(
    small_repo: Path, tmp_path: Path
) -> None:
    fast_dir = tmp_path / "fast"
    fast = _open(small_repo, fast_dir, model="fast")
    report = fast.update()
    assert report.fast_chunks_embedded == 0 and report.chunks_embedded > 0
    assert not (fast_dir / FAST_SET.main).exists()
    assert fast.stats().searched_vectors == "fast"
    # Its own vectors are the fast model's, whichever is asked for.
    assert fast.search(QUESTION).vectors == "fast"
    assert fast.search(QUESTION, vectors="fast").vectors == "fast"

    index_dir = tmp_path / "index"
    _open(small_repo, index_dir).update()
    assert (index_dir / FAST_SET.main).exists()
    plain = _open(small_repo, index_dir, fast_vectors=False)
    assert plain.update().chunks_embedded == 0
    assert not (index_dir / FAST_SET.main).exists()
    assert plain.stats().fast_embedded_chunks == 0
    with pytest.raises(sharc.NotIndexedError, match="no fast vectors"):
        plain.search(QUESTION, vectors="fast")
    # The index remembers the choice; asking again makes the set again.
    assert _open(small_repo, index_dir).update().fast_chunks_embedded == 0
    again = _open(small_repo, index_dir, fast_vectors=True)
    assert again.update().fast_chunks_embedded > 0
    assert again.search(QUESTION, vectors="fast").vectors == "fast"


def test_another_fast_model_makes_the_fast_set_again(small_repo: Path, tmp_path: Path) -> None:
    import sqlite3

    index_dir = tmp_path / "index"
    index = _open(small_repo, index_dir)
    index.update()
    with sqlite3.connect(index_dir / MANIFEST) as connection:
        connection.execute("UPDATE meta SET value = 'static-older' WHERE key = 'fast_model_id'")
    report = index.update()
    # The default set stays; only the fast one is made again (its journal named other vectors).
    assert report.chunks_embedded == 0
    assert report.fast_chunks_embedded == index.stats().fast_embedded_chunks > 0


def test_search_many_reads_one_set_for_every_root(small_repo: Path, tmp_path: Path) -> None:
    from sharc.multi_root import search_many

    whole = _open(small_repo, tmp_path / "whole")
    whole.update()
    other_root = tmp_path / "other"
    other_root.mkdir()
    (other_root / "salt.py").write_text(
        'def salted_digest(password: str, salt: bytes) -> bytes:\n'
        '    """Hash a password with a salt."""\n    return salt + password.encode()\n'
    )
    halfway = _open(other_root, tmp_path / "halfway")
    stop = threading.Event()
    with pytest.raises(sharc.CancelledError):  # before the default model's first batch
        halfway.update(cancel=stop, progress=lambda p: stop.set() if p.vectors == "default" else None)
    assert halfway.stats().searched_vectors == "fast"
    response = search_many([whole, halfway], QUESTION)
    assert response.vectors == "fast"  # the one scale both have
    assert {hit.root for hit in response} == {str(small_repo), str(other_root)}
    assert search_many([whole], QUESTION).vectors == "default"


def test_a_question_in_words_takes_the_fast_sets_opinion_beside_the_default_sets_answer(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.multi_root import search_many
    from sharc.ranking import FAST_SEMANTIC, KEYWORD, SEMANTIC, RankingSettings, pipeline

    ranked: list[dict[str, list[tuple[str, float]]]] = []
    rank_hits = pipeline.rank_hits

    def spy(query: str, hits: dict[str, list[tuple[str, float]]], *args: object, **kw: object):
        ranked.append(dict(hits))
        return rank_hits(query, hits, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "rank_hits", spy)

    def hits_of(search: object) -> dict[str, list[tuple[str, float]]]:
        ranked.clear()
        search()  # type: ignore[operator]
        return ranked[0]

    index = _open(small_repo, tmp_path / "index")
    index.update()
    assert FAST_SEMANTIC not in hits_of(lambda: index.search(QUESTION))  # opt-in
    index.ranking_settings = RankingSettings(fast_opinion_share=0.3)
    default = hits_of(lambda: index.search(QUESTION))
    assert set(default) == {KEYWORD, SEMANTIC, FAST_SEMANTIC}
    assert index.search(QUESTION).arms == (KEYWORD, SEMANTIC)  # what was fused
    # The opinion reads what a search of the fast set reads.
    fast = hits_of(lambda: index.search(QUESTION, vectors="fast"))
    assert set(fast) == {KEYWORD, SEMANTIC} and default[FAST_SEMANTIC] == fast[SEMANTIC]
    pooled = hits_of(lambda: search_many([index], QUESTION))
    assert [s for _, s in pooled[FAST_SEMANTIC]] == [s for _, s in default[FAST_SEMANTIC]]
    # The fast model mixes the default model's vector of the query: embedded once a search.
    teacher = index.embedder()
    teacher.forget_queries()
    embedded: list[str] = []
    embed = teacher._embed_texts
    monkeypatch.setattr(teacher, "_embed_texts", lambda texts, prefix: (
        embedded.extend(texts) or embed(texts, prefix)
    ))
    index.search("salted password digests")
    assert embedded == ["salted password digests"]
    # Not for a name, nor for one arm alone, nor with the share at 0 (the default).
    assert FAST_SEMANTIC not in hits_of(lambda: index.search("hash_password"))
    assert FAST_SEMANTIC not in hits_of(lambda: index.search(QUESTION, mode="semantic"))
    index.ranking_settings = RankingSettings(fast_opinion_share=0.0)
    assert FAST_SEMANTIC not in hits_of(lambda: index.search(QUESTION))
    # An index without the fast set searches as before.
    plain = _open(small_repo, tmp_path / "plain", fast_vectors=False)
    plain.update()
    plain.ranking_settings = RankingSettings(fast_opinion_share=0.3)
    assert set(hits_of(lambda: plain.search(QUESTION))) == {KEYWORD, SEMANTIC}
    assert plain.search(QUESTION)[0].symbol == "hash_password"


KILL_AT = """
import sys, time, sharc
index = sharc.Index.open(sys.argv[1], index_dir=sys.argv[2])
stage = sys.argv[3]
def progress(p):
    if stage == "done" and p.phase == "done" or (
        p.phase == "embedding" and p.vectors == stage and p.chunks_done > 0
    ):
        print("ready", flush=True)
        time.sleep(60)
index.update(progress=progress)
"""


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["fast", "default", "done"])
def test_a_kill_in_either_stage_leaves_an_index_that_answers_and_resumes_to_a_clean_one(
    small_repo: Path, tmp_path: Path, stage: str
) -> None:
    index_dir = tmp_path / "index"
    assert killed_after_first_line(KILL_AT, small_repo, index_dir, stage) == "ready"
    killed = _open(small_repo, index_dir)
    response = killed.search(QUESTION)
    assert response and response[0].symbol == "hash_password"
    if stage == "default":
        assert response.vectors == "fast"  # whole, committed before the default stage
    killed.update()
    assert killed.search(QUESTION).vectors == "default"
    clean = tmp_path / "clean"
    _open(small_repo, clean).update()
    _same_vectors(index_dir, clean)


def test_the_default_models_vectors_are_linked_widely_and_the_fast_models_at_usearchs_width(
    small_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.embedding import load_embedder
    from sharc.vectors import BUILD_EXPANSION, VectorStore

    widths: dict[int, set[int]] = {}  # each vector's dimension (the model) -> link widths
    upsert = VectorStore.upsert

    def recording(store: VectorStore, keys: object, vectors: np.ndarray) -> None:
        widths.setdefault(store.dimension, set()).add(store.link_width)
        upsert(store, keys, vectors)  # type: ignore[arg-type]

    monkeypatch.setattr(VectorStore, "upsert", recording)
    _open(small_repo, tmp_path / "index").update()
    fast_dimension = load_embedder("fast").dimension
    default_dimension = load_embedder().dimension
    assert widths == {fast_dimension: {128}, default_dimension: {BUILD_EXPANSION}}
