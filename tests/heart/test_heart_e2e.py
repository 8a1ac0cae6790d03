"""HEART end to end through Inspect: scripted supporters, the reference, a scripted judge ensemble, round-robin by
logs, `eq-evals ratings` writing the HEART leaderboard, and the failure paths (garbled judge, empty reply,
same-family judge, re-judging an existing log)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai.log import read_eval_log
from support import record_loop_reentries

import eq_evals._registry  # noqa: F401
from eq_evals.cli import main as cli_main
from eq_evals.heart.leaderboard import score_records

FIXTURE = str(Path(__file__).resolve().parents[1] / "fixtures" / "heart_histories.jsonl")
PANEL = ["eq_evals/scripted-hjudge", "eq_evals/scripted-hjudge-mild", "eq_evals/scripted-heart-judge"]
SYSTEMS = ["heart-warm", "heart-plain", "heart-terse"]


def run(model: str, log_dir: Path, grader=PANEL, **task_args):
    [log] = inspect_eval(
        "eq_evals/heart",
        model=f"eq_evals/scripted-{model}",
        model_roles={"grader": grader},
        task_args={"source": FIXTURE, **task_args},
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory: pytest.TempPathFactory) -> list:
    """Each new system is judged against the reference and the logs of the systems before it."""
    log_dir = tmp_path_factory.mktemp("heart_logs")
    logs = []
    for system in SYSTEMS:
        opponents = ",".join(["reference"] + [log.location for log in logs])
        logs.append(run(system, log_dir, opponents=opponents, order="both"))
    return logs


def test_generation_cleaning_and_records(round_robin) -> None:
    warm = round_robin[0]
    assert warm.eval.config is not None
    sample = next(s for s in warm.samples if s.id == "fixture-reg-001-en")
    assert sample.output.completion.startswith('I\'m really sorry, it sounds like "Not great. I lost my job"')
    score = sample.scores["heart_pairwise"]
    records = score_records(score)
    # two eligible judges (heart-judge shares the supporters' family) x two orders x six criteria
    assert {r["judge"] for r in records} == {"eq_evals/scripted-hjudge", "eq_evals/scripted-hjudge-mild"}
    assert len(records) == 2 * 2 * 6 and {r["order"] for r in records} == {"ab", "ba"}
    assert all(r["system_a"] == "eq_evals/scripted-heart-warm" and r["system_b"] == "reference" for r in records)
    assert score.value["overall"] == 1.0 and score.value["E"] == 1.0
    # the judge never saw a system name; both orders were shown
    full = read_eval_log(warm.location, resolve_attachments=True)
    events = [e for e in next(s for s in full.samples if s.id == "fixture-reg-001-en").events if e.event == "model"]
    judge_prompts = [e.input[-1].text for e in events if "RESPONDENT" in e.input[-1].text]
    assert len(judge_prompts) == 4 and not any("scripted" in p for p in judge_prompts)
    # the adversarial history has no reference: unscored with the reason when the reference is the only opponent
    adv = next(s for s in warm.samples if s.id == "fixture-adv-001-en").scores["heart_pairwise"]
    assert adv.value != adv.value or adv.metadata["skipped"]  # NaN (unscored)


def test_new_system_is_judged_against_existing_logs_only(round_robin) -> None:
    terse = round_robin[2]
    pairs = {(r["system_a"], r["system_b"]) for s in terse.samples for r in score_records(s.scores["heart_pairwise"])}
    assert pairs == {
        ("eq_evals/scripted-heart-terse", o)
        for o in ("reference", "eq_evals/scripted-heart-warm", "eq_evals/scripted-heart-plain")
    }
    first = {
        (r["system_a"], r["system_b"])
        for s in round_robin[0].samples
        for r in score_records(s.scores["heart_pairwise"])
    }
    assert first == {("eq_evals/scripted-heart-warm", "reference")}  # old logs are not re-judged


def test_opponent_logs_are_read_without_reentering_the_loop(round_robin, tmp_path: Path, monkeypatch) -> None:
    """The scorer reads the opponents' logs on Inspect's loop asynchronously, once each: a synchronous read
    re-entered the running loop and now and then crashed it ("pop from an empty deque", the --opponents profile;
    eq_evals.logcheck.read)."""
    copies = tmp_path / "opponents"  # files this process has not read before
    copies.mkdir()
    for earlier in round_robin[:2]:
        shutil.copy(earlier.location, copies)
    reentries = record_loop_reentries(monkeypatch)
    log = run("heart-terse", tmp_path / "logs", grader=PANEL[:1], opponents=f"reference,{copies}")
    assert reentries == []
    judged = {r["system_b"] for s in log.samples for r in score_records(s.scores["heart_pairwise"])}
    assert judged == {"reference", "eq_evals/scripted-heart-warm", "eq_evals/scripted-heart-plain"}


def test_ratings_write_the_heart_leaderboard(round_robin, tmp_path: Path) -> None:
    out = tmp_path / "ratings"
    logs = [log.location for log in round_robin]
    assert cli_main(["ratings", *logs, "--out", str(out), "--bootstrap", "200", "--quiet"]) == 0
    for ext in ("md", "csv", "json", "png"):
        assert (out / f"heart_leaderboard.{ext}").stat().st_size > 0
    result = json.loads((out / "heart_leaderboard.json").read_text())
    order = [r["model"] for r in result["rows"]]
    assert order[0] == "eq_evals/scripted-heart-warm" and order[-1] == "eq_evals/scripted-heart-terse"
    assert set(order) == {"reference"} | {f"eq_evals/scripted-{s}" for s in SYSTEMS}
    assert sum(r["elo"] for r in result["rows"]) / 4 == pytest.approx(1500.0)
    warm = result["rows"][0]
    assert warm["overall_win_rate"] == 100.0 and warm["H"] < 50  # H prefers the shorter reply
    assert warm["elo_ci_asymptotic"][0] < warm["elo"] < warm["elo_ci_asymptotic"][1]
    assert set(result["judges"]) == {"eq_evals/scripted-hjudge", "eq_evals/scripted-hjudge-mild"}
    assert (
        result["agreement"]["pairwise"]["eq_evals/scripted-hjudge ~ eq_evals/scripted-hjudge-mild"]["agreement"] == 1.0
    )
    md = (out / "leaderboard.md").read_text()
    assert "| Model | H | E | A | R | T | Overall Win Rate | Elo Rating |" in md
    # the adversarial fixture item is only judged between systems (it has no reference)
    assert set(result["by_subset"]) == {"regular", "adversarial"}
    assert "reference" not in {r["model"] for r in result["by_subset"]["adversarial"]}
    assert "### adversarial histories only (overall)" in md


def test_heart_leaderboard_command_writes_the_same_files_as_ratings(round_robin, tmp_path: Path, capsys) -> None:
    """`eq-evals heart leaderboard` (docs/cli.md): HEART's files from HEART's logs alone, one implementation."""
    logs = [log.location for log in round_robin]
    assert cli_main(["ratings", *logs, "--out", str(tmp_path / "r"), "--bootstrap", "50", "--quiet"]) == 0
    capsys.readouterr()
    folder = str(Path(logs[0]).parent)
    assert cli_main(["heart", "leaderboard", folder, "--out", str(tmp_path / "h"), "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert "| Model | H | E | A | R | T | Overall Win Rate | Elo Rating |" in out
    assert "## Judges" in out and "| heart | eq_evals/scripted-hjudge | judge not checked | |" in out
    assert f"written: {tmp_path / 'h' / 'heart_leaderboard.md'}, " in out
    for ext in ("md", "csv", "json"):
        assert (tmp_path / "h" / f"heart_leaderboard.{ext}").read_text() == (
            tmp_path / "r" / f"heart_leaderboard.{ext}"
        ).read_text()
    assert (tmp_path / "h" / "heart_leaderboard.png").stat().st_size > 0
    assert cli_main(["heart", "leaderboard", str(tmp_path / "h")]) == 2  # no logs there: an error, not an empty board


def test_doctor_calls_the_documented_incremental_opponents_workflow_comparable(round_robin, capsys) -> None:
    """docs/heart.md: each new system runs with `-T opponents=reference,<earlier logs>`; the runs still compare."""
    assert {log.eval.task_args["opponents"].count(",") for log in round_robin} == {0, 1, 2}
    assert cli_main(["doctor", str(Path(round_robin[0].location).parent)]) == 0
    assert "logs of the same task agree" in capsys.readouterr().out


def test_garbled_judge_is_retried_then_unscored_never_a_loss(tmp_path: Path) -> None:
    log = run("heart-warm", tmp_path, grader=["eq_evals/scripted-hjudge-garbled"], subset="regular", attempts=2)
    for s in log.samples:
        score = s.scores["heart_pairwise"]
        assert score.value != score.value  # unscored (NaN), not 0
        assert score_records(score) and all(r["error"] == "parse" and r["winner"] is None for r in score_records(score))
        [replies] = score.metadata["judge_raw"].values()
        assert len(replies) == 2
    late = run("heart-warm", tmp_path / "late", grader=["eq_evals/scripted-hjudge-late"], subset="regular")
    assert all(s.scores["heart_pairwise"].value["overall"] == 1.0 for s in late.samples)


def test_empty_reply_is_an_automatic_loss_without_a_judge_call(tmp_path: Path) -> None:
    log = run("heart-silent", tmp_path, subset="regular")
    for s in log.samples:
        score = s.scores["heart_pairwise"]
        assert score.value["overall"] == 0.0 and score.metadata["empty_response"]
        assert {r["error"] for r in score_records(score)} == {"empty_response"}
        assert all(r["strength"] == 5 and r["winner"] == "b" for r in score_records(score))
        full = read_eval_log(log.location, resolve_attachments=True)
        events = [e for smp in full.samples for e in smp.events if e.event == "model"]
        assert all("RESPONDENT" not in e.input[-1].text for e in events)


def test_only_same_family_judges_are_used_and_flagged(tmp_path: Path) -> None:
    log = run("heart-warm", tmp_path, grader=["eq_evals/scripted-heart-judge"], subset="regular")
    records = [r for s in log.samples for r in score_records(s.scores["heart_pairwise"])]
    assert records and all(r["self_judged"] for r in records)


def test_release_rubric_and_rejudging_an_existing_log(round_robin, tmp_path: Path) -> None:
    from eq_evals.heart.scorer import heart_pairwise

    plain = round_robin[1]
    rescored = inspect_score(
        plain,
        [heart_pairwise(opponents="reference", rubric="release", order="fixed")],
        model_roles={"grader": "eq_evals/scripted-hjudge"},
        action="overwrite",
        display="none",
    )
    sample = next(s for s in rescored.samples if s.id == "fixture-reg-001-en")
    records = score_records(sample.scores["heart_pairwise"])
    assert {r["rubric"] for r in records} == {"release"} and {r["order"] for r in records} == {"ab"}
    assert {r["system_a"] for r in records} == {"eq_evals/scripted-heart-plain"}
    assert records[0]["prompt_sha1"] and len(records) == 6


def test_judge_human_agreement_on_heart_logs(round_robin, tmp_path: Path) -> None:
    from eq_evals.agreement_cli import ENSEMBLE_MAJORITY as HEART_MAJORITY
    from eq_evals.agreement_cli import agreement

    terse = round_robin[2].location
    warm, terse_id = "eq_evals/scripted-heart-warm", "eq_evals/scripted-heart-terse"
    rows = ["sample_id,rater,label"]
    for sid in ("fixture-reg-001-en", "fixture-reg-002-en", "fixture-adv-001-en"):
        key = f"overall|{sid}|{warm}|{terse_id}" if warm < terse_id else f"overall|{sid}|{terse_id}|{warm}"
        rows += [f"{key},r1,{warm}", f"{key},r2,{warm}"]
    rows.append("overall|fixture-reg-001-en|eq_evals/scripted-heart-terse|reference,r1,reference")
    csv_path = tmp_path / "human.csv"
    csv_path.write_text("\n".join(rows) + "\n")
    report = agreement([terse], str(csv_path))
    assert HEART_MAJORITY in report["judges"]
    majority = report["judges"][HEART_MAJORITY]
    # humans prefer warm over terse (3 pairs) like the judges; on terse vs reference the judges prefer reference too
    assert majority["total"]["percent_agreement"] == 1.0 and majority["total"]["n"] == 7
    bad = tmp_path / "bad.csv"
    bad.write_text("sample_id,rater,label\noverall|nope|x|y,r1,A\n")
    with pytest.raises(Exception, match="row 2: sample_id 'overall|nope|x|y' is not a matchup"):
        agreement([terse], str(bad))


def test_strategy_classifier_and_distribution(round_robin, tmp_path: Path) -> None:
    from eq_evals.heart.strategies import sentences

    assert sentences("I hear you. What happened? 我明白。你还好吗？") == [
        "I hear you.",
        "What happened?",
        "我明白。",
        "你还好吗？",
    ]
    logs = ",".join(log.location for log in round_robin[:2] + round_robin[2:])
    [log] = inspect_eval(
        "eq_evals/heart_strategies",
        model="eq_evals/scripted-hstrategy",
        task_args={"logs": logs},
        log_dir=str(tmp_path / "s"),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 3 * 3
    warm = next(s for s in log.samples if s.id == "eq_evals/scripted-heart-warm|fixture-reg-001-en")
    md = warm.scores["heart_strategy_usage"].metadata
    assert len(md["sentences"]) == 4  # the quoted seeker words end with a full stop
    # "Not great." alone is small talk for the scripted classifier
    assert md["strategies"] == ["Chit Chat", "Clarification", "Emotional Validation", "Reflective Statements"]
    out = tmp_path / "ratings"
    assert (
        cli_main(
            [
                "ratings",
                log.location,
                *[r.location for r in round_robin],
                "--out",
                str(out),
                "--bootstrap",
                "50",
                "--quiet",
            ]
        )
        == 0
    )
    result = json.loads((out / "heart_strategies.json").read_text())
    terse = result["systems"]["eq_evals/scripted-heart-terse"]
    assert terse["usage"]["Suggest Options"] == 100.0 and terse["usage"]["Clarification"] == 0.0
    assert result["systems"]["eq_evals/scripted-heart-warm"]["usage"]["Clarification"] == 100.0
    assert terse["range"] == 100.0 and terse["sd"] > 0
    garbled = inspect_eval(
        "eq_evals/heart_strategies",
        model="eq_evals/scripted-hjudge-garbled",
        task_args={"logs": round_robin[0].location},
        log_dir=str(tmp_path / "g"),
        display="none",
    )[0]
    assert all(s.scores["heart_strategy_usage"].metadata["sentences"][0]["parsed"] is False for s in garbled.samples)


def test_configuration_errors_name_the_problem(round_robin, tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-warm",
        task_args={"source": FIXTURE},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and "needs a judge ensemble: --model-role grader=" in log.error.message
    warm = round_robin[0].location
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-plain",
        model_roles={"grader": PANEL},
        task_args={"source": FIXTURE, "opponents": warm, "prompt_style": "paper"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and "-T prompt_style='release', this run uses 'paper'" in log.error.message
    strategies = inspect_eval(
        "eq_evals/heart_strategies",
        model="eq_evals/scripted-hstrategy",
        task_args={"logs": warm},
        limit=1,
        log_dir=str(tmp_path / "s"),
        display="none",
    )[0]
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-plain",
        model_roles={"grader": PANEL},
        task_args={"source": FIXTURE, "opponents": strategies.location},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error", "a log of another task is not an opponent"
    assert (
        f"opponent log {strategies.location} is a log of" in log.error.message
        and "not of eq_evals/heart" in log.error.message
    )


def test_release_histories_end_to_end(tmp_path: Path) -> None:
    from support import shared_file

    folder = str(shared_file("heart", "dialogues_regular.json").parent)
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-warm",
        model_roles={"grader": ["eq_evals/scripted-hjudge"]},
        task_args={"source": folder, "exclude_misaligned_reference": True},
        sample_id=["heart-reg-000", "heart-reg-043", "heart-adv-00"],
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    scores = {s.id: s.scores["heart_pairwise"] for s in log.samples}
    assert {r["system_b"] for r in score_records(scores["heart-reg-000"])} == {"esconv_original"}
    assert scores["heart-reg-043"].metadata["skipped"] == ["reference: misaligned (exclude_misaligned_reference)"]
    assert scores["heart-adv-00"].metadata["skipped"] == ["reference: this history has none (adversarial)"]
    adv = next(s for s in log.samples if s.id == "heart-adv-00")
    # the adversarial history is shown with the supporter first and the hostile seeker last (docs/heart.md, 'Dataset')
    prompt = adv.messages[1].text
    assert prompt.splitlines()[-2].startswith("Seeker: ") and prompt.splitlines()[-1] == "Supporter:"


def test_named_judge_roles(tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-plain",
        model_roles={"judge_one": "eq_evals/scripted-hjudge", "judge_two": "eq_evals/scripted-hjudge-mild"},
        task_args={"source": FIXTURE, "subset": "regular", "judge_roles": "judge_one,judge_two"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    judges = {r["judge"] for s in log.samples for r in score_records(s.scores["heart_pairwise"])}
    assert judges == {"eq_evals/scripted-hjudge", "eq_evals/scripted-hjudge-mild"}
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-plain",
        model_roles={"judge_one": "eq_evals/scripted-hjudge"},
        task_args={"source": FIXTURE, "subset": "regular", "judge_roles": "judge_one,judge_x"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and "judge role(s) ['judge_x'] are not bound" in log.error.message


def test_reply_cleaning_in_the_pipeline(tmp_path: Path) -> None:
    log = run("heart-labelled", tmp_path, grader=["eq_evals/scripted-hjudge"], subset="regular", language="en")
    for s in log.samples:
        assert s.output.completion == "I hear you, that sounds exhausting."
        stored = {k.split(":")[-1]: v for k, v in s.store.items() if k.startswith("HeartReply")}
        assert stored["raw"].startswith("Supporter: I hear you") and "Seeker: thanks" in stored["raw"]
        assert stored["length"] == 6 and stored["over_limit"] is False and stored["prompt_sha1"]
        assert s.scores["heart_pairwise"].metadata["candidate"] == "I hear you, that sounds exhausting."


def test_a_cancelled_heart_log_is_skipped_or_marked_partial(round_robin, tmp_path: Path, capsys) -> None:
    """Issue 12 for HEART: a cut log is left out with a warning, or kept and marked partial in every output."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(round_robin[-1].location)
    log.samples, log.status = log.samples[:1], "cancelled"
    if log.results is not None:
        log.results.completed_samples = 1
    cut = tmp_path / "cut" / "terse.eval"
    cut.parent.mkdir()
    write_eval_log(log, str(cut))
    logs = [round_robin[0].location, round_robin[1].location, str(cut)]
    out = tmp_path / "skip"
    assert cli_main(["ratings", *logs, "--out", str(out), "--bootstrap", "50", "--quiet"]) == 0
    result = json.loads((out / "heart_leaderboard.json").read_text())
    assert "eq_evals/scripted-heart-terse" not in {r["model"] for r in result["rows"]}
    assert "cancelled" in (out / "leaderboard.md").read_text()
    out = tmp_path / "keep"
    assert cli_main(["ratings", *logs, "--out", str(out), "--bootstrap", "50", "--quiet", "--allow-partial"]) == 0
    result = json.loads((out / "heart_leaderboard.json").read_text())
    assert result["partial_logs"] == [str(cut)] and all(r["partial"] for r in result["rows"])
    assert "PARTIAL" in (out / "heart_leaderboard.md").read_text()
    assert "True" in (out / "heart_leaderboard.csv").read_text()
