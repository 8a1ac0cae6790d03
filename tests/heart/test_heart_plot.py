"""The HEART leaderboard chart draws each interval from its bounds: a percentile bootstrap interval over few
conversations need not contain the Elo estimate (found with three Chinese histories and two scripted systems)."""

from __future__ import annotations

from pathlib import Path

from eq_evals.heart.leaderboard import plot


def test_chart_of_an_interval_that_excludes_the_estimate(tmp_path: Path) -> None:
    rows = [
        {
            "model": "eq_evals/scripted-heart-warm",
            "overall_win_rate": 100.0,
            "elo": 1941.4,
            "elo_ci_asymptotic": [1744.9, 2138.0],
            "elo_ci_bootstrap": [1939.1, 1939.1],
        },
        {
            "model": "reference",
            "overall_win_rate": 50.0,
            "elo": 1430.0,
            "elo_ci_asymptotic": [1290.0, 1570.0],
            "elo_ci_bootstrap": [None, None],
        },
    ]
    plot({"rows": rows}, tmp_path / "heart.png")
    assert (tmp_path / "heart.png").stat().st_size > 0
