"""Indexing, syncing, querying and memory, each against a baseline measured in the same run.

- embedding tokens/s, independent vs late chunking, int8 per-channel vs the shipped model;
  baseline: the shipped model, independent;
- cold index of a real repository (click 8.1.7) with the default model; baseline: the model
  alone embedding the same chunk texts (so the ratio is sharc's overhead around the encoder);
- no-op and one-file-changed sync of a 10,000-file tree; baseline: `git status` on that tree;
- warm query latency p50/p99 at 10k, 100k and 1M chunks (query embedding included; real
  chunks from copies of stdlib modules for BM25, synthetic unit vectors for the ANN arm);
  baseline: exact numpy cosine over the same vectors plus the same query embedding;
- peak RSS of a keyword-only index of 1x and 3x the corpus (streaming: it must not grow with
  the file count), and the index size on disk relative to the indexed source;
- cold index of a hostile tree (a generated file of 20,000 tiny functions, a ~900 KB minified
  one-line bundle, 30 stdlib modules) with the default model and the embedding policy;
  baseline: the same with every policy rule turned off; where its time goes: the model alone on
  the texts it embedded, and a keyword-only index of the same tree;
- a whole-process no-op `sharc index` (with the model: vectors for every chunk) of the
  10,000-file tree; baseline: `git status` on that tree;
- the first keyword result of a cold `sharc index` with the model (seconds from its start until
  a search finds a chunk); baseline: a cold `sharc index --keyword-only` of the same tree;
- one function added to a 1M-chunk index with the model (synthetic vectors for the rest): the
  update writing the delta file, after a walk of the whole tree (`sharc index`) and of the
  changed file alone (`update(paths=...)`, what the watcher does); baselines: the same update
  rewriting the main vector file (`compact=True`, what every update did before the delta), and
  the model alone on that chunk (the index is kept in --work between runs: building it is not
  what is measured).

Each step records the load average when it ends (the machine may be shared).

    python -m benches.speed.index_speed [--quick] [--only query,memory,...] [--merge]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benches.speed.common import REPO, RESULTS, machine, write_result

DATA = REPO / "benches" / "data"
CLICK = DATA / "src" / "click-8.1.7"
QUERIES = [
    "how are command line options parsed",
    "open a file lazily",
    "TaskStore",
    "HTTPAdapter",
    "where are environment variables read",
    "format the help text",
    "shortest path",
    "retry with exponential backoff",
    "parse a URL",
    "getUserById",
    "read a json file",
    "validate the input value",
    "join path components",
    "compress data with zlib",
]


def _index_dir(work: Path, name: str) -> Path:
    return work / f"index-{name}"


def embedding_speed(texts: list[str]) -> dict:
    from sharc.embedding import Span, load_embedder

    results = {}
    for name, quantized in (("shipped", False), ("int8_per_channel", True)):
        embedder = load_embedder(device="cpu", quantized=quantized)
        tokens = sum(embedder.count_tokens(texts))
        embedder.embed_documents(texts[:32])
        started = time.perf_counter()
        embedder.embed_documents(texts)
        seconds = time.perf_counter() - started
        results[f"{name}_independent"] = {
            "tokens": tokens,
            "seconds": seconds,
            "tokens_per_s": tokens / seconds,
        }
        document = "\n\n".join(texts)
        spans, offset = [], 0
        for text in texts:
            spans.append(Span(offset, offset + len(text)))
            offset += len(text) + 2
        late_tokens = sum(embedder.count_tokens([document]))
        started = time.perf_counter()
        embedder.embed_late(document, spans)
        seconds = time.perf_counter() - started
        results[f"{name}_late"] = {
            "tokens": late_tokens,
            "seconds": seconds,
            "tokens_per_s": late_tokens / seconds,
        }
    base = results["shipped_independent"]["tokens_per_s"]
    results["ratios_vs_shipped_independent"] = {
        key: value["tokens_per_s"] / base
        for key, value in results.items()
        if "tokens_per_s" in value
    }
    return results


def cold_index(work: Path) -> dict:
    import sharc
    from sharc.embedding import load_embedder

    # A copy, so that the incremental updates below can edit it.
    root = work / "click"
    shutil.copytree(CLICK, root, dirs_exist_ok=True)
    index = sharc.Index.open(root, index_dir=_index_dir(work, "click"))
    index.embedder()  # loading the model is not indexing
    started = time.perf_counter()
    report = index.update()
    seconds = time.perf_counter() - started
    stats = index.stats()
    texts = []
    manifest = index._reader_manifest()
    for batch in manifest.iter_chunks():
        texts.extend(r.header + r.code for r in batch)
    embedder = load_embedder()
    started = time.perf_counter()
    embedder.embed_documents(texts)
    embed_only = time.perf_counter() - started
    source = sum(f.size for f in sharc.walk(CLICK).files)
    parts = index_parts(_index_dir(work, "click"))
    incremental = incremental_with_model(index, root, embedder)
    index.close()
    return {
        "repository": "click 8.1.7 (sdist)",
        "files": stats.files,
        "chunks": stats.chunks,
        "seconds": seconds,
        "embed_only_seconds": embed_only,
        "ratio_vs_embed_only": seconds / embed_only,
        "chunks_embedded": report.chunks_embedded,
        "index_bytes": stats.size_bytes,
        "source_bytes": source,
        "index_size_vs_source": stats.size_bytes / source,
        "index_parts_bytes": parts,
        "incremental": incremental,
    }


def incremental_with_model(index, root: Path, embedder) -> dict:  # type: ignore[no-untyped-def]
    """No-op and one-function-added updates of a full index (median of several); baseline:
    the model alone on the one chunk the edit adds."""
    noop = []
    for _ in range(5):
        started = time.perf_counter()
        index.update()
        noop.append(time.perf_counter() - started)
    target = root / "src" / "click" / "utils.py"
    original = target.read_text()
    edit, model_alone, embedded = [], [], []
    for number in range(5):
        target.write_text(
            original + f"\n\ndef doubled_{number}(value):\n"
            f'    """Return the value twice over ({number})."""\n    return value * 2\n'
        )
        started = time.perf_counter()
        report = index.update()
        edit.append(time.perf_counter() - started)
        embedded.append(report.chunks_embedded)
        added = index.search(f"doubled_{number}", mode="keyword", limit=1)[0]
        text = added.header + added.code
        started = time.perf_counter()
        embedder.embed_documents([text])
        model_alone.append(time.perf_counter() - started)
    target.write_text(original)
    index.update()
    return {
        "noop_seconds_median": statistics.median(noop),
        "one_function_seconds_median": statistics.median(edit),
        "chunks_embedded_per_edit": max(embedded),
        "model_alone_seconds_median": statistics.median(model_alone),
        "one_function_vs_model_alone": statistics.median(edit) / statistics.median(model_alone),
    }


def index_parts(index_dir: Path) -> dict[str, int]:
    """Bytes on disk per part of an index: the usearch file, the tantivy directories (of
    chunks, and of whole files), and the manifest split into its vector journal (table and key
    index; empty once usearch is saved), the code graph's references (table and indexes) and
    the rest (code, metadata)."""
    import sqlite3

    manifest = index_dir / "manifest.sqlite"
    with contextlib.closing(sqlite3.connect(f"file:{manifest}?mode=ro", uri=True)) as db:
        pages = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    journal = pages.get("vectors", 0) + pages.get("sqlite_autoindex_vectors_1", 0)
    references = sum(size for name, size in pages.items() if name.startswith("refs"))
    manifest_bytes = sum(
        _disk_bytes(index_dir / name) for name in ("manifest.sqlite", "manifest.sqlite-wal")
    )
    return {
        "usearch_vectors": _disk_bytes(index_dir / "vectors.usearch"),
        "keyword": _disk_bytes(index_dir / "keyword"),
        "keyword_files": _disk_bytes(index_dir / "keyword-files"),
        "manifest_vector_journal": journal,
        "manifest_references": references,
        "manifest_rest": manifest_bytes - journal - references,
    }


def _disk_bytes(path: Path) -> int:
    """The size of a file, or of every file under a directory; 0 if it does not exist."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


