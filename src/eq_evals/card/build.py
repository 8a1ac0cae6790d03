"""The report card's numbers: every log through the gate, every leaderboard section built on its logs, and their
typed results gathered into one card (scores with intervals and baselines, the profile across facets, judges,
data versions, model usage next to the plan, the items). Nothing here reads a benchmark package: the sections do
the arithmetic (``eq_evals.sections``), the card only reads what they return.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from eq_evals import charts, logcheck
from eq_evals.core.text import number
from eq_evals.errors import EqEvalsError
from eq_evals.report import build_sections
from eq_evals.sections import Result, Section

# display names of the benchmark packages (components.benchmarks()); an unknown package shows its own name
NAMES = {"facet": "FACET", "longemotion": "LongEmotion", "sage": "SAGE", "pace": "PACE", "heart": "HEART"}
# what each benchmark measures: the facet of emotional intelligence its numbers go under in the profile
FACET_OF = {
    "apparent_emotion": "perception",
    "hidden_emotion": "perception",
    "emotion_prediction": "cognition",
    "social_adequacy": "cognition",
    "crisis_recognition": "cognition",
}


# systems that stand for people, not models: HEART's reference replies (its opponents "reference")
BASELINE_SYSTEMS = {"reference"}


@dataclass
class Score:
    """One number of the card: a model's score on a benchmark's dimension, with its interval and where it
    comes from. ``scaled`` is the score on 0-100 for the profile chart (None when the scale has no such
    reading, e.g. a rating)."""

    benchmark: str
    dimension: str
    language: str
    model: str
    value: float | None
    lower: float | None = None
    upper: float | None = None
    unit: str = ""
    scaled: float | None = None
    scaled_lower: float | None = None
    scaled_upper: float | None = None
    facet: str = ""
    n: int | None = None
    n_label: str = ""
    partial: bool = False
    marks: list[str] = field(default_factory=list)
    baselines: dict[str, float | None] = field(default_factory=dict)
    note: str = ""
    logs: list[str] = field(default_factory=list)
    section: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def _scale(x: float | None, lo: float, hi: float) -> float | None:
    return None if x is None else 100 * (x - lo) / (hi - lo)


def benchmark_of(log: Any, info: logcheck.LogCheck) -> str:
    """The benchmark a log belongs to (the task's declaration says it in the log header's task metadata)."""
    meta = log.eval.metadata or {}
    return str(meta.get("benchmark") or info.task.split("_")[0])


# ---------------------------------------------------------------- scores from each section's typed result


def _logs_of(routed: dict[str, list], key: str, task: str | None = None, model: str | None = None) -> list[str]:
    return [
        info.path
        for log, info in routed.get(key, [])
        if (task is None or info.task == task) and (model is None or log.eval.model == model)
    ]


def pairwise_scores(result: Result, routed: dict[str, list], task_benchmark: dict[str, str]) -> list[Score]:
    """The shared pairwise section's tables: the rating with its interval, and the win share (wins plus half
    the draws over matchups, in %) on the profile's 0-100 scale; 50 = an even record."""
    out = []
    for row in result.json.get("tables", []):
        matchups = row.get("matchups") or 0
        share = 100 * (row["wins"] + 0.5 * row["draws"]) / matchups if matchups else None
        benchmark = task_benchmark.get(row["task"], row["task"])
        out.append(
            Score(
                benchmark=benchmark,
                dimension=("interaction · " if benchmark == "facet" else "battles · ") + row["dimension"],
                language=row["language"],
                model=row["model"],
                value=number(row["rating"]),
                lower=number(row.get("lower")),
                upper=number(row.get("upper")),
                unit="rating (Elo scale)",
                scaled=share,
                facet="interaction" if benchmark == "facet" else "PACE battles",
                n=matchups,
                n_label="matchups",
                partial=bool(row.get("partial")),
                marks=["partial"] if row.get("partial") else [],
                baselines={"even record (win share %)": 50.0},
                note=row.get("note") or "",
                logs=_logs_of(routed, "ratings", task=row["task"]),
                section="ratings",
            )
        )
    return out


