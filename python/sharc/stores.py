"""The files of an index directory, and opening the stores in them.

    manifest.sqlite   files and chunks (with their code): the truth; and the vector journal
    keyword/          tantivy BM25 index over code-aware tokens (derived from the manifest)
    vectors.usearch   usearch ANN index of chunk vectors, the one copy of each
    writer.lock       held by the one process that writes

Both the writer (`sharc.writer`) and the reader (`sharc.index`) open them from here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.errors import IndexCorruptError
from sharc.locking import WriterLock

if TYPE_CHECKING:
    from sharc.keyword import KeywordStore
    from sharc.manifest import Manifest
    from sharc.vectors import VectorStore

MANIFEST = "manifest.sqlite"
KEYWORD = "keyword"
VECTORS = "vectors.usearch"
WRITER_LOCK = "writer.lock"
#: The manifest's meta key for the state `record_vectors_in_line` remembers.
VECTORS_IN_LINE = "vectors_in_line"
VECTOR_BLOCK_CHUNKS = 2000  # vectors copied at a time when an old usearch file is rewritten


def writer_lock(index_dir: Path, root: Path) -> WriterLock:
    return WriterLock(index_dir / WRITER_LOCK, what=str(root))


def open_keyword(index_dir: Path, *, writable: bool) -> KeywordStore:
    """The keyword index; a writer replaces a damaged one with an empty one (the manifest
    refills it)."""
    from sharc.keyword import KeywordStore

    directory = index_dir / KEYWORD
    try:
        return KeywordStore.open(directory, writable=writable)
    except IndexCorruptError:
        if not writable:
            raise
        shutil.rmtree(directory, ignore_errors=True)
        return KeywordStore.open(directory, writable=True)


def open_vectors_for_write(index_dir: Path, dimension: int, manifest: Manifest) -> VectorStore:
    """usearch, loaded to be written; empty when it is missing, damaged or of another
    dimension (vectors then come from the journal, or the model)."""
    from sharc.vectors import VectorStore

    path = index_dir / VECTORS
    if path.exists():
        try:
            store = VectorStore.load(path, view=False)
            if store.dimension == dimension:
                return _upgraded(manifest, store)
        except IndexCorruptError:
            pass
    return VectorStore(dimension)


def _upgraded(manifest: Manifest, store: VectorStore) -> VectorStore:
    """The vectors of an index written before the journal, ready to be brought in line.

    Such an index kept every vector in the manifest as well, and kept a chunk's key when its
    text changed: a key whose text has no vector there yet may hold a stale one, so it goes.
    Its float16 usearch file becomes int8 (half the bytes), without the model.
    """
    from sharc.vectors import VectorStore

    if manifest.journals_vectors:
        return store
    store.remove(manifest.keys_without_vector())
    if store.dtype == "i8":
        return store
    upgraded = VectorStore(store.dimension)
    keys = store.keys()
    for start in range(0, len(keys), VECTOR_BLOCK_CHUNKS):
        upgraded.upsert(*store.vectors(keys[start : start + VECTOR_BLOCK_CHUNKS]))
    return upgraded


def vectors_signature(index_dir: Path) -> list[object] | None:
    """What tells one saved usearch file from another without reading it: size, mtime and
    the digest its sidecar records (None when there is no file)."""
    path = index_dir / VECTORS
    try:
        stat = path.stat()
        # `sharc.vectors.checksum_path`, without importing numpy for it.
        digest = path.with_name(path.name + ".blake2b").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return [stat.st_size, stat.st_mtime_ns, digest]


def record_vectors_in_line(manifest: Manifest, index_dir: Path, *, embedded: int) -> None:
    """Remember that usearch, as saved now, holds a vector for each chunk key the policy embeds
    at this manifest generation and nothing else (`embedded` of them). Uncommitted."""
    state = {
        "generation": manifest.generation(),
        "embedded": embedded,
        "file": vectors_signature(index_dir),
    }
    manifest.set_meta(VECTORS_IN_LINE, json.dumps(state))


def vectors_in_line(manifest: Manifest, index_dir: Path) -> int | None:
    """How many chunks have a vector, if usearch is known to be in line with the manifest: the
    generation and the usearch file are those recorded, and the journal is empty. None when
    that is not known (the vectors must be compared key by key)."""
    raw = manifest.get_meta(VECTORS_IN_LINE)
    if not raw:
        return None
    state = json.loads(raw)
    if (
        state.get("generation") != manifest.generation()
        or state.get("file") != vectors_signature(index_dir)
        or manifest.has_journaled_vectors()
    ):
        return None
    return int(state["embedded"])


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
