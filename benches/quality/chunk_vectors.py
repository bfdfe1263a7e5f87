"""Which vectors the semantic arm should search on whole repositories: each chunk encoded
alone (`independent`, sharc's default), pooled out of an encoding of its whole file (`late`),
the two averaged (`combined`), the fast model's static vectors (`fast`, and any tuned
weights given with `--fast-weights`), or both models at once (`independent+fast`: a fifth of
each chunk's similarity the fast model's).

On the repository benchmark's dev repositories, every chunk is embedded each way (the text
an index embeds: header and code), then each query is ranked by the semantic arm alone and
through the whole hybrid pipeline with the index's own keyword arm
(`benches.quality.vector_text.hybrid_ranker`). File NDCG@10 against `independent` (and tuned
fast weights against the shipped ones), with paired bootstrap intervals over queries:

    python -m benches.quality.chunk_vectors                  # dev only; about 40 minutes cold
    python -m benches.quality.chunk_vectors --fast-weights benches/data/static-train/contrast

The cached indexes of `python -m benches.quality.repos` give the keyword arm and the records;
vectors are cached under benches/data/chunk-vectors.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benches.quality import metrics
from benches.quality.dataset import RESULTS_DIR, data_dir
from benches.quality.repos import DEPTH, Repo, load_repos, unpack
from benches.quality.vector_text import hybrid_ranker, rank_both, summarize

CACHE = data_dir() / "chunk-vectors"
DEFAULT_MODEL = ("independent", "late", "combined")
#: Both models at once: the cosine of each, `ENSEMBLE_FAST_SHARE` of it the fast model's.
ENSEMBLE = "independent+fast"
ENSEMBLE_FAST_SHARE = 0.2


def _cached(path: Path, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """The matrix at `path`, computed and stored first if missing."""
    if path.is_file():
        return np.load(path)
    matrix = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, matrix)
    return matrix


def cache_path(repo: str, variant: str, model_id: str, texts: Sequence[str]) -> Path:
    """Where a variant's vectors of `texts` are kept: named by the model and the texts, so a
    chunker or model change computes them again."""
    digest = hashlib.blake2b(model_id.encode(), digest_size=8)
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
    name = variant.replace(":", "-").replace("/", "-")
    return CACHE / f"{repo}.{name}.{digest.hexdigest()}.npy"


def repo_vectors(
    repo: Repo, embedders: dict[str, Any]
) -> tuple[list[str], list[metrics.Hit], dict[str, np.ndarray]]:
    """Chunk `repo` as an index does and embed its chunks each way (cached)."""
    from sharc import _core
    from sharc.embedding import combine
    from sharc.vector_sync import _late_vectors

    root = unpack(repo)
    _, walked, *_ = _core.walk(root)
    chunks = [
        chunk
        for file in _core.chunk_files(root, [(w.path, w.language) for w in walked])
        for chunk in file.chunks
    ]
    texts = [chunk.header + chunk.code for chunk in chunks]
    matrices: dict[str, np.ndarray] = {}
    for variant, embedder in embedders.items():
        if variant in ("combined", ENSEMBLE):
            continue
        if variant == "late":
            compute = lambda e=embedder: _late_vectors(e, chunks, root)  # noqa: E731
        else:
            compute = lambda e=embedder: e.embed_documents(texts)  # noqa: E731
        path = cache_path(repo.name, variant, embedder.model_id, texts)
        matrices[variant] = _cached(path, compute)
    if "combined" in embedders:
        matrices["combined"] = combine(matrices["independent"], matrices["late"])
    ids = [chunk.id for chunk in chunks]
    spans = [metrics.Hit(chunk.path, chunk.start_line, chunk.end_line) for chunk in chunks]
    return ids, spans, matrices


def load_variants(fast_weights: Sequence[Path]) -> dict[str, Any]:
    """Each variant's query embedder (`combined` embeds queries as `independent` does)."""
    from sharc.embedding import load_embedder
    from sharc.static_embedding import StaticEmbedder, load_static_embedder
    from tokenizers import Tokenizer

    from tools.static_model.contrast import load_table

    default = load_embedder()
    variants: dict[str, Any] = dict.fromkeys(DEFAULT_MODEL, default)
    variants["fast"] = load_static_embedder()
    shipped: StaticEmbedder = variants["fast"]
    for directory in fast_weights:
        tokenizer = Tokenizer.from_str(shipped._pieces.to_str())
        tuned = StaticEmbedder(
            load_table(directory), tokenizer, model_id=f"tuned-{directory.name}", max_length=shipped.max_length
        )
        variants[f"fast:{directory.name}"] = tuned
    variants[ENSEMBLE] = None  # scored from the two models' own scores
    return variants


