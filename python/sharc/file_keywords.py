"""The file keyword index: every indexed file as one BM25 document, beside the chunk index.

The chunk index scores fragments. A question about a whole topic ("how are plugins loaded",
"error handling for invalid input") is answered by the file that holds its words across many
functions, which no single chunk of it may match best. This index scores whole files with the
same tokens and query as the chunk index (`sharc.keyword`), and ranking lifts each candidate
file by its share of the best file's score (`sharc.ranking.files.lift_files`).

A document is the code of a file's chunks, as the manifest keeps it (the file is not read
again), under the id `<content hash>:<path>`: a file that changed has another id, so comparing
the ids with the manifest's files finds every document a kill left behind
(`reconcile_file_keywords`). Written in the same steps as the chunk index, after the manifest.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sharc.keyword import KeywordDoc, KeywordStore
    from sharc.manifest import ChunkRecord, Manifest

#: The manifest meta key naming the generation the file index reflects.
GENERATION_META = "file_keyword_generation"

#: `(query, paths) -> {path: share}`: each of `paths` that matches the query, scored by its
#: BM25 over the whole file divided by the best file's in the index (0-1).
FileEvidence = Callable[[str, Collection[str]], Mapping[str, float]]

_RECONCILE_BATCH = 500

#: How many of the best files a search scores; a candidate file below them counts 0.
FILE_HITS = 300


def file_doc_id(path: str, content_hash: str) -> str:
    return f"{content_hash}:{path}"


def path_of(doc_id: str) -> str:
    return doc_id.split(":", 1)[1]


@functools.lru_cache(maxsize=1 << 16)  # a search keys its candidates' files, mostly seen before
def path_key(path: str) -> int:
    """A file document's `key`: what a search returns in place of its stored id."""
    from sharc.vectors import key_of  # numpy: not for an update that finds nothing to do

    return key_of(path)


def file_doc(path: str, content_hash: str, records: Sequence[ChunkRecord]) -> KeywordDoc | None:
    """The document of one file from its chunks (None for a file without any)."""
    from sharc.keyword import KeywordDoc

    if not records:
        return None
    ordered = sorted(records, key=lambda r: (r.start_line, r.end_line))
    return KeywordDoc(
        id=file_doc_id(path, content_hash),
        path=path,
        body="\n".join(record.code for record in ordered),
        language=ordered[0].language,
        tier=ordered[0].tier,
        kind="file",
        key=path_key(path),
    )


def replace_files(store: KeywordStore, docs: Iterable[KeywordDoc]) -> None:
    """Index the documents of files that changed in place of their old ones (uncommitted)."""
    docs = list(docs)
    store.delete_paths(doc.path for doc in docs)
    store.upsert(docs, absent={doc.id for doc in docs})


def reconcile_file_keywords(manifest: Manifest, store: KeywordStore) -> None:
    """Bring the file index in line with the manifest's files (after a kill, or for an index
    from before it): stale documents deleted, missing ones built from the stored chunks.
    Commits the store; the caller records `GENERATION_META`."""
    truth = {
        file_doc_id(path, record.content_hash): path
        for path, record in manifest.files().items()
    }
    indexed = store.all_ids()
    store.delete(sorted(indexed - truth.keys()))
    missing = sorted(truth.keys() - indexed)
    for start in range(0, len(missing), _RECONCILE_BATCH):
        docs = []
        for doc_id in missing[start : start + _RECONCILE_BATCH]:
            path = truth[doc_id]
            content_hash = doc_id.split(":", 1)[0]
            doc = file_doc(path, content_hash, list(manifest.chunk_ids_of(path).values()))
            if doc is not None:
                docs.append(doc)
        store.upsert(docs, absent={doc.id for doc in docs})
    store.commit()


def file_evidence(
    store: KeywordStore,
    *,
    languages: Sequence[str] | None = None,
    path_prefix: str | None = None,
) -> FileEvidence:
    """The evidence of whole files for a search filtered by `languages` and `path_prefix`
    (`FileEvidence`): each candidate file's score against the best file's."""

    def evidence(query: str, paths: Collection[str]) -> Mapping[str, float]:
        if not paths:
            return {}
        # One search of the best files, read by key (not by stored id): filtering to the
        # candidates' paths instead costs three times as much (1.8 against 0.5 ms at 3,000
        # files), and a file below the first `FILE_HITS` scores little against the best.
        hits = store.key_scores(query, FILE_HITS, languages=languages, path_prefix=path_prefix)
        if not hits or hits[0][1] <= 0.0:
            return {}
        top = hits[0][1]
        by_key = {path_key(path): path for path in paths}
        return {
            by_key[key]: min(1.0, score / top) for key, score in hits if key in by_key
        }

    return evidence
