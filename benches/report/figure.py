"""The figure: MRR@10 against index time (benches/results/quality_vs_time.png)."""

from __future__ import annotations

from pathlib import Path

from benches.report.quality import CONFIG_LABELS
from benches.report.results import RESULTS, load_rows, subset_metrics


def plot(results: Path = RESULTS) -> Path | None:
    """MRR@10 against index time for every configuration, on the datasets they all ran on."""
    rows = load_rows(results)
    baselines = {r["dataset"] for r in rows if r["config"].startswith("baseline:")}
    if not baselines:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4.8))
    for config in sorted({r["config"] for r in rows}):
        m = subset_metrics(rows, config, baselines)
        if m is None:
            continue
        axes.scatter(m["index_seconds"], m["mrr@10"])
        axes.annotate(CONFIG_LABELS.get(config, config), (m["index_seconds"], m["mrr@10"]),
                      fontsize=7, xytext=(4, 2), textcoords="offset points")
    names = ", ".join(sorted(d.split("/")[-1] for d in baselines))
    axes.set_xlabel("index time (s), 2 CPU cores")
    axes.set_ylabel("MRR@10 (%)")
    axes.set_title(f"Quality vs index time (CodeSearchNet-style: {names})")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    target = results / "quality_vs_time.png"
    figure.savefig(target, dpi=120)
    plt.close(figure)
    return target
