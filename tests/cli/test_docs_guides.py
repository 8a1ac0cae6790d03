"""Every command line printed in the other documents under docs/ (ratings, pairwise, judges, hub, profile, cli,
adding a task, ...) runs, through the real command-line parsers (issue 22; tests/cli/docs_runner.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_runner import BENCHMARK_DOCS, Block, block_params, run_printed_block


@pytest.mark.parametrize(
    "block", block_params(lambda doc: doc != "README.md" and doc not in BENCHMARK_DOCS), ids=lambda b: b.id
)
def test_printed_block_runs(
    block: Block,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    run_printed_block(block, tmp_path, request, monkeypatch, capsys)
