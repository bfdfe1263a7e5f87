"""Retrieval-quality benchmarks: dataset builders, scoring and a runner.

- `python -m benches.quality.build` lays out the datasets under `benches/data/` (CoSQA dev from
  `../shared/eval/cosqa`, CodeSearchNet-style sets and the original sources from pinned sdists).
- `python -m benches.quality.run` indexes them with sharc (and the chunking baselines) and
  writes the metrics to `benches/results/quality.json`.
"""