def query_scores(
    query: str, variants: dict[str, Any], matrices: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Every chunk's similarity to `query`, per variant (each model embeds it once)."""
    vectors: dict[int, np.ndarray] = {}
    scores = {}
    for variant, embedder in variants.items():
        if embedder is None:
            continue
        if id(embedder) not in vectors:
            vectors[id(embedder)] = embedder.embed_queries([query])[0]
        scores[variant] = matrices[variant] @ vectors[id(embedder)]
    if ENSEMBLE in variants:
        share = ENSEMBLE_FAST_SHARE
        scores[ENSEMBLE] = (1 - share) * scores["independent"] + share * scores["fast"]
    return scores


def run(
    repos: Sequence[Repo], index_cache: Path, variants: dict[str, Any]
) -> dict[str, dict[str, dict[str, Any]]]:
    """Per mode (`semantic`, `hybrid`) and variant: each query's category and file
    NDCG@10."""
    import sharc
    from sharc.ranking import candidate_depth

    depth = candidate_depth(DEPTH, False)
    out: dict[str, dict[str, dict[str, Any]]] = {
        mode: {v: {} for v in variants} for mode in ("semantic", "hybrid")
    }
    for repo in repos:
        ids, spans, matrices = repo_vectors(repo, variants)
        index = sharc.Index.open(unpack(repo), index_dir=index_cache / repo.name)
        if not index.exists:
            raise SystemExit(f"no index of {repo.name}: run `python -m benches.quality.repos`")
        rank = hybrid_ranker(index)
        for query in repo.queries:
            for variant, scores in query_scores(query.text, variants, matrices).items():
                found = rank_both(query, repo.name, scores, (ids, spans), rank, depth)
                for mode, record in found.items():
                    out[mode][variant][query.id] = record
        index.close()
        print(f"{repo.name:24} {len(ids)} chunks", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-cache", type=Path, default=data_dir() / "index-cache" / "repos")
    parser.add_argument("--fast-weights", type=Path, action="append", default=[],
                        help="a directory holding tuned static-minilm.npz weights")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "quality_chunk_vectors.json")
    args = parser.parse_args(argv)
    from benches.quality.run import git_commit, machine

    variants = load_variants(args.fast_weights)
    per_query = run(load_repos("dev"), args.index_cache, variants)
    bases = {v: "fast" if v.startswith("fast:") else "independent" for v in variants}
    result = {
        "benchmark": "chunk vectors: independent, late, combined and fast-model vectors (dev)",
        "date": dt.date.today().isoformat(),
        "git": git_commit(),
        "machine": machine(),
        "command": "python -m benches.quality.chunk_vectors"
        + "".join(f" --fast-weights {p}" for p in args.fast_weights),
        "modes": {
            mode: {
                variant: {"against": bases[variant],
                          **summarize(runs[variant], runs[bases[variant]], key="vs")}
                for variant in variants
            }
            for mode, runs in per_query.items()
        },
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for mode, found in result["modes"].items():
        for variant, summary in found.items():
            cells = "  ".join(
                f"{name} {s['file_ndcg']:5.1f} {s['vs']}"
                for name, s in summary.items() if name != "against"
            )
            print(f"{mode:8} {variant:24} vs {summary['against']:11} {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
