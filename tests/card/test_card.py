"""The report card (``eq_evals.card.write_card``, ``eq-evals card``) on the logs of every benchmark
(``benchmark_logs``): its numbers are the leaderboard sections' numbers, every benchmark is listed (LongEmotion as
not run, with the plan's reason), judges without a card say "judge not checked", the real model calls sit beside
the plan, partial logs are marked, and report.html is one self-contained file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from eq_evals.card import write_card
from eq_evals.cli import main as cli_main
from eq_evals.report import run

BOOTSTRAP = 50
PLAN = {
    "models": [],  # filled from the logs when empty
    "judge": "eq_evals/scripted-judge",
    "simulated_user": "eq_evals/scripted-sage-user",
    "preset": "quick",
    "rows": [
        {
            "benchmark": "sage",
            "task": "sage",
            "role": "model",
            "model": "eq_evals/scripted-echo",
            "samples": 3,
            "calls": 30,
            "input_tokens": 9000,
            "output_tokens": 900,
            "cost_usd": None,
        },
        {
            "benchmark": "facet",
            "task": "facet_objective",
            "role": "model",
            "model": "eq_evals/scripted-oracle",
            "samples": 20,
            "calls": 20,
            "input_tokens": 4000,
            "output_tokens": 200,
            "cost_usd": 0.01,
        },
    ],
    "skipped": [
        {
            "benchmark": "longemotion",
            "reason": "LongEmotion's data is not downloaded",
            "fix": "hf download LongEmotion/LongEmotion --repo-type dataset",
        }
    ],
}


def logs_of(benchmark_logs) -> list[str]:
    return [str(benchmark_logs.ratings_dir), str(benchmark_logs.generations_dir)]


@pytest.fixture(scope="module")
def card(benchmark_logs, tmp_path_factory) -> tuple[dict, dict[str, Path]]:
    out = tmp_path_factory.mktemp("card")
    paths = write_card(logs_of(benchmark_logs), out, plan=PLAN, title="scripted models", bootstrap=BOOTSTRAP)
    return json.loads(paths["json"].read_text(encoding="utf-8")), paths


def test_files_and_strict_json(card) -> None:
    data, paths = card
    assert set(paths) == {"html", "md", "json"} and all(p.is_file() for p in paths.values())
    json.loads(paths["json"].read_text(encoding="utf-8"), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert data["title"] == "scripted models"


def test_every_benchmark_listed_longemotion_not_run(card) -> None:
    data, paths = card
    status = {b["benchmark"]: b for b in data["benchmarks"]}
    assert set(status) == {"facet", "longemotion", "sage", "pace", "heart"}
    assert status["longemotion"]["status"] == "not run"
    assert status["longemotion"]["reason"] == "LongEmotion's data is not downloaded"
    assert status["longemotion"]["fix"].startswith("hf download")
    for name in ("facet", "sage", "pace", "heart"):
        assert status[name]["status"] == "scored", status[name]
    md = paths["md"].read_text(encoding="utf-8")
    assert "## LongEmotion (not run)" in md and "LongEmotion's data is not downloaded" in md


def test_numbers_are_the_sections_numbers(card, benchmark_logs, tmp_path) -> None:
    """The card reads the sections' typed results: the same numbers as `eq-evals ratings` on the same logs."""
    data, _ = card
    ratings = run([str(benchmark_logs.ratings_dir)], str(tmp_path / "r"), bootstrap=BOOTSTRAP, progress=False)
    scores = data["scores"]

    def one(**where):
        found = [s for s in scores if all(s[k] == v for k, v in where.items())]
        assert len(found) == 1, (where, found)
        return found[0]

    for row in ratings["sage"]:
        s = one(benchmark="sage", model=row["model"], dimension="Sentient score")
        assert (s["value"], s["lower"], s["upper"]) == (row["sentient"], row["ci_low"], row["ci_high"])
        assert s["logs"] == row["logs"]
        # the baseline: the simulated user's starting emotion, the score of a reply that moves nothing (SAGE: 40)
        assert row["start"] == 40 and s["baselines"] == {"start of every dialogue (no change)": 40.0}
    for table in ratings["pace"]:
        for row in table["rows"]:
            language = table["language"]
            s = one(benchmark="pace", model=row["model"], dimension="EQ", language=language)
            assert (s["value"], s["lower"], s["upper"]) == (row["eq"], row["ci_low"], row["ci_high"])
            assert s["scaled"] == pytest.approx(10 * row["eq"])
    for row in ratings["heart"]["rows"]:
        s = one(benchmark="heart", model=row["model"], dimension="Elo (overall)")
        assert [s["value"], s["lower"], s["upper"]] == [row["elo"], *row["elo_ci_bootstrap"]]
        assert one(benchmark="heart", model=row["model"], dimension="H win rate")["value"] == row["H"]
    for language, models in ratings["objective"].items():
        for model, dims in models.items():
            s = one(benchmark="facet", model=model, dimension="hidden_emotion", language=language)
            assert s["value"] == dims["hidden_emotion"]
            assert s["facet"] == "perception"
            chance = ratings["objective_reference"][language]["reference: chance"]["hidden_emotion"]
            assert s["baselines"]["chance"] == chance
    for row in ratings["tables"]:
        s = one(
            benchmark="facet" if row["task"] == "facet_pairwise" else "pace",
            model=row["model"],
            language=row["language"],
            dimension=("interaction · " if row["task"] == "facet_pairwise" else "battles · ") + row["dimension"],
        )
        assert s["value"] == row["rating"] and (s["lower"], s["upper"]) == (row["lower"], row["upper"])
        assert s["scaled"] == pytest.approx(100 * (row["wins"] + row["draws"] / 2) / row["matchups"])


