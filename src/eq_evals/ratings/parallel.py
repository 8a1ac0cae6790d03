"""Run independent rating computations (one per leaderboard table) on several cores.

Sequential TrueSkill replays cannot be split, but the tables of one report (each dimension and the
pooled Overall) are independent. ``run_calls`` runs them in forked worker processes: the inputs are
inherited through fork instead of pickled (pickling 370k comparisons would cost seconds), only
each table's ratings travel back. Largest calls are started first. Falls back to running in this
process when there is one core, one call, or no ``fork`` start method (e.g. Windows).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

__all__ = ["run_calls", "default_workers"]

_PENDING: Sequence[tuple[Callable, tuple]] | None = None


def default_workers() -> int:
    """Cores this process may use (``EQ_EVALS_WORKERS`` overrides; 1 disables worker processes)."""
    env = os.environ.get("EQ_EVALS_WORKERS")
    if env:
        return max(1, int(env))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _call(index: int) -> tuple[Any, BaseException | None]:
    fn, args = _PENDING[index]
    try:
        return fn(*args), None
    except ValueError as ex:
        return None, ex


def run_calls(
    calls: Sequence[tuple[Callable, tuple]],
    sizes: Sequence[int],
    workers: int | None = None,
    on_done: Callable[[], None] | None = None,
) -> list[tuple[Any, BaseException | None]]:
    """[(result, None) or (None, ValueError)] for each ``fn(*args)`` in ``calls``, in order.

    ``sizes`` estimates each call's cost (e.g. its number of comparisons) to start the largest first.
    Errors other than ValueError propagate."""
    global _PENDING
    workers = default_workers() if workers is None else workers
    workers = min(workers, len(calls))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        out = []
        for fn, args in calls:
            try:
                out.append((fn(*args), None))
            except ValueError as ex:
                out.append((None, ex))
            if on_done:
                on_done()
        return out
    _PENDING = calls
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            order = sorted(range(len(calls)), key=lambda i: -sizes[i])
            futures = {pool.submit(_call, i): i for i in order}
            results: dict[int, tuple[Any, BaseException | None]] = {}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                if on_done:
                    on_done()
        return [results[i] for i in range(len(calls))]
    finally:
        _PENDING = None
