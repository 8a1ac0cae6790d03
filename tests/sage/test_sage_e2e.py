"""SAGE end to end through Inspect with scripted tested and simulated models: every ending, what the
tested model may see, the per-turn transcript, unscored simulator failures, the leaderboard and the
generator (docs/sage.md, 'Scripted models (tests, offline checks)')."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import get_model

import eq_evals._registry  # noqa: F401  (registers the tasks, as the entry point does)
from eq_evals.cli import main as cli_main
from eq_evals.summary_hook import unscored_lines


def run(
    log_dir: str,
    user_args: dict | None = None,
    model: str = "eq_evals/scripted-echo",
    limit: int | None = 1,
    with_user: bool = True,
    **task_args,
):
    roles = {"simulated_user": get_model("eq_evals/scripted-sage-user", **(user_args or {}))} if with_user else None
    [log] = inspect_eval(
        "eq_evals/sage",
        model=model,
        model_roles=roles,
        task_args=task_args,
        log_dir=log_dir,
        display="none",
        limit=limit,
    )
    return log


def only_sample(log):
    assert log.status == "success", log.error
    [sample] = log.samples
    return sample, sample.scores["sage_scorer"]


def roles_of(sample) -> list[str]:
    return [m.role for m in sample.messages if m.role != "system"]


def test_success_after_six_tested_replies(log_dir: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": 10}))
    assert score.value == 100.0
    assert score.metadata["trajectory"] == [40, 50, 60, 70, 80, 90, 100]
    assert score.metadata["end_reason"] == "emotion_ge_100"
    assert score.metadata["success"] == 1 and score.metadata["failure"] == 0
    assert roles_of(sample).count("assistant") == 6 and roles_of(sample).count("user") == 7
    assert roles_of(sample)[-1] == "user"  # no tested reply after the ending
    assert sample.messages[-1].metadata["emotion_state"] == "Emotion-S"


def test_failure_after_four_tested_replies(log_dir: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": -10}))
    assert (score.value, score.metadata["end_reason"]) == (0.0, "emotion_lt_10")
    assert score.metadata["trajectory"] == [40, 30, 20, 10, 0]  # 10 does not stop the dialogue; 0 does
    assert score.metadata["failure"] == 1 and roles_of(sample).count("assistant") == 4


def test_max_turns_ends_on_the_unscored_tenth_reply(log_dir: str) -> None:
    log = run(log_dir, {"changes": 0})
    sample, score = only_sample(log)
    assert (score.value, score.metadata["end_reason"]) == (40.0, "max_turns")
    assert score.metadata["updates"] == 9 and score.metadata["npc_turns"] == 10
    assert roles_of(sample).count("assistant") == 10 and roles_of(sample)[-1] == "assistant"
    assert score.metadata["npc_output_tokens"] > 0


def test_goodbye_ends_the_dialogue_at_the_current_emotion(log_dir: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": -10, "goodbye_at": 1}))
    assert (score.value, score.metadata["end_reason"]) == (30.0, "goodbye")
    assert roles_of(sample) == ["user", "assistant", "user"] and "再见" in sample.messages[-1].text


def test_goodbye_in_english(log_dir: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": "5,5", "goodbye_at": 2}, language="en"))
    assert (score.value, score.metadata["end_reason"]) == (50.0, "goodbye")
    assert "Goodbye" in sample.messages[-1].text and sample.metadata["language"] == "en"


@pytest.mark.parametrize("garble", ["emotion", "reply"])
def test_unparseable_simulator_is_retried_then_unscored(log_dir: str, garble: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": 5, "garble": garble, "garble_at": 2}, max_parse_retries=2))
    assert math.isnan(score.value)
    assert score.reason == "simulator_unparseable"
    assert "could not be parsed after 3 attempt(s)" in score.explanation and "turn 3" in score.explanation
    assert score.metadata["end_reason"] == "simulator_unparseable"
    assert score.metadata["trajectory"] == [40, 45]  # the one good update is kept for the reader
    user_calls = [e for e in sample.events if e.event == "model" and e.role == "simulated_user"]
    assert len(user_calls) == (2 + 3 if garble == "emotion" else 2 + 1 + 3)
    assert sample.store["SageStore:parse_retries"] == 2


def test_unscored_samples_stay_out_of_the_metrics(log_dir: str) -> None:
    log = run(log_dir, {"changes": 5, "garble": "emotion", "garble_at": 3}, limit=2)
    # two entries: the reduced metrics (mean, ...) and the per-dialogue ones (success_count, ...)
    scores = [s for s in log.results.scores if s.name == "sage_scorer"]
    assert len(scores) == 2
    assert all(score.unscored_samples == 2 and score.scored_samples == 0 for score in scores)


def test_tested_model_sees_only_the_dialogue(log_dir: str) -> None:
    sample, _ = only_sample(run(log_dir, {"changes": "5,-5,10,0"}, max_turns=5))
    sample = resolve_sample_attachments(sample, "full")
    meta = sample.metadata
    tested_inputs = [m.text for e in sample.events if e.event == "model" and e.role is None for m in e.input]
    assert len(tested_inputs) >= 5 and not any(t.startswith("attachment://") for t in tested_inputs)
    hidden = [meta["player"][:40], meta["scene"][:40], meta["task"], "Emotion-", "emotion", "TargetCompletion"]
    for text in tested_inputs:
        for secret in hidden:
            assert secret not in text
    # ...while the simulated user is given persona, scene and the hidden intention
    user_prompts = [m.text for e in sample.events if e.event == "model" and e.role == "simulated_user" for m in e.input]
    assert user_prompts and all(meta["task"] in p and meta["player"] in p for p in user_prompts)


def test_one_span_per_turn_with_emotion_before_and_after(log_dir: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": "5,-5,10"}, max_turns=4))
    sample = resolve_sample_attachments(sample, "full")
    spans = [e.name for e in sample.events if e.event == "span_begin" and e.type == "sage_turn"]
    assert spans == ["turn 1", "turn 2", "turn 3", "turn 4"]
    infos = [str(e.data) for e in sample.events if e.event == "info" and e.source == "sentient_agent"]
    assert any("emotion 40 → 45 (+5)" in i for i in infos) and any("emotion 45 → 40 (-5)" in i for i in infos)
    assert any("Trajectory** 40 → 45 → 40 → 50" in i for i in infos)
    turns = sample.store["SageStore:turns"]
    assert [(t["emotion_before"], t["emotion_after"]) for t in turns] == [(40, 45), (45, 40), (40, 50)]
    assert score.value == 50.0


def test_final_reply_flags(log_dir: str) -> None:
    sample, score = only_sample(run(log_dir, {"changes": 5}, max_turns=3, generate_final_reply=False))
    assert roles_of(sample)[-1] == "user" and score.metadata["npc_turns"] == 2 and score.value == 50.0
    sample, score = only_sample(run(log_dir, {"changes": 5}, max_turns=3, score_final_reply=True))
    assert score.metadata["trajectory"] == [40, 45, 50, 55] and score.metadata["updates"] == 3
    assert score.metadata["end_reason"] == "max_turns"


def test_custom_system_prompt_and_parameters(log_dir: str) -> None:
    sample, score = only_sample(
        run(log_dir, {"changes": 25}, npc_system_prompt="Be kind.", initial_emotion=50, max_change=20)
    )
    assert sample.messages[0].role == "system" and sample.messages[0].text == "Be kind."
    assert score.metadata["trajectory"] == [50, 70, 90, 100]


def test_missing_simulated_user_role_is_a_clear_error(log_dir: str) -> None:
    log = run(log_dir, with_user=False)
    assert log.status == "error"
    assert "--model-role simulated_user=" in str(log.error.message if log.error else log.samples[0].error)


def test_metrics_breakdowns_and_leaderboard(log_dir: str, capsys: pytest.CaptureFixture) -> None:
    good = run(log_dir, {"changes": 10}, model="eq_evals/scripted-echo", limit=4, language="all")
    run(log_dir, {"changes": -10}, model="eq_evals/scripted-malformed", limit=3)
    metrics = {name: m.value for s in good.results.scores for name, m in s.metrics.items()}
    assert metrics["mean"] == 100.0 and metrics["success_count"] == 4.0 and metrics["failure_count"] == 0.0
    assert {"mean_emotional", "mean_negative", "mean_en", "mean_zh"} <= set(metrics)

    assert cli_main(["sage", "leaderboard", log_dir]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split()[:6] == [
        "1",
        "eq_evals/scripted-echo",
        "eq_evals/scripted-sage-user",
        "bundled:all",
        "4",
        "100.0",
    ]
    assert table[3].split()[:6] == [
        "2",
        "eq_evals/scripted-malformed",
        "eq_evals/scripted-sage-user",
        "bundled:zh",
        "3",
        "0.0",
    ]
    assert any("different scenario sets" in line for line in table)
    assert cli_main(["sage", "leaderboard", "--json", log_dir]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["rank"], r["success"], r["failure"]) for r in rows] == [(1, 4, 0), (2, 0, 3)]


def test_generate_writes_scenarios_that_run(tmp_path: Path, log_dir: str, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "generated.jsonl"
    args = [
        "sage",
        "generate",
        "--model",
        "eq_evals/scripted-sage-writer",
        "--n",
        "3",
        "--language",
        "both",
        "--out",
        str(out),
        "--seed",
        "7",
    ]
    assert cli_main(args) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6 and {r["language"] for r in rows} == {"zh", "en"}
    for r in rows:
        assert r["scene"].rstrip().endswith(r["task"]) and r["first_talk"] and len(r["cha_group"]) == 3
    assert cli_main(args) == 2  # refuses to overwrite
    again = tmp_path / "again.jsonl"
    assert cli_main(args[:-3] + [str(again), "--seed", "7"]) == 0
    # deterministic for a seed (records are written as they complete, so compare them in any order)
    assert sorted(again.read_text(encoding="utf-8").splitlines()) == sorted(
        out.read_text(encoding="utf-8").splitlines()
    )
    log = run(log_dir, {"changes": 10}, limit=None, source=str(out), language="all")
    assert log.status == "success" and len(log.samples) == 6
    assert all(s.scores["sage_scorer"].value == 100.0 for s in log.samples)


def test_sage_leaderboard_through_eq_evals_ratings(log_dir: str, tmp_path: Path) -> None:
    from eq_evals.report import run as ratings

    run(log_dir, {"changes": 10}, model="eq_evals/scripted-echo", limit=2)
    run(log_dir, {"changes": -10}, model="eq_evals/scripted-malformed", limit=2)
    result = ratings([log_dir], str(tmp_path), progress=False)
    assert [(r["model"], r["success"], r["failure"]) for r in result["sage"]] == [
        ("eq_evals/scripted-echo", 2, 0),
        ("eq_evals/scripted-malformed", 0, 2),
    ]
    assert "## SAGE" in (tmp_path / "leaderboard.md").read_text(encoding="utf-8")


def test_leaderboard_splits_settings_dedupes_reruns_and_skips_failed_logs(
    log_dir: str, capsys: pytest.CaptureFixture
) -> None:
    from eq_evals.sage.leaderboard import collect

    run(log_dir, {"changes": 10}, limit=2)
    run(log_dir, {"changes": 10}, limit=2)  # a re-run of the same two dialogues
    run(log_dir, {"changes": 0}, limit=2, max_turns=3, hidden_task_type="rational")
    run(log_dir, with_user=False)  # an errored log
    rows = collect([log_dir])
    assert sorted((r.n, r.settings["max_turns"], r.settings["hidden_task_type"]) for r in rows) == [
        (2, 3, "rational"),
        (2, 10, "all"),
    ]
    assert len(rows.warnings) == 1 and "status error" in rows.warnings[0]
    assert cli_main(["sage", "leaderboard", log_dir]) == 0
    out = capsys.readouterr().out
    assert "hidden_task_type=rational" in out and "max_turns=3" in out and "warning: skipped" in out


def test_generate_keeps_the_batch_when_one_scenario_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from eq_evals.sage import generate

    real = generate.generate_one

    async def flaky(model, seeds, language, index, *args, **kwargs):
        if index == 2:
            raise RuntimeError("HTTP 529 overloaded")  # a provider error, not an EqEvalsError
        return await real(model, seeds, language, index, *args, **kwargs)

    monkeypatch.setattr(generate, "generate_one", flaky)
    out = tmp_path / "gen.jsonl"
    code = cli_main(["sage", "generate", "--model", "eq_evals/scripted-sage-writer", "--n", "3", "--out", str(out)])
    assert code == 1
    assert sorted(json.loads(line)["scenario_id"].split("-")[1] for line in out.read_text().splitlines()) == [
        "001",
        "003",
    ]
    assert "scenario 2 (zh): RuntimeError: HTTP 529 overloaded" in capsys.readouterr().err


def test_generate_writes_each_scenario_as_it_completes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from eq_evals.sage import generate

    class Abort(BaseException):
        pass

    real = generate.generate_one

    async def aborting(model, seeds, language, index, *args, **kwargs):
        if index == 3:
            raise Abort()  # e.g. the process is interrupted mid-batch
        return await real(model, seeds, language, index, *args, **kwargs)

    monkeypatch.setattr(generate, "generate_one", aborting)
    out = tmp_path / "gen.jsonl"
    with pytest.raises(Abort):
        generate.run("eq_evals/scripted-sage-writer", 3, "zh", str(out), max_concurrency=1)
    assert len(out.read_text().splitlines()) == 2  # the finished scenarios are on disk


def test_generator_prompts_carry_no_scripted_markers() -> None:
    from eq_evals.sage.generate import load_generator

    pools = load_generator()
    for key in ("persona_prompt", "scene_prompt"):
        for text in pools[key].values():
            assert "PERSONA-CARD" not in text and "SCENE-SCRIPT" not in text


def test_dialogue_cut_by_a_limit_is_unscored_as_interrupted(log_dir: str) -> None:
    roles = {"simulated_user": get_model("eq_evals/scripted-sage-user", changes=0)}
    [log] = inspect_eval(
        "eq_evals/sage",
        model="eq_evals/scripted-echo",
        model_roles=roles,
        log_dir=log_dir,
        display="none",
        limit=1,
        message_limit=6,
    )
    score = log.samples[0].scores["sage_scorer"]
    assert math.isnan(score.value) and score.reason == "interrupted"
    assert "message limit (6)" in score.explanation and "40 → 40" in score.explanation


def test_success_and_failure_are_counted_per_dialogue_across_epochs(log_dir: str) -> None:
    from inspect_ai.model import ModelOutput, ModelUsage

    dialogues = []

    def tested(input, tools, tool_choice, config):  # first dialogue neutral, second lectures (-5 per update)
        if sum(m.role == "assistant" for m in input) == 0:
            dialogues.append(1)
        out = ModelOutput.from_content(
            model="mockllm/model", content="Okay." if len(dialogues) == 1 else "You should just move on."
        )
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    roles = {"simulated_user": get_model("eq_evals/scripted-sage-user")}
    [log] = inspect_eval(
        "eq_evals/sage",
        model=get_model("mockllm/model", custom_outputs=tested),
        model_roles=roles,
        task_args={"max_turns": 8},
        log_dir=log_dir,
        display="none",
        limit=1,
        epochs=2,
        max_samples=1,
    )
    assert log.status == "success", log.error
    by_epoch = {s.epoch: s.scores["sage_scorer"] for s in log.samples}
    assert (by_epoch[1].value, by_epoch[2].value) == (40.0, 5.0)  # only epoch 2 fails
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert metrics["mean"] == 22.5
    assert metrics["failure_count"] == 1.0 and metrics["success_count"] == 0.0
    assert metrics["mean_npc_turns"] == (8 + 7) / 2


def test_simulator_retry_adds_a_correction(log_dir: str) -> None:
    sample, _ = only_sample(run(log_dir, {"changes": 5, "garble": "emotion", "garble_at": 2}, max_parse_retries=1))
    sample = resolve_sample_attachments(sample, "full")
    prompts = [e.input[-1].text for e in sample.events if e.event == "model" and e.role == "simulated_user"]
    first, retry = prompts[-2:]
    assert retry != first and retry.startswith(first) and "Change:" in retry[len(first) :]


def test_prompt_file_needs_only_the_languages_run(log_dir: str, tmp_path: Path) -> None:
    import yaml

    from eq_evals.resources import resource

    data = yaml.safe_load(resource("solvers", "sage/simulator.yaml").read_text(encoding="utf-8"))
    for section in data.values():
        if isinstance(section, dict):
            section.pop("en", None)
    custom = tmp_path / "zh_only.yaml"
    custom.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    _, score = only_sample(run(log_dir, {"changes": 10}, prompts=str(custom)))
    assert score.value == 100.0
    log = run(log_dir, {"changes": 10}, prompts=str(custom), language="en")
    assert log.status == "error" and "no 'en' prompts" in str(log.error.message)


def test_unscored_sage_run_is_counted_and_kept(log_dir: str, capsys: pytest.CaptureFixture) -> None:
    user = get_model("eq_evals/scripted-sage-user", garble="emotion")
    [bad] = inspect_eval(
        "eq_evals/sage",
        model="eq_evals/scripted-malformed",
        model_roles={"simulated_user": user},
        limit=2,
        log_dir=log_dir,
        display="none",
    )
    good_user = get_model("eq_evals/scripted-sage-user", changes=10)
    inspect_eval(
        "eq_evals/sage",
        model="eq_evals/scripted-echo",
        model_roles={"simulated_user": good_user},
        limit=2,
        log_dir=log_dir,
        display="none",
    )
    names = {n for s in bad.results.scores for n in s.metrics}
    assert not [n for n in names if n.startswith("grouped")], names
    assert {"mean_by_language", "mean_by_personality"} <= names
    # the lines printed under Inspect's summary (the hook ran inside eval: they are on stderr)
    printed = capsys.readouterr().err
    lines = unscored_lines(bad)
    assert lines[0].startswith("sage: sage_scorer: 2 unscored, 0 scored")
    assert "unscored x2: simulator_unparseable" in lines[1] and lines[-1].startswith("  list them: eq-evals doctor")
    assert lines[0] in printed
    # the leaderboard keeps the unscored run as a row, ranked last, and warns
    assert cli_main(["sage", "leaderboard", log_dir]) == 0
    out = capsys.readouterr().out
    table = out.splitlines()
    assert table[2].split()[:2] == ["1", "eq_evals/scripted-echo"]
    assert table[3].split()[:3] == ["-", "eq_evals/scripted-malformed", "(unscored)"]
    assert "all 2 dialogue(s) unscored (simulator_unparseable x2)" in out
    assert cli_main(["sage", "leaderboard", "--json", log_dir]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["rank"], r["n"], r["unscored"], r["sentient"]) for r in rows] == [(1, 2, 0, 100.0), (None, 0, 2, None)]
    assert rows[1]["unscored_reasons"] == {"simulator_unparseable": 2}
