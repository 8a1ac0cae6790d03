"""Helpers of the issue 19 fault-injection suite ("No silent wrong number anywhere").

Everything goes through the public surfaces where it can: ``inspect eval`` / ``inspect eval-retry`` through
Inspect's own CLI command (in this process, ``support.inspect_here``; a run stopped by Ctrl-C is a real process,
``support.interrupt_a_run``), ``eq-evals`` through its entry point (``eq_evals.cli.main``), and logs
are read with ``inspect_ai.log``. Only scripted models are used (README, "Models shipped with eq-evals"); faults
are injected with their ``-M delay=``, ``-M fail_every=`` and ``-M fail_while=`` options.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log
from support import inspect_here

REPO = Path(__file__).resolve().parents[2]
LE_FIXTURES = REPO / "datasets" / "longemotion" / "fixtures"


def inspect_cli(*args: str, **extra_env: str) -> subprocess.CompletedProcess:
    """``inspect ARGS`` through the real CLI (Inspect's click command, in this process: ``support.inspect_here``);
    the output is in both ``stdout`` and ``stderr``."""
    code, output = inspect_here(*args, env={"INSPECT_LOG_LEVEL": "warning", **extra_env})
    return subprocess.CompletedProcess(["inspect", *args], code, output, output)


def logs_in(folder: Path) -> list[Path]:
    return sorted(Path(i.name.removeprefix("file://")) for i in list_eval_logs(str(folder)))


def only_log(folder: Path) -> EvalLog:
    found = logs_in(folder)
    assert len(found) == 1, f"expected one log in {folder}, found {found}"
    return read_eval_log(str(found[0]))


def inspect_eval_cli(log_dir: Path, task: str, *args: str, **extra_env: str) -> EvalLog:
    """Run ``inspect eval TASK ARGS --log-dir LOG_DIR`` and return the one log it wrote."""
    proc = inspect_cli("eval", task, *args, "--log-dir", str(log_dir), "--display", "none", **extra_env)
    found = logs_in(log_dir) if log_dir.exists() else []
    assert found, f"inspect eval wrote no log (exit {proc.returncode}):\n{proc.stdout[-3000:]}"
    return only_log(log_dir)


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
