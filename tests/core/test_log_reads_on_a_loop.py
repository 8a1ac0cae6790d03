"""Reading logs from code that runs on Inspect's event loop (eq_evals.logcheck.read and read_async).

Inspect's synchronous ``read_eval_log`` re-enters a running loop through nest_asyncio. The first re-entry in a
process, made while asyncio's own ``_run_once`` is part-way through its ready queue, crashed the loop with
"IndexError: pop from an empty deque": the ``--opponents`` profile's fault, where HEART's scorer read the
opponents' logs synchronously (docs/profile.md)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from support import record_loop_reentries

from eq_evals import logcheck
from eq_evals.errors import EqEvalsError

# a synchronous read that runs first among six ready tasks, in a fresh process (where nest_asyncio has not yet
# patched the loop's class): the nested run takes the five others from the ready queue the outer frame of
# asyncio's _run_once has counted, and nothing refills it (the waiters wait, the main task sleeps), so that frame
# pops an empty deque. No eval is needed, only this.
READ_AMONG_READY_TASKS = """
import asyncio, sys
from eq_evals import logcheck

async def main():
    go = asyncio.Event()

    async def read():
        return logcheck.read(sys.argv[1], header_only=True)

    async def wait():
        await go.wait()

    reader = asyncio.create_task(read())
    waiters = [asyncio.create_task(wait()) for _ in range(5)]
    log = await reader
    await asyncio.sleep(0.05)
    go.set()
    await asyncio.gather(*waiters)
    print(log.eval.task)

asyncio.run(main())
"""


@pytest.fixture(scope="module")
def a_log(tmp_path_factory: pytest.TempPathFactory) -> str:
    [log] = inspect_eval(
        Task(dataset=[Sample(input="hello", target="hello")], name="tiny"),
        model="mockllm/model",
        log_dir=str(tmp_path_factory.mktemp("logs")),
        display="none",
    )
    assert log.location
    return log.location


def test_a_synchronous_read_among_ready_tasks_does_not_break_the_loop(a_log: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", READ_AMONG_READY_TASKS, a_log], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "tiny"


def test_reads_on_a_running_loop_do_not_reenter_it(a_log: str, monkeypatch: pytest.MonkeyPatch) -> None:
    reentries = record_loop_reentries(monkeypatch)

    async def both() -> tuple:
        return logcheck.read(a_log), await logcheck.read_async(a_log, header_only=True)

    full, header = asyncio.run(both())
    assert len(full.samples or []) == 1 and header.samples is None and header.eval.task == "tiny"
    assert reentries == []


def test_an_unreadable_log_is_named_on_a_loop_too(tmp_path: Path) -> None:
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"not a zip")

    async def both() -> None:
        with pytest.raises(EqEvalsError, match="broken.eval is not a readable Inspect log"):
            logcheck.read(str(bad))
        with pytest.raises(EqEvalsError, match="broken.eval is not a readable Inspect log"):
            await logcheck.read_async(str(bad))

    asyncio.run(both())
