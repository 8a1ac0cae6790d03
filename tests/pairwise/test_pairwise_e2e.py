"""FACET interaction generation -> pairwise judging through Inspect, with scripted models and judges; each judge
call sits under its order's span in the log (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.judge import parse_verdict
from eq_evals.pairwise.verdict import sample_verdicts

MODELS = ["eq_evals/scripted-echo", "eq_evals/scripted-malformed", "eq_evals/scripted-oracle"]


def generate(log_dir: Path, task: str = "facet_naturalness", models=MODELS, **task_args) -> Path:
    logs = inspect_eval(
        f"eq_evals/{task}",
        model=list(models),
        task_args={"language": "en", **task_args},
        log_dir=str(log_dir),
        display="none",
    )
    assert all(log.status == "success" for log in logs)
    return log_dir


def judge(gen: Path, grader, out: Path, limit: int | None = None, **task_args):
    """A judging run; ``limit`` judges only the first pairs (Inspect's own sample limit) where a test reads only those."""
    [log] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": grader},
        task_args={"logs": str(gen), "pairing": "round_robin", **task_args},
        log_dir=str(out),
        display="none",
        limit=limit,
    )
    return log


@pytest.fixture(scope="module")
def generations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("gen"))


def test_generation_records_style_statistics(generations: Path) -> None:
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = [read_eval_log(p) for p in list_eval_logs(str(generations))]
    assert sorted(log.eval.model for log in logs) == MODELS
    for log in logs:
        # no metric: a generation run has no score of its own, and Inspect View lists a run by its first metric
        # (it was the mean reply length); every sample's score keeps the statistics
        assert log.results.scores == []
        for sample in log.samples:
            assert set(sample.scores["facet_style"].value) == {
                "length",
                "bullets",
                "opening_template",
                "closing_template",
            }
        assert len(log.samples) == 60  # the naturalness pool, EN (FACET paper Fig. 6b: 60 per pool)


def test_round_robin_judging_in_both_orders(generations: Path, tmp_path: Path) -> None:
    log = judge(generations, "eq_evals/scripted-judge", tmp_path)
    assert log.status == "success"
    assert len(log.samples) == 60 * 3  # every pair of 3 models on 60 prompts
    sample = log.samples[0]
    score = sample.scores["pairwise_judge"]
    assert set(score.value) == {"outcome", "margin", "conflicted"} and score.value["outcome"] in (0.0, 0.5, 1.0)
    [verdict] = sample_verdicts(sample)
    [judgment] = verdict.judgments
    orders = [call.order for call in verdict.calls]
    a, b = verdict.model_a, verdict.model_b
    assert orders == [[a, b], [b, a]]
    # the judge saw only "Response A/B", never a model name
    sample = read_eval_log(log.location, resolve_attachments=True).samples[0]
    prompts = [e.input[0].text for e in sample.events if e.event == "model"]
    assert len(prompts) == 2 and not any(name in p for p in prompts for name in MODELS)
    assert all("Response A" in p and "Response B" in p for p in prompts)
    # the shorter response wins for the scripted judge, consistently in both orders
    la, lb = verdict.lengths[a], verdict.lengths[b]
    if la != lb:
        assert score.value["outcome"] == (1.0 if la < lb else 0.0) and not judgment.conflicted
        assert judgment.margin >= 1


def test_position_biased_judge_gives_conflicted_draws(generations: Path, tmp_path: Path) -> None:
    log = judge(generations, "eq_evals/scripted-judge-first", tmp_path, limit=30, dimensions="expression_naturalness")
    assert len(log.samples) == 30
    values = [s.scores["pairwise_judge"].value for s in log.samples]
    assert all(v["outcome"] == 0.5 and v["conflicted"] == 1.0 for v in values)
    discard = judge(generations, "eq_evals/scripted-judge-first", tmp_path / "d", limit=10, conflict_policy="discard")
    assert len(discard.samples) == 10
    assert all(s.scores["pairwise_judge"].reason == "verdicts_discarded" for s in discard.samples)


