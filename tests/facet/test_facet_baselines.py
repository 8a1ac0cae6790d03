"""Chance and majority reference rows for FACET's objective tasks (eq_evals.facet.baselines), and in the objective
leaderboard of `eq-evals ratings` (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.facet.baselines import facet_baselines
from eq_evals.facet.data import facet_items
from eq_evals.facet.taxonomy import taxonomy
from eq_evals.resources import resource

DIMENSIONS = ["apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy", "crisis_recognition"]


def meta(dimension: str, fmt: str, answer: str, language: str = "en", **extra) -> dict:
    return {"dimension": dimension, "format": fmt, "answer": answer, "language": language, **extra}


def test_chance_is_exact_for_each_answer_kind() -> None:
    n_labels = len({name.casefold() for name in taxonomy().names("en")})
    [crisis, hidden, social] = facet_baselines(
        [
            meta("crisis_recognition", "level_classification", "Level 3"),
            meta("hidden_emotion", "single_select", "anger"),
            meta("social_adequacy", "multiple_choice", "2", n_options=4),
        ]
    )
    assert crisis.chance == pytest.approx(1 / 5)
    assert social.chance == pytest.approx(1 / 4)
    assert hidden.chance == pytest.approx(1 / n_labels)  # one accepted label, no secondary


def test_secondary_answer_and_mixed_items_get_their_partial_credit() -> None:
    n = len({name.casefold() for name in taxonomy().names("en")})
    [row] = facet_baselines([meta("hidden_emotion", "single_select", "anger", secondary_answer="fear")])
    assert row.chance == pytest.approx((1 + 0.5) / n)
    # two slots: a random pair of different labels fills both with 2 of n(n-1)/2 pairs, one with 2(n-2)
    [row] = facet_baselines([meta("hidden_emotion", "multi_select", "anger+fear")])
    pairs = n * (n - 1) / 2
    assert row.chance == pytest.approx((1 * 1 + 0.5 * 2 * (n - 2)) / pairs)


def test_majority_answers_the_most_frequent_gold_and_is_scored_by_the_scorer() -> None:
    items = [meta("crisis_recognition", "level_classification", f"Level {level}") for level in (2, 2, 2, 4, 5)]
    [row] = facet_baselines(items)
    assert row.majority_answers == {"level_classification": "Level 2"}
    assert row.majority == pytest.approx(3 / 5)
    assert row.items == 5


def test_bundled_items_give_one_row_per_dimension_and_language_below_perfect() -> None:
    samples = facet_items(resource("datasets", "facet"), DIMENSIONS, "all")
    rows = facet_baselines(s.metadata for s in samples)
    assert {(r.dimension, r.language) for r in rows} == {(d, lang) for d in DIMENSIONS for lang in ("en", "zh")}
    for row in rows:
        assert 0 < row.chance < 0.5 and 0 < row.majority < 0.5, row
        assert row.items == sum(
            1 for s in samples if s.metadata["dimension"] == row.dimension and s.metadata["language"] == row.language
        )


def test_majority_answer_can_come_from_the_whole_dataset() -> None:
    run = [meta("crisis_recognition", "level_classification", "Level 4")]
    dataset = [meta("crisis_recognition", "level_classification", f"Level {level}") for level in (2, 2, 4)]
    [in_sample] = facet_baselines(run)
    [row] = facet_baselines(run, majority_from=dataset)
    assert in_sample.majority == 1.0  # a one-item run flatters the in-sample majority
    assert row.majority_answers == {"level_classification": "Level 2"} and row.majority == 0.0


def test_objective_leaderboard_has_chance_and_majority_rows(tmp_path: Path) -> None:
    from eq_evals.facet.baselines import facet_baselines
    from eq_evals.report import run

    [log] = inspect_eval(
        "eq_evals/facet_objective",
        model="eq_evals/scripted-wrong",
        task_args={"language": "en"},
        epochs=1,
        limit=20,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    result = run([str(tmp_path / "logs")], str(tmp_path / "out"), progress=False)
    expected = {r.dimension: r for r in facet_baselines([s.metadata for s in log.samples])}
    reference = result["objective_reference"]["en"]
    assert set(reference) == {"reference: chance", "reference: majority"}
    for dimension, row in expected.items():
        assert reference["reference: chance"][dimension] == pytest.approx(100 * row.chance)
        assert reference["reference: majority"][dimension] == pytest.approx(100 * row.majority)
    assert 0 < reference["reference: chance"][next(iter(expected))] < 100
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| *reference: chance* |" in md and "| *reference: majority* |" in md
    assert "eq_evals/scripted-wrong" not in result["objective_reference"]["en"]
    assert set(result["objective"]["en"]) == {"eq_evals/scripted-wrong"}  # not mixed into the models (or ΔZ)
