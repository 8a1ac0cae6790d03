"""Metric names a user can read (issue 13): per-group metrics named ``mean_en``, ``stderr_lang_en``..., one readable
NaN when nothing is scored, and no anonymous ``grouped`` or ``dimension:`` names in a run's log. (The rest of
issue 13 is tested with its packages: unscored SAGE runs in tests/sage/test_sage_e2e.py, the charts and judge
spans in tests/pairwise/, CLI warnings in tests/cli/test_cli.py, the reference rows in
tests/facet/test_facet_baselines.py.)"""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.scorer import SampleScore, Score

import eq_evals._registry  # noqa: F401
from eq_evals.core.metrics import by_group, metric_key


def sample_score(value: float, **meta: str) -> SampleScore:
    return SampleScore(score=Score(value=value), sample_id=f"s{value}{meta}", sample_metadata=meta)


def test_by_group_names_and_values() -> None:
    scores = [sample_score(1.0, language="en"), sample_score(0.0, language="en"), sample_score(1.0, language="zh")]
    means = by_group("mean", "language")(scores)
    assert means == {"mean_en": 0.5, "mean_zh": 1.0}
    errors = by_group("stderr", "language", label="lang")(scores)
    assert set(errors) == {"stderr_lang_en", "stderr_lang_zh"} and errors["stderr_lang_en"] == pytest.approx(0.5)
    assert metric_key("mean", "en:apparent_emotion") == "mean_en_apparent_emotion"
    # no scored sample: one readable NaN, not Inspect's anonymous 'grouped' row
    empty = by_group("mean", "personality")([])
    assert list(empty) == ["mean_by_personality"] and math.isnan(empty["mean_by_personality"])
    with pytest.raises(ValueError, match="no metadata field 'language'"):
        by_group("mean", "language")([sample_score(1.0)])
    with pytest.raises(ValueError, match="unknown metric"):
        by_group("median_of_nothing", "language")


def test_every_metric_name_is_readable(log_dir: str) -> None:
    [facet] = inspect_eval(
        "eq_evals/facet_objective",
        model="eq_evals/scripted-half",
        task_args={"language": "all"},
        epochs=1,
        limit=12,
        log_dir=log_dir,
        display="none",
    )
    names = {n for s in facet.results.scores for n in s.metrics}
    assert {"mean_en", "stderr_en", "objective_average_en"} <= names
    assert not [n for n in names if "grouped" in n or ":" in n], names
