"""What an update takes and gives back: the embedding modes, `Progress` for the callback,
`UpdateReport` for the caller and `VectorChanges` for the vector stores.

The lowest floor of the update side: the writer, the modules it drives (`sharc.chunk_records`,
`sharc.vector_sync`, `sharc.distributed`) and `sharc.index` all import these records, and this
module imports only the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

EmbeddingMode = Literal["independent", "late", "combined"]

DEFAULT_EMBEDDING_MODE: EmbeddingMode = "independent"


@dataclass(frozen=True)
class Progress:
    """Where an update stands; passed to the progress callback."""

    #: walking, chunking, keyword, embedding, ready (search reads the `vectors` set from now
    #: on: the fast one, whole, while the default model embeds), measuring (how far each
    #: file's parts are about one thing, `sharc.file_cohesion`, once a set's vectors are
    #: saved: files done of those to measure), done
    phase: str
    files_done: int = 0
    files_total: int = 0
    chunks_done: int = 0
    chunks_total: int = 0
    elapsed: float = 0.0
    workers: int = 0  # workers alive, on a cluster (`sharc.distributed`); 0 in-process
    #: While embedding, the vector set (`sharc.fast_vectors`): "fast" (the fast model's, first,
    #: seconds), "default" (the index's model's, after it), "" where the index has one set.
    vectors: str = ""

    @property
    def percent(self) -> float:
        if self.phase == "done":
            return 100.0
        if self.phase == "ready" or (self.phase == "measuring" and self.vectors == "fast"):
            return 55.0
        if self.phase == "measuring":  # the default set's, the last step
            return 99.0
        if self.phase == "embedding" and self.chunks_total:
            share = self.chunks_done / self.chunks_total
            if self.vectors == "fast":
                return 50.0 + 5.0 * share
            if self.vectors == "default":
                return 55.0 + 45.0 * share
            return 50.0 + 50.0 * share
        if self.files_total:
            return 50.0 * self.files_done / self.files_total
        return 0.0


@dataclass
class UpdateReport:
    """What an update changed."""

    files_added: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0
    #: Chunks the fast model embedded for the fast set (`sharc.fast_vectors`).
    fast_chunks_embedded: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Files chunked this time whose chunks (all, or those over the budget) the embedding
    #: policy keeps from the model, with why: they are searchable by keyword only.
    keyword_only: list[tuple[str, str]] = field(default_factory=list)
    #: Files that failed this time, with why: what was indexed for them before stays as it was
    #: (chunks or vectors) and the next update tries them again. Each is in `errors` too.
    failed: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    def fail(self, path: str, reason: str) -> None:
        """Record that `path` failed; the update goes on with the other files."""
        self.failed.append((path, reason))
        self.errors.append(f"{path}: {reason}")


CancelCheck = Callable[[], bool]
ProgressCallback = Callable[[Progress], None]


@dataclass
class VectorChanges:
    """What an update changed for the vectors: keys that need one now (new chunks, re-keyed
    ones, chunks no longer keyword-only) and keys whose vector no longer counts (removed and
    re-keyed chunks, chunks now keyword-only). Exact when the vectors were in line before."""

    added: set[int] = field(default_factory=set)
    dropped: set[int] = field(default_factory=set)
    #: The files whose keys these are (deleted files included).
    paths: set[str] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.added) + len(self.dropped)
