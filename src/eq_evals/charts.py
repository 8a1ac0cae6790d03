"""Charts in one style for every leaderboard and the report card (docs/ratings.md, "Charts").

Two kinds, both horizontal so that long model names fit:

* **points with intervals** (:func:`Chart` with ``kind="points"``): one row per model (or per facet of a profile),
  a dot for the estimate and a thick bar for its 95% interval, sorted best first, as the Arena and EQ-Bench
  leaderboards draw ratings;
* **bars** (``kind="bars"``) where a benchmark reports percentages (FACET objective accuracy, HEART win rates),
  with the baselines that give them meaning (chance, majority) as labelled dashed lines.

Several models side by side (``Point.series``) are drawn in one colour each, offset within a row, with a legend.
A mark on a point (``partial``, ``unscored``) is drawn hollow and named in the label; caveats (perfect separation,
few comparisons, partial logs) are printed under the title, and the footnote (judge, date, data version) at the
bottom, so they travel with the picture. :func:`save` writes ``<stem>.svg`` (text kept as text, for papers) and
``<stem>.png``; :func:`svg` returns the SVG for inlining in an HTML page (the report card).
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from eq_evals.core.text import fmt

PALETTE = ["#1f4e79", "#c55a11", "#548235", "#7030a0", "#bf9000", "#2e75b6", "#a5243d", "#3b7d7d"]
WARN = "#9c2b00"
GREY = "#595959"
CROWDED = 3  # more models than this on one chart: drawn compact
WIDTH_IN = 7.2  # one column of a two-column paper at 150 dpi is about 1080 px; the README shows it full width


@dataclass
class Point:
    """One estimate on a chart: ``label`` is its row (a model, or a facet in a profile), ``series`` the model
    when several are drawn side by side. ``value`` None = unscored (the row says so, no dot)."""

    label: str
    value: float | None
    lower: float | None = None
    upper: float | None = None
    series: str = ""
    mark: str = ""  # "partial", "unscored", ... : drawn hollow and named after the label


@dataclass
class Chart:
    title: str
    xlabel: str
    points: list[Point]
    kind: Literal["points", "bars"] = "points"
    footnote: str = ""  # judge / date / data version
    caveats: list[str] = field(default_factory=list)
    references: dict[str, float] = field(default_factory=dict)  # label -> x (chance, majority, ...)
    xlim: tuple[float, float] | None = None
    sort: bool = True  # best first; False keeps the order given (a profile's facets)
    digits: int = 1

    def rows(self) -> list[str]:
        """Row labels, top to bottom."""
        labels = list(dict.fromkeys(p.label for p in self.points))
        if not self.sort:
            return labels
        best: dict[str, float] = {}
        for p in self.points:
            if p.value is not None and not math.isnan(p.value):
                best[p.label] = max(best.get(p.label, -math.inf), p.value)
        return sorted(labels, key=lambda label: (label not in best, -best.get(label, 0.0)))

    def series(self) -> list[str]:
        return list(dict.fromkeys(p.series for p in self.points))


def _finite(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def _limits(chart: Chart) -> tuple[float, float]:
    if chart.xlim is not None:
        return chart.xlim
    values = [v for p in chart.points for v in (p.value, p.lower, p.upper) if _finite(v)]
    values += list(chart.references.values())
    if chart.kind == "bars":
        values.append(0.0)
    if not values:
        return 0.0, 1.0
    lo, hi = min(values), max(values)
    pad = max((hi - lo) * 0.08, abs(hi) * 0.02, 1e-9)
    return (0.0 if chart.kind == "bars" and lo >= 0 else lo - pad), hi + pad


def _xlabel(chart: Chart, left: float) -> str:
    """The x label wrapped to the width of the axes (about 14 characters an inch at its size)."""
    return textwrap.fill(chart.xlabel, max(30, int((0.97 - left) * WIDTH_IN * 14)))


def _panel_inches(chart: Chart, n_rows: int, left: float) -> tuple[float, float, float]:
    """(header, plot, x axis) heights of one panel in inches."""
    n_series = max(len(chart.series()), 1)
    n_title = textwrap.fill(chart.title, 72).count("\n") + 1
    n_caveat = sum(textwrap.fill("caveat: " + c, 100).count("\n") + 1 for c in chart.caveats)
    header = 0.12 + 0.2 * n_title + 0.16 * n_caveat + (0.28 if n_series > 1 else 0.05)
    # several models: offset within a row; more than CROWDED: compact (thin intervals, no value labels)
    row_h = 0.34 if n_series == 1 else 0.28 + 0.1 * (n_series - 1) if n_series <= CROWDED else 0.5
    plot = max(n_rows, 1) * row_h + 0.3 + 0.12 * len(chart.references)
    return header, plot, 0.5 + 0.15 * _xlabel(chart, left).count("\n")


def _draw(
    fig: Any, ax: Any, chart: Chart, xlim: tuple[float, float], header_top: float, height: float, left: float
) -> None:
    """One panel: rows, intervals or bars, references, its title and caveats above it (``header_top`` in inches
    from the top of the figure)."""
    rows = chart.rows()
    series = chart.series()
    n_series = max(len(series), 1)
    span = xlim[1] - xlim[0]
    ys = {label: len(rows) - 1 - i for i, label in enumerate(rows)}  # first row at the top
    band = 0.56
    # the first series on top within a row
    # within a row, the models present there are spread over the band (one model alone sits on the row's line)
    present = {
        label: [x for x in series if any(p.label == label and p.series == x for p in chart.points)] for label in rows
    }
    offsets = {
        (label, x): 0.0 if len(here) == 1 else band * (len(here) - 1) / (n_series - 1) * (0.5 - k / (len(here) - 1))
        for label, here in present.items()
        for k, x in enumerate(here)
    }
    for j, s in enumerate(series):
        color = PALETTE[j % len(PALETTE)]
        for p in (p for p in chart.points if p.series == s):
            y = ys[p.label] + offsets[(p.label, s)]
            hollow = bool(p.mark)
            if not _finite(p.value):
                ax.text(xlim[0] + span * 0.01, y, "unscored", va="center", fontsize=7, color=WARN)
                continue
            if chart.kind == "bars":
                h = band / n_series * 0.9 if n_series > 1 else 0.55
                ax.barh(
                    y,
                    p.value,
                    height=h,
                    color="white" if hollow else color,
                    edgecolor=color,
                    hatch="//" if hollow else None,
                    zorder=2,
                )
            crowded = n_series > CROWDED
            if _finite(p.lower) and _finite(p.upper):
                ax.hlines(
                    y,
                    p.lower,
                    p.upper,
                    colors=color,
                    linewidth=1.2 if crowded else 4 if chart.kind == "points" else 1.5,
                    alpha=0.45 if chart.kind == "points" else 0.9,
                    zorder=3,
                )
            if chart.kind == "points":
                ax.plot(
                    p.value,
                    y,
                    "o",
                    markersize=4.5 if crowded else 6.5,
                    color=color,
                    markerfacecolor="white" if hollow else color,
                    zorder=4,
                    clip_on=False,
                )
            if crowded:
                continue  # the numbers are in the tables beside the chart
            text = fmt(p.value, chart.digits) + (f" ({p.mark})" if p.mark else "")
            right = p.upper if _finite(p.upper) else p.value
            if chart.kind == "bars" or n_series > 1:
                x, ha = max(right, p.value) + span * 0.02, "left"
                if x > xlim[1] - span * 0.06:  # no room right of it (a score at the top): left of its interval
                    left = p.lower if _finite(p.lower) else p.value
                    x, ha = min(left, p.value) - span * 0.02, "right"
                ax.text(
                    x,
                    y,
                    text,
                    ha=ha,
                    va="center",
                    fontsize=6.5 if n_series > 1 else 7,
                    color=color,
                    zorder=5,
                )
            else:
                ax.annotate(
                    text,
                    (p.value, y),
                    textcoords="offset points",
                    xytext=(0, 5.5),
                    ha="center",
                    fontsize=7,
                    color=color,
                    zorder=5,
                )
    refs = sorted(chart.references.items(), key=lambda kv: kv[1])
    for k, (label, x) in enumerate(refs):  # labels stacked above the rows, one line each, so they never overlap
        ax.axvline(x, color=GREY, linestyle="--", linewidth=1, zorder=1)
        ax.text(
            x,
            len(rows) - 0.5 + 0.32 * (len(refs) - k) - 0.2,
            f" {label} {fmt(x, chart.digits)}",
            fontsize=7,
            color=GREY,
            va="center",
            ha="left",
            zorder=5,
        )
    labels = []
    for label in rows:
        marks = sorted({p.mark for p in chart.points if p.label == label and p.mark and n_series == 1})
        labels.append(textwrap.shorten(label, 42, placeholder="…") + "".join(f" ({m})" for m in marks))
    ax.set_yticks([ys[r] for r in rows], labels, fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4 + 0.32 * len(refs))
    if chart.kind == "bars" and n_series <= CROWDED:  # room right of the axis for the labels of full bars
        from matplotlib.ticker import MaxNLocator

        ticks = [t for t in MaxNLocator(nbins=6).tick_values(*xlim) if xlim[0] - 1e-9 <= t <= xlim[1] + 1e-9]
        ax.set_xticks(ticks)
        ax.set_xlim(xlim[0], xlim[1] + 0.08 * span)
        ax.spines["bottom"].set_bounds(*xlim)
    else:
        ax.set_xlim(*xlim)
    ax.set_xlabel(_xlabel(chart, left), fontsize=8.5)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3, zorder=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    title = textwrap.fill(chart.title, 72)
    y = header_top + 0.1
    fig.text(0.01, 1 - y / height, title, fontsize=10.5, weight="bold", va="top", ha="left")
    y += 0.2 * (title.count("\n") + 1) + 0.03
    caveats = [textwrap.fill("caveat: " + c, 100) for c in chart.caveats]
    if caveats:
        fig.text(0.01, 1 - y / height, "\n".join(caveats), fontsize=7.5, color=WARN, va="top", ha="left")
        y += 0.16 * sum(c.count("\n") + 1 for c in caveats)
    if len(series) > 1:
        from matplotlib.lines import Line2D

        handles = [
            Line2D([], [], marker="o", linestyle="", color=PALETTE[j % len(PALETTE)], label=s.split("/")[-1])
            for j, s in enumerate(series)
        ]
        fig.legend(
            handles=handles,
            loc="upper left",
            ncols=min(len(series), 5),
            fontsize=7.5,
            frameon=False,
            bbox_to_anchor=(0.0, 1 - (y - 0.04) / height),
            handletextpad=0.2,
            columnspacing=1.2,
        )


def figure(chart: Chart | list[Chart], footnote: str | None = None) -> Any:
    """The matplotlib figure of one chart, or of several stacked as panels (each its own title, caveats and x
    scale: give them one ``xlim`` to compare them by eye); the footnote (the first chart's unless given) at the
    bottom. The caller closes it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = chart if isinstance(chart, list) else [chart]
    foot_text = panels[0].footnote if footnote is None else footnote
    foot = textwrap.fill(foot_text, 120) if foot_text else ""
    n_foot = foot.count("\n") + 1 if foot else 0
    widest = max((len(label) for c in panels for label in c.rows()), default=10)
    marks = max((len(p.mark) + 3 for c in panels for p in c.points if p.mark and len(c.series()) == 1), default=0)
    left = min(0.45, 0.04 + (min(widest, 42) + marks) * 0.0088)
    sizes = [_panel_inches(c, len(c.rows()), left) for c in panels]
    height = sum(sum(s) for s in sizes) + 0.1 + 0.13 * n_foot
    fig = plt.figure(figsize=(WIDTH_IN, height))
    top = 0.0
    for c, (header, plot, axis) in zip(panels, sizes):
        ax = fig.add_axes((left, 1 - (top + header + plot) / height, 0.97 - left, plot / height))
        _draw(fig, ax, c, _limits(c), top, height, left)  # panels on one scale set the same xlim
        top += header + plot + axis
    if foot:
        fig.text(0.01, 0.06 / height, foot, fontsize=6.5, color=GREY, va="bottom", ha="left")
    return fig


def _rc() -> dict[str, Any]:
    return {"svg.fonttype": "none", "svg.hashsalt": "eq-evals", "font.family": "DejaVu Sans"}


def svg(chart: Chart | list[Chart]) -> str:
    """The chart as an ``<svg>`` element (no XML prolog, no DOCTYPE) for inlining in an HTML page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(_rc()):
        fig = figure(chart)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
        plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def warm() -> None:
    """Load matplotlib, its fonts and the SVG writer ahead of the first real chart, by drawing a small one in
    memory: ``eq-evals profile`` does it on a worker thread while the models are working (``eq_evals.profile
    .prefetch``), so the report card does not pay it at the end."""
    svg(Chart("warm-up", "score", [Point("a", 1.0, 0.5, 1.5), Point("b", 2.0)], references={"chance": 0.5}))


# The files save() writes: SVG for papers and PNG by default (`eq-evals ratings`); the report card inlines or links the
# SVGs only, so it asks for those alone (``formats("svg")``), which halves its drawing time.
_FORMATS: ContextVar[tuple[str, ...]] = ContextVar("chart_formats", default=("svg", "png"))


@contextmanager
def formats(*kinds: str) -> Iterator[None]:
    """Within the block, :func:`save` writes only these formats ("svg", "png")."""
    unknown = set(kinds) - {"svg", "png"}
    if unknown or not kinds:
        raise ValueError(f"chart formats: expected svg and/or png, got {kinds}")
    token = _FORMATS.set(tuple(kinds))
    try:
        yield
    finally:
        _FORMATS.reset(token)


def save(chart: Chart | list[Chart], stem: Path, dpi: int = 150) -> list[Path]:
    """``<stem>.svg`` and ``<stem>.png`` (or the formats of an enclosing :func:`formats`); returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(f".{kind}") for kind in _FORMATS.get()]
    with matplotlib.rc_context(_rc()):
        fig = figure(chart)
        for path in paths:
            if path.suffix == ".svg":
                fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
            else:
                fig.savefig(path, format="png", dpi=dpi, metadata={"Software": None})
        plt.close(fig)
    return paths