def test_unparseable_judge_is_retried_then_unscored(generations: Path, tmp_path: Path) -> None:
    log = judge(generations, "eq_evals/scripted-judge-garbled", tmp_path, limit=5, attempts=2)
    assert len(log.samples) == 5
    for s in log.samples:
        score = s.scores["pairwise_judge"]
        assert score.reason == "judge_unparseable" and "unparseable reply after 2 attempts" in score.explanation
        assert sum(1 for e in s.events if e.event == "model") == 4  # 2 orders x 2 attempts
    late = judge(generations, "eq_evals/scripted-judge-late", tmp_path / "late", limit=1)
    [verdict] = sample_verdicts(late.samples[0])
    assert [c.attempts for c in verdict.calls] == [2, 2] and all(c.verdict for c in verdict.calls)


def test_judge_panel(generations: Path, tmp_path: Path) -> None:
    log = judge(generations, ["eq_evals/scripted-judge", "eq_evals/scripted-judge-first"], tmp_path, limit=2)
    [verdict] = sample_verdicts(log.samples[0])
    assert [j.judge for j in verdict.judgments] == ["eq_evals/scripted-judge", "eq_evals/scripted-judge-first"]


def test_adaptive_pairing_runs_rounds_from_the_ratings(generations: Path, tmp_path: Path) -> None:
    log = judge(generations, "eq_evals/scripted-judge", tmp_path, pairing="adaptive", max_rounds=4, pairs_per_round=2)
    assert log.status == "success", log.error
    phases = {sample_verdicts(s)[0].phase for s in log.samples}
    assert "seed" in phases and "smart_1" in phases
    # the scripted judge's ranking is stable after the first rating-driven round, so the run converges
    # (docs/ratings.md, '7. Pairing', ranking_unchanged: stop when the ranking is unchanged) well before max_rounds
    assert not any(p in phases for p in ("smart_3", "smart_4"))
    keys = [(s.metadata["item"], s.metadata["model_a"], s.metadata["model_b"]) for s in log.samples]
    assert len(keys) == len(set(keys)), "a pair is never judged twice on the same prompt"


def test_bad_inputs_name_the_logs(generations: Path, tmp_path: Path) -> None:
    other = generate(tmp_path / "other", task="facet_deepening", models=MODELS[:1])
    mixed = f"{next(generations.glob('*.eval'))},{next(other.glob('*.eval'))}"
    with pytest.raises(EqEvalsError, match="logs of different tasks cannot be compared"):
        judge(mixed, "eq_evals/scripted-judge", tmp_path / "j")
    short = generate(tmp_path / "short", models=MODELS[1:2])
    with pytest.raises(EqEvalsError, match="only one|at least two"):
        judge(short, "eq_evals/scripted-judge", tmp_path / "j2")
    fewer = inspect_eval(
        "eq_evals/facet_naturalness",
        model=MODELS[0],
        task_args={"language": "en"},
        limit=5,
        log_dir=str(tmp_path / "fewer"),
        display="none",
    )
    mismatch = f"{next((tmp_path / 'fewer').glob('*.eval'))},{next(short.glob('*.eval'))}"
    assert fewer
    with pytest.raises(EqEvalsError, match="logs cover different item sets"):
        judge(mismatch, "eq_evals/scripted-judge", tmp_path / "j3")
    [no_judge] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        task_args={"logs": str(generations), "pairing": "round_robin"},
        limit=1,
        log_dir=str(tmp_path / "j4"),
        display="none",
    )
    assert no_judge.status == "error" and "needs a judge" in no_judge.error.message


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"chain_of_thought_reasoning": "...", "overall_winner": "B+++"}', ("B", 3)),
        ('```json\n{"overall_winner": "A++"}\n```', ("A", 2)),
        ("Reasoning... Final: Response A+ ... wait, actually B++++++", ("B", 5)),
        ('{"overall_winner": "A"}', ("A", 0)),
        ('{"overall_winner": "A＋＋"}', ("A", 2)),  # full-width plus signs
        ('{"overall_winner": "B+++ (reduced from B++++ by the length penalty)"}', ("B", 3)),
        ("no verdict here", (None, 0)),
    ],
)
def test_verdict_parsing(reply: str, expected) -> None:
    v = parse_verdict(reply)
    assert (v.winner, v.margin) == expected


