"""HEART smoke run on the embedded SmolLM2-135M (default runtime): the model writes the supporter replies and
judges them against the project-authored references. It is far too small to be a HEART baseline; this proves the
real-model path: cleaned replies, judge calls, and a parsed verdict or an honest `judge_unparseable`."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from support import need_embedded_model

import eq_evals._registry  # noqa: F401

pytestmark = pytest.mark.local_model


def test_heart_smoke_on_the_embedded_model(tmp_path) -> None:
    need_embedded_model()
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/smollm2",
        model_args={"n_threads": 1},
        model_roles={"grader": get_model("eq_evals/smollm2", n_threads=1)},
        task_args={
            "language": "en",
            "subset": "regular",
            "attempts": 1,
            "judge_max_tokens": 160,
            "exclude_same_family": False,
        },
        limit=2,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for sample in log.samples:
        score = sample.scores["heart_pairwise"]
        assert "\n" not in sample.output.completion  # the first line only (§3.2)
        if score.metadata["empty_response"]:
            assert score.value["overall"] == 0.0
            continue
        [replies] = score.metadata["judge_raw"].values()
        assert replies and replies[0].strip(), "the judge produced text"
        if score.reason:
            assert score.reason == "judge_unparseable"
        else:
            assert 0.0 <= score.value["overall"] <= 1.0
