"""Scorers that task declarations can name."""

from __future__ import annotations

from functools import cache
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from eq_evals.components import register
from eq_evals.core.limits import unscored_if_cut
from eq_evals.core.metrics import metric_key
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
                raise ValueError(
                    f"scorers/{file}: dimensions.{dimension}.rules.{fmt}: {rule!r} is not one of {sorted(RULES)}"
                )
    if not data or not data.get("dimensions"):
        raise ValueError(f"scorers/{file}: needs a 'dimensions' mapping")
    return data


def facet_score(
    completion: str,
    metadata: dict[str, Any],
    rules_file: str = "facet/objective.yaml",
    normalize: bool = True,
    cross_language: bool = False,
) -> Score:
    """Score one FACET objective answer (rules: docs/facet.md, 'Scoring'; normalisation: its
    'Parameters', normalize_labels)."""
    dimension, fmt, language = metadata["dimension"], metadata["format"], metadata["language"]
    spec = load_rules(rules_file)["dimensions"].get(dimension)
    if spec is None or fmt not in spec["rules"]:
        return Score.unscored(
            reason="no_rule", explanation=f"no scoring rule for {dimension}/{fmt} in scorers/{rules_file}"
        )
    rule, gold, kind = spec["rules"][fmt], metadata["answer"], spec["answer"]
    # the rule applied is in the explanation ("... | R2: ..."); metadata keeps what the crisis metrics read
    info: dict[str, Any] = {"gold": gold, "normalized": normalize}

    if kind == "labels":
        slots = answers.gold_slots(str(gold), normalize)
        secondary = metadata.get("secondary_answer")
        second_slots = answers.gold_slots(str(secondary), normalize) if secondary else None
        if normalize:
            parsed = answers.parse_labels(
                completion, language, cross_language, max_labels=2 if fmt == "multi_select" else 1
            )
            parts, info["parse"] = parsed.parts, parsed.method
            if parsed.off_taxonomy:  # labels outside the taxonomy, when there are any
                info["off_taxonomy"] = parsed.off_taxonomy
        else:
            cleaned = answers.reference_clean(completion)
            parts = [p.strip() for p in cleaned.split("+")] if cleaned else []
            info["parse"] = "reference"
        result = rule_r1(parts, slots, second_slots) if rule == "R1" else rule_r2(parts, slots)
        # the parts are the answer ("+"-joined) and the rule's detail in the explanation says which slots matched
        # and whether the secondary answer was used: the score metadata keeps only scalars besides (issue 14:
        # every list in a score's metadata is serialised again for each sample summary Inspect writes)
        answer = "+".join(parts) if parts else "(no label found)"
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
def facet_objective(
    rules: str = "facet/objective.yaml", normalize: bool = True, cross_language: bool = False
) -> Scorer:
    """FACET objective scorer: R1/R2/R3 per ``scorers/<rules>`` with optional answer normalisation. A sample cut
    by a limit is unscored (reason ``limit``), never a wrong answer (eq_evals.core.limits)."""

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="an answer"):
            return cut
        return facet_score(state.output.completion, state.metadata, rules, normalize, cross_language)

    return score


def _validate_facet_objective(rules: str = "facet/objective.yaml", **_: object) -> None:
    load_rules(rules)


facet_objective.validate_declaration = _validate_facet_objective  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------------------
# Crisis Recognition extras (docs/pairwise.md, '3. eq-evals ratings'; FACET paper §2.2 reports the confusion
# between levels): mean signed error and a 5x5 confusion matrix.
#
# The signed error is a task metric declared with ``@metric(scores="unreduced")`` (inspect_ai >= 0.3.2xx):
# Inspect hands it one score per sample *per epoch*, so every epoch's answer counts, not only the metadata
# the epoch reducer keeps (the mean reducer keeps the first epoch's). The confusion matrix (gold level x
# predicted level, plus an "unparsed" column) would be 30 metric values, which does not read well in Inspect's
# metric row; ``eq-evals ratings`` reports it from the logs' per-epoch samples instead (``crisis_confusion``).

