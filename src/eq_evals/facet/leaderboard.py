"""FACET's leaderboard section: objective accuracy, the Crisis Recognition confusion matrix and the
subjective-objective gap.

Objective logs (the perception and cognition tasks; de-duplicated per model, language, sample and epoch) give
per-model accuracy and the Objective Average of the five dimensions (FACET paper §3), with chance and majority
reference rows; the Crisis Recognition confusion matrix (docs/pairwise.md, "3. eq-evals ratings"); and the
subjective-objective gap ΔZ with FACET's three profiles (FACET paper §3; always on the Overall TrueSkill μ of the
judged comparisons, whatever the method). FACET's interaction judging (``facet_pairwise``) is rated by the shared
pairwise section (``RATED_TASKS``), whose comparisons this section reads for ΔZ.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from eq_evals.charts import Chart, Point, save
from eq_evals.charts import footnote as chart_footnote
from eq_evals.core.metrics import wilson
from eq_evals.core.text import fmt
from eq_evals.ratings import Comparison, delta_z, profile, trueskill_facet
from eq_evals.sections import Inputs, Result, Section

RATED_TASKS = ("facet_pairwise",)
OBJECTIVE_TASKS = {
    "facet_apparent",
    "facet_hidden",
    "facet_prediction",
    "facet_social",
    "facet_crisis",
    "facet_objective",
}
# FACET's five objective dimensions: the Objective Average is the unweighted mean of their accuracies (FACET paper Fig. 2).
OBJECTIVE_DIMENSIONS = (
    "apparent_emotion",
    "hidden_emotion",
    "emotion_prediction",
    "social_adequacy",
    "crisis_recognition",
)
# ΔZ's subjective term is FACET's Overall whatever --method rates the tables with (docs/pairwise.md, '3. eq-evals ratings', ΔZ).
SUBJECTIVE_STATISTIC = (
    "Overall TrueSkill mu (FACET's Subjective Average: TrueSkill as FACET rates, on all "
    "dimensions' comparisons of the language pooled; docs/pairwise.md §3, ΔZ)"
)
OBJECTIVE_META = {"objective_average", "partial_average", "missing_dimensions", "partial_run"}
MIN_COHORT = 3  # z-scores over fewer models are meaningless (docs/ratings.md, '9. The Subjective–Objective gap'; needs >= 3 models)


@dataclass
class Objective:
    """Objective scores from the logs, de-duplicated."""

    # (model, language, dimension) -> (sample id, epoch) -> (log completion time, log order, score value, score
    # metadata). Logs of facet_objective and of single-dimension tasks may overlap: the newest log's score is kept
    # (latest completion; Inspect times have 1 s resolution, so a tie goes to the log read later).
    scores: dict[tuple[str, str, str], dict[tuple[str, int], tuple[str, int, float, dict]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    duplicates: int = 0
    # (language, dimension) -> sample id -> sample metadata: the items the objective logs saw (reference rows)
    items: dict[tuple[str, str], dict[str, dict]] = field(default_factory=lambda: defaultdict(dict))
    partial: set[tuple[str, str]] = field(default_factory=set)  # (model, language) with a score from a partial log
    partial_groups: set[tuple[str, str]] = field(default_factory=set)  # (language, dimension) of partial comparisons


def collect(inputs: Inputs) -> Objective:
    out = Objective()
    partial_indexes = set()
    for index, (log, info) in enumerate(inputs.logs):
        if not info.complete:
            partial_indexes.add(index)
        for s in log.samples or []:
            score = (s.scores or {}).get("facet_objective")
            if score is None:
                continue
            md = s.metadata or {}
            value = float(score.value) if isinstance(score.value, (int, float)) else float("nan")
            entries = out.scores[(log.eval.model, md.get("language", "en"), md.get("dimension", info.task))]
            out.items[(md.get("language", "en"), md.get("dimension", info.task))][str(s.id)] = md
            key = (str(s.id), int(s.epoch))
            new = (log.stats.completed_at or log.eval.created or "", index, value, score.metadata or {})
            if key in entries:
                out.duplicates += 1
                if new[:2] < entries[key][:2]:
                    continue  # an older log than the one already read
            entries[key] = new
    # an objective row is partial when a score it keeps (after de-duplication) comes from a partial log
    out.partial = {
        (model, language)
        for (model, language, _), entries in out.scores.items()
        if any(v[1] in partial_indexes for v in entries.values())
    }
    out.partial_groups = {
        (lang, dim) for task, lang, dim in inputs.shared.get("partial_groups", set()) if task in RATED_TASKS
    }
    return out


def objective_rows(collected: Objective) -> dict[str, dict[str, dict[str, Any]]]:
    """language -> model -> {dimension: accuracy %, "objective_average": ..., ...}.

    Accuracy = 100 x the mean score over the dimension's items and epochs (de-duplicated per sample id and
    epoch). The Objective Average (FACET paper Fig. 2) is the mean of the five FACET dimension accuracies and is only
    given when all five are present; otherwise "objective_average" is None, "partial_average" is the mean of
    the dimensions present and "missing_dimensions" lists the others."""
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    for (model, language, dimension), entries in collected.scores.items():
        values = [v[2] for v in entries.values() if not math.isnan(v[2])]
        if values:
            out[language][model][dimension] = 100 * sum(values) / len(values)
    for language, models in out.items():
        for model, dims in models.items():
            if (model, language) in collected.partial:
                dims["partial_run"] = True  # some scores come from a log that is not complete
            present = [d for d in OBJECTIVE_DIMENSIONS if d in dims]
            missing = [d for d in OBJECTIVE_DIMENSIONS if d not in dims]
            dims["objective_average"] = (sum(dims[d] for d in present) / len(present)) if not missing else None
            if missing:
                dims["partial_average"] = sum(dims[d] for d in present) / len(present) if present else None
                dims["missing_dimensions"] = missing
    return out


def objective_intervals(collected: Objective) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """language -> model -> dimension -> {"n", "lower", "upper"}: the 95% Wilson interval of each accuracy (in
    %, over the scored items and epochs; a half credit counts half), for the report card and the charts."""
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = defaultdict(lambda: defaultdict(dict))
    for (model, language, dimension), entries in collected.scores.items():
        values = [v[2] for v in entries.values() if not math.isnan(v[2])]
        if values:
            _, lo, hi = wilson(sum(values), len(values))
            out[language][model][dimension] = {"n": len(values), "lower": 100 * lo, "upper": 100 * hi}
    return {lang: {m: dict(d) for m, d in models.items()} for lang, models in out.items()}


REFERENCE_ROWS = {"chance": "reference: chance", "majority": "reference: majority"}


def objective_reference(collected: Objective, notes: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """language -> {"reference: chance" | "reference: majority": {dimension: accuracy %, "objective_average"}}.

    What a uniform random answer and the most frequent gold answer score on the items the logs hold
    (``eq_evals.facet.baselines``, exact under the scorer's rules), so that a model's 0.0 (or 25.0) can be read.
    Computed over the union of the items any model answered in that language and dimension."""
    from eq_evals.facet.baselines import facet_baselines

    metas = [m for items in collected.items.values() for m in items.values()]
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: {label: {} for label in REFERENCE_ROWS.values()})
    try:
        rows = facet_baselines(metas)
    except (KeyError, ValueError) as ex:  # items from another data release: no reference rather than a wrong one
        notes.append(f"no chance/majority reference rows: the logs' item metadata lacks what they need ({ex!r})")
        return {}
    for row in rows:
        for key, label in REFERENCE_ROWS.items():
            out[row.language][label][row.dimension] = 100 * getattr(row, key)
    for language, refs in out.items():
        for values in refs.values():
            present = [d for d in OBJECTIVE_DIMENSIONS if d in values]
            values["objective_average"] = (
                sum(values[d] for d in present) / len(present) if len(present) == len(OBJECTIVE_DIMENSIONS) else None
            )
    return {lang: dict(refs) for lang, refs in out.items()}


def crisis_matrices(collected: Objective) -> dict[str, dict[str, Any]]:
    """language -> model -> Crisis Recognition confusion matrix (gold x predicted level, plus unparsed) and the
    mean signed error, over every epoch's (de-duplicated) score (docs/pairwise.md, '3. eq-evals ratings'; FACET paper §2.2)."""
    from eq_evals.facet.scorer import crisis_confusion

    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (model, language, dimension), entries in sorted(collected.scores.items()):
        if dimension == "crisis_recognition" and entries:
            out[language][model] = crisis_confusion([v[3] for v in entries.values()])
    return {lang: dict(models) for lang, models in out.items()}


def subjective_overall(comparisons: list[Comparison]) -> dict[str, dict[str, float]]:
    """language -> model -> FACET's Overall μ: ``trueskill_facet`` on every dimension's comparisons pooled."""
    by_language: dict[str, list[Comparison]] = defaultdict(list)
    for c in comparisons:
        by_language[c.language].append(c)
    return {lang: {m: r.score for m, r in trueskill_facet(comps).items()} for lang, comps in by_language.items()}


def gap_rows(subjective: dict[str, dict[str, float]], objective: dict) -> dict[str, Any]:
    """ΔZ = Z(subjective) - Z(objective) per language (FACET paper §3, Fig. 3d).

    Subjective = FACET's Overall TrueSkill μ (``subjective_overall``); objective = the Objective Average of all
    five dimensions. The cohort is the models with both; models with a partial Objective Average are left out
    with a note; fewer than 3 models in the cohort give a note instead of ΔZ."""
    out: dict[str, Any] = {
        "_statistic": {
            "subjective": SUBJECTIVE_STATISTIC,
            "objective": "Objective Average: mean of the five FACET objective "
            "dimension accuracies (FACET paper Fig. 2)",
        },
        "_cohort": {},
        "_notes": {},
    }
    for language in sorted(set(objective) & set(subjective)):
        models, sub = objective[language], subjective[language]
        notes = []
        partial = sorted(m for m in set(models) & set(sub) if models[m]["objective_average"] is None)
        if partial:
            notes.append(
                "left out of ΔZ (partial Objective Average): "
                + "; ".join(f"{m} lacks {', '.join(models[m]['missing_dimensions'])}" for m in partial)
            )
        one_sided = sorted((set(models) ^ set(sub)))
        if one_sided:
            notes.append("no objective or no subjective scores, left out: " + ", ".join(one_sided))
        cohort = sorted(m for m in set(models) & set(sub) if models[m]["objective_average"] is not None)
        out["_cohort"][language] = cohort
        if len(cohort) < MIN_COHORT:
            notes.append(
                f"ΔZ not computed: it needs a cohort of at least {MIN_COHORT} models with both objective "
                f"(all five dimensions) and subjective scores, got {len(cohort)}"
                + (f" ({', '.join(cohort)})" if cohort else "")
            )
        else:
            try:
                rows = delta_z({m: models[m]["objective_average"] for m in cohort}, {m: sub[m] for m in cohort})
            except ValueError as ex:  # e.g. every model has the same score: z is undefined
                notes.append(f"ΔZ undefined: {ex}")
            else:
                out[language] = {
                    m: {
                        "z_objective": row.z_obj,
                        "z_subjective": row.z_sub,
                        "delta_z": row.delta_z,
                        "objective_average": models[m]["objective_average"],
                        "subjective_mu": sub[m],
                    }
                    for m, row in rows.items()
                }
        if notes:
            out["_notes"][language] = " ".join(n.rstrip(".") + "." for n in notes)
    languages = [lang for lang in out if not lang.startswith("_")]
    if len(languages) >= 2:  # a profile reads the sign of ΔZ in every language
        for m in set.intersection(*(set(out[lang]) for lang in languages)):
            deltas = [out[lang][m]["delta_z"] for lang in languages]
            for lang in languages:
                out[lang][m]["profile"] = profile(deltas)
    return out


def mark_partial_gap(gap: dict[str, Any], collected: Objective) -> None:
    """Mark ΔZ rows built on a partial objective row or on partial comparisons of the language."""
    for language, models in gap.items():
        if language.startswith("_"):
            continue
        partial_language = any(g[0] == language for g in collected.partial_groups)
        for model, row in models.items():
            if partial_language or (model, language) in collected.partial:
                row["partial_run"] = True


def render(objective: dict, reference: dict, crisis: dict, gap: dict) -> str:
    lines: list[str] = []
    if objective:
        lines += [
            "## Objective accuracy (%)",
            "",
            "Objective Average = mean of the five FACET objective dimension accuracies (FACET paper Fig. 2), given only "
            "when all five are present; otherwise the mean of the dimensions present is shown as partial.",
            "",
        ]
        for language, models in sorted(objective.items()):
            dims = [d for d in OBJECTIVE_DIMENSIONS if any(d in v for v in models.values())]
            dims += sorted({d for v in models.values() for d in v if d not in OBJECTIVE_META and d not in dims})
            lines += [
                f"### {language}",
                "",
                "| model | " + " | ".join(dims) + " | objective average |",
                "|---|" + "---|" * (len(dims) + 1),
            ]
            for model, v in sorted(
                models.items(),
                key=lambda kv: (kv[1]["objective_average"] is None, -(kv[1]["objective_average"] or 0), kv[0]),
            ):
                if v["objective_average"] is not None:
                    average = fmt(v["objective_average"])
                else:
                    average = f"partial: {fmt(v.get('partial_average'))} (missing {', '.join(v['missing_dimensions'])})"
                name = f"{model} (partial)" if v.get("partial_run") else model
                lines.append(f"| {name} | " + " | ".join(fmt(v.get(d)) for d in dims) + f" | {average} |")
            for label, v in sorted((reference or {}).get(language, {}).items()):
                lines.append(
                    f"| *{label}* | "
                    + " | ".join(fmt(v.get(d)) for d in dims)
                    + f" | {fmt(v.get('objective_average'))} |"
                )
            lines.append("")
        if reference:
            lines += [
                "Reference rows (not models): *chance* is the expected accuracy of a uniformly random answer "
                "from the answer space each prompt offers, *majority* answers every item with the most "
                "frequent gold answer of its dimension, language and format; both exact, under the scorer's "
                "rules, over the items in these logs (`eq_evals.facet.baselines`).",
                "",
            ]
    if crisis:
        lines += [
            "## Crisis Recognition confusion matrix (FACET paper §2.2)",
            "",
            "Rows: gold level; columns: predicted level, or unparsed; every epoch counted. Mean signed error ="
            " mean(predicted - gold) over parsed answers (> 0: over-estimated risk).",
            "",
        ]
        for language, models in sorted(crisis.items()):
            for model, c in models.items():
                lines += [
                    f"### {language} / {model}",
                    "",
                    f"{c['n']} answers, {c['parsed']} parsed; mean signed error "
                    f"{fmt(c['mean_signed_error'], 3) or 'n/a'}.",
                    "",
                    "| gold \\ predicted | 1 | 2 | 3 | 4 | 5 | unparsed |",
                    "|---|---|---|---|---|---|---|",
                ]
                for g, row in c["matrix"].items():
                    lines.append(f"| {g[1:]} | " + " | ".join(str(n) for n in row.values()) + " |")
                lines.append("")
    if gap:
        stat = gap.get("_statistic", {})
        lines += [
            "## Subjective-objective gap (ΔZ = Z_sub - Z_obj; FACET §3, Fig. 3d)",
            "",
            f"Z_sub uses the {stat.get('subjective', '')}, whatever --method the tables above use. "
            f"Z_obj uses the {stat.get('objective', '')}. Population SD over the cohort; ΔZ is relative "
            "to the cohort and changes with it.",
            "",
        ]
        for language, cohort in sorted(gap.get("_cohort", {}).items()):
            lines.append(f"- Cohort {language} ({len(cohort)} models): {', '.join(cohort) or 'none'}")
        lines += [
            "",
            "| language | model | objective average | overall mu | Z objective | Z subjective | ΔZ | profile |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for language, models in sorted(gap.items()):
            if language.startswith("_"):
                continue
            for model, v in sorted(models.items(), key=lambda kv: -kv[1]["delta_z"]):
                name = f"{model} (partial)" if v.get("partial_run") else model
                lines.append(
                    f"| {language} | {name} | {fmt(v['objective_average'])} | {fmt(v['subjective_mu'])} | "
                    f"{fmt(v['z_objective'], 3)} | {fmt(v['z_subjective'], 3)} | "
                    f"{fmt(v['delta_z'], 3)} | {v.get('profile', '')} |"
                )
        lines += [f"\nNote ({language}): {note}" for language, note in sorted(gap.get("_notes", {}).items())]
        lines.append("")
    return "\n".join(lines)


def build(inputs: Inputs) -> Result:
    collected = collect(inputs)
    if not collected.scores:
        return Result()
    objective = {lang: dict(models) for lang, models in objective_rows(collected).items()}
    crisis = crisis_matrices(collected)
    notes: list[str] = []
    reference = objective_reference(collected, notes) if objective else {}
    comparisons = [c for task in RATED_TASKS for c in (inputs.shared.get("comparisons") or {}).get(task, [])]
    gap = gap_rows(subjective_overall(comparisons), objective) if comparisons and objective else {}
    mark_partial_gap(gap, collected)
    unscored = {
        key: sum(1 for v in entries.values() if math.isnan(v[2])) for key, entries in sorted(collected.scores.items())
    }
    if any(unscored.values()):  # left out of the accuracies above, never counted as wrong
        notes.append(
            "unscored objective answers, left out of the accuracies: "
            + "; ".join(
                f"{model} {language}/{dimension}: {n} of {len(collected.scores[(model, language, dimension)])}"
                for (model, language, dimension), n in unscored.items()
                if n
            )
            + " (reasons: eq-evals doctor LOGS)"
        )
    if collected.duplicates:
        notes.append(
            f"{collected.duplicates} objective scores appeared in more than one log (same model, "
            "language, sample id and epoch, e.g. facet_objective and a single-dimension task): the newest "
            "log's score was kept."
        )
    intervals = objective_intervals(collected)
    footnote = chart_footnote(inputs.logs, judged=False)
    files = save(charts(objective, reference, footnote, intervals), inputs.out_dir / "objective")
    return Result(
        markdown=render(objective, reference, crisis, gap),
        json={
            "objective": objective,
            "objective_reference": reference,
            "crisis_confusion": crisis,
            "gap": gap,
            "objective_intervals": intervals,
            "objective_charts": [p.name for p in files],
        },
        notes=notes,
        files=files,
    )


def charts(objective: dict, reference: dict, footnote: str = "", intervals: dict | None = None) -> list[Chart]:
    """Objective accuracy as bars in the shared chart style (``eq_evals.charts``), per language: the Objective
    Average per model with the chance and majority references, then each dimension's accuracy, models side by
    side. A partial average (dimensions missing) or a row from partial logs is drawn hollow and named."""
    out = []
    for language, models in sorted(objective.items()):
        refs = (reference or {}).get(language, {})
        points, missing = [], []
        for model, v in models.items():
            average = v["objective_average"]
            mark = "partial" if v.get("partial_run") else ""
            if average is None:
                average, mark = v.get("partial_average"), "partial average"
                missing.append(f"{model} lacks {', '.join(v['missing_dimensions'])}")
            points.append(Point(model, average, mark=mark))
        caveats = ["partial average (mean of the dimensions present): " + "; ".join(missing)] if missing else []
        if any(v.get("partial_run") for v in models.values()):
            caveats.append("some rows are built from partial logs (--allow-partial)")
        out.append(
            Chart(
                f"FACET objective average, {language} (mean of the five dimension accuracies)",
                "accuracy %",
                points,
                kind="bars",
                caveats=caveats,
                references={
                    label.removeprefix("reference: "): r["objective_average"]
                    for label, r in refs.items()
                    if r.get("objective_average") is not None
                },
                xlim=(0.0, 100.0),
                footnote=footnote,
            )
        )
        dims = [d for d in OBJECTIVE_DIMENSIONS if any(d in v for v in models.values())]
        out.append(
            Chart(
                f"FACET objective accuracy per dimension, {language}",
                "accuracy %, 95% Wilson interval",
                [
                    Point(
                        d.replace("_", " "),
                        v.get(d),
                        *(lambda ci: (ci.get("lower"), ci.get("upper")))(
                            (intervals or {}).get(language, {}).get(m, {}).get(d, {})
                        ),
                        series=m,
                        mark="partial" if v.get("partial_run") else "",
                    )
                    for d in dims
                    for m, v in models.items()
                    if d in v
                ],
                kind="bars",
                sort=False,
                xlim=(0.0, 100.0),
            )
        )
    return out


SECTIONS = [Section(key="facet", title="FACET objective", tasks=frozenset(OBJECTIVE_TASKS), build=build, order=20)]
