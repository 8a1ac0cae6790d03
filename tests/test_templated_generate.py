"""The engine runs a prompt_template step followed by generate as one solver step (issue 14, harness
overhead): same prompts, replies and scores as the two steps, one solver span per sample fewer."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.solver import generate

import eq_evals._registry  # noqa: F401
from eq_evals.core.solvers import prompt_template, render
from eq_evals.engine import _fuse_prompt_steps, register_all


def test_only_a_prompt_step_directly_followed_by_generate_is_fused() -> None:
    steps = [("solver[0]", "system_message", {"template": "x"}), ("solver[1]", "prompt_template", {"file": "f"}),
             ("solver[2]", "generate", {"max_tokens": 5}), ("solver[3]", "generate", {})]
    assert _fuse_prompt_steps(steps) == [("system_message", {"template": "x"}),
                                         ("templated_generate", {"file": "f", "generate_args": {"max_tokens": 5}}),
                                         ("generate", {})]
    assert _fuse_prompt_steps([("s", "prompt_template", {"file": "f"})]) == [("prompt_template", {"file": "f"})]


def test_one_step_gives_the_same_prompts_and_scores_as_two(tmp_path: Path) -> None:
    declared = register_all()["facet_objective"](language="all")
    ids = [s.id for s in declared.dataset][::25]
    [fused] = inspect_eval(declared, model="eq_evals/scripted-oracle", sample_id=ids, epochs=1,
                           log_dir=str(tmp_path / "a"), display="none")
    two = Task(dataset=declared.dataset, scorer=declared.scorer, metrics=declared.metrics, name="two_step",
               solver=[prompt_template("facet/objective.yaml", template_by="dimension"), generate()])
    [apart] = inspect_eval(two, model="eq_evals/scripted-oracle", sample_id=ids, epochs=1,
                           log_dir=str(tmp_path / "b"), display="none")
    assert fused.status == apart.status == "success"
    assert [s.solver for s in fused.plan.steps] == ["eq_evals/templated_generate"]
    by_id = {s.id: s for s in apart.samples}
    for s in fused.samples:
        other = by_id[s.id]
        assert [m.text for m in s.messages] == [m.text for m in other.messages]
        assert s.messages[0].text == render("facet/objective.yaml", s.metadata["dimension"], s.metadata, s.input)
        assert s.scores["facet_objective"].value == other.scores["facet_objective"].value
        spans = [e for e in s.events if e.event == "span_begin" and getattr(e, "type", None) == "solver"]
        assert len(spans) == 1 and len(spans) < sum(1 for e in other.events if e.event == "span_begin"
                                                     and getattr(e, "type", None) == "solver")
    assert fused.results.scores[0].metrics["mean"].value == apart.results.scores[0].metrics["mean"].value
