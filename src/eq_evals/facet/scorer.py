"""Scorers that task declarations can name."""

from __future__ import annotations

from functools import cache
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from eq_evals.facet import answers
from eq_evals.facet.scoring import RULES, rule_r1, rule_r2, rule_r3
from eq_evals.resources import load_yaml

ANSWER_KINDS = {"labels", "option", "level"}


@cache
def load_rules(file: str) -> dict[str, Any]:
    data = load_yaml("scorers", file)
    for dimension, spec in data.get("dimensions", {}).items():
        if spec.get("answer") not in ANSWER_KINDS:
            raise ValueError(f"scorers/{file}: dimensions.{dimension}.answer must be one of {sorted(ANSWER_KINDS)}")
        for fmt, rule in spec.get("rules", {}).items():
            if rule not in RULES:
                raise ValueError(f"scorers/{file}: dimensions.{dimension}.rules.{fmt}: {rule!r} is not one of {sorted(RULES)}")
    if not data or not data.get("dimensions"):
        raise ValueError(f"scorers/{file}: needs a 'dimensions' mapping")
    return data


def facet_score(completion: str, metadata: dict[str, Any], rules_file: str = "facet/objective.yaml",
                normalize: bool = True, cross_language: bool = False) -> Score:
    """Score one FACET objective answer (spec §3.2 rules, §3.3 normalisation)."""
    dimension, fmt, language = metadata["dimension"], metadata["format"], metadata["language"]
    spec = load_rules(rules_file)["dimensions"].get(dimension)
    if spec is None or fmt not in spec["rules"]:
        return Score.unscored(reason="no_rule", explanation=f"no scoring rule for {dimension}/{fmt} in scorers/{rules_file}")
    rule, gold, kind = spec["rules"][fmt], metadata["answer"], spec["answer"]
    info: dict[str, Any] = {"rule": rule, "gold": gold, "normalized": normalize}

    if kind == "labels":
        slots = answers.gold_slots(str(gold), normalize)
        secondary = metadata.get("secondary_answer")
        second_slots = answers.gold_slots(str(secondary), normalize) if secondary else None
        if normalize:
            parsed = answers.parse_labels(completion, language, cross_language)
            parts, info["parse"], info["off_taxonomy"] = parsed.parts, parsed.method, parsed.off_taxonomy
        else:
            cleaned = answers.reference_clean(completion)
            parts = [p.strip() for p in cleaned.split("+")] if cleaned else []
            info["parse"] = "reference"
        result = rule_r1(parts, slots, second_slots) if rule == "R1" else rule_r2(parts, slots)
        answer = "+".join(parts) if parts else "(no label found)"
        info.update(parts=parts, matched_slots=result.matched_slots, used_secondary=result.used_secondary)
    else:
        if not normalize:
            response, target = answers.reference_clean(completion), gold
        elif kind == "option":
            response, target = answers.parse_option(completion, metadata.get("n_options")), int(gold)
        else:
            response, target = answers.parse_level(completion), answers.parse_level(str(gold))
        result = rule_r3(response, target)
        answer = "(no answer found)" if response in (None, "") else str(response)
        info.update(parsed=response)
    return Score(
        value=result.value,
        answer=answer,
        explanation=f"parsed: {answer} | gold: {gold} | {result.detail} -> {result.value:g}",
        metadata=info,
    )


@scorer(metrics=[mean(), stderr()])
def facet_objective(rules: str = "facet/objective.yaml", normalize: bool = True,
                    cross_language: bool = False) -> Scorer:
    """FACET objective scorer: R1/R2/R3 per ``scorers/<rules>`` with optional answer normalisation."""

    async def score(state: TaskState, target: Target) -> Score:
        return facet_score(state.output.completion, state.metadata, rules, normalize, cross_language)

    return score


def _validate_facet_objective(rules: str = "facet/objective.yaml", **_: object) -> None:
    load_rules(rules)


facet_objective.validate_declaration = _validate_facet_objective  # type: ignore[attr-defined]
