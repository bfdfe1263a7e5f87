"""Embed the corpus with the default model (the teacher), resumably.

    python -m tools.static_model.teacher [--limit N] [--corpus main|short]

Reads corpus.jsonl in order and writes ``teacher/shard-NNNNN.npy`` (float16, unit rows, one
per text) for each block of SHARD texts; a shard already on disk is skipped, so a killed run
resumes where it stopped and ``--limit`` can grow between runs. The texts go through the
encoder exactly as ``Embedder.embed_documents`` sends them (checked on the first block).

Beside each shard, ``tokens-NNNNN.npz`` keeps what the teacher said about each token in
context: the mean of its output vectors over the shard's occurrences, and their count. Their
average over the corpus starts the fit far closer than a token alone does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tools.static_model.corpus import CORPUS, EXTRA
from tools.static_model.fetch import WORK

TEACHER = WORK / "teacher"
#: Each corpus file and the directory of its teacher's shards.
CORPORA = {"main": (CORPUS, TEACHER), "short": (EXTRA, TEACHER / "short")}
SHARD = 2000
VOCABULARY = 30522


def shard_path(number: int, directory: Path = TEACHER) -> Path:
    return directory / f"shard-{number:05d}.npy"


def read_texts(limit: int | None = None, corpus: Path = CORPUS) -> list[str]:
    texts = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            texts.append(json.loads(line)["text"])
            if limit is not None and len(texts) >= limit:
                break
    return texts


def load_vectors(count: int, directory: Path = TEACHER) -> np.ndarray:
    """The teacher's vectors of the first ``count`` texts (whole shards only)."""
    shards = []
    for number in range(count // SHARD):
        path = shard_path(number, directory)
        if not path.is_file():
            break
        shards.append(np.load(path))
    return np.concatenate(shards) if shards else np.zeros((0, 384), np.float16)


def token_path(number: int, directory: Path = TEACHER) -> Path:
    return directory / f"tokens-{number:05d}.npz"


def embed_block(embedder: Any, texts: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Unit vectors of ``texts`` as ``embed_documents`` gives them, and the mean contextual
    output vector of each token id in them, with its count."""
    from sharc.embedding import _pool, normalize

    encodings = embedder._truncating.encode_batch([embedder.document_prefix + t for t in texts])
    sequences = [encoding.ids for encoding in encodings]
    out = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    sums = np.zeros((VOCABULARY, embedder.dimension), dtype=np.float64)
    counts = np.zeros(VOCABULARY, dtype=np.int64)
    for rows, hidden, mask in embedder._forward(sequences):
        out[rows] = _pool(hidden, mask, embedder.config.pooling)
        for row, index in enumerate(rows):
            ids = np.asarray(sequences[index], dtype=np.int64)
            np.add.at(sums, ids, hidden[row, : len(ids)])
            np.add.at(counts, ids, 1)
    seen = np.flatnonzero(counts)
    means = (sums[seen] / counts[seen, None]).astype(np.float16)
    return normalize(out), {"ids": seen.astype(np.int32), "means": means, "counts": counts[seen]}


def main(argv: list[str] | None = None) -> int:
    from sharc.embedding import load_embedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="embed the first N texts only")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="main",
                        help="main: corpus.jsonl; short: corpus-short.jsonl (short texts)")
    args = parser.parse_args(argv)
    corpus, directory = CORPORA[args.corpus]
    texts = read_texts(args.limit, corpus)
    directory.mkdir(parents=True, exist_ok=True)
    # Shards belong to one corpus file: a re-sampled corpus must not inherit them.
    fingerprint = hashlib.sha256(corpus.read_bytes()).hexdigest()
    stamp = directory / "corpus.sha256"
    if stamp.is_file() and stamp.read_text().strip() != fingerprint:
        raise SystemExit(f"{corpus} changed since {directory} was filled; remove {directory}")
    stamp.write_text(fingerprint + "\n")
    embedder = load_embedder(threads=args.threads)
    started = time.perf_counter()
    done = 0
    checked = False
    for number in range((len(texts) + SHARD - 1) // SHARD):
        path = shard_path(number, directory)
        if path.is_file():
            continue
        block = texts[number * SHARD : (number + 1) * SHARD]
        vectors, tokens = embed_block(embedder, block)
        if not checked:
            np.testing.assert_allclose(vectors[:8], embedder.embed_documents(block[:8]), atol=1e-5)
            checked = True
        scratch = token_path(number, directory).with_suffix(".part.npz")
        np.savez_compressed(scratch, **tokens)
        scratch.replace(token_path(number, directory))
        scratch = path.with_suffix(".part.npy")
        np.save(scratch, vectors.astype(np.float16))
        scratch.replace(path)
        done += len(block)
        rate = done / (time.perf_counter() - started)
        print(f"shard {number}: {done} texts this run, {rate:.0f} texts/s", file=sys.stderr,
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
