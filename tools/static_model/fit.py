"""Fit the fast model's token vectors to the teacher, and write it into the package.

    python -m tools.static_model.fit [--dimension 256] [--epochs 6] [--out DIR]

The model: one vector per token of the default model's tokenizer; a text's vector is the
normalised sum of its tokens' vectors (tokenized like the teacher: [CLS] ... [SEP], cut at 256
tokens). A vector's length is its token's weight, so weighting is learned with the direction.

The fit, all numpy:

1. targets: the teacher's unit vectors, projected on the top ``dimension`` principal axes of
   their second moment (dot products kept best) and normalised again;
2. start: each token alone through the teacher ([CLS] token [SEP], mean-pooled, projected),
   scaled by the token's inverse document frequency in the corpus: the naive model the issue
   measured, which also serves tokens the corpus never shows;
3. minibatch Adam on the mean cosine distance to the targets, a light pull towards the start
   keeping rare tokens near it; the last 2% of the texts are held out and reported;
4. per-token int8 with a float16 scale, written as ``static-minilm.npz`` with the projection
   (for tests that compare with the teacher) and ``sharc-static.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from tools.static_model.corpus import CORPUS, EXTRA, SEED
from tools.static_model.fetch import WORK
from tools.static_model.teacher import (
    CORPORA,
    SHARD,
    TEACHER,
    load_vectors,
    read_texts,
    token_path,
)

PACKAGE_MODEL = Path(__file__).parents[2] / "python" / "sharc" / "models" / "static-minilm"
TOKENIZER = Path(__file__).parents[2] / "python" / "sharc" / "models" / "all-MiniLM-L6-v2" / (
    "tokenizer.json"
)
MAX_LENGTH = 256
HOLDOUT = 0.02
#: How `sharc.static_embedding` pools the vectors for search, chosen after the fit (README,
#: "Pooling for search"); the fit itself optimises the plain sum.
POOLING = {"count_power": 0.6, "query_weight_power": 0.6, "teacher_query_share": 0.75}


def tokenize(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids of every text as the teacher sees them: flat ids and row offsets."""
    digest = hashlib.blake2b(digest_size=8)
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
    cache = WORK / f"tokens-{len(texts)}-{digest.hexdigest()}.npz"
    if cache.is_file():
        data = np.load(cache)
        return data["ids"], data["offsets"]
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_LENGTH)
    pieces = []
    lengths = np.zeros(len(texts), np.int64)
    for start in range(0, len(texts), 4096):
        for row, encoding in enumerate(tokenizer.encode_batch(texts[start : start + 4096])):
            pieces.append(np.asarray(encoding.ids, np.int32))
            lengths[start + row] = len(encoding.ids)
    ids = np.concatenate(pieces)
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    np.savez(cache, ids=ids, offsets=offsets)
    return ids, offsets


def token_start(vocabulary: int, dimension_in: int) -> np.ndarray:
    """Each token alone through the teacher ([CLS] token [SEP], mean-pooled), unit rows."""
    cache = TEACHER / "tokens.npy"
    if cache.is_file():
        return np.load(cache).astype(np.float32)
    from sharc.embedding import load_embedder

    embedder = load_embedder()
    cls, sep = embedder._lead, embedder._trail
    out = np.zeros((vocabulary, dimension_in), np.float32)
    sequences = [cls + [token] + sep for token in range(vocabulary)]
    for rows, hidden, mask in embedder._forward(sequences):
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        out[rows] = pooled
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    np.save(cache, out.astype(np.float16))
    return out


def context_means(
    vocabulary: int, dimension_in: int, shards: list[Path]
) -> tuple[np.ndarray, np.ndarray]:
    """Each token's mean output vector in context over the teacher's token ``shards`` (those
    of training texts only), and its count."""
    sums = np.zeros((vocabulary, dimension_in), np.float64)
    counts = np.zeros(vocabulary, np.int64)
    for path in shards:
        if not path.is_file():
            continue  # shards embedded before the teacher kept token means
        with np.load(path) as shard:
            ids, shard_counts = shard["ids"], shard["counts"]
            sums[ids] += shard["means"].astype(np.float64) * shard_counts[:, None]
            counts[ids] += shard_counts
    seen = counts > 0
    sums[seen] /= counts[seen, None]
    return sums.astype(np.float32), counts


def projection(targets: np.ndarray, dimension: int) -> tuple[np.ndarray, float]:
    """Top principal axes of the targets' second moment, and the share of it they keep."""
    moment = targets.T.astype(np.float64) @ targets.astype(np.float64) / len(targets)
    values, vectors = np.linalg.eigh(moment)
    order = np.argsort(values)[::-1]
    kept = float(values[order[:dimension]].sum() / values.sum())
    return vectors[:, order[:dimension]].astype(np.float32), kept


def unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, 1e-12)


