"""Metrics beyond Inspect's built-ins."""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric


def _mean_of_group_means(scores: list[SampleScore], by: str) -> float:
    groups: dict[str, list[float]] = {}
    for s in scores:
        key = (s.sample_metadata or {}).get(by)
        if key is None:
            raise ValueError(f"sample {s.sample_id} has no metadata field {by!r} to group by")
        groups.setdefault(str(key), []).append(s.score.as_float())
    means = [sum(v) / len(v) for v in groups.values() if v]
    return sum(means) / len(means) if means else math.nan


@metric
def mean_of_groups(by: str, per: str | None = None, name: str = "mean_of_groups") -> Metric:
    """Unweighted mean of per-group means, e.g. FACET's Objective Average: the mean of the five dimension
    accuracies (spec §3.4). With ``per``, one value per value of that field (``objective_average:en``,
    ``objective_average:zh``): the paper never pools languages."""

    def compute(scores: list[SampleScore]) -> float | dict[str, float]:
        if per is None:
            return _mean_of_group_means(scores, by)
        split: dict[str, list[SampleScore]] = {}
        for s in scores:
            split.setdefault(str((s.sample_metadata or {}).get(per)), []).append(s)
        return {f"{name}:{key}": _mean_of_group_means(group, by) for key, group in sorted(split.items())}

    return compute


def no_interval_without_scores(inner: Metric, keys: tuple[str, ...] = ("lower", "upper")) -> Metric:
    """Wrap a spread or interval metric so that with no scored sample it reports NaN (no interval) instead of
    Inspect's 0 / a 0-width interval: unscored samples never reach a metric, so when every sample is unscored
    an interval of width 0 beside a NaN mean would claim a certainty nobody measured (issue 12, item 6)."""

    def compute(scores: list[SampleScore]) -> Any:
        if not scores:
            return math.nan if not keys else {k: math.nan for k in keys}
        return inner(scores)

    return compute

