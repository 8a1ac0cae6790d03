"""Reading a log once for several readers (``eq_evals.logcheck.reading_cache``) and reading finished logs ahead
while a run goes on (``eq_evals.profile.prefetch``, what ``eq-evals profile`` does for its counts and card)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals import logcheck
from eq_evals.profile.prefetch import prefetching


def run_hidden(log_dir: Path, limit: int = 2) -> str:
    [log] = inspect_eval(
        "eq_evals/facet_hidden", model="eq_evals/scripted-oracle", limit=limit, display="none", log_dir=str(log_dir)
    )
    assert log.status == "success" and log.location
    return log.location


def test_within_the_block_an_unchanged_log_is_read_once(tmp_path: Path) -> None:
    path = run_hidden(tmp_path / "logs")
    assert logcheck.read(path) is not logcheck.read(path)  # no cache outside the block
    with logcheck.reading_cache():
        first = logcheck.read(path)
        assert logcheck.read(path) is first
        assert logcheck.read(path, header_only=True).samples is None  # header reads are not served from it
        # the file changed (another log copied over it: another size and time): read again
        copy = tmp_path / "copy.eval"
        shutil.copy(path, copy)
        assert len(logcheck.read(str(copy)).samples or []) == len(first.samples or [])
        bigger = run_hidden(tmp_path / "bigger", limit=3)
        shutil.copy(bigger, copy)
        assert (
            len(logcheck.read(str(copy)).samples or [])
            == len(logcheck.read(bigger).samples or [])
            > len(first.samples or [])
        )
    assert logcheck.read(path) is not first  # the cache ends with the block


def test_finished_logs_are_read_ahead_during_the_run(tmp_path: Path) -> None:
    with prefetching() as ahead:
        path = run_hidden(tmp_path / "logs")
        ahead.close()  # waits for the logs being read
        assert [os.path.realpath(p) for p in ahead.read] == [os.path.realpath(path)]
        assert logcheck.read(path) is logcheck.read(path)  # served from the cache the worker filled
