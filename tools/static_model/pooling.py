"""Measure the fast model's pooling settings on doc-comment/code pairs of installed packages.

    python -m tools.static_model.pooling pairs --from DIR [DIR ...] [--out FILE]
    python -m tools.static_model.pooling measure [--pairs FILE]

`pairs` walks every package directory under each ``--from`` directory (a virtual
environment's ``site-packages``, ``~/.cargo/registry/src/<index>``: registry packages the
project already installs), chunks it with sharc as an index would, and keeps one pair per
code chunk that has a doc comment: its first sentence as the query, the chunk without that
comment as the answer (``tools.static_model.contrast.pair_of``). The names in
``packages.json``'s ``blocked`` list (the evaluation repositories and the pinned benchmark
sdists) are skipped, and so is everything but the newest version of a crate.

`measure` embeds the pairs with `sharc.static_embedding.StaticEmbedder` under a grid of
``count_power`` x ``query_weight_power`` (the packaged vectors, nothing refitted) and prints
the MRR of each query's answer among the answers of its block of 2,000 pairs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from tools.static_model.contrast import NOT_CODE, pair_of
from tools.static_model.fetch import WORK

HERE = Path(__file__).resolve().parent
PAIRS = WORK / "pooling-pairs.jsonl"
SEED = 20261203
FILES_PER_PACKAGE = 3000
PER_PACKAGE = 1500  # pairs from one package in one language at most
BLOCK = 2000  # answers each query is ranked among
PAIRS_MEASURED = 20000
COUNT_POWERS = (1.0, 0.7, 0.6, 0.5, 0.3)
QUERY_WEIGHT_POWERS = (1.0, 0.7, 0.6, 0.5)
_VERSIONED = re.compile(r"(.+)-(\d+\.\d+.*)$")
#: Import names of blocked distributions (attrs installs `attr`), and sharc itself.
IMPORT_NAMES_BLOCKED = {"attr", "sharc"}


def _blocked() -> set[str]:
    listed = json.loads((HERE / "packages.json").read_text(encoding="utf-8"))["blocked"]
    return {_norm(name) for name in listed} | IMPORT_NAMES_BLOCKED


def _norm(name: str) -> str:
    return name.lower().replace("-", "_")


def package_roots(directories: list[Path]) -> list[Path]:
    """Each package directory under `directories`, blocked names and older versions left out."""
    blocked = _blocked()
    newest: dict[str, Path] = {}
    for directory in directories:
        for path in sorted(directory.iterdir()):
            if not path.is_dir() or path.name.startswith(("_", ".")) or path.name.endswith(
                (".dist-info", ".egg-info", ".data")
            ):
                continue
            versioned = _VERSIONED.match(path.name)
            name = _norm(versioned.group(1) if versioned else path.name)
            if name not in blocked:
                newest[f"{directory}:{name}"] = path  # sorted: the newest version wins
    return list(newest.values())


def build_pairs(directories: list[Path], out: Path) -> None:
    import sharc
    from sharc.embed_policy import policy_from_settings

    policy = policy_from_settings(None)
    rng = random.Random(SEED)
    seen: set[bytes] = set()
    rows: list[dict[str, str]] = []
    for root in package_roots(directories):
        files = sharc.walk(root).files
        if len(files) > FILES_PER_PACKAGE:
            files = rng.sample(files, FILES_PER_PACKAGE)
        kept: Counter[str] = Counter()
        for start in range(0, len(files), 200):
            for chunked in sharc.chunk_files(root, files[start : start + 200], policy=policy):
                skip = chunked.keyword_only.chunk_ids if chunked.keyword_only else frozenset()
                for chunk in chunked.chunks:
                    if (chunk.id in skip or chunk.language in NOT_CODE
                            or kept[chunk.language] >= PER_PACKAGE):
                        continue
                    digest = hashlib.blake2b(chunk.code.encode(), digest_size=12).digest()
                    if digest in seen:
                        continue
                    seen.add(digest)
                    pair = pair_of({"code": chunk.code, "text": chunk.text})
                    if pair is not None:
                        rows.append({"query": pair[0], "answer": pair[1],
                                     "language": chunk.language, "package": root.name})
                        kept[chunk.language] += 1
    rng.shuffle(rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as lines:
        for row in rows:
            lines.write(json.dumps(row) + "\n")
    counts = Counter(row["language"] for row in rows).most_common(6)
    print(f"{len(rows)} pairs -> {out} {counts}", file=sys.stderr)


def block_mrr(queries: np.ndarray, answers: np.ndarray) -> float:
    """Mean over blocks of `BLOCK` pairs of each query's reciprocal rank among the block's
    answers."""
    ranks = []
    for start in range(0, len(queries) - BLOCK + 1, BLOCK):
        scores = queries[start : start + BLOCK] @ answers[start : start + BLOCK].T
        ranks.append((scores > np.diag(scores)[:, None]).sum(axis=1) + 1)
    return float(np.mean(1.0 / np.concatenate(ranks)))


def measure(pairs: Path) -> None:
    from sharc.static_embedding import StaticEmbedder, load_static_embedder
    from tokenizers import Tokenizer

    rows = [json.loads(line) for line in pairs.open(encoding="utf-8")][:PAIRS_MEASURED]
    packaged = load_static_embedder()
    tokenizer = packaged._pieces.to_str()
    print(f"{len(rows)} pairs, MRR among {BLOCK} answers", file=sys.stderr)
    for count_power in COUNT_POWERS:
        for query_weight_power in QUERY_WEIGHT_POWERS:
            model = StaticEmbedder(
                packaged.vectors, Tokenizer.from_str(tokenizer), model_id="measured",
                max_length=packaged.max_length, count_power=count_power,
                query_weight_power=query_weight_power,
            )
            queries = model.embed_queries([row["query"] for row in rows])
            answers = model.embed_documents([row["answer"] for row in rows])
            print(f"count_power {count_power:.1f} query_weight_power {query_weight_power:.1f}:"
                  f" {block_mrr(queries, answers):.4f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("pairs", help="doc-comment/code pairs of installed packages")
    make.add_argument("--from", dest="directories", type=Path, nargs="+", required=True)
    make.add_argument("--out", type=Path, default=PAIRS)
    grid = commands.add_parser("measure", help="pair MRR per pooling setting")
    grid.add_argument("--pairs", type=Path, default=PAIRS)
    args = parser.parse_args(argv)
    if args.command == "pairs":
        build_pairs(args.directories, args.out)
    else:
        measure(args.pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
