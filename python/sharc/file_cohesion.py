"""How far each file's parts are about one thing, measured by the writer from its vectors.

Files first and the whole-file keyword lift (`sharc.ranking.files`) judge a file by all of
its parts: the module at the centre of a topic holds several chunks that match a question,
the helper one. That holds for a file whose parts belong together. A grab-bag file (a
`utils.py` of unrelated helpers, a pool of snippets) has several chunks that each match a
little for unrelated reasons, and its one function a question is about gains nothing from
its neighbours: there the stages take the best chunk as it stands.

A file's cohesion is the mean cosine of each of its chunk vectors to the mean of its other
chunks (`raw_cohesion`), scaled so that two chunks of the index picked at random score 0 and
parts all alike score 1 (`scaled`; the vectors of a model are never spread evenly: random
pairs of MiniLM's code vectors sit near 0.3-0.6). Measured on the repository benchmark's dev
repositories, the files of real code lie mostly above 0.45; the modules of CoSQA's pool, 16
unrelated functions each, below 0.42 (median 0.35).

The writer measures each vector set once its vectors are saved (`measure`): the files an
update changed, or every file on a compaction, on the first update after an upgrade, and
after a model change. Each value is stored with the content hash of the file it was measured
on (`sharc.manifest.cohesion_table`), with the set's baseline (two random chunks) in the
meta table. A search reads no vector: the values are read once into memory (a hundred
thousand files take a few MB), and again after the writer measures or changes files. A value
whose file has changed since is not read: until it is measured again the file counts as one
thing, as a file with fewer than `MIN_CHUNKS` vectors always does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from sharc.manifest import Manifest
    from sharc.ranking.files import FileCohesion
    from sharc.vector_segments import SegmentedVectors
    from sharc.vector_sets import VectorSet

#: Fewer vectors than this say nothing of a file's parts: it counts as one thing.
MIN_CHUNKS = 3
#: Chunks read per file (a sample, picked as their keys fall: the keys are digests).
SAMPLED_CHUNKS = 32
#: Chunks read for the set's baseline: how alike two chunks picked at random are.
BASELINE_SAMPLE = 1000
#: Files measured at a time.
FILE_BATCH = 500


def pair_similarity(vectors: np.ndarray) -> float:
    """The mean cosine over every pair of distinct rows of `vectors` (unit length)."""
    count = len(vectors)
    if count < 2:
        return 0.0
    total = vectors.sum(axis=0)
    return float((total @ total - count) / (count * (count - 1)))


def raw_cohesion(vectors: np.ndarray) -> float:
    """The mean cosine of each row of `vectors` (unit length) to the mean of the others."""
    import numpy as np  # here: an update that finds nothing to do never loads numpy

    total = vectors.sum(axis=0)
    others = total[None, :] - vectors
    norms = np.linalg.norm(others, axis=1)
    cosines = np.einsum("ij,ij->i", vectors, others) / np.where(norms > 0, norms, 1.0)
    return float(cosines.mean())


def scaled(raw: float, baseline: float) -> float:
    """`raw` cohesion as 0 at `baseline` (two chunks picked at random) and 1 for parts all
    alike; clipped to 0-1."""
    return min(1.0, max(0.0, (raw - baseline) / max(1e-6, 1.0 - baseline)))


def measure(
    manifest: Manifest,
    index_dir: Path,
    vector_set: VectorSet,
    model_id: str,
    changed: Collection[str] | None,
    report: Callable[..., None] | None = None,
) -> int:
    """Measure the files of `vector_set` whose chunks changed (`changed`; None: every file),
    from the vectors saved in `index_dir`, and the set's baseline; commits. Every file is
    measured whatever `changed` says when the set was last measured under another model than
    `model_id` (or never). `report` hears the phase `measuring` (files done of the files to
    measure, the set's name) after each batch. Returns how many files were measured."""
    table = manifest.cohesion(vector_set)
    if table.model() != model_id:
        changed = None
    elif changed is not None and not changed:
        return 0
    from sharc.vector_segments import open_for_search  # numpy: only with work to do

    vectors = open_for_search(index_dir, manifest, vector_set=vector_set)
    if vectors is None:
        return 0
    if changed is None:
        table.clear()
        paths: Iterable[list[str]] = manifest.path_batches(FILE_BATCH)
        total = manifest.counts()[0]
    else:
        table.forget(changed)
        ordered = sorted(changed)
        paths = (ordered[i : i + FILE_BATCH] for i in range(0, len(ordered), FILE_BATCH))
        total = len(ordered)
    measured = done = 0
    for batch in paths:
        keys = manifest.embeddable_keys_of(batch, SAMPLED_CHUNKS)
        values = {}
        for path, found in keys.items():
            if len(found) < MIN_CHUNKS:
                continue
            unit = _unit(vectors, found)  # fewer where a key has no vector yet
            if len(unit) >= MIN_CHUNKS:
                values[path] = raw_cohesion(unit)
        table.put(values)
        measured += len(values)
        done += len(batch)
        if report is not None:
            report("measuring", files_done=done, files_total=total, vectors=vector_set.name)
    sample = _unit(vectors, manifest.sample_embeddable_keys(BASELINE_SAMPLE))
    table.set_baseline(model_id, pair_similarity(sample))
    manifest.commit()
    return measured


def reader(manifest: Manifest, vector_set: VectorSet) -> FileCohesion | None:
    """The stored cohesion of files (`scaled`) in `vector_set`, for a search; None where the
    set was never measured (an index from before the measure: every file counts as one
    thing)."""
    measured = manifest.cohesion(vector_set).measured(scaled)
    if measured is None:
        return None

    def cohesion(paths: Collection[str]) -> Mapping[str, float]:
        return {path: value for path in paths if (value := measured.get(path)) is not None}

    return cohesion


def _unit(vectors: SegmentedVectors, keys: Collection[int]) -> np.ndarray:
    import numpy as np

    from sharc.vectors import normalize

    return normalize(vectors.vectors(np.fromiter(keys, dtype=np.uint64, count=len(keys))))
