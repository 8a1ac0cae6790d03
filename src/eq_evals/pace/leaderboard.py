"""The PACE section of ``eq-evals ratings``: composite EQ per model from pointwise ``pace`` logs.

Score(X) = the model's mean score on X over its items (missing scores left out), EQ = Σ W̄(X)·Score(X)
(Causal-PACE Def. 3.2) with the weights the board used, and a paired item bootstrap 95% interval
(``causal_pace.score_models``). Logs judged with different weights are never pooled: each set of weights gets
its own table. With items of both languages, one table per language as well (the paper keeps them apart).
Battle logs (``pace_pairwise``) are rated by the main tables of ``eq-evals ratings`` as comparisons.
"""

from __future__ import annotations

import math
from typing import Any

from eq_evals.charts import Chart, Point, save
from eq_evals.charts import footnote as chart_footnote
from eq_evals.core.text import fmt
from eq_evals.errors import EqEvalsError
from eq_evals.logcheck import LogCheck
from eq_evals.pace.logs import BATTLE_TASK, POINTWISE_TASK, log_weights, records_from_log
from eq_evals.ratings.causal_pace import DIMENSION_NAMES, DIMENSIONS, score_models
from eq_evals.sections import Inputs, Result, Section

RATED_TASKS = (BATTLE_TASK,)  # battles: the board's verdicts, rated by the shared pairwise section


def collect(logs: list[tuple[Any, LogCheck]], bootstrap: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """One entry per (weights, language) with per-model rows, best EQ first, from pointwise logs that passed the
    gate; an entry built on a partial log says so (``partial``)."""
    groups: dict[tuple, dict[str, Any]] = {}
    partial = {info.path for _, info in logs if not info.complete}
    for log, info in logs:
        path = info.path
        weights = log_weights(log)
        records = records_from_log(log, path)
        if weights is None or not records:
            raise EqEvalsError(f"{path}: a PACE log with no scored sample (every sample unscored or errored)")
        key = tuple(sorted(weights.items()))
        group = groups.setdefault(key, {"weights": weights, "records": [], "logs": []})
        group["records"] += records
        group["logs"].append(path)
    tables = []
    for group in groups.values():
        records = group["records"]
        languages = sorted({r.lang or "en" for r in records})
        scopes = (
            [("all", records)]
            if len(languages) == 1
            else [("all", records)] + [(lang, [r for r in records if (r.lang or "en") == lang]) for lang in languages]
        )
        for scope, recs in scopes:
            try:
                results = score_models(recs, group["weights"], n_boot=max(bootstrap, 1), seed=seed)
            except ValueError as ex:
                raise EqEvalsError(f"PACE leaderboard ({', '.join(group['logs'])}): {ex}") from None
            # replies whose board left a dimension unscored (a partial composite, docs/pace.md "The board"):
            # Score(X) of that dimension is the mean over the replies that have it
            gaps = {
                m: sum(
                    1
                    for r in recs
                    if r.model == m and any(math.isnan(r.scores.get(d, math.nan)) for d in group["weights"])
                )
                for m in results
            }
            rows = [
                {
                    "model": r.model,
                    "eq": r.eq,
                    "ci_low": r.ci_low,
                    "ci_high": r.ci_high,
                    "se": r.se,
                    "n_samples": r.n_samples,
                    "partial_composites": gaps[r.model],
                    **{d: r.dimension_scores[d] for d in DIMENSIONS if d in r.dimension_scores},
                    **{f"{d}_ci": list(r.dimension_ci[d]) for d in DIMENSIONS if d in r.dimension_ci},
                }
                for r in sorted(results.values(), key=lambda r: (-r.eq, r.model))
            ]
            tables.append(
                {
                    "language": languages[0] if len(languages) == 1 else scope,
                    "weights": group["weights"],
                    "logs": group["logs"],
                    "rows": rows,
                    "partial": bool(set(group["logs"]) & partial),
                }
            )
    return tables


def render(tables: list[dict[str, Any]]) -> str:
    lines = [
        "Composite EQ (0-10) = Σ W̄(X)·Score(X) over Perceptive Insight (P), Adaptive Attunement (A), "
        "Constructive Conviction (C) and Empathic Guidance (E) (PACE Def. 3.2); Score(X) = mean board score "
        "of the model's replies on X; 95% interval from a paired item bootstrap.",
        "",
    ]
    for t in tables:
        weights = ", ".join(f"{d} {w:.3f}" for d, w in t["weights"].items())
        lines += [
            f"### {t['language']} (weights {weights})",
            "",
            "| rank | model | EQ | 95% interval | "
            + " | ".join(f"{d} {DIMENSION_NAMES[d]}" for d in DIMENSIONS)
            + " | replies |",
            "|---|---|---|---|" + "---|" * len(DIMENSIONS) + "---|",
        ]
        for i, r in enumerate(t["rows"], 1):
            mark = f" ({r['partial_composites']} partial composites)" if r.get("partial_composites") else ""
            lines.append(
                f"| {i} | {r['model']}{mark} | {fmt(r['eq'], 2)} | {fmt(r['ci_low'], 2)} to {fmt(r['ci_high'], 2)} | "
                + " | ".join(fmt(r.get(d), 2) for d in DIMENSIONS)
                + f" | {r['n_samples']} |"
            )
        lines.append("")
    return "\n".join(lines)


def build(inputs: Inputs) -> Result:
    """The PACE section of ``eq-evals ratings``: composite EQ per model from pointwise logs."""
    tables = collect(inputs.logs, inputs.bootstrap, inputs.seed)
    if not tables:
        return Result()
    partial = sorted(inputs.partial_paths)
    markdown = render(tables)
    if partial:
        markdown = (
            "**PARTIAL**: built from logs that are not complete (--allow-partial): "
            + ", ".join(partial)
            + "\n\n"
            + markdown
        )
    csv_rows = [
        {"language": t["language"], "partial": t["partial"], **{k: v for k, v in r.items() if not isinstance(v, list)}}
        for t in tables
        for r in t["rows"]
    ]
    files = save(charts(tables, chart_footnote(inputs.logs)), inputs.out_dir / "pace")
    return Result(
        markdown="## PACE composite EQ\n\n" + markdown + "\n",
        json={"pace": tables, "pace_partial_logs": partial, "pace_charts": [p.name for p in files]},
        csv={"pace.csv": csv_rows},
        files=files,
    )


def charts(tables: list[dict[str, Any]], footnote: str = "") -> list[Chart]:
    """One panel per table (language and weights) in the shared chart style (``eq_evals.charts``): composite EQ
    with its 95% paired-bootstrap interval, best first, on the 0-10 scale."""
    out = []
    for t in tables:
        mark = "partial" if t["partial"] else ""
        caveats = ["built from partial logs (--allow-partial)"] if mark else []
        gaps = [f"{r['model']}: {r['partial_composites']}" for r in t["rows"] if r.get("partial_composites")]
        if gaps:
            caveats.append("replies with a dimension the board left unscored (partial composites): " + ", ".join(gaps))
        out.append(
            Chart(
                f"PACE composite EQ, {t['language']} ({max((r['n_samples'] for r in t['rows']), default=0)} replies"
                " per model)",
                "composite EQ (0-10), 95% paired item-bootstrap interval",
                [Point(r["model"], r["eq"], r["ci_low"], r["ci_high"], mark=mark) for r in t["rows"]],
                caveats=caveats,
                footnote=footnote,
                xlim=(0.0, 10.0),
                digits=2,
            )
        )
    return out


SECTIONS = [Section(key="pace", title="PACE composite EQ", tasks=frozenset({POINTWISE_TASK}), build=build, order=50)]
