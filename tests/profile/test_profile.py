"""``eq-evals profile`` through the real command line (``eq_evals.cli.main``, the console script's parser): the plan
before any call, a quick profile of two scripted models with a scripted judge and simulated user, a second
identical command that makes no model call, the plan's numbers against the logs, and ``--opponents``
(docs/profile.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from support import record_loop_reentries

from eq_evals.cli import main

S = "eq_evals/scripted-"
MODELS = ["--model", S + "all-good", "--model", S + "all-weak"]
ROLES = ["--judge", S + "jc-honest", "--simulated-user", S + "sage-user"]
DATA = ["--longemotion-data", "fixtures"]
FIVE = {"facet", "heart", "longemotion", "pace", "sage"}


def plan_json(capsys, *args: str) -> dict:
    assert main(["profile", *args, "--dry-run", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def model_calls(folder: Path) -> dict[str, int]:
    """Model events (every call Inspect made; none for a reused verdict) per log file."""
    out = {}
    for info in list_eval_logs(str(folder)):
        log = read_eval_log(info.name)
        out[info.name] = sum(1 for s in log.samples or [] for e in s.events if e.event == "model")
    return out


def summed(rows: list[dict], field: str) -> int:
    return sum(r[field] for r in rows)


def test_the_plan_covers_every_benchmark_with_its_roles(capsys, tmp_path: Path) -> None:
    plan = plan_json(capsys, *MODELS, *ROLES, *DATA, "--log-dir", str(tmp_path / "p"))
    assert {r["benchmark"] for r in plan["rows"]} == FIVE
    assert plan["skipped"] == []
    roles = {(r["task"].split("[")[0], r["role"], r["model"]) for r in plan["rows"]}
    assert ("facet_pairwise", "grader", S + "jc-honest") in roles
    assert ("sage", "simulated_user", S + "sage-user") in roles
    assert ("pace", "grader", S + "jc-honest") in roles
    assert ("longemotion_summary", "grader", S + "jc-honest") in roles
    heart = {r["task"] for r in plan["rows_by_model"] if r["benchmark"] == "heart"}
    assert heart == {"heart[language=en]", "heart[language=zh]"}
    # plan.json's rows as the logs count them: one grader row per task, for both profiled models together
    [pace_judge] = [r for r in plan["rows"] if r["task"] == "pace" and r["role"] == "grader"]
    by_model = [r for r in plan["rows_by_model"] if r["task"].startswith("pace") and r["role"] == "grader"]
    assert len(by_model) == 2 and pace_judge["calls"] == sum(r["calls"] for r in by_model)
    # quick preset: a few items per language and dimension, one epoch
    objective = [r for r in plan["rows"] if r["task"].startswith("facet_objective") and r["model"] == S + "all-good"]
    assert objective[0]["samples"] == 20 and objective[0]["calls"] == 20  # 2 x 5 dimensions x 2 languages
    # the pairwise judge: both orders of each judged dimension of each interaction prompt, one pair of models
    [pairwise] = [r for r in plan["rows"] if r["task"] == "facet_pairwise"]
    assert pairwise["calls"] == 2 * pairwise["samples"] > 0
    assert all(r["cost_usd"] is None for r in plan["rows"])
    assert any("does not know the price" in n for n in plan["notes"])
    assert not (tmp_path / "p").exists()  # a dry run writes nothing


def test_what_cannot_run_is_listed_with_the_fix(capsys) -> None:
    plan = plan_json(capsys, "--model", S + "all-good", "--judge", S + "jc-honest")
    skipped = {s["benchmark"]: s for s in plan["skipped"]}
    assert set(skipped) == {"facet", "longemotion", "sage"}
    assert "--longemotion-data" in skipped["longemotion"]["fix"]
    assert "--simulated-user" in skipped["sage"]["fix"]
    assert "one" in skipped["facet"]["reason"] and "--opponents" in skipped["facet"]["fix"]
    # FACET's objective items and interaction replies still run; only the pairwise judging waits
    assert {r["task"].split("[")[0] for r in plan["rows"] if r["benchmark"] == "facet"} == {
        "facet_objective",
        "facet_interaction",
    }


def test_presets_and_prices(capsys, tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        f"{S}all-good: {{input: 2.0, output: 8.0, input_cache_write: 0, input_cache_read: 0}}\n", encoding="utf-8"
    )
    args = ["--model", S + "all-good", "--judge", S + "jc-honest", "--benchmarks", "pace"]
    quick = plan_json(capsys, *args, "--model-cost-config", str(prices))
    standard = plan_json(capsys, *args, "--preset", "standard")
    [q_model] = [r for r in quick["rows"] if r["role"] == "model"]
    [s_model] = [r for r in standard["rows"] if r["role"] == "model"]
    assert (q_model["samples"], s_model["samples"]) == (4, 20)  # 2 and 10 items per language
    expected = (q_model["input_tokens"] * 2.0 + q_model["output_tokens"] * 8.0) / 1e6
    assert q_model["cost_usd"] == pytest.approx(expected)
    [judge] = [r for r in quick["rows"] if r["role"] == "grader"]
    assert judge["cost_usd"] is None  # its price is unknown: said, not guessed


def test_the_budget_is_inspects_per_sample_limit(capsys) -> None:
    from eq_evals.profile.run import parse_budget

    assert parse_budget("20000") == parse_budget("20,000tokens") == {"token_limit": 20000}
    assert parse_budget("0.5usd") == parse_budget("$0.5") == {"cost_limit": 0.5}
    plan = plan_json(
        capsys, "--model", S + "all-good", "--judge", S + "jc-honest", "--benchmarks", "pace", "--budget", "8000"
    )
    assert any("token_limit=8000" in n for n in plan["notes"])


def test_bad_options_are_errors(capsys) -> None:
    assert main(["profile", "--model", S + "all-good", "--benchmarks", "nope", "--dry-run"]) == 2
    assert "unknown nope" in capsys.readouterr().err
    assert main(["profile", "--model", S + "all-good", "--budget", "lots", "--dry-run"]) == 2
    assert "--budget lots" in capsys.readouterr().err


@pytest.mark.slow
def test_a_quick_profile_runs_resumes_for_free_and_matches_its_plan(capsys, tmp_path: Path) -> None:
    logs = tmp_path / "profile"
    command = ["profile", *MODELS, *ROLES, *DATA, "--log-dir", str(logs)]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "plan:" in out and "inspect view --log-dir" in out
    first = model_calls(logs)
    assert len(first) == 2 * 12 + 1  # 12 first-phase tasks x 2 models, one pairwise judging log
    assert all(read_eval_log(p, header_only=True).status == "success" for p in first)
    record = json.loads((logs / "plan.json").read_text(encoding="utf-8"))
    assert {r["benchmark"] for r in record["rows"]} == FIVE
    assert summed(record["actual"], "calls") == sum(first.values())
    judged = read_eval_log(next(p for p in first if "facet-pairwise" in p))
    assert judged.results and judged.results.total_samples > 0
    # the report card, from these logs and the plan (docs/profile.md, 'The report card')
    card = json.loads((logs / "card" / "report.json").read_text(encoding="utf-8"))
    assert (logs / "card" / "report.html").is_file() and (logs / "card" / "report.md").is_file()
    status = {b["benchmark"]: b["status"] for b in card["benchmarks"]}
    assert {name for name, st in status.items() if st == "scored"} >= FIVE - {"longemotion"}, status
    assert {m for m in MODELS if m != "--model"} <= {s["model"] for s in card["scores"]}
    assert card["plan_vs_real"] and card["items"]

    # the same command again: eval-set finds every task done and makes no model call
    assert main(command) == 0
    capsys.readouterr()
    assert model_calls(logs) == first

    # the plan against the logs: calls and tokens within 15%, with the outputs' mean length measured here
    actual = record["actual"]
    mean_out = round(summed(actual, "output_tokens") / summed(actual, "calls"))
    plan = plan_json(capsys, *MODELS, *ROLES, *DATA, "--output-tokens", str(mean_out))
    for field in ("calls", "input_tokens", "output_tokens"):
        planned, real = summed(plan["rows"], field), summed(actual, field)
        assert abs(planned - real) <= 0.15 * real, (field, planned, real)


@pytest.mark.slow
def test_opponents_add_a_model_and_judge_only_the_new_pairs(capsys, tmp_path: Path, monkeypatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    # HEART's scorer reads the opponents' logs on Inspect's loop: synchronously, it re-entered the loop, and the
    # first re-entry in a process now and then crashed it ('pop from an empty deque'; eq_evals.logcheck.read)
    reentries = record_loop_reentries(monkeypatch)
    base = ["--judge", S + "jc-honest", "--benchmarks", "facet,heart"]
    assert main(["profile", "--model", S + "all-good", "--model", S + "all-weak", *base, "--log-dir", str(first)]) == 0
    out = capsys.readouterr().out
    assert "facet_pairwise" in out
    plan = plan_json(capsys, "--model", S + "echo", *base, "--opponents", str(first))
    assert not plan["skipped"]
    [pairwise] = [r for r in plan["rows"] if r["task"] == "facet_pairwise"]
    assert main(["profile", "--model", S + "echo", *base, "--opponents", str(first), "--log-dir", str(second)]) == 0
    capsys.readouterr()
    [judging] = [p for p in model_calls(second / "judge")]
    log = read_eval_log(judging)
    models = {m for s in log.samples for m in (s.metadata["model_a"], s.metadata["model_b"])}
    assert models == {S + "all-good", S + "all-weak", S + "echo"}
    # the pair judged before is reused, not paid again: only the new model's pairs make judge calls
    calls = model_calls(second / "judge")[judging]
    assert calls == pairwise["calls"] > 0
    heart = read_eval_log(next(p for p in model_calls(second / "generate") if "heart" in p), header_only=True)
    assert any(str(first) in str(a) for a in (heart.eval.task_args or {}).values())
    assert reentries == []
    # the card: the new model profiled, the earlier ones beside it (in the profile chart too)
    card = json.loads((second / "card" / "report.json").read_text(encoding="utf-8"))
    assert card["profiled"] == [S + "echo"]
    assert card["models"] == [S + "echo", S + "all-good", S + "all-weak"]
    html = (second / "card" / "report.html").read_text(encoding="utf-8")
    assert f"{S}echo; beside them, from earlier logs: {S}all-good, {S}all-weak" in html
    from eq_evals.card.render import profile_chart

    chart = profile_chart(card)
    assert chart and set(chart.series()) == {S + "echo", S + "all-good", S + "all-weak"}


def test_the_all_modes_answer_each_benchmark_in_its_form() -> None:
    """all-good: FACET's objective items and LongEmotion's tasks by their own modes, the rest warmly."""
    import asyncio

    from inspect_ai.model import get_model

    from eq_evals.facet.data import facet_items
    from eq_evals.facet.scripted import correct_answer
    from eq_evals.resources import resource

    item = facet_items(resource("datasets", "facet"), ["crisis_recognition"], "en")[0]
    good, weak = get_model(S + "all-good"), get_model(S + "all-weak")

    def reply(model, prompt: str) -> str:
        return asyncio.run(model.generate(prompt)).completion

    assert reply(good, str(item.input)) == f"<answer>{correct_answer(item.metadata)}</answer>"
    assert reply(weak, str(item.input)).startswith("<answer>") and reply(weak, str(item.input)) != reply(
        good, str(item.input)
    )
    detection = "There are 3 texts in the text list. [0] a [1] b [2] c"
    assert '"index"' in reply(good, detection) and '"index"' in reply(weak, detection)
    seeker = "Seeker: I lost my job today and I can't tell my family."
    assert "weighing on you" in reply(good, seeker)
    assert reply(weak, seeker) == "Ok. Just stay positive."


@pytest.mark.slow
def test_a_folder_keeps_its_items(capsys, tmp_path: Path) -> None:
    logs = tmp_path / "p"
    base = ["profile", "--model", S + "all-good", "--judge", S + "jc-honest", "--benchmarks", "pace"]
    assert main([*base, "--log-dir", str(logs)]) == 0
    assert json.loads((logs / "plan.json").read_text(encoding="utf-8"))["selection"]["preset"] == "quick"
    capsys.readouterr()
    assert main([*base, "--preset", "standard", "--log-dir", str(logs)]) == 2
    assert "holds a profile with preset quick" in capsys.readouterr().err
    # another judge in the same folder: eval-set's own check (the logs are of other tasks), as an eq-evals error
    other = [*base[:4], S + "pace-agent", *base[5:]]
    assert main([*other, "--log-dir", str(logs)]) == 2
    assert "another --log-dir" in capsys.readouterr().err