def objective_scores(result: Result, routed: dict[str, list]) -> list[Score]:
    out = []
    objective = result.json.get("objective") or {}
    reference = result.json.get("objective_reference") or {}
    intervals = result.json.get("objective_intervals") or {}
    for language, models in sorted(objective.items()):
        refs = reference.get(language, {})
        for model, dims in models.items():
            logs = _logs_of(routed, "facet", model=model)
            partial = bool(dims.get("partial_run"))
            for dim, value in dims.items():
                if dim in ("objective_average", "partial_average", "missing_dimensions", "partial_run"):
                    continue
                ci = intervals.get(language, {}).get(model, {}).get(dim, {})
                out.append(
                    Score(
                        benchmark="facet",
                        dimension=dim,
                        language=language,
                        model=model,
                        value=number(value),
                        lower=number(ci.get("lower")),
                        upper=number(ci.get("upper")),
                        unit="accuracy %",
                        scaled=number(value),
                        scaled_lower=number(ci.get("lower")),
                        scaled_upper=number(ci.get("upper")),
                        n=ci.get("n"),
                        n_label="scored answers",
                        facet=FACET_OF.get(dim, "objective"),
                        partial=partial,
                        marks=["partial"] if partial else [],
                        baselines={
                            label.removeprefix("reference: "): number(r.get(dim)) for label, r in sorted(refs.items())
                        },
                        logs=logs,
                        section="facet",
                    )
                )
            average = dims.get("objective_average")
            marks = ["partial"] if partial else []
            if average is None:
                average = dims.get("partial_average")
                marks.append("partial average: lacks " + ", ".join(dims.get("missing_dimensions", [])))
            out.append(
                Score(
                    benchmark="facet",
                    dimension="objective average",
                    language=language,
                    model=model,
                    value=number(average),
                    unit="accuracy %",
                    facet="objective",
                    partial=partial or dims.get("objective_average") is None,
                    marks=marks,
                    baselines={
                        label.removeprefix("reference: "): number(r.get("objective_average"))
                        for label, r in sorted(refs.items())
                    },
                    logs=logs,
                    section="facet",
                )
            )
    return out


def sage_scores(result: Result) -> list[Score]:
    out = []
    for row in result.json.get("sage", []):
        marks = (["partial"] if row.get("partial") else []) + (["unscored"] if not row.get("n") else [])
        common = dict(
            benchmark="sage",
            language=str(row.get("scenarios", "")).split(":")[-1],
            model=row["model"],
            unit="Sentient 0-100",
            facet="multi-turn dialogue",
            n_label="dialogues",
            partial=bool(row.get("partial")),
            marks=marks,
            logs=list(row.get("logs") or []),
            section="sage",
            baselines={"start of every dialogue (no change)": number(row.get("start"))},
        )
        note = f"simulated user {row.get('simulator')}; {row.get('unscored', 0)} unscored"
        out.append(
            Score(
                dimension="Sentient score",
                value=number(row.get("sentient")),
                lower=number(row.get("ci_low")),
                upper=number(row.get("ci_high")),
                scaled=number(row.get("sentient")),
                scaled_lower=number(row.get("ci_low")),
                scaled_upper=number(row.get("ci_high")),
                n=row.get("n"),
                note=note,
                **common,  # type: ignore[arg-type]
            )
        )
        for kind in ("rational", "emotional"):
            if row.get(kind) is not None:
                out.append(
                    Score(dimension=f"{kind} scenarios", value=number(row.get(kind)), note=note, **common)  # type: ignore[arg-type]
                )
    return out


PACE_NAMES = {"P": "P perceptive insight", "A": "A adaptive attunement", "C": "C constructive conviction"}
PACE_NAMES["E"] = "E empathic guidance"


