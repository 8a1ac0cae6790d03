"""Issue 12, items 1, 2 and 6: no number from a partial or broken run without saying so.

A really interrupted run (SIGINT to an Inspect process, as a user's Ctrl-C) and logs whose status and samples
are cut with ``write_eval_log`` (for judging logs, whose real interruption would be slow to set up) feed
``eq-evals ratings``, ``eq-evals sage leaderboard`` and ``facet_pairwise``: each skips them with a warning
naming the log, or with --allow-partial / -T allow_partial=true includes them marked partial."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.model import get_model
from support import cut, interrupt_a_run, judge_pairwise

import eq_evals._registry  # noqa: F401
from eq_evals import logcheck
from eq_evals.cli import main as cli
from eq_evals.errors import EqEvalsError
from eq_evals.report import run as ratings

MODELS = ["eq_evals/scripted-echo", "eq_evals/scripted-malformed", "eq_evals/scripted-oracle"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory, benchmark_logs, judged_by_one_judge: Path) -> dict[str, Path]:
    """The session's FACET interaction generations and one judge's verdicts on them (tests/conftest.py), and this
    module's own objective logs: a complete facet_hidden run of oracle and half, and a really interrupted run of
    wrong on the same task and items (the tests compare the three, so they cannot be the session's
    facet_objective logs)."""
    root = tmp_path_factory.mktemp("partial")
    inspect_eval(
        "eq_evals/facet_hidden",
        model=["eq_evals/scripted-oracle", "eq_evals/scripted-half"],
        task_args={"language": "en"},
        limit=20,
        log_dir=str(root / "objective"),
        display="none",
    )
    cancelled = interrupt_a_run(root / "cancelled")
    return {
        "gen": benchmark_logs.generations_dir,
        "judged": judged_by_one_judge,
        "objective": root / "objective",
        "cancelled": cancelled,
    }


def test_a_real_interrupted_run_is_recognised_as_partial(logs: dict[str, Path]) -> None:
    log, info = logcheck.read_checked(str(logs["cancelled"]))
    assert log.status == "cancelled"
    assert not info.complete and info.planned == 60
    assert 0 < info.present - info.errored < 60
    assert info.state().startswith("partial: status cancelled, ") and "of 60 samples completed" in info.state()


def test_ratings_skip_a_cancelled_objective_log_with_a_warning(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert cli(["ratings", str(logs["objective"]), str(logs["cancelled"]), "--out", str(tmp_path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert f"skipped {logs['cancelled']}" in captured.err and "status cancelled" in captured.err
    result = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))
    assert sorted(result["objective"]["en"]) == ["eq_evals/scripted-half", "eq_evals/scripted-oracle"]
    assert result["partial_logs"] == [] and any("status cancelled" in w for w in result["warnings"])
    assert "skipped" in (tmp_path / "leaderboard.md").read_text(encoding="utf-8")


def test_ratings_with_allow_partial_mark_the_cancelled_model_partial(logs: dict[str, Path], tmp_path: Path) -> None:
    result = ratings(
        [str(logs["objective"]), str(logs["cancelled"])], str(tmp_path), progress=False, allow_partial=True
    )
    wrong = result["objective"]["en"]["eq_evals/scripted-wrong"]
    assert wrong["partial_run"] is True
    assert "partial_run" not in result["objective"]["en"]["eq_evals/scripted-oracle"]
    assert [p["path"] for p in result["partial_logs"]] == [str(logs["cancelled"])]
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    assert "| eq_evals/scripted-wrong (partial) |" in md and "| eq_evals/scripted-oracle |" in md


def test_a_partial_log_superseded_by_a_complete_rerun_is_not_marked(logs: dict[str, Path], tmp_path: Path) -> None:
    inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-wrong",
        task_args={"language": "en"},
        limit=20,
        log_dir=str(tmp_path / "rerun"),
        display="none",
    )
    result = ratings(
        [str(logs["cancelled"]), str(tmp_path / "rerun")], str(tmp_path / "out"), progress=False, allow_partial=True
    )
    assert "partial_run" not in result["objective"]["en"]["eq_evals/scripted-wrong"]  # every kept score is newer
    assert result["partial_logs"]  # but the user is still told the partial log was read


def test_ratings_on_a_cancelled_judging_log(logs: dict[str, Path], tmp_path: Path) -> None:
    cancelled = cut(logs["judged"], tmp_path / "cut" / "judged.eval", keep=4)
    with pytest.raises(EqEvalsError, match=r"nothing to rate(.|\n)*skipped .*judged.eval .*status cancelled"):
        ratings([str(cancelled)], str(tmp_path / "out"), progress=False)
    result = ratings([str(cancelled)], str(tmp_path / "out"), bootstrap=20, progress=False, allow_partial=True)
    assert result["tables"] and all(row["partial"] for row in result["tables"])
    rows = list(csv.DictReader((tmp_path / "out" / "leaderboard.csv").open(encoding="utf-8")))
    assert rows and {r["partial"] for r in rows} == {"True"}
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "(partial)" in md and "PARTIAL" in md
    # the complete log is not marked
    complete = ratings([str(logs["judged"])], str(tmp_path / "full"), bootstrap=20, progress=False)
    assert not any(row["partial"] for row in complete["tables"])


def test_pairwise_skips_a_cancelled_generation_log(
    logs: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gen = tmp_path / "gen"
    gen.mkdir()
    for info in list_eval_logs(str(logs["gen"])):
        path = Path(info.name.removeprefix("file://"))
        log = read_eval_log(str(path), header_only=True)
        if log.eval.model == "eq_evals/scripted-echo":
            cut(path, gen / path.name, keep=3)
        else:
            (gen / path.name).write_bytes(path.read_bytes())
    log = judge_pairwise(gen, "eq_evals/scripted-judge", tmp_path / "j1", pairing="round_robin")
    assert log.status == "success"
    models = {m for s in log.samples for m in (s.metadata["model_a"], s.metadata["model_b"])}
    assert models == {"eq_evals/scripted-malformed", "eq_evals/scripted-oracle"}
    assert any("skipped" in r.getMessage() and "status cancelled" in r.getMessage() for r in caplog.records)
    log = judge_pairwise(gen, "eq_evals/scripted-judge", tmp_path / "j2", allow_partial=True, pairing="round_robin")
    counts: dict[str, int] = {}
    for s in log.samples:
        for m in (s.metadata["model_a"], s.metadata["model_b"]):
            counts[m] = counts.get(m, 0) + 1
    assert set(counts) == set(MODELS) and counts["eq_evals/scripted-echo"] < counts["eq_evals/scripted-oracle"]
    marked = {s.id for s in log.samples if s.metadata.get("partial_generations") == ["eq_evals/scripted-echo"]}
    assert marked == {
        s.id for s in log.samples if "eq_evals/scripted-echo" in (s.metadata["model_a"], s.metadata["model_b"])
    }
    # the judging log is complete, but its leaderboard is built from a partial generation log: marked partial
    result = ratings([log.location], str(tmp_path / "out"), bootstrap=20, progress=False)
    assert result["tables"] and all(row["partial"] for row in result["tables"])
    assert logcheck.check(read_eval_log(log.location)).partial_inputs == len(marked) > 0


def test_pairwise_with_a_model_that_failed_every_prompt(tmp_path: Path) -> None:
    inspect_eval(
        "eq_evals/facet_naturalness",
        model=["eq_evals/scripted-oracle", "eq_evals/scripted-fail"],
        task_args={"language": "en"},
        limit=3,
        log_dir=str(tmp_path / "gen"),
        display="none",
    )
    with pytest.raises(EqEvalsError) as ex:  # raised while the task is built: nothing was sent to the judge
        judge_pairwise(tmp_path / "gen", "eq_evals/scripted-judge", tmp_path / "j")
    message = str(ex.value)
    assert "at least two models" in message and "skipped" in message and "status error" in message
    assert "scripted-fail" in message and "The specified dataset is empty" not in message
    with pytest.raises(EqEvalsError, match="no usable response.*eq_evals/scripted-fail: 3 of 3 samples failed"):
        judge_pairwise(tmp_path / "gen", "eq_evals/scripted-judge", tmp_path / "j", allow_partial=True)


def test_sage_leaderboard_with_allow_partial_marks_the_row(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    roles = {"simulated_user": get_model("eq_evals/scripted-sage-user", changes=10)}
    [log] = inspect_eval(
        "eq_evals/sage",
        model="eq_evals/scripted-echo",
        model_roles=roles,
        log_dir=str(tmp_path / "s"),
        display="none",
        limit=2,
    )
    cut(Path(log.location), tmp_path / "cut" / "sage.eval", keep=1)
    assert cli(["sage", "leaderboard", str(tmp_path / "cut")]) == 2
    assert "skipped" in capsys.readouterr().err
    assert cli(["sage", "leaderboard", str(tmp_path / "cut"), "--allow-partial"]) == 0
    out = capsys.readouterr().out
    assert "eq_evals/scripted-echo (partial)" in out and "warning: included" in out
    assert cli(["sage", "leaderboard", str(tmp_path / "cut"), "--allow-partial", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["partial"] is True


def test_sage_with_every_sample_unscored_reports_no_interval(tmp_path: Path) -> None:
    roles = {"simulated_user": get_model("eq_evals/scripted-sage-user", changes=5, garble="emotion", garble_at=1)}
    [log] = inspect_eval(
        "eq_evals/sage",
        model="eq_evals/scripted-echo",
        model_roles=roles,
        log_dir=str(tmp_path),
        display="none",
        limit=2,
        task_args={"max_parse_retries": 0},
    )
    assert log.status == "success"
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert math.isnan(metrics["mean"])
    assert math.isnan(metrics["stderr"]) and math.isnan(metrics["lower"]) and math.isnan(metrics["upper"])
    info = logcheck.check(read_eval_log(log.location), log.location)
    assert info.n_unscored == 2 and set(info.unscored) == {("sage_scorer", "simulator_unparseable")}


def test_doctor_reports_state_unscored_reasons_and_comparability(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert cli(["doctor", str(logs["objective"])]) == 0
    out = capsys.readouterr().out
    from eq_evals.engine import register_all

    version = register_all()["facet_hidden"]().version  # the declaration's (tasks/facet/facet_hidden.yaml)
    assert "2 log(s): 2 complete, 0 partial" in out and f"task facet_hidden (version {version})" in out
    assert "facet_objective: 60 scored, 0 unscored" in out
    assert cli(["check", str(logs["objective"]), str(logs["cancelled"])]) == 1
    out = capsys.readouterr().out
    assert "PARTIAL (status cancelled, " in out and "1 partial" in out and "inspect eval-retry" in out
    # a rerun with other arguments cannot be compared; an all-unscored SAGE log shows its reasons
    inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        task_args={"language": "zh"},
        limit=2,
        log_dir=str(tmp_path / "zh"),
        display="none",
    )
    roles = {"simulated_user": get_model("eq_evals/scripted-sage-user", changes=5, garble="emotion", garble_at=1)}
    inspect_eval(
        "eq_evals/sage",
        model="eq_evals/scripted-echo",
        model_roles=roles,
        log_dir=str(tmp_path / "sage"),
        display="none",
        limit=2,
        task_args={"max_parse_retries": 0},
    )
    assert cli(["doctor", str(logs["objective"]), str(tmp_path / "zh"), str(tmp_path / "sage"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert any("facet_hidden: logs differ in task arguments" in n for n in report["comparability"])
    assert any("facet_hidden: logs differ in item set" in n for n in report["comparability"])
    [sage] = [d for d in report["logs"] if d["task"] == "sage"]
    assert sage["complete"] and sage["unscored"] == [
        {"scorer": "sage_scorer", "reason": "simulator_unparseable", "count": 2}
    ]
    assert report["summary"]["unscored_scores"] == 2


def test_ratings_say_how_many_objective_answers_were_unscored(logs: dict[str, Path], tmp_path: Path) -> None:
    from inspect_ai.scorer import Score

    [info] = [
        i
        for i in list_eval_logs(str(logs["objective"]))
        if read_eval_log(i, header_only=True).eval.model == "eq_evals/scripted-oracle"
    ]
    log = read_eval_log(info)
    for sample in log.samples[:2]:
        sample.scores["facet_objective"] = Score.unscored(reason="no_rule", explanation="no scoring rule")
    write_eval_log(log, str(tmp_path / "in" / "oracle.eval"))
    result = ratings([str(tmp_path / "in")], str(tmp_path / "out"), progress=False)
    assert result["objective"]["en"]["eq_evals/scripted-oracle"]["hidden_emotion"] == 100.0
    [note] = [n for n in result["objective_notes"] if "unscored" in n]
    assert "eq_evals/scripted-oracle en/hidden_emotion: 2 of 60" in note
    assert "unscored objective answers" in (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")


def test_doctor_shows_the_data_version_and_compares_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from support import shared_file

    full = shared_file("longemotion", "Emotion_Detection_backup.jsonl")
    cut_copy = tmp_path / "cut" / full.name
    cut_copy.parent.mkdir()
    cut_copy.write_text("\n".join(full.read_text(encoding="utf-8").splitlines()[:50]) + "\n", encoding="utf-8")
    for where, data_dir in (("full", full.parent), ("cut", cut_copy.parent)):
        inspect_eval(
            "eq_evals/longemotion_detection",
            model="eq_evals/scripted-le_oracle",
            limit=2,
            epochs=1,
            task_args={"data_dir": str(data_dir), "variant": "original"},
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    assert cli(["doctor", str(tmp_path / "logs")]) == 1
    out = capsys.readouterr().out
    assert "data: file=Emotion_Detection_backup.jsonl origin=data_dir" in out
    assert "records=136 release_records=136" in out and "records=50 release_records=136" in out
    assert "longemotion_detection: logs differ in data versions" in out


def test_gap_rows_built_on_partial_data_are_marked() -> None:
    from eq_evals.facet.leaderboard import Objective, mark_partial_gap

    gap = {
        "_cohort": {"en": ["a", "b"]},
        "en": {"a": {"delta_z": 0.1}, "b": {"delta_z": -0.1}},
        "zh": {"a": {"delta_z": 0.2}},
    }
    collected = Objective(partial={("b", "en")})
    mark_partial_gap(gap, collected)
    assert gap["en"]["b"]["partial_run"] and "partial_run" not in gap["en"]["a"] and "partial_run" not in gap["zh"]["a"]
    collected = Objective(partial_groups={("zh", "overall")})
    mark_partial_gap(gap, collected)
    assert gap["zh"]["a"]["partial_run"] and "partial_run" not in gap["en"]["a"]


def test_agreement_skips_or_marks_a_cancelled_judging_log(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from eq_evals.agreement_cli import agreement

    cancelled = cut(logs["judged"], tmp_path / "cut" / "judged.eval", keep=4)
    ids = [str(s.id) for s in read_eval_log(str(cancelled)).samples]
    human = tmp_path / "human.csv"
    human.write_text("sample_id,rater,label\n" + "".join(f"{i},r1,A\n" for i in ids), encoding="utf-8")
    with pytest.raises(EqEvalsError, match=r"no complete judgment logs:\n.*skipped .*judged.eval"):
        agreement([str(cancelled)], str(human))
    report = agreement([str(cancelled)], str(human), allow_partial=True)
    assert report["partial_logs"] == [str(cancelled)] and "included" in report["warnings"][0]
    assert cli(["agreement", str(cancelled), "--human", str(human), "--allow-partial"]) == 0
    captured = capsys.readouterr()
    assert "PARTIAL: verdicts from logs that are not complete" in captured.out and "warning: included" in captured.err
