"""The SAGE leaderboard from Inspect logs (``eq-evals sage leaderboard LOGS...``): one row per tested model
and simulator, sorted by Sentient score (mean final emotion), with Success/Failure counts (paper Table 2)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from inspect_ai.log import list_eval_logs, read_eval_log

from eq_evals.errors import EqEvalsError
from eq_evals.sage.rules import Aggregate, aggregate


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


def _log_files(paths: Iterable[str]) -> list[str]:
    files: list[str] = []
    for p in paths:
        path = Path(p).expanduser()
        if path.is_dir():
            files += [info.name for info in list_eval_logs(str(path), recursive=True)]
        elif path.is_file():
            files.append(str(path))
        else:
            raise EqEvalsError(f"{p}: no such log file or folder")
    return files


def _role_model(log: Any, role: str = "simulated_user") -> str:
    cfg = (log.eval.model_roles or {}).get(role)
    if cfg is None:
        return "(unbound)"
    cfgs = cfg if isinstance(cfg, list) else [cfg]
    return ",".join(c.model for c in cfgs)


def collect(paths: Iterable[str]) -> list[Row]:
    """Read every SAGE log under ``paths``; dialogues of the same (model, simulator, task, scenario set and
    language) are pooled."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for file in _log_files(paths):
        log = read_eval_log(file)
        if not log.eval.task.split("/")[-1].startswith("sage") or not log.samples:
            continue
        args = log.eval.task_args or {}
        scenario_set = f"{Path(str(args['source'])).name if args.get('source') else 'bundled'}:{args.get('language', 'zh')}"
        key = (log.eval.model, _role_model(log), log.eval.task.split("/")[-1], scenario_set)
        group = groups.setdefault(key, {"rows": [], "unscored": 0, "logs": []})
        group["logs"].append(file)
        for sample in log.samples:
            score = (sample.scores or {}).get("sage_scorer")
            if score is None or (isinstance(score.value, float) and math.isnan(score.value)):
                group["unscored"] += 1
                continue
            meta = score.metadata or {}
            group["rows"].append({"emotion": float(score.value), **{k: meta.get(k) for k in (
                "npc_turns", "hidden_task_type", "personality", "intention", "end_reason")}})
    rows = []
    for (model, simulator, task, scenario_set), group in groups.items():
        if not group["rows"]:
            continue
        agg = aggregate(group["rows"])
        rows.append(Row(model=model, simulator=simulator, task=task, scenarios=scenario_set, n=agg.n, unscored=group["unscored"],
                        sentient=agg.sentient, ci_low=agg.ci_low, ci_high=agg.ci_high, success=agg.success,
                        failure=agg.failure, mean_turns=agg.mean_turns, rational=agg.by_type.get("rational"),
                        emotional=agg.by_type.get("emotional"), logs=group["logs"], aggregate=agg))
    # Ties keep the order of appearance, as the paper ranks them (spec §4.2).
    return sorted(rows, key=lambda r: -r.sentient)


def _fmt(x: float | None, digits: int = 1) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def render(rows: list[Row]) -> str:
    header = ["Rank", "Model", "Simulator", "Scenarios", "N", "Sentient", "95% CI", "Success", "Failure", "Unscored",
              "Turns", "Rational", "Emotional"]
    table = [header]
    for i, r in enumerate(rows, start=1):
        table.append([str(i), r.model, r.simulator, r.scenarios, str(r.n), _fmt(r.sentient), f"{_fmt(r.ci_low)}-{_fmt(r.ci_high)}",
                      str(r.success), str(r.failure), str(r.unscored), _fmt(r.mean_turns, 2), _fmt(r.rational),
                      _fmt(r.emotional)])
    widths = [max(len(row[c]) for row in table) for c in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = []
    if len({r.simulator for r in rows}) > 1:
        notes.append("note: rows use different simulated users; compare models only under the same simulator "
                     "(paper §3.3: absolute scores shift with the simulator).")
    if len({r.scenarios for r in rows}) > 1:
        notes.append("note: rows use different scenario sets or languages; their scores are not comparable.")
    if any(r.n != rows[0].n for r in rows):
        notes.append("note: rows cover different numbers of scored dialogues; Success/Failure are counts.")
    return "\n".join(lines + notes)


def to_json(rows: list[Row]) -> str:
    out = []
    for i, r in enumerate(rows, start=1):
        d = asdict(r)
        d["rank"] = i
        agg = d.pop("aggregate")
        d.update(by_personality=agg["by_personality"], by_intention=agg["by_intention"], end_reasons=agg["end_reasons"])
        out.append(d)
    return json.dumps(out, ensure_ascii=False, indent=2, default=lambda x: None)
