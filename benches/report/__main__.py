"""`python -m benches.report`: the command in `benches.report.cli`."""

from benches.report.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
