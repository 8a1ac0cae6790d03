"""Generation limits declared by every task (issue 13), the command line winning over them, the answer
block a stop sequence leaves open, and `eq-evals list` wording. (The embedded model's one dedicated thread is
tested in tests/providers/test_local_model_thread.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent

import eq_evals._registry  # noqa: F401
from eq_evals.engine import is_fragment, read_declaration
from eq_evals.facet.answers import extract_answer

REPO = Path(__file__).resolve().parents[2]
TASK_FILES = sorted(p for p in (REPO / "tasks").glob("**/*.yaml") if not is_fragment(p))
FACET_OBJECTIVE = [
    "facet_apparent",
    "facet_hidden",
    "facet_prediction",
    "facet_social",
    "facet_crisis",
    "facet_objective",
]


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_every_task_declares_its_generation_config(path: Path) -> None:
    spec = read_declaration(path)  # with its included fragments (docs/adding-a-task.md)
    assert "config" in spec, f"{path.name} declares no generation config"
    if spec.get("solver"):  # a task whose tested model generates must cap its replies
        assert isinstance(spec["config"].get("max_tokens"), int), f"{path.name}: no max_tokens"


@pytest.mark.parametrize("name", FACET_OBJECTIVE)
def test_facet_objective_tasks_stop_at_the_closing_answer_tag(name: str) -> None:
    spec = read_declaration(REPO / "tasks" / "facet" / f"{name}.yaml")
    assert spec["config"]["stop_seqs"] == ["</answer>"]
    assert spec["config"]["max_tokens"] <= 256


def _model_configs(log) -> list:
    return [e.config for s in log.samples for e in s.events if isinstance(e, ModelEvent)]


def test_yaml_config_reaches_the_model_and_the_command_line_wins(tmp_path) -> None:
    [log] = inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        limit=2,
        epochs=1,
        log_dir=str(tmp_path / "a"),
        display="none",
    )
    assert log.status == "success"
    configs = _model_configs(log)
    assert configs and all(c.max_tokens == 128 and c.stop_seqs == ["</answer>"] for c in configs)
    # --max-tokens / --stop-seqs / --temperature on the command line go through the same eval() arguments
    [log] = inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        limit=2,
        epochs=1,
        max_tokens=7,
        stop_seqs=["END"],
        temperature=0.3,
        log_dir=str(tmp_path / "b"),
        display="none",
    )
    configs = _model_configs(log)
    assert configs and all(c.max_tokens == 7 and c.stop_seqs == ["END"] and c.temperature == 0.3 for c in configs)
    assert log.plan.config.max_tokens == 7


@pytest.mark.parametrize(
    "completion, expected",
    [
        ("<answer>anger</answer>", ("anger", True)),
        ("I think it is <answer>anger", ("anger", True)),  # stopped at </answer>, tag dropped
        ("<answer>fear</answer> no, <answer>anger", ("anger", True)),  # the open block is the last one
        ("<answer>fear</answer> and then <answer>", ("fear", True)),  # an empty open block does not count
        ("<answer>fear</answer> because...", ("fear", True)),
        ("just prose, anger", ("just prose, anger", False)),
    ],
)
def test_an_answer_block_left_open_by_the_stop_sequence_is_read(completion, expected) -> None:
    assert extract_answer(completion) == expected


def _list(env_offline: str | None, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "LONGEMOTION_DATA_DIR")}
    if env_offline is not None:
        env["HF_HUB_OFFLINE"] = env_offline
    env["HF_HOME"] = os.environ.get("TMPDIR", "/tmp") + "/eq-evals-empty-hf-home"  # an empty Hub cache
    result = subprocess.run(
        [sys.executable, "-m", "eq_evals.cli", "list", *args], capture_output=True, text=True, timeout=180, env=env
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_list_does_not_blame_an_offline_setting_the_user_never_made() -> None:
    out = _list(None, "--long", "--benchmark", "longemotion")
    assert "HF_HUB_OFFLINE is set" not in out
    assert "`eq-evals list` only counts data already on this machine (it never downloads)" in out
    out = _list("1", "--long", "--benchmark", "longemotion")
    assert "HF_HUB_OFFLINE is set" in out  # the user did set it: say so


def test_list_shows_the_declared_generation_config() -> None:
    out = _list("1", "facet_hidden")
    hidden = out.split("eq_evals/facet_hidden ")[1].split("eq_evals/")[0]
    assert "generation: max_tokens=128, stop_seqs=['</answer>']" in hidden
