"""The catalogue of building blocks a task declaration can name.

Declarations refer to these by name; the engine checks names and arguments at load time. Adding a
benchmark with a new data format or a new scoring rule adds one function here; adding a task that
reuses them is YAML only.
"""

from __future__ import annotations

from typing import Any, Callable

from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, accuracy, grouped, mean, stderr
from inspect_ai.solver import generate, system_message

from eq_evals import data, metrics, scorers, solvers
from eq_evals.facet import prompts as _facet_prompts  # noqa: F401  (registers the facet_taxonomy template context)

DATASETS: dict[str, Callable[..., list]] = {
    "facet_items": data.facet_dataset,
}

SOLVERS: dict[str, Callable[..., Any]] = {
    "generate": generate,
    "system_message": system_message,
    "prompt_template": solvers.prompt_template,
}

SCORERS: dict[str, Callable[..., Any]] = {
    "facet_objective": scorers.facet_objective,
}

METRICS: dict[str, Callable[[], Metric]] = {
    "mean": mean,
    "stderr": stderr,
    "accuracy": accuracy,
    "mean_of_groups": metrics.mean_of_groups,
}

REDUCERS = {"mean", "median", "mode", "max", "majority"}


def build_metric(entry: Any) -> Metric:
    """``mean`` | ``{grouped: {metric: mean, by: language}}`` | ``{mean_of_groups: {by: dimension}}``."""
    if isinstance(entry, str):
        if entry not in METRICS or entry == "mean_of_groups":
            raise ValueError(f"unknown metric {entry!r}; available: {sorted(METRICS)} or grouped")
        return METRICS[entry]()
    if isinstance(entry, dict) and len(entry) == 1:
        [(name, args)] = entry.items()
        args = dict(args or {})
        if name == "grouped":
            inner, by = args.pop("metric", "mean"), args.pop("by", None)
            if inner not in METRICS or not by or args:
                raise ValueError("grouped takes {metric: <name>, by: <metadata field>}")
            return grouped(METRICS[inner](), by, all=False, name_template=f"{by}:{{group_name}}")
        if name in METRICS:
            return METRICS[name](**args)
    raise ValueError(f"cannot read metric entry {entry!r}")


def generate_config(config: dict[str, Any]) -> GenerateConfig:
    try:
        return GenerateConfig(**config)
    except Exception as ex:  # pydantic validation error
        raise ValueError(f"invalid generate config {config}: {ex}") from None
