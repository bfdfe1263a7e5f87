"""The files of an index directory, opening the stores in them, and the state of the vectors.

    manifest.sqlite          files and chunks (with their code): the truth; the vector journal
    keyword/                 tantivy BM25 index over code-aware tokens (derived from the manifest)
    keyword-files/           the same over whole files, one document each (`sharc.file_keywords`)
    vectors.usearch          usearch ANN index of chunk vectors, the one copy of each
    vectors-delta.usearch    the vectors added since the main file was last compacted
    vectors-fast*.usearch    the same for the fast model's vectors (`FAST_SET`), beside the
                             default model's: search reads them until the default set is whole
    writer.lock              held by the one process that writes

Both the writer (`sharc.writer`) and the reader (`sharc.index`) open them from here. Nothing
here imports numpy, usearch or tantivy until a store is opened: an update that finds nothing to
do reads the manifest and the recorded `VectorsState` only.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.errors import IndexCorruptError
from sharc.locking import WriterLock
from sharc.vector_sets import DEFAULT_SET, FAST_SET, SEARCHED_VECTORS, VectorSet

if TYPE_CHECKING:
    from sharc.keyword import KeywordStore
    from sharc.manifest import Manifest

MANIFEST = "manifest.sqlite"
KEYWORD = "keyword"
FILE_KEYWORD = "keyword-files"
WRITER_LOCK = "writer.lock"

#: A compaction folds the delta into the main file once the delta and the tombstones would
#: pass this share of it (and this many vectors: below that, the delta costs search nothing).
COMPACT_SHARE = 0.1
COMPACT_MIN_VECTORS = 10_000


def searched_set(manifest: Manifest) -> VectorSet:
    """The vector set search reads unless asked for another (`SEARCHED_VECTORS`)."""
    return FAST_SET if manifest.get_meta(SEARCHED_VECTORS) == FAST_SET.name else DEFAULT_SET


def writer_lock(index_dir: Path, root: Path) -> WriterLock:
    return WriterLock(index_dir / WRITER_LOCK, what=str(root))


def open_keyword(index_dir: Path, *, writable: bool, name: str = KEYWORD) -> KeywordStore:
    """The keyword index (of chunks; `FILE_KEYWORD`: of files); a writer replaces a damaged
    one with an empty one (the manifest refills it)."""
    from sharc.keyword import KeywordStore

    directory = index_dir / name
    try:
        return KeywordStore.open(directory, writable=writable)
    except IndexCorruptError:
        if not writable:
            raise
        shutil.rmtree(directory, ignore_errors=True)
        return KeywordStore.open(directory, writable=True)


def directory_size(directory: Path) -> int:
    """The bytes of every file under `directory` (files that vanish meanwhile count 0)."""
    total = 0
    for dirpath, _, filenames in os.walk(directory):
        for name in filenames:
            try:
                total += os.path.getsize(os.path.join(dirpath, name))
            except OSError:
                pass
    return total


def file_signature(path: Path) -> list[object] | None:
    """What tells one saved usearch file from another without reading it: size, mtime and
    the digest its sidecar records (None when there is no file)."""
    try:
        stat = path.stat()
        # `sharc.vectors.checksum_path`, without importing numpy for it.
        digest = path.with_name(path.name + ".blake2b").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return [stat.st_size, stat.st_mtime_ns, digest]


@dataclass(frozen=True)
class VectorsState:
    """The vectors as a writer left them: in line with the manifest at `generation`."""

    generation: int
    dimension: int
    embedded: int  # chunks (keys) with a vector
    main: list[object] | None  # `file_signature` of each file
    delta: list[object] | None
    main_vectors: int
    delta_vectors: int
    tombstones: int

    def record(self, manifest: Manifest, vector_set: VectorSet = DEFAULT_SET) -> None:
        """Store this state as `vector_set`'s in the manifest (uncommitted)."""
        manifest.set_meta(vector_set.state, json.dumps(asdict(self)))

    def needs_compaction(self, changes: int) -> bool:
        """Whether `changes` more delta vectors and tombstones would pass the threshold."""
        pending = self.delta_vectors + self.tombstones + changes
        return pending > max(COMPACT_MIN_VECTORS, COMPACT_SHARE * self.main_vectors)


def recorded_state(
    manifest: Manifest, index_dir: Path, vector_set: VectorSet = DEFAULT_SET
) -> VectorsState | None:
    """The recorded state of `vector_set`, if its vectors are still in it: the generation and
    both files are those recorded and the journal is empty. None: compare the vectors key by
    key."""
    raw = manifest.get_meta(vector_set.state)
    if not raw:
        return None
    try:
        state = VectorsState(**json.loads(raw))
    except (TypeError, ValueError):
        return None  # written by another version
    if (
        state.generation != manifest.generation()
        or state.main != file_signature(index_dir / vector_set.main)
        or state.delta != file_signature(index_dir / vector_set.delta)
        or manifest.journal(vector_set).has_journaled_vectors()
    ):
        return None
    return state


def remove_index_files(index_dir: Path) -> None:
    """Delete everything in the index directory but the lock (which its holder keeps)."""
    if not index_dir.exists():
        return
    for entry in index_dir.iterdir():
        if entry.name == WRITER_LOCK:
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
