"""Locate the declarative layer: task declarations, prompt templates, rubrics and data.

In a wheel the four folders ship inside the package as ``eq_evals/_declarative/<kind>``; in a source
checkout (editable install, tests) they are the top-level folders of the repository.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

KINDS = ("tasks", "solvers", "scorers", "datasets")


@cache
def declarative_root() -> Path:
    packaged = Path(__file__).parent / "_declarative"
    if (packaged / "tasks").is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "tasks").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    raise FileNotFoundError(
        "eq_evals cannot find its declarative files (tasks/, solvers/, scorers/, datasets/): "
        f"looked in {packaged} and {checkout}. Reinstall the package."
    )


def resource(kind: str, relative: str | Path) -> Path:
    """Path of a declarative file, e.g. resource("datasets", "facet/hidden.jsonl")."""
    if kind not in KINDS:
        raise ValueError(f"unknown resource kind {kind!r}; expected one of {KINDS}")
    return declarative_root() / kind / relative


def display_path(path: Path) -> str:
    """A path relative to the declarative root when possible (for error messages and docs)."""
    try:
        return str(path.relative_to(declarative_root()))
    except ValueError:
        return str(path)
