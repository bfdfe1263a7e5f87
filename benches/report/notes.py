"""The notes under benches/README.md's speed table, one paragraph or small table each: index
size by part, the monorepo runs' load, chunker fuzzing, search concurrency and the code graph
against grep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benches.report.results import load


def index_parts_line(results: Path) -> list[str]:
    speed = load("speed_index.json", results)
    parts = speed and speed["cold_index"].get("index_parts_bytes")
    if not parts:
        return []
    cold = speed["cold_index"]  # type: ignore[index]
    source = cold["source_bytes"]
    labels = (("usearch_vectors", "vectors in usearch"),
              ("manifest_vector_journal", "the manifest's vector journal"),
              ("keyword", "the keyword index"),
              ("manifest_references", "the code graph's references"),
              ("manifest_rest", "code and metadata in the manifest"))
    shares = ", ".join(
        f"{label} {parts[key] / 1e6:.2f} MB ({parts[key] / source:.2f}×)"
        for key, label in labels
        if key in parts
    )
    return ["", f"Index size by part, {cold['repository']}: {shares}."]


def index_size_lines(results: Path) -> list[str]:
    """Index size by part on benchmark repositories, against the code graph's references as
    they were stored before they were keyed by chunk."""
    run = load("speed_index_size.json", results)
    if not run:
        return []
    cells = ", ".join(
        f"{name} {r['index_bytes'] / 1e6:.1f} MB for {r['source_bytes'] / 1e6:.1f} MB of source"
        f" (references {r['parts_bytes']['manifest_references'] / 1e6:.1f} MB,"
        f" {r['references_vs_path_keyed']:.2f}× their old layout's"
        f" {r['references_path_keyed_bytes'] / 1e6:.1f} MB)"
        for name, r in run["repos"].items()
    )
    ratios = [r["index_vs_index_with_path_keyed_references"] for r in run["repos"].values()]
    return [
        "",
        f"Keyword-only index size on benchmark repositories (`{run['command']}`): {cells}."
        f" Whole index against the same with the old reference layout:"
        f" {min(ratios):.2f}× to {max(ratios):.2f}×.",
    ]


def monorepo_note(results: Path) -> list[str]:
    run = load("speed_monorepo.json", results)
    if not run:
        return []
    loads = [
        load
        for step in ("keyword_only_index", "fast_index")
        for load in run.get(step, {}).get("load_average_1min", [])
    ]
    spread = f"{min(loads):.0f} to {max(loads):.0f}" if loads else "unrecorded"
    return [
        "",
        "The monorepo rows (`python -m benches.speed.monorepo`) come from runs in parts while"
        " other jobs shared the 2 cores (the keyword-only and fast-model indexes at 1-minute"
        f" load averages of {spread}), so they compare CPU seconds, not wall time.",
    ]


def fuzz_lines(results: Path) -> list[str]:
    """The long fuzzing run of the chunker."""
    run = load("fuzz_chunker.json", results)
    if not run:
        return []
    totals, languages = run["totals"], run["languages"]
    fewest = min(languages, key=lambda entry: entry["inputs"])
    most = max(languages, key=lambda entry: entry["inputs"])
    return [
        "",
        f"Chunker fuzzing (`python -m benches.fuzz.run`, seed {run['seed']},"
        f" {run['budget_seconds']} s budget per file): {totals['inputs']:,} inputs over"
        f" {len(languages)} languages ({fewest['inputs']:,} for {fewest['language']} to"
        f" {most['inputs']:,} for {most['language']}; the target is 1,000,000 per grammar),"
        f" {totals['panics']} panics, {totals['out_of_time']} files out of time (chunked as"
        f" plain lines, or from the tree without references), {totals['hangs']} past the"
        f" budget by more than"
        f" {run['max_overrun_seconds']} s, {totals['coverage_failures']} coverage reports.",
    ]


def concurrency_lines(results: Path) -> list[str]:
    """Search throughput with 1, 2 and 4 threads sharing one index."""
    result = load("speed_concurrency.json", results)
    if not result:
        return []
    by_threads = result["threads"]
    one = by_threads["1"]["queries_per_second"]
    cores = result["machine"].get("cpus_available", "?")
    lines = [
        "",
        f"Search throughput, one `Index` of {result['chunks']:,} chunks shared by threads"
        f" (hybrid, query embedding included; {result['queries']} queries per measurement,"
        f" median of {result['rounds']} rounds; {cores} cores;"
        " `python -m benches.speed.concurrency`):",
        "",
        "| threads | queries/s | p50 ms | p99 ms | CPU ms/query | queries/s vs one thread |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for threads, row in by_threads.items():
        ratio = "baseline" if threads == "1" else f"{row['queries_per_second'] / one:.2f}×"
        lines.append(
            f"| {threads} | {row['queries_per_second']:.0f} | {row['p50_ms']:.1f}"
            f" | {row['p99_ms']:.1f} | {row['cpu_ms_per_query']:.1f} | {ratio} |"
        )
    low, high = result["load_average"]
    return lines + [
        "",
        f"The machine was shared while measured (load average {low:.1f} to {high:.1f} on its"
        f" {cores} cores): with other processes runnable, more threads also win a larger share"
        " of the cores from them, which flatters the ratio; CPU ms/query is the figure they"
        " change least.",
    ]


def graph_table(results: Path) -> list[str]:
    """The code graph's callers against a grep for call sites, per language."""
    run = load("quality_graph.json", results)
    if not run:
        return []
    overall = run["overall"]
    lines = [
        "", "### Code graph against grep", "",
        f"`{run['command']}`: for {overall['functions']:,} functions and methods defined once in"
        f" the repository benchmark's repositories ({run['per_repo']} per repository, seed"
        f" {run['seed']}), the call sites `callers` finds against those a word-boundary grep for"
        " `name(` finds in the same language's files. *Sure edges* have a confidence of at"
        " least 0.75 (not marked ambiguous).",
        "",
        "| language | functions | precision | recall | sure edges: precision | sure edges: recall |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]

    def row(name: str, entry: dict[str, Any], bold: str = "") -> str:
        every, sure = entry["all_edges"], entry["sure_edges"]
        return (f"| {bold}{name}{bold} | {entry['functions']}"
                f" | {bold}{every['precision']:.3f}{bold} | {bold}{every['recall']:.3f}{bold}"
                f" | {sure['precision']:.3f} | {sure['recall']:.3f} |")

    lines += [row(name, entry) for name, entry in sorted(run["per_language"].items())]
    return lines + [row("all", overall, "**")]
