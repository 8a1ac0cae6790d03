"""PACE end to end through Inspect: pointwise board, battles over two models' logs, eq-evals ratings, weights
from battle logs; scripted models and judges (pure functions of their prompts)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError
from eq_evals.pace.scripted import agent_score
from eq_evals.ratings.causal_pace import PAPER_WEIGHTS, composite_eq

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pace"
ITEMS = str(FIXTURES / "items.jsonl")
MODELS = ["eq_evals/scripted-echo", "eq_evals/scripted-malformed"]
AGENT = "eq_evals/scripted-pace-agent"


def missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pointwise(log_dir: Path, models=MODELS, roles=None, **task_args):
    return inspect_eval(
        "eq_evals/pace",
        model=list(models),
        model_roles={"grader": AGENT} if roles is None else roles,
        task_args={"source": ITEMS, "language": "all", **task_args},
        log_dir=str(log_dir),
        display="none",
    )


@pytest.fixture(scope="module")
def generations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log_dir = tmp_path_factory.mktemp("pace_gen")
    logs = pointwise(log_dir)
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return log_dir


@pytest.fixture(scope="module")
def battles(generations: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pace_battles")
    [log] = inspect_eval(
        "eq_evals/pace_pairwise",
        model=None,
        model_roles={"grader": AGENT},
        task_args={"logs": str(generations), "overall": True},
        log_dir=str(out),
        display="none",
    )
    assert log.status == "success", log.error
    return out


def test_pointwise_board_shows_every_agent_and_the_arbitrator(generations: Path) -> None:
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = [read_eval_log(p) for p in list_eval_logs(str(generations))]
    assert sorted(log.eval.model for log in logs) == MODELS
    for log in logs:
        assert len(log.samples) == 4
        for s in log.samples:
            score = s.scores["pace_board"]
            reply = s.output.completion
            expected = {d: float(agent_score(reply, d)) for d in "PACE"}
            assert {d: score.value[d] for d in "PACE"} == expected
            # deterministic Chief Arbitrator == Causal-PACE composite with the paper's weights
            assert score.value["eq"] == pytest.approx(composite_eq(expected, PAPER_WEIGHTS))
            spans = [e.name for e in s.events if e.event == "span_begin"]
            for name in (
                "Perceptive Analyst (P)",
                "Attunement Auditor (A)",
                "Conviction Guardian (C)",
                "Guidance Strategist (E)",
                "Chief Arbitrator",
            ):
                assert name in spans
            for agent in ("Perceptive Analyst", "Attunement Auditor", "Conviction Guardian", "Guidance Strategist"):
                assert agent in score.explanation
            assert set(score.metadata["reports"]) == set("PACE")
        zh = [s for s in log.samples if s.metadata["language"] == "zh"]
        en = [s for s in log.samples if s.metadata["language"] == "en"]
        # the judge prompts are stored as attachments of the sample
        assert any("你是PACE情商评审团的感知分析师" in text for text in zh[0].attachments.values()), (
            "Chinese items are judged with the Chinese agent prompts"
        )
        assert not any("感知分析师" in text for text in en[0].attachments.values())
        assert any("You are the Perceptive Analyst" in text for text in en[0].attachments.values())
        metrics = log.results.scores[0].metrics
        assert {"P", "A", "C", "E", "eq", "eq_en", "eq_zh"} <= set(metrics)


def test_garbled_agent_leaves_its_dimension_missing_and_the_composite_renormalises(tmp_path: Path) -> None:
    [log] = pointwise(
        tmp_path, models=MODELS[:1], roles={"grader": AGENT, "pace_cg": "eq_evals/scripted-pace-agent-garbled"}
    )
    assert log.status == "success", log.error
    for s in log.samples:
        score = s.scores["pace_board"]
        assert missing(score.value["C"])  # NaN in memory, null in the log file
        assert "Conviction Guardian (C): missing: unparseable after 3 attempt(s)" in score.explanation
        assert "renormalised over P, A, E because C is missing" in score.explanation
        assert score.reason == "partial_composite" and score.metadata["partial_composite"] is True
        assert score.metadata["missing"] == ["C"] and score.explanation.startswith("partial composite: C missing")
        present = {d: score.value[d] for d in "PAE"}
        assert score.value["eq"] == pytest.approx(composite_eq(present, PAPER_WEIGHTS))
        assert score.metadata["reports"]["C"]["attempts"] == 3
        models = [e.model for e in s.events if e.event == "model" and e.role == "pace_cg"]
        assert models and all("garbled" in m for m in models), "pace_cg is its own role"
    metrics = log.results.scores[0].metrics
    assert "C" not in metrics and metrics["missing_C"].value == 4
    # doctor and the leaderboard count the partial composites (issue 19)
    from eq_evals import logcheck
    from eq_evals.report import run

    assert logcheck.read_checked(log.location)[1].partial_composites["pace_board"] == 4
    result = run([log.location], str(tmp_path / "ratings"), bootstrap=10, progress=False)
    [row] = result["pace"][0]["rows"]
    assert row["partial_composites"] == 4
    assert "(4 partial composites)" in (tmp_path / "ratings" / "leaderboard.md").read_text(encoding="utf-8")


def test_all_agents_unreadable_is_unscored_never_zero(tmp_path: Path) -> None:
    [log] = pointwise(tmp_path, models=MODELS[:1], roles={"grader": "eq_evals/scripted-pace-agent-garbled"}, attempts=1)
    assert log.status == "success", log.error
    for s in log.samples:
        score = s.scores["pace_board"]
        assert score.value != 0 and "all_agents_unparseable" in json.dumps(score.model_dump(), default=str)


def test_late_agent_is_retried_with_a_correction_note(tmp_path: Path) -> None:
    [log] = pointwise(tmp_path, models=MODELS[:1], roles={"grader": "eq_evals/scripted-pace-agent-late"})
    assert log.status == "success", log.error
    score = log.samples[0].scores["pace_board"]
    assert all(score.metadata["reports"][d]["attempts"] == 2 for d in "PACE")
    assert score.value["eq"] is not None


def test_no_judge_bound_stops_before_any_model_call(tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/pace", model=MODELS[0], task_args={"source": ITEMS}, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "error"
    assert "--model-role grader=" in log.error.message
    for s in log.samples or []:
        assert not [e for e in s.events if e.event == "model"], "no model may be called"


def test_ablations_drop_and_equal_weights(generations: Path, tmp_path: Path) -> None:
    [log] = pointwise(tmp_path, models=MODELS[:1], drop="PA", weights="equal", judge_max_tokens=200)
    assert log.status == "success", log.error
    s = log.samples[0]
    score = s.scores["pace_board"]
    assert missing(score.value["P"]) and set(score.metadata["reports"]) == set("ACE")
    assert score.metadata["weights"] == pytest.approx({"A": 1 / 3, "C": 1 / 3, "E": 1 / 3})
    assert score.value["eq"] == pytest.approx(sum(score.value[d] for d in "ACE") / 3)
    assert not [e for e in s.events if e.event == "span_begin" and e.name == "Perceptive Analyst (P)"]
    judge_calls = [e for e in s.events if e.event == "model" and e.role == "grader"]
    assert len(judge_calls) == 3 and all(e.config.max_tokens == 200 and e.config.temperature == 0 for e in judge_calls)
    [reply_call] = [e for e in s.events if e.event == "model" and e.role is None]
    assert reply_call.config.max_tokens == 512  # the task's config: {max_tokens: 512}


def test_weights_file_from_eq_evals_pace_weights(tmp_path: Path) -> None:
    weights = tmp_path / "w.json"
    weights.write_text(
        json.dumps({"weights": {"P": {"value": 0.1}, "A": {"value": 0.2}, "C": {"value": 0.3}, "E": {"value": 0.4}}})
    )
    [log] = pointwise(tmp_path / "logs", models=MODELS[:1], weights=str(weights))
    score = log.samples[0].scores["pace_board"]
    assert score.metadata["weights"] == pytest.approx({"P": 0.1, "A": 0.2, "C": 0.3, "E": 0.4})
    assert score.value["eq"] == pytest.approx(sum(w * score.value[d] for d, w in zip("PACE", (0.1, 0.2, 0.3, 0.4))))


def test_llm_arbitrator_records_both(tmp_path: Path) -> None:
    [log] = pointwise(tmp_path, models=MODELS[:1], ca_mode="llm")
    score = log.samples[0].scores["pace_board"]
    assert score.metadata["arbitrator"]["role"] == "pace_ca"
    assert score.metadata["eq_ca"] == pytest.approx(score.metadata["eq_formula"], abs=1e-3)
    assert "Chief Arbitrator (LLM)" in [e.name for e in log.samples[0].events if e.event == "span_begin"]


def test_battles_score_both_orders_and_pick_the_higher_eq(battles: Path) -> None:
    from inspect_ai.log import list_eval_logs, read_eval_log

    [log] = [read_eval_log(p) for p in list_eval_logs(str(battles))]
    assert len(log.samples) == 4  # 4 items x 1 pair
    for s in log.samples:
        score = s.scores["pace_battle"]
        md = score.metadata
        a, b = md["model_a"], md["model_b"]
        texts = {a: s.metadata["response_a"], b: s.metadata["response_b"]}
        for m in (a, b):  # both orders agree for the position-free scripted agent: its own score back
            assert md["scores"][m] == {d: agent_score(texts[m], d) for d in "PACE"}
        assert len(md["reports"]) == 2  # A/B and B/A
        eq_a, eq_b = score.value["eq_a"], score.value["eq_b"]
        assert md["winner"] == (a if eq_a > eq_b else b if eq_b > eq_a else "tie")
        assert md["overall_winner"] in (a, b, "tie")


def test_ratings_leaderboard_with_composite_eq_and_thurstone(generations: Path, battles: Path, tmp_path: Path) -> None:
    from eq_evals.report import run

    result = run(
        [str(generations), str(battles)], str(tmp_path / "out"), method="thurstone", bootstrap=50, progress=False
    )
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "## PACE composite EQ" in md and "Thurstone-Mosteller" in md
    [pace_all] = [t for t in result["pace"] if t["language"] == "all"]
    assert {r["model"] for r in pace_all["rows"]} == set(MODELS)
    for row in pace_all["rows"]:
        assert row["ci_low"] <= row["eq"] <= row["ci_high"]
        assert row["eq"] == pytest.approx(composite_eq({d: row[d] for d in "PACE"}, PAPER_WEIGHTS))
    tm = [r for r in result["tables"] if r["dimension"] == "pace_eq"]
    assert {r["model"] for r in tm} == set(MODELS) and {r["language"] for r in tm} == {"en", "zh"}
    for model in MODELS:  # one battle per item: 2 English and 2 Chinese items, rated per language
        assert sum(r["matchups"] for r in tm if r["model"] == model) == 4
    assert "## en / pace_eq" in md and "## zh / pace_eq" in md


def test_weights_from_battle_logs_and_refusals(generations: Path, battles: Path, tmp_path: Path) -> None:
    from eq_evals.pace.logs import observations_from_logs, weight_rows_from_logs

    rows, _ = weight_rows_from_logs(str(battles))
    assert len(rows) == 8 and all(set(r) == {"P", "A", "C", "E", "Y", "item", "model"} for r in rows)
    assert all(r["Y"] in (0, 1, 2) and all(r[d] in (0, 1) for d in "PACE") for r in rows)
    assert observations_from_logs([str(battles)], y="points")[0].keys() >= {"points"}
    with pytest.raises(EqEvalsError, match="no overall preference"):
        weight_rows_from_logs(str(generations))
    [plain] = inspect_eval(
        "eq_evals/pace_pairwise",
        model=None,
        model_roles={"grader": AGENT},
        task_args={"logs": str(generations)},
        log_dir=str(tmp_path),
        display="none",
    )
    with pytest.raises(EqEvalsError, match="circular"):
        weight_rows_from_logs(plain.location)


def test_eq_evals_pace_weights_reads_battle_logs_and_refuses_pointwise(
    generations: Path, battles: Path, tmp_path: Path, capsys
) -> None:
    from eq_evals.cli import main
    from eq_evals.pace.board import board_weights

    out = tmp_path / "weights.json"
    battle_logs = [str(p) for p in battles.glob("*.eval")]
    assert main(["pace", "weights", *battle_logs, "--bootstrap", "0", "--out", str(out)]) == 0
    fitted = json.loads(out.read_text())
    assert fitted["n_records"] == 8 and fitted["source"] == "estimated"
    weights, source = board_weights(str(out))  # the file is accepted by -T weights=FILE
    assert sum(weights.values()) == pytest.approx(1.0) and source.startswith("estimated:")
    assert main(["pace", "weights", *[str(p) for p in generations.glob("*.eval")], "--bootstrap", "0"]) == 2
    assert "no overall preference" in capsys.readouterr().err


def test_failing_agent_errors_the_sample_so_eval_retry_judges_it_again(tmp_path: Path) -> None:
    # a judge outage is not a missing dimension: the composite would be renormalised silently (issue 19)
    [log] = pointwise(tmp_path, models=MODELS[:1], roles={"grader": AGENT, "pace_gs": "eq_evals/scripted-fail"})
    assert log.status == "error"
    errored = [s for s in log.samples if s.error is not None]
    assert errored and not any(s.scores for s in errored)
    assert "the call of Guidance Strategist (E, role pace_gs" in errored[0].error.message


def test_battles_without_a_judge_stop_before_any_call(generations: Path, tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/pace_pairwise",
        model=None,
        task_args={"logs": str(generations), "overall": True},
        model_roles={"pace_pa": AGENT, "pace_aa": AGENT, "pace_cg": AGENT, "pace_gs": AGENT},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and "pace_overall" in log.error.message
    assert not [e for s in log.samples or [] for e in s.events if e.event == "model"]


def test_battles_with_the_llm_arbitrator(generations: Path, tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/pace_pairwise",
        model=None,
        model_roles={"grader": AGENT},
        task_args={"logs": str(generations), "ca_mode": "llm", "language": "en"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    for s in log.samples:
        md = s.scores["pace_battle"].metadata
        assert set(md["arbitrator"]) == {md["model_a"], md["model_b"]}
        for m in md["arbitrator"]:  # the scripted arbitrator confirms the weighted sum it is shown
            assert md["eq"][m] == pytest.approx(md["eq_formula"][m], abs=1e-3)
