"""`eq-evals ratings` and `eq-evals agreement` on real logs produced through Inspect."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.agreement_cli import agreement
from eq_evals.cli import main as cli
from eq_evals.errors import EqEvalsError
from eq_evals.report import family, run

MODELS = ["eq_evals/scripted-echo", "eq_evals/scripted-malformed", "eq_evals/scripted-oracle"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("logs")
    inspect_eval("eq_evals/facet_naturalness", model=MODELS, task_args={"language": "all"}, limit=24,
                 log_dir=str(root / "gen"), display="none")
    inspect_eval("eq_evals/facet_pairwise", model=None, model_roles={"grader": "eq_evals/scripted-judge"},
                 task_args={"logs": str(root / "gen")}, log_dir=str(root / "judged"), display="none")
    inspect_eval("eq_evals/facet_pairwise", model=None, model_roles={"grader": "eq_evals/scripted-judge-first"},
                 task_args={"logs": str(root / "gen")}, log_dir=str(root / "ties"), display="none")
    modes = ["eq_evals/scripted-oracle", "eq_evals/scripted-wrong", "eq_evals/scripted-half"]
    inspect_eval("eq_evals/facet_objective", model=modes, task_args={"language": "all"}, epochs=1, limit=40,
                 log_dir=str(root / "objective"), display="none")
    return {"gen": root / "gen", "judged": root / "judged", "ties": root / "ties", "objective": root / "objective"}


def test_leaderboard_files_and_diagnostics(logs: dict[str, Path], tmp_path: Path) -> None:
    result = run([str(logs["judged"])], str(tmp_path), bootstrap=200, progress=False)
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.png"):
        assert (tmp_path / name).stat().st_size > 0
    rows = list(csv.DictReader((tmp_path / "leaderboard.csv").open(encoding="utf-8")))
    tables = {(r["language"], r["dimension"]) for r in rows}
    assert tables == {("en", "expression_naturalness"), ("zh", "expression_naturalness")}
    for r in rows:
        assert float(r["lower"]) <= float(r["rating"]) <= float(r["upper"])
    [judge] = result["judges"].values()
    assert judge["parse_rate"] == 1.0 and 0.0 <= judge["position_flip_rate"] < 0.2
    # the scripted judge prefers shorter answers: the longer answer (almost) never wins
    assert judge["longer_answer_win_rate"] == 0.0
    assert judge["self_family"] == MODELS  # scripted judge rating scripted models is flagged
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    assert "## Judge diagnostics" in md and "rates its own family" in md


@pytest.mark.parametrize("method", ["trueskill", "eqbench3", "elo"])
def test_other_methods(logs: dict[str, Path], tmp_path: Path, method: str) -> None:
    result = run([str(logs["judged"])], str(tmp_path), method=method, progress=False)
    ranking = [r["model"] for r in result["tables"] if r["language"] == "en"]
    shorter_first = ranking[0]
    assert shorter_first in MODELS and len(ranking) == 3
    assert json.loads((tmp_path / "leaderboard.json").read_text())["method"] == method


def test_all_ties_are_reported_as_uninformative(logs: dict[str, Path], tmp_path: Path) -> None:
    result = run([str(logs["ties"])], str(tmp_path), bootstrap=50, progress=False)
    assert all("every comparison is a draw" in note for note in result["notes"].values())
    scores = {r["rating"] for r in result["tables"] if r["language"] == "en"}
    assert len(scores) == 1  # equal ratings
    [judge] = result["judges"].values()
    assert judge["position_flip_rate"] == 1.0


def test_objective_logs_and_the_gap(logs: dict[str, Path], tmp_path: Path) -> None:
    result = run([str(logs["objective"])], str(tmp_path), progress=False)
    en = result["objective"]["en"]
    assert en["eq_evals/scripted-oracle"]["objective_average"] == 100.0
    assert en["eq_evals/scripted-wrong"]["objective_average"] == 0.0
    assert result["tables"] == [] and result["gap"] == {}


def test_identical_scores_make_the_gap_undefined_not_a_crash(logs: dict[str, Path], tmp_path: Path) -> None:
    # objective logs of oracle/wrong/half, judged logs of echo/malformed/oracle: one shared model only
    result = run([str(logs["objective"]), str(logs["ties"])], str(tmp_path), bootstrap=20, progress=False)
    assert "en" not in result["gap"]


def test_gap_profiles_with_judged_and_objective_logs(tmp_path: Path) -> None:
    """Same three model names in both kinds of log: ΔZ per language and a profile per model."""
    root = tmp_path / "logs"
    # three scripted modes whose objective scores and interaction replies both differ
    models = ["eq_evals/scripted-prose", "eq_evals/scripted-echo", "eq_evals/scripted-malformed"]
    inspect_eval("eq_evals/facet_objective", model=models, task_args={"language": "all"}, epochs=1, limit=30,
                 log_dir=str(root / "obj"), display="none")
    inspect_eval("eq_evals/facet_naturalness", model=models, task_args={"language": "all"}, limit=10,
                 log_dir=str(root / "gen"), display="none")
    inspect_eval("eq_evals/facet_pairwise", model=None, model_roles={"grader": "eq_evals/scripted-judge"},
                 task_args={"logs": str(root / "gen")}, log_dir=str(root / "judged"), display="none")
    result = run([str(root / "obj"), str(root / "judged")], str(tmp_path / "out"), bootstrap=50, progress=False)
    assert set(result["gap"]) == {"en", "zh"}, result["gap"]
    for language, rows in result["gap"].items():
        assert set(rows) == set(models)
        assert abs(sum(r["delta_z"] for r in rows.values())) < 1e-9  # z-scores are centred in both terms
        for r in rows.values():
            assert r["delta_z"] == pytest.approx(r["z_subjective"] - r["z_objective"])
            assert r["profile"] in ("cognitive-dominant", "interactive-dominant", "context-dependent")


def test_bad_inputs(logs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError, match="neither judgment logs"):
        run([str(logs["gen"])], str(tmp_path), progress=False)
    with pytest.raises(EqEvalsError, match="nothing-here does not exist"):
        run([str(tmp_path / "nothing-here")], str(tmp_path), progress=False)
    junk = tmp_path / "junk.eval"
    junk.write_text("not a log")
    with pytest.raises(EqEvalsError, match="junk.eval is not a readable Inspect log"):
        run([str(junk)], str(tmp_path), progress=False)


def test_cli_ratings_and_agreement(logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli(["ratings", str(logs["judged"]), "--out", str(tmp_path / "r"), "--bootstrap", "20", "--quiet"]) == 0
    assert "# eq-evals leaderboard" in capsys.readouterr().out
    from eq_evals.agreement_cli import judge_labels

    labels, pairs = judge_labels([str(logs["judged"])])
    [judge] = labels.values()
    ids = sorted(judge)[:12]
    human = tmp_path / "human.csv"
    with human.open("w", newline="") as handle:
        w = csv.writer(handle)
        w.writerow(["sample_id", "rater", "label"])
        for sid in ids:
            w.writerow([sid, "h1", judge[sid]])                                     # agrees with the judge
            w.writerow([sid, "h2", "B" if judge[sid] == "A" else "A"])              # always disagrees
    report = agreement([str(logs["judged"])], str(human))
    per_human = report["cohen"]["eq_evals/scripted-judge"]["per_human"]
    assert per_human["human:h1"]["kappa"] == pytest.approx(1.0)
    assert per_human["human:h2"]["kappa"] < 0
    assert report["fleiss"]["n"] == 12 and report["krippendorff_alpha"]["n"] == len(judge)
    assert cli(["agreement", str(logs["judged"]), "--human", str(human)]) == 0
    human.write_text("sample_id,rater,label\nnope,h1,A\n")
    assert cli(["agreement", str(logs["judged"]), "--human", str(human)]) == 2
    assert "row 2: sample_id 'nope' is not a matchup" in capsys.readouterr().err


def test_family() -> None:
    assert family("openai/gpt-4o") == family("openai/gpt-4.1-mini") == "gpt"
    assert family("anthropic/claude-3-7-sonnet") == "claude" != family("google/gemini-2.5-pro")


def test_disconnected_comparison_graph_names_the_table() -> None:
    from eq_evals.ratings import Comparison
    from eq_evals.report import build_tables

    comps = [Comparison("m1", "m2", 1.0, 2, "i1", "empathetic_understanding", "en"),
             Comparison("m3", "m4", 0.0, 1, "i1", "empathetic_understanding", "en")]
    with pytest.raises(EqEvalsError, match="en/empathetic_understanding: .*(disconnected|components)"):
        build_tables(comps, "bt", 0, 0, progress=False)


def test_two_models_are_rated(logs: dict[str, Path], tmp_path: Path) -> None:
    from eq_evals.ratings import Comparison
    from eq_evals.report import build_tables

    comps = [Comparison("m1", "m2", 1.0, 2, f"i{i}", "x", "en") for i in range(3)] + [
        Comparison("m1", "m2", 0.0, 1, "i9", "x", "en")]
    [table] = build_tables(comps, "bt", 100, 0, progress=False)
    assert [r.model for r in table.ratings] == ["m1", "m2"]