def _stdlib_sources() -> list[Path]:
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in stdlib.glob("*.py") if p.stat().st_size < 60_000)


def make_tree(root: Path, files: int) -> Path:
    """A tree of `files` real source files: stdlib modules copied round-robin."""
    if (root / ".complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    sources = _stdlib_sources()
    for number in range(files):
        source = sources[number % len(sources)]
        target = root / f"pkg{number // 500:03d}" / f"m{number:05d}_{source.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    (root / ".complete").write_text("ok\n")
    return root


def files_for_chunks(chunks: int) -> int:
    """How many files `make_tree` needs for about `chunks` chunks (counted with sharc itself)."""
    from sharc._core import chunk_source

    sources = _stdlib_sources()
    per_source = [
        len(chunk_source(source.name, "python", source.read_text(errors="replace")).chunks)
        for source in sources
    ]
    files = total = 0
    while total < chunks:
        total += per_source[files % len(sources)]
        files += 1
    return files


def sync_speed(work: Path, tree: Path) -> dict:
    import sharc

    index = sharc.Index.open(tree, index_dir=_index_dir(work, "tree"))
    started = time.perf_counter()
    index.update(embed=False)
    cold = time.perf_counter() - started
    noop = []
    for _ in range(5):
        started = time.perf_counter()
        index.update(embed=False)
        noop.append(time.perf_counter() - started)
    target = next(tree.glob("pkg000/*.py"))
    one = []
    for attempt in range(3):
        with target.open("a") as handle:
            handle.write(f"\n\ndef added_{attempt}():\n    return {attempt}\n")
        started = time.perf_counter()
        index.update(embed=False)
        one.append(time.perf_counter() - started)
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True)
    subprocess.run(
        ["git", "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "x"],
        cwd=tree,
        check=True,
    )
    git = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run(["git", "status", "--porcelain"], cwd=tree, check=True, capture_output=True)
        git.append(time.perf_counter() - started)
    shutil.rmtree(tree / ".git")
    files, chunks = index.stats().files, index.stats().chunks
    return {
        "files": files,
        "chunks": chunks,
        "cold_keyword_index_seconds": cold,
        "noop_seconds_median": statistics.median(noop),
        "one_file_seconds_median": statistics.median(one),
        "git_status_seconds_median": statistics.median(git),
        "noop_vs_git_status": statistics.median(noop) / statistics.median(git),
        "note": "keyword-only updates: a no-op sync embeds nothing either way",
    }


def _sharc_index(root: Path, index_dir: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "sharc.cli", "index", str(root), "--index-dir", str(index_dir),
            *options]


def _git_status_seconds(tree: Path, rounds: int = 5) -> float:
    """Median `git status` on `tree`, committed in a throwaway repository."""
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    try:
        subprocess.run(["git", "add", "-A"], cwd=tree, check=True)
        subprocess.run(
            ["git", "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "x"],
            cwd=tree,
            check=True,
        )
        git = []
        for _ in range(rounds):
            started = time.perf_counter()
            subprocess.run(
                ["git", "status", "--porcelain"], cwd=tree, check=True, capture_output=True
            )
            git.append(time.perf_counter() - started)
    finally:
        shutil.rmtree(tree / ".git")
    return statistics.median(git)


def noop_process(work: Path, tree: Path, rounds: int = 5) -> dict:
    """A no-op `sharc index` as a whole process (start, imports, walk, compare, report) on a
    full index: every chunk the policy embeds has a vector (synthetic: the model would take
    hours on 300k chunks, and a no-op must not touch it anyway). Baseline: `git status`."""
    import sharc
    from sharc.model_config import MINILM_CONFIG

    index_dir = _index_dir(work, "noop-process")
    sharc.Index.open(tree, index_dir=index_dir).update(embed=False)
    _fill_synthetic_vectors(index_dir, MINILM_CONFIG.dimension)
    command = _sharc_index(tree, index_dir)
    # The first run drops the vectors of keyword-only chunks and records usearch as in line.
    subprocess.run(command, check=True, capture_output=True)
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        seconds.append(time.perf_counter() - started)
        assert " 0 chunks embedded" in done.stderr, done.stderr
    git = _git_status_seconds(tree)
    stats = sharc.Index.open(tree, index_dir=index_dir).stats()
    return {
        "files": stats.files,
        "chunks": stats.chunks,
        "embedded_chunks": stats.embedded_chunks,
        "seconds_median": statistics.median(seconds),
        "seconds": seconds,
        "git_status_seconds_median": git,
        "vs_git_status": statistics.median(seconds) / git,
        "target_seconds": 0.3,
    }


def first_keyword_result(work: Path, trees: dict[str, Path], rounds: int = 3) -> dict:
    """Seconds from the start of a cold `sharc index` (with the model) until a keyword search
    in another process finds a chunk; baseline: a cold `sharc index --keyword-only` of the
    same tree, start to end. The indexing process is killed once the result is in."""
    import sharc
    import sharc.keyword  # noqa: F401 - the poller's imports are not the indexer's time
    import sharc.ranking  # noqa: F401

    results = {}
    for name, root in trees.items():
        index_dir = _index_dir(work, f"first-{name}")
        first, keyword_only = [], []
        for _ in range(rounds):
            shutil.rmtree(index_dir, ignore_errors=True)
            started = time.perf_counter()
            with subprocess.Popen(
                _sharc_index(root, index_dir), stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ) as process:
                while not _keyword_hit(sharc, root, index_dir):
                    if process.poll() is not None:
                        raise RuntimeError(f"sharc index of {root} ended before a keyword hit")
                    time.sleep(0.02)
                first.append(time.perf_counter() - started)
                process.kill()
            shutil.rmtree(index_dir, ignore_errors=True)
            started = time.perf_counter()
            subprocess.run(
                _sharc_index(root, index_dir, "--keyword-only"), check=True, capture_output=True
            )
            keyword_only.append(time.perf_counter() - started)
        stats = sharc.Index.open(root, index_dir=index_dir).stats()
        results[name] = {
            "files": stats.files,
            "chunks": stats.chunks,
            "first_keyword_result_seconds_median": statistics.median(first),
            "keyword_only_index_seconds_median": statistics.median(keyword_only),
            "first_result_vs_keyword_only_index": (
                statistics.median(first) / statistics.median(keyword_only)
            ),
            "target_ratio": 1.5,
        }
        print(json.dumps({name: results[name]}), flush=True)
    return results


def _keyword_hit(sharc, root: Path, index_dir: Path) -> bool:  # type: ignore[no-untyped-def]
    index = sharc.Index.open(root, index_dir=index_dir)
    try:
        return bool(index.search("return", mode="keyword"))
    except sharc.SharcError:  # not there yet, or being created
        return False
    finally:
        index.close()


def delta_update(work: Path, tree: Path, rounds: int = 5) -> dict:
    """One function added to a large index, in process with the model loaded: written to the
    delta file, against the same update folding everything into the main file."""
    import sharc
    from sharc.embedding import load_embedder

    # Kept between runs, like the query indexes: building it is not what is measured.
    index_dir = _index_dir(work, f"delta-{tree.name}")
    index = sharc.Index.open(tree, index_dir=index_dir)
    index.update(embed=False)
    embedder = load_embedder()
    if not (index_dir / "vectors.usearch").exists():
        _fill_synthetic_vectors(index_dir, embedder.dimension)
    index._embedder = embedder  # loading the model is not updating
    index.update()  # drops the keyword-only chunks' vectors; records the vectors' state
    noop, noop_paths = [], []
    target = next(tree.glob("pkg000/*.py"))
    relative = target.relative_to(tree).as_posix()
    for _ in range(rounds):
        started = time.perf_counter()
        index.update()
        noop.append(time.perf_counter() - started)
        started = time.perf_counter()
        index.update(paths=[relative])
        noop_paths.append(time.perf_counter() - started)
    original = target.read_text()
    # The synthetic vectors were keyed for the keyword-only index (no model id): the file's
    # chunks are keyed for the model once, before the edits measured.
    target.write_text(original + "\n")
    index.update()
    ways = ("delta", "delta_paths", "compact")
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    model_alone = []
    try:
        for number in range(len(ways) * rounds):
            way = ways[number % len(ways)]
            target.write_text(
                original + f"\n\ndef tripled_{number}(value):\n"
                f'    """Return the value three times over ({number})."""\n    return value * 3\n'
            )
            started = time.perf_counter()
            if way == "delta_paths":  # what the watcher does: it knows the file that changed
                report = index.update(paths=[relative])
            else:
                report = index.update(compact=way == "compact")
            seconds[way].append(time.perf_counter() - started)
            assert report.chunks_embedded == 1, report
            added = index.search(f"tripled_{number}", mode="keyword", limit=1)[0]
            started = time.perf_counter()
            embedder.embed_documents([added.header + added.code])
            model_alone.append(time.perf_counter() - started)
    finally:
        target.write_text(original)
        index.update(compact=True)
    stats = index.stats()
    delta = statistics.median(seconds["delta"])
    return {
        "files": stats.files,
        "chunks": stats.chunks,
        "embedded_chunks": stats.embedded_chunks,
        "noop_seconds_median": statistics.median(noop),
        "noop_paths_seconds_median": statistics.median(noop_paths),
        "one_function_delta_seconds_median": delta,
        "one_function_paths_seconds_median": statistics.median(seconds["delta_paths"]),
        "one_function_rewriting_main_seconds_median": statistics.median(seconds["compact"]),
        "model_alone_seconds_median": statistics.median(model_alone),
        "delta_vs_rewriting_main": delta / statistics.median(seconds["compact"]),
        "seconds": seconds,
        "target_seconds": 0.2,
        "load_average": os.getloadavg(),
    }


def _fill_synthetic_vectors(index_dir: Path, dimension: int, seed: int = 7) -> int:
    """Give every chunk of a keyword-only index a random unit vector (the ANN arm's load)."""
    from sharc.manifest import Manifest
    from sharc.vectors import VectorStore

    manifest = Manifest(index_dir / "manifest.sqlite", writable=False)
    keys = np.array(sorted(manifest.chunk_keys()), dtype=np.uint64)
    saved = index_dir / "vectors.usearch"
    store = VectorStore(dimension)
    if saved.exists():
        earlier = VectorStore.load(saved, view=True)
        if earlier.dtype == store.dtype and np.array_equal(earlier.keys(), keys):
            manifest.close()
            return len(keys)  # filled by an earlier run of this benchmark for these chunks
    rng = np.random.default_rng(seed)
    for start in range(0, len(keys), 50_000):
        block = rng.standard_normal((min(50_000, len(keys) - start), dimension)).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        store.upsert(keys[start : start + len(block)], block)
    store.save(index_dir / "vectors.usearch")
    manifest.close()
    return len(keys)


def _measure_cohesion(index_dir: Path, model_id: str) -> float:
    """Measure every file's cohesion over the synthetic vectors, as the writer does after a
    compaction (`sharc.file_cohesion.measure`); returns the seconds it took."""
    from sharc.file_cohesion import measure
    from sharc.manifest import Manifest
    from sharc.vector_sets import DEFAULT_SET

    manifest = Manifest(index_dir / "manifest.sqlite", writable=True)
    try:
        started = time.perf_counter()
        measure(manifest, index_dir, DEFAULT_SET, model_id, None)
        return time.perf_counter() - started
    finally:
        manifest.close()


def query_latency(work: Path, sizes: list[int]) -> dict:
    import sharc
    from sharc.embedding import load_embedder

    embedder = load_embedder()
    results = {}
    for size in sizes:
        root = make_tree(work / f"query-tree-{size}", files_for_chunks(size))
        index_dir = _index_dir(work, f"query-{size}")
        index = sharc.Index.open(root, index_dir=index_dir)
        index.update(embed=False)
        _fill_synthetic_vectors(index_dir, embedder.dimension)
        cohesion_seconds = _measure_cohesion(index_dir, embedder.model_id)
        measured = measure_queries(root, index_dir, embedder)
        result = measured["default"]
        result["chunkwise_p50_ms"] = measured["chunkwise"]["p50_ms"]
        result["p50_vs_chunkwise"] = result["p50_ms"] / result["chunkwise_p50_ms"]
        result["without_file_evidence_p50_ms"] = measured["fragments"]["p50_ms"]
        result["p50_vs_without_file_evidence"] = (
            result["p50_ms"] / result["without_file_evidence_p50_ms"]
        )
        result["without_cohesion_p50_ms"] = measured["uncohesive"]["p50_ms"]
        result["p50_vs_without_cohesion"] = result["p50_ms"] / result["without_cohesion_p50_ms"]
        result["cohesion_measure_s"] = cohesion_seconds
        results[str(size)] = result
        print(json.dumps({str(size): result}), flush=True)
    return results


#: The rankings `measure_queries` times side by side: the default; `chunkwise`, the ranking
#: that reads candidates in blocks, each scored alone (what ranking files first costs is the
#: ratio of the two); `fragments`, the default without the evidence of whole files (the file
#: keyword index unread); `uncohesive`, the default without the stored file cohesion (its
#: rows unread).
QUERY_VARIANTS = {
    "default": {},
    "chunkwise": {"files_first": False},
    "fragments": {"file_keyword_lift": 0.0},
    "uncohesive": {"cohesion_floor": 0.0, "cohesion_full": 0.0},
}


def timed_searches(  # type: ignore[no-untyped-def]
    index, settings: dict[str, Any], rounds: int, **options: Any
) -> dict[str, list[float]]:
    """Seconds of each search of `QUERIES` (warmed once each) under each of `settings`
    (name -> `RankingSettings`), `rounds` times, the settings taking turns query by query so
    that a machine that slows down for a while slows them alike; later rounds vary each
    query's text, so that no cache answers them."""
    for ranking in settings.values():
        index.ranking_settings = ranking
        for query in QUERIES:
            index.search(query, **options)
    latencies: dict[str, list[float]] = {name: [] for name in settings}
    for round_ in range(rounds):
        for query in QUERIES:
            for name, ranking in settings.items():
                index.ranking_settings = ranking
                text = f"{query} {round_}" if round_ else query
                started = time.perf_counter()
                index.search(text, **options)
                latencies[name].append(time.perf_counter() - started)
    return latencies


def measure_queries(  # type: ignore[no-untyped-def]
    root: Path, index_dir: Path, embedder, rounds: int = 3
) -> dict[str, dict]:
    """Warm p50/p99 of `Index.search` on a built index for each of `QUERY_VARIANTS`, and the
    exact numpy baseline. The variants take turns query by query, so that a machine that
    slows down for a while slows them alike."""
    import dataclasses

    import sharc
    from sharc.ranking import DEFAULT_SETTINGS
    from sharc.vectors import VectorStore

    index = sharc.Index.open(root, index_dir=index_dir)
    index._embedder = embedder
    settings = {
        name: dataclasses.replace(DEFAULT_SETTINGS, **overrides)
        for name, overrides in QUERY_VARIANTS.items()
    }
    latencies = timed_searches(index, settings, rounds)
    store = VectorStore.load(index_dir / "vectors.usearch", view=True)
    keys = store.keys()
    matrix = np.asarray(store._index.get(keys), dtype=np.float32)
    exact = []
    for query in QUERIES:
        started = time.perf_counter()
        vector = embedder.embed_queries([query])[0]
        scores = matrix @ vector
        np.argpartition(-scores, 100)[:100]
        exact.append(time.perf_counter() - started)
    exact_p50 = float(np.percentile(exact, 50))
    chunks = index.stats().chunks
    measured = {}
    for name, times in latencies.items():
        p50 = float(np.percentile(times, 50))
        measured[name] = {
            "chunks": chunks,
            "p50_ms": p50 * 1e3,
            "p99_ms": float(np.percentile(times, 99)) * 1e3,
            "exact_numpy_p50_ms": exact_p50 * 1e3,
            "p50_vs_exact_numpy": p50 / exact_p50,
        }
    return measured


HOSTILE_FUNCTIONS = 20_000
HOSTILE_BUNDLE_BYTES = 900_000
HOSTILE_MODULES = 30


def make_hostile_tree(root: Path, functions_count: int, bundle_bytes: int) -> Path:
    """A generated file of tiny functions, a minified one-line bundle, and stdlib modules (each
    file under the default 1 MB limit)."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "gen").mkdir(parents=True)
    functions = [
        f"def h_{number:05d}(v):\n    return v * {number % 97} + {number}\n"
        for number in range(functions_count)
    ]
    (root / "gen" / "handlers_gen.py").write_text(
        "# Code generated by gen_handlers.py. DO NOT EDIT.\n\n\n" + "\n\n".join(functions)
    )
    (root / "static").mkdir()
    (root / "static" / "app.js").write_text(_webpack_like_bundle(bundle_bytes))
    sources = _stdlib_sources()
    step = len(sources) // HOSTILE_MODULES
    (root / "src").mkdir()
    for source in sources[::step][:HOSTILE_MODULES]:
        shutil.copyfile(source, root / "src" / source.name)
    return root


def _webpack_like_bundle(size: int) -> str:
    """One line: a module table of small minified modules inside an arrow IIFE."""
    modules, total, number = [], 0, 0
    while total < size:
        module = (
            f'{number}:(e,t,n)=>{{"use strict";n.d(t,{{m{number}:()=>r}});var o=n({number % 89}),'
            f"i=n.n(o);function r(e,t){{return i()(e).map(function(n){{return n*t+{number}}})"
            f".filter(Boolean)}}}}"
        )
        modules.append(module)
        total += len(module) + 1
        number += 1
    return (
        "(()=>{var e={" + ",".join(modules) + "};var t={};function n(r){var o=t[r];"
        "if(void 0!==o)return o.exports;var i=t[r]={exports:{}};return e[r](i,i.exports,n),"
        "i.exports}n(0)})();\n"
    )


def hostile_index(work: Path, functions_count: int, bundle_bytes: int) -> dict:
    """Cold index of the hostile tree with the default model, with the embedding policy and
    (the baseline) with every rule off; duplicate texts are embedded once in both."""
    import sharc

    root = make_hostile_tree(work / "hostile-tree", functions_count, bundle_bytes)
    results = {}
    for name, anyway in (("policy", ()), ("no_policy", ("all",))):
        index_dir = _index_dir(work, f"hostile-{name}")
        shutil.rmtree(index_dir, ignore_errors=True)
        index = sharc.Index.open(root, index_dir=index_dir, embed_anyway=anyway)
        index.embedder()  # loading the model is not indexing
        started = time.perf_counter()
        report = index.update()
        seconds = time.perf_counter() - started
        stats = index.stats()
        results[name] = {
            "seconds": seconds,
            "chunks": stats.chunks,
            "chunks_embedded": report.chunks_embedded,
            "embedded_chunks_per_s": report.chunks_embedded / seconds,
            "keyword_only_chunks": stats.keyword_only_chunks,
            "keyword_only_files": dict(report.keyword_only),
            "load_average": os.getloadavg(),
        }
        if name == "policy":
            # Where the time goes: the model alone on the texts the update embedded, and a
            # keyword-only index of the same tree (walk, chunk, manifest, tantivy).
            texts = _embedded_texts(index_dir)
            started = time.perf_counter()
            index.embedder().embed_documents(texts)
            results[name]["model_alone_seconds"] = time.perf_counter() - started
            # What the encoder sees: each text cut at the model's length, special tokens in.
            limit = index.embedder().max_length
            results[name]["model_alone_tokens"] = sum(
                min(count + 2, limit) for count in index.embedder().count_tokens(texts)
            )
            keyword_dir = _index_dir(work, "hostile-keyword")
            shutil.rmtree(keyword_dir, ignore_errors=True)
            keyword_index = sharc.Index.open(root, index_dir=keyword_dir)
            started = time.perf_counter()
            keyword_index.update(embed=False)
            results[name]["keyword_only_index_seconds"] = time.perf_counter() - started
            keyword_index.close()
        index.close()
        print(json.dumps({name: results[name]}), flush=True)
    return {
        "tree": {
            "generated_functions": functions_count,
            "bundle_bytes": (root / "static" / "app.js").stat().st_size,
            "stdlib_modules": HOSTILE_MODULES,
            "source_bytes": sum(p.stat().st_size for p in root.rglob("*") if p.is_file()),
        },
        **results,
        "speedup_vs_no_policy": results["no_policy"]["seconds"] / results["policy"]["seconds"],
    }


def _embedded_texts(index_dir: Path) -> list[str]:
    """The texts an index gave the model: one per distinct vector key of its embedded chunks."""
    from sharc.manifest import Manifest

    manifest = Manifest(index_dir / "manifest.sqlite", writable=False)
    try:
        records = manifest.chunks_by_key(sorted(manifest.embeddable_keys().tolist()))
    finally:
        manifest.close()
    texts = {record.vector_key: record.header + record.code for record in records}
    return list(texts.values())


# The peak RSS of the child alone: VmHWM starts afresh at exec, while ru_maxrss keeps the
# high-water mark of the parent that forked it.
_PEAK = "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
_RSS_CHILD = f"""
import sys, sharc
index = sharc.Index.open(sys.argv[1], index_dir=sys.argv[2])
index.update(embed=sys.argv[3] == "embed")
{_PEAK}
"""
_MODEL_ONLY_CHILD = f"""
import sharc
from sharc.embedding import load_embedder
load_embedder().embed_documents(["def f(): pass"] * 32)
{_PEAK}
"""


def memory(work: Path, sizes: dict[str, int], embedded_sizes: dict[str, int]) -> dict:
    """Peak RSS of a cold index in a fresh process: keyword-only over `sizes` files, and with
    the model over `embedded_sizes` (the growth from 1x to 3x is what streaming must keep
    small), each against the process that only imports sharc, or only loads the model."""
    results: dict = {}
    for name, files in sizes.items():
        results[name] = _peak_of_cold_index(work, f"mem-{name}", files, embed=False)
    results["embedded"] = {
        name: _peak_of_cold_index(work, f"mem-embedded-{name}", files, embed=True)
        for name, files in embedded_sizes.items()
    }
    imports = f"import sharc, sharc.index, sharc.keyword, tantivy; {_PEAK}"
    results["import_only_rss_mb"] = _child_peak_kib(["-c", imports]) / 1024
    results["model_only_rss_mb"] = _child_peak_kib(["-c", _MODEL_ONLY_CHILD]) / 1024
    return results


def _peak_of_cold_index(work: Path, name: str, files: int, *, embed: bool) -> dict:
    root = make_tree(work / name, files)
    index_dir = _index_dir(work, name)
    # A cold build every time: an index left by an earlier run would make this a no-op sync.
    shutil.rmtree(index_dir, ignore_errors=True)
    mode = "embed" if embed else "keyword"
    rss_kib = _child_peak_kib(["-c", _RSS_CHILD, str(root), str(index_dir), mode])
    source = sum(p.stat().st_size for p in root.rglob("*.py"))
    index_bytes = _disk_bytes(index_dir)
    return {
        "files": files,
        "peak_rss_mb": rss_kib / 1024,
        "source_mb": source / 1e6,
        "index_vs_source" if embed else "keyword_index_vs_source": index_bytes / source,
    }


def _child_peak_kib(arguments: list[str]) -> int:
    """Run Python with `arguments` in a fresh process; its peak RSS (the last line it prints)."""
    output = subprocess.run(
        [sys.executable, *arguments], capture_output=True, text=True, check=True, cwd=REPO
    )
    return int(output.stdout.strip().splitlines()[-1])


STEPS = (
    "embedding", "cold", "sync", "query", "memory", "hostile", "noop", "first_keyword", "delta",
)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--query-sizes", type=lambda text: [int(n) for n in text.split(",")],
                        help="chunk counts of the query step (default 10000,100000,1000000)")
    parser.add_argument("--only", default=",".join(STEPS), help="comma-separated: " + ", ".join(STEPS))
    parser.add_argument(
        "--merge", action="store_true", help="keep the other steps' results already in --out"
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_index.json")
    parser.add_argument("--work", type=Path, default=DATA / "speed-work")
    args = parser.parse_args(argv)
    steps = [step.strip() for step in args.only.split(",") if step.strip()]
    if unknown := set(steps) - set(STEPS):
        parser.error(f"unknown steps: {', '.join(sorted(unknown))}")
    args.work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SHARC_CACHE_DIR", str(args.work / "cache"))
    import sharc

    result = {"benchmark": "index_speed", "machine": machine(), "quick": args.quick}
    kept = ("embedding", "cold_index", "sync", "query", "memory", "hostile",
            "noop_process", "first_keyword", "delta_update")
    # Which CPU measured each step: a merged file may hold steps of different machines.
    step_machines: dict[str, str] = {}
    if args.merge and args.out.exists():
        previous = json.loads(args.out.read_text())
        result.update({key: previous[key] for key in kept if key in previous})
        earlier = previous.get("machine", {}).get("cpu_model", "?")
        step_machines = {
            key: previous.get("step_machines", {}).get(key, earlier)
            for key in kept if key in previous
        }
    merged = {key: result.get(key) for key in kept}
    if "embedding" in steps:
        chunked = sharc.chunk_files(CLICK, sharc.walk(CLICK).files[:200])
        texts = [c.text for f in chunked for c in f.chunks][: 200 if args.quick else 600]
        result["embedding"] = embedding_speed(texts)
        print(json.dumps(result["embedding"]["ratios_vs_shipped_independent"]), flush=True)
    with tempfile.TemporaryDirectory(dir=args.work) as scratch:
        work = Path(scratch)
        if "cold" in steps:
            result["cold_index"] = cold_index(work)
            print(json.dumps(result["cold_index"]), flush=True)
        if "sync" in steps:
            tree_files = 1_000 if args.quick else 10_000
            tree = make_tree(args.work / f"tree-{tree_files}", tree_files)
            result["sync"] = sync_speed(work, tree)
            print(json.dumps(result["sync"]), flush=True)
        if "hostile" in steps:
            result["hostile"] = hostile_index(
                work,
                HOSTILE_FUNCTIONS // 10 if args.quick else HOSTILE_FUNCTIONS,
                HOSTILE_BUNDLE_BYTES // 10 if args.quick else HOSTILE_BUNDLE_BYTES,
            )
            print(json.dumps({"speedup_vs_no_policy": result["hostile"]["speedup_vs_no_policy"]}),
                  flush=True)
        if "noop" in steps:
            tree_files = 1_000 if args.quick else 10_000
            tree = make_tree(args.work / f"tree-{tree_files}", tree_files)
            result["noop_process"] = noop_process(work, tree)
            print(json.dumps(result["noop_process"]), flush=True)
        if "first_keyword" in steps:
            requests = DATA / "src" / "requests-2.32.3" / "src"
            trees = {"requests-src": requests} if args.quick else {
                "requests-src": requests, "click": CLICK,
            }
            result["first_keyword"] = first_keyword_result(work, trees)
        if "delta" in steps:
            chunks = 100_000 if args.quick else 1_000_000
            tree = make_tree(args.work / f"query-tree-{chunks}", files_for_chunks(chunks))
            result["delta_update"] = delta_update(args.work, tree)
            print(json.dumps(result["delta_update"]), flush=True)
    if "query" in steps:
        sizes = args.query_sizes or ([10_000] if args.quick else [10_000, 100_000, 1_000_000])
        result["query"] = query_latency(args.work, sizes)
    if "memory" in steps:
        result["memory"] = memory(
            args.work,
            {"1x": 1_000, "3x": 3_000} if args.quick else {"1x": 3_000, "3x": 9_000},
            {"1x": 20, "3x": 60} if args.quick else {"1x": 100, "3x": 300},
        )
        print(json.dumps(result["memory"]), flush=True)
    result["rusage_max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for key in kept:
        if key in result and result[key] is not merged[key]:
            step_machines[key] = result["machine"].get("cpu_model", "?")
    result["step_machines"] = step_machines
    write_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