def pace_scores(result: Result) -> list[Score]:
    out = []
    tables = result.json.get("pace", [])
    languages = {t["language"] for t in tables}
    for t in tables:
        if len(languages) > 1 and t["language"] != "all":
            language = t["language"]
        else:
            language = "all" if len(languages) > 1 else t["language"]
        weights = ", ".join(f"{d} {w:.3f}" for d, w in t["weights"].items())
        for row in t["rows"]:
            marks = (["partial"] if t.get("partial") else []) + (
                [f"{row['partial_composites']} partial composites"] if row.get("partial_composites") else []
            )
            base = dict(
                benchmark="pace",
                language=language,
                model=row["model"],
                n=row.get("n_samples"),
                n_label="replies",
                partial=bool(t.get("partial")),
                marks=marks,
                logs=list(t.get("logs") or []),
                section="pace",
                note=f"weights {weights}",
            )
            out.append(
                Score(
                    dimension="EQ",
                    value=number(row["eq"]),
                    lower=number(row.get("ci_low")),
                    upper=number(row.get("ci_high")),
                    unit="composite EQ 0-10",
                    scaled=_scale(number(row["eq"]), 0, 10),
                    scaled_lower=_scale(number(row.get("ci_low")), 0, 10),
                    scaled_upper=_scale(number(row.get("ci_high")), 0, 10),
                    facet="PACE",
                    **base,  # type: ignore[arg-type]
                )
            )
            for d in ("P", "A", "C", "E"):
                if d not in row:
                    continue
                ci = row.get(f"{d}_ci") or [None, None]
                out.append(
                    Score(
                        dimension=PACE_NAMES[d],
                        value=number(row[d]),
                        lower=number(ci[0]),
                        upper=number(ci[1]),
                        unit="board score 0-10",
                        scaled=_scale(number(row[d]), 0, 10),
                        scaled_lower=_scale(number(ci[0]), 0, 10),
                        scaled_upper=_scale(number(ci[1]), 0, 10),
                        facet="PACE",
                        **base,  # type: ignore[arg-type]
                    )
                )
    return out


HEART_NAMES = {"H": "H", "E": "E", "A": "A", "R": "R", "T": "T"}


def heart_scores(result: Result, routed: dict[str, list]) -> list[Score]:
    heart = result.json.get("heart") or {}
    out = []
    partial = bool(heart.get("partial_logs"))
    # HEART rates the human reference replies as one more system: the baseline every model is read against
    refs = [r for r in heart.get("rows", []) if r["model"] in BASELINE_SYSTEMS]
    notes = "; ".join(heart.get("notes", []))
    for row in heart.get("rows", []):
        logs = _logs_of(routed, "heart", model=row["model"]) or _logs_of(routed, "heart")
        base = dict(
            benchmark="heart",
            language="all",
            model=row["model"],
            partial=partial,
            marks=["partial"] if partial else [],
            logs=logs,
            section="heart",
            note=notes,
            n=row.get("comparisons"),
            n_label="comparisons",
        )
        lo, hi = row.get("elo_ci_bootstrap") or [None, None]
        out.append(
            Score(
                dimension="Elo (overall)",
                value=number(row["elo"]),
                lower=number(lo),
                upper=number(hi),
                unit="HEART Elo",
                facet="HEART",
                baselines={"centre": 1500.0, **{f"{r['model']} reply": number(r["elo"]) for r in refs}},
                **base,  # type: ignore[arg-type]
            )
        )
        for letter in [*HEART_NAMES, "overall_win_rate"]:
            value = number(row.get(letter))
            out.append(
                Score(
                    dimension="win rate overall" if letter == "overall_win_rate" else f"{letter} win rate",
                    value=value,
                    unit="win rate %",
                    scaled=value,
                    facet="HEART",
                    baselines={"even record": 50.0, **{f"{r['model']} reply": number(r.get(letter)) for r in refs}},
                    **base,  # type: ignore[arg-type]
                )
            )
    return out


LONGEMOTION_RANGE = {"MC": (0.0, 5.0), "ES": (1.0, 5.0)}