def test_judges_not_checked_and_diagnostics(card) -> None:
    data, paths = card
    judges = {(j["benchmark"], j["judge"]): j for j in data["judges"]}
    assert ("facet", "eq_evals/scripted-judge") in judges
    assert ("heart", "eq_evals/scripted-hjudge") in judges
    assert all(not j["checked"] for j in judges.values())  # no judge-check logs among the inputs
    assert judges[("facet", "eq_evals/scripted-judge-first")]["diagnostics"]["position_flip_rate"] == 1.0
    html = paths["html"].read_text(encoding="utf-8")
    assert html.count("judge not checked") >= len(judges)


def test_usage_beside_the_plan(card, benchmark_logs) -> None:
    data, paths = card
    rows = {(r["task"], r["role"], r["model"]): r for r in data["plan_vs_real"]}
    sage = rows[("sage", "model", "eq_evals/scripted-echo")]
    assert sage["plan"]["calls"] == 30
    log = read_eval_log(str(benchmark_logs.paths("sage")[1]))
    assert log.eval.model == "eq_evals/scripted-echo"
    events = [e for s in log.samples for e in s.events if e.event == "model" and e.role is None]
    assert sage["real"]["calls"] == len(events) > 0
    assert sage["real"]["samples"] == len(log.samples)
    # the simulated user's calls are counted under its role; not planned here
    assert rows[("sage", "simulated_user", "eq_evals/scripted-sage-user")]["plan"] is None
    assert rows[("sage", "simulated_user", "eq_evals/scripted-sage-user")]["real"]["calls"] > 0
    assert "not planned /" in paths["md"].read_text(encoding="utf-8")


def test_items_explorer_data(card, benchmark_logs) -> None:
    data, _ = card
    items = data["items"]
    expected = 0
    for path in benchmark_logs.paths():
        log = read_eval_log(str(path))
        expected += sum(len(s.scores or {None: None}) for s in log.samples)
    assert len(items) == expected
    oracle = [i for i in items if i["task"] == "facet_objective" and i["model"].endswith("scripted-oracle")]
    wrong = [i for i in items if i["task"] == "facet_objective" and i["model"].endswith("scripted-wrong")]
    assert oracle and {i["outcome"] for i in oracle} == {"correct"}
    assert wrong and {i["outcome"] for i in wrong} == {"incorrect"}
    judged = [i for i in items if i["task"] == "facet_pairwise"]
    assert judged and all(" vs " in i["model"] for i in judged)
    assert any(i["explanation"] for i in judged)  # the judge's rationale travels with the item


