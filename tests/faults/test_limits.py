"""Issue 19, finding 1: a sample cut by a sample limit must not be scored as a wrong answer.

Inspect stops a sample at ``--time-limit`` (or ``--token-limit`` / ``--message-limit``), records ``sample.limit`` and
still scores what the sample has. A reply that never came is then read as "no answer found" (FACET objective,
LongEmotion: 0) or as an empty reply that loses every HEART criterion, and the log says complete. Honest: the
sample is errored (so ``inspect eval-retry`` runs it again) or unscored with a reason naming the limit; SAGE
("interrupted") and PACE ("no_reply") already leave it unscored.

One run per benchmark goes through the real ``inspect eval`` CLI (Inspect's click command, in this process) with
``--time-limit 1`` and ``-M delay=2`` on the scripted tested model (its reply comes after the limit). The token and
message limits are exercised on FACET through Inspect's Python API.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from faultkit import LE_FIXTURES, cut_by_a_limit, limit_problems, only_log
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from support import inspect_here

import eq_evals._registry  # noqa: F401

SLOW = ("-M", "delay=2", "--time-limit", "1", "--limit", "2")
RUNS = {
    "facet": ("eq_evals/facet_hidden", "--model", "eq_evals/scripted-oracle", "--epochs", "1"),
    "longemotion": (
        "eq_evals/longemotion_classification",
        "--model",
        "eq_evals/scripted-le_oracle",
        "--epochs",
        "1",
        "-T",
        f"data_dir={LE_FIXTURES}",
    ),
    "heart": (
        "eq_evals/heart",
        "-T",
        "language=en",
        "--model",
        "eq_evals/scripted-heart-warm",
        "--model-role",
        "grader=eq_evals/scripted-hjudge",
    ),
    "sage": (
        "eq_evals/sage",
        "--model",
        "eq_evals/scripted-echo",
        "--model-role",
        "simulated_user=eq_evals/scripted-sage-user",
    ),
    "pace": (
        "eq_evals/pace",
        "--model",
        "eq_evals/scripted-oracle",
        "--model-role",
        "grader=eq_evals/scripted-pace-agent",
    ),
}


@pytest.fixture(scope="module")
def timed_out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """benchmark -> the log of its ``inspect eval ... --time-limit 1`` run, every sample cut by the limit."""
    root = tmp_path_factory.mktemp("time_limit")
    logs = {}
    for name, (task, *args) in RUNS.items():
        code, output = inspect_here("eval", task, *args, *SLOW, "--log-dir", str(root / name), "--display", "none")
        assert (root / name).exists(), f"inspect eval {task} wrote no log (exit {code}):\n{output[-3000:]}"
        logs[name] = only_log(root / name)
    for name, log in logs.items():
        assert len(cut_by_a_limit(log)) == len(log.samples) == 2, f"{name}: the time limit did not cut every sample"
        assert {s.limit.type for s in log.samples} == {"time"}
    return logs


def test_facet_objective_sample_cut_by_time_limit_is_not_scored_wrong(timed_out: dict[str, EvalLog]) -> None:
    assert limit_problems(timed_out["facet"]) == []


@pytest.mark.parametrize("limit", ["message", "token"])
def test_facet_objective_sample_cut_by_token_or_message_limit_is_not_scored_wrong(limit: str, tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        limit=2,
        epochs=1,
        log_dir=str(tmp_path),
        display="none",
        **{f"{limit}_limit": 1},
    )
    assert len(cut_by_a_limit(log)) == 2 and {s.limit.type for s in log.samples} == {limit}
    assert limit_problems(log) == []


def test_longemotion_sample_cut_by_time_limit_is_not_scored_wrong(timed_out: dict[str, EvalLog]) -> None:
    assert limit_problems(timed_out["longemotion"]) == []


def test_heart_sample_cut_by_time_limit_is_not_a_loss(timed_out: dict[str, EvalLog]) -> None:
    assert limit_problems(timed_out["heart"]) == []


def test_sage_dialogue_cut_by_time_limit_is_unscored_interrupted(timed_out: dict[str, EvalLog]) -> None:
    log = timed_out["sage"]
    assert limit_problems(log) == []
    assert {s.scores["sage_scorer"].reason for s in log.samples} == {"interrupted"}


def test_pace_reply_cut_by_time_limit_is_unscored_no_reply(timed_out: dict[str, EvalLog]) -> None:
    log = timed_out["pace"]
    assert limit_problems(log, check_reason=False) == []
    assert {s.scores["pace_board"].reason for s in log.samples} == {"no_reply"}


def test_pace_reply_cut_by_time_limit_names_the_limit(timed_out: dict[str, EvalLog]) -> None:
    assert limit_problems(timed_out["pace"]) == []
