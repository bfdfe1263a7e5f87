"""The speed table: every speed measurement against its baseline from the same run, as keyed
rows the two documents choose from, the walk-and-chunk table, and the machine they ran on."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from benches.report.results import load

SPEED_HEADER = ["| measurement | value | baseline (same run) | ratio |", "| --- | ---: | ---: | ---: |"]
#: The speed rows the README shows; benches/README.md shows them all.
SPEED_SUMMARY = ("walk", "cold", "sync", "delta_paths", "query_largest", "monorepo_first",
                 "monorepo_fast", "fast_embedding", "first_semantic_tree-10000", "two_stage_total")


def speed_rows(results: Path) -> list[tuple[str, str]]:
    """Every speed measurement against its baseline, as (key, table row)."""
    rows: list[tuple[str, str]] = []
    walk = load("speed_walk_chunk.json", results)
    if walk:
        sharc, pure = walk["sharc"], walk["pure_python"]
        rows.append(("walk", f"| walk + chunk, {walk['corpus']['files']:,} files"
                     f" ({walk['corpus']['bytes'] / 1e6:.0f} MB)"
                     f" | {sharc['mb_per_s']:.1f} MB/s"
                     f" | pure Python pipeline {pure['mb_per_s']:.1f} MB/s"
                     f" | {walk['ratios']['sharc_vs_pure_python_mb']:.1f}× |"))
    speed = load("speed_index.json", results)
    if speed:
        rows += _index_speed_rows(speed)
    keyword = load("speed_keyword_query.json", results)
    if keyword:
        rows.append(("keyword_query",
                     f"| keyword-only query p50 / p99, {keyword['chunks']:,} chunks (questions in"
                     " words weighed by how many of their words each hit holds)"
                     f" | {keyword['p50_ms']:.1f} / {keyword['p99_ms']:.1f} ms"
                     f" | the same searches without the weighing"
                     f" {keyword['without_coverage_p50_ms']:.1f} ms"
                     f" | {keyword['p50_vs_without_coverage']:.2f}× |"))
    rows += _monorepo_rows(results)
    rows += two_stage_rows(results)
    fast = load("speed_fast_model.json", results)
    if fast:
        rows.append(("fast_embedding",
                     f"| embedding, fast model, chunks/s ({fast['sample']:,}-chunk sample)"
                     f" | {fast['fast']['chunks_per_second']:,.0f}"
                     f" | default model {fast['baseline']['chunks_per_second']:,.0f}"
                     f" | {fast['speedup']:.0f}× |"))
    return rows


def _index_speed_rows(speed: dict[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    embedding = speed["embedding"]
    base = embedding["shipped_independent"]["tokens_per_s"]
    for key, label in (("int8_per_channel_independent", "embedding, int8 per-channel"),
                       ("int8_per_channel_late", "embedding, int8, late chunking")):
        value = embedding[key]["tokens_per_s"]
        rows.append((key, f"| {label} | {value:,.0f} tokens/s | shipped model {base:,.0f}"
                     f" tokens/s | {value / base:.2f}× |"))
    cold = speed["cold_index"]
    rows.append(("cold",
        f"| cold index, {cold['repository']} ({cold['chunks']:,} chunks) | {cold['seconds']:.1f} s"
        f" | model alone on the same chunks {cold['embed_only_seconds']:.1f} s"
        f" | {cold['ratio_vs_embed_only']:.2f}× |"
    ))
    rows.append(("size",
        f"| index size on disk, {cold['repository']} | {cold['index_bytes'] / 1e6:.1f} MB"
        f" | source {cold['source_bytes'] / 1e6:.1f} MB | {cold['index_size_vs_source']:.2f}× |"
    ))
    if incremental := cold.get("incremental"):
        rows.append(("noop_model",
            f"| no-op update with the model, {cold['repository']}"
            f" | {incremental['noop_seconds_median'] * 1e3:.0f} ms | | |"
        ))
        rows.append(("one_function",
            f"| one function added, {cold['repository']}"
            f" ({incremental['chunks_embedded_per_edit']} chunk embedded)"
            f" | {incremental['one_function_seconds_median'] * 1e3:.0f} ms"
            f" | the model alone on that chunk {incremental['model_alone_seconds_median'] * 1e3:.0f} ms"
            f" | {incremental['one_function_vs_model_alone']:.1f}× |"
        ))
    sync = speed["sync"]
    rows.append(("sync",
        f"| no-op sync, {sync['files']:,} files | {sync['noop_seconds_median'] * 1e3:.0f} ms"
        f" | `git status` {sync['git_status_seconds_median'] * 1e3:.0f} ms"
        f" | {sync['noop_vs_git_status']:.2f}× |"
    ))
    rows.append(("sync_one", f"| one file changed, {sync['files']:,} files"
                 f" | {sync['one_file_seconds_median'] * 1e3:.0f} ms | | |"))
    rows.append(("cold_keyword",
        f"| cold keyword-only index, {sync['files']:,} files ({sync['chunks']:,} chunks)"
        f" | {sync['cold_keyword_index_seconds']:.1f} s | | |"
    ))
    if hostile := speed.get("hostile"):
        rows.append(("hostile", _hostile_row(hostile)))
    if delta := speed.get("delta_update"):
        chunks = f"{delta['chunks']:,} chunks, {delta['files']:,} files"
        rewrite = delta["one_function_rewriting_main_seconds_median"]
        rows.append(("delta",
            f"| one function added, {chunks}: `update()`"
            f" | {delta['one_function_delta_seconds_median'] * 1e3:.0f} ms"
            f" | rewriting the main vector file {rewrite:.1f} s"
            f" | {delta['delta_vs_rewriting_main']:.3f}× (target ≤ 0.2 s) |"
        ))
        if "one_function_paths_seconds_median" in delta:
            paths = delta["one_function_paths_seconds_median"]
            rows.append(("delta_paths",
                f"| one function added, {chunks}: `update(paths=[the file])` (the watcher's way)"
                f" | {paths * 1e3:.0f} ms | rewriting the main vector file {rewrite:.1f} s"
                f" | {paths / rewrite:.3f}× (target ≤ 0.2 s) |"
            ))
            rows.append(("delta_noop",
                f"| no-op update, {chunks}: `update()` / `update(paths=...)`"
                f" | {delta['noop_seconds_median'] * 1e3:.0f} / "
                f"{delta['noop_paths_seconds_median'] * 1e3:.0f} ms | | |"
            ))
    queries = sorted(speed["query"].values(), key=lambda q: q["chunks"])
    for n, q in enumerate(queries):
        rows.append(("query_largest" if n == len(queries) - 1 else "query",
            f"| warm query p50 / p99, {q['chunks']:,} chunks{_vector_note(q)}"
            f" | {q['p50_ms']:.1f} / {q['p99_ms']:.1f} ms"
            f" | exact numpy cosine + query embedding {q['exact_numpy_p50_ms']:.1f} ms"
            f" | {q['p50_vs_exact_numpy']:.2f}× |"
        ))
    for q in queries:
        if "without_file_evidence_p50_ms" in q:
            rows.append(("query",
                f"| warm query p50 with the evidence of whole files, {q['chunks']:,} chunks"
                f" | {q['p50_ms']:.1f} ms | the same search without it"
                f" {q['without_file_evidence_p50_ms']:.1f} ms"
                f" | {q['p50_vs_without_file_evidence']:.2f}× |"
            ))
        if "without_cohesion_p50_ms" in q:
            rows.append(("query",
                f"| warm query p50 with the stored file cohesion, {q['chunks']:,} chunks"
                f" (measured by the writer in {q['cohesion_measure_s']:.1f} s)"
                f" | {q['p50_ms']:.1f} ms | the same search without it"
                f" {q['without_cohesion_p50_ms']:.1f} ms"
                f" | {q['p50_vs_without_cohesion']:.2f}× |"
            ))
        if "without_even_opinion_p50_ms" in q:
            rows.append(("query",
                f"| warm query p50 with the even ranking's opinion on the files, {q['chunks']:,}"
                f" chunks | {q['p50_ms']:.1f} ms | the same search without it"
                f" {q['without_even_opinion_p50_ms']:.1f} ms"
                f" | {q['p50_vs_without_even_opinion']:.2f}× |"
            ))
        if "with_fast_opinion_p50_ms" in q:
            rows.append(("query",
                f"| warm query p50 with the fast model's opinion on the files (opt-in,"
                f" `fast_opinion_share=0.3`), {q['chunks']:,} chunks"
                f" | {q['with_fast_opinion_p50_ms']:.1f} ms | the same search without it"
                f" {q['p50_ms']:.1f} ms | {q['with_fast_opinion_vs_p50']:.2f}× |"
            ))
        if "narrow_hnsw_p50_ms" in q and q["chunks"] > q.get("exact_threshold", 10_000):
            rows.append(("query",
                f"| warm query p50, the vectors' HNSW search at least {q['search_expansion']}"
                f" candidates wide, {q['chunks']:,} chunks | {q['p50_ms']:.1f} ms"
                f" | the same search only as wide as the results asked for (usearch's own)"
                f" {q['narrow_hnsw_p50_ms']:.1f} ms | {q['p50_vs_narrow_hnsw']:.2f}× |"
            ))
        if "random_ann_ms" in q and q["chunks"] > q["exact_threshold"]:
            rows.append(("query",
                f"| the vectors' HNSW search alone, {q['chunks']:,} vectors sampled from real"
                f" embeddings | {q['ann_ms']:.2f} ms | the same over random unit vectors (the"
                f" graph's worst case) {q['random_ann_ms']:.2f} ms | {q['ann_vs_random']:.2f}× |"
            ))
        if "graph_p50_ms" in q and q["chunks"] <= q["exact_threshold"]:
            rows.append(("query",
                f"| warm query p50, the vectors searched exactly (up to"
                f" {q['exact_threshold']:,}), {q['chunks']:,} chunks | {q['p50_ms']:.1f} ms"
                f" | the same search through the HNSW graph {q['graph_p50_ms']:.1f} ms"
                f" | {q['p50_vs_graph']:.2f}× |"
            ))
    memory = speed["memory"]
    for name in ("1x", "3x"):
        if name in memory:
            m = memory[name]
            rows.append(("rss",
                f"| peak RSS, keyword index of {m['files']:,} files ({m['source_mb']:.0f} MB)"
                f" | {m['peak_rss_mb']:.0f} MB | import alone {memory['import_only_rss_mb']:.0f} MB | |"
            ))
    for m in memory.get("embedded", {}).values():
        rows.append(("rss",
            f"| peak RSS, full index with the model, {m['files']:,} files"
            f" ({m['source_mb']:.1f} MB; index {m['index_vs_source']:.2f}× the source)"
            f" | {m['peak_rss_mb']:.0f} MB | model loaded alone {memory['model_only_rss_mb']:.0f} MB | |"
        ))
    return rows


def _hostile_row(hostile: dict) -> str:
    """The cold index of issue #12's hostile tree, with the embedding policy and without."""
    tree, policy, baseline = hostile["tree"], hostile["policy"], hostile["no_policy"]
    return (
        f"| cold index, default model, a tree with a generated file of"
        f" {tree['generated_functions']:,} functions, a {tree['bundle_bytes'] / 1e3:.0f} KB"
        f" minified bundle and {tree['stdlib_modules']} stdlib modules ({policy['chunks']:,}"
        f" chunks, {policy['chunks_embedded']:,} embedded)"
        f" | {policy['seconds']:.1f} s | every embedding rule off"
        f" ({baseline['chunks_embedded']:,} embedded) {baseline['seconds']:.1f} s"
        f" | {policy['seconds'] / baseline['seconds']:.2f}× (target ≤ 20 s) |"
    )


