"""How far each file's parts are about one thing, from their vectors.

Files first and the whole-file keyword lift (`sharc.ranking.files`) judge a file by all of
its parts: the module at the centre of a topic holds several chunks that match a question,
the helper one. That holds for a file whose parts belong together. A grab-bag file (a
`utils.py` of unrelated helpers, a pool of snippets) has several chunks that each match a
little for unrelated reasons, and its one function a question is about gains nothing from
its neighbours: there the stages take the best chunk as it stands.

A file's cohesion is the mean cosine of each of its chunk vectors to the mean of its other
chunks, scaled so that two chunks of the index picked at random score 0 and parts all alike
score 1 (the vectors of a model are never spread evenly: random pairs of MiniLM's code
vectors sit near 0.3-0.6). Measured on the repository benchmark's dev repositories, the
files of real code lie mostly above 0.45; the modules of CoSQA's pool, 16 unrelated
functions each, below 0.42 (median 0.35).

Computed when a search first needs a file, from at most `SAMPLED_CHUNKS` of its chunks, and
kept while the vector files are those same files (`CohesionCache`).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

import numpy as np

from sharc.vectors import normalize

if TYPE_CHECKING:
    from sharc.manifest import Manifest
    from sharc.ranking.pipeline import FileCohesion
    from sharc.vector_segments import SegmentedVectors

#: Fewer vectors than this say nothing of a file's parts: it counts as one thing.
MIN_CHUNKS = 3
#: Chunks read per file (a sample, picked as their keys fall).
SAMPLED_CHUNKS = 32
#: Chunks read for the index's baseline: how alike two chunks picked at random are.
BASELINE_SAMPLE = 1000


def pair_similarity(vectors: np.ndarray) -> float:
    """The mean cosine over every pair of distinct rows of `vectors` (unit length)."""
    count = len(vectors)
    if count < 2:
        return 0.0
    total = vectors.sum(axis=0)
    return float((total @ total - count) / (count * (count - 1)))


def relative_cohesion(vectors: np.ndarray, baseline: float) -> float:
    """The mean cosine of each row of `vectors` (unit length) to the mean of the others, 0
    at `baseline` (two chunks picked at random) and 1 for rows all alike; clipped to 0-1."""
    total = vectors.sum(axis=0)
    others = total[None, :] - vectors
    norms = np.linalg.norm(others, axis=1)
    cosines = np.einsum("ij,ij->i", vectors, others) / np.where(norms > 0, norms, 1.0)
    scaled = (float(cosines.mean()) - baseline) / max(1e-6, 1.0 - baseline)
    return min(1.0, max(0.0, scaled))


class CohesionCache:
    """One index's file cohesion, kept while its vector files stay the same. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._identity: object = None
        self._baseline: float | None = None
        self._values: dict[str, float] = {}

    def reader(self, manifest: Manifest, vectors: SegmentedVectors) -> FileCohesion:
        """Each file's cohesion (`relative_cohesion`; a file with fewer than `MIN_CHUNKS`
        vectors counts 1) in `vectors` (the searched set), the chunks of `manifest`."""

        def cohesion(paths: Collection[str]) -> Mapping[str, float]:
            with self._lock:
                if self._identity != vectors.signatures:
                    self._identity, self._baseline = vectors.signatures, None
                    self._values = {}
                if self._baseline is None:
                    sample = manifest.sample_embeddable_keys(BASELINE_SAMPLE)
                    self._baseline = pair_similarity(_unit(vectors, sample))
                missing = [path for path in paths if path not in self._values]
                if missing:
                    keys = manifest.embeddable_keys_of(missing, SAMPLED_CHUNKS)
                    for path in missing:
                        found = _unit(vectors, keys.get(path, ()))
                        self._values[path] = (
                            relative_cohesion(found, self._baseline)
                            if len(found) >= MIN_CHUNKS else 1.0
                        )
                return {path: self._values[path] for path in paths}

        return cohesion


def _unit(vectors: SegmentedVectors, keys: Collection[int]) -> np.ndarray:
    return normalize(vectors.vectors(np.fromiter(keys, dtype=np.uint64, count=len(keys))))