CRISIS_LEVELS = (1, 2, 3, 4, 5)


def crisis_levels(metadata: dict[str, Any] | None) -> tuple[int | None, int | None]:
    """(gold level, predicted level or None when the answer was not parsed) from a facet_objective score's
    metadata (``gold`` is the item's answer string, ``parsed`` the parsed level; with normalize=false it is the
    cleaned reply, which counts as a level only when it is exactly that level's gold string)."""
    md = metadata or {}
    gold = answers.parse_level(str(md.get("gold", "")))
    parsed = md.get("parsed")
    if isinstance(parsed, bool) or parsed in (None, ""):
        predicted = None
    elif isinstance(parsed, int):
        predicted = parsed if parsed in CRISIS_LEVELS else None
    elif md.get("normalized", True):
        predicted = answers.parse_level(str(parsed))
    else:  # byte-exact scoring (normalize=false): a level only when the reply is exactly a level's gold string
        from eq_evals.facet.taxonomy import taxonomy

        exact = {str(lv[k]).strip(): int(lv["level"]) for lv in taxonomy().crisis_levels for k in ("en", "zh")}
        predicted = exact.get(str(parsed).strip())
    return gold, predicted


def crisis_confusion(metadatas: list[dict[str, Any] | None]) -> dict[str, Any]:
    """Confusion matrix over crisis answers: rows gold 1..5, columns predicted 1..5 and "unparsed".

    Returns {"matrix": {"g1": {"p1": n, ..., "p5": n, "unparsed": n}, ...}, "n": answers counted,
    "parsed": n, "mean_signed_error": mean(predicted - gold) over parsed answers or None,
    "skipped": scores whose gold is not a level 1-5}."""
    matrix = {f"g{g}": {**{f"p{p}": 0 for p in CRISIS_LEVELS}, "unparsed": 0} for g in CRISIS_LEVELS}
    errors: list[int] = []
    skipped = 0
    for md in metadatas:
        gold, predicted = crisis_levels(md)
        if gold is None:
            skipped += 1
            continue
        if predicted is None:
            matrix[f"g{gold}"]["unparsed"] += 1
        else:
            matrix[f"g{gold}"][f"p{predicted}"] += 1
            errors.append(predicted - gold)
    n = sum(sum(row.values()) for row in matrix.values())
    return {
        "matrix": matrix,
        "n": n,
        "parsed": len(errors),
        "mean_signed_error": sum(errors) / len(errors) if errors else None,
        "skipped": skipped,
    }


@metric(name="crisis_signed_error", scores="unreduced")
def crisis_signed_error(by: str | None = "language") -> Metric:
    """Mean signed error (predicted - gold level) over the parsed crisis answers of every epoch (a project
    metric; FACET paper §2.2 reports the confusion between levels); > 0 means over-estimating risk (the conservative
    bias the paper reports). With ``by`` (default
    ``language``) also one value per group, named ``signed_error_<group>``; groups with no parsed
    answer are left out. nan when no answer was parsed at all."""

    def compute(scores: list[SampleScore]) -> Value:
        groups: dict[str, list[dict[str, Any] | None]] = {}
        everything: list[dict[str, Any] | None] = []
        for s in scores:
            md = s.score.metadata
            everything.append(md)
            if by:
                group = (s.sample_metadata or {}).get(by)
                if group is not None:
                    groups.setdefault(str(group), []).append(md)
        overall = crisis_confusion(everything)["mean_signed_error"]
        out: dict[str, float] = {"signed_error": float("nan") if overall is None else overall}
        for group, mds in sorted(groups.items()):
            value = crisis_confusion(mds)["mean_signed_error"]
            if value is not None:
                out[metric_key("signed_error", group)] = value
        return out

    return compute


register("metric", "crisis_signed_error")(crisis_signed_error)