def _monorepo_rows(results: Path) -> list[tuple[str, str]]:
    """The synthetic monorepo: first keyword result, fast-model index, peak RSS, savings."""
    run = load("speed_monorepo.json", results)
    if not run:
        return []
    tree, fast, keyword = run["tree"], run["fast_index"], run["keyword_only_index"]
    savings, ratios = run["savings"], run["ratios"]
    name = f"monorepo, {tree['files']:,} files ({tree['bytes'] / 1e9:.1f} GB, {savings['chunks']:,} chunks)"
    return [
        ("monorepo_first", f"| first keyword result, {name}"
         f" | {run['first_keyword_result']['seconds']:.1f} s"
         f" | keyword-only index {keyword['seconds']:.0f} s | target ≤ 30 s |"),
        ("monorepo_fast", f"| `sharc index --model fast`, {name} | {fast['cpu_seconds']:.0f} CPU s"
         f" | keyword-only index {keyword['cpu_seconds']:.0f} CPU s"
         f" | {ratios['fast_index_vs_keyword_only_cpu_seconds']:.2f}× (target ≤ 2×) |"),
        ("monorepo_rss", f"| peak RSS, fast-model index of the {name}"
         f" | {fast['peak_rss_mb']:,.0f} MB | keyword-only {keyword['peak_rss_mb']:,.0f} MB | |"),
        ("monorepo_embedded", f"| chunks embedded, {name} | {savings['embedded_by_model']:,}"
         f" | {savings['keyword_only_by_policy']:,} keyword-only by policy,"
         f" {savings['dedup_saved']:,} duplicates | {savings['model_calls_vs_all_chunks']:.2f}× |"),
    ]


