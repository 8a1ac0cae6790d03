"""Registers the benchmark-independent parts with the catalogue."""

from eq_evals.components import METRICS, register
from eq_evals.core import metrics, solvers

register("solver", "prompt_template")(solvers.prompt_template)
register("metric", "mean_of_groups")(metrics.mean_of_groups)
# Inspect's stderr is 0 when no sample is scored; ours is NaN (no spread without scores; issue 12 item 6).
METRICS["stderr"] = metrics.scored_stderr
