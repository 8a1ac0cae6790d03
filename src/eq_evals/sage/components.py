"""Registers SAGE's parts with the catalogue (dataset adapter, solver, scorer, metrics, scripted modes)."""

from __future__ import annotations

from inspect_ai.scorer import ci

from eq_evals.components import register
from eq_evals.resources import resource
from eq_evals.sage import prompts
from eq_evals.sage import scripted as _scripted  # noqa: F401  (registers the sage-user / sage-writer modes)
from eq_evals.sage.data import BUNDLED, sage_samples
from eq_evals.sage.rules import load_rules
from eq_evals.sage.scorer import failure_count, mean_npc_tokens, mean_npc_turns, sage_ci, sage_scorer, success_count
from eq_evals.sage.solver import sentient_dialogue

register("dataset", "sage_scenarios")(sage_samples)
register("solver", "sentient_dialogue")(sentient_dialogue)
register("scorer", "sage_scorer")(sage_scorer)
register("metric", "success_count")(success_count)
register("metric", "failure_count")(failure_count)
register("metric", "mean_npc_turns")(mean_npc_turns)
register("metric", "mean_npc_tokens")(mean_npc_tokens)
register("metric", "ci")(ci)
register("metric", "sage_ci")(sage_ci)


def _validate_dataset(**_: object) -> None:
    for rel in BUNDLED:
        if not resource("datasets", rel).is_file():
            raise ValueError(f"datasets/{rel} does not exist")


def _validate_solver(
    prompts_file: str = prompts.PROMPTS_FILE, rules_file: str = "sage/rules.yaml", **_: object
) -> None:
    prompts.load_prompts(prompts_file)
    load_rules(rules_file)


def _validate_scorer(rules: str = "sage/rules.yaml") -> None:
    load_rules(rules)


sage_samples.validate_declaration = _validate_dataset  # type: ignore[attr-defined]
sentient_dialogue.validate_declaration = _validate_solver  # type: ignore[attr-defined]
sage_scorer.validate_declaration = _validate_scorer  # type: ignore[attr-defined]
