"""``eq-evals longemotion table LOGS...``: LongEmotion results in the layout of the paper's Table 3.

One row per tested model, method (Base, RAG, CoEM) and data origin; one column per task, on the paper's
scale: EC and ED accuracy (%), QA token F1 x 100, MC 0-5 (MC-4 with the default ``stages=4``), ES 1-5 and
EE 0-100. The paper defines no overall score, so there is none. Every log goes through ``eq_evals.logcheck``:
a log that is not complete is skipped with a warning, or with ``allow_partial`` kept and its cell marked
partial. Logs of one task in one row that differ in anything else (arguments, item set, epochs, roles,
data version) are named in a warning, and a row on the project fixtures says they are not the benchmark.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from eq_evals import logcheck
from eq_evals.core.text import MISSING
from eq_evals.errors import EqEvalsError

# task -> (column, headline metric, factor to the paper's scale, unit)
TASKS: dict[str, tuple[str, str, float, str]] = {
    "longemotion_classification": ("EC", "accuracy", 100.0, "accuracy %"),
    "longemotion_detection": ("ED", "accuracy", 100.0, "accuracy %"),
    "longemotion_qa": ("QA", "mean", 100.0, "token F1 x100"),
    "longemotion_conversation": ("MC", "score", 1.0, "judge 0-5"),
    "longemotion_summary": ("ES", "score", 1.0, "judge 1-5"),
    "longemotion_expression": ("EE", "score", 1.0, "judge 0-100"),
}
COLUMNS = [c for c, _, _, _ in TASKS.values()]


@dataclass
class Cell:
    value: float | None  # on the paper's scale; None when nothing was scored
    stderr: float | None
    n: int  # scored samples (epochs included)
    unscored: int
    log: str
    partial: bool = False


@dataclass
class Row:
    model: str
    method: str
    data: str  # where the items came from: hub, data_dir, fixtures
    cells: dict[str, Cell] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return any(c.partial for c in self.cells.values())


def _origin(info: logcheck.LogCheck) -> str:
    origins = sorted(
        {
            part.split("origin=", 1)[1].split()[0]
            for v in info.data_versions
            for part in v.split("; ")
            if "origin=" in part
        }
    )
    return ",".join(origins) or "unknown"


def _metric(log: Any, name: str) -> tuple[float | None, float | None]:
    for score in log.results.scores if log.results else []:
        if name in score.metrics:
            value = score.metrics[name].value
            err = score.metrics.get("stderr")
            return (
                None if value is None or math.isnan(value) else float(value),
                None if err is None or err.value is None or math.isnan(err.value) else float(err.value),
            )
    return None, None


def collect(
    paths: Iterable[str], allow_partial: bool = False, allow_mixed: bool = False
) -> tuple[list[Row], list[str]]:
    """The table's rows and the warnings to show with it, from logs read through the gate
    (``eq_evals.logcheck.gate``). Rows are kept apart by data origin (the release, a local copy, the project's
    fixtures); logs of one origin made on different contents of the data (file checksums) are refused, naming
    them, unless ``allow_mixed``."""
    selection = logcheck.gate(
        paths, tasks=set(TASKS), allow_partial=allow_partial, allow_mixed=True, what="eq-evals longemotion table"
    )
    return collect_logs(selection.kept, selection.warnings, allow_mixed)


def collect_logs(
    kept: list[tuple[Any, logcheck.LogCheck]], gate_warnings: list[str], allow_mixed: bool = False
) -> tuple[list[Row], list[str]]:
    """The rows from LongEmotion logs that passed the gate (see :func:`collect`)."""
    by_origin: dict[tuple[str, str], dict[str, list[str]]] = {}
    for _, info in kept:
        by_origin.setdefault((info.task, _origin(info)), {}).setdefault(" | ".join(info.data_versions), []).append(
            info.path
        )
    mixed = [
        f"{task} on data {origin}: " + "; ".join(f"{v} ({', '.join(p)})" for v, p in versions.items())
        for (task, origin), versions in sorted(by_origin.items())
        if len(versions) > 1
    ]
    if mixed and not allow_mixed:
        raise EqEvalsError(
            "eq-evals longemotion table: these logs were made on different dataset versions of the "
            "same data origin, so their cells are not comparable: "
            + " | ".join(mixed)
            + ". Read each version separately, or pass --allow-mixed-datasets to put them together."
        )
    infos: dict[tuple[str, str, str, str], list[logcheck.LogCheck]] = {}
    rows: dict[tuple[str, str, str], Row] = {}
    for log, info in kept:
        file = info.path
        task = info.task
        method = str(info.task_args.get("method", "base"))
        data = _origin(info)
        column, metric, factor, _ = TASKS[task]
        infos.setdefault((task, info.model, method, data), []).append(info)
        row = rows.setdefault((info.model, method, data), Row(info.model, method, data))
        value, err = _metric(log, metric)
        cell = Cell(
            None if value is None else value * factor,
            None if err is None else err * factor,
            sum(n for s, n in info.scored.items()),
            info.n_unscored,
            file,
            not info.complete,
        )
        previous = row.cells.get(column)
        if previous is None or log.eval.created >= logcheck.read(previous.log, header_only=True).eval.created:
            row.cells[column] = cell  # the newest log of a task in a row wins (named in a warning below)
    warnings = list(gate_warnings)
    for (task, model, method, data), group in sorted(infos.items()):
        if len(group) > 1:
            warnings.append(
                f"warning: {task}, {model}, method {method}: {len(group)} logs; the table shows the newest "
                f"({rows[(model, method, data)].cells[TASKS[task][0]].log})"
            )
            warnings += [f"  {note}" for note in logcheck.comparability(group) if "appears in" not in note]
    if any(r.data == "fixtures" for r in rows.values()):
        warnings.append(
            "note: rows on data 'fixtures' ran on the project's smoke-test fixtures "
            "(datasets/longemotion/fixtures), not on LongEmotion: never report them as benchmark scores"
        )
    return sorted(
        rows.values(),
        key=lambda r: (
            r.model,
            ["base", "rag", "coem"].index(r.method) if r.method in ("base", "rag", "coem") else 9,
            r.data,
        ),
    ), warnings


def _fmt(cell: Cell | None) -> str:
    if cell is None:
        return MISSING
    if cell.value is None:
        return f"unscored ({cell.unscored})"
    text = f"{cell.value:.2f}" + (f" ± {cell.stderr:.2f}" if cell.stderr is not None else "")
    return text + (" (partial)" if cell.partial else "")


def render(rows: list[Row], warnings: list[str]) -> str:
    units = {c: u for c, _, _, u in TASKS.values()}
    lines = [
        "## LongEmotion (paper Table 3 layout; ± is the standard error)",
        "",
        "| Model | Method | Data | " + " | ".join(f"{c} ({units[c]})" for c in COLUMNS) + " |",
        "|---|---|---|" + "---|" * len(COLUMNS),
    ]
    for r in rows:
        lines.append(
            f"| {r.model} | {r.method} | {r.data} | " + " | ".join(_fmt(r.cells.get(c)) for c in COLUMNS) + " |"
        )
    lines += ["", "No overall score: the paper defines none. '-' = task not run for that row."]
    if any(r.partial for r in rows):
        lines.append("Cells marked (partial) come from logs that are not complete (cancelled or errored samples).")
    return "\n".join(lines + ([""] + warnings if warnings else []))


def to_json(rows: list[Row], warnings: list[str]) -> str:
    return json.dumps(
        {
            "rows": [asdict(r) | {"partial": r.partial} for r in rows],
            "warnings": warnings,
            "columns": {c: {"task": t, "unit": u} for t, (c, _, _, u) in TASKS.items()},
        },
        indent=2,
    )


def cmd_table(args: Any) -> int:
    rows, warnings = collect(
        args.logs, allow_partial=args.allow_partial, allow_mixed=getattr(args, "allow_mixed_datasets", False)
    )
    if not rows:
        raise EqEvalsError("\n".join([f"no LongEmotion logs in {', '.join(args.logs)}", *warnings]))
    print(to_json(rows, warnings) if args.json else render(rows, warnings))
    return 0
