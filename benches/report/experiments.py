"""The repository benchmark's experiments that lost, one paragraph each: the learned
combination, the graph neighbour stage, how much of a chunk the model sees, and which vectors
the semantic arm searches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benches.report.results import load

#: The experiments below lost; their code is in git, their rows in benches/quality/README.md.
REMOVED = "code since removed"


def learned_lines(results: Path) -> list[str]:
    """The learned combination (trained on dev) against the hand-tuned ranking, on test."""
    learned = load("quality_repos_learned.json", results)
    if not learned:
        return []
    test = learned["test"]
    mean, low, high = test["learned_vs_hand"]
    cv = learned["dev_cross_validation"]["penalties"][_penalty_key(learned)]["vs_hand"]
    return [
        f"A learned combination of the pipeline's features (a linear model trained on dev"
        f" queries, `RankingSettings(combination=\"learned\")`; `{learned['command']}`)"
        " against"
        f" the hand-tuned default of its run (`git` {learned['git']['commit'][:7]}): dev"
        f" (cross-validated over repositories) {cv[0]:+.1f} ({cv[1]:+.1f} to {cv[2]:+.1f}), test"
        f" {test['hand']['file_ndcg']:.1f} → {test['learned']['file_ndcg']:.1f}, {mean:+.1f}"
        f" ({low:+.1f} to {high:+.1f}), definition at 1 {test['hand']['definition_at_1']:.1f} →"
        f" {test['learned']['definition_at_1']:.1f}. The interval holds zero (an earlier fit also"
        " lost on CoSQA and CodeSearchNet-style questions), so the hand-tuned ranking stays the"
        " default.",
        "",
    ]


def graph_lines(results: Path) -> list[str]:
    """The graph neighbour stage (chosen on dev) against the default ranking, dev and test."""
    graph = load("quality_repos_graph.json", results)
    if not graph:
        return []

    def measured(split: str) -> str:
        entry = graph["splits"][split]
        cells = []
        for category in ("all", "architecture"):
            mean, low, high = entry["variant_minus_defaults"][category]
            before, after = entry["defaults"][category], entry["variant"][category]
            label = "overall" if category == "all" else category
            cells.append(f"{label} {before:.1f} → {after:.1f}, {mean:+.1f} ({low:+.1f} to"
                         f" {high:+.1f})")
        return f"{split} " + "; ".join(cells)

    return [
        "Graph neighbours (files the code graph links to the strongest hits rise,"
        f" `RankingSettings({graph['variant'].replace(',', ', ')})`; `{graph['command']}`,"
        f" {REMOVED};"
        f" against the default of its run, `git` {graph['git']['commit'][:7]}):"
        f" {measured('dev')}; {measured('test')}. Neither interval excludes zero, so the"
        " stage stays off by default.",
        "",
    ]


def vector_text_lines(results: Path) -> list[str]:
    """How much of each chunk the model sees: every token against the first 256 or 128."""
    found = load("quality_vector_text.json", results)
    if not found:
        return []
    modes, embedded = found["modes"], found["embedded"]
    speed = found["chunks_per_second_by_tokens"]

    def cell(mode: str, variant: str, category: str = "all") -> str:
        mean, low, high = modes[mode][variant][category]["vs_first_256"]
        return f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"

    return [
        "How much of each chunk the model sees (dev only; `python -m benches.quality.vector_text`,"
        f" {REMOVED},"
        f" `git` {found['git']['commit'][:7]}; file NDCG@10 against the first 256 tokens, which"
        " is what sharc embeds): extra vectors over the rest of long chunks"
        f" ({embedded['later_windows']:,} more vectors for {embedded['chunks']:,} chunks, each"
        " window repeating the chunk's header), scored by their maximum with later windows"
        f" 0.02 behind, lift the semantic arm alone by {cell('semantic', 'max-0.02')} but not"
        f" hybrid search: {cell('hybrid', 'max-0.02')} (pooled into one mean vector:"
        f" {cell('hybrid', 'mean')}). Embedding only the first 128 tokens encodes"
        f" {speed['128'] / speed['256']:.1f}× as many chunks per second and costs hybrid"
        f" {cell('hybrid', 'first-128')}, questions in words"
        f" {cell('hybrid', 'first-128', 'semantic')}. The default stays at 256 tokens.",
        "",
    ]


def chunk_vectors_lines(results: Path) -> list[str]:
    """Which vectors the semantic arm searches: late chunking, the fast model, both models."""
    found = load("quality_chunk_vectors.json", results)
    if not found:
        return []
    modes = found["modes"]

    def cell(mode: str, variant: str, category: str = "all") -> str:
        mean, low, high = modes[mode][variant][category]["vs"]
        return f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"

    tuned = next((v for v in modes["hybrid"] if v.startswith("fast:")), None)
    lines = [
        f"Which vectors the semantic arm searches (dev only; `{found['command']}`, {REMOVED},"
        f" `git` {found['git']['commit'][:7]}; hybrid file"
        " NDCG@10 against each chunk encoded alone, sharc's default):"
        f" late chunking (each chunk pooled out of an encoding of its whole file)"
        f" {cell('hybrid', 'late')}, the average of both {cell('hybrid', 'combined')}, the fast"
        f" model {cell('hybrid', 'fast')} (architecture {cell('hybrid', 'fast', 'architecture')},"
        f" questions in words {cell('hybrid', 'fast', 'semantic')}), both models' similarities"
        f" at once {cell('hybrid', 'independent+fast')} (the semantic arm alone"
        f" {cell('semantic', 'independent+fast')})."
    ]
    if tuned:
        lines[0] += (
            " The fast model tuned on doc-comment and code pairs from its corpus"
            " (`python -m tools.static_model.contrast`) against the shipped one:"
            f" {cell('hybrid', tuned)}, questions in words {cell('hybrid', tuned, 'semantic')}."
        )
    lines[0] += " sharc keeps independent vectors of the default model."
    return lines + [""]


def _penalty_key(learned: dict[str, Any]) -> str:
    penalties = learned["dev_cross_validation"]["penalties"]
    wanted = learned["penalty"]
    return next(key for key in penalties if float(key) == float(wanted))