def two_stage_rows(results: Path) -> list[tuple[str, str]]:
    """Fast vectors first (`benches/speed/two_stage.py`): the first semantic result against a
    keyword-only index, and the two stages' total against the default model alone."""
    data = load("speed_two_stage.json", results)
    rows: list[tuple[str, str]] = []
    if not data:
        return rows
    for name, run in data.get("first_semantic", {}).items():
        first = statistics.median(run["first_semantic_result_seconds"])
        keyword = statistics.median(run["keyword_only_index_seconds"])
        rows.append((f"first_semantic_{name}",
                     f"| first semantic result of a cold `sharc index`, {name}"
                     f" ({run['chunks']:,} chunks) | {first:.1f} s"
                     f" | keyword-only index {keyword:.1f} s"
                     f" | {run['first_semantic_vs_keyword_only']:.2f}× (target ≤ 1.5×) |"))
    total = data.get("total")
    if total:
        rows.append(("two_stage_total",
                     f"| cold index, fast vectors then the default model, {total['repository']}"
                     f" ({total['chunks']:,} chunks)"
                     f" | {statistics.median(total['two_stage_seconds']):.1f} s, of which the"
                     f" fast stage {statistics.median(total['fast_stage_seconds']):.1f} s"
                     f" ({100 * total['fast_stage_share_of_two_stage']:.1f}% of a run;"
                     f" {_added_outside(total)}"
                     f" {len(total['two_stage_seconds'])} alternated rounds, the default"
                     f" model alone {min(total['default_model_alone_seconds']):.0f}-"
                     f"{max(total['default_model_alone_seconds']):.0f} s)"
                     f" | default model alone"
                     f" {statistics.median(total['default_model_alone_seconds']):.1f} s"
                     f" | {total['two_stage_vs_alone']:.2f}× (median of the rounds' paired"
                     f" ratios; target ≤ 1.05×) |"))
        rows.append(("two_stage_size",
                     f"| index size with the fast set, {total['repository']}"
                     f" | {total['index_bytes_two_stage'] / 1e6:.1f} MB"
                     f" | default set alone {total['index_bytes_alone'] / 1e6:.1f} MB"
                     f" | {total['index_size_two_stage_vs_alone']:.2f}× |"))
    return rows


