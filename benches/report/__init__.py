"""Render the benchmark results (benches/results/*.json) as tables: a summary in the README,
everything in benches/README.md, and a plot.

    python -m benches.report            # rewrite both documents and benches/results/quality_vs_time.png
    python -m benches.report --check    # exit 1 if either document is out of date

Each document's generated part lies between `<!-- BENCHMARKS:START -->` and
`<!-- BENCHMARKS:END -->`; tests/test_readme.py checks that both match the JSON.

The modules, each importing only those above it: `results` (reading the JSON); `quality`,
`experiments`, `repos`, `speed`, `fast_model` and `notes` (each a family of tables and
paragraphs); `documents` (both documents assembled, read and written); `figure` (the plot);
`cli` (the command).
"""

from benches.report.cli import main
from benches.report.documents import DOCUMENTS, render_details, render_summary, section, write
from benches.report.figure import plot
from benches.report.results import RESULTS

__all__ = [
    "DOCUMENTS",
    "RESULTS",
    "main",
    "plot",
    "render_details",
    "render_summary",
    "section",
    "write",
]
