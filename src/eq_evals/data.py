"""Dataset adapters: named loaders that task declarations use (``dataset: {adapter: ..., args: ...}``)."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.dataset import Sample

from eq_evals.errors import EqEvalsError
from eq_evals.facet.data import facet_items
from eq_evals.resources import resource


def _data_path(path: str, source: str | None) -> Path:
    """A bundled path under ``datasets/``, or the user's ``source`` file/folder if given."""
    if source:
        user = Path(source).expanduser()
        if not user.exists():
            raise EqEvalsError(f"-T source={source}: no such file or folder")
        return user
    return resource("datasets", path)


def facet_dataset(
    dimensions: list[str],
    path: str = "facet",
    source: str | None = None,
    language: str = "en",
    split: str = "all",
    strip_option_labels: bool = True,
) -> list[Sample]:
    """FACET items of ``dimensions`` from the bundled project-authored set, or from ``source``:
    a JSONL file/folder in the spec §7.1 schema, or the authors' released JSON."""
    return facet_items(_data_path(path, source), dimensions, language, split, strip_option_labels)


def _validate_facet(dimensions: list[str], path: str = "facet", **_: object) -> None:
    if not resource("datasets", path).exists():
        raise ValueError(f"datasets/{path} does not exist")


facet_dataset.validate_declaration = _validate_facet  # type: ignore[attr-defined]
