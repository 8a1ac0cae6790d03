"""The SAGE leaderboard from Inspect logs (``eq-evals sage leaderboard LOGS...``): one row per tested model
and simulator, sorted by Sentient score (mean final emotion), with Success/Failure counts (paper Table 2)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from eq_evals import logcheck
from eq_evals.charts import Chart, Point, save
from eq_evals.charts import footnote as chart_footnote
from eq_evals.core.text import fmt, markdown_table, number
from eq_evals.sage.rules import Aggregate, aggregate
from eq_evals.sections import Inputs, Result, Section


@dataclass
class Row:
    model: str
    simulator: str
    task: str
    scenarios: str
    n: int
    unscored: int
    sentient: float
    ci_low: float
    ci_high: float
    success: int
    failure: int
    mean_turns: float | None
    rational: float | None
    emotional: float | None
    logs: list[str]
    aggregate: Aggregate
    settings: dict[str, Any] = field(default_factory=dict)
    partial: bool = False  # some dialogues come from a log that is not complete (allow_partial)
    unscored_reasons: dict[str, int] = field(default_factory=dict)  # reason -> count (logcheck.unscored_reason)
    # the simulated user's emotion when every dialogue starts (task argument initial_emotion; SAGE paper Fig. 6: 40):
    # the score of a reply that moves nothing, the baseline a Sentient score is read against
    start: float | None = None


def _role_model(log: Any, role: str = "simulated_user") -> str:
    cfg = (log.eval.model_roles or {}).get(role)
    if cfg is None:
        return "(unbound)"
    cfgs = cfg if isinstance(cfg, list) else [cfg]
    return ",".join(c.model for c in cfgs)


# Task arguments that never change a dialogue or its score; every other argument splits rows.
COSMETIC_ARGS: frozenset[str] = frozenset()


class Rows(list):
    """The leaderboard rows, plus warnings about logs that were left out (shown by ``render``)."""

    warnings: list[str]

    def __init__(self, rows: Iterable[Row] = (), warnings: list[str] | None = None) -> None:
        super().__init__(rows)
        self.warnings = warnings or []


def _role_config(log: Any, role: str = "simulated_user") -> str:
    """The simulated user's full configuration (model, generation settings, base URL, model args)."""
    cfg = (log.eval.model_roles or {}).get(role)
    cfgs = cfg if isinstance(cfg, list) else [cfg] if cfg is not None else []
    return json.dumps([c.model_dump(mode="json", exclude_none=True) for c in cfgs], sort_keys=True, default=str)


def _settings(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sorted(args.items()) if k not in COSMETIC_ARGS and k not in ("source", "language")}


TASKS = frozenset({"sage"})


def collect(paths: Iterable[str], allow_partial: bool = False, allow_mixed: bool = False) -> Rows:
    """Read every SAGE log under ``paths`` through the gate (``eq_evals.logcheck.gate``: complete logs, one per
    retry chain, one data and task version unless ``allow_mixed``; partial logs skipped with a warning, or kept
    with ``allow_partial`` and their rows marked partial), then :func:`collect_logs`."""
    selection = logcheck.gate(
        paths, tasks=TASKS, allow_partial=allow_partial, allow_mixed=allow_mixed, what="sage leaderboard"
    )
    rows = collect_logs(selection.kept)
    rows.warnings = selection.warnings + rows.warnings
    return rows


