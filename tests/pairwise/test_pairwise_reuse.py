"""No judge call paid twice: verdicts in earlier judging logs are reused (issue 14), counted on the real
Inspect path with the scripted judge (every judge call is a model event in the log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from support import record_loop_reentries

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.verdict import sample_verdicts

TWO = ["eq_evals/scripted-echo", "eq_evals/scripted-oracle"]
JUDGE = "eq_evals/scripted-judge"
PROMPTS = 20  # of the 60 naturalness prompts: 60 matchups for three models, what the active-pairing budget needs


def generate(log_dir: Path, models) -> Path:
    logs = inspect_eval(
        "eq_evals/facet_naturalness",
        model=list(models),
        task_args={"language": "en"},
        limit=PROMPTS,
        log_dir=str(log_dir),
        display="none",
    )
    assert all(log.status == "success" for log in logs)
    return log_dir


def judge(logs: str, out: Path, **kw):
    [log] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": JUDGE},
        task_args={"logs": logs, "pairing": "round_robin", **kw.pop("task_args", {})},
        log_dir=str(out),
        display="none",
        **kw,
    )
    assert log.status == "success"
    return log


def judge_calls(log) -> int:
    return sum(1 for s in log.samples for e in s.events if e.event == "model")


def verdicts(log) -> dict:
    return {
        s.id: (s.scores["pairwise_judge"].value, [c.verdict for v in sample_verdicts(s) for c in v.calls])
        for s in log.samples
    }


@pytest.fixture(scope="module")
def gens(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    two = generate(tmp_path_factory.mktemp("gen2"), TWO)
    third = generate(tmp_path_factory.mktemp("gen3"), ["eq_evals/scripted-malformed"])
    return two, third


def test_rerun_after_a_crash_and_adding_a_model_pay_only_new_calls(gens, tmp_path: Path) -> None:
    two, third = gens
    # a run that stopped after 10 matchups (as a crashed run leaves its finished samples)
    partial = judge(str(two), tmp_path / "partial", limit=10)
    assert judge_calls(partial) == 2 * 10
    full = judge(str(two), tmp_path / "full", task_args={"reuse": str(tmp_path / "partial")})
    n = len(full.samples)
    assert n == PROMPTS and judge_calls(full) == 2 * (n - 10)  # a matchup per prompt, one pair of models
    reused = [c for s in full.samples for v in sample_verdicts(s) for c in v.calls if c.reused_from]
    assert len(reused) == 20 and all(c.reused_from.startswith(str(tmp_path / "partial")) for c in reused)
    # identical verdicts to a run that paid for every call
    fresh = judge(str(two), tmp_path / "fresh")
    assert judge_calls(fresh) == 2 * n and verdicts(fresh) == verdicts(full)
    # the same run again: nothing to pay
    again = judge(str(two), tmp_path / "again", task_args={"reuse": str(tmp_path / "full")})
    assert judge_calls(again) == 0 and verdicts(again) == verdicts(fresh)
    # add a third model: only its matchups are judged
    grown = judge(f"{two},{third}", tmp_path / "grown", task_args={"reuse": f"{tmp_path / 'full'}"})
    new = [s for s in grown.samples if "eq_evals/scripted-malformed" in s.id]
    assert judge_calls(grown) == 2 * len(new) and len(grown.samples) == n + len(new)


def test_reuse_keys_on_the_judge_and_the_prompt(gens, tmp_path: Path) -> None:
    two, _ = gens
    judge(str(two), tmp_path / "a", limit=4)
    # another judge model: its calls are different calls
    [other] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": "eq_evals/scripted-judge-first"},
        task_args={"logs": str(two), "pairing": "round_robin", "reuse": str(tmp_path / "a")},
        log_dir=str(tmp_path / "b"),
        display="none",
        limit=4,
    )
    assert judge_calls(other) == 8
    # the prompt shows lengths in another unit: a different prompt, so the call is paid again
    unit = judge(
        str(two), tmp_path / "c", limit=4, task_args={"reuse": str(tmp_path / "a"), "length_unit": "reference"}
    )
    assert judge_calls(unit) == 8


def test_reuse_rejects_logs_of_other_tasks(gens, tmp_path: Path) -> None:
    two, _ = gens
    with pytest.raises(EqEvalsError, match="facet_naturalness, not of a judging task"):
        judge(str(two), tmp_path / "x", limit=2, task_args={"reuse": str(two)})


def test_active_pairing_stops_when_settled_and_keeps_its_state_in_the_log(gens, tmp_path: Path, monkeypatch) -> None:
    two, third = gens
    logs = f"{two},{third}"
    # the task reads the generation logs while Inspect builds it on its loop, and the hooks rewrite the log at the
    # task's end and count unscored samples at the run's end: none of it re-enters the running loop
    reentries = record_loop_reentries(monkeypatch)
    settled = judge(logs, tmp_path / "s", task_args={"pairing": "active", "batch": 3, "budget": 60})
    spent = judge(logs, tmp_path / "b", task_args={"pairing": "active", "batch": 3, "budget": 60, "stop": "budget"})
    assert len(spent.samples) == 60
    assert 3 <= len(settled.samples) < 60
    # the log shows the state each batch was chosen from: the ranking settling before the stop
    states = [s.metadata["pairing"] for s in settled.samples]
    last = max(states, key=lambda st: st["round"])
    assert last["matchups_before"] < len(settled.samples) <= last["matchups_before"] + 3  # one batch of 3
    assert all("expected_misordered_pairs" in st for st in states if st["round"] > 1)
    # the stop itself is in the log's metadata, added through Inspect's log edits (with provenance)
    for log, reason in ((settled, "settled"), (spent, "budget")):
        reread = read_eval_log(log.location, header_only=True)
        report = reread.metadata["active_pairing"]
        [(dim, info)] = report["dimensions"].items()
        assert info["reason"] == reason and info["matchups"] == len(log.samples) and info["budget"] == 60
        assert report["stop_rule"] == ("settled" if reason == "settled" else "budget")
        assert reread.log_updates and reread.log_updates[-1].provenance.author == "eq_evals"
        assert len(read_eval_log(log.location).samples) == len(log.samples)  # nothing lost in the rewrite
    assert report["dimensions"][dim]["matchups"] == 60 > len(settled.samples)
    assert reentries == []
    # the first batches are the same matchups whatever the stopping rule
    first = [s.id for s in settled.samples]
    assert set(first) <= {s.id for s in spent.samples}


def test_settle_rule_on_the_source_directly(gens) -> None:
    """ActiveSource stops a dimension when the order is unchanged and the expected mis-orderings are low,
    and records why; with stop=budget it only stops at the budget."""
    import asyncio

    from eq_evals.pairwise.logs import load_generations
    from eq_evals.pairwise.matchups import ActiveSource, Pool
    from eq_evals.ratings import Comparison

    two, third = gens
    pool = Pool(load_generations(f"{two},{third}"), "en", None)
    ranks = {m: i for i, m in enumerate(pool.models)}

    def run(stop: str) -> ActiveSource:
        src = ActiveSource(pool, batch=3, budget=40, seed=1, stop=stop)
        batch = src.initial_samples()
        while batch:
            for s in batch:  # a perfectly consistent judge: the earlier model in `ranks` always wins by 3
                md = s.metadata
                a_wins = ranks[md["model_a"]] < ranks[md["model_b"]]
                src.comparisons[md["dimension"]].append(
                    Comparison(
                        md["model_a"], md["model_b"], 1.0 if a_wins else 0.0, 3, md["item"], dimension=md["dimension"]
                    )
                )
            batch = asyncio.run(src.next_samples())
        return src

    settled, spent = run("settled"), run("budget")
    [(dim, info)] = settled.stopped.items()
    assert info["reason"] == "settled" and info["matchups"] < 40 and info["order"] == pool.models
    assert info["expected_misordered_pairs"] < 1.0
    assert spent.stopped[dim]["reason"] == "budget" and spent.stopped[dim]["matchups"] == 40
