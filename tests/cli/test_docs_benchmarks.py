"""Every command line printed in the benchmarks' documents (docs/facet.md, sage.md, longemotion.md, pace.md,
pace-weights.md, heart.md) runs, through the real command-line parsers (issue 22; tests/cli/docs_runner.py)."""

from __future__ import annotations

from docs_runner import BENCHMARK_DOCS, printed_block_test

test_printed_block_runs = printed_block_test(lambda doc: doc in BENCHMARK_DOCS)
