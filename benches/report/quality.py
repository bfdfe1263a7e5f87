"""The quality tables of the function-level sets (CoSQA, CodeSearchNet-style, hand-written):
one table per set, the default hybrid against its better arm, and the chunking and vector
ablations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.report.results import load_quality, subset_metrics

SET_TITLES = {
    "cosqa": "CoSQA dev (500 web queries, 6,267 Python functions)",
    "csn": "CodeSearchNet-style (docstring → function; requests, click, networkx, tokenizers/Rust)",
    "handwritten": "Hand-written repository questions ({queries}, four repositories, file + line targets)",
}
CONFIG_LABELS = {
    "sharc:keyword": "BM25 only (code-aware tokens)",
    "sharc:independent:semantic": "semantic only, independent vectors",
    "sharc:independent:hybrid-rrf": "hybrid, plain weighted RRF",
    "sharc:independent:hybrid-rrf-boosts": "hybrid, weighted RRF + structural boosts",
    "sharc:independent:hybrid": "hybrid, score fusion + structural boosts (default)",
    "sharc:late:semantic": "semantic only, late chunking",
    "sharc:late:hybrid": "hybrid, score fusion + boosts, late chunking",
    "sharc:combined:semantic": "semantic only, combined vectors",
    "sharc:combined:hybrid": "hybrid, score fusion + boosts, combined vectors",
    "baseline:fixed": "baseline: fixed 1000-char windows, 200 overlap (semantic)",
    "baseline:langchain": "baseline: LangChain from_language (semantic)",
    "baseline:sharc-no-header": "sharc AST chunks without headers (semantic)",
    "baseline:sharc-header": "sharc AST chunks with headers (semantic)",
}


def quality_tables(results: Path, sets: tuple[str, ...], detailed: bool) -> list[str]:
    """One table per dataset family: every configuration run on all of its datasets."""
    quality = load_quality(results)
    lines: list[str] = []
    for set_name in sets:
        configs = quality.get(set_name)
        if not configs:
            continue
        # The set's table holds configurations run on all of its datasets; partial runs
        # (the chunking baselines) get their own table below.
        full = max(len(entry["datasets"]) for entry in configs.values())
        configs = {c: e for c, e in configs.items() if len(e["datasets"]) == full}
        queries = max(entry["queries"] for entry in configs.values())
        lines += ["", f"**{SET_TITLES[set_name].format(queries=queries)}**", ""]
        lines.append("| configuration | MRR | MRR@10 | R@1 | R@10 | nDCG@10 | index s |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        order = [c for c in CONFIG_LABELS if c in configs]
        order += sorted(c for c in configs if c not in CONFIG_LABELS)
        for config in order:
            entry = configs[config]
            m = entry["metrics"]
            lines.append(
                f"| {CONFIG_LABELS.get(config, config)} | {m['mrr']:.1f} | {m['mrr@10']:.1f}"
                f" | {m['recall@1']:.1f} | {m['recall@10']:.1f} | {m['ndcg@10']:.1f}"
                f" | {entry.get('index_seconds', 0):.0f} |"
            )
        if detailed:
            lines += _against_better_arm(configs)
    return lines


def _against_better_arm(configs: dict[str, dict[str, Any]]) -> list[str]:
    """One line: the default hybrid search against the better of its two arms (MRR@10), with
    a paired bootstrap interval when the results carry per-query ranks."""
    mode = _default_embedding_mode()
    hybrid = configs.get(f"sharc:{mode}:hybrid")
    arms = {"BM25": configs.get("sharc:keyword"), "semantic": configs.get(f"sharc:{mode}:semantic")}
    if hybrid is None or None in arms.values():
        return []
    name, best = max(arms.items(), key=lambda pair: pair[1]["metrics"]["mrr@10"])  # type: ignore[index]
    gap = hybrid["metrics"]["mrr@10"] - best["metrics"]["mrr@10"]  # type: ignore[index]
    line = f"Default hybrid search against the better single arm ({name}): {gap:+.1f} MRR@10"
    ranks = (hybrid.get("ranks"), best.get("ranks"))  # type: ignore[union-attr]
    if ranks[0] and ranks[1] and len(ranks[0]) == len(ranks[1]):
        _, low, high = metrics.paired_bootstrap(
            [metrics.rr_at_10(r) for r in ranks[0]], [metrics.rr_at_10(r) for r in ranks[1]]
        )
        line += f" (95% paired bootstrap interval {low:+.1f} to {high:+.1f}, {len(ranks[0])} queries)"
    return ["", line + "."]


def _default_embedding_mode() -> str:
    from benches.quality.configs import default_embedding_mode

    return default_embedding_mode()


def chunking_table(rows: list[dict[str, Any]]) -> list[str]:
    """The chunking and vector ablations: baselines and sharc's modes on the datasets the
    baselines ran on."""
    baselines = [r for r in rows if r["config"].startswith("baseline:")]
    if not baselines:
        return []
    datasets = {r["dataset"] for r in baselines}
    names = ", ".join(sorted(d.split("/")[-1] for d in datasets))
    lines = ["", f"**Chunking and vector ablations (CodeSearchNet-style: {names}; same model)**",
             "", "| configuration | MRR@10 | R@1 | R@10 | nDCG@10 |",
             "| --- | ---: | ---: | ---: | ---: |"]
    configs = [c for c in CONFIG_LABELS if c.startswith("baseline:")]
    configs += [c for c in CONFIG_LABELS if c.startswith("sharc:") and c != "sharc:keyword"]
    for config in configs:
        m = subset_metrics(rows, config, datasets)
        if m is None:
            continue
        label = CONFIG_LABELS[config]
        if config.startswith("sharc:"):
            label = "sharc index: " + label
        lines.append(f"| {label} | {m['mrr@10']:.1f} | {m['recall@1']:.1f} | {m['recall@10']:.1f}"
                     f" | {m['ndcg@10']:.1f} |")
    modes = {
        mode: m
        for mode in ("independent", "late", "combined")
        if (m := subset_metrics(rows, f"sharc:{mode}:hybrid", datasets)) is not None
    }
    default = _default_embedding_mode()
    if default in modes and len(modes) > 1:
        others = ", ".join(
            f"{mode} {m['mrr@10']:.1f} ({m['index_seconds']:.0f} s)"
            for mode, m in modes.items()
            if mode != default
        )
        chosen = modes[default]
        lines += ["", f"The default vector mode is **{default}**: hybrid MRR@10"
                  f" {chosen['mrr@10']:.1f} in {chosen['index_seconds']:.0f} s of indexing"
                  f" on these sets, against {others}."]
    return lines
