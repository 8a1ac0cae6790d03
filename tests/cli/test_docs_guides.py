"""Every command line printed in the other documents under docs/ (ratings, pairwise, judges, hub, profile, cli,
adding a task, ...) runs, through the real command-line parsers (issue 22; tests/cli/docs_runner.py)."""

from __future__ import annotations

from docs_runner import BENCHMARK_DOCS, printed_block_test

test_printed_block_runs = printed_block_test(lambda doc: doc != "README.md" and doc not in BENCHMARK_DOCS)