def test_html_is_self_contained(card) -> None:
    _, paths = card
    html = paths["html"].read_text(encoding="utf-8")
    assert not re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, flags=re.I)
    assert "<link" not in html and "<script src" not in html and "@import" not in html
    assert html.count("<svg") >= 6  # the profile and a chart per scored benchmark (FACET has two)
    for section in ("summary", "profile", "benchmarks", "judges", "data", "usage", "explorer", "notes"):
        assert f'<section id="{section}"' in html
    blob = html.split('id="card-data">', 1)[1].split("</script>", 1)[0]
    assert len(json.loads(blob)["items"]) > 0


def test_partial_logs_marked(benchmark_logs, tmp_path) -> None:
    source = benchmark_logs.paths("sage")[0]
    log = read_eval_log(str(source))
    log.samples = log.samples[:2]
    log.status = "cancelled"
    cut = tmp_path / "logs" / source.name
    cut.parent.mkdir()
    write_eval_log(log, str(cut))
    paths = write_card([str(cut)], tmp_path / "card", bootstrap=BOOTSTRAP)
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["partial_logs"] == [str(cut)]
    assert {b["benchmark"]: b["status"] for b in data["benchmarks"]}["sage"] == "partial"
    sentient = [s for s in data["scores"] if s["dimension"] == "Sentient score"]
    assert sentient and all(s["partial"] and "partial" in s["marks"] for s in sentient)
    html = paths["html"].read_text(encoding="utf-8")
    assert "logs are not complete" in html and "(partial)" in paths["md"].read_text(encoding="utf-8")
    with pytest.raises(Exception, match="nothing|no log|partial"):
        write_card([str(cut)], tmp_path / "strict", allow_partial=False)


def test_cli(benchmark_logs, tmp_path, capsys) -> None:
    out = tmp_path / "cli-card"
    code = cli_main(["card", str(benchmark_logs.ratings_dir / "sage"), "--out", str(out), "--bootstrap", "20"])
    assert code == 0
    printed = capsys.readouterr().out
    assert f"report card: {out / 'report.html'}" in printed
    assert re.search(r"SAGE\s+scored", printed) and re.search(r"FACET\s+not run", printed)


def test_longemotion_on_the_card_and_in_ratings(tmp_path) -> None:
    """LongEmotion logs (on the project's fixtures) are a section of `eq-evals ratings` and the long-context facet
    of the card, marked as fixtures, not the benchmark."""
    from inspect_ai import eval as inspect_eval

    for model in ("eq_evals/scripted-le_oracle", "eq_evals/scripted-echo"):
        inspect_eval(
            "eq_evals/longemotion_classification",
            model=model,
            epochs=1,
            display="none",
            task_args={"fixtures": True},
            log_dir=str(tmp_path / "le"),
        )
    result = run([str(tmp_path / "le")], str(tmp_path / "r"), bootstrap=BOOTSTRAP, progress=False)
    rows = {r["model"]: r for r in result["longemotion"]["rows"]}
    assert rows["eq_evals/scripted-le_oracle"]["cells"]["EC"]["value"] == pytest.approx(100.0)
    assert (tmp_path / "r" / "longemotion.svg").is_file() and (tmp_path / "r" / "longemotion.csv").is_file()
    assert "## LongEmotion" in (tmp_path / "r" / "leaderboard.md").read_text(encoding="utf-8")
    paths = write_card([str(tmp_path / "le")], tmp_path / "card", bootstrap=BOOTSTRAP)
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert {b["benchmark"]: b["status"] for b in data["benchmarks"]}["longemotion"] == "scored"
    [oracle] = [s for s in data["scores"] if s["model"] == "eq_evals/scripted-le_oracle"]
    assert oracle["value"] == pytest.approx(100.0) and oracle["facet"] == "long context"
    assert "fixtures, not LongEmotion data" in oracle["marks"]
