"""Metrics beyond Inspect's built-ins."""

from __future__ import annotations

import math
import re
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric


def wilson(k: float, n: int, z: float = 1.959963984540054) -> tuple[float | None, float | None, float | None]:
    """(share, low, high): the 95% Wilson score interval of k successes in n (k may be fractional: a mean of
    partial credits times n)."""
    if n <= 0:
        return None, None, None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def group_of(score: SampleScore, by: str) -> str:
    """The group of a sample: the value of the metadata field ``by``, or of several fields joined by ``:`` when
    ``by`` names them with commas (``language,dimension`` -> ``en:apparent_emotion``), so a composite group
    needs no extra field in every sample's metadata (each field costs time in every log write, issue 14)."""
    metadata = score.sample_metadata or {}
    values = []
    for field in by.split(","):
        value = metadata.get(field.strip())
        if value is None:
            raise ValueError(f"sample {score.sample_id} has no metadata field {field.strip()!r} to group by")
        values.append(str(value))
    return ":".join(values)


def _mean_of_group_means(scores: list[SampleScore], by: str) -> float:
    groups: dict[str, list[float]] = {}
    for s in scores:
        groups.setdefault(group_of(s, by), []).append(s.score.as_float())
    means = [sum(v) / len(v) for v in groups.values() if v]
    return sum(means) / len(means) if means else math.nan


def metric_key(*parts: Any) -> str:
    """A metric name a user can read and type: the parts joined by ``_``, each reduced to letters, digits and
    ``_`` (``("mean", "en:apparent_emotion")`` -> ``mean_en_apparent_emotion``). Inspect View and the terminal
    summary show these names as they are (issue 13)."""
    return "_".join(p for p in (re.sub(r"[^0-9A-Za-z]+", "_", str(part)).strip("_") for part in parts) if p)


@metric
def by_group(metric: str = "mean", by: str = "language", label: str = "") -> Metric:
    """``metric`` (a catalogue metric with a single value: mean, stderr, accuracy, ...) per value of the sample
    metadata field ``by`` (or of several, ``by: language,dimension``; see ``group_of``), named
    ``<metric>_<label>_<group>`` (``mean_en``, ``stderr_en``,
    ``mean_single_select``; with ``label: dim``, ``mean_dim_en``). Replaces Inspect's ``grouped``, whose
    results read ``grouped``, ``grouped2``, ... whenever no sample is scored. With no scored sample it reports
    one NaN named ``<metric>_by_<by>`` (the summary's unscored count says why), never an empty row."""
    from eq_evals.components import METRICS  # the catalogue imports this module's package lazily

    if metric not in METRICS:
        raise ValueError(f"by_group: unknown metric {metric!r}; available: {sorted(METRICS)}")
    inner = METRICS[metric]()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:
            return {metric_key(metric, "by", by): math.nan}
        groups: dict[str, list[SampleScore]] = {}
        for s in scores:
            groups.setdefault(group_of(s, by), []).append(s)
        out: dict[str, float] = {}
        for group, members in sorted(groups.items()):
            value = inner(members)
            out[metric_key(metric, label, group)] = float(value)  # type: ignore[arg-type]
        return out

    return compute


@metric
def mean_of_groups(by: str, per: str | None = None, name: str = "mean_of_groups") -> Metric:
    """Unweighted mean of per-group means, e.g. FACET's Objective Average: the mean of the five dimension
    accuracies (FACET paper Fig. 2). With ``per``, one value per value of that field (``objective_average_en``,
    ``objective_average_zh``): the paper never pools languages."""

    def compute(scores: list[SampleScore]) -> float | dict[str, float]:
        if per is None:
            return _mean_of_group_means(scores, by)
        split: dict[str, list[SampleScore]] = {}
        for s in scores:
            split.setdefault(str((s.sample_metadata or {}).get(per)), []).append(s)
        return {metric_key(name, key): _mean_of_group_means(group, by) for key, group in sorted(split.items())}

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
