"""Issue 19, findings 3 and 4: cancelled logs and ``inspect eval-retry`` chains.

Finding 3: ``eq-evals pace weights`` fits Causal-PACE weights from a cancelled battle log without a word, and on a
folder holding a cancelled log and its retry it counts the battles of both (the retry repeats the original's
finished samples): 10 records where the clean run has 6. Honest: a cancelled log is refused (or included only on
request, marked), and a retry chain counts once, as ``eq-evals ratings`` does (README, "Leaderboards from logs").

Finding 4: a retry that failed again (the outage goes on: every sample errored, status success, no results) is
taken as complete: the original is left out "because its retry is complete" and ``eq-evals doctor`` says the retry
"was finished by" itself and exits 0. Honest: neither log is complete.

The cancelled battle log is cut from a complete one with ``write_eval_log`` (the recipe of
tests/core/test_partial_runs.py for judging logs); every retry runs through the real ``inspect eval-retry`` CLI.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from faultkit import inspect_cli, inspect_eval_cli, logs_in, run_cli
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from support import cut

import eq_evals._registry  # noqa: F401


@pytest.fixture(scope="module")
def battles(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A clean PACE battle log judged with -T overall=true (3 battles, 6 records) and a folder holding
    a cancelled copy of it (2 battles) together with that copy's ``inspect eval-retry``."""
    root = tmp_path_factory.mktemp("pace_retry")
    inspect_eval(
        "eq_evals/pace",
        model=["eq_evals/scripted-echo", "eq_evals/scripted-oracle"],
        model_roles={"grader": "eq_evals/scripted-pace-agent"},
        task_args={"language": "en"},
        limit=3,
        log_dir=str(root / "gen"),
        display="none",
    )
    [clean] = inspect_eval(
        "eq_evals/pace_pairwise",
        model=None,
        model_roles={"grader": "eq_evals/scripted-pace-agent"},
        task_args={"logs": str(root / "gen"), "overall": True},
        log_dir=str(root / "clean"),
        display="none",
    )
    assert clean.status == "success" and len(clean.samples) == 3
    cancelled = cut(Path(clean.location), root / "chain" / "battles_cut.eval", keep=2)
    proc = inspect_cli("eval-retry", str(cancelled), "--log-dir", str(root / "chain"), "--display", "none")
    chain = logs_in(root / "chain")
    assert len(chain) == 2, f"eval-retry wrote no log: {proc.stderr[-2000:]}"
    retry = next(p for p in chain if p != cancelled)
    assert read_eval_log(str(retry), header_only=True).status == "success"
    return {"root": root, "clean": Path(clean.location), "cancelled": cancelled, "retry": retry}


def weights(capsys: pytest.CaptureFixture, out: Path, *data: Path) -> tuple[int, str, dict | None]:
    code, stdout, stderr = run_cli(capsys, "pace", "weights", *map(str, data), "--bootstrap", "0", "--out", str(out))
    return code, stdout + stderr, json.loads(out.read_text(encoding="utf-8")) if code == 0 and out.exists() else None


def test_pace_weights_from_the_clean_battle_log(battles: dict, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, said, result = weights(capsys, tmp_path / "w.json", battles["clean"])
    assert code == 0, said
    assert result["n_records"] == 6  # 3 battles, 2 responses each


def test_pace_weights_refuse_or_mark_a_cancelled_battle_log(
    battles: dict, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    code, said, result = weights(capsys, tmp_path / "w.json", battles["cancelled"])
    assert str(battles["cancelled"]) in said and re.search(r"cancelled|partial|not complete", said, re.IGNORECASE), said
    if code == 0:  # included: then the weights say they come from a partial log
        assert "partial" in json.dumps(result).lower()


def test_pace_weights_count_a_retry_chain_once(battles: dict, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    _, _, clean = weights(capsys, tmp_path / "clean.json", battles["clean"])
    code, said, result = weights(capsys, tmp_path / "chain.json", battles["cancelled"].parent)
    assert code == 0, said
    assert result["n_records"] == clean["n_records"] == 6
    assert result["weights"] == clean["weights"]


@pytest.fixture(scope="module")
def failed_twice(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A FACET run during an outage (every prompt fails: status error) and its ``inspect eval-retry
    --no-fail-on-error`` while the outage goes on (every sample errored again: status success, no results)."""
    root = tmp_path_factory.mktemp("failed_twice")
    marker = root / "outage"
    marker.touch()
    first = inspect_eval_cli(
        root / "logs",
        "eq_evals/facet_hidden",
        "--model",
        "eq_evals/scripted-oracle",
        "-M",
        "fail_every=1",
        "-M",
        f"fail_while={marker}",
        "--limit",
        "2",
        "--epochs",
        "1",
    )
    assert first.status == "error"
    proc = inspect_cli(
        "eval-retry", first.location, "--no-fail-on-error", "--log-dir", str(root / "logs"), "--display", "none"
    )
    [retry] = [p for p in logs_in(root / "logs") if str(p) != first.location] or [None]
    assert retry is not None, proc.stderr[-2000:]
    again = read_eval_log(str(retry))
    assert again.status == "success" and again.results is None
    assert all(s.error is not None for s in again.samples)
    return {"folder": root / "logs", "first": first.location, "retry": str(retry)}


def test_a_retry_that_failed_again_is_not_complete(
    failed_twice: dict, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    code, out, _ = run_cli(capsys, "doctor", str(failed_twice["folder"]))
    assert "finished by its retry" not in out, out
    assert code == 1  # two partial logs: not ok
    code, out, _ = run_cli(capsys, "doctor", str(failed_twice["folder"]), "--json")
    report = json.loads(out)
    assert report["retried"] == {} and not report["ok"]
    code, out, err = run_cli(
        capsys, "ratings", str(failed_twice["folder"]), "--allow-partial", "--quiet", "--out", str(tmp_path)
    )
    assert f"its retry {failed_twice['retry']} is complete" not in out + err
