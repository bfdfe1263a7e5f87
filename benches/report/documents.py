"""The two generated documents: the README's summary and benches/README.md's every table,
assembled from the other modules, and the part between the markers read and written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from benches.report.fast_model import fast_model_lines, two_stage_lines
from benches.report.notes import (
    concurrency_lines,
    fuzz_lines,
    graph_table,
    index_parts_line,
    index_size_lines,
    monorepo_note,
)
from benches.report.quality import SET_TITLES, chunking_table, quality_tables
from benches.report.repos import (
    fresh_lines,
    large_lines,
    monorepo_lines,
    repos_summary,
    repos_tables,
)
from benches.report.results import REPO, RESULTS, load, load_rows
from benches.report.speed import SPEED_HEADER, SPEED_SUMMARY, machine_line, speed_rows, walk_table

README = REPO / "README.md"
DETAILS = REPO / "benches" / "README.md"
START, END = "<!-- BENCHMARKS:START -->", "<!-- BENCHMARKS:END -->"


def render_summary(results: Path = RESULTS) -> str:
    """The README's part: one table per concern."""
    lines = repos_summary(results)
    cosqa = quality_tables(results, ("cosqa",), detailed=False)
    if cosqa:
        lines += ["### CoSQA", "", f"{SET_TITLES['cosqa']}; default model (all-MiniLM-L6-v2,"
                  " int8, CPU); percent.", *cosqa[3:], ""]
    rows = [row for key, row in speed_rows(results) if key in SPEED_SUMMARY]
    if rows:
        lines += ["### Speed", "", *SPEED_HEADER, *rows, *machine_line(results), ""]
    lines.append(
        "Every figure, interval, ablation and caveat, and how to rerun them:"
        " [benches/README.md](benches/README.md)."
    )
    return "\n".join(lines).rstrip() + "\n"


def render_details(results: Path = RESULTS) -> str:
    """benches/README.md's part: every table and note."""
    lines: list[str] = (
        repos_tables(results) + fresh_lines(results) + monorepo_lines(results)
        + large_lines(results)
        + fast_model_lines(results)
        + two_stage_lines(results)
    )
    quality = quality_tables(results, ("cosqa", "csn", "handwritten"), detailed=True)
    if quality:
        lines += ["### Retrieval quality", "",
                  "Default model (all-MiniLM-L6-v2, int8, CPU); metrics in percent; `make bench`"
                  " reproduces them (`benches/results/quality*.json`).", *quality]
    lines += chunking_table(load_rows(results))
    walk = load("speed_walk_chunk.json", results)
    if walk:
        lines += ["", "### Speed", "", *walk_table(walk)]
    rows = [row for key, row in speed_rows(results) if key not in ("walk", "fast_embedding")]
    if rows:
        lines += ["", *SPEED_HEADER, *rows]
    lines += machine_line(results) + index_parts_line(results)
    lines += index_size_lines(results) + monorepo_note(results) + fuzz_lines(results)
    lines += concurrency_lines(results) + graph_table(results)
    return "\n".join(lines).rstrip() + "\n"


#: Each generated document and what renders its part.
DOCUMENTS: dict[Path, Callable[[Path], str]] = {README: render_summary, DETAILS: render_details}


def section(document: Path) -> str:
    """What a document holds between its markers now."""
    text = document.read_text()
    start, end = text.index(START) + len(START), text.index(END)
    return text[start:end].strip("\n") + "\n"


def write(document: Path, results: Path = RESULTS) -> None:
    text = document.read_text()
    start, end = text.index(START) + len(START), text.index(END)
    document.write_text(text[:start] + "\n" + DOCUMENTS[document](results) + text[end:])
