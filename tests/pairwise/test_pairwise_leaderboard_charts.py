"""The pairwise leaderboard's charts are worth looking at (issue 13): one chart per table and an overall one, a
column wide, on one shared scale, best model first."""

from __future__ import annotations

from pathlib import Path


def test_charts_one_per_table_shared_scale(tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    from eq_evals.pairwise.leaderboard import _chart_limits, build_tables, plot
    from eq_evals.ratings.comparisons import Comparison

    strength = {"m/strong": 2, "m/mid": 1, "m/weak": 0}
    comps = [
        Comparison(
            a, b, 1.0 if strength[a] > strength[b] else 0.0 if (i + j) % 4 else 1.0, 2, f"{dim}-{i}-{j}", dim, lang
        )
        for lang in ("en", "zh")
        for dim in ("empathy", "insight")
        for i, a in enumerate(strength)
        for j, b in enumerate(strength)
        if a != b
        for _ in range(3)
    ]
    tables = build_tables(comps, "bt", 50, 0, progress=False)
    files = plot(tables, tmp_path / "leaderboard.png", "bt")
    stems = ["charts/en_empathy", "charts/en_insight", "charts/en_overall", "charts/zh_empathy", "charts/zh_insight"]
    stems += ["charts/zh_overall", "leaderboard"]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in files) == sorted(
        f"{s}.{ext}" for s in stems for ext in ("png", "svg")
    )
    assert "<text" in (tmp_path / "leaderboard.svg").read_text()  # SVG text kept as text (for papers)
    overall = mpimg.imread(tmp_path / "leaderboard.png")
    single = mpimg.imread(tmp_path / "charts" / "en_empathy.png")
    assert overall.shape[1] == single.shape[1] == 1080  # 7.2 in at 150 dpi: a README or paper column
    assert overall.shape[0] > single.shape[0]  # one panel per language, stacked
    lo, hi = _chart_limits(tables)
    every = [v for t in tables for r in t.ratings for v in (r.score, r.lower, r.upper) if v is not None]
    assert lo < min(every) and hi > max(every)
    assert [r.model for r in tables[0].ratings][0] == "m/strong"  # best first (drawn on top)
