"""Benchmarks: each prints its figure as the last line, beside what it can compare it with."""
