"""`eq-evals ratings` and `eq-evals agreement` on real logs produced through Inspect."""

from __future__ import annotations

import csv
import json
import shutil
import time
from pathlib import Path

import pytest
from benchmark_logs import objective_ids
from inspect_ai import eval as inspect_eval
from support import judge_pairwise

import eq_evals._registry  # noqa: F401
from eq_evals.agreement_cli import agreement
from eq_evals.cli import main as cli
from eq_evals.core.text import family
from eq_evals.errors import EqEvalsError
from eq_evals.report import run

MODELS = ["eq_evals/scripted-echo", "eq_evals/scripted-malformed", "eq_evals/scripted-oracle"]
FIVE = ["apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy", "crisis_recognition"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory, benchmark_logs, judged_by_one_judge: Path) -> dict[str, Path]:
    """The session's logs (tests/benchmark_logs.py, tests/conftest.py): the FACET interaction generations of
    three models, their judging by the one consistent judge, and FACET objective logs of oracle/wrong/half. Only
    the all-ties judging by the position-biased judge alone is made here (the session judges with both together)."""
    root = tmp_path_factory.mktemp("logs")
    ties = judge_pairwise(benchmark_logs.generations_dir, "eq_evals/scripted-judge-first", root, pairing="round_robin")
    modes = ["eq_evals/scripted-oracle", "eq_evals/scripted-wrong", "eq_evals/scripted-half"]
    (root / "objective").mkdir()
    objective = [e.path for e in benchmark_logs.entries if e.task == "facet_objective" and e.model in modes]
    assert len(objective) == len(modes)
    for path in objective:  # a folder of these three only (the session's holds two more models)
        shutil.copy(path, root / "objective" / path.name)
    return {
        "gen": benchmark_logs.generations_dir,
        "judged": judged_by_one_judge,
        "ties": Path(ties.location),
        "objective": root / "objective",
    }


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
    # one family() for the flag and HEART's exclusion: a scripted mode is its own family (judge != echo, oracle)
    assert judge["self_family"] == []
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    assert "## Judge diagnostics" in md


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
    assert set(FIVE) <= set(en["eq_evals/scripted-oracle"])
    assert en["eq_evals/scripted-oracle"]["objective_average"] == 100.0
    assert en["eq_evals/scripted-wrong"]["objective_average"] == 0.0
    assert result["tables"] == [] and result["gap"] == {}


def test_partial_objective_average_is_marked_not_averaged(tmp_path: Path) -> None:
    """Only Crisis Recognition: the Objective Average (mean of all five, FACET paper Fig. 2) is not given."""
    inspect_eval(
        "eq_evals/facet_crisis",
        model="eq_evals/scripted-oracle",
        epochs=1,
        limit=4,
        log_dir=str(tmp_path / "crisis"),
        display="none",
    )
    result = run([str(tmp_path / "crisis")], str(tmp_path / "out"), progress=False)
    row = result["objective"]["en"]["eq_evals/scripted-oracle"]
    assert row["crisis_recognition"] == 100.0
    assert row["objective_average"] is None and row["partial_average"] == 100.0
    assert row["missing_dimensions"] == FIVE[:4]
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "partial: 100.0 (missing apparent_emotion, hidden_emotion, emotion_prediction, social_adequacy)" in md


