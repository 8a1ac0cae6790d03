"""Benchmark-independent building blocks: prompt templates, metrics."""
