"""Leaderboards from Inspect logs: ``eq-evals ratings LOGS...``, the one writer of every leaderboard section.

Every log passes the gate first (``eq_evals.logcheck.gate``: completeness, one log per retry chain, dataset and
task versions; docs/architecture.md, "The gate"). Each section (``eq_evals.sections``: one per benchmark
package, found by discovery) receives the logs of the tasks it reads and returns typed output; this module
renders them into ``leaderboard.md``, ``leaderboard.json`` and one CSV file per table, and names no task and no
benchmark itself. A log that no section reads (a generation log, say) is left out with a note naming it.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from eq_evals import logcheck
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.leaderboard import BOOTSTRAP_METHODS, METHODS
from eq_evals.sections import Inputs, Result, Section, discover


def route(selection: logcheck.Selection, sections: tuple[Section, ...]) -> tuple[dict[str, list], list[str]]:
    """Section key -> its logs; and notes naming the logs no section reads."""
    by_task: dict[str, Section] = {}
    for section in sections:
        for task in section.reads():
            by_task[task] = section
    routed: dict[str, list] = {s.key: [] for s in sections}
    unread = []
    for log, info in selection.kept:
        section = by_task.get(info.task)
        if section is None:
            unread.append(f"{info.path} ({info.task})")
            continue
        routed[section.key].append((log, info))
    notes = []
    if unread:
        rateable = sorted(by_task)
        notes.append(
            "left out, no leaderboard reads these logs (generation logs are rated through their judging "
            f"task): {'; '.join(unread)}. Rateable tasks: {', '.join(rateable)}"
        )
    return routed, notes


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    buffer = io.StringIO()
    fields = list(dict.fromkeys(k for r in rows for k in r)) if rows else ["language", "dimension", "model"]
    writer = csv.DictWriter(buffer, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")


def build_sections(
    selection: logcheck.Selection,
    out_dir: Path,
    *,
    method: str,
    bootstrap: int,
    seed: int,
    progress: bool,
    allow_partial: bool,
    errors: dict[str, str] | None = None,
) -> tuple[dict[str, list], list[str], list[tuple[Section, Result]]]:
    """Route the gated logs to every discovered section and build each one, in order: the routed logs by
    section key, the routing notes and each section with its result. With ``errors`` given, a section that
    raises ``EqEvalsError`` is recorded there under its key with an empty result, so that it does not hide the
    others; without, the error propagates."""
    sections = discover()
    routed, route_notes = route(selection, sections)
    shared: dict[str, Any] = {"logs": selection.kept}  # every gated log, for sections that look across benchmarks
    results: list[tuple[Section, Result]] = []
    for section in sections:
        inputs = Inputs(
            logs=routed[section.key],
            out_dir=out_dir,
            method=method,
            bootstrap=bootstrap,
            seed=seed,
            progress=progress,
            allow_partial=allow_partial,
            shared=shared,
        )
        try:
            result = section.build(inputs)
        except EqEvalsError as ex:
            if errors is None:
                raise
            errors[section.key], result = str(ex), Result()
        results.append((section, result))
    return routed, route_notes, results


def run(
    paths: list[str],
    out_dir: str,
    method: str = "bt",
    bootstrap: int = 1000,
    seed: int = 0,
    progress: bool = True,
    allow_mixed_datasets: bool = False,
    allow_partial: bool = False,
) -> dict[str, Any]:
    if method not in METHODS:
        raise EqEvalsError(f"unknown method {method!r}; choose one of {sorted(METHODS)}")
    selection = logcheck.gate(paths, allow_partial=allow_partial, allow_mixed=allow_mixed_datasets)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _, route_notes, results = build_sections(
        selection, out, method=method, bootstrap=bootstrap, seed=seed, progress=progress, allow_partial=allow_partial
    )
    warnings = selection.warnings + [w for _, r in results for w in r.warnings]
    if not any(not r.empty for _, r in results):
        raise EqEvalsError(
            "\n".join(
                [
                    "nothing to rate: the logs hold no judged comparisons and no scores any leaderboard reads",
                    *route_notes,
                    *warnings,
                ]
            )
        )
    notes = [n for _, r in results for n in r.notes] + route_notes + [w.removeprefix("warning: ") for w in warnings]
    lines = ["# eq-evals leaderboard", ""]
    for _, r in results:
        if r.markdown:
            lines += [r.markdown.rstrip("\n"), ""]
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    (out / "leaderboard.md").write_text("\n".join(lines), encoding="utf-8")
    csv_files: dict[str, list[dict[str, Any]]] = {"leaderboard.csv": []}
    for _, r in results:
        csv_files.update(r.csv)
    for name, rows in csv_files.items():
        write_csv(out / name, rows)
    result: dict[str, Any] = {
        "method": method,
        "description": METHODS[method],
        "bootstrap_rounds": bootstrap if method in BOOTSTRAP_METHODS else 0,
    }
    for _, r in results:
        result.update(r.json)
    result.update(
        objective_notes=notes,
        warnings=warnings,
        csv=sorted(csv_files),
        partial_logs=[i.as_dict() for i in selection.partial],
    )
    (out / "leaderboard.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    return result
