"""The judge check on the embedded SmolLM2-135M model as the judge (docs/judges.md, "Checking a local judge before
trusting it"): a few FACET pairs through the real task path. The model is far too small to judge, so its card is
expected to fail; what is checked is that the card is produced and honest about the verdicts it could not read."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig, get_model
from support import need_embedded_model

import eq_evals._registry  # noqa: F401

# 231 s on one thread in a suite run (benchmarks/results/suite_time.json): with the slow tests. The card's honesty
# about unreadable verdicts is also shown by the scripted judges (tests/judges/test_judge_check_e2e.py).
pytestmark = [pytest.mark.local_model, pytest.mark.slow]


def test_a_small_local_judge_gets_an_honest_card(tmp_path) -> None:
    need_embedded_model()
    from eq_evals.judges.card import judge_cards, write_cards
    from eq_evals.pairwise.verdict import sample_verdicts

    # = inspect eval eq_evals/judge_check_facet --model none --model-role grader=eq_evals/smollm2 -M n_threads=1
    #   -T preset=quick -T attempts=1 --limit 4 --max-tokens 64: four known-answer pairs, two calls each
    judge = get_model("eq_evals/smollm2", config=GenerateConfig(max_tokens=64), n_threads=1)
    [log] = inspect_eval(
        "eq_evals/judge_check_facet",
        model="none",
        model_roles={"grader": judge},
        task_args={"preset": "quick", "attempts": 1},
        limit=4,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    calls = [c for s in log.samples for v in sample_verdicts(s) for c in v.calls]
    assert len(calls) == 8 and all(len(c.order) == 2 for c in calls)
    unreadable = sum(c.verdict is None for c in calls)
    cards = judge_cards(tmp_path / "logs")
    [card] = cards.values()
    facet = card.sections["facet"]
    parse = facet["figures"]["parse"]
    assert parse["n"] == 8 and parse["detail"]["count"] == unreadable
    from eq_evals.logcheck import is_unscored

    unscored = sum(is_unscored(s.scores["judge_check"]) for s in log.samples)
    assert facet["figures"]["parse"]["detail"]["pairs_unreadable"] == unscored
    if unreadable:
        assert parse["status"] in ("warn", "fail") and card.status != "pass"
    assert card.status != "pass"  # four pairs cannot make a judge pass, and this one is not a judge
    [md, _] = write_cards(cards, tmp_path / "cards")
    text = md.read_text(encoding="utf-8")
    assert f"{unreadable} unreadable of 8 recorded verdicts" in text and "**Status: " in text
