"""eq-evals: emotional-intelligence benchmarks as declarative Inspect AI tasks."""

__version__ = "0.1.0"
