"""Render the benchmark results (benches/results/*.json) as tables: a summary in the README,
everything in benches/README.md, and a plot; the command line (`python -m benches.report`).

The first line is the command's `--help` description.
"""

from __future__ import annotations

import argparse
import sys

from benches.report.documents import DOCUMENTS, section, write
from benches.report.figure import plot
from benches.report.results import REPO, RESULTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a document is stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = [doc for doc, render in DOCUMENTS.items() if section(doc) != render(RESULTS)]
        for document in stale:
            print(f"{document.relative_to(REPO)} is out of date: python -m benches.report",
                  file=sys.stderr)
        return 1 if stale else 0
    for document in DOCUMENTS:
        write(document)
    plot()
    return 0
