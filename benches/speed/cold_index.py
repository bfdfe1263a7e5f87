"""The model, and a cold index with it: the encoder's tokens/s (independent vs late chunking,
int8 per-channel vs the shipped model); a cold index of click 8.1.7 against the model alone
embedding the same chunk texts; and no-op and one-function-added updates of that index against
the model alone on the chunk the edit adds.
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path

from benches.speed.corpus import CLICK, bench_index_dir
from benches.speed.index_footprint import index_parts


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
    index = sharc.Index.open(root, index_dir=bench_index_dir(work, "click"))
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
    parts = index_parts(bench_index_dir(work, "click"))
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
