"""Registers LongEmotion's parts with the catalogue, and its scripted test modes."""

from __future__ import annotations

from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.components import register
from eq_evals.errors import EqEvalsError
from eq_evals.longemotion import data, scripted
from eq_evals.longemotion.prompts import validate_prompts
from eq_evals.longemotion.scorer import longemotion_judge, longemotion_judge_means, longemotion_label_match, longemotion_qa_f1
from eq_evals.longemotion.solvers import (longemotion_chunking, longemotion_enrichment, longemotion_expression_dialogue,
                                          longemotion_generation, longemotion_initial_rank, longemotion_reranking,
                                          longemotion_setup)
from eq_evals.providers.scripted import register_mode

for name, fn in {
    "longemotion_setup": longemotion_setup,
    "longemotion_chunking": longemotion_chunking,
    "longemotion_initial_rank": longemotion_initial_rank,
    "longemotion_enrichment": longemotion_enrichment,
    "longemotion_reranking": longemotion_reranking,
    "longemotion_generation": longemotion_generation,
    "longemotion_expression_dialogue": longemotion_expression_dialogue,
}.items():
    register("solver", name)(fn)
register("scorer", "longemotion_label_match")(longemotion_label_match)
register("scorer", "longemotion_qa_f1")(longemotion_qa_f1)
register("scorer", "longemotion_judge")(longemotion_judge)
register("metric", "longemotion_judge_means")(longemotion_judge_means)

for mode, fn in scripted.MODES.items():
    register_mode(mode)(fn)

SUBSETS = {"emobench": "classification_emobench", "finentity": "classification_finentity"}


@register("dataset", "longemotion")
def longemotion_dataset(task: str, data_dir: str | None = None, fixtures: bool = False,
                        revision: str = data.HF_REVISION, subset: str = "emobench", variant: str | None = None,
                        stages: str = "4", emotions: str | None = None, verify_checksums: bool = True,
                        skip_invalid: bool = False) -> list[Sample]:
    """Samples of one LongEmotion task from the Hub, ``data_dir`` or the bundled fixtures (spec §2). Every
    sample records in ``metadata["data_source"]`` where its files came from (Hub revision, md5, whether the
    md5 was verified against the release the spec describes)."""
    sources: list[dict[str, Any]] = []

    def where(key: str):  # noqa: ANN202
        info: dict[str, Any] = {}
        path = data.locate(key, data_dir, fixtures, revision, verify_checksums, info)
        sources.append(info)
        return path

    def tagged(samples: list[Sample]) -> list[Sample]:
        for s in samples:
            s.metadata = {**(s.metadata or {}), "data_source": sources}
        return samples

    if task == "classification":
        if subset not in SUBSETS:
            raise EqEvalsError(f"-T subset={subset!r}: expected one of {sorted(SUBSETS)}")
        return tagged(data.classification_samples(where(SUBSETS[subset]), subset, skip_invalid))
    if task == "detection":
        variant = variant or "original"
        if variant not in ("original", "cleaned"):
            raise EqEvalsError(f"-T variant={variant!r}: expected original or cleaned")
        return tagged(data.detection_samples(where(f"detection_{variant}"), variant))
    if task == "qa":
        return tagged(data.qa_samples(where("qa")))
    if task == "conversation":
        return tagged(data.conversation_samples(where("conversation"), stages))
    if task == "summary":
        variant = variant or "origin"
        if variant not in ("origin", "processed"):
            raise EqEvalsError(f"-T variant={variant!r}: expected origin or processed")
        return tagged(data.summary_samples(where(f"summary_{variant}"), variant))
    if task == "expression":
        return tagged(data.expression_samples(where("expression_situations"), where("expression_questionnaires"),
                                              emotions))
    raise EqEvalsError(f"unknown LongEmotion task {task!r}")


def _validate(task: str = "", **_: Any) -> None:
    validate_prompts()
    if task and task not in ("classification", "detection", "qa", "conversation", "summary", "expression"):
        raise ValueError(f"unknown LongEmotion task {task!r}")


longemotion_dataset.validate_declaration = _validate  # type: ignore[attr-defined]