def collect_logs(logs: list[tuple[Any, logcheck.LogCheck]]) -> Rows:
    """The rows from SAGE logs that passed the gate. Dialogues are pooled only when the tested model, the
    simulated user's configuration, the task and its version, and all task arguments (scenario source and
    language, filters, max_turns, prompts, ...) agree. A dialogue (sample id, epoch) run in several logs counts
    once, from the newest log."""
    groups: dict[tuple[str, ...], dict[str, Any]] = {}
    warnings: list[str] = []
    for log, info in logs:
        file = info.path
        if not log.samples:
            continue
        args = log.eval.task_args or {}
        source = str(args["source"]) if args.get("source") else None
        scenario_set = f"{Path(source).name if source else 'bundled'}:{args.get('language', 'zh')}"
        settings = _settings(args)
        key = (
            log.eval.model,
            _role_model(log),
            _role_config(log),
            log.eval.task.split("/")[-1],
            str(log.eval.task_version),
            source or "bundled",
            str(args.get("language", "zh")),
            json.dumps(settings, sort_keys=True, default=str),
        )
        group = groups.setdefault(
            key, {"samples": {}, "logs": [], "scenarios": scenario_set, "settings": settings, "partial": False}
        )
        group["logs"].append(file)
        group["partial"] |= not info.complete
        for sample in log.samples:
            sample_key = (str(sample.id), sample.epoch)
            seen = group["samples"].get(sample_key)
            if seen is None or log.eval.created >= seen[0]:  # the newest log wins
                group["samples"][sample_key] = (log.eval.created, sample)
    rows = []
    for key, group in groups.items():
        model, simulator, _, task = key[:4]
        scored, unscored, reasons = [], 0, {}
        for _, sample in group["samples"].values():
            score = (sample.scores or {}).get("sage_scorer")
            if score is None or (isinstance(score.value, float) and math.isnan(score.value)):
                unscored += 1
                reason = logcheck.unscored_reason(score) if score is not None else "no sage_scorer score"
                reasons[reason] = reasons.get(reason, 0) + 1
                continue
            meta = score.metadata or {}
            scored.append(
                {
                    "emotion": float(score.value),
                    **{
                        k: meta.get(k)
                        for k in ("npc_turns", "hidden_task_type", "personality", "intention", "end_reason")
                    },
                }
            )
        if not scored:  # a row all the same, marked unscored: a run must never vanish from the table (issue 13)
            warnings.append(
                f"warning: {model} with simulated user {simulator}: all {unscored} dialogue(s) unscored ("
                + "; ".join(f"{r} x{n}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
                + "); shown as an unscored row with no Sentient score"
            )
            agg = Aggregate(
                n=0,
                sentient=math.nan,
                ci_low=math.nan,
                ci_high=math.nan,
                success=0,
                failure=0,
                mean_turns=None,
                by_type={},
                by_personality={},
                by_intention={},
                end_reasons={},
            )
        else:
            agg = aggregate(scored)
        rows.append(
            Row(
                model=model,
                simulator=simulator,
                task=task,
                scenarios=group["scenarios"],
                n=agg.n,
                unscored=unscored,
                sentient=agg.sentient,
                ci_low=agg.ci_low,
                ci_high=agg.ci_high,
                success=agg.success,
                failure=agg.failure,
                mean_turns=agg.mean_turns,
                rational=agg.by_type.get("rational"),
                emotional=agg.by_type.get("emotional"),
                logs=group["logs"],
                aggregate=agg,
                settings=group["settings"],
                partial=group["partial"],
                unscored_reasons=reasons,
                start=number(group["settings"].get("initial_emotion")),
            )
        )
    # Ties keep the order of appearance (SAGE paper §4) and share a rank; unscored rows come last, unranked.
    return Rows(sorted(rows, key=lambda r: (r.n == 0, -r.sentient if r.n else 0.0)), warnings)


def ranks(rows: list[Row]) -> list[str]:
    """Competition ranks (1, 2, 2, 4) with tied rows marked ``=`` (``2=``); unscored rows get ``-``."""
    out = []
    for i, r in enumerate(rows):
        if not r.n:
            out.append("-")
            continue
        first = next(j for j, x in enumerate(rows) if x.n and x.sentient == r.sentient)
        tied = sum(1 for x in rows if x.n and x.sentient == r.sentient) > 1
        out.append(f"{first + 1}{'=' if tied else ''}")
    return out


def _cells(rank: str, r: Row, to: str) -> list[str]:
    """A row's cells in the leaderboard's column order (the interval's ends joined by ``to``)."""
    return [
        rank,
        r.model + (" (partial)" if r.partial else "") + (" (unscored)" if r.n == 0 else ""),
        r.simulator,
        r.scenarios,
        str(r.n),
        fmt(r.sentient),
        f"{fmt(r.ci_low)}{to}{fmt(r.ci_high)}",
        str(r.success),
        str(r.failure),
        str(r.unscored),
        fmt(r.mean_turns, 2),
        fmt(r.rational),
        fmt(r.emotional),
    ]


def render(rows: list[Row]) -> str:
    header = [
        "Rank",
        "Model",
        "Simulator",
        "Scenarios",
        "N",
        "Sentient",
        "95% CI",
        "Success",
        "Failure",
        "Unscored",
        "Turns",
        "Rational",
        "Emotional",
    ]
    # task arguments that differ between rows (e.g. max_turns, hidden_task_type) are shown in a last column
    varying = sorted(
        {k for r in rows for k in r.settings if len({json.dumps(x.settings.get(k), default=str) for x in rows}) > 1}
    )
    if varying:
        header.append("Settings")
    table = [header]
    for rank, r in zip(ranks(rows), rows):
        table.append(
            _cells(rank, r, "-") + ([" ".join(f"{k}={r.settings.get(k)}" for k in varying)] if varying else [])
        )
    widths = [max(len(row[c]) for row in table) for c in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = []
    if len({r.simulator for r in rows}) > 1:
        notes.append(
            "note: rows use different simulated users; compare models only under the same simulator "
            "(paper §3.3: absolute scores shift with the simulator)."
        )
    if len({r.scenarios for r in rows}) > 1:
        notes.append("note: rows use different scenario sets or languages; their scores are not comparable.")
    if any(r.n != rows[0].n for r in rows):
        notes.append("note: rows cover different numbers of scored dialogues; Success/Failure are counts.")
    if len({(r.model, r.simulator, r.scenarios) for r in rows}) < len(rows):
        notes.append(
            "note: some rows differ only in their task settings, the Simulator's configuration or the task "
            "version; they are kept apart."
        )
    return "\n".join(lines + notes + list(getattr(rows, "warnings", [])))


def to_json(rows: list[Row]) -> str:
    out = []
    for rank, r in zip(ranks(rows), rows):
        d = asdict(r)
        d["rank"] = int(rank.rstrip("=")) if r.n else None
        d["tied"] = rank.endswith("=")
        for k in ("sentient", "ci_low", "ci_high"):  # an unscored row has no score: null, not NaN
            if isinstance(d[k], float) and math.isnan(d[k]):
                d[k] = None
        agg = d.pop("aggregate")
        d.update(by_personality=agg["by_personality"], by_intention=agg["by_intention"], end_reasons=agg["end_reasons"])
        out.append(d)
    return json.dumps(out, ensure_ascii=False, indent=2, default=lambda x: None)


def build(inputs: Inputs) -> Result:
    """The SAGE section of ``eq-evals ratings``: the same rows as ``eq-evals sage leaderboard``, as a Markdown
    table, with the notes under it."""
    rows = collect_logs(inputs.logs)
    if not rows:
        return Result(warnings=rows.warnings)
    header = [
        "rank",
        "model",
        "simulator",
        "scenarios",
        "N",
        "Sentient",
        "95% CI",
        "success",
        "failure",
        "unscored",
        "turns",
        "rational",
        "emotional",
    ]
    body = [_cells(rank, r, " to ") for rank, r in zip(ranks(rows), rows)]
    notes = [line for line in render(rows).splitlines() if line.startswith("note:")]
    markdown = "\n".join(
        [
            "## SAGE",
            "",
            "Sentient score = mean final emotion of the simulated user (0-100), 95% "
            "interval over dialogues; a rank marked = is shared by tied rows (SAGE paper §4).",
            "",
            markdown_table(header, body),
            "",
        ]
        + [f"- {n.removeprefix('note: ')}" for n in notes]
        + ([""] if notes else [])
    )
    data = json.loads(to_json(rows))
    csv_rows = [{k: v for k, v in d.items() if not isinstance(v, (dict, list))} for d in data]
    files = save(
        chart(rows, [n.removeprefix("note: ") for n in notes], chart_footnote(inputs.logs, judged=False)),
        inputs.out_dir / "sage",
    )
    return Result(
        markdown=markdown,
        json={"sage": data, "sage_charts": [p.name for p in files]},
        csv={"sage.csv": csv_rows},
        warnings=rows.warnings,
        files=files,
    )


def chart(rows: list[Row], notes: list[str], footnote: str = "") -> Chart:
    """The leaderboard in the shared chart style (``eq_evals.charts``): Sentient score and its 95% interval per
    row, best first, on the 0-100 scale; partial and unscored rows marked, the table's notes under the title."""
    several = len({r.simulator for r in rows}) > 1 or len({r.scenarios for r in rows}) > 1
    points = [
        Point(
            r.model + (f" · {r.simulator.split('/')[-1]} · {r.scenarios}" if several else ""),
            None if r.n == 0 else r.sentient,
            None if r.n == 0 else r.ci_low,
            None if r.n == 0 else r.ci_high,
            mark="partial" if r.partial else "",
        )
        for r in rows
    ]
    n = sorted({r.n for r in rows})
    return Chart(
        f"SAGE Sentient score ({n[0] if len(n) == 1 else f'{n[0]} to {n[-1]}'} scored dialogues per model)",
        "Sentient score: mean final emotion of the simulated user (0-100), 95% interval over dialogues",
        points,
        caveats=notes
        + (["some rows are built from partial logs (--allow-partial)"] if any(r.partial for r in rows) else []),
        footnote=footnote,
        xlim=(0.0, 100.0),
    )


SECTIONS = [Section(key="sage", title="SAGE", tasks=TASKS, build=build, order=40)]
