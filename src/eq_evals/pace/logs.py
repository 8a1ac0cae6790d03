"""Reading PACE logs: pointwise ``pace`` logs -> per-response dimension records (composite EQ leaderboard);
``pace_pairwise`` battle logs -> comparisons for ``eq-evals ratings`` and rows for Causal-PACE weight fitting.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable

from inspect_ai.log import EvalLog, EvalSample

from eq_evals.errors import EqEvalsError
from eq_evals.logcheck import expand_log_paths
from eq_evals.logcheck import read as read_log
from eq_evals.pairwise.verdict import sample_verdicts
from eq_evals.ratings import Comparison
from eq_evals.ratings.causal_pace import DIMENSIONS, DimRecord

POINTWISE_TASK, BATTLE_TASK = "pace", "pace_pairwise"
POINTWISE_SCORER, BATTLE_SCORER = "pace_board", "pace_battle"
# arena points of a response (paper App. C.5; docs/pace.md, 'Fitting weights from battles'): won 2, tie 1, lost 0
POINTS = {"win": 2, "tie": 1, "loss": 0}


def task_name(log: EvalLog) -> str:
    return log.eval.task.split("/")[-1]


def _logs(logs: str | Iterable[str] | Iterable[EvalLog]) -> list[tuple[str, EvalLog]]:
    items = [logs] if isinstance(logs, (str, EvalLog)) else list(logs)
    out = []
    for item in items:
        if isinstance(item, EvalLog):
            out.append((item.location or task_name(item), item))
        else:
            out += [(p, read_log(p)) for p in expand_log_paths([str(item)])]
    return out


def _number(x: Any) -> float | None:
    """A present score, or None for a missing one (stored as null, or NaN before serialisation)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


def records_from_log(log: EvalLog, where: str = "", scorer: str = POINTWISE_SCORER) -> list[DimRecord]:
    """One DimRecord per scored sample and epoch of a pointwise ``pace`` log (missing dimensions are NaN;
    unscored samples are left out)."""
    if task_name(log) != POINTWISE_TASK:
        raise EqEvalsError(
            f"{where or log.location}: a {task_name(log)} log, not a pointwise PACE log (eq_evals/{POINTWISE_TASK})"
        )
    out = []
    for s in log.samples or []:
        score = (s.scores or {}).get(scorer)
        if score is None or not isinstance(score.value, dict) or _number(score.value.get("eq")) is None:
            continue
        scores = {d: _number(score.value.get(d)) for d in DIMENSIONS}
        scores = {d: math.nan if v is None else v for d, v in scores.items()}
        md = s.metadata or {}
        out.append(
            DimRecord(
                model=log.eval.model,
                sample_id=str(s.id),
                epoch=int(s.epoch),
                scores=scores,
                lang=md.get("language"),
                scenario=md.get("scenario"),
            )
        )
    return out


def records_from_logs(
    logs: str | Iterable[str] | Iterable[EvalLog], *, scorer: str = POINTWISE_SCORER
) -> list[DimRecord]:
    """Dimension records of every pointwise ``pace`` log given (files, folders, globs or EvalLog objects).
    Input for ``causal_pace.score_models`` (docs/pace-weights.md, 'Per-model EQ with intervals')."""
    return [r for where, log in _logs(logs) for r in records_from_log(log, where, scorer)]


def log_weights(log: EvalLog) -> dict[str, float] | None:
    """The weights the board used in a pointwise log (the same for every sample)."""
    for s in log.samples or []:
        score = (s.scores or {}).get(POINTWISE_SCORER)
        if score is not None and score.metadata and score.metadata.get("weights"):
            return dict(score.metadata["weights"])
    return None


def comparisons_from_sample(sample: EvalSample) -> list[Comparison]:
    """The board's verdict on one battle as a Comparison (dimension ``pace_eq``; a decisive verdict has margin 1,
    a tie margin 0), or nothing when the battle is unscored: read from the typed verdict record."""
    return [c for v in sample_verdicts(sample) for c in v.comparisons()]


def battle_comparisons(log: EvalLog, where: str = "") -> list[Comparison]:
    if task_name(log) != BATTLE_TASK:
        raise EqEvalsError(
            f"{where or log.location}: a {task_name(log)} log, not a PACE battle log (eq_evals/{BATTLE_TASK})"
        )
    return [c for s in log.samples or [] for c in comparisons_from_sample(s)]