def footnote(logs: Iterable[tuple[Any, Any]], judged: bool = True) -> str:
    """Judge, date and data version of the logs a chart rests on, in one line: the judges (every role but the
    simulated user), the simulated user, the newest log's date, the dataset versions of the log headers."""
    judges: set[str] = set()
    users: set[str] = set()
    dates: set[str] = set()
    versions: set[str] = set()
    for log, info in logs:
        for role, model in (getattr(info, "roles", None) or {}).items():
            names = {m.strip() for m in str(model).split(",") if m.strip()}
            if role == "simulated_user":
                users |= names
            else:
                judges |= names
        created = str(getattr(log.eval, "created", "") or "")[:10]
        if created:
            dates.add(created)
        versions |= set(getattr(info, "datasets", None) or [])
    parts = []
    if judged or judges:
        parts.append("judge: " + (", ".join(sorted(judges)) if judges else "none"))
    if users:
        parts.append("simulated user: " + ", ".join(sorted(users)))
    if dates:
        parts.append("date: " + (max(dates) if len(dates) == 1 else f"{min(dates)} to {max(dates)}"))
    if versions:
        shown = sorted(versions)
        parts.append("data: " + ", ".join(shown[:3]) + (f" (+{len(shown) - 3} more)" if len(shown) > 3 else ""))
    return " · ".join(parts + ["eq-evals"])
