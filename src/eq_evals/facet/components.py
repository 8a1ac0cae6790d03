"""Registers FACET's parts with the catalogue."""

from __future__ import annotations

from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.components import register
from eq_evals.core.sources import Resolved, dataset_version, load_hub_rows, resolve, stamp
from eq_evals.facet import prompts as _prompts  # noqa: F401  (registers the facet_taxonomy template context)
from eq_evals.facet import scripted as _scripted  # noqa: F401  (registers FACET's scripted modes)
from eq_evals.facet.data import CONFIGS, facet_items, read_rows
from eq_evals.facet.scorer import facet_objective
from eq_evals.facet.style import facet_style
from eq_evals.resources import resource

register("scorer", "facet_objective")(facet_objective)
register("scorer", "facet_style")(facet_style)


def facet_rows(path: str, source: str | None) -> tuple[Resolved, list[tuple[str, Any, dict]]]:
    """The FACET records of the bundled folder, a local file/folder, or every config of a pinned Hub dataset
    (``hf://OWNER/NAME@REVISION``, datasets/facet/README.md, 'Schema' layout: one config per file, split ``test``)."""
    resolved = resolve(source, resource("datasets", path))
    if resolved.hub:
        rows = [
            (f"{resolved.hub} config {config}", f"row {i + 1}", record)
            for config in CONFIGS
            for i, record in enumerate(load_hub_rows(resolved.hub, config, "test"))
        ]
        return resolved, rows
    return resolved, read_rows(resolved.path)  # type: ignore[arg-type]


@register("dataset", "facet_items")
def facet_dataset(
    dimensions: list[str] | None = None,
    path: str = "facet",
    source: str | None = None,
    language: str = "en",
    split: str = "all",
    strip_option_labels: bool = True,
    pools: list[str] | None = None,
    judge: list[str] | None = None,
) -> list[Sample]:
    """FACET items of ``dimensions`` (or of the interaction prompt ``pools``) from the bundled
    project-authored set, or from ``source``: a JSONL file/folder in the datasets/facet/README.md, 'Schema' schema, the
    authors' released JSON, or a pinned Hub dataset ``hf://OWNER/NAME@REVISION`` (see core/sources.py).
    ``judge`` narrows each interaction item's ``judge_dimensions``. Each sample records the dataset's
    origin, revision and content hash (``dataset_version``)."""
    resolved, rows = facet_rows(path, source)
    where = resolved.location if resolved.hub else resolved.path
    samples = facet_items(where, dimensions, language, split, strip_option_labels, pools, judge, rows=rows)
    return stamp(samples, dataset_version(resolved, [r for _, _, r in rows], name="facet"))


def _validate(dimensions: list[str] | None = None, path: str = "facet", **_: object) -> None:
    if not resource("datasets", path).exists():
        raise ValueError(f"datasets/{path} does not exist")


facet_dataset.validate_declaration = _validate  # type: ignore[attr-defined]
