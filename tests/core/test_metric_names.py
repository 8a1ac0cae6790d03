"""Issue 13: metric names a user can read, unscored counts and reasons after a run, SAGE runs that end
unscored kept as a leaderboard row, charts worth looking at, CLI warnings without Python source lines."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from inspect_ai.scorer import SampleScore, Score

import eq_evals._registry  # noqa: F401
from eq_evals.cli import main as cli_main
from eq_evals.core.metrics import by_group, metric_key
from eq_evals.summary_hook import unscored_lines


def sample_score(value: float, **meta: str) -> SampleScore:
    return SampleScore(score=Score(value=value), sample_id=f"s{value}{meta}", sample_metadata=meta)


def test_by_group_names_and_values() -> None:
    scores = [sample_score(1.0, language="en"), sample_score(0.0, language="en"), sample_score(1.0, language="zh")]
    means = by_group("mean", "language")(scores)
    assert means == {"mean_en": 0.5, "mean_zh": 1.0}
    errors = by_group("stderr", "language", label="lang")(scores)
    assert set(errors) == {"stderr_lang_en", "stderr_lang_zh"} and errors["stderr_lang_en"] == pytest.approx(0.5)
    assert metric_key("mean", "en:apparent_emotion") == "mean_en_apparent_emotion"
    # no scored sample: one readable NaN, not Inspect's anonymous 'grouped' row
    empty = by_group("mean", "personality")([])
    assert list(empty) == ["mean_by_personality"] and math.isnan(empty["mean_by_personality"])
    with pytest.raises(ValueError, match="no metadata field 'language'"):
        by_group("mean", "language")([sample_score(1.0)])
    with pytest.raises(ValueError, match="unknown metric"):
        by_group("median_of_nothing", "language")


def test_every_metric_name_is_readable(log_dir: str) -> None:
    [facet] = inspect_eval("eq_evals/facet_objective", model="eq_evals/scripted-half", task_args={"language": "all"},
                           epochs=1, limit=12, log_dir=log_dir, display="none")
    names = {n for s in facet.results.scores for n in s.metrics}
    assert {"mean_en", "stderr_en", "objective_average_en"} <= names
    assert not [n for n in names if "grouped" in n or ":" in n], names


def test_unscored_sage_run_is_counted_and_kept(log_dir: str, capsys: pytest.CaptureFixture) -> None:
    user = get_model("eq_evals/scripted-sage-user", garble="emotion")
    [bad] = inspect_eval("eq_evals/sage", model="eq_evals/scripted-malformed", model_roles={"simulated_user": user},
                         limit=2, log_dir=log_dir, display="none")
    good_user = get_model("eq_evals/scripted-sage-user", changes=10)
    inspect_eval("eq_evals/sage", model="eq_evals/scripted-echo", model_roles={"simulated_user": good_user}, limit=2,
                 log_dir=log_dir, display="none")
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


def test_charts_one_per_table_shared_scale(tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    from eq_evals.ratings.comparisons import Comparison
    from eq_evals.pairwise.leaderboard import _chart_limits, build_tables, plot

    strength = {"m/strong": 2, "m/mid": 1, "m/weak": 0}
    comps = [Comparison(a, b, 1.0 if strength[a] > strength[b] else 0.0 if (i + j) % 4 else 1.0, 2, f"{dim}-{i}-{j}",
                        dim, lang)
             for lang in ("en", "zh") for dim in ("empathy", "insight")
             for i, a in enumerate(strength) for j, b in enumerate(strength) if a != b for _ in range(3)]
    tables = build_tables(comps, "bt", 50, 0, progress=False)
    files = plot(tables, tmp_path / "leaderboard.png", "bt")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in files) == [
        "charts/en_empathy.png", "charts/en_insight.png", "charts/en_overall.png", "charts/zh_empathy.png",
        "charts/zh_insight.png", "charts/zh_overall.png", "leaderboard.png"]
    overall = mpimg.imread(tmp_path / "leaderboard.png")
    single = mpimg.imread(tmp_path / "charts" / "en_empathy.png")
    assert overall.shape[1] == single.shape[1] == 960  # 6.4 in at 150 dpi: a README or paper column
    assert overall.shape[0] > single.shape[0]          # one panel per language, stacked
    lo, hi = _chart_limits(tables)
    every = [v for t in tables for r in t.ratings for v in (r.score, r.lower, r.upper) if v is not None]
    assert lo < min(every) and hi > max(every)
    assert [r.model for r in tables[0].ratings][0] == "m/strong"  # best first (drawn on top)


def test_cli_warning_without_source_line_and_clean_paths(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import eq_evals.commands.listing as listing

    def noisy(args) -> int:  # noqa: ANN001
        warnings.warn("bradley_terry: perfect separation (never lost: ['a'])", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(listing, "cmd_list", noisy)
    assert cli_main(["list"]) == 0
    err = capsys.readouterr().err
    assert err == "eq-evals: warning: bradley_terry: perfect separation (never lost: ['a'])\n"


def test_judge_calls_sit_under_their_order_spans_and_prompt_reads_cleanly(tmp_path: Path) -> None:
    from eq_evals.pairwise.judge import bare_user_input

    assert bare_user_input("User: I failed stats") == "I failed stats"
    assert bare_user_input("用户：期末考了第一") == "期末考了第一"
    assert bare_user_input("User: hi\nAssistant: hello\nUser: bye") == "User: hi\nAssistant: hello\nUser: bye"
    assert bare_user_input("I said User: no") == "I said User: no"

    inspect_eval("eq_evals/facet_deepening", model=["eq_evals/scripted-echo", "eq_evals/scripted-oracle"],
                 task_args={"language": "all"}, limit=2, log_dir=str(tmp_path / "gen"), display="none")
    [judged] = inspect_eval("eq_evals/facet_pairwise", model=None, model_roles={"grader": "eq_evals/scripted-judge"},
                            task_args={"logs": str(tmp_path / "gen")}, log_dir=str(tmp_path / "judged"),
                            display="none", limit=2)
    assert judged.status == "success"
    from inspect_ai.log import resolve_sample_attachments

    for sample in judged.samples:
        sample = resolve_sample_attachments(sample)
        spans = {e.id: e for e in sample.events if type(e).__name__ == "SpanBeginEvent"}
        judge_spans = {i: e for i, e in spans.items() if e.type == "judge"}
        assert len(judge_spans) == 2  # one per order, for the one judge
        names = sorted(e.name for e in judge_spans.values())
        assert names[0].startswith("eq_evals/scripted-judge judges emotion_deepening: A=")
        scorer_span = next(e for e in spans.values() if e.type == "scorer")
        assert all(e.parent_id == scorer_span.id for e in judge_spans.values())
        models = [e for e in sample.events if type(e).__name__ == "ModelEvent"]
        assert len(models) == 2 and sorted(e.span_id for e in models) == sorted(judge_spans)
        for e in models:
            prompt = e.input[0].text
            assert prompt.startswith(("User input: ", "用户输入："))
            assert not prompt.startswith(("User input: User:", "用户输入：用户："))


def test_objective_leaderboard_has_chance_and_majority_rows(tmp_path: Path) -> None:
    from eq_evals.facet.baselines import facet_baselines
    from eq_evals.report import run

    [log] = inspect_eval("eq_evals/facet_objective", model="eq_evals/scripted-wrong", task_args={"language": "en"},
                         epochs=1, limit=20, log_dir=str(tmp_path / "logs"), display="none")
    result = run([str(tmp_path / "logs")], str(tmp_path / "out"), progress=False)
    expected = {r.dimension: r for r in facet_baselines([s.metadata for s in log.samples])}
    reference = result["objective_reference"]["en"]
    assert set(reference) == {"reference: chance", "reference: majority"}
    for dimension, row in expected.items():
        assert reference["reference: chance"][dimension] == pytest.approx(100 * row.chance)
        assert reference["reference: majority"][dimension] == pytest.approx(100 * row.majority)
    assert 0 < reference["reference: chance"][next(iter(expected))] < 100
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| *reference: chance* |" in md and "| *reference: majority* |" in md
    assert "eq_evals/scripted-wrong" not in result["objective_reference"]["en"]
    assert set(result["objective"]["en"]) == {"eq_evals/scripted-wrong"}  # not mixed into the models (or ΔZ)
