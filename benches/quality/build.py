"""Build the quality datasets under benches/data/ (idempotent; downloads are kept).

    python -m benches.quality.build [--sets cosqa,csn,handwritten] [--packages requests,click]

CoSQA dev needs `../shared/eval/cosqa` (or SHARC_EVAL_DIR); the other sets download the pinned
sdists with pip once (benches/data/sdists/).
"""

from __future__ import annotations

import argparse
import sys
import time

from benches.quality import cosqa, csn, handwritten, sdists

SETS = ("cosqa", "csn", "handwritten")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build sharc's retrieval-quality datasets.")
    parser.add_argument(
        "--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS)
    )
    parser.add_argument(
        "--packages", default="", help="only these pinned packages (csn, handwritten)"
    )
    args = parser.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = set(sets) - set(SETS)
    if unknown:
        parser.error(f"unknown sets: {', '.join(sorted(unknown))}")
    wanted = {p.strip() for p in args.packages.split(",") if p.strip()}
    packages = [p for p in sdists.PACKAGES if not wanted or p.name in wanted]
    failed = False
    if "cosqa" in sets:
        started = time.perf_counter()
        dataset = cosqa.build()
        print(
            f"cosqa-dev: {len(dataset.queries)} queries over {dataset.meta['pool_functions']} "
            f"functions in {dataset.meta['modules']} modules ({time.perf_counter() - started:.1f}s)"
        )
    if "csn" in sets:
        for pkg in packages:
            started = time.perf_counter()
            dataset = csn.build(pkg)
            print(
                f"{dataset.name}: {len(dataset.queries)} queries "
                f"({dataset.meta['candidates']} candidates; {time.perf_counter() - started:.1f}s)"
            )
            if dataset.meta["unstripped_files"]:
                print(f"  left unstripped: {dataset.meta['unstripped_files']}", file=sys.stderr)
    if "handwritten" in sets:
        for path in handwritten.query_files():
            payload = handwritten.read_query_file(path)
            if packages and payload["package"] not in {p.name for p in packages}:
                continue
            sdists.extract(handwritten.package_of(payload))
            problems = handwritten.check(path)
            print(
                f"handwritten/{payload['package']}: {len(payload['queries'])} queries, "
                f"{len(problems)} problems"
            )
            for problem in problems:
                print(f"  {problem}", file=sys.stderr)
            failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
