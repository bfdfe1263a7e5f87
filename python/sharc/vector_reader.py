"""Which vectors a search reads, and reading them: one vector set at a time
(`sharc.fast_vectors`), each opened once and again only when a writer has changed its files.

A search reads the set the manifest names (`sharc.stores.searched_set`), or the one asked
for: `"fast"`, the fast model's (the index's own vectors when the index was built with the fast
model), or `"default"`, the index's model's. A set with no vectors yet gives way to the other
when none was asked for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sharc.errors import NotIndexedError
from sharc.stores import file_signature, searched_set
from sharc.vector_sets import DEFAULT_SET, FAST_SET, VectorSet
from sharc.writer_settings import stored_settings

if TYPE_CHECKING:
    from sharc.embedding import Embedder
    from sharc.manifest import Manifest
    from sharc.vector_segments import SegmentedVectors

VectorChoice = Literal["fast", "default"]
VECTOR_CHOICES: tuple[VectorChoice, ...] = ("fast", "default")


@dataclass(frozen=True)
class SearchedVectors:
    """The vectors one search reads, and the model that embeds its query."""

    name: VectorChoice  # as reported: "fast" when the fast model made them
    vectors: SegmentedVectors
    embedder: Callable[[], Embedder]
    complete: bool  # the set covers every chunk the policy embeds, as of its last commit
    vector_set: VectorSet  # where they live


class VectorReader:
    """The vector sets of one index as searches read them. Thread-safe."""

    def __init__(
        self,
        index_dir: Path,
        *,
        embedder: Callable[[], Embedder],
        fast_embedder: Callable[[], Embedder],
    ) -> None:
        self.index_dir = index_dir
        self._embedder = embedder
        self._fast_embedder = fast_embedder
        self._lock = threading.Lock()
        self._open: dict[str, tuple[tuple[object, ...], SegmentedVectors]] = {}

    def vectors(self, manifest: Manifest, vector_set: VectorSet) -> SegmentedVectors | None:
        """The main file and delta of `vector_set` (`sharc.vector_segments`), reloaded when a
        writer has changed them; None without any."""
        from sharc.vector_segments import open_for_search

        identity = (
            file_signature(self.index_dir / vector_set.main),
            file_signature(self.index_dir / vector_set.delta),
            manifest.get_meta(vector_set.state),  # the tombstones change with it
        )
        if identity[:2] == (None, None):
            return None
        with self._lock:
            cached = self._open.get(vector_set.name)
            if cached is not None and cached[0] == identity:
                return cached[1]
            previous = cached[1] if cached is not None else None
            opened = open_for_search(self.index_dir, manifest, previous, vector_set)
            if opened is None:
                self._open.pop(vector_set.name, None)
            else:
                self._open[vector_set.name] = (identity, opened)
            return opened

    def choose(self, manifest: Manifest, asked: VectorChoice | None) -> SearchedVectors | None:
        """The vectors a search reads: those `asked` for, else the searched set (or the other,
        while the searched one has none). None: no vectors yet (unless asked for a set)."""
        if asked is not None and asked not in VECTOR_CHOICES:
            raise ValueError(f"vectors must be one of {VECTOR_CHOICES} or None, not {asked!r}")
        fast_model = built_with_fast(manifest)
        if asked is not None:
            wanted = [DEFAULT_SET if fast_model or asked == "default" else FAST_SET]
        else:
            wanted = _in_search_order(manifest)
        for vector_set in wanted:
            vectors = self.vectors(manifest, vector_set)
            if vectors is not None and len(vectors):
                fast = fast_model or vector_set is FAST_SET
                return SearchedVectors(
                    name="fast" if fast else "default",
                    vectors=vectors,
                    embedder=self._embedder if vector_set is DEFAULT_SET else self._fast_embedder,
                    complete=manifest.get_meta(vector_set.complete) == "1",
                    vector_set=vector_set,
                )
        if asked is not None:
            raise NotIndexedError(
                f"{self.index_dir} has no {asked} vectors yet"
                + ("" if asked == "default" else " (the fast set is off, or not made yet)")
                + "; run `sharc index`, or search with vectors=None"
            )
        return None

    def fast_beside(
        self, manifest: Manifest, searched: SearchedVectors | None
    ) -> SearchedVectors | None:
        """The fast model's vectors, where a search reads the default model's and the fast set
        covers every chunk too (what the fast opinion reads: `ranking.FAST_SEMANTIC`); None
        otherwise."""
        if searched is None or searched.name != "default" or built_with_fast(manifest):
            return None
        if manifest.get_meta(FAST_SET.complete) != "1":
            return None
        vectors = self.vectors(manifest, FAST_SET)
        if vectors is None or not len(vectors):
            return None
        return SearchedVectors("fast", vectors, self._fast_embedder, True, FAST_SET)

    def searched_name(self, manifest: Manifest) -> VectorChoice | None:
        """What `choose(manifest, None)` would report, from the files' presence alone (no
        vectors are read)."""
        for vector_set in _in_search_order(manifest):
            if any(
                file_signature(self.index_dir / name) is not None
                for name in (vector_set.main, vector_set.delta)
            ):
                fast = vector_set is FAST_SET or built_with_fast(manifest)
                return "fast" if fast else "default"
        return None

    def forget(self) -> None:
        with self._lock:
            self._open.clear()


def _in_search_order(manifest: Manifest) -> list[VectorSet]:
    """Both sets: the one search reads first, the other where that one has no vectors."""
    first = searched_set(manifest)
    return [first, FAST_SET if first is DEFAULT_SET else DEFAULT_SET]


def built_with_fast(manifest: Manifest) -> bool:
    """Whether the index's own model is the fast model (its one set is then the fast one)."""
    from sharc.model_config import FAST_MODEL

    return stored_settings(manifest).get("model") == FAST_MODEL


def unseen_by_vectors(
    keys: Mapping[str, int], vectors: SegmentedVectors, stale: Collection[int]
) -> Callable[[Sequence[str]], list[str]]:
    """Of the keyword hits' ids given (their keys in `keys`), those the semantic arm could
    not have returned: no vector (keyword-only by policy, or not embedded yet), or a vector
    the search found but no chunk has any more (`stale`: the chunk changed since)."""

    def unseen(ids: Sequence[str]) -> list[str]:
        return [
            chunk_id
            for chunk_id in ids
            if (key := keys.get(chunk_id)) is not None and (key in stale or key not in vectors)
        ]

    return unseen
