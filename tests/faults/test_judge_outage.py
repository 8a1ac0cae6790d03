"""Issue 19, finding 2: a PACE board agent that fails (a judge outage) must not yield a silent partial composite.

When an agent's calls fail, its dimension is left missing and the composite EQ is renormalised over the other
dimensions (docs/pace-weights.md, "missing dimension -> renormalise") in a log that says complete; ``eq-evals
doctor`` reports the log complete and ``eq-evals ratings`` ranks the model unmarked. Honest: the sample is errored
(``inspect eval-retry`` judges it again once the outage ends), or its composite is explicitly partial, counted by
``eq-evals doctor`` and marked in the leaderboard.

The outage: the scripted board model raises for about a third of the prompts (``fail_every=3``, always the same
ones) while a marker file exists (``fail_while``), through the real ``inspect eval`` CLI.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from faultkit import inspect_eval_cli, run_cli
from inspect_ai.log import EvalLog, EvalSample

DIMENSIONS = ("P", "A", "C", "E")


def missing_dimensions(sample: EvalSample) -> list[str]:
    value = sample.scores["pace_board"].value if sample.scores and "pace_board" in sample.scores else None
    if not isinstance(value, dict):
        return []
    return [d for d in DIMENSIONS if not isinstance(value.get(d), (int, float)) or math.isnan(value[d])]


@pytest.fixture(scope="module")
def outage(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, list[str]]:
    """The log of a PACE run during a board outage, and the ids of the samples the outage hit."""
    root = tmp_path_factory.mktemp("board_outage")
    marker = root / "outage"
    marker.touch()
    grader = json.dumps(
        {"model": "eq_evals/scripted-pace-agent", "model_args": {"fail_every": 3, "fail_while": str(marker)}}
    )
    log = inspect_eval_cli(
        root / "logs",
        "eq_evals/pace",
        "--model",
        "eq_evals/scripted-oracle",
        "--limit",
        "4",
        "--model-role",
        f"grader={grader}",
    )
    hit = [str(s.id) for s in log.samples if s.error is not None or missing_dimensions(s)]
    assert 0 < len(hit) < len(log.samples), "the outage should hit some board calls, not all"
    return log, hit


def test_pace_board_outage_is_errored_or_an_explicit_partial_composite(
    outage: tuple[EvalLog, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    log, hit = outage
    code, out, _ = run_cli(capsys, "doctor", log.location, "--json")
    [doc] = json.loads(out)["logs"]
    # counted by doctor: as errored samples, or as partial composites whose reason says a dimension is missing
    flagged = doc["errored"] + sum(
        u["count"] for u in doc["unscored"] if re.search(r"missing|partial", u["reason"], re.IGNORECASE)
    )
    assert flagged == len(hit), (doc["errored"], doc["unscored"])
    # marked in the leaderboard (--allow-partial: an errored run is then included, marked partial)
    code, _, err = run_cli(
        capsys, "ratings", log.location, "--allow-partial", "--bootstrap", "20", "--quiet", "--out", str(tmp_path)
    )
    assert code == 0, err
    [table] = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))["pace"]
    assert table.get("partial") or all(row.get("partial") for row in table["rows"]), table
    assert "partial" in (tmp_path / "leaderboard.md").read_text(encoding="utf-8").lower()