def batch_counts(
    ids: np.ndarray, offsets: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The rows' token counts as a dense [rows, distinct tokens] matrix, and those tokens."""
    starts, ends = offsets[rows], offsets[rows + 1]
    lengths = ends - starts
    position = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    tokens = ids[position]
    segment = np.repeat(np.arange(len(rows)), lengths)
    distinct, inverse = np.unique(tokens, return_inverse=True)
    counts = np.bincount(segment * len(distinct) + inverse, minlength=len(rows) * len(distinct))
    return counts.reshape(len(rows), len(distinct)).astype(np.float32), distinct


def embed(table: np.ndarray, ids: np.ndarray, offsets: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.zeros((len(rows), table.shape[1]), np.float32)
    for start in range(0, len(rows), 512):
        block = rows[start : start + 512]
        counts, distinct = batch_counts(ids, offsets, block)
        out[start : start + len(block)] = counts @ table[distinct]
    return unit(out)


def mean_cosine(table: np.ndarray, ids, offsets, rows, targets) -> float:
    return float(np.mean(np.sum(embed(table, ids, offsets, rows) * targets[rows], axis=1)))


class SparseAdam:
    """Adam over the rows of `table` a batch touches; each row counts its own steps."""

    def __init__(self, table: np.ndarray, beta1: float = 0.9, beta2: float = 0.999) -> None:
        self.table = table
        self.beta1, self.beta2 = beta1, beta2
        self.first = np.zeros_like(table)
        self.second = np.zeros_like(table)
        self.steps = np.zeros(len(table), np.int64)

    def step(self, rows: np.ndarray, grad: np.ndarray, rate: float) -> None:
        """Move `rows` (distinct) of the table against `grad` (one row each)."""
        beta1, beta2 = self.beta1, self.beta2
        self.steps[rows] += 1
        t = self.steps[rows][:, None].astype(np.float32)
        self.first[rows] = beta1 * self.first[rows] + (1 - beta1) * grad
        self.second[rows] = beta2 * self.second[rows] + (1 - beta2) * grad * grad
        corrected = self.first[rows] / (1 - beta1**t)
        scale = np.sqrt(self.second[rows] / (1 - beta2**t)) + 1e-8
        self.table[rows] -= rate * corrected / scale


def fit(
    start: np.ndarray,
    ids: np.ndarray,
    offsets: np.ndarray,
    targets: np.ndarray,
    train: np.ndarray,
    held: np.ndarray,
    *,
    epochs: int,
    batch: int,
    rate: float,
    pull: float,
    seed: int,
) -> np.ndarray:
    """Minibatch Adam (rows of the batch's tokens only) on 1 - cos(sum of token vectors, target)
    + pull * |E - start|^2 over those rows."""
    rng = np.random.default_rng(seed)
    adam = SparseAdam(start.copy())
    table = adam.table
    steps_per_epoch = (len(train) + batch - 1) // batch
    total = epochs * steps_per_epoch
    done = 0
    for epoch in range(epochs):
        order = rng.permutation(train)
        started = time.perf_counter()
        losses = []
        for begin in range(0, len(order), batch):
            rows = order[begin : begin + batch]
            counts, distinct = batch_counts(ids, offsets, rows)
            sums = counts @ table[distinct]
            norms = np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
            unit_sums = sums / norms
            goal = targets[rows]
            cosine = np.sum(unit_sums * goal, axis=1, keepdims=True)
            losses.append(float(1.0 - cosine.mean()))
            grad_sums = -(goal - cosine * unit_sums) / norms / len(rows)
            grad = counts.T @ grad_sums + 2.0 * pull * (table[distinct] - start[distinct])
            # Linear decay to a tenth of the rate over the whole fit.
            adam.step(distinct, grad, rate * (1.0 - 0.9 * done / total))
            done += 1
        held_cos = mean_cosine(table, ids, offsets, held, targets)
        print(f"epoch {epoch + 1}/{epochs}: train loss {np.mean(losses):.4f}, held-out cosine"
              f" {held_cos:.4f} ({time.perf_counter() - started:.0f} s)", file=sys.stderr,
              flush=True)
    return table


def quantize(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row int8 with a float16 scale: a row is ``int8 * scale``."""
    peak = np.abs(table).max(axis=1)
    scales = (np.maximum(peak, 1e-12) / 127.0).astype(np.float16)
    values = np.clip(np.rint(table / scales.astype(np.float32)[:, None]), -127, 127)
    return values.astype(np.int8), scales


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dimension", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--rate", type=float, default=0.01)
    parser.add_argument("--pull", type=float, default=0.0)
    parser.add_argument("--min-occurrences", type=int, default=3,
                        help="occurrences in context that make a token start from its mean")
    parser.add_argument("--limit", type=int, default=None, help="use the first N texts only")
    parser.add_argument("--short", type=int, default=None,
                        help="short texts of corpus-short.jsonl to train on too (default: all"
                        " the teacher has embedded; 0: none)")
    parser.add_argument("--out", type=Path, default=PACKAGE_MODEL)
    args = parser.parse_args(argv)

    main_texts = read_texts(args.limit)
    main_vectors = load_vectors(len(main_texts)).astype(np.float32)
    main_texts = main_texts[: len(main_vectors)]
    held_count = max(1, int(len(main_texts) * HOLDOUT))
    first_held = len(main_texts) - held_count
    short_dir = CORPORA["short"][1]
    short_texts: list[str] = []
    short_vectors = np.zeros((0, main_vectors.shape[1]), np.float32)
    if args.short != 0 and EXTRA.is_file():
        short_texts = read_texts(args.short, EXTRA)
        short_vectors = load_vectors(len(short_texts), short_dir).astype(np.float32)
        short_texts = short_texts[: len(short_vectors)]
    # Training texts first (the corpus's, then the short ones), the held-out ones last.
    texts = main_texts[:first_held] + short_texts + main_texts[first_held:]
    teacher = np.concatenate(
        [main_vectors[:first_held], short_vectors, main_vectors[first_held:]]
    )
    print(f"{len(texts)} texts with teacher vectors ({len(short_texts)} short ones),"
          f" {held_count} held out", file=sys.stderr)
    ids, offsets = tokenize(texts)
    train = np.arange(len(texts) - held_count)
    held = np.arange(len(texts) - held_count, len(texts))
    token_shards = [token_path(n) for n in range(first_held // SHARD)]
    token_shards += [token_path(n, short_dir) for n in range(len(short_texts) // SHARD)]

    axes, kept = projection(teacher[train], args.dimension)
    print(f"projection to {args.dimension} keeps {kept:.4f} of the second moment",
          file=sys.stderr)
    targets = unit(teacher @ axes)
    alone = token_start(30522, teacher.shape[1]) @ axes
    vocabulary = len(alone)
    train_ids = ids[: offsets[len(train)]].astype(np.int64)
    segment = np.repeat(np.arange(len(train)), np.diff(offsets[: len(train) + 1]))
    pairs = np.unique(segment * vocabulary + train_ids)
    document_frequency = np.bincount(pairs % vocabulary, minlength=vocabulary)
    del train_ids, segment, pairs
    idf = np.log((len(train) + 1) / (document_frequency + 1)).astype(np.float32)
    naive = unit(alone) * idf[:, None]
    print(f"the teacher's tokens alone x idf: held-out cosine"
          f" {mean_cosine(naive, ids, offsets, held, targets):.4f}", file=sys.stderr)
    means, occurrences = context_means(len(alone), teacher.shape[1], token_shards)
    start = naive
    seen = occurrences >= args.min_occurrences
    if seen.any():
        # A token seen too rarely in context keeps its vector alone, at the typical length.
        start = unit(alone) * float(np.median(np.linalg.norm(means[seen] @ axes, axis=1)))
        start[seen] = means[seen] @ axes
        print(f"tokens in context ({int(seen.sum())} with >= {args.min_occurrences}"
              f" occurrences): held-out cosine {mean_cosine(start, ids, offsets, held, targets):.4f}",
              file=sys.stderr)

    table = fit(start, ids, offsets, targets, train, held, epochs=args.epochs, batch=args.batch,
                rate=args.rate, pull=args.pull, seed=SEED)
    values, scales = quantize(table)
    restored = values.astype(np.float32) * scales.astype(np.float32)[:, None]
    held_cos = mean_cosine(restored, ids, offsets, held, targets)
    print(f"int8: held-out cosine {held_cos:.4f}", file=sys.stderr)

    args.out.mkdir(parents=True, exist_ok=True)
    weights = args.out / "static-minilm.npz"
    np.savez_compressed(weights, vectors=values, scales=scales,
                        projection=axes.astype(np.float16))
    corpus_sha = hashlib.sha256(CORPUS.read_bytes()).hexdigest()
    short_sha = hashlib.sha256(EXTRA.read_bytes()).hexdigest() if short_texts else None
    weights_sha = hashlib.sha256(weights.read_bytes()).hexdigest()
    settings = {
        # Other weights or counting, other vectors: an index keyed by this id re-embeds.
        "model_id": f"static-minilm-{args.dimension}-{weights_sha[:8]}"
                    f"-tf{POOLING['count_power']}",
        "dimension": args.dimension,
        "max_length": MAX_LENGTH,
        "teacher": "all-MiniLM-L6-v2 (int8, sharc's default model)",
        "tokenizer": "../all-MiniLM-L6-v2/tokenizer.json",
        "weights_sha256": weights_sha,
        "pooling": POOLING,
        "training": {
            "texts": len(train), "short_texts": len(short_texts), "held_out": len(held),
            "held_out_cosine": round(held_cos, 4), "short_corpus_sha256": short_sha,
            "projection_kept": round(kept, 4), "epochs": args.epochs, "batch": args.batch,
            "rate": args.rate, "pull": args.pull, "seed": SEED, "corpus_sha256": corpus_sha,
            "shard": SHARD,
        },
    }
    (args.out / "sharc-static.json").write_text(json.dumps(settings, indent=2) + "\n")
    print(f"wrote {weights} ({weights.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
