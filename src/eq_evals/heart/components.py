"""Registers HEART's parts with the catalogue (dataset adapter, solver, scorer, scripted modes)."""

from __future__ import annotations

from inspect_ai.dataset import Sample

from eq_evals.components import register
from eq_evals.heart import prompts
from eq_evals.heart import scripted as _scripted  # noqa: F401  (registers the heart-* / hjudge* modes)
from eq_evals.heart.data import heart_samples
from eq_evals.heart.scorer import heart_pairwise, heart_reply
from eq_evals.heart.strategies import heart_replies, heart_strategy_labels, heart_strategy_usage

register("solver", "heart_reply")(heart_reply)
register("scorer", "heart_pairwise")(heart_pairwise)
register("dataset", "heart_replies")(heart_replies)
register("solver", "heart_strategy_labels")(heart_strategy_labels)
register("scorer", "heart_strategy_usage")(heart_strategy_usage)


@register("dataset", "heart_histories")
def heart_histories(source: str | None = None, language: str = "en", subset: str = "all") -> list[Sample]:
    """HEART histories: the project-authored set (default), a JSONL file of its schema, a folder with the release's
    JSON files, or ``release`` (downloaded at the pinned commits, sha256 checked)."""
    return heart_samples(source, language, subset)


def _validate_solver(prompt_style: str = "release", prompts_file: str = prompts.PROMPTS_FILE) -> None:
    prompts.generation_prompts(prompts_file)


def _validate_scorer(rubric: str = "heart", judge_file: str = prompts.JUDGE_FILE, **_: object) -> None:
    prompts.judge_prompts(judge_file)
    if not str(rubric).startswith("${"):
        prompts.criteria(rubric, judge_file)


heart_reply.validate_declaration = _validate_solver  # type: ignore[attr-defined]
heart_pairwise.validate_declaration = _validate_scorer  # type: ignore[attr-defined]
