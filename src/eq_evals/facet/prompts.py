"""Template variables for the FACET objective prompts (``solvers/facet/objective.yaml``)."""

from __future__ import annotations

from functools import cache

from eq_evals.core.solvers import template_context
from eq_evals.facet.taxonomy import taxonomy


@template_context("facet_taxonomy")
@cache
def facet_taxonomy(language: str) -> dict[str, str]:
    tax = taxonomy()
    sep = ", " if language == "en" else "、"
    groups = tax.groups(language)
    levels = "\n".join(f"{lv[language]}: {lv['definition_' + language]}" for lv in tax.crisis_levels)
    return {
        "labels_negative": sep.join(groups["negative"]),
        "labels_positive": sep.join(groups["positive"]),
        "labels_neutral": sep.join(groups["neutral_complex"]),
        "crisis_levels": levels,
    }
