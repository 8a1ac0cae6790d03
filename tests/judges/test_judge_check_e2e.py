"""The judge check end to end (issue 21, docs/judges.md): every scripted judge with one known fault runs every
judge-check task through ``inspect_ai.eval`` (the real task path: declarations, the benchmark's own scorer, the
log), and the card computed from the logs fails exactly the figures that fault explains; the honest judge passes.

Expected failures, per scripted judge (``eq_evals.judges.scripted``):
- ``jc-honest``: none.
- ``jc-first`` (always the first position): position flips, where a judge sees two replies in two orders (FACET,
  HEART, PACE battles); its accuracy is n/a there (no verdict is position-consistent) and it is honest where it
  sees one reply (PACE board, LongEmotion).
- ``jc-long``: the verbosity effect. ``jc-obey``: the injection effect. ``jc-self``: the self-preference effect.
- ``jc-random``: accuracy, and position flips where there are two orders; null outputs may fail too (a judge at
  chance lets an empty reply win), but the attack effects stay near zero (they are measured against matched
  controls) and its repeats agree (a pure function of the prompt answers the same prompt the same way).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FAULTS = ("honest", "first", "long", "obey", "self", "random")
BENCHMARKS = ("facet", "heart", "pace", "pace_board", "longemotion")
PAIRWISE = ("facet", "heart", "pace")
EXPECTED = {"honest": set(), "long": {"verbosity"}, "obey": {"injection"}, "self": {"self_preference"}}

# six scripted judges through every judged benchmark: about two minutes; CI runs it with the slow tests
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def check_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from inspect_ai import eval as inspect_eval

    logs = tmp_path_factory.mktemp("judge_check") / "logs"
    tasks = [f"eq_evals/judge_check_{b}" for b in BENCHMARKS]
    for fault in FAULTS:
        done = inspect_eval(
            tasks,
            task_args={"preset": "quick"},
            model="none",
            model_roles={"grader": f"eq_evals/scripted-jc-{fault}"},
            log_dir=str(logs),
            display="none",
        )
        assert [log.status for log in done] == ["success"] * len(tasks), [log.error for log in done]
    # a log of another task in the same folder is passed over
    [other] = inspect_eval(
        "eq_evals/facet_naturalness", model="eq_evals/scripted-oracle", limit=1, log_dir=str(logs), display="none"
    )
    assert other.status == "success"
    return logs


def test_each_scripted_judge_fails_exactly_what_its_fault_explains(check_logs: Path) -> None:
    from eq_evals.judges.card import judge_cards

    cards = judge_cards(check_logs)
    assert set(cards) == {f"eq_evals/scripted-jc-{f}" for f in FAULTS}
    for fault in FAULTS:
        card = cards[f"eq_evals/scripted-jc-{fault}"]
        assert set(card.sections) == set(BENCHMARKS), fault
        faults = {b: set(f) for b, f in card.faults().items()}
        for benchmark in BENCHMARKS:
            figures = card.sections[benchmark]["figures"]
            if fault == "first":
                expected = {"position"} if benchmark in PAIRWISE else set()
                assert faults[benchmark] == expected, (fault, benchmark, faults[benchmark])
                if benchmark in PAIRWISE:
                    assert figures["accuracy"]["status"] == "n/a" and figures["position"]["value"] == 1.0
                    assert figures["position"]["detail"]["first_position_wins"] == 1.0
            elif fault == "random":
                expected = {"accuracy"} | ({"position"} if benchmark in PAIRWISE else set())
                assert faults[benchmark] - {"null"} == expected, (benchmark, faults[benchmark])
                assert figures["stability"]["status"] == "pass"
            else:
                assert faults[benchmark] == EXPECTED[fault], (fault, benchmark, faults[benchmark])
            if benchmark not in PAIRWISE:
                assert "position" not in figures  # one reply at a time: no orders
        if fault == "honest":
            assert card.status == "pass"
        else:
            assert card.status == "fail"


def test_every_judgement_is_a_typed_verdict_record_from_the_benchmarks_own_scorer(check_logs: Path) -> None:
    from inspect_ai.log import read_eval_log

    from eq_evals.judges.card import TASKS
    from eq_evals.pairwise.verdict import sample_verdicts

    seen = set()
    for path in sorted(check_logs.glob("*.eval")):
        log = read_eval_log(str(path))
        task = log.eval.task.split("/")[-1]
        if task not in TASKS or "jc-honest" not in str(log.eval.model_roles):
            continue
        benchmark = TASKS[task]
        seen.add(benchmark)
        for sample in log.samples:
            [record] = sample_verdicts(sample, str(path))
            block = sample.scores["judge_check"].metadata["judge_check"]
            assert record.model_b == ("reference" if benchmark == "heart" else "judgecheck/good")
            if block["probe"] == "self":
                assert block["own_model"] == "eq_evals/scripted-jc-honest" and block["own_reply"]
            if benchmark == "facet":  # FACET's rubric, both orders
                assert record.rubric == "facet/pairwise.yaml"
                assert [c.order for c in record.calls] == [
                    [record.model_a, record.model_b],
                    [record.model_b, record.model_a],
                ]
            elif benchmark == "heart" and record.calls and record.calls[0].judge:  # both orders, six criteria each
                assert len(record.calls) == 12 and {c.criterion for c in record.calls} == {
                    "H",
                    "E",
                    "A",
                    "R",
                    "T",
                    "overall",
                }
            elif benchmark == "pace":  # four agents and the board, in both orders
                assert len([c for c in record.calls if c.judge != "pace_board"]) == 8
                assert len([c for c in record.calls if c.judge == "pace_board"]) == 2
            elif benchmark in ("pace_board", "longemotion") and record.calls:  # one reply per call
                assert all(len(c.order) == 1 for c in record.calls)
    assert seen == set(BENCHMARKS)


def test_cards_are_markdown_and_json_with_cost_and_rule_decided_pairs(check_logs: Path, tmp_path: Path) -> None:
    from eq_evals.judges.card import judge_cards, write_cards

    cards = judge_cards(check_logs)
    written = write_cards(cards, tmp_path / "cards")
    assert len(written) == 2 * len(cards)
    honest = json.loads(
        (tmp_path / "cards" / "judge_card_eq_evals_scripted-jc-honest.json").read_text(encoding="utf-8")
    )
    assert honest["status"] == "pass" and set(honest["benchmarks"]) == set(BENCHMARKS)
    facet = honest["benchmarks"]["facet"]
    assert facet["cost"]["model_calls"] == facet["figures"]["parse"]["n"] + facet["cost"]["own_reply_calls"]
    assert facet["cost"]["role_usage"]["grader"]["total_tokens"] > 0
    assert set(facet["accuracy_by_degradation"]) == {
        "dismissive",
        "generic",
        "sarcastic",
        "harmful",
        "off_topic",
        "truncated",
        "wrong_language",
        "wrong_persona",
        "mix",
    }
    assert set(facet["accuracy_by_language"]) == {"en", "zh"}
    heart = honest["benchmarks"]["heart"]
    assert set(heart["accuracy_by_criterion"]) == {"H", "E", "A", "R", "T", "overall"}
    # HEART decides an empty reply by its own rule, without a judge call: left out of the figure, said in a note
    assert heart["figures"]["null"]["detail"]["decided_by_rule"] >= 1
    assert any("own rule" in note for note in heart["notes"])
    text = (tmp_path / "cards" / "judge_card_eq_evals_scripted-jc-long.md").read_text(encoding="utf-8")
    assert text.startswith("# Judge card: eq_evals/scripted-jc-long") and "**Status: FAIL**" in text
    assert "| verbosity effect | +100.0 |" in text and "## Thresholds and sources" in text and "FastChat#3911" in text


def test_the_cli_writes_the_cards_of_logs_and_strict_fails_on_a_failing_card(check_logs: Path, tmp_path: Path) -> None:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "eq_evals.cli",
            "judge-check",
            str(check_logs),
            "--out",
            str(tmp_path / "cards"),
            "--strict",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("eq_evals/scripted-jc-honest: PASS") for line in lines)
    assert any(line.startswith("eq_evals/scripted-jc-obey: FAIL") and "injection effect" in line for line in lines)
    assert lines[-1].startswith("written: ")
    assert (tmp_path / "cards" / "judge_card_eq_evals_scripted-jc-random.md").exists()


def test_the_leaderboard_section_shows_cards_and_judges_not_checked(check_logs: Path, tmp_path: Path) -> None:
    from eq_evals import logcheck
    from eq_evals.judges.section import build
    from eq_evals.sections import Inputs

    selection = logcheck.gate(str(check_logs), tasks=None)
    kept = [(log, info) for log, info in selection.kept if info.task.startswith("judge_check_")]
    result = build(
        Inputs(
            logs=kept,
            out_dir=tmp_path,
            shared={
                "judges": {
                    "facet": {"eq_evals/scripted-jc-honest", "openai/gpt-4o"},
                    "heart": {"eq_evals/scripted-jc-first"},
                }
            },
        )
    )
    assert "| facet | eq_evals/scripted-jc-honest | PASS (accuracy 100.0%) | |" in result.markdown
    assert "| facet | openai/gpt-4o | judge not checked | |" in result.markdown
    assert "| heart | eq_evals/scripted-jc-first | FAIL (accuracy n/a) | position flips |" in result.markdown
    assert set(result.json["judge_cards"]) == {f"eq_evals/scripted-jc-{f}" for f in FAULTS}


def test_unreadable_verdicts_are_counted_never_scored(tmp_path: Path) -> None:
    """A judge whose replies cannot be read gets no accuracy (n/a) and fails the parse figure; one that needs the
    scorer's retry is read, and the card counts the retries (the benchmarks' own garbled and late scripted judges)."""
    from inspect_ai import eval as inspect_eval

    from eq_evals.judges.card import judge_cards

    runs = {
        "judge_check_facet": ("eq_evals/scripted-judge-garbled", "eq_evals/scripted-judge-late"),
        "judge_check_heart": ("eq_evals/scripted-hjudge-garbled", "eq_evals/scripted-hjudge-late"),
    }
    for task, judges in runs.items():
        for judge in judges:
            [log] = inspect_eval(
                f"eq_evals/{task}",
                task_args={"preset": "quick"},
                model="none",
                model_roles={"grader": judge},
                limit=6,
                log_dir=str(tmp_path / "logs"),
                display="none",
            )
            assert log.status == "success", log.error
    cards = judge_cards(tmp_path / "logs")
    for task, (garbled, late) in runs.items():
        benchmark = task.removeprefix("judge_check_")
        bad = cards[garbled].sections[benchmark]["figures"]
        assert bad["accuracy"]["status"] == "n/a" and bad["parse"]["value"] == 1.0 and bad["parse"]["status"] == "fail"
        assert bad["parse"]["detail"]["pairs_unreadable"] == 6
        calls = bad["parse"]["n"] // (6 if benchmark == "heart" else 1)  # HEART: one call, six criteria
        assert bad["parse"]["detail"]["retries"] == 2 * calls  # three attempts per call
        assert cards[garbled].status == "fail"
        ok = cards[late].sections[benchmark]["figures"]
        calls = ok["parse"]["n"] // (6 if benchmark == "heart" else 1)
        assert ok["parse"]["value"] == 0.0 and ok["parse"]["detail"]["retries"] == calls
        assert ok["accuracy"]["n"] > 0
