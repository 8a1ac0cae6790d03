"""Loading and rendering LongEmotion's prompt and rubric YAML files (solvers/longemotion, scorers/longemotion)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from eq_evals import resources

SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
PROMPTS = "longemotion/prompts.yaml"
TASKS = ("classification", "detection", "qa", "conversation", "summary", "expression")


def render(template: str, **values: Any) -> str:
    """Fill ``{name}`` slots that ``values`` provides; every other brace (JSON examples) stays as written."""
    return SLOT.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


@cache
def load_yaml(kind: str, file: str) -> dict[str, Any]:
    return resources.load_yaml(kind, file)


def prompts(task: str) -> dict[str, Any]:
    data = load_yaml("solvers", PROMPTS)
    if task not in data:
        raise ValueError(f"solvers/{PROMPTS} has no section {task!r}")
    return data[task]


def validate_prompts() -> None:
    data = load_yaml("solvers", PROMPTS)
    need = {
        "classification": ["system", "base", "augmented", "helper"],
        "detection": ["system", "base", "augmented", "helper"],
        "qa": ["system", "base", "augmented", "helper"],
        "conversation": ["system", "base", "augmented", "helper"],
        "summary": ["base", "queries", "helper"],
        "expression": ["panas", "stage", "stages", "helper"],
    }
    for task, keys in need.items():
        missing = [k for k in keys if k not in data.get(task, {})]
        if missing:
            raise ValueError(f"solvers/{PROMPTS}: section {task!r} lacks {missing}")
