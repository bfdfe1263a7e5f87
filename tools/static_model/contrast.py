"""Tune the fast model for search: pairs of a doc comment's first sentence and the code it
documents, contrasted against the other pairs of a batch.

    python -m tools.static_model.contrast pairs            # chunks/ -> pairs.jsonl
    python -m tools.static_model.contrast fit --out DIR    # tune the packaged vectors

The distilled vectors (`fit`) point where the teacher embeds a text, and the teacher is a
general sentence model: it never learnt that "read the settings file" answers
`def load_config(path)`. Code documents itself, though: a doc comment's first sentence says in
words what the code under it does. `pairs` takes one such pair from every code chunk of the
corpus's packages that has one (the sentence as the query; the chunk's text without that
comment as the answer, so that the words must be matched to the code, not to themselves),
capped per package and per language. `fit` starts from the packaged vectors and runs minibatch
Adam on the symmetric InfoNCE loss of each batch (batches hold one language, so the other
answers look alike), plus a distillation term that keeps each text's vector near where the
packaged vectors put it. The last 2% of the pairs are held out: their MRR among each other is
printed before and after. The result was measured on the repository benchmark's dev repositories
by `benches.quality.chunk_vectors` (removed after it lost; in git at da0bf9b).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tools.static_model.corpus import _COMMENT, CHUNKS, SEED, doc_sentences
from tools.static_model.fetch import WORK
from tools.static_model.fit import (
    PACKAGE_MODEL,
    SparseAdam,
    batch_counts,
    embed,
    quantize,
    tokenize,
    unit,
)

PAIRS = WORK / "pairs.jsonl"
HOLDOUT = 0.02
PER_PACKAGE = 1500  # pairs from one package in one language at most
PER_LANGUAGE = 20000  # pairs from one language at most
#: Languages whose chunks are data, markup or prose: no code under a comment to learn from.
NOT_CODE = frozenset(
    "markdown rst text asciidoc org html xml json yaml toml ini css csv other".split()
)


# -- pairs ------------------------------------------------------------------------------------


def without_comment(code: str, sentence: str) -> str | None:
    """`code` without the comment block whose first sentence is `sentence` (None when no
    block of comment lines holds it, or nothing but comments is left)."""
    lines = code.splitlines()
    block: list[int] = []
    for number, line in enumerate([*lines, ""]):
        if _COMMENT.match(line) and number < len(lines):
            block.append(number)
            continue
        if block and sentence in " ".join(lines[i] for i in block).replace("  ", " "):
            kept = [line for i, line in enumerate(lines) if i < block[0] or i > block[-1]]
            rest = "\n".join(kept)
            return rest if rest.strip() else None
        block = []
    return None


def pair_of(record: dict[str, str]) -> tuple[str, str] | None:
    """(first doc sentence, the chunk's header and code without that comment), if any."""
    for sentence in doc_sentences(record["code"]):
        rest = without_comment(record["code"], sentence)
        if rest is None or len(rest.split()) < 4:
            continue
        header = record["text"][: len(record["text"]) - len(record["code"])]
        return sentence, header + rest
    return None


def _read(path: Path) -> Iterator[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def build_pairs() -> None:
    rng = random.Random(SEED)
    seen: set[bytes] = set()
    by_language: dict[str, list[dict[str, str]]] = defaultdict(list)
    for path in sorted(CHUNKS.glob("*/*.jsonl.gz")):
        kept: Counter[str] = Counter()
        records = list(_read(path))
        rng.shuffle(records)
        for record in records:
            language = record["language"]
            if language in NOT_CODE or kept[language] >= PER_PACKAGE:
                continue
            digest = hashlib.blake2b(record["code"].encode(), digest_size=12).digest()
            if digest in seen:
                continue
            seen.add(digest)
            pair = pair_of(record)
            if pair is None:
                continue
            by_language[language].append(
                {"query": pair[0], "answer": pair[1], "language": language}
            )
            kept[language] += 1
    rows = []
    for language in sorted(by_language):
        pairs = by_language[language]
        rng.shuffle(pairs)
        rows.extend(pairs[:PER_LANGUAGE])
    rng.shuffle(rows)
    with PAIRS.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    counts = Counter(row["language"] for row in rows)
    print(f"{len(rows)} pairs -> {PAIRS}", file=sys.stderr)
    for language, count in counts.most_common():
        print(f"  {language:16} {count:7}", file=sys.stderr)


# -- fit --------------------------------------------------------------------------------------


def load_table(directory: Path) -> np.ndarray:
    """The float token vectors of the `static-minilm.npz` in `directory`."""
    with np.load(directory / "static-minilm.npz") as weights:
        return weights["vectors"].astype(np.float32) * weights["scales"].astype(np.float32)[:, None]


def held_out_mrr(table: np.ndarray, ids: np.ndarray, offsets: np.ndarray, held: np.ndarray,
                 count: int) -> float:
    """MRR of each held-out query's answer among all held-out answers."""
    queries = embed(table, ids, offsets, held)
    answers = embed(table, ids, offsets, held + count)
    scores = queries @ answers.T
    ranks = (scores > np.diag(scores)[:, None]).sum(axis=1) + 1
    return float(np.mean(1.0 / ranks))


def language_batches(languages: list[str], rows: np.ndarray, batch: int,
                     rng: np.random.Generator) -> list[np.ndarray]:
    by_language: dict[str, list[int]] = defaultdict(list)
    for row in rng.permutation(rows):
        by_language[languages[row]].append(int(row))
    batches = [np.array(members[i : i + batch]) for members in by_language.values()
               for i in range(0, len(members), batch)]
    return [b for b in (batches[i] for i in rng.permutation(len(batches))) if len(b) > 1]


def contrast(start: np.ndarray, ids: np.ndarray, offsets: np.ndarray, count: int,
             train: np.ndarray, held: np.ndarray, languages: list[str], *, epochs: int,
             batch: int, rate: float, temperature: float, distill: float) -> np.ndarray:
    """Minibatch Adam on the symmetric InfoNCE loss of query rows `i` and answer rows
    `count + i`, plus `distill` times the mean cosine distance of each text's vector to its
    vector under `start`."""
    rng = np.random.default_rng(SEED)
    adam = SparseAdam(start.copy())
    table = adam.table
    total = epochs * max(1, len(train) // batch)
    done = 0
    for epoch in range(epochs):
        started, losses = time.perf_counter(), []
        for rows in language_batches(languages, train, batch, rng):
            size = len(rows)
            counts, distinct = batch_counts(ids, offsets, np.concatenate([rows, rows + count]))
            sums = counts @ table[distinct]
            norms = np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
            units = sums / norms
            queries, answers = units[:size], units[size:]
            scores = queries @ answers.T / temperature
            by_row = np.exp(scores - scores.max(axis=1, keepdims=True))
            by_row /= by_row.sum(axis=1, keepdims=True)
            by_column = np.exp(scores - scores.max(axis=0, keepdims=True))
            by_column /= by_column.sum(axis=0, keepdims=True)
            diagonal = np.arange(size)
            losses.append(float(-np.log(by_row[diagonal, diagonal] + 1e-12).mean()))
            grad_scores = (by_row + by_column) / (2 * size)
            grad_scores[diagonal, diagonal] -= 1.0 / size
            grad_units = np.vstack([grad_scores @ answers, grad_scores.T @ queries]) / temperature
            if distill:
                grad_units -= distill * unit(counts @ start[distinct]) / (2 * size)
            grad_sums = (grad_units - np.sum(grad_units * units, axis=1, keepdims=True) * units)
            grad_sums /= norms
            adam.step(distinct, counts.T @ grad_sums, rate * (1.0 - 0.9 * done / total))
            done += 1
        mrr = held_out_mrr(table, ids, offsets, held, count)
        print(f"epoch {epoch + 1}/{epochs}: train loss {np.mean(losses):.4f}, held-out MRR"
              f" {mrr:.4f} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    return table


def fit_main(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for line in PAIRS.open(encoding="utf-8")]
    if args.limit:
        rows = rows[: args.limit]
    count = len(rows)
    ids, offsets = tokenize([r["query"] for r in rows] + [r["answer"] for r in rows])
    held_count = max(2, int(count * HOLDOUT))
    train, held = np.arange(count - held_count), np.arange(count - held_count, count)
    start = load_table(args.start)
    print(f"{count} pairs, {held_count} held out; start held-out MRR"
          f" {held_out_mrr(start, ids, offsets, held, count):.4f}", file=sys.stderr, flush=True)
    table = contrast(start, ids, offsets, count, train, held, [r["language"] for r in rows],
                     epochs=args.epochs, batch=args.batch, rate=args.rate,
                     temperature=args.temperature, distill=args.distill)
    values, scales = quantize(table)
    restored = values.astype(np.float32) * scales.astype(np.float32)[:, None]
    print(f"int8: held-out MRR {held_out_mrr(restored, ids, offsets, held, count):.4f}",
          file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    with np.load(args.start / "static-minilm.npz") as weights:
        projection = weights["projection"]
    np.savez_compressed(args.out / "static-minilm.npz", vectors=values, scales=scales,
                        projection=projection)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("pairs", "fit"))
    parser.add_argument("--start", type=Path, default=PACKAGE_MODEL)
    parser.add_argument("--out", type=Path, default=WORK / "contrast")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rate", type=float, default=0.01)
    parser.add_argument("--temperature", type=float, default=0.05)
    parser.add_argument("--distill", type=float, default=1.0)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    if args.step == "pairs":
        build_pairs()
    else:
        fit_main(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
