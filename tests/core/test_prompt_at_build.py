"""A declaration's leading prompt_template step is applied when the task is built (issue 14, harness
overhead): the samples' input is the rendered prompt, and the run gives the same messages and scores as the
step run per sample, with one solver span fewer per sample."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import generate

import eq_evals._registry  # noqa: F401
from eq_evals.core.solvers import prerender, prompt_template, render
from eq_evals.engine import register_all
from eq_evals.facet.components import facet_dataset


def test_prerender_keeps_system_messages_and_metadata() -> None:
    [raw] = [s for s in facet_dataset(dimensions=["apparent_emotion"], language="en")][:1]
    (plain,) = prerender([raw], "facet/objective.yaml", template_by="dimension")
    assert plain.input == render("facet/objective.yaml", "apparent_emotion", raw.metadata, raw.input)
    assert plain.metadata == raw.metadata and plain.id == raw.id and raw.input != plain.input
    chat = Sample(
        id="x", input=[ChatMessageSystem(content="be brief"), ChatMessageUser(content=raw.input)], metadata=raw.metadata
    )
    [out] = prerender([chat], "facet/objective.yaml", template_by="dimension")
    assert [m.role for m in out.input] == ["system", "user"] and out.input[1].text == plain.input


def test_built_task_equals_the_step_run_per_sample(tmp_path: Path) -> None:
    declared = register_all()["facet_objective"](language="all")
    raw = facet_dataset(
        dimensions=[
            "apparent_emotion",
            "hidden_emotion",
            "emotion_prediction",
            "social_adequacy",
            "crisis_recognition",
        ],
        language="all",
    )
    ids = [s.id for s in declared.dataset][::25]
    [built] = inspect_eval(
        declared, model="eq_evals/scripted-oracle", sample_id=ids, epochs=1, log_dir=str(tmp_path / "a"), display="none"
    )
    per_sample = Task(
        dataset=raw,
        scorer=declared.scorer,
        metrics=declared.metrics,
        name="per_sample",
        solver=[prompt_template("facet/objective.yaml", template_by="dimension"), generate()],
    )
    [run] = inspect_eval(
        per_sample,
        model="eq_evals/scripted-oracle",
        sample_id=ids,
        epochs=1,
        log_dir=str(tmp_path / "b"),
        display="none",
    )
    assert built.status == run.status == "success"
    assert [s.solver for s in built.plan.steps] == ["generate"]
    by_id = {s.id: s for s in run.samples}
    for s in built.samples:
        other = by_id[s.id]
        assert [m.text for m in s.messages] == [m.text for m in other.messages]
        assert s.input == other.messages[0].text  # the log's input is the exact prompt
        assert s.scores["facet_objective"].value == other.scores["facet_objective"].value
        spans = [e for e in s.events if e.event == "span_begin" and getattr(e, "type", None) == "solver"]
        assert (
            len(spans)
            == 1
            < sum(1 for e in other.events if e.event == "span_begin" and getattr(e, "type", None) == "solver")
        )
    assert built.results.scores[0].metrics["mean"].value == run.results.scores[0].metrics["mean"].value