def longemotion_scores(result: Result) -> list[Score]:
    data = result.json.get("longemotion") or {}
    columns = data.get("columns", {})
    out = []
    for row in data.get("rows", []):
        for column, cell in row.get("cells", {}).items():
            value, err = number(cell.get("value")), number(cell.get("stderr"))
            lo = hi = None
            if value is not None and err is not None:
                lo, hi = value - 1.96 * err, value + 1.96 * err
            a, b = LONGEMOTION_RANGE.get(column, (0.0, 100.0))
            marks = (["partial"] if cell.get("partial") else []) + (["unscored"] if value is None else [])
            if row.get("data") == "fixtures":
                marks.append("fixtures, not LongEmotion data")
            out.append(
                Score(
                    benchmark="longemotion",
                    dimension=f"{column} ({columns.get(column, {}).get('task', '').removeprefix('longemotion_')})",
                    language="en",
                    model=row["model"] + ("" if row.get("method") == "base" else f" ({row.get('method')})"),
                    value=value,
                    lower=lo,
                    upper=hi,
                    unit=columns.get(column, {}).get("unit", ""),
                    scaled=_scale(value, a, b),
                    scaled_lower=_scale(lo, a, b),
                    scaled_upper=_scale(hi, a, b),
                    facet="long context",
                    n=cell.get("n"),
                    n_label="scored samples",
                    partial=bool(cell.get("partial")),
                    marks=marks,
                    note=f"{cell.get('unscored', 0)} unscored" if cell.get("unscored") else "",
                    logs=[cell["log"]] if cell.get("log") else [],
                    section="longemotion",
                )
            )
    return out


# ---------------------------------------------------------------- judges, data versions, usage, items


def judges(results: dict[str, Result], used: dict[str, set[str]]) -> list[dict[str, Any]]:
    """Every judge the card's numbers rest on, per benchmark: its judge card's status (``eq-evals judge-check``)
    or "judge not checked", and the diagnostics the sections computed."""
    cards = (results.get("judges") or Result()).json.get("judge_cards", {})
    pairwise = (results.get("ratings") or Result()).json.get("judges", {})
    heart = ((results.get("heart") or Result()).json.get("heart") or {}).get("judges", {})
    rows = []
    for benchmark, names in sorted(used.items()):
        for judge in sorted(names):
            card = (cards.get(judge) or {}).get("sections", {}).get(benchmark.removesuffix("_board"))
            diagnostics = pairwise.get(judge) if benchmark in ("facet", "pace") else None
            if benchmark == "heart":
                diagnostics = heart.get(judge)
            rows.append(
                {
                    "benchmark": benchmark,
                    "judge": judge,
                    "card": card.get("status") if card else None,
                    "card_accuracy": ((card or {}).get("figures", {}).get("accuracy") or {}).get("value"),
                    "checked": card is not None,
                    "diagnostics": diagnostics,
                }
            )
    return rows


def data_versions(selection: logcheck.Selection, task_benchmark: dict[str, str]) -> list[dict[str, Any]]:
    by_task: dict[str, dict[str, Any]] = {}
    for _, info in selection.kept:
        row = by_task.setdefault(
            info.task,
            {"benchmark": task_benchmark.get(info.task, ""), "task": info.task, "datasets": set(), "data": set()},
        )
        row["datasets"] |= set(info.datasets)
        row["data"] |= set(info.data_versions)
        row["task_version"] = info.task_version
    return [
        {**r, "datasets": sorted(r["datasets"]), "data": sorted(r["data"])}
        for _, r in sorted(by_task.items(), key=lambda kv: (kv[1]["benchmark"], kv[0]))
    ]


