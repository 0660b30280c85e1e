"""Benchmarks: each script runs on its own (python bench/<name>.py) and prints its figures."""
