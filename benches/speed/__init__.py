"""Speed and memory benchmarks: each figure a ratio against a baseline measured in the same run."""
