"""The LongEmotion section of ``eq-evals ratings`` (and of the report card): the same rows as ``eq-evals
longemotion table`` (``eq_evals.longemotion.table``), one column per task on the paper's scale, and a chart per
task in the shared style (``eq_evals.charts``): bars for the percentages (EC, ED accuracy; QA token F1 x 100),
points for the judge scales, each with its 95% interval (1.96 standard errors)."""

from __future__ import annotations

import json
from typing import Any

from eq_evals.charts import Chart, Point, save
from eq_evals.charts import footnote as chart_footnote
from eq_evals.longemotion.table import COLUMNS, TASKS, Row, collect_logs, render, to_json
from eq_evals.sections import Inputs, Result, Section

SCALES = {column: unit for column, _, _, unit in TASKS.values()}
# the paper's scale of each column: (low, high)
RANGES = {"EC": (0.0, 100.0), "ED": (0.0, 100.0), "QA": (0.0, 100.0), "MC": (0.0, 5.0), "ES": (1.0, 5.0)}
RANGES["EE"] = (0.0, 100.0)
PERCENT = ("EC", "ED", "QA")


def charts(rows: list[Row], footnote: str = "") -> list[Chart]:
    """One panel per task column that has a score."""
    out = []
    several = len({(r.method, r.data) for r in rows}) > 1
    for column in COLUMNS:
        cells = [(r, r.cells[column]) for r in rows if column in r.cells]
        if not cells:
            continue
        points = []
        for r, c in cells:
            label = r.model + (f" · {r.method} · {r.data}" if several else "")
            half = None if c.stderr is None or c.value is None else 1.96 * c.stderr
            points.append(
                Point(
                    label,
                    c.value,
                    None if half is None else c.value - half,
                    None if half is None else c.value + half,
                    mark="partial" if c.partial else "",
                )
            )
        caveats = []
        if any(r.data == "fixtures" for r, _ in cells):
            caveats.append("rows on data 'fixtures' ran on the smoke-test fixtures, not on LongEmotion")
        if any(c.partial for _, c in cells):
            caveats.append("some cells are built from partial logs (--allow-partial)")
        task = next(t for t, (col, _, _, _) in TASKS.items() if col == column)
        out.append(
            Chart(
                f"LongEmotion {column} ({task.removeprefix('longemotion_')}), {SCALES[column]}",
                f"{SCALES[column]}, 95% interval (1.96 standard errors)",
                points,
                kind="bars" if column in PERCENT else "points",
                caveats=caveats,
                footnote=footnote,
                xlim=RANGES.get(column),
                digits=2 if column in ("MC", "ES") else 1,
            )
        )
    return out


def build(inputs: Inputs) -> Result:
    if not inputs.logs:
        return Result()
    rows, warnings = collect_logs(inputs.logs, [])
    if not rows:
        return Result(warnings=warnings)
    data = json.loads(to_json(rows, warnings))
    csv_rows: list[dict[str, Any]] = [
        {"model": r.model, "method": r.method, "data": r.data, "partial": r.partial}
        | {
            f"{column}{suffix}": getattr(r.cells[column], attr) if column in r.cells else None
            for column in COLUMNS
            for suffix, attr in (("", "value"), ("_stderr", "stderr"), ("_n", "n"))
        }
        for r in rows
    ]
    files = save(charts(rows, chart_footnote(inputs.logs)), inputs.out_dir / "longemotion")
    data["charts"] = [p.name for p in files]
    return Result(
        markdown=render(rows, [w for w in warnings if not w.startswith("warning:")]) + "\n",
        json={"longemotion": data},
        csv={"longemotion.csv": csv_rows},
        warnings=[w for w in warnings if w.startswith("warning:")],
        files=files,
    )


SECTIONS = [Section(key="longemotion", title="LongEmotion", tasks=frozenset(TASKS), build=build, order=45)]