def test_overlapping_objective_logs_keep_the_newest_score(tmp_path: Path) -> None:
    """facet_objective and facet_crisis score the same crisis samples of the same model: one score per (model,
    language, sample id, epoch), the newest log's. Prose answers are right when normalised, wrong byte-exact."""
    model = "eq_evals/scripted-prose"
    ids = objective_ids(1)
    crisis_ids = [i for i in ids if "crisis" in i]
    inspect_eval(
        "eq_evals/facet_objective",
        model=model,
        task_args={"language": "all"},
        epochs=1,
        sample_id=ids,
        log_dir=str(tmp_path / "a_old"),
        display="none",
    )
    time.sleep(1.1)  # Inspect log times have one-second resolution
    inspect_eval(
        "eq_evals/facet_crisis",
        model=model,
        epochs=1,
        sample_id=crisis_ids,
        task_args={"language": "all", "normalize_labels": False},
        log_dir=str(tmp_path / "b_new"),
        display="none",
    )
    for order in ([tmp_path / "a_old", tmp_path / "b_new"], [tmp_path / "b_new", tmp_path / "a_old"]):
        result = run([str(p) for p in order], str(tmp_path / "out"), progress=False)
        for lang in ("en", "zh"):
            row = result["objective"][lang][model]
            assert row["crisis_recognition"] == 0.0  # the newer byte-exact run, not a 50% blend of both
            assert row["apparent_emotion"] == 100.0
        assert any(
            f"{len(crisis_ids)} objective scores appeared in more than one log" in n for n in result["objective_notes"]
        )
        crisis = result["crisis_confusion"]["en"][model]
        assert crisis["n"] == 1 and crisis["parsed"] == 0  # byte-exact scoring parses nothing from prose


def test_too_small_a_cohort_gives_a_note_not_a_gap(logs: dict[str, Path], tmp_path: Path) -> None:
    # objective logs of oracle/wrong/half, judged logs of echo/malformed/oracle: one shared model only
    result = run([str(logs["objective"]), str(logs["ties"])], str(tmp_path), bootstrap=20, progress=False)
    assert "en" not in result["gap"]
    assert result["gap"]["_cohort"]["en"] == ["eq_evals/scripted-oracle"]
    assert "needs a cohort of at least 3 models" in result["gap"]["_notes"]["en"]
    assert "needs a cohort of at least 3" in (tmp_path / "leaderboard.md").read_text(encoding="utf-8")


def test_gap_leaves_out_partial_objective_averages() -> None:
    from eq_evals.facet.leaderboard import gap_rows

    full = {d: 50.0 for d in FIVE}
    objective = {
        "en": {
            "m1": {**full, "objective_average": 40.0},
            "m2": {**full, "objective_average": 50.0},
            "m3": {**full, "objective_average": 60.0},
            "m4": {
                "crisis_recognition": 90.0,
                "objective_average": None,
                "partial_average": 90.0,
                "missing_dimensions": FIVE[:4],
            },
        }
    }
    subjective = {"en": {"m1": 1100.0, "m2": 1000.0, "m3": 900.0, "m4": 1200.0}}
    gap = gap_rows(subjective, objective)
    assert gap["_cohort"]["en"] == ["m1", "m2", "m3"] and set(gap["en"]) == {"m1", "m2", "m3"}
    assert "m4 lacks apparent_emotion, hidden_emotion, emotion_prediction, social_adequacy" in gap["_notes"]["en"]
    # hand computation: objective 40/50/60 and subjective 1100/1000/900 have population SD 8.165 and 81.65, so
    # z_obj(m1) = -10/8.165 = -1.2247, z_sub(m1) = +100/81.65 = +1.2247 and ΔZ(m1) = 2.4495
    assert gap["en"]["m1"]["delta_z"] == pytest.approx(2 * 1.224745, abs=1e-5)
    assert gap["en"]["m2"]["delta_z"] == pytest.approx(0.0, abs=1e-12)


