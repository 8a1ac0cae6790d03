"""Metrics beyond Inspect's built-ins."""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, metric


@metric
def mean_of_groups(by: str) -> Metric:
    """Unweighted mean of per-group means (e.g. FACET's Objective Average over dimensions, spec §3.4)."""

    def compute(scores: list[SampleScore]) -> float:
        groups: dict[str, list[float]] = {}
        for s in scores:
            key = (s.sample_metadata or {}).get(by)
            if key is None:
                raise ValueError(f"sample {s.sample_id} has no metadata field {by!r} to group by")
            groups.setdefault(str(key), []).append(s.score.as_float())
        means = [sum(v) / len(v) for v in groups.values() if v]
        return sum(means) / len(means) if means else math.nan

    return compute
