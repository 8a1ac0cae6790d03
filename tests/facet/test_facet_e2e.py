"""Every FACET objective task end to end through Inspect with the scripted model, reading the log.

Each task runs on every bundled item with the oracle. The other scripted answers (wrong, malformed, prose, half)
run on a subset that has every case the scorer tells apart (each dimension, language, answer format and
secondary-answer kind); their runs on all 600 items are marked ``slow`` (CI runs them: ``bash scripts/test.sh -m
slow``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

import eq_evals._registry  # noqa: F401  (registers the tasks, as the entry point does)
from eq_evals.engine import register_all

OBJECTIVE_TASKS = ["facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis"]
DIMENSIONS = ["apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy", "crisis_recognition"]


def item_subset(per_case: int = 2) -> list[str]:
    """The first ``per_case`` bundled objective items of each (dimension, language, answer format, has a secondary
    answer) case: 32 of the 600 items."""
    from eq_evals.facet.data import facet_items
    from eq_evals.resources import resource

    seen: dict[tuple, int] = {}
    ids = []
    for dimension in DIMENSIONS:
        for language in ("en", "zh"):
            for s in facet_items(resource("datasets", "facet"), [dimension], language):
                case = (dimension, language, s.metadata["format"], bool(s.metadata.get("secondary_answer")))
                if seen.get(case, 0) < per_case:
                    seen[case] = seen.get(case, 0) + 1
                    ids.append(str(s.id))
    return ids


# the subset by default, every item in the slow run
ITEMS = [pytest.param("subset"), pytest.param("all", marks=pytest.mark.slow)]


def run(task: str, model: str, log_dir: str, items: str = "all", **task_args):
    [log] = inspect_eval(
        f"eq_evals/{task}",
        model=model,
        task_args=task_args,
        log_dir=log_dir,
        display="none",
        epochs=1,
        sample_id=item_subset() if items == "subset" else None,
    )
    return log


def metric(log, name: str) -> float:
    """A metric of the facet_objective scorer (an unreduced metric such as the crisis signed error sits
    in a second score row with reducer None)."""
    rows = [s for s in log.results.scores if s.name == "facet_objective" and name in s.metrics]
    assert len(rows) == 1, [s.metrics.keys() for s in log.results.scores]
    return rows[0].metrics[name].value


def expected_half_credit(task: str) -> float:
    """What the scripted 'half' model must score, worked out from the items themselves."""
    samples = register_all()[task](language="all").dataset
    values = [
        0.5 if s.metadata["format"] == "multi_select" or s.metadata.get("secondary_answer") else 0.0 for s in samples
    ]
    return sum(values) / len(values)


@pytest.mark.parametrize("task", OBJECTIVE_TASKS)
def test_correct_answers_score_one_in_both_languages(task: str, log_dir: str) -> None:
    log = run(task, "eq_evals/scripted-oracle", log_dir, language="all")
    assert log.status == "success"
    assert metric(log, "mean") == 1.0
    assert metric(log, "mean_en") == 1.0 and metric(log, "mean_zh") == 1.0
    assert metric(log, "stderr_en") == 0.0 and metric(log, "stderr") == 0.0
    assert len(log.samples) == len(register_all()[task](language="all").dataset) >= 60
    sample = log.samples[0]
    score = sample.scores["facet_objective"]
    assert score.explanation.startswith("parsed: ") and f"gold: {sample.target}" in score.explanation


@pytest.mark.parametrize("items", ITEMS)
@pytest.mark.parametrize("mode, expected", [("wrong", 0.0), ("malformed", 0.0), ("prose", 1.0)])
def test_objective_battery_wrong_malformed_and_prose_answers(
    mode: str, expected: float, items: str, log_dir: str
) -> None:
    log = run("facet_objective", f"eq_evals/scripted-{mode}", log_dir, items, language="all")
    assert log.status == "success"
    assert metric(log, "mean") == expected
    for dimension in (
        "apparent_emotion",
        "hidden_emotion",
        "emotion_prediction",
        "social_adequacy",
        "crisis_recognition",
    ):
        assert metric(log, f"mean_en_{dimension}") == expected and metric(log, f"mean_zh_{dimension}") == expected
    if mode == "malformed":
        assert all(s.scores["facet_objective"].answer.startswith("(no ") for s in log.samples)


@pytest.mark.parametrize("task", ["facet_apparent", "facet_hidden", "facet_prediction"])
def test_half_right_answers_get_the_authors_half_credit(task: str, log_dir: str) -> None:
    log = run(task, "eq_evals/scripted-half", log_dir, language="all")
    expected = expected_half_credit(task)
    assert 0.0 < expected < 1.0
    assert metric(log, "mean") == pytest.approx(expected)
    assert metric(log, "mean_multi_select") == 0.5


@pytest.mark.parametrize("items", ITEMS)
def test_objective_average_is_the_mean_of_dimension_accuracies_per_language(items: str, log_dir: str) -> None:
    log = run("facet_objective", "eq_evals/scripted-half", log_dir, items, language="all")
    for language in ("en", "zh"):
        dims = [
            metric(log, f"mean_{language}_{d}")
            for d in (
                "apparent_emotion",
                "hidden_emotion",
                "emotion_prediction",
                "social_adequacy",
                "crisis_recognition",
            )
        ]
        assert metric(log, f"objective_average_{language}") == pytest.approx(sum(dims) / 5)
    assert metric(log, "stderr_en_apparent_emotion") > 0  # half credit on some items only
    assert not any(name.startswith("dimension:") for name in [s for sc in log.results.scores for s in sc.metrics]), (
        "languages are never pooled per dimension"
    )


def test_reference_mode_is_stricter_than_normalised(log_dir: str) -> None:
    normalised = run("facet_hidden", "eq_evals/scripted-prose", log_dir)
    reference = run("facet_hidden", "eq_evals/scripted-prose", log_dir, normalize_labels=False)
    assert metric(normalised, "mean") == 1.0 and metric(reference, "mean") == 0.0


def test_model_failure_is_an_error_not_a_zero(log_dir: str) -> None:
    [log] = inspect_eval(
        "eq_evals/facet_crisis",
        model="eq_evals/scripted-fail",
        log_dir=log_dir,
        display="none",
        epochs=1,
        limit=2,
        fail_on_error=False,
    )
    assert log.status == "success" or log.status == "error"
    assert all(s.error is not None and not s.scores for s in log.samples)
    assert "mode=fail" in log.samples[0].error.message


def test_default_epochs_and_cli_path(tmp_path: Path) -> None:
    """The real `inspect eval` CLI, from another directory, with the task's default 3 epochs."""
    logs = tmp_path / "logs"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            "eq_evals/facet_hidden",
            "--model",
            "eq_evals/scripted-oracle",
            "--limit",
            "2",
            "--log-dir",
            str(logs),
            "--display",
            "plain",
            "-T",
            "language=zh",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    [path] = list(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.eval.task == "eq_evals/facet_hidden" and log.eval.config.epochs == 3
    assert log.eval.task_args["language"] == "zh" and len(log.samples) == 6
    assert metric(log, "mean") == 1.0


def test_unknown_model_names_are_clear_errors(tmp_path: Path) -> None:
    from eq_evals.errors import EqEvalsError

    for model, message in (
        ("eq_evals/scripted-nonsense", "unknown scripted mode 'nonsense'"),
        ("eq_evals/gpt-5", "unknown eq_evals model 'gpt-5'"),
    ):
        with pytest.raises(EqEvalsError, match=message):
            inspect_eval("eq_evals/facet_crisis", model=model, limit=1, epochs=1, log_dir=str(tmp_path), display="none")
