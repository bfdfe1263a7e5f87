"""The chunker's long fuzzing run: `python -m benches.fuzz.run`.

Builds and runs `examples/fuzz_chunker.rs` (one thread: every grammar in turn, generated
hostile inputs, each checked for panics, hangs past the time budget and lines in no chunk;
`rust/chunk/fuzz/` says what and how) and writes `benches/results/fuzz_chunker.json` with
the commit, date and machine. Each language runs until it has `--inputs-per-language` inputs
or `--seconds-per-language` seconds; the JSON says how many it got.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benches.speed.common import REPO, RESULTS, machine, write_result

EXAMPLE = ["cargo", "run", "--quiet", "--release", "--features", "fuzz", "--example",
           "fuzz_chunker", "--"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs-per-language", type=int, default=1_000_000)
    parser.add_argument("--seconds-per-language", type=float, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=2000)
    parser.add_argument("--line-bytes", type=int, default=1_000_000)
    parser.add_argument("--only", default=None, help="comma-separated language names")
    parser.add_argument("--out", type=Path, default=RESULTS / "fuzz_chunker.json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(scratch) / "fuzz.json"
        command = [*EXAMPLE, "--inputs-per-language", str(args.inputs_per_language),
                   "--seed", str(args.seed), "--budget-ms", str(args.budget_ms),
                   "--line-bytes", str(args.line_bytes), "--out", str(raw)]
        if args.seconds_per_language is not None:
            command += ["--seconds-per-language", str(args.seconds_per_language)]
        if args.only:
            command += ["--only", args.only]
        print("==", " ".join(command), flush=True)
        finished = subprocess.run(command, cwd=REPO)
        result = json.loads(raw.read_text())
    totals = {key: sum(row[key] for row in result["languages"])
              for key in ("inputs", "panics", "hangs", "coverage_failures", "out_of_time")}
    write_result(args.out, {
        "benchmark": "fuzz_chunker",
        "command": " ".join([sys.executable, "-m", "benches.fuzz.run", *(argv or sys.argv[1:])]),
        "machine": machine(),
        "totals": totals,
        **result,
    })
    print(json.dumps(totals))
    return finished.returncode


if __name__ == "__main__":
    raise SystemExit(main())