def _added_outside(total: dict) -> str:
    """The two-stage path's own cost outside the default model's time, where measured."""
    share = total.get("added_outside_the_model_share")
    if share is None:
        return ""
    return f"all it adds outside the default model's own time {100 * share:.1f}%;"


def walk_table(walk: dict[str, Any]) -> list[str]:
    r = walk["ratios"]
    lines = [
        f"Walk + chunk over {walk['corpus']['files']:,} files"
        f" ({walk['corpus']['bytes'] / 1e6:.0f} MB, {walk['corpus']['source']}),"
        f" {walk['machine'].get('cpus_available', walk['machine'].get('cpu_count'))} cores"
        + _load_note(walk["machine"]) + ":",
        "", "| pipeline | MB/s | files/s | sharc is |", "| --- | ---: | ---: | ---: |",
    ]
    for key, label, ratio in (
        ("sharc", "sharc (walk + ignore rules + AST chunks + text tiers)", None),
        ("sharc_1_thread", "sharc, one thread", None),
        ("bare_parse_1_thread", "bare tree-sitter parse of the tier-1 files, one thread",
         r["sharc_vs_bare_parse_mb"]),
        ("pure_python", "pure Python: os.walk + pathspec + py-tree-sitter + LangChain",
         r["sharc_vs_pure_python_mb"]),
    ):
        run = walk[key]
        faster = f"{ratio:.1f}×" if ratio else ""
        lines.append(f"| {label} | {run['mb_per_s']:.1f} | {run['files_per_s']:.0f} | {faster} |")
    return lines


def _load_note(machine: dict[str, Any]) -> str:
    """How busy the machine was during a run, when the run recorded it: other jobs sharing the
    cores slow the parallel figures most."""
    before, after = machine.get("load_average_before"), machine.get("load_average_after")
    if not before or not after:
        return ""
    if max(before[0], after[0]) < 2.0:
        return f" (load average {before[0]:.1f} before and {after[0]:.1f} after the run)"
    return (
        f" (load average {before[0]:.1f} before and {after[0]:.1f} after the run: other jobs"
        " shared the cores, which slows the parallel figures most)"
    )


def machine_line(results: Path) -> list[str]:
    speed = load("speed_index.json", results)
    if not speed:
        return []
    cores = f"{speed['machine'].get('cpus_available', '?')} cores, no GPU."
    by_step = dict(speed.get("step_machines") or {})
    others = (("speed_two_stage.json", "two_stage"), ("speed_fast_model.json", "fast_model"))
    for name, step in others:
        model = (load(name, results) or {}).get("machine", {}).get("cpu_model")
        if model and by_step:
            by_step[step] = model
    models = sorted(set(by_step.values())) or [speed["machine"].get("cpu_model", "?")]
    if len(models) == 1:
        return ["", f"Machine: {models[0]}, {cores}"]
    steps = {
        model: ", ".join(sorted(step for step, m in by_step.items() if m == model))
        for model in models
    }
    named = "; ".join(f"{model} ({steps[model]})" for model in models)
    return ["", "Machines (the steps of `benches.speed.index_speed`, `two_stage` and `fast_model`):"
            f" {named}; {cores}"]


def _vector_note(query: dict) -> str:  # type: ignore[type-arg]
    """How a query row's vectors were made, where the result says (`vector_load`)."""
    source = query.get("vector_source")
    if source == "real":
        return " (vectors sampled from real embeddings)"
    return " (random unit vectors)" if source == "random" else ""