def weight_rows_from_logs(
    logs: str | Iterable[str] | Iterable[EvalLog], *, threshold: float = 6.0, y_mode: str = "points"
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Rows for ``causal_pace.estimate_weights`` from battle logs judged with ``-T overall=true`` (docs/pace.md, 'Fitting weights from battles').

    One row per response of a battle: P, A, C, E = 1 when the board's averaged score >= ``threshold`` else 0
    (the paper's binary "meets the expected EQ standard"), Y = the response's arena points from the
    INDEPENDENT overall judgement (2 won, 1 tie, 0 lost; ``y_mode="win"``: 1 won, else 0), plus ``item`` and
    ``model``. Refuses pointwise logs and battle logs without an overall judgement, because Y must not come
    from the board's own composite (circularity). Returns (rows, counts of battles left out by reason).
    """
    if y_mode not in ("points", "win"):
        raise EqEvalsError(f"y_mode must be 'points' or 'win', got {y_mode!r}")
    rows: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    for where, log in _logs(logs):
        task = task_name(log)
        if task == POINTWISE_TASK:
            raise EqEvalsError(
                f"{where}: a pointwise PACE log has no overall preference to fit weights from; judge "
                f"battles with inspect eval eq_evals/{BATTLE_TASK} -T logs=... -T overall=true"
            )
        if task != BATTLE_TASK:
            raise EqEvalsError(f"{where}: a {task} log, not a PACE battle log (eq_evals/{BATTLE_TASK})")
        scored = [s for s in log.samples or [] if (s.scores or {}).get(BATTLE_SCORER) is not None]
        if not any("overall_winner" in (s.scores[BATTLE_SCORER].metadata or {}) for s in scored):
            raise EqEvalsError(
                f"{where}: these battles were judged without -T overall=true, so they have no "
                "independent overall judgement; fitting weights on the board's own winner would be "
                "circular (docs/pace-weights.md, 'Circularity warning'). Re-run the battles with -T overall=true."
            )
        for s in scored:
            md = s.scores[BATTLE_SCORER].metadata or {}
            winner = md.get("overall_winner")
            if winner is None:
                skipped["overall judgement unreadable"] += 1
                continue
            for model in (md["model_a"], md["model_b"]):
                dims = (md.get("scores") or {}).get(model) or {}
                if any(dims.get(d) is None for d in DIMENSIONS):
                    skipped["a dimension score missing"] += 1
                    continue
                result = "tie" if winner == "tie" else "win" if winner == model else "loss"
                y = POINTS[result] if y_mode == "points" else int(result == "win")
                rows.append(
                    {
                        **{d: int(dims[d] >= threshold) for d in DIMENSIONS},
                        "Y": y,
                        "item": str(md.get("item_id") or md.get("item")),
                        "model": model,
                    }
                )
    if not rows:
        raise EqEvalsError(
            "no battle with an overall judgement and all four dimension scores: nothing to fit"
            + (f" ({dict(skipped)})" if skipped else "")
        )
    return rows, dict(skipped)


def observations_from_logs(
    paths: Iterable[str],
    *,
    y: str = "Y",
    threshold: float = 6.0,
    allow_partial: bool = False,
    allow_mixed: bool = False,
) -> list[dict[str, Any]]:
    """``eq-evals pace weights LOGS``: the rows of ``weight_rows_from_logs`` with the outcome column named ``y``,
    from logs read through the gate (``eq_evals.logcheck.gate``: a cancelled or errored log is skipped with a
    warning, or kept with ``allow_partial`` and its rows marked ``partial``; one log per retry chain, so a retried
    run's battles count once; one data and task version unless ``allow_mixed``). Battles left out and the gate's
    warnings are reported on stderr."""
    import sys

    from eq_evals.logcheck import gate

    selection = gate(
        list(paths),
        tasks={BATTLE_TASK, POINTWISE_TASK},
        allow_partial=allow_partial,
        allow_mixed=allow_mixed,
        what="eq-evals pace weights",
    )
    for warning in selection.warnings:
        print(f"eq-evals: {warning}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    for log, info in selection.kept:
        found, skipped = weight_rows_from_logs([log], threshold=threshold)
        if skipped:
            print(f"PACE logs: {info.path}: battles/responses left out: {skipped}", file=sys.stderr)
        rows += [
            {**{k: v for k, v in r.items() if k != "Y"}, y: r["Y"], **({"partial": True} if not info.complete else {})}
            for r in found
        ]
    if not rows and not selection.kept:
        raise EqEvalsError("no complete PACE battle logs:\n" + "\n".join(selection.warnings))
    return rows
