"""Folders of logs hold other files too: eval-set's indexes, a profile's plan.json and its report card with the
leaderboards' JSON (docs/profile.md). Expanding a folder keeps the logs only; a file named explicitly is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError
from eq_evals.logcheck import expand_log_paths


def test_a_folder_expands_to_its_logs_only(tmp_path: Path) -> None:
    [log] = inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        limit=1,
        epochs=1,
        log_dir=str(tmp_path),
        log_format="json",
        display="none",
    )
    (tmp_path / "card" / "files").mkdir(parents=True)
    for name, content in {
        "eval-set.json": {"eval_set_id": "x"},
        "logs.json": {},
        "plan.json": {"rows": []},
        "card/report.json": {"benchmarks": []},
        "card/files/heart_leaderboard.json": {"rows": [{"model": "m"}]},
    }.items():
        (tmp_path / name).write_text(json.dumps(content), encoding="utf-8")
    assert expand_log_paths(str(tmp_path)) == [log.location]
    # a file named on its own is taken as given, and the reader names it if it is not a log
    assert expand_log_paths(str(tmp_path / "card/files/heart_leaderboard.json")) == [
        str(tmp_path / "card/files/heart_leaderboard.json")
    ]
    with pytest.raises(EqEvalsError, match="no Inspect logs found"):
        expand_log_paths(str(tmp_path / "card"))
