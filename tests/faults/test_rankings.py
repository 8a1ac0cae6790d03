"""Issue 19, finding 6 and the ranking parts of finding 7: leaderboards that crash, or rank without saying what
the ranking cannot carry.

- Finding 6: ``eq-evals ratings`` crashes on a HEART system that loses every comparison ("'xerr' must not contain
  negative values" while drawing the chart): its point Elo lies outside its bootstrap interval (the point fit and
  the bootstrap fits use different L2 priors). Honest: the leaderboard is written and every interval contains its
  estimate.
- TrueSkill, Elo and EQ-Bench 3 modes rank a disconnected comparison graph as one list without a note, where
  Bradley-Terry and Thurstone-Mosteller refuse it (docs/ratings.md).
- EQ-Bench 3 mode ranks a model that won 1 and lost 3 of four matchups above the model that won the other 3,
  without a small-sample note (TrueSkill updates in sequence: the last matchup weighs most).
- Equal SAGE scores get different ranks without a tie mark.

The comparisons come from real judging logs: FACET naturalness generations of scripted models on four items written
here, judged by the scripted judge (the shorter reply wins, by one "+" when the lengths differ by under ten words;
src/eq_evals/pairwise/scripted_judge.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from faultkit import REPO, run_cli
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

import eq_evals._registry  # noqa: F401

JUDGE = {"grader": "eq_evals/scripted-judge"}
# The scripted FACET models do not know these items: oracle and wrong answer "I could not find a question I
# recognise." (8 words), malformed a fixed 15-word sentence, echo "[scripted] " + the item (1 + its words).
ITEMS = [
    "my sister never calls me back anymore honestly",  # echo 9 words: loses by one "+"
    "work has been piling up and nobody notices it",  # echo 10 words: loses
    "i keep thinking about the exam i failed today",  # echo 10 words: loses
    "i miss my old friends",
]  # echo 6 words: wins the last matchup


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two judging logs over the four items: echo vs oracle (echo wins 1, loses 3) and malformed vs wrong; together
    their comparison graph has two components."""
    root = tmp_path_factory.mktemp("rankings")
    first = json.loads((REPO / "datasets" / "facet" / "naturalness.jsonl").read_text(encoding="utf-8").splitlines()[0])
    items = root / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({**first, "id": f"n-{i:03d}-en", "item_id": f"n-{i:03d}", "input": text}) + "\n"
            for i, text in enumerate(ITEMS, 1)
        ),
        encoding="utf-8",
    )
    out = {}
    for name, models in (
        ("a", ["eq_evals/scripted-echo", "eq_evals/scripted-oracle"]),
        ("b", ["eq_evals/scripted-malformed", "eq_evals/scripted-wrong"]),
    ):
        inspect_eval(
            "eq_evals/facet_naturalness",
            model=models,
            task_args={"source": str(items)},
            log_dir=str(root / f"gen_{name}"),
            display="none",
        )
        [log] = inspect_eval(
            "eq_evals/facet_pairwise",
            model=None,
            model_roles=JUDGE,
            display="none",
            task_args={"logs": str(root / f"gen_{name}"), "pairing": "round_robin"},
            log_dir=str(root / f"judged_{name}"),
        )
        out[name] = Path(log.location)
        if name == "a":
            winners = [s.scores["pairwise_judge"].answer for s in sorted(log.samples, key=lambda s: str(s.id))]
            assert winners == ["eq_evals/scripted-oracle"] * 3 + ["eq_evals/scripted-echo"], winners
    return out


def ratings(capsys: pytest.CaptureFixture, out: Path, *args: Any) -> tuple[int, str]:
    """``eq-evals ratings ARGS --out OUT``: exit status and everything it said (output folder paths blanked, so a
    test's own name in them is never read as the command's words)."""
    code, stdout, stderr = run_cli(capsys, "ratings", *args, "--quiet", "--bootstrap", "50", "--out", out)
    md = out / "leaderboard.md"
    said = stdout + stderr + (md.read_text(encoding="utf-8") if code == 0 and md.exists() else "")
    return code, said.replace(str(out), "<out>")


@pytest.mark.parametrize("method", ["bt", "thurstone"])
def test_bt_and_thurstone_refuse_a_disconnected_comparison_graph(
    method: str, judged: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    code, said = ratings(capsys, tmp_path, judged["a"], judged["b"], "--method", method)
    assert code != 0 and "disconnected into 2 components" in said


@pytest.mark.parametrize("method", ["trueskill", "elo", "eqbench3"])
def test_a_disconnected_comparison_graph_is_refused_or_noted(
    method: str, judged: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    _, said = ratings(capsys, tmp_path, judged["a"], judged["b"], "--method", method)
    assert re.search(r"disconnected|not connected|components?\b", said, re.IGNORECASE), said


def test_eqbench3_on_four_matchups_has_a_small_sample_note(
    judged: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    code, said = ratings(capsys, tmp_path, judged["a"], "--method", "eqbench3")
    assert code == 0, said
    assert re.search(r"small[- ]sample|too few|only \d+ (comparisons|matchups)", said, re.IGNORECASE), said


@pytest.fixture
def heart_loser(tmp_path: Path) -> Path:
    """A HEART log whose only system replies with nothing: it loses every comparison with the reference (an
    automatic loss at strength 5, docs/heart.md)."""
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-silent",
        model_roles={"grader": "eq_evals/scripted-hjudge"},
        task_args={"language": "en"},
        limit=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success" and len(log.samples) == 2
    assert all(s.scores["heart_pairwise"].value["overall"] == 0 for s in log.samples)
    return tmp_path / "logs"


def test_ratings_on_a_heart_system_that_loses_every_comparison(
    heart_loser: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    code, _, stderr = run_cli(capsys, "ratings", heart_loser, "--quiet", "--out", tmp_path / "out")
    assert code == 0, stderr
    rows = json.loads((tmp_path / "out" / "heart_leaderboard.json").read_text(encoding="utf-8"))["rows"]
    assert {r["model"] for r in rows} == {"reference", "eq_evals/scripted-heart-silent"}
    for r in rows:
        for key in ("elo_ci_asymptotic", "elo_ci_bootstrap"):
            lo, hi = r[key]
            assert lo <= r["elo"] <= hi, (r["model"], key, lo, r["elo"], hi)
    assert (tmp_path / "out" / "heart_leaderboard.png").exists()


@pytest.fixture(scope="module")
def sage_tie(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two SAGE logs whose models get the same Sentient score (the scripted user's emotion ignores the replies)."""
    root = tmp_path_factory.mktemp("sage_tie")
    logs = inspect_eval(
        "eq_evals/sage",
        model=["eq_evals/scripted-echo", "eq_evals/scripted-oracle"],
        model_roles={"simulated_user": get_model("eq_evals/scripted-sage-user", changes=10)},
        limit=2,
        log_dir=str(root),
        display="none",
    )
    means = {log.results.scores[0].metrics["mean"].value for log in logs}
    assert len(logs) == 2 and len(means) == 1, means
    return root


def test_equal_sage_scores_are_marked_as_a_tie(sage_tie: Path, capsys: pytest.CaptureFixture) -> None:
    _, out, _ = run_cli(capsys, "sage", "leaderboard", sage_tie, "--json")
    rows = json.loads(out)
    assert len(rows) == 2 and rows[0]["sentient"] == rows[1]["sentient"]
    _, text, _ = run_cli(capsys, "sage", "leaderboard", sage_tie)
    assert rows[0]["rank"] == rows[1]["rank"] or re.search(r"\btie[ds]?\b", text, re.IGNORECASE), text
