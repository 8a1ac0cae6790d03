"""Inspect entry point (``[project.entry-points.inspect_ai] eq_evals``): importing this module registers
the eq_evals model providers and one task per declaration under ``tasks/``."""

from eq_evals import providers  # noqa: F401  (registers the eq_evals/... model providers)
from eq_evals import summary_hook  # noqa: F401  (registers the package's Inspect hook: unscored summary, active judging's stops)
from eq_evals.engine import register_all

register_all()
