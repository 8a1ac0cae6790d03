"""Helpers of the issue 19 fault-injection suite ("No silent wrong number anywhere").

Everything goes through the public surfaces where it can: ``inspect eval`` / ``inspect eval-retry`` run as
real processes (``python -m inspect_ai``), ``eq-evals`` through its entry point (``eq_evals.cli.main``), and logs
are read with ``inspect_ai.log``. Only scripted models are used (README, "Models shipped with eq-evals"); faults
are injected with their ``-M delay=``, ``-M fail_every=`` and ``-M fail_while=`` options.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log, write_eval_log

REPO = Path(__file__).resolve().parents[2]
LE_FIXTURES = REPO / "datasets" / "longemotion" / "fixtures"


def env(**extra: str) -> dict[str, str]:
    """The environment of a child process: this interpreter's import path, offline, no overlay unless given."""
    out = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
        HF_HUB_OFFLINE="1",
        INSPECT_LOG_LEVEL="warning",
    )
    out.pop("EQ_EVALS_PATH", None)
    out.update(extra)
    return out


def inspect_cli(*args: str, timeout: float = 240, **extra_env: str) -> subprocess.CompletedProcess:
    """``inspect ARGS`` in a child process (the real CLI, as a user runs it)."""
    return subprocess.run(
        [sys.executable, "-m", "inspect_ai", *args],
        env=env(**extra_env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def logs_in(folder: Path) -> list[Path]:
    return sorted(Path(i.name.removeprefix("file://")) for i in list_eval_logs(str(folder)))


def only_log(folder: Path) -> EvalLog:
    found = logs_in(folder)
    assert len(found) == 1, f"expected one log in {folder}, found {found}"
    return read_eval_log(str(found[0]))


def start_inspect_eval(log_dir: Path, task: str, *args: str, **extra_env: str) -> tuple[subprocess.Popen, Path]:
    """Start ``inspect eval TASK ARGS --log-dir LOG_DIR`` in a child process (several can run side by side)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", "eval", task, *args, "--log-dir", str(log_dir), "--display", "none"],
        env=env(**extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, log_dir


def finish_inspect_eval(started: tuple[subprocess.Popen, Path], timeout: float = 300) -> EvalLog:
    """Wait for a run started by ``start_inspect_eval`` and return the one log it wrote."""
    proc, log_dir = started
    out, err = proc.communicate(timeout=timeout)
    found = logs_in(log_dir) if log_dir.exists() else []
    assert found, f"inspect eval wrote no log (exit {proc.returncode}):\n{out[-2000:]}\n{err[-3000:]}"
    return only_log(log_dir)


def inspect_eval_cli(log_dir: Path, task: str, *args: str, **extra_env: str) -> EvalLog:
    """Run ``inspect eval TASK ARGS --log-dir LOG_DIR`` and return the one log it wrote."""
    return finish_inspect_eval(start_inspect_eval(log_dir, task, *args, **extra_env))


def run_cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """``eq-evals ARGS`` through its entry point; (exit status, stdout, stderr)."""
    from eq_evals.cli import main

    capsys.readouterr()
    try:
        code = main([str(a) for a in args])
    except SystemExit as ex:  # argparse errors
        code = ex.code if isinstance(ex.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


# --- scores ------------------------------------------------------------------------------------------------


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return [value]


def carries_no_number(score: Any) -> bool:
    """An unscored score: ``Score.unscored(...)``, a null value, NaN, or a dict of NaNs only."""
    if score is None or getattr(score, "unscored", False) is True or score.value is None:
        return True
    numbers = _numbers(score.value)
    return bool(numbers) and all(isinstance(v, float) and math.isnan(v) for v in numbers)


def score_text(score: Any) -> str:
    metadata = getattr(score, "metadata", None) or {}
    parts = [
        getattr(score, "reason", None),
        score.answer,
        score.explanation,
        metadata.get("reason"),
        metadata.get("unscored_reason"),
    ]
    return " ".join(str(p) for p in parts if p)


def cut_by_a_limit(log: EvalLog) -> list[EvalSample]:
    """The samples that a time, token or message limit stopped (Inspect records ``sample.limit``)."""
    return [s for s in log.samples or [] if s.limit is not None]


def limit_problems(log: EvalLog, check_reason: bool = True) -> list[str]:
    """Why the samples cut by a limit are not honestly reported (empty when they are).

    Honest: the sample is errored (so ``inspect eval-retry`` runs it again), or every score it has carries no
    number and (``check_reason``) says that a limit cut the sample (names "limit" or the limit's kind)."""
    problems = []
    for s in cut_by_a_limit(log):
        if s.error is not None:
            continue
        for name, score in (s.scores or {}).items():
            if not carries_no_number(score):
                problems.append(
                    f"{s.id} (epoch {s.epoch}, {s.limit.type} limit): {name} scored {score.value!r} "
                    f"({score_text(score)[:120]!r})"
                )
            elif check_reason and not (
                "limit" in score_text(score).lower() or s.limit.type in score_text(score).lower()
            ):
                problems.append(
                    f"{s.id} (epoch {s.epoch}, {s.limit.type} limit): {name} unscored, but the reason "
                    f"does not name the limit: {score_text(score)[:160]!r}"
                )
        if not s.scores:
            problems.append(f"{s.id}: cut by a {s.limit.type} limit, neither errored nor scored")
    return problems


# --- data and logs ------------------------------------------------------------------------------------------


def rewrite_jsonl(path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Path:
    """Rewrite every record of a JSONL file in place."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [change(json.loads(line)) for line in lines]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def overlay(root: Path, relative: str, field: str, mark: str = " (revised)") -> Path:
    """An EQ_EVALS_PATH overlay folder holding a changed copy of the bundled ``datasets/RELATIVE`` (a file or a
    folder of JSONL files): every record's ``field`` gets ``mark`` appended. Returns the overlay root."""
    source = REPO / "datasets" / relative
    target = root / "datasets" / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
        files = [f for f in target.glob("*.jsonl")]
    else:
        shutil.copyfile(source, target)
        files = [target]
    for file in files:
        rewrite_jsonl(file, lambda r: {**r, field: str(r[field]) + mark} if field in r else r)
    return root


def cut(path: Path, out: Path, keep: int, status: str = "cancelled") -> Path:
    """A copy of a log as a run stopped after ``keep`` samples leaves it (the recipe of
    tests/core/test_partial_runs.py)."""
    log = read_eval_log(str(path))
    log.samples = log.samples[:keep]
    log.status = status
    if log.results is not None:
        log.results.completed_samples = keep
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    return out