def test_active_pairing_spends_its_budget_on_informative_pairs(generations: Path, tmp_path: Path) -> None:
    log = judge(generations, "eq_evals/scripted-judge", tmp_path, pairing="active", batch=5, budget=24, stop="budget")
    assert log.status == "success", log.error
    phases = [sample_verdicts(s)[0].phase for s in log.samples]
    assert phases.count("connect") == 3  # a cycle through the three models connects the comparison graph
    assert any(p.startswith("active_") for p in phases)
    assert len(log.samples) == 24  # the budget, not round robin's 180
    keys = [(s.metadata["item"], s.metadata["model_a"], s.metadata["model_b"]) for s in log.samples]
    assert len(keys) == len(set(keys))


def test_active_pairing_is_the_default(generations: Path, tmp_path: Path) -> None:
    # issue 14: active pairing won both pairing benchmarks, so facet_pairwise uses it unless told otherwise
    [log] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": "eq_evals/scripted-judge"},
        task_args={"logs": str(generations)},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.eval.task_args.get("pairing", "active") == "active"
    phases = [sample_verdicts(s)[0].phase for s in log.samples]
    assert phases.count("connect") == 3 and all("pairing" in s.metadata for s in log.samples)
    assert len(log.samples) < 90  # fewer matchups than round robin's 90


def test_judge_calls_sit_under_their_order_spans_and_prompt_reads_cleanly(tmp_path: Path) -> None:
    from eq_evals.pairwise.judge import bare_user_input

    assert bare_user_input("User: I failed stats") == "I failed stats"
    assert bare_user_input("用户：期末考了第一") == "期末考了第一"
    assert bare_user_input("User: hi\nAssistant: hello\nUser: bye") == "User: hi\nAssistant: hello\nUser: bye"
    assert bare_user_input("I said User: no") == "I said User: no"

    inspect_eval(
        "eq_evals/facet_deepening",
        model=["eq_evals/scripted-echo", "eq_evals/scripted-oracle"],
        task_args={"language": "all"},
        limit=2,
        log_dir=str(tmp_path / "gen"),
        display="none",
    )
    [judged] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": "eq_evals/scripted-judge"},
        task_args={"logs": str(tmp_path / "gen")},
        log_dir=str(tmp_path / "judged"),
        display="none",
        limit=2,
    )
    assert judged.status == "success"
    from inspect_ai.log import resolve_sample_attachments

    for sample in judged.samples:
        sample = resolve_sample_attachments(sample)
        spans = {e.id: e for e in sample.events if type(e).__name__ == "SpanBeginEvent"}
        judge_spans = {i: e for i, e in spans.items() if e.type == "judge"}
        assert len(judge_spans) == 2  # one per order, for the one judge
        names = sorted(e.name for e in judge_spans.values())
        assert names[0].startswith("eq_evals/scripted-judge judges emotion_deepening: A=")
        scorer_span = next(e for e in spans.values() if e.type == "scorer")
        assert all(e.parent_id == scorer_span.id for e in judge_spans.values())
        models = [e for e in sample.events if type(e).__name__ == "ModelEvent"]
        assert len(models) == 2 and sorted(e.span_id for e in models) == sorted(judge_spans)
        for e in models:
            prompt = e.input[0].text
            assert prompt.startswith(("User input: ", "用户输入："))
            assert not prompt.startswith(("User input: User:", "用户输入：用户："))
