"""The vector sets of an index (`sharc.fast_vectors`): where each keeps its vectors.

The lowest floor of the vector side: the manifest, the stores, the writer and the reader name
the sets from here, and this module imports only the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass

VECTORS = "vectors.usearch"
DELTA = "vectors-delta.usearch"
#: The manifest's meta key for the recorded `VectorsState` of the default set.
VECTOR_STATE = "vector_state"
#: The manifest's meta key naming the vector set search reads (`VectorSet.name`); absent in an
#: index from before the fast set, which has the default set only.
SEARCHED_VECTORS = "searched_vectors"


@dataclass(frozen=True)
class VectorSet:
    """Where one set of vectors lives: its usearch files, its journal and tombstone tables in
    the manifest, and its meta keys. Both sets key a chunk's vector by the chunk's key."""

    name: str  # "default": the index's model; "fast": the fast model's, beside it
    main: str  # file names in the index directory
    delta: str
    journal: str  # manifest tables
    tombstones: str
    state: str  # meta keys: the recorded `VectorsState`, and whether the set is whole
    complete: str


DEFAULT_SET = VectorSet(
    "default", VECTORS, DELTA, "vectors", "vector_tombstones", VECTOR_STATE, "vectors_complete"
)
FAST_SET = VectorSet(
    "fast",
    "vectors-fast.usearch",
    "vectors-fast-delta.usearch",
    "fast_vectors",
    "fast_vector_tombstones",
    "fast_vector_state",
    "fast_vectors_complete",
)
#: The fast set's meta key for the id of the model that made its vectors: its journal is keyed
#: by the chunks' vector keys, which name the default model, so another fast model empties it.
FAST_MODEL_ID = "fast_model_id"
