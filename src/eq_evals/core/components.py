"""Registers the benchmark-independent parts with the catalogue."""

from eq_evals.components import register
from eq_evals.core import metrics, solvers

register("solver", "prompt_template")(solvers.prompt_template)
register("metric", "mean_of_groups")(metrics.mean_of_groups)
register("metric", "by_group")(metrics.by_group)
