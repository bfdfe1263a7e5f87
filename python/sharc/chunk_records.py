"""A chunk as the index keeps it: its manifest record, with the keys that name its vector, and
its keyword document.

A chunk's vector key digests the text the model sees (less the chunk's own path, which its header
names: copies of a file share their vectors), the model's id and the vector mode; its usearch key
digests its id and its vector key, so a key in usearch always holds the vector of the text the
manifest has.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sharc.manifest import ChunkRecord, ReferenceRow, RemovedChunk

if TYPE_CHECKING:
    from sharc._core import Chunk
    from sharc.keyword import KeywordDoc
    from sharc.update_types import EmbeddingMode


def unique_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Chunk ids are unique per file by construction; guard against a core bug anyway."""
    seen: set[str] = set()
    unique = []
    for chunk in chunks:
        if chunk.id not in seen:
            seen.add(chunk.id)
            unique.append(chunk)
    return unique


def reference_rows(chunks: Sequence[Chunk]) -> list[ReferenceRow]:
    """The code graph's edges out of a file's chunks, as the manifest stores them."""
    return [
        ReferenceRow(chunk.path, chunk.id, ref.name, ref.kind, ref.line, ref.qualifier)
        for chunk in unique_chunks(chunks)
        for ref in chunk.references
    ]


def vector_key(
    text: str, file_hash: str, start_line: int, end_line: int, model_id: str, mode: EmbeddingMode
) -> str:
    if mode == "independent":
        material = f"{model_id}\0{mode}\0{text}"
    else:
        # A late vector depends on the whole file around the chunk.
        material = f"{model_id}\0{mode}\0{text}\0{file_hash}\0{start_line}:{end_line}"
    return hashlib.blake2b(material.encode(), digest_size=16).hexdigest()


def record_of(chunk: Chunk, file_hash: str, model_id: str, mode: EmbeddingMode) -> ChunkRecord:
    from sharc.vectors import key_of

    # Without the path its header names: copies of a file share their vectors (the vector
    # was made with one copy's path). The key below has the id, and so the path.
    text = chunk.header.replace(chunk.path, "") + chunk.code
    digest = vector_key(text, file_hash, chunk.start_line, chunk.end_line, model_id, mode)
    return ChunkRecord(
        id=chunk.id,
        # The id and the text: a key in usearch always holds the vector of this text.
        key=key_of(f"{chunk.id}\0{digest}"),
        path=chunk.path,
        language=chunk.language,
        tier=chunk.tier,
        kind=chunk.kind,
        symbol=chunk.symbol,
        fqn=chunk.fqn,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        header=chunk.header,
        code=chunk.code,
        vector_key=digest,
    )


def retired_key(
    old: ChunkRecord, new: ChunkRecord, file_hash: str, model_id: str, mode: EmbeddingMode
) -> RemovedChunk:
    """The old key of a chunk whose key changed. When its text did not change (its vector key
    was made with the path, as before copies shared vectors), its vector serves the new key."""
    with_path = vector_key(
        new.header + new.code, file_hash, new.start_line, new.end_line, model_id, mode
    )
    serving = new.vector_key if old.vector_key == with_path else old.vector_key
    return RemovedChunk(old.id, old.key, serving)


def keyword_doc(record: ChunkRecord) -> KeywordDoc:
    from sharc.keyword import KeywordDoc

    return KeywordDoc(
        id=record.id,
        key=record.key,
        path=record.path,
        symbol=f"{record.symbol} {record.fqn}",
        body=record.header + record.code,
        language=record.language,
        kind=record.kind,
        tier=record.tier,
    )
