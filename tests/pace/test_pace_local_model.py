"""PACE on the embedded SmolLM2-135M model (in-process, on the default runtime): the tested model and every board
agent. SmolLM2 rarely writes valid JSON; that must end as missing dimensions with reasons, never a crash."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from support import need_embedded_model

import eq_evals._registry  # noqa: F401

pytestmark = pytest.mark.local_model

AGENTS = ("Perceptive Analyst (P)", "Attunement Auditor (A)", "Conviction Guardian (C)", "Guidance Strategist (E)")


def test_pace_runs_offline_on_the_embedded_model(tmp_path) -> None:
    need_embedded_model()
    # = inspect eval eq_evals/pace --model eq_evals/smollm2 --model-role grader=eq_evals/smollm2 --limit 3
    # with one attempt per agent and short replies, so the suite stays fast on 2 cores (retries are tested with
    # the scripted agents), and one thread (-M n_threads=1) for the model and the board: one cached model, which
    # keeps its speed when another job holds the other core
    [log] = inspect_eval(
        "eq_evals/pace",
        model="eq_evals/smollm2",
        model_args={"n_threads": 1},
        model_roles={"grader": get_model("eq_evals/smollm2", n_threads=1)},
        task_args={"attempts": 1, "judge_max_tokens": 128},
        max_tokens=96,
        temperature=0.0,
        limit=3,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 3
    for s in log.samples:
        spans = [e.name for e in s.events if e.event == "span_begin"]
        assert all(a in spans for a in AGENTS) and "Chief Arbitrator" in spans, spans
        assert len([e for e in s.events if e.event == "model" and e.role == "grader"]) >= 4
        score = s.scores["pace_board"]
        reports = score.metadata["reports"]
        assert set(reports) == set("PACE")
        for d, r in reports.items():
            assert (r["result"] is None) == bool(r["problem"]), "a missing dimension always has its reason"
            if r["result"] is None:
                assert f"({d}): missing: " in score.explanation
        if isinstance(score.value, dict):  # at least one agent answered
            assert 0 <= score.value["eq"] <= 10 and not math.isnan(score.value["eq"])
        else:
            assert score.metadata.get("missing") == list("PACE")