def test_gap_profiles_with_judged_and_objective_logs(tmp_path: Path) -> None:
    """Same three model names in both kinds of log: ΔZ per language and a profile per model."""
    root = tmp_path / "logs"
    # three scripted modes whose objective scores and interaction replies both differ
    models = ["eq_evals/scripted-prose", "eq_evals/scripted-echo", "eq_evals/scripted-malformed"]
    inspect_eval(
        "eq_evals/facet_objective",
        model=models,
        task_args={"language": "all"},
        epochs=1,
        sample_id=objective_ids(),
        log_dir=str(root / "obj"),
        display="none",
    )
    inspect_eval(
        "eq_evals/facet_naturalness",
        model=models,
        task_args={"language": "all"},
        limit=10,
        log_dir=str(root / "gen"),
        display="none",
    )
    inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": "eq_evals/scripted-judge"},
        task_args={"logs": str(root / "gen"), "pairing": "round_robin"},
        log_dir=str(root / "judged"),
        display="none",
    )
    result = run([str(root / "obj"), str(root / "judged")], str(tmp_path / "out"), bootstrap=50, progress=False)
    assert {k for k in result["gap"] if not k.startswith("_")} == {"en", "zh"}, result["gap"]
    assert result["gap"]["_cohort"] == {"en": sorted(models), "zh": sorted(models)}
    assert "Overall TrueSkill mu" in result["gap"]["_statistic"]["subjective"]
    # Z_sub comes from FACET's Overall TrueSkill mu whatever --method rates the tables (docs/pairwise.md, '3. eq-evals ratings', ΔZ)
    by_trueskill = run(
        [str(root / "obj"), str(root / "judged")], str(tmp_path / "ts"), method="trueskill", progress=False
    )
    for method in ("elo",):
        other = run([str(root / "obj"), str(root / "judged")], str(tmp_path / method), method=method, progress=False)
        assert other["gap"] == result["gap"] == by_trueskill["gap"]
    for language in ("en", "zh"):
        ts_rows = [r for r in by_trueskill["tables"] if r["language"] == language]
        mu = {r["model"]: r["rating"] for r in ts_rows}
        for m in models:
            assert result["gap"][language][m]["subjective_mu"] == pytest.approx(mu[m], abs=1e-3)
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "Cohort en (3 models)" in md and "whatever --method" in md
    for language, rows in result["gap"].items():
        if language.startswith("_"):
            continue
        assert set(rows) == set(models)
        assert abs(sum(r["delta_z"] for r in rows.values())) < 1e-9  # z-scores are centred in both terms
        for r in rows.values():
            assert r["delta_z"] == pytest.approx(r["z_subjective"] - r["z_objective"])
            assert r["profile"] in ("cognitive-dominant", "interactive-dominant", "context-dependent")


def test_bad_inputs(logs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError, match="nothing to rate(.|\n)*no leaderboard reads these logs"):
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
            w.writerow([sid, "h1", judge[sid]])  # agrees with the judge
            w.writerow([sid, "h2", "B" if judge[sid] == "A" else "A"])  # always disagrees
    report = agreement([str(logs["judged"])], str(human))
    per_human = report["cohen"]["eq_evals/scripted-judge"]["per_human"]
    assert per_human["human:h1"]["kappa"] == pytest.approx(1.0)
    assert per_human["human:h2"]["kappa"] < 0
    assert report["fleiss_humans"]["n"] == 12 and report["krippendorff_alpha"]["n"] == len(judge)
    assert cli(["agreement", str(logs["judged"]), "--human", str(human)]) == 0
    human.write_text("sample_id,rater,label\nnope,h1,A\n")
    assert cli(["agreement", str(logs["judged"]), "--human", str(human)]) == 2
    assert "row 2: sample_id 'nope' is not a matchup" in capsys.readouterr().err


def test_family() -> None:
    assert family("openai/gpt-4o") == family("openai/gpt-4.1-mini") == "gpt"
    assert family("anthropic/claude-3-7-sonnet") == "claude" != family("google/gemini-2.5-pro")
    # the ratings flag and HEART's same-family exclusion use this one function (they used to disagree on o3)
    assert family("openai/o3-mini") == family("openai/gpt-4o") == "gpt"
    from eq_evals.heart.scorer import eligible_judges

    assert eligible_judges(["openai/o3-mini", "anthropic/claude-3-7-sonnet"], ["openai/gpt-4o", "qwen/qwen3"]) == (
        ["anthropic/claude-3-7-sonnet"],
        False,
    )


def test_disconnected_comparison_graph_names_the_table() -> None:
    from eq_evals.pairwise.leaderboard import build_tables
    from eq_evals.ratings import Comparison

    comps = [
        Comparison("m1", "m2", 1.0, 2, "i1", "empathetic_understanding", "en"),
        Comparison("m3", "m4", 0.0, 1, "i1", "empathetic_understanding", "en"),
    ]
    with pytest.raises(EqEvalsError, match="en/empathetic_understanding: .*(disconnected|components)"):
        build_tables(comps, "bt", 0, 0, progress=False)


