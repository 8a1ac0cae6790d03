"""Registers LongEmotion's parts with the catalogue, and its scripted test modes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.components import register
from eq_evals.core.sources import content_hash, resolve, stamp
from eq_evals.errors import EqEvalsError
from eq_evals.longemotion import data, scripted
from eq_evals.longemotion.prompts import validate_prompts
from eq_evals.longemotion.scorer import (
    longemotion_judge,
    longemotion_judge_means,
    longemotion_label_match,
    longemotion_qa_f1,
)
from eq_evals.longemotion.solvers import (
    longemotion_chunking,
    longemotion_enrichment,
    longemotion_expression_dialogue,
    longemotion_generation,
    longemotion_initial_rank,
    longemotion_reranking,
    longemotion_setup,
)
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
    register_mode(mode, knows=scripted.knows if mode in ("le_oracle", "le_wrong", "le_malformed") else None)(fn)

SUBSETS = {"emobench": "classification_emobench", "finentity": "classification_finentity"}


@register("dataset", "longemotion")
def longemotion_dataset(
    task: str,
    data_dir: str | None = None,
    fixtures: bool = False,
    revision: str = data.HF_REVISION,
    subset: str = "emobench",
    variant: str | None = None,
    stages: str = "4",
    emotions: str | None = None,
    verify_checksums: bool = True,
    skip_invalid: bool = False,
    source: str | None = None,
) -> list[Sample]:
    """Samples of one LongEmotion task from the Hub, ``data_dir`` or the bundled fixtures (docs/longemotion.md, 'Dataset'). ``source``
    is the syntax shared by every benchmark (core/sources.py): a local folder (as ``data_dir``) or a pinned Hub
    copy ``hf://OWNER/NAME@REVISION`` in the Hub layout (as ``revision``, for any repository). Every sample
    records in ``metadata["data_source"]`` where its files came from (Hub revision, md5, whether the md5 was
    verified against the recorded release, ``data.HUB_MD5``), and in ``dataset_version`` the origin, revision and a
    content hash (of the files' md5s) that the log header keeps."""
    repo = data.HF_REPO
    if source:
        if data_dir or revision != data.HF_REVISION:
            raise EqEvalsError("-T source=... replaces -T data_dir / -T revision: give one of them")
        resolved = resolve(source, Path("."))
        if resolved.hub:
            repo, revision = resolved.hub.repo, resolved.hub.revision
        else:
            data_dir = str(resolved.path)
    sources: list[dict[str, Any]] = []

    def where(key: str):  # noqa: ANN202
        info: dict[str, Any] = {}
        path = data.locate(key, data_dir, fixtures, revision, verify_checksums, info, repo, source=source)
        sources.append(info)
        return path

    def tagged(samples: list[Sample]) -> list[Sample]:
        for s in samples:
            s.metadata = {**(s.metadata or {}), "data_source": sources}
        origin = sources[0].get("origin") if sources else None
        kind = {"hub": "hub", "data_dir": "local", "fixtures": "bundled"}.get(str(origin), "local")
        location = (
            repo
            if kind == "hub"
            else str(data_dir or os.environ.get(data.ENV_DATA_DIR, ""))
            if kind == "local"
            else f"datasets/{data.FIXTURES}"
        )
        version = {
            "name": f"longemotion/{task}",
            "origin": kind,
            "location": location,
            "revision": revision if kind == "hub" else None,
            "sha256": content_hash([{"file": i.get("file"), "md5": i.get("md5")} for i in sources]),
            "rows": len(sources),
        }  # the hash is over the files' md5s
        return stamp(samples, version)

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
        return tagged(
            data.expression_samples(where("expression_situations"), where("expression_questionnaires"), emotions)
        )
    raise EqEvalsError(f"unknown LongEmotion task {task!r}")


def _validate(task: str = "", **_: Any) -> None:
    validate_prompts()
    if task and task not in ("classification", "detection", "qa", "conversation", "summary", "expression"):
        raise ValueError(f"unknown LongEmotion task {task!r}")


longemotion_dataset.validate_declaration = _validate  # type: ignore[attr-defined]
