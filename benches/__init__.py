"""sharc's benchmarks: retrieval quality (`benches.quality`) and speed. Never part of the tests."""
