"""FACET's Subjective-Objective gap (FACET paper §3, Fig. 3d): z-scores, Delta Z and the three profiles."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["zscores", "GapRow", "delta_z", "profile", "profiles", "PROFILES"]

PROFILES = ("cognitive-dominant", "interactive-dominant", "context-dependent")


def zscores(values: Mapping[str, float]) -> dict[str, float]:
    """(x - mean) / SD across the models, with the population SD (ddof=0)."""
    if len(values) < 3:
        raise ValueError(f"z-scores need a cohort of at least 3 models, got {len(values)}: {sorted(values)}")
    names = sorted(values)
    x = np.array([float(values[m]) for m in names])
    sd = x.std(ddof=0)
    if sd == 0:
        raise ValueError("z-scores are undefined: every model has the same value")
    return {m: float((v - x.mean()) / sd) for m, v in zip(names, x)}


@dataclass(frozen=True)
class GapRow:
    model: str
    z_obj: float
    z_sub: float
    delta_z: float


def delta_z(objective: Mapping[str, float], subjective: Mapping[str, float]) -> dict[str, GapRow]:
    """Delta Z = Z_sub - Z_obj for one language; both inputs must cover the same cohort."""
    if set(objective) != set(subjective):
        raise ValueError(
            "delta_z: objective and subjective scores cover different models "
            f"(objective only: {sorted(set(objective) - set(subjective))}; "
            f"subjective only: {sorted(set(subjective) - set(objective))})"
        )
    zo, zs = zscores(objective), zscores(subjective)
    return {m: GapRow(m, zo[m], zs[m], zs[m] - zo[m]) for m in sorted(objective)}


def profile(deltas: Mapping[str, float] | list[float], epsilon: float = 0.0) -> str:
    """Profile from one model's Delta Z in each language (at least two).

    cognitive-dominant if every Delta Z < -epsilon; interactive-dominant if every one > epsilon;
    otherwise context-dependent (with epsilon > 0 a |Delta Z| <= epsilon value is "balanced" and
    makes the model context-dependent).
    """
    vals = list(deltas.values()) if isinstance(deltas, Mapping) else list(deltas)
    if len(vals) < 2:
        raise ValueError("a profile needs Delta Z in at least two languages")
    if all(v < -epsilon for v in vals):
        return "cognitive-dominant"
    if all(v > epsilon for v in vals):
        return "interactive-dominant"
    return "context-dependent"


def profiles(by_language: Mapping[str, Mapping[str, GapRow | float]], epsilon: float = 0.0) -> dict[str, str]:
    """model -> profile, from {language: {model: GapRow or Delta Z}} over the common models."""
    if len(by_language) < 2:
        raise ValueError("profiles need Delta Z in at least two languages")
    common = set.intersection(*(set(v) for v in by_language.values()))
    out = {}
    for m in sorted(common):
        vals = [
            (row.delta_z if isinstance(row, GapRow) else float(row))
            for row in (by_language[lang][m] for lang in by_language)
        ]
        out[m] = profile(vals, epsilon)
    return out
