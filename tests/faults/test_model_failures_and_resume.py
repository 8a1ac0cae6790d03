"""Fault injection (issue 12): every benchmark run with failing, garbling and slow scripted models and with an
interrupted run, resumed with ``inspect eval-retry``. Whatever happens, no sample is lost or counted twice, the
resumed log matches an undisturbed run, and every unscored sample says why.

Failures are an "outage" that ends: the scripted model raises for about half the prompts (always the same ones,
``-M fail_every=2``) while a marker file exists (``-M fail_while=PATH``); the test deletes the file and retries.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model
from support import interrupt_a_run

import eq_evals._registry  # noqa: F401
from eq_evals import doctor, logcheck
from eq_evals.sage import leaderboard as sage_leaderboard

LE_ROLES = {"grader": "eq_evals/scripted-le_judge", "helper": "eq_evals/scripted-le_helper"}


def planned(log: EvalLog) -> set[tuple[str, int]]:
    epochs = log.eval.config.epochs or 1
    return {(str(i), e) for i in log.eval.dataset.sample_ids for e in range(1, epochs + 1)}


def assert_accounted(log: EvalLog) -> logcheck.LogCheck:
    """Every planned (sample, epoch) exactly once, none errored, every unscored score with a reason."""
    keys = [(str(s.id), s.epoch) for s in log.samples]
    assert len(keys) == len(set(keys)), "a sample is counted twice"
    assert set(keys) == planned(log), f"lost: {sorted(planned(log) - set(keys))}"
    info = logcheck.check(log, log.location)
    assert info.complete, info.state()
    assert all(reason != "(no reason given)" for _, reason in info.unscored), info.unscored
    for sample in log.samples:
        for score in (sample.scores or {}).values():
            if logcheck.is_unscored(score):
                assert score.reason or score.explanation, f"sample {sample.id}: unscored without a reason"
    main = log.results.scores[0]
    assert main.scored_samples + main.unscored_samples == len(log.eval.dataset.sample_ids)
    return info


def values(log: EvalLog) -> dict[tuple[str, int], Any]:
    return {(str(s.id), s.epoch): {k: v.value for k, v in (s.scores or {}).items()} for s in log.samples}


def same(a: dict, b: dict) -> bool:
    def norm(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return "nan"
        return {k: norm(v) for k, v in x.items()} if isinstance(x, dict) else x

    return norm(a) == norm(b)


CASES = {
    "facet": dict(
        task="eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        roles=None,
        task_args={"language": "en"},
        limit=6,
        epochs=2,
    ),
    "sage": dict(
        task="eq_evals/sage",
        model="eq_evals/scripted-echo",
        roles={"simulated_user": ("eq_evals/scripted-sage-user", {"changes": 10})},
        task_args={},
        limit=2,
        epochs=1,
    ),
    "longemotion": dict(
        task="eq_evals/longemotion_summary",
        model="eq_evals/scripted-le_oracle",
        roles={k: (v, {}) for k, v in LE_ROLES.items()},
        task_args={"fixtures": True, "retriever": "bm25"},
        limit=3,
        epochs=1,
    ),
}


def run(case: dict, log_dir: Path, **model_args: Any) -> EvalLog:
    roles = {r: get_model(m, **a) for r, (m, a) in case["roles"].items()} if case["roles"] else None
    [log] = inspect_eval(
        case["task"],
        model=get_model(case["model"], **model_args),
        model_roles=roles,
        task_args=case["task_args"],
        limit=case["limit"],
        epochs=case["epochs"],
        log_dir=str(log_dir),
        display="none",
    )
    return log


@pytest.mark.parametrize("benchmark", sorted(CASES))
def test_failing_model_then_eval_retry_loses_and_doubles_nothing(benchmark: str, tmp_path: Path) -> None:
    case = CASES[benchmark]
    clean = run(case, tmp_path / "clean")
    assert_accounted(clean)
    outage = tmp_path / "outage"
    outage.touch()
    failed = run(case, tmp_path / "failed", fail_every=2, fail_while=str(outage))
    info = logcheck.check(failed, failed.location)
    assert failed.status == "error" and not info.complete and "ScriptedFailure" in info.state() + failed.error.message
    outage.unlink()  # the outage ends
    [retried] = eval_retry(failed.location, log_dir=str(tmp_path / "failed"), display="none")
    assert retried.status == "success"
    assert_accounted(retried)
    assert same(values(retried), values(clean))
    # the folder now holds the failed log and its retry: every command uses the retry, without a skip warning
    selection = logcheck.select([failed.location, retried.location])
    assert [i.path for _, i in selection.kept] == [retried.location]
    assert selection.warnings == [
        f"note: left out {failed.location} (not complete): the same run (task id "
        f"{failed.eval.task_id}) is read from {retried.location}, its completed retry"
    ]
    assert doctor.diagnose([str(tmp_path / "failed")])["ok"]
    if benchmark == "sage":
        rows = sage_leaderboard.collect([str(tmp_path / "failed")])
        assert len(rows) == 1 and rows[0].n + rows[0].unscored == 2 and not rows[0].partial
        assert not [w for w in rows.warnings if "skipped" in w]


def test_slow_model_gives_the_same_scores(tmp_path: Path) -> None:
    case = CASES["facet"]
    fast, slow = run(case, tmp_path / "fast"), run(case, tmp_path / "slow", delay=0.05)
    assert_accounted(slow)
    assert same(values(slow), values(fast))


@pytest.mark.parametrize(
    "benchmark,judge,reason",
    [
        (
            "sage",
            ("eq_evals/scripted-sage-user", {"changes": 5, "garble": "emotion", "garble_at": 1}),
            "simulator_unparseable",
        ),
        ("longemotion", ("eq_evals/scripted-le_judge_garbage", {}), "grader_failed"),
    ],
)
def test_garbling_helper_models_leave_samples_unscored_with_a_reason(
    benchmark: str, judge: tuple, reason: str, tmp_path: Path
) -> None:
    case = dict(CASES[benchmark])
    role = "simulated_user" if benchmark == "sage" else "grader"
    case["roles"] = {**case["roles"], role: judge}
    log = run(case, tmp_path)
    info = assert_accounted(log)
    assert info.n_unscored == len(log.samples) > 0 and {r for _, r in info.unscored} == {reason}


def test_garbling_and_failing_judge_in_pairwise_judging(tmp_path: Path) -> None:
    inspect_eval(
        "eq_evals/facet_naturalness",
        model=["eq_evals/scripted-echo", "eq_evals/scripted-oracle"],
        task_args={"language": "en"},
        limit=4,
        log_dir=str(tmp_path / "gen"),
        display="none",
    )

    def judge(grader: Any, where: str) -> EvalLog:
        [log] = inspect_eval(
            "eq_evals/facet_pairwise",
            model=None,
            model_roles={"grader": grader},
            task_args={"logs": str(tmp_path / "gen"), "pairing": "round_robin"},
            log_dir=str(tmp_path / where),
            display="none",
        )
        return log

    info = assert_accounted(judge("eq_evals/scripted-judge-garbled", "garbled"))
    assert info.n_unscored == 4 and all(r != "(no reason given)" for _, r in info.unscored)
    clean = judge("eq_evals/scripted-judge", "clean")
    assert_accounted(clean)
    outage = tmp_path / "outage"
    outage.touch()
    failed = judge(get_model("eq_evals/scripted-judge", fail_every=2, fail_while=str(outage)), "failed")
    assert not logcheck.check(failed, failed.location).complete
    outage.unlink()
    [retried] = eval_retry(failed.location, log_dir=str(tmp_path / "failed"), display="none")
    assert_accounted(retried)
    assert same(values(retried), values(clean))


def test_interrupted_run_resumed_with_eval_retry(tmp_path: Path) -> None:
    t0 = time.time()
    cancelled = interrupt_a_run(tmp_path / "run", limit=6)
    t1 = time.time()
    before = read_eval_log(str(cancelled))
    assert before.status == "cancelled"
    done = {(str(s.id), s.epoch) for s in before.samples if s.error is None and s.scores}
    [retried] = eval_retry(str(cancelled), log_dir=str(tmp_path / "run"), max_samples=8, display="none")
    print(f"interrupted run {t1 - t0:.1f} s, retry {time.time() - t1:.1f} s")
    assert retried.status == "success"
    assert_accounted(retried)
    assert done <= {(str(s.id), s.epoch) for s in retried.samples}
    assert len(retried.samples) == 18