def test_mean_of_dimension_ratings_beside_overall(tmp_path: Path) -> None:
    """Overall rates the pooled comparisons; the plain mean of the dimension ratings is reported beside it,
    labelled as a different statistic (docs/ratings.md, '3. TrueSkill as FACET does it', 'Overall')."""
    from eq_evals.pairwise.leaderboard import DIMENSION_MEAN_LABEL, build_tables, render_tables, rows_for_csv
    from eq_evals.ratings import Comparison

    comps = [Comparison("m1", "m2", 1.0, 3, f"i{i}", "d1", "en") for i in range(4)]
    comps += [Comparison("m2", "m3", 1.0, 1, f"i{i}", "d1", "en") for i in range(2)]
    comps += [Comparison("m1", "m3", 0.0, 2, f"i{i}", "d2", "en") for i in range(3)]
    comps += [Comparison("m2", "m3", 0.5, 0, "i9", "d2", "en"), Comparison("m1", "m2", 1.0, 1, "i8", "d2", "en")]
    tables = build_tables(comps, "trueskill", 0, 0, progress=False)
    by_dim = {t.dimension: {r.model: r.score for r in t.ratings} for t in tables}
    overall = next(t for t in tables if t.dimension == "overall")
    for m in ("m1", "m2", "m3"):
        mean, n = overall.dimension_means[m]
        assert n == 2 and mean == pytest.approx((by_dim["d1"][m] + by_dim["d2"][m]) / 2)
        assert mean != pytest.approx(by_dim["overall"][m])  # a different statistic
    rows = rows_for_csv(tables)
    assert all(r["mean_of_dimension_ratings"] is None for r in rows if r["dimension"] != "overall")
    assert {r["model"]: r["mean_of_dimension_ratings"] for r in rows if r["dimension"] == "overall"} == {
        m: round(overall.dimension_means[m][0], 3) for m in ("m1", "m2", "m3")
    }
    md = render_tables("trueskill", tables, {})
    assert "mean of dimension ratings †" in md and "a different statistic from Overall" in md
    assert "different statistic" in DIMENSION_MEAN_LABEL


def test_two_models_are_rated(logs: dict[str, Path], tmp_path: Path) -> None:
    from eq_evals.pairwise.leaderboard import build_tables
    from eq_evals.ratings import Comparison

    comps = [Comparison("m1", "m2", 1.0, 2, f"i{i}", "x", "en") for i in range(3)] + [
        Comparison("m1", "m2", 0.0, 1, "i9", "x", "en")
    ]
    [table] = build_tables(comps, "bt", 100, 0, progress=False)
    assert [r.model for r in table.ratings] == ["m1", "m2"]


def test_every_interval_contains_its_rating() -> None:
    """Extreme data (a model that wins or loses everything) for every method: no crash, and each interval holds its
    estimate (issue 19)."""
    from eq_evals.pairwise.leaderboard import METHODS, build_tables
    from eq_evals.ratings import Comparison

    comps = [Comparison("top", "mid", 1.0, 3, f"i{i}", "d", "en") for i in range(4)]
    comps += [Comparison("mid", "low", 1.0, 2, f"j{i}", "d", "en") for i in range(4)]
    comps += [Comparison("top", "low", 1.0, 5, f"k{i}", "d", "en") for i in range(4)]
    for method in METHODS:
        [table] = build_tables(comps, method, 50, 0, progress=False)
        for r in table.ratings:
            lo, hi = (r.lower, r.upper) if r.lower is not None else (r.score, r.score)
            assert lo <= r.score <= hi, (method, r)


def test_an_interval_that_misses_its_rating_is_widened_and_noted() -> None:
    from eq_evals.pairwise.leaderboard import containing
    from eq_evals.ratings import Rating

    fixed, widened = containing(
        {
            "a": Rating("a", 1244.3, 1245.6, 1245.6, None, 4, 0, 4, 0),
            "b": Rating("b", 1500.0, 1400.0, 1600.0, None, 4, 4, 0, 0),
        }
    )
    assert widened == ["a"] and (fixed["a"].lower, fixed["a"].upper) == (1244.3, 1245.6)
    assert fixed["b"] == Rating("b", 1500.0, 1400.0, 1600.0, None, 4, 4, 0, 0)
