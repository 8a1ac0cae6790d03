"""The one chart style (``eq_evals.charts``): sorted best first, intervals, marks, caveats and the footnote drawn
on the chart itself, SVG with text kept as text, PNG beside it."""

from __future__ import annotations

from pathlib import Path

from eq_evals.charts import Chart, Point, save, svg


def test_points_sorted_marked_and_annotated(tmp_path: Path) -> None:
    chart = Chart(
        "A leaderboard",
        "rating",
        [Point("m/low", 900, 850, 950), Point("m/high", 1100, 1050, 1150, mark="partial"), Point("m/none", None)],
        caveats=["perfect separation (never lost: m/high)"],
        footnote="judge: j/one · date: 2026-11-27 · data: facet@abc",
    )
    assert chart.rows() == ["m/high", "m/low", "m/none"]  # best first, unscored last
    text = svg(chart)
    assert text.startswith("<svg") and "<?xml" not in text and "DOCTYPE" not in text
    for words in ("A leaderboard", "perfect separation", "judge: j/one", "m/high (partial)", "unscored", "1100"):
        assert words in text, words
    paths = save(chart, tmp_path / "x" / "board")
    assert [p.name for p in paths] == ["board.svg", "board.png"]
    assert paths[1].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert svg(chart) == svg(chart)  # deterministic (no date, fixed ids)


def test_bars_with_references_and_series(tmp_path: Path) -> None:
    chart = Chart(
        "Accuracy",
        "accuracy %",
        [Point(d, v, series=m) for d in ("a", "b") for m, v in (("m/one", 40.0), ("m/two", 70.0))],
        kind="bars",
        references={"chance": 25.0, "majority": 30.0},
        sort=False,
        xlim=(0, 100),
    )
    text = svg(chart)
    assert "chance 25.0" in text and "majority 30.0" in text
    assert "one" in text and "two" in text  # the legend names the models
    stacked = svg([chart, Chart("Second panel", "x", [Point("m/one", 1.0)])])
    assert "Second panel" in stacked and "Accuracy" in stacked


def test_a_number_at_the_top_of_the_scale_stays_inside_the_chart() -> None:
    """Models side by side (a profile): a score at the top of a 0-100 scale gets its number left of its interval,
    not past the chart's right edge where it was cut off."""
    from eq_evals.charts import figure

    chart = Chart(
        "Profile",
        "0-100",
        [Point("a", 100.0, 60.0, 100.0, series="m/top"), Point("a", 40.0, 20.0, 60.0, series="m/mid")],
        sort=False,
        xlim=(0, 100),
    )
    fig = figure(chart)
    [ax] = [a for a in fig.axes if a.get_xlim() == (0, 100)]
    labels = {t.get_text(): t for t in ax.texts}
    top, mid = labels["100.0"], labels["40.0"]
    assert top.get_position()[0] < 60 and top.get_horizontalalignment() == "right"
    assert mid.get_position()[0] > 60 and mid.get_horizontalalignment() == "left"
