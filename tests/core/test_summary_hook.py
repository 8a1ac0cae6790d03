"""The package's Inspect hook acts only in runs of eq_evals tasks (issue 22): a run of another package's task
neither lists it among Inspect's enabled hooks nor calls it (Inspect's ``Hooks.enabled``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import eq_evals._registry  # noqa: F401
from eq_evals import engine
from eq_evals.summary_hook import EqEvalsHooks, eq_evals_run

SCRIPT = """
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match

[log] = eval(Task(dataset=[Sample(input="hi", target="hi")], scorer=match()), model="mockllm/model",
             display="none", log_dir=sys.argv[1])
from eq_evals.summary_hook import EqEvalsHooks
print("== other task done; eq_evals hook enabled:", EqEvalsHooks().enabled(), flush=True)
[log] = eval("eq_evals/facet_hidden", model="eq_evals/scripted-oracle", limit=1, display="none", log_dir=sys.argv[1])
print("== eq_evals task done; eq_evals hook enabled:", EqEvalsHooks().enabled(), log.status, flush=True)
"""


def test_the_command_line_or_a_built_task_enables_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "BUILT", set())
    assert eq_evals_run(["eval", "eq_evals/facet_hidden", "--model", "openai/gpt-4o"])
    assert eq_evals_run(["eval-set", "eq_evals/sage@latest", "--log-dir", "logs"])
    assert not eq_evals_run(["eval", "my_task.py", "--model", "eq_evals/scripted-oracle"])  # our model, not our task
    assert not eq_evals_run(["eval", "eq_evals/no_such_task"])
    monkeypatch.setattr(engine, "BUILT", {"facet_hidden"})  # e.g. `inspect eval-retry LOG` rebuilt one
    assert eq_evals_run(["eval-retry", "logs/x.eval"])


def test_a_run_of_another_package_task_does_not_announce_or_enable_it(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    other, ours = done.stdout.split("== other task done")
    assert "hooks enabled" not in other and "eq_evals" not in other  # no banner (not even "hooks enabled: 0")
    assert "eq_evals" not in done.stderr
    assert ours.startswith("; eq_evals hook enabled: False\n")
    assert "== eq_evals task done; eq_evals hook enabled: True success" in ours


def test_hook_object_follows_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "BUILT", set())
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "other_task.py"])
    assert EqEvalsHooks().enabled() is False
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "eq_evals/facet_crisis"])
    assert EqEvalsHooks().enabled() is True


def test_inspect_eval_of_an_eq_evals_task_lists_the_hook(tmp_path: Path) -> None:
    inspect = Path(sys.executable).parent / "inspect"
    done = subprocess.run(
        [
            str(inspect),
            "eval",
            "eq_evals/facet_hidden",
            "--model",
            "eq_evals/scripted-oracle",
            "--limit",
            "1",
            "--log-dir",
            str(tmp_path),
            "--display",
            "plain",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "hooks enabled: 1" in done.stdout and "eq_evals: record active judging's stops" in done.stdout