def usage(selection: logcheck.Selection, task_benchmark: dict[str, str]) -> list[dict[str, Any]]:
    """Per benchmark, task, role and model: samples, model calls, input and output tokens and cost, counted from
    the logs (each sample's model events; the header's ``stats.model_usage`` when samples hold no events)."""
    rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for log, info in selection.kept:
        benchmark = task_benchmark.get(info.task, "")
        samples = len(log.samples or [])
        counted = False
        for sample in log.samples or []:
            for ev in sample.events or []:
                if getattr(ev, "event", None) != "model":
                    continue
                counted = True
                role = ev.role or "model"
                row = rows.setdefault(
                    (benchmark, info.task, role, ev.model),
                    {"calls": 0, "cached": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": None, "logs": set()},
                )
                row["logs"].add(info.path)
                row["calls"] += 1
                row["cached"] += int(getattr(ev, "cache", None) == "read")
                used = getattr(ev.output, "usage", None)
                if used is not None:
                    row["input_tokens"] += (
                        used.input_tokens + (used.input_tokens_cache_read or 0) + (used.input_tokens_cache_write or 0)
                    )
                    row["output_tokens"] += used.output_tokens
                    if used.total_cost is not None:
                        row["cost_usd"] = (row["cost_usd"] or 0.0) + used.total_cost
        if not counted:
            for model, used in (log.stats.model_usage or {}).items():
                row = rows.setdefault(
                    (benchmark, info.task, "model" if model == log.eval.model else "(role)", model),
                    {
                        "calls": None,
                        "cached": 0,
                        "input_tokens": 0,
                        "output_tokens": 0,
                        "cost_usd": None,
                        "logs": set(),
                    },
                )
                row["logs"].add(info.path)
                row["input_tokens"] += used.input_tokens + (used.input_tokens_cache_read or 0)
                row["output_tokens"] += used.output_tokens
                if used.total_cost is not None:
                    row["cost_usd"] = (row["cost_usd"] or 0.0) + used.total_cost
        for key, row in rows.items():
            if key[1] == info.task and info.path in row["logs"]:
                row.setdefault("samples_by_log", {})[info.path] = samples
    out = []
    for (benchmark, task, role, model), row in sorted(rows.items()):
        out.append(
            {
                "benchmark": benchmark,
                "task": task,
                "role": role,
                "model": model,
                "samples": sum(row.pop("samples_by_log", {}).values()),
                **{k: v for k, v in row.items() if k != "logs"},
                "logs": sorted(row["logs"]),
            }
        )
    return out


def plan_vs_real(plan: dict[str, Any] | None, real: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plan's rows (``eq-evals profile``) beside the counts from the logs, matched on benchmark, task, role and
    model (a real row the plan did not foresee is shown with an empty plan)."""
    rows = []
    seen = set()
    for p in (plan or {}).get("rows", []):
        if "reason" in p and "task" not in p:
            continue  # a skipped benchmark (shown as not run)
        key = (p.get("benchmark"), p.get("task"), p.get("role"), p.get("model"))
        match = [
            r
            for r in real
            if (r["benchmark"], r["task"], r["role"]) == key[:3] and (r["model"] == key[3] or key[3] is None)
        ]
        seen |= {id(r) for r in match}
        rows.append(
            {
                "benchmark": key[0],
                "task": key[1],
                "role": key[2],
                "model": key[3],
                "plan": {k: p.get(k) for k in ("samples", "calls", "input_tokens", "output_tokens", "cost_usd")},
                "real": _sum_usage(match) if match else None,
            }
        )
    for r in real:
        if id(r) not in seen:
            rows.append(
                {
                    "benchmark": r["benchmark"],
                    "task": r["task"],
                    "role": r["role"],
                    "model": r["model"],
                    "plan": None,
                    "real": _sum_usage([r]),
                }
            )
    return rows


def _sum_usage(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def total(key: str) -> Any:
        values = [r.get(key) for r in rows if r.get(key) is not None]
        return sum(values) if values else None

    return {
        "samples": max((r["samples"] for r in rows), default=0),
        "calls": total("calls"),
        "cached": total("cached"),
        "input_tokens": total("input_tokens"),
        "output_tokens": total("output_tokens"),
        "cost_usd": total("cost_usd"),
    }


def _text(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_user(sample: Any) -> str:
    for m in sample.messages or []:
        if getattr(m, "role", "") == "user":
            return m.text
    return sample.input if isinstance(sample.input, str) else ""


def outcome(score: Any) -> str:
    """How an item went, for the explorer's filter: correct / incorrect / partial credit for a 0-1 value, win /
    loss / draw for a judged pair, unscored (with no value), else scored."""
    if score is None or logcheck.is_unscored(score):
        return "unscored"
    value = score.value
    if isinstance(value, str):
        return {"C": "correct", "I": "incorrect", "P": "partial credit"}.get(value, "scored")
    if isinstance(value, dict):
        return "scored"
    v = number(value)
    if v is None:
        return "unscored"
    if v == 1.0:
        return "correct"
    if v == 0.0:
        return "incorrect"
    if 0.0 < v < 1.0:
        return "partial credit"
    return "scored"


def items(selection: logcheck.Selection, task_benchmark: dict[str, str], limit: int = 20000) -> list[dict[str, Any]]:
    """One row per sample and scorer of every log: the model's reply, the score, its explanation (a judge's
    rationale) and the log it is in."""
    out = []
    for log, info in selection.kept:
        benchmark = task_benchmark.get(info.task, "")
        for sample in log.samples or []:
            md = sample.metadata or {}
            scores = sample.scores or {None: None}
            for scorer, score in scores.items():
                value = None if score is None else score.value
                smd = (score.metadata or {}) if score is not None else {}
                model = log.eval.model
                if model in ("none/none", "") and smd.get("verdicts"):
                    v = smd["verdicts"][0]
                    model = f"{v.get('model_a')} vs {v.get('model_b')}"
                out.append(
                    {
                        "benchmark": benchmark,
                        "task": info.task,
                        "dimension": str(
                            md.get("dimension") or md.get("criterion") or md.get("task_type") or info.task
                        ),
                        "language": str(md.get("language") or ""),
                        "model": model,
                        "id": str(sample.id),
                        "epoch": sample.epoch,
                        "input": _text(_first_user(sample), 600),
                        "reply": _text(sample.output.completion if sample.output else "", 2000),
                        "scorer": scorer,
                        "score": value if isinstance(value, (int, float, str)) or value is None else str(value),
                        "answer": _text(None if score is None else score.answer, 300),
                        "explanation": _text(None if score is None else score.explanation, 2000),
                        "outcome": outcome(score) if not sample.error else "error",
                        "error": _text(sample.error.message if sample.error else "", 300),
                        "log": info.path,
                        "partial_log": not info.complete,
                    }
                )
                if len(out) >= limit:
                    return out
    return out


# ---------------------------------------------------------------- the card


def inspect_view(path: str) -> str:
    """The command that opens a log in Inspect View (its folder; the viewer lists the log by name)."""
    return f"inspect view --log-dir {shlex.quote(str(Path(path).parent))}"


def build_card(
    log_paths: list[str | Path],
    out_dir: Path,
    *,
    plan: dict[str, Any] | None = None,
    title: str | None = None,
    allow_partial: bool = True,
    method: str = "bt",
    bootstrap: int = 1000,
    seed: int = 0,
    **gate_options: Any,
) -> dict[str, Any]:
    """The card's data (the JSON written beside report.html), with section charts written under
    ``out_dir/files``."""
    paths = [str(p) for p in log_paths]
    selection = logcheck.gate(paths, allow_partial=allow_partial, what="eq-evals card", **gate_options)
    if not selection.kept:
        raise EqEvalsError("\n".join(["nothing to put on a report card: no log passed the gate", *selection.warnings]))
    files = out_dir / "files"
    files.mkdir(parents=True, exist_ok=True)
    errors: dict[str, str] = {}  # one section that cannot be built does not hide the others
    with charts.formats("svg"):  # the card inlines or links SVG; PNGs are `eq-evals ratings`' (for papers)
        routed, route_notes, built = build_sections(
            selection,
            files,
            method=method,
            bootstrap=bootstrap,
            seed=seed,
            progress=False,
            allow_partial=allow_partial,
            errors=errors,
        )
    results: dict[str, Result] = {s.key: r for s, r in built}
    by_key: dict[str, Section] = {s.key: s for s, _ in built}
    task_benchmark = {info.task: benchmark_of(log, info) for log, info in selection.kept}
    scores: list[Score] = []
    scores += pairwise_scores(results.get("ratings", Result()), routed, task_benchmark)
    scores += objective_scores(results.get("facet", Result()), routed)
    scores += longemotion_scores(results.get("longemotion", Result()))
    scores += sage_scores(results.get("sage", Result()))
    scores += pace_scores(results.get("pace", Result()))
    scores += heart_scores(results.get("heart", Result()), routed)
    from eq_evals.components import benchmarks
    from eq_evals.judges.section import judges_of_logs

    used = judges_of_logs(log for log, _ in selection.kept)
    skipped = {
        r["benchmark"]: r
        for r in (plan or {}).get("skipped", []) + [r for r in (plan or {}).get("rows", []) if "reason" in r]
    }
    bench_rows = []
    for name in benchmarks():
        logs = [(log, info) for log, info in selection.kept if task_benchmark.get(info.task) == name]
        mine = [s for s in scores if s.benchmark == name]
        section_errors = {k: v for k, v in errors.items() if by_key[k].reads() & {i.task for _, i in logs}}
        if not logs:
            status = "not run"
        elif not mine:
            status = "not scored"
        elif any(i for _, i in logs if not i.complete):
            status = "partial"
        else:
            status = "scored"
        skip = skipped.get(name, {})
        bench_rows.append(
            {
                "benchmark": name,
                "name": NAMES.get(name, name),
                "status": status,
                "reason": skip.get("reason")
                or ("no logs of this benchmark among the inputs" if not logs else "")
                or ("; ".join(section_errors.values()) if section_errors else "")
                or ("its logs hold no numbers a leaderboard reads (generation logs)" if not mine else ""),
                "fix": skip.get("fix", ""),
                "logs": [i.path for _, i in logs],
                "tasks": sorted({i.task for _, i in logs}),
                "models": sorted({log.eval.model for log, _ in logs if log.eval.model != "none/none"}),
                "charts": sorted(
                    str(p.relative_to(out_dir))
                    for k, r in results.items()
                    for p in r.files
                    if p.suffix == ".svg" and _section_benchmark(k, name, by_key, task_benchmark)
                ),
            }
        )
    models = sorted({s.model for s in scores if " vs " not in s.model} - BASELINE_SYSTEMS)
    profiled = list((plan or {}).get("models") or [])
    usage_rows = usage(selection, task_benchmark)
    return {
        "title": title or "eq-evals report card",
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        # the profiled models first, then the others the logs hold (--opponents: an earlier profile's models), so
        # that the profile chart shows a model beside those it is compared with
        "models": profiled + [m for m in models if m not in profiled],
        "profiled": profiled or models,
        "plan": plan,
        "benchmarks": bench_rows,
        "scores": [s.as_dict() for s in scores],
        "judges": judges(results, used),
        "judge_agreement": ((results.get("heart") or Result()).json.get("heart") or {}).get("agreement"),
        "data_versions": data_versions(selection, task_benchmark),
        "usage": usage_rows,
        "plan_vs_real": plan_vs_real(plan, usage_rows),
        "items": items(selection, task_benchmark),
        "logs": [
            {
                "path": info.path,
                "href": os.path.relpath(info.path, out_dir),
                "task": info.task,
                "benchmark": task_benchmark.get(info.task, ""),
                "model": info.model,
                "state": info.state(),
                "complete": info.complete,
                "inspect_view": inspect_view(info.path),
            }
            for _, info in selection.kept
        ],
        "partial_logs": sorted(selection.partial_paths),
        "warnings": selection.warnings + [w for r in results.values() for w in r.warnings],
        "notes": [f"plan: {n}" for n in (plan or {}).get("notes", [])]
        + [n for r in results.values() for n in r.notes]
        + route_notes,
        "section_errors": errors,
        "sections_markdown": {k: r.markdown for k, r in results.items() if r.markdown},
    }


def _section_benchmark(key: str, benchmark: str, by_key: dict[str, Section], task_benchmark: dict[str, str]) -> bool:
    """Whether a section's files belong under a benchmark (the benchmark of any task it read)."""
    if key == benchmark:
        return True
    if key == "ratings":  # the shared pairwise section's charts: under the first judged benchmark it rated
        return benchmark in {b for t, b in task_benchmark.items() if t in by_key[key].reads()}
    return False
