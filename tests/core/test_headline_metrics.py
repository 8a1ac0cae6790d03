"""Each task's first metric is its headline: Inspect View lists a run by the first metric of its first score
(``inspect_ai.log.headline_metric``). PACE by EQ, HEART by the win rate against the reference, a judging run by a
statistic of the judge (never model_a's mean outcome), a FACET generation run by nothing (it has no score of its
own); LongEmotion's long criterion names are no header metrics. Read from the session's logs of every benchmark
(tests/benchmark_logs.py); tests/core/test_inspect_view_browser.py looks at the log list itself."""

from __future__ import annotations

import math

from inspect_ai.log import headline_metric, read_eval_log
from inspect_ai.scorer import SampleScore, Score

from eq_evals.longemotion.scorer import longemotion_judge_means


def _headline(path) -> tuple[str, str] | None:
    resolved = headline_metric(read_eval_log(str(path), header_only=True))
    return None if resolved is None else (resolved.score.name, resolved.name)


def test_headlines(benchmark_logs) -> None:
    heads = {e.label: _headline(e.path) for e in benchmark_logs.entries}
    for label, head in heads.items():
        task = label.split("/")[0]
        expected = {
            "pace": ("pace_board", "eq"),
            "heart": ("vs_reference", "mean"),
            "facet_pairwise": ("conflicted", "mean"),
            "pace_pairwise": ("outcome", "eq_evals/ties"),
            "facet_naturalness": None,  # a generation run: no score of its own
            "facet_objective": ("facet_objective", "mean"),
            "sage": ("sage_scorer", "mean"),
        }[task]
        assert head == expected, (label, head)


def test_heart_win_rate_against_the_reference_and_rounded_values(benchmark_logs) -> None:
    for path in benchmark_logs.paths("heart"):
        log = read_eval_log(str(path))
        for sample in log.samples:
            score = sample.scores["heart_pairwise"]
            if not isinstance(score.value, dict):
                continue  # unscored (no opponent)
            verdicts = score.metadata["verdicts"]
            against_ref = [v for v in verdicts if v["model_b"] == "reference"]
            if not against_ref:
                assert math.isnan(score.value["vs_reference"])
                continue
            overall = [j for j in against_ref[0]["judgments"] if j["criterion"] == "overall"]
            calls = [c for c in against_ref[0]["calls"] if c["criterion"] == "overall" and c["winner"]]
            wins = sum(c["winner"] == against_ref[0]["model_a"] for c in calls) / len(calls)
            assert overall and score.value["vs_reference"] == round(wins, 4)
            for value in score.value.values():
                assert math.isnan(value) or value == round(value, 4), value  # not 0.6666666666666666
        head = log.results.scores[0]
        assert head.name == "vs_reference" and 0 <= head.metrics["mean"].value <= 1


def test_long_criterion_names_are_no_header_metrics() -> None:
    long = "Consolidating Change Outcomes and Growth Narrative"
    scores = [
        SampleScore(score=Score(value={"score": 3.0, long: 3.0}), sample_metadata={"checkpoint": "4-1"}),
        SampleScore(score=Score(value={"score": 4.0, long: 4.0}), sample_metadata={"checkpoint": "4-2"}),
    ]
    short = longemotion_judge_means(group_by="checkpoint", criteria=False)(scores)
    assert set(short) == {"score", "stderr", "checkpoint:4-1", "checkpoint:4-2"}
    assert long in longemotion_judge_means()(scores)  # summary's short criterion names stay metrics
