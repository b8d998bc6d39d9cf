"""Benchmarks (not tests): engine speed, web load, email latency (docs/performance.md)."""
