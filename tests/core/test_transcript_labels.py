"""Every judge, agent and arbitrator call of a scorer is labelled in the transcript (core/view.py): Inspect View
draws no span opened inside a scorer, only "Model Call (grader)" blocks, so each call is followed by an INFO block
whose title names who judged, what (criterion, opponent, the order shown) and the verdict, with a Markdown body.
Read from the logs of every benchmark built once per session (tests/benchmark_logs.py); the browser test
tests/core/test_inspect_view_browser.py checks that Inspect View draws them."""

from __future__ import annotations

import re

import pytest
from inspect_ai.log import read_eval_log

from eq_evals.pairwise.verdict import sample_verdicts


def _one(benchmark_logs, task: str):
    paths = benchmark_logs.paths(task)
    assert paths, task
    return [read_eval_log(str(p), resolve_attachments=True) for p in paths]


def _scoring(sample):
    """The events inside the sample's scorers span (what Inspect View shows under "scoring")."""
    spans = {e.id: e for e in sample.events if e.event == "span_begin"}
    scorers = {i for i, e in spans.items() if e.type == "scorers"}

    def under(e) -> bool:
        sid = e.span_id
        while sid is not None:
            if sid in scorers:
                return True
            sid = spans[sid].parent_id if sid in spans else None
        return False

    return [e for e in sample.events if e.event not in ("span_begin", "span_end") and under(e)]


def _labels(sample) -> list[tuple[str, str]]:
    return [(e.source or "", e.data) for e in _scoring(sample) if e.event == "info"]


def test_facet_judge_calls_name_judge_dimension_order_and_verdict(benchmark_logs) -> None:
    [log] = _one(benchmark_logs, "facet_pairwise")
    for sample in log.samples[:6]:
        calls = [e for e in _scoring(sample) if e.event == "model"]
        labels = _labels(sample)
        [verdict] = sample_verdicts(sample)
        assert len(labels) == len(calls) == len(verdict.calls) == 4  # two judges, both orders
        for call, (title, body) in zip(verdict.calls, labels):
            a, b = (m.split("/")[-1] for m in call.order)
            assert title.startswith(f"{call.judge.split('/')[-1]} judges {call.criterion}: A={a}, B={b} → ")
            assert call.verdict and title.endswith(f"{call.verdict} ({call.winner.split('/')[-1]})")
            assert isinstance(body, str) and f"| shown as A | {call.order[0]} |" in body
        # each label follows its own model call (the judge calls of a matchup are made one after another)
        kinds = [e.event for e in _scoring(sample) if e.event in ("model", "info")]
        assert kinds == ["model", "info"] * 4


def test_pace_board_agents_and_arbitrator_table(benchmark_logs) -> None:
    log = _one(benchmark_logs, "pace")[0]
    sample = log.samples[0]
    titles = [t for t, _ in _labels(sample)]
    for agent in (
        "Perceptive Analyst (P)",
        "Attunement Auditor (A)",
        "Conviction Guardian (C)",
        "Guidance Strategist (E)",
    ):
        assert [t for t in titles if re.fullmatch(re.escape(agent) + r" → \d+(\.\d+)?/10", t)], (agent, titles)
    [(title, table)] = [(t, b) for t, b in _labels(sample) if t.startswith("Chief Arbitrator")]
    eq = sample.scores["pace_board"].value["eq"]
    assert title == f"Chief Arbitrator: EQ = {eq:.2f} (weighted sum of the agents' scores)"
    assert isinstance(table, str) and table.startswith("| dimension | agent | W̄ | score |")
    assert "| P | Perceptive Analyst | 0.430 |" in table and f"**{eq:.2f}**" in table
    assert not re.search(r"\d\.\d{4,}", table), "weights and scores are rounded for reading"


def test_pace_battle_labels_name_the_order(benchmark_logs) -> None:
    [log] = _one(benchmark_logs, "pace_pairwise")
    sample = log.samples[0]
    a, b = (m.split("/")[-1] for m in (sample.metadata["model_a"], sample.metadata["model_b"]))
    titles = [t for t, _ in _labels(sample)]
    for order in (f"A={a}, B={b}", f"A={b}, B={a}"):
        assert len([t for t in titles if f"): {order} → A " in t]) == 4, titles
    [arb] = [t for t in titles if t.startswith("Chief Arbitrator")]
    winner = sample.scores["pace_battle"].metadata["winner"]
    assert arb.endswith("→ tie" if winner == "tie" else f"→ {winner.split('/')[-1]} wins"), arb


def test_heart_judge_calls_name_opponent_order_and_verdict(benchmark_logs) -> None:
    logs = _one(benchmark_logs, "heart")
    log = next(lg for lg in logs if "terse" in lg.eval.model)  # against the reference and the warm system's log
    sample = next(s for s in log.samples if len(s.scores["heart_pairwise"].metadata["opponents"]) == 2)
    calls = [e for e in _scoring(sample) if e.event == "model"]
    labels = _labels(sample)
    assert len(labels) == len(calls) > 0
    opponents = {t.split(" vs ")[1].split(",")[0] for t, _ in labels}
    assert opponents == {"reference", "scripted-heart-warm"}, opponents
    for title, body in labels:
        assert re.fullmatch(r"[\w-]+: scripted-heart-terse vs [\w-]+, A=[\w-]+ → .+", title), title
        assert "| criterion | rubric key | favours | scripted-heart-terse | strength |" in body
    explanation = sample.scores["heart_pairwise"].explanation
    assert "| opponent | judge | order | overall | H | E | A | R | T |" in explanation
    assert "Seeker: " in sample.input and "Supporter: " in str(sample.input)


@pytest.mark.parametrize("task", ["facet_pairwise", "pace", "pace_pairwise", "heart"])
def test_no_raw_json_info_blocks(benchmark_logs, task: str) -> None:
    """Inspect View shows a dict passed to transcript().info as raw JSON: every scorer-side info is Markdown."""
    for log in _one(benchmark_logs, task):
        for sample in log.samples[:3]:
            assert all(isinstance(body, str) for _, body in _labels(sample)), task
