"""Inspect entry point (``[project.entry-points.inspect_ai] eq_evals``): importing this module registers
the eq_evals model providers and one task per declaration under ``tasks/``; the package's Inspect hook (unscored
summary, active judging's stops) joins runs of eq_evals tasks only (``summary_hook.activate``)."""

from eq_evals import (
    providers,  # noqa: F401  (registers the eq_evals/... model providers)
    summary_hook,
)
from eq_evals.engine import register_all

register_all()
if summary_hook.eq_evals_run():  # `inspect eval eq_evals/...`: the package's hook, listed at the start of the run
    summary_hook.activate()
