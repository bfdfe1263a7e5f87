"""Embed the corpus with the default model (the teacher), resumably.

    python -m tools.static_model.teacher [--limit N]

Reads corpus.jsonl in order and writes ``teacher/shard-NNNNN.npy`` (float16, unit rows, one
per text) for each block of SHARD texts; a shard already on disk is skipped, so a killed run
resumes where it stopped and ``--limit`` can grow between runs. The texts go through
``Embedder.embed_documents`` exactly as an index embeds a chunk.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from tools.static_model.corpus import CORPUS
from tools.static_model.fetch import WORK

TEACHER = WORK / "teacher"
SHARD = 2000


def shard_path(number: int) -> Path:
    return TEACHER / f"shard-{number:05d}.npy"


def read_texts(limit: int | None = None) -> list[str]:
    texts = []
    with CORPUS.open(encoding="utf-8") as lines:
        for line in lines:
            texts.append(json.loads(line)["text"])
            if limit is not None and len(texts) >= limit:
                break
    return texts


def load_vectors(count: int) -> np.ndarray:
    """The teacher's vectors of the first ``count`` texts (whole shards only)."""
    shards = []
    for number in range(count // SHARD):
        path = shard_path(number)
        if not path.is_file():
            break
        shards.append(np.load(path))
    return np.concatenate(shards) if shards else np.zeros((0, 384), np.float16)


def main(argv: list[str] | None = None) -> int:
    from sharc.embedding import load_embedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="embed the first N texts only")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    texts = read_texts(args.limit)
    TEACHER.mkdir(parents=True, exist_ok=True)
    # Shards belong to one corpus.jsonl: a re-sampled corpus must not inherit them.
    fingerprint = hashlib.sha256(CORPUS.read_bytes()).hexdigest()
    stamp = TEACHER / "corpus.sha256"
    if stamp.is_file() and stamp.read_text().strip() != fingerprint:
        raise SystemExit(f"{CORPUS} changed since {TEACHER} was filled; remove {TEACHER}")
    stamp.write_text(fingerprint + "\n")
    embedder = load_embedder(threads=args.threads)
    started = time.perf_counter()
    done = 0
    for number in range((len(texts) + SHARD - 1) // SHARD):
        path = shard_path(number)
        if path.is_file():
            continue
        block = texts[number * SHARD : (number + 1) * SHARD]
        vectors = embedder.embed_documents(block).astype(np.float16)
        scratch = path.with_suffix(".part.npy")
        np.save(scratch, vectors)
        scratch.replace(path)
        done += len(block)
        rate = done / (time.perf_counter() - started)
        print(f"shard {number}: {done} texts this run, {rate:.0f} texts/s", file=sys.stderr,
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
