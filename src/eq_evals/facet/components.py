"""Registers FACET's parts with the catalogue."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.dataset import Sample

from eq_evals.components import register
from eq_evals.errors import EqEvalsError
from eq_evals.facet import prompts as _prompts  # noqa: F401  (registers the facet_taxonomy template context)
from eq_evals.facet.data import facet_items
from eq_evals.facet.scorer import facet_objective
from eq_evals.facet.style import facet_style
from eq_evals.resources import resource

register("scorer", "facet_objective")(facet_objective)
register("scorer", "facet_style")(facet_style)


def data_path(path: str, source: str | None) -> Path:
    """A bundled path under ``datasets/``, or the user's ``source`` file/folder if given."""
    if source:
        user = Path(source).expanduser()
        if not user.exists():
            raise EqEvalsError(f"-T source={source}: no such file or folder")
        return user
    return resource("datasets", path)


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
    project-authored set, or from ``source``: a JSONL file/folder in the spec §7.1 schema, or the
    authors' released JSON. ``judge`` narrows each interaction item's ``judge_dimensions``."""
    return facet_items(data_path(path, source), dimensions, language, split, strip_option_labels, pools, judge)


def _validate(dimensions: list[str] | None = None, path: str = "facet", **_: object) -> None:
    if not resource("datasets", path).exists():
        raise ValueError(f"datasets/{path} does not exist")


facet_dataset.validate_declaration = _validate  # type: ignore[attr-defined]
