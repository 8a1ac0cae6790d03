"""facet_crisis extra metrics (docs/pairwise.md, '3. eq-evals ratings'; FACET paper §2.2): mean signed error over every epoch, confusion matrix."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.facet.scorer import crisis_confusion, crisis_levels
from eq_evals.facet.scripted import find_item
from eq_evals.providers.scripted import register_mode

_calls: Counter = Counter()


@register_mode("test-crisis-drift")
def _drift(prompt: str, options: dict) -> str:
    """Test-only, deliberately not a pure function: the first answer to a prompt is the gold level, every later
    one (the next epochs) is Level 5, so the epochs disagree and a metric that sees one epoch only is caught."""
    item = find_item(prompt)
    _calls[prompt] += 1
    level = int(item["crisis_level"]) if _calls[prompt] == 1 else 5
    return f"<answer>Level {level}</answer>"


def test_confusion_matrix_and_signed_error_by_hand() -> None:
    mds = [
        {"gold": "Level 2", "parsed": 3, "normalized": True},  # +1
        {"gold": "Level 2", "parsed": 2, "normalized": True},  #  0
        {"gold": "Level 4", "parsed": 2, "normalized": True},  # -2
        {"gold": "Level 5", "parsed": None, "normalized": True},  # unparsed
        {"gold": "二级", "parsed": 5, "normalized": True},  # +3 (ZH gold string)
        {"gold": "Level 3", "parsed": "Level 3", "normalized": False},  # byte-exact match: 0
        {"gold": "Level 3", "parsed": "my answer is level 3", "normalized": False},  # not exact: unparsed
        {"gold": "anger", "parsed": 1},  # not a crisis item: skipped
    ]
    c = crisis_confusion(mds)
    # parsed errors: +1, 0, -2, +3, 0 -> sum 2 over 5 parsed answers = 0.4
    assert c["mean_signed_error"] == pytest.approx(0.4)
    assert (c["n"], c["parsed"], c["skipped"]) == (7, 5, 1)
    assert c["matrix"]["g2"] == {"p1": 0, "p2": 1, "p3": 1, "p4": 0, "p5": 1, "unparsed": 0}
    assert c["matrix"]["g4"]["p2"] == 1 and c["matrix"]["g5"]["unparsed"] == 1
    assert c["matrix"]["g3"] == {"p1": 0, "p2": 0, "p3": 1, "p4": 0, "p5": 0, "unparsed": 1}
    assert crisis_levels({"gold": "Level 1", "parsed": None}) == (1, None)
    assert crisis_confusion([])["mean_signed_error"] is None


def test_signed_error_counts_every_epoch(tmp_path: Path) -> None:
    _calls.clear()
    [log] = inspect_eval(
        "eq_evals/facet_crisis",
        model="eq_evals/scripted-test-crisis-drift",
        epochs=2,
        limit=6,
        task_args={"language": "en"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success"
    golds = [int(s.metadata["crisis_level"]) for s in log.samples if s.epoch == 1]
    assert len(golds) == 6 and any(g < 5 for g in golds)
    # epoch 1 answers the gold level (error 0), epoch 2 answers Level 5 (error 5 - gold): mean over 12 answers
    expected = sum(5 - g for g in golds) / (2 * len(golds))
    [unreduced] = [s for s in log.results.scores if "signed_error" in s.metrics]
    assert unreduced.metrics["signed_error"].value == pytest.approx(expected)
    assert unreduced.metrics["signed_error_en"].value == pytest.approx(expected)
    assert expected != 0.0  # the first epoch alone would give 0
    # the accuracy metrics are unchanged (epoch-mean reduced): half the answers are right where gold < 5
    reduced = next(s for s in log.results.scores if "mean" in s.metrics)
    assert reduced.metrics["mean"].value == pytest.approx(sum(1.0 if g == 5 else 0.5 for g in golds) / len(golds))


def test_ratings_report_has_the_confusion_matrix_over_all_epochs(tmp_path: Path) -> None:
    from eq_evals.report import run

    [log] = inspect_eval(
        "eq_evals/facet_crisis",
        model="eq_evals/scripted-wrong",
        epochs=2,
        limit=8,
        task_args={"language": "en"},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    result = run([str(tmp_path / "logs")], str(tmp_path / "out"), progress=False)
    c = result["crisis_confusion"]["en"]["eq_evals/scripted-wrong"]
    # the scripted "wrong" answer is level gold % 5 + 1: each sample of each epoch adds one to (g, g % 5 + 1)
    golds = [int(s.metadata["crisis_level"]) for s in log.samples]
    assert len(golds) == 16  # 8 items x 2 epochs, all counted
    expected = {f"g{g}": {**{f"p{p}": 0 for p in range(1, 6)}, "unparsed": 0} for g in range(1, 6)}
    for g in golds:
        expected[f"g{g}"][f"p{g % 5 + 1}"] += 1
    assert c["matrix"] == expected and c["n"] == c["parsed"] == 16
    assert c["mean_signed_error"] == pytest.approx(sum((g % 5 + 1) - g for g in golds) / 16)
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "## Crisis Recognition confusion matrix" in md and "16 answers, 16 parsed" in md
