"""Locate the declarative layer: task declarations, prompt templates, rubrics and data.

In a wheel the four folders ship inside the package as ``eq_evals/_declarative/<kind>``; in a source
checkout (editable install, tests) they are the top-level folders of the repository. Folders named in
``EQ_EVALS_PATH`` (os.pathsep-separated) have the same layout and are searched first, so users can add
tasks, templates and data without touching the package.
"""

from __future__ import annotations

import os
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


def roots() -> list[Path]:
    """The user's overlay folders (EQ_EVALS_PATH, in its order), then the bundled declarative root.

    Each overlay folder is resolved (a relative one against the current directory, symbolic links followed), so
    what is found first never depends on how the path was written, and a folder named twice (or the bundled
    root itself) is searched once, in its first place."""
    extra = [Path(p).expanduser().resolve() for p in os.environ.get("EQ_EVALS_PATH", "").split(os.pathsep) if p]
    bundled = declarative_root()
    out: list[Path] = []
    for root in extra + [bundled]:
        if root.resolve() not in {r.resolve() for r in out}:
            out.append(root)
    return out


def resource(kind: str, relative: str | Path) -> Path:
    """Path of a declarative file, e.g. resource("datasets", "facet/hidden.jsonl"): the first root that
    has it, else the bundled location (which then does not exist, for the caller's error message)."""
    if kind not in KINDS:
        raise ValueError(f"unknown resource kind {kind!r}; expected one of {KINDS}")
    for root in roots():
        if (root / kind / relative).exists():
            return root / kind / relative
    return declarative_root() / kind / relative


def display_path(path: Path) -> str:
    """A bundled file relative to the declarative root (for error messages); other paths in full."""
    try:
        return str(path.relative_to(declarative_root()))
    except ValueError:
        return str(path)


def load_yaml(kind: str, relative: str | Path) -> dict:
    """Parse a declarative YAML file (a template, rubric, rule or data file) into a mapping.

    Raises ValueError naming the file: missing, invalid YAML (with its line), or not a mapping. Callers
    cache what they build from it.
    """
    import yaml

    path = resource(kind, relative)
    if not path.is_file():
        raise ValueError(f"{kind}/{relative} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        at = f", line {mark.line + 1}" if mark else ""
        raise ValueError(f"{display_path(path)}{at}: invalid YAML: {getattr(ex, 'problem', ex)}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{display_path(path)}: expected a YAML mapping")
    return data
