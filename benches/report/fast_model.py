"""The fast model and its vectors first: the fast model beside the default one, and the two
vector sets of a cold index (speed, the kill probe, each stage's quality)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benches.report.results import load
from benches.report.speed import SPEED_HEADER, two_stage_rows

FAST_MODES = (("hybrid", "hybrid"), ("semantic", "semantic only"))


def fast_model_lines(results: Path) -> list[str]:
    """The fast model beside the default one: quality (repository benchmark, CoSQA) and speed."""
    repos = load("quality_repos_fast.json", results)
    cosqa = load("quality_cosqa_fast.json", results)
    speed = load("speed_fast_model.json", results)
    if not repos or "versus_default" not in repos:
        return []
    lines = [
        "### Fast model",
        "",
        "`--model fast`: static token vectors distilled from the default model"
        " (`tools/static_model/`), no neural network to index; a query also goes through the"
        " default model (a few milliseconds), mixed in at `teacher_query_share`. File NDCG@10 on"
        " the repository"
        " benchmark with each model's own index, the difference with its paired bootstrap"
        " interval over queries; CoSQA dev MRR; `python -m benches.quality.fast_model repos|cosqa`"
        " and `python -m benches.speed.fast_model` reproduce them.",
        "",
        "| measure | default model | fast model | difference |",
        "| --- | ---: | ---: | ---: |",
    ]
    for split, modes in repos["versus_default"].items():
        for mode, label in FAST_MODES:
            if mode not in modes:
                continue
            ndcg = modes[mode]["file_ndcg"]
            interval = modes[mode].get("file_ndcg_bootstrap")
            spread = f" ({interval[1]:+.1f} to {interval[2]:+.1f})" if interval else ""
            lines.append(f"| repositories {split}, {label} | {ndcg['default']:.1f}"
                         f" | {ndcg['fast']:.1f} | {ndcg['difference']:+.1f}{spread} |")
    if cosqa:
        for config, label in (("sharc:independent:hybrid", "hybrid"),
                              ("sharc:independent:semantic", "semantic only")):
            default, fast = (
                cosqa["models"][model]["sets"]["cosqa"][config]["metrics"]["mrr"]
                for model in ("default", "fast")
            )
            lines.append(f"| CoSQA dev MRR, {label} | {default:.1f} | {fast:.1f}"
                         f" | {fast - default:+.1f} |")
    if speed:
        base, fast = speed["baseline"], speed["fast"]
        lines.append(
            f"| embedding alone, chunks/s ({speed['sample']:,}-chunk sample)"
            f" | {base['chunks_per_second']:,.0f} | {fast['chunks_per_second']:,.0f}"
            f" | {speed['speedup']:.0f}× |"
        )
        lines.append(
            f"| embedding alone, all {speed['chunks_total']:,} benchmark chunks"
            f" | | {fast['all_chunks_per_second']:,.0f} | {speed['speedup_at_scale']:.0f}× |"
        )
        queries = speed.get("query_embedding")
        if queries:
            lines.append(
                f"| one query embedded, p50 ms ({queries['queries']} benchmark questions; static"
                f" sum alone {queries['static_sum_p50_ms']:.2f} ms)"
                f" | {queries['default_model_p50_ms']:.2f}"
                f" | {queries['fast_with_teacher_p50_ms']:.2f}"
                f" | {queries['fast_with_teacher_vs_default_model']:.2f}× |"
            )
    lines += [
        "",
        "Every index with the default model keeps the fast model's vectors too and searches"
        " them until the default model's are whole (next section), so a cold index has vectors"
        " in seconds without choosing. `--model fast` alone suits a very large tree on a CPU:"
        " on whole-repository questions its hybrid search is level with the default model's"
        " (BM25 and the ranking carry the identifiers), but it is weaker on web-style"
        " questions about single functions (CoSQA). The default model stays the default.",
        "",
    ]
    return lines


def two_stage_lines(results: Path) -> list[str]:
    """benches/README.md's section on the two vector sets: speed, the kill probe, quality."""
    rows = [row for _, row in two_stage_rows(results)]
    data = load("speed_two_stage.json", results) or {}
    kills = data.get("kills")
    repos = load("quality_repos.json", results)
    if not rows and not kills:
        return []
    lines = [
        "### Fast vectors first",
        "",
        "A cold index with the default model commits the fast model's vectors first, then the"
        " default model's; search reads the fast ones until the default ones cover every chunk"
        " (`sharc/fast_vectors.py`). `python -m benches.speed.two_stage` reproduces these.",
        "",
    ]
    if rows:
        lines += [*SPEED_HEADER, *rows, ""]
    if kills:
        same = kills["resumed_identical_to_clean"]
        names = {"fast": "fast vectors", "default": "default model", "ready": "the fast set's"
                 " commit", "done": "after the last commit", "finished": "after the run ended"}
        stages = ", ".join(f"{names.get(stage, stage)} {count}" for stage, count in
                           sorted(kills["killed_in_stage"].items()))
        lines += [
            f"Kill probe: {kills['kills']} runs of `sharc index` killed with SIGKILL at random"
            f" points ({stages}), the tree gaining a function before each run. After each kill"
            f" a search answered {kills['searches_answered_after_a_kill']} times"
            f" ({kills['not_indexed_yet_after_a_kill']} kills came before the first commit:"
            f" nothing to search yet), with {len(kills['failures'])} failures. The run that"
            f" completed left the same chunks as a clean build ({_yes(same['chunks'])}), the"
            f" same default vectors ({_yes(same['default'])}) and the same fast vectors"
            f" ({_yes(same['fast'])}){_keyword_sameness(same)}.",
            "",
        ]
    if repos:
        lines += _stage_quality_lines(repos, load("quality_cosqa_fast.json", results))
    return lines


def _yes(value: bool) -> str:
    return "yes" if value else "NO"


def _stage_quality_lines(repos: dict[str, Any], cosqa: dict[str, Any] | None) -> list[str]:
    """Each stage's quality: file NDCG@10 on the repository benchmark (the same indexes searched
    with the fast set and with the default set), and CoSQA dev MRR (the fast set's vectors are
    the fast model's: its own index measures them)."""
    lines = ["| benchmark | stage | hybrid | semantic only |", "| --- | --- | ---: | ---: |"]
    for split, entry in repos.get("splits", {}).items():
        modes = entry.get("modes", {})
        for label, hybrid, semantic in (("fast vectors (first)", "hybrid-fast", "semantic-fast"),
                                        ("default model (after)", "hybrid", "semantic")):
            if hybrid in modes and semantic in modes:
                lines.append(f"| repositories {split}, file NDCG@10 | {label}"
                             f" | {modes[hybrid]['overall']['file_ndcg']:.1f}"
                             f" | {modes[semantic]['overall']['file_ndcg']:.1f} |")
    if cosqa:
        for model, label in (("fast", "fast vectors (first)"), ("default", "default model (after)")):
            configs = cosqa["models"][model]["sets"]["cosqa"]
            lines.append(f"| CoSQA dev, MRR | {label}"
                         f" | {configs['sharc:independent:hybrid']['metrics']['mrr']:.1f}"
                         f" | {configs['sharc:independent:semantic']['metrics']['mrr']:.1f} |")
    return lines + [""] if len(lines) > 2 else []


def _keyword_sameness(same: dict) -> str:
    """The keyword indexes' part of the kill probe's verdict (older results lack it)."""
    if "keyword" not in same:
        return ""
    files = same.get("keyword-files")
    tail = "" if files is None else f", the file keyword index ({_yes(files)})"
    return f", and the same keyword documents: the chunk index ({_yes(same['keyword'])}){tail}"
