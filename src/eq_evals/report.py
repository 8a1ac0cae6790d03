"""Leaderboards from Inspect logs: ``eq-evals ratings LOGS...``.

Judgment logs (``pairwise_judge`` scores) become comparisons, one per judge and matchup, and are rated per
language and dimension, plus an Overall rating per language from all dimensions' comparisons pooled (FACET's
"Subjective Average", spec §4.7), shown beside the plain mean of the dimension ratings (a different statistic).
Objective logs (FACET perception/cognition tasks; de-duplicated per model, language, sample and epoch) add
per-model accuracy, the Objective Average of the five dimensions (spec §3.4), the Crisis Recognition confusion
matrix (spec §2.2) and the subjective-objective gap ΔZ with FACET's three profiles (spec §6.4; always on the
Overall TrueSkill μ, whatever the method). SAGE logs
add the Sentient leaderboard. Judge diagnostics (parse rate, position flips, longer-answer wins, a judge
rating its own model family) accompany every judged leaderboard.

Methods (see docs/ratings.md): ``bt`` (default; Bradley-Terry on margin pseudo-wins with an item-level
bootstrap for 95% intervals), ``trueskill`` (FACET's exact procedure), ``eqbench3`` (EQ-Bench 3's
margin-to-update TrueSkill), ``elo``, ``thurstone`` (Thurstone-Mosteller probit MLE on an Elo display, as PACE ranks
models, with the same item bootstrap).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tqdm import tqdm

from eq_evals.core.sources import mixed_versions
from eq_evals import logcheck
from eq_evals.core.metrics import metric_key
from eq_evals.core.text import family
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.verdict import has_verdicts, log_verdicts
from eq_evals.logcheck import expand_log_paths
from eq_evals.ratings.parallel import run_calls
from eq_evals.ratings import (
    Comparison,
    Rating,
    bradley_terry,
    delta_z,
    elo,
    leaderboard,
    profile,
    thurstone_mosteller,
    trueskill_eqbench3,
    trueskill_facet,
)

OBJECTIVE_TASKS = {"facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis",
                   "facet_objective"}
# FACET's five objective dimensions: the Objective Average is the unweighted mean of their accuracies (spec §3.4).
OBJECTIVE_DIMENSIONS = ("apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy",
                        "crisis_recognition")
# ΔZ's subjective term is FACET's Overall whatever --method rates the tables with (spec §6.4, §4.7).
SUBJECTIVE_STATISTIC = ("Overall TrueSkill mu (FACET's Subjective Average: TrueSkill as FACET rates, on all "
                        "dimensions' comparisons of the language pooled; spec §4.7, §6.4)")
OBJECTIVE_META = {"objective_average", "partial_average", "missing_dimensions", "partial_run"}
MIN_COHORT = 3  # z-scores over fewer models are meaningless (spec §6.4 caveat)
METHODS: dict[str, str] = {
    "bt": "Bradley-Terry (margin pseudo-wins, Elo scale, item bootstrap 95% CI)",
    "trueskill": "TrueSkill as FACET rates (mu, +-2 sigma)",
    "eqbench3": "TrueSkill, EQ-Bench 3 margin-to-update mode (mu, +-2 sigma)",
    "elo": "Elo (sequential, K=32)",
    "thurstone": "Thurstone-Mosteller (probit MLE, Elo display 1000 + 295.67 (mu - mean), item bootstrap 95% CI)",
}
BOOTSTRAP_METHODS = ("bt", "thurstone")


@dataclass
class JudgeStats:
    calls: int = 0
    unparsed_calls: int = 0
    matchups: int = 0
    conflicted: int = 0
    decisive: int = 0
    longer_wins: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "parse_rate": 1 - self.unparsed_calls / self.calls if self.calls else None,
            "matchups": self.matchups,
            "position_flip_rate": self.conflicted / self.matchups if self.matchups else None,
            "longer_answer_win_rate": self.longer_wins / self.decisive if self.decisive else None,
        }


@dataclass
class Collected:
    comparisons: list[Comparison] = field(default_factory=list)
    judges: dict[str, JudgeStats] = field(default_factory=lambda: defaultdict(JudgeStats))
    # (model, language, dimension) -> (sample id, epoch) -> (log completion time, log order, score value, score
    # metadata). Objective logs of facet_objective and single-dimension tasks may overlap: the newest log's score
    # is kept (latest completion; Inspect times have 1 s resolution, so a tie goes to the log read later).
    objective: dict[tuple[str, str, str], dict[tuple[str, int], tuple[str, int, float, dict]]] = field(
        default_factory=lambda: defaultdict(dict))
    objective_duplicates: int = 0
    # (language, dimension) -> sample id -> sample metadata: the items the objective logs saw (reference rows)
    objective_items: dict[tuple[str, str], dict[str, dict]] = field(default_factory=lambda: defaultdict(dict))
    sage_logs: list[str] = field(default_factory=list)
    heart_logs: list[str] = field(default_factory=list)
    partial_heart: list[str] = field(default_factory=list)  # HEART logs kept with --allow-partial
    pace_logs: list[str] = field(default_factory=list)
    partial_pace: list[str] = field(default_factory=list)  # pointwise PACE logs kept with --allow-partial
    judged_models: set[str] = field(default_factory=set)
    # Logs that are not complete (logcheck): skipped with a warning, or with --allow-partial kept and marked.
    selection: logcheck.Selection = field(default_factory=logcheck.Selection)
    partial_groups: set[tuple[str, str]] = field(default_factory=set)      # (language, dimension) of comparisons
    partial_objective: set[tuple[str, str]] = field(default_factory=set)   # (model, language) of objective scores
    partial_indexes: set[int] = field(default_factory=set)  # order numbers of the partial logs kept


_task_name = logcheck.task_name
_read = logcheck.read


def collect(paths: Iterable[str], progress: bool = True, allow_partial: bool = False,
            allow_mixed_datasets: bool = False) -> Collected:
    """Comparisons and objective scores from the logs. A log that is not complete (cancelled, errored,
    errored samples; see ``eq_evals.logcheck``) is skipped with a warning, or kept with ``allow_partial`` and
    everything built from it marked partial. SAGE logs are checked the same way by the SAGE leaderboard."""
    files = expand_log_paths(list(paths))
    out = Collected()
    out.selection.retried = logcheck.completed_retries(files)
    unknown = []
    headers = [(path, _read(path, header_only=True)) for path in files]
    mixed = mixed_versions((path, h.eval.metadata) for path, h in headers)
    if mixed and not allow_mixed_datasets:
        raise EqEvalsError(f"{mixed}. Rate each version separately, or pass --allow-mixed-datasets to rank them together.")
    for index, (path, header) in enumerate(tqdm(headers, desc="reading logs", unit="log", disable=not progress)):
        task = _task_name(header)
        if task == "sage":
            out.sage_logs.append(path)
            continue
        if task in ("heart", "heart_strategies"):  # rated by eq_evals.heart.leaderboard (HEART's BT mode, spec §6)
            log = _read(path)
            info = logcheck.check(log, path)
            if logcheck.add(out.selection, log, info, allow_partial):
                out.heart_logs.append(path)
                if not info.complete:
                    out.partial_heart.append(path)
            continue
        log = _read(path)
        info = logcheck.check(log, path)
        if not logcheck.add(out.selection, log, info, allow_partial):
            continue
        partial = not info.complete
        if partial:
            out.partial_indexes.add(index)
        if task == "pace":  # pointwise PACE: composite EQ leaderboard (eq_evals.pace.leaderboard)
            out.pace_logs.append(path)
            if partial:
                out.partial_pace.append(path)
            continue
        if task == "pace_pairwise":  # PACE-AB battles: the board's verdicts as comparisons
            from eq_evals.pace.logs import battle_comparisons

            comps = battle_comparisons(log, path)
            out.comparisons += comps
            out.judged_models |= {m for c in comps for m in (c.model_a, c.model_b)}
            if partial:
                out.partial_groups |= {g for c in comps for g in ((c.language, c.dimension), (c.language, "overall"))}
            continue
        if task in OBJECTIVE_TASKS:
            for s in log.samples or []:
                score = (s.scores or {}).get("facet_objective")
                if score is None:
                    continue
                md = s.metadata or {}
                value = float(score.value) if isinstance(score.value, (int, float)) else float("nan")
                entries = out.objective[(log.eval.model, md.get("language", "en"), md.get("dimension", task))]
                out.objective_items[(md.get("language", "en"), md.get("dimension", task))][str(s.id)] = md
                key, new = (str(s.id), int(s.epoch)), (log.stats.completed_at or log.eval.created or "", index, value, score.metadata or {})
                if key in entries:
                    out.objective_duplicates += 1
                    if new[:2] < entries[key][:2]:
                        continue  # an older log than the one already read
                entries[key] = new
            continue
        if not has_verdicts(log):
            unknown.append(f"{path} ({log.eval.task})")
            continue
        for s, v in log_verdicts(log, path):
            # a matchup judged from a partial generation log (facet_pairwise -T allow_partial=true)
            from_partial = partial or bool((s.metadata or {}).get("partial_generations"))
            out.judged_models |= {v.model_a, v.model_b}
            longer = v.longer()
            for call in v.calls:  # every attempt is a call; the unreadable ones lower the parse rate
                stats = out.judges[call.judge]
                stats.calls += call.attempts
                stats.unparsed_calls += call.attempts - (1 if call.verdict else 0)
            comps = {(c.judge, c.dimension): c for c in v.comparisons()}
            for j in v.judgments:
                comp = comps.get((j.judge, j.criterion))
                if comp is None:
                    continue
                out.comparisons.append(comp)
                if from_partial:
                    out.partial_groups |= {(comp.language, comp.dimension), (comp.language, "overall")}
                if not any(c.judge == j.judge for c in v.calls):
                    continue  # a verdict without recorded calls (a board's): no judge diagnostics
                stats = out.judges[j.judge]
                stats.matchups += 1
                stats.conflicted += int(j.conflicted)
                if comp.winner is not None and longer is not None:
                    stats.decisive += 1
                    stats.longer_wins += int(comp.winner == longer)
    # an objective row is partial when a score it keeps (after de-duplication) comes from a partial log
    out.partial_objective = {(model, language) for (model, language, _), entries in out.objective.items()
                             if any(v[1] in out.partial_indexes for v in entries.values())}
    if unknown:
        raise EqEvalsError("these logs are neither judgment logs (eq_evals/facet_pairwise, eq_evals/pace_pairwise), FACET objective logs, PACE logs "
                           "nor SAGE logs, so they cannot be rated: " + "; ".join(unknown))
    return out


def rate(comparisons: list[Comparison], method: str, bootstrap: int, seed: int) -> dict[str, Rating]:
    if method == "bt":
        return bradley_terry(comparisons, bootstrap_rounds=bootstrap, seed=seed)
    if method == "trueskill":
        return trueskill_facet(comparisons)
    if method == "eqbench3":
        return trueskill_eqbench3(comparisons)
    if method == "elo":
        return elo(comparisons)
    if method == "thurstone":
        return thurstone_mosteller(comparisons, bootstrap_rounds=bootstrap, seed=seed)
    raise EqEvalsError(f"unknown method {method!r}; choose one of {sorted(METHODS)}")


def _interval(r: Rating) -> tuple[float | None, float | None]:
    if r.lower is not None and r.upper is not None:
        return r.lower, r.upper
    if r.sigma is not None:
        return r.score - 2 * r.sigma, r.score + 2 * r.sigma
    return None, None


@dataclass
class Table:
    language: str
    dimension: str
    ratings: list[Rating]
    n_comparisons: int
    note: str = ""
    partial: bool = False  # some comparisons come from a log that is not complete (--allow-partial)
    # Overall tables only: model -> (plain mean of its per-dimension ratings, number of dimensions). A different
    # statistic from the Overall rating, which rates all dimensions' comparisons pooled (spec §4.7 REC).
    dimension_means: dict[str, tuple[float, int]] = field(default_factory=dict)


PARALLEL_MIN_COMPARISONS = 50_000  # below this, forking workers costs more than it saves


def build_tables(comparisons: list[Comparison], method: str, bootstrap: int, seed: int,
                 progress: bool = True, workers: int | None = None,
                 partial_groups: Iterable[tuple[str, str]] = ()) -> list[Table]:
    """One table per (language, dimension) plus each language's pooled Overall table.

    The tables are rated in parallel worker processes (``ratings.parallel``): ``workers`` None = the usable
    cores (or EQ_EVALS_WORKERS) when there are at least PARALLEL_MIN_COMPARISONS comparisons, else one."""
    groups: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
    for c in comparisons:
        groups[(c.language, c.dimension)].append(c)
        groups[(c.language, "overall")].append(c)
    jobs = []
    for (language, dimension), comps in sorted(groups.items()):
        if dimension == "overall" and len({c.dimension for c in comps}) == 1:
            continue  # one dimension only: overall is the same table
        models = {c.model_a for c in comps} | {c.model_b for c in comps}
        if len(models) < 2:
            raise EqEvalsError(f"{language}/{dimension}: only one model ({models.pop()}); ratings need two or more")
        jobs.append((language, dimension, comps))
    if workers is None and len(comparisons) < PARALLEL_MIN_COMPARISONS:
        workers = 1
    with tqdm(total=len(jobs), desc=f"rating ({method})", unit="table", disable=not progress) as bar:
        results = run_calls([(rate, (comps, method, bootstrap, seed)) for _, _, comps in jobs],
                            [len(comps) for _, _, comps in jobs], workers, on_done=bar.update)
    tables = []
    for (language, dimension, comps), (ratings, error) in zip(jobs, results):
        if error is not None:
            raise EqEvalsError(f"{language}/{dimension}: {error}") from None
        note = ""
        if all(c.outcome == 0.5 for c in comps):
            note = "every comparison is a draw: the ratings carry no ranking information"
        tables.append(Table(language, dimension, leaderboard(ratings), len(comps), note,
                            partial=(language, dimension) in set(partial_groups)))
    for t in tables:
        if t.dimension == "overall":
            per_dim = [d for d in tables if d.language == t.language and d.dimension != "overall"]
            for r in t.ratings:
                scores = [x.score for d in per_dim for x in d.ratings if x.model == r.model]
                if scores:
                    t.dimension_means[r.model] = (sum(scores) / len(scores), len(scores))
    return tables


def objective_rows(collected: Collected) -> dict[str, dict[str, dict[str, Any]]]:
    """language -> model -> {dimension: accuracy %, "objective_average": ..., ...}.

    Accuracy = 100 x the mean score over the dimension's items and epochs (de-duplicated per sample id and
    epoch). The Objective Average (spec §3.4) is the mean of the five FACET dimension accuracies and is only
    given when all five are present; otherwise "objective_average" is None, "partial_average" is the mean of
    the dimensions present and "missing_dimensions" lists the others."""
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    for (model, language, dimension), entries in collected.objective.items():
        values = [v[2] for v in entries.values() if not math.isnan(v[2])]
        if values:
            out[language][model][dimension] = 100 * sum(values) / len(values)
    for language, models in out.items():
        for model, dims in models.items():
            if (model, language) in collected.partial_objective:
                dims["partial_run"] = True  # some scores come from a log that is not complete
            present = [d for d in OBJECTIVE_DIMENSIONS if d in dims]
            missing = [d for d in OBJECTIVE_DIMENSIONS if d not in dims]
            dims["objective_average"] = (sum(dims[d] for d in present) / len(present)) if not missing else None
            if missing:
                dims["partial_average"] = sum(dims[d] for d in present) / len(present) if present else None
                dims["missing_dimensions"] = missing
    return out


REFERENCE_ROWS = {"chance": "reference: chance", "majority": "reference: majority"}


def objective_reference(collected: Collected, notes: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """language -> {"reference: chance" | "reference: majority": {dimension: accuracy %, "objective_average"}}.

    What a uniform random answer and the most frequent gold answer score on the items the logs hold
    (``eq_evals.facet.baselines``, exact under the scorer's rules), so that a model's 0.0 (or 25.0) can be read.
    Computed over the union of the items any model answered in that language and dimension."""
    from eq_evals.facet.baselines import facet_baselines

    metas = [m for items in collected.objective_items.values() for m in items.values()]
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
            values["objective_average"] = (sum(values[d] for d in present) / len(present)
                                           if len(present) == len(OBJECTIVE_DIMENSIONS) else None)
    return {lang: dict(refs) for lang, refs in out.items()}


def crisis_matrices(collected: Collected) -> dict[str, dict[str, Any]]:
    """language -> model -> Crisis Recognition confusion matrix (gold x predicted level, plus unparsed) and the
    mean signed error, over every epoch's (de-duplicated) score (spec §2.2 REC)."""
    from eq_evals.facet.scorer import crisis_confusion

    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (model, language, dimension), entries in sorted(collected.objective.items()):
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
    """ΔZ = Z(subjective) - Z(objective) per language (spec §6.4).

    Subjective = FACET's Overall TrueSkill μ (``subjective_overall``); objective = the Objective Average of all
    five dimensions. The cohort is the models with both; models with a partial Objective Average are left out
    with a note; fewer than 3 models in the cohort give a note instead of ΔZ."""
    out: dict[str, Any] = {"_statistic": {"subjective": SUBJECTIVE_STATISTIC,
                                          "objective": "Objective Average: mean of the five FACET objective "
                                                       "dimension accuracies (spec §3.4)"},
                           "_cohort": {}, "_notes": {}}
    for language in sorted(set(objective) & set(subjective)):
        models, sub = objective[language], subjective[language]
        notes = []
        partial = sorted(m for m in set(models) & set(sub) if models[m]["objective_average"] is None)
        if partial:
            notes.append("left out of ΔZ (partial Objective Average): " + "; ".join(
                f"{m} lacks {', '.join(models[m]['missing_dimensions'])}" for m in partial))
        one_sided = sorted((set(models) ^ set(sub)))
        if one_sided:
            notes.append("no objective or no subjective scores, left out: " + ", ".join(one_sided))
        cohort = sorted(m for m in set(models) & set(sub) if models[m]["objective_average"] is not None)
        out["_cohort"][language] = cohort
        if len(cohort) < MIN_COHORT:
            notes.append(f"ΔZ not computed: it needs a cohort of at least {MIN_COHORT} models with both objective "
                         f"(all five dimensions) and subjective scores, got {len(cohort)}"
                         + (f" ({', '.join(cohort)})" if cohort else ""))
        else:
            try:
                rows = delta_z({m: models[m]["objective_average"] for m in cohort}, {m: sub[m] for m in cohort})
            except ValueError as ex:  # e.g. every model has the same score: z is undefined
                notes.append(f"ΔZ undefined: {ex}")
            else:
                out[language] = {m: {"z_objective": row.z_obj, "z_subjective": row.z_sub, "delta_z": row.delta_z,
                                     "objective_average": models[m]["objective_average"], "subjective_mu": sub[m]}
                                 for m, row in rows.items()}
        if notes:
            out["_notes"][language] = " ".join(n.rstrip(".") + "." for n in notes)
    languages = [lang for lang in out if not lang.startswith("_")]
    if len(languages) >= 2:  # a profile reads the sign of ΔZ in every language
        for m in set.intersection(*(set(out[lang]) for lang in languages)):
            deltas = [out[lang][m]["delta_z"] for lang in languages]
            for lang in languages:
                out[lang][m]["profile"] = profile(deltas)
    return out


def mark_partial_gap(gap: dict[str, Any], collected: Collected) -> None:
    """Mark ΔZ rows built on a partial objective row or on partial comparisons of the language."""
    for language, models in gap.items():
        if language.startswith("_"):
            continue
        partial_language = any(g[0] == language for g in collected.partial_groups)
        for model, row in models.items():
            if partial_language or (model, language) in collected.partial_objective:
                row["partial_run"] = True


def _fmt(x: float | None, digits: int = 1) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


DIMENSION_MEAN_LABEL = ("mean of dimension ratings (plain mean of the model's per-dimension ratings: a different "
                        "statistic from Overall, which rates all dimensions' comparisons pooled; spec §4.7)")


def render_markdown(method: str, tables: list[Table], judges: dict, objective: dict, gap: dict,
                    sage: str | None, crisis: dict | None = None, notes: list[str] | None = None,
                    reference: dict | None = None, pace: str | None = None) -> str:
    lines = ["# eq-evals leaderboard", ""]
    if tables:
        lines += [f"Method: {METHODS[method]}. Ratings are comparable only within one table (same language, "
                  "dimension, model cohort and judge).", ""]
    for t in tables:
        title = "Overall (all dimensions pooled)" if t.dimension == "overall" else t.dimension
        overall = t.dimension == "overall"
        partial = (" PARTIAL: some comparisons come from logs that are not complete (see Notes)."
                   if t.partial else "")
        lines += [f"## {t.language} / {title}" + (" (partial)" if t.partial else ""), "",
                  f"{t.n_comparisons} comparisons." + (f" Note: {t.note}." if t.note else "") + partial, "",
                  "| rank | model | rating | 95% interval | matchups | wins | losses | draws |"
                  + (" mean of dimension ratings † |" if overall else ""),
                  "|---|---|---|---|---|---|---|---|" + ("---|" if overall else "")]
        for i, r in enumerate(t.ratings, 1):
            lo, hi = _interval(r)
            interval = f"{_fmt(lo)} to {_fmt(hi)}" if lo is not None else ""
            extra = ""
            if overall:
                mean, n = t.dimension_means.get(r.model, (None, 0))
                extra = f" {_fmt(mean)} ({n} dim.) |" if mean is not None else " |"
            lines.append(f"| {i} | {r.model}{' (partial)' if t.partial else ''} | {_fmt(r.score)} | {interval} | {r.n} | {r.wins} | {r.losses} | {r.draws} |"
                         + extra)
        if overall:
            lines += ["", f"† {DIMENSION_MEAN_LABEL[0].upper() + DIMENSION_MEAN_LABEL[1:]}."]
        lines.append("")
    if judges:
        lines += ["## Judge diagnostics", "", "| judge | calls | parse rate | matchups | position-flip rate | "
                  "longer answer wins | rates its own family |", "|---|---|---|---|---|---|---|"]
        for judge, d in judges.items():
            lines.append(f"| {judge} | {d['calls']} | {_fmt(d['parse_rate'], 3)} | {d['matchups']} | "
                         f"{_fmt(d['position_flip_rate'], 3)} | {_fmt(d['longer_answer_win_rate'], 3)} | "
                         f"{'YES: ' + ', '.join(d['self_family']) if d['self_family'] else 'no'} |")
        lines.append("")
    if objective:
        lines += ["## Objective accuracy (%)", "",
                  "Objective Average = mean of the five FACET objective dimension accuracies (spec §3.4), given only "
                  "when all five are present; otherwise the mean of the dimensions present is shown as partial.", ""]
        for language, models in sorted(objective.items()):
            dims = [d for d in OBJECTIVE_DIMENSIONS if any(d in v for v in models.values())]
            dims += sorted({d for v in models.values() for d in v if d not in OBJECTIVE_META and d not in dims})
            lines += [f"### {language}", "", "| model | " + " | ".join(dims) + " | objective average |",
                      "|---|" + "---|" * (len(dims) + 1)]
            for model, v in sorted(models.items(), key=lambda kv: (kv[1]["objective_average"] is None,
                                                                   -(kv[1]["objective_average"] or 0), kv[0])):
                if v["objective_average"] is not None:
                    average = _fmt(v["objective_average"])
                else:
                    average = (f"partial: {_fmt(v.get('partial_average'))} (missing "
                               f"{', '.join(v['missing_dimensions'])})")
                name = f"{model} (partial)" if v.get("partial_run") else model
                lines.append(f"| {name} | " + " | ".join(_fmt(v.get(d)) for d in dims) + f" | {average} |")
            for label, v in sorted((reference or {}).get(language, {}).items()):
                lines.append(f"| *{label}* | " + " | ".join(_fmt(v.get(d)) for d in dims)
                             + f" | {_fmt(v.get('objective_average'))} |")
            lines.append("")
        if reference:
            lines += ["Reference rows (not models): *chance* is the expected accuracy of a uniformly random answer "
                      "from the answer space each prompt offers, *majority* answers every item with the most "
                      "frequent gold answer of its dimension, language and format; both exact, under the scorer's "
                      "rules, over the items in these logs (`eq_evals.facet.baselines`).", ""]
    if crisis:
        lines += ["## Crisis Recognition confusion matrix (spec §2.2)", "",
                  "Rows: gold level; columns: predicted level, or unparsed; every epoch counted. Mean signed error ="
                  " mean(predicted - gold) over parsed answers (> 0: over-estimated risk).", ""]
        for language, models in sorted(crisis.items()):
            for model, c in models.items():
                lines += [f"### {language} / {model}", "",
                          f"{c['n']} answers, {c['parsed']} parsed; mean signed error "
                          f"{_fmt(c['mean_signed_error'], 3) or 'n/a'}.", "",
                          "| gold \\ predicted | 1 | 2 | 3 | 4 | 5 | unparsed |", "|---|---|---|---|---|---|---|"]
                for g, row in c["matrix"].items():
                    lines.append(f"| {g[1:]} | " + " | ".join(str(n) for n in row.values()) + " |")
                lines.append("")
    if gap:
        stat = gap.get("_statistic", {})
        lines += ["## Subjective-objective gap (ΔZ = Z_sub - Z_obj; FACET §3, spec §6.4)", "",
                  f"Z_sub uses the {stat.get('subjective', '')}, whatever --method the tables above use. "
                  f"Z_obj uses the {stat.get('objective', '')}. Population SD over the cohort; ΔZ is relative "
                  "to the cohort and changes with it.", ""]
        for language, cohort in sorted(gap.get("_cohort", {}).items()):
            lines.append(f"- Cohort {language} ({len(cohort)} models): {', '.join(cohort) or 'none'}")
        lines += ["", "| language | model | objective average | overall mu | Z objective | Z subjective | ΔZ | profile |",
                  "|---|---|---|---|---|---|---|---|"]
        for language, models in sorted(gap.items()):
            if language.startswith("_"):
                continue
            for model, v in sorted(models.items(), key=lambda kv: -kv[1]["delta_z"]):
                name = f"{model} (partial)" if v.get("partial_run") else model
                lines.append(f"| {language} | {name} | {_fmt(v['objective_average'])} | {_fmt(v['subjective_mu'])} | "
                             f"{_fmt(v['z_objective'], 3)} | {_fmt(v['z_subjective'], 3)} | "
                             f"{_fmt(v['delta_z'], 3)} | {v.get('profile', '')} |")
        lines += [f"\nNote ({language}): {note}" for language, note in sorted(gap.get("_notes", {}).items())]
        lines.append("")
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    if sage:
        lines += ["## SAGE", "", sage, ""]
    if pace:
        lines += ["## PACE composite EQ", "", pace, ""]
    return "\n".join(lines)


def rows_for_csv(tables: list[Table]) -> list[dict[str, Any]]:
    rows = []
    for t in tables:
        for rank, r in enumerate(t.ratings, 1):
            lo, hi = _interval(r)
            mean = t.dimension_means.get(r.model)
            rows.append({"language": t.language, "dimension": t.dimension, "rank": rank, "model": r.model,
                         "partial": t.partial,
                         "rating": round(r.score, 3), "lower": None if lo is None else round(lo, 3),
                         "upper": None if hi is None else round(hi, 3), "sigma": r.sigma, "matchups": r.n,
                         "wins": r.wins, "losses": r.losses, "draws": r.draws,
                         # Overall rows only; see DIMENSION_MEAN_LABEL (not the Overall statistic)
                         "mean_of_dimension_ratings": None if mean is None else round(mean[0], 3),
                         "n_dimensions": None if mean is None else mean[1]})
    return rows


AXIS_LABELS: dict[str, str] = {
    "bt": "Bradley-Terry rating (Elo scale), 95% bootstrap CI",
    "trueskill": "TrueSkill \u03bc, \u00b12\u03c3",
    "eqbench3": "TrueSkill \u03bc (EQ-Bench 3 mode), \u00b12\u03c3",
    "elo": "Elo rating (no interval)",
    "thurstone": "Thurstone-Mosteller rating (Elo scale), 95% bootstrap CI",
}


def _chart_limits(tables: list[Table]) -> tuple[float, float]:
    """One x range for every chart of a run: the ratings of every table share the method's scale, so charts
    side by side (or in a paper) can be compared by eye."""
    values = [v for t in tables for r in t.ratings for v in (r.score, *_interval(r)) if v is not None]
    lo, hi = min(values), max(values)
    pad = max((hi - lo) * 0.06, 1.0)
    return lo - pad, hi + pad


def _chart_panel(ax: Any, table: Table, xlim: tuple[float, float], method: str, title: str) -> None:
    """Models sorted best first (top), a point per rating and a thick 95% interval bar."""
    rs = list(reversed(table.ratings))  # leaderboard order is best first; y grows upwards
    ys = list(range(len(rs)))
    lo_hi = [_interval(r) for r in rs]
    err = [[r.score - (lo if lo is not None else r.score) for r, (lo, _) in zip(rs, lo_hi)],
           [(hi if hi is not None else r.score) - r.score for r, (_, hi) in zip(rs, lo_hi)]]
    ax.errorbar([r.score for r in rs], ys, xerr=err, fmt="o", color="#1f4e79", ecolor="#6fa8dc", elinewidth=4,
                capsize=5, capthick=1.5, markersize=7, zorder=3)
    for y, r in zip(ys, rs):
        ax.annotate(f"{r.score:.0f}", (r.score, y), textcoords="offset points", xytext=(0, 7), ha="center",
                    fontsize=8, color="#1f4e79")
    ax.set_yticks(ys, [r.model.split("/")[-1] for r in rs], fontsize=9)
    ax.set_ylim(-0.6, len(rs) - 0.4)
    ax.set_xlim(*xlim)
    ax.set_xlabel(AXIS_LABELS.get(method, method), fontsize=9)
    ax.set_ylabel("model (best first)", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title + (" (partial logs)" if table.partial else ""), fontsize=10)


def _chart_figure(panels: list[tuple[Table, str]], path: Path, method: str, xlim: tuple[float, float],
                  suptitle: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_models = max(len(t.ratings) for t, _ in panels)
    # 6.4 in wide (about 960 px at 150 dpi): a README column or one column of a two-column paper; panels stack
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(6.4, len(panels) * (0.42 * n_models + 1.3) + 0.5))
    for ax, (table, title) in zip(axes[:, 0], panels):
        _chart_panel(ax, table, xlim, method, title)
    if suptitle:
        import textwrap

        fig.suptitle(textwrap.fill(suptitle, 80), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def plot(tables: list[Table], path: Path, method: str) -> list[Path]:
    """Charts worth reading (issue 13): ``leaderboard.png`` is the overall figure (one panel per language: the
    Overall table, or the only dimension rated), and ``charts/<language>_<dimension>.png`` one figure per
    dimension and language. Every chart shares one x scale, sorts models best first, labels both axes and
    draws the 95% intervals as thick bars. Returns the files written."""
    xlim = _chart_limits(tables)
    written = []
    overall = []
    for language in sorted({t.language for t in tables}):
        mine = [t for t in tables if t.language == language]
        top = next((t for t in mine if t.dimension == "overall"), None) or mine[0]
        overall.append((top, f"{language} / {top.dimension} ({top.n_comparisons} comparisons)"))
    _chart_figure(overall, path, method, xlim, f"Overall ratings: {METHODS[method]}")
    written.append(path)
    charts = path.parent / "charts"
    charts.mkdir(exist_ok=True)
    for t in tables:
        file = charts / f"{metric_key(t.language, t.dimension)}.png"
        _chart_figure([(t, f"{t.language} / {t.dimension} ({t.n_comparisons} comparisons)")], file, method, xlim,
                      t.note)
        written.append(file)
    return written


def run(paths: list[str], out_dir: str, method: str = "bt", bootstrap: int = 1000, seed: int = 0,
        progress: bool = True, allow_mixed_datasets: bool = False, allow_partial: bool = False) -> dict[str, Any]:
    collected = collect(paths, progress, allow_partial, allow_mixed_datasets)
    tables = (build_tables(collected.comparisons, method, bootstrap, seed, progress,
                           partial_groups=collected.partial_groups) if collected.comparisons else [])
    judges = {}
    for judge, stats in collected.judges.items():
        d = stats.as_dict()
        d["self_family"] = sorted(m for m in collected.judged_models if family(m) == family(judge))
        judges[judge] = d
    objective = {lang: dict(models) for lang, models in objective_rows(collected).items()}
    crisis = crisis_matrices(collected)
    reference_notes: list[str] = []
    reference = objective_reference(collected, reference_notes) if objective else {}
    gap = gap_rows(subjective_overall(collected.comparisons), objective) if collected.comparisons and objective else {}
    mark_partial_gap(gap, collected)
    notes = list(reference_notes)
    unscored = {key: sum(1 for v in entries.values() if math.isnan(v[2]))
                for key, entries in sorted(collected.objective.items())}
    if any(unscored.values()):  # left out of the accuracies above, never counted as wrong
        notes.append("unscored objective answers, left out of the accuracies: " + "; ".join(
            f"{model} {language}/{dimension}: {n} of {len(collected.objective[(model, language, dimension)])}"
            for (model, language, dimension), n in unscored.items() if n) + " (reasons: eq-evals doctor LOGS)")
    if collected.objective_duplicates:
        notes.append(f"{collected.objective_duplicates} objective scores appeared in more than one log (same model, "
                     "language, sample id and epoch, e.g. facet_objective and a single-dimension task): the newest "
                     "log's score was kept.")
    sage_md, sage_rows = None, None
    if collected.sage_logs:
        from eq_evals.sage import leaderboard as sage_lb

        rows = sage_lb.collect(collected.sage_logs, allow_partial=allow_partial)
        collected.selection.warnings += rows.warnings
        rows.warnings = []
        sage_md, sage_rows = sage_lb.render(rows), json.loads(sage_lb.to_json(rows))
    heart_md, heart = None, None
    if collected.heart_logs:
        from eq_evals.heart import leaderboard as heart_lb

        heart_md, heart = heart_lb.write(collected.heart_logs, Path(out_dir), bootstrap, seed,
                                         partial=collected.partial_heart)
    pace_md, pace_rows = None, None
    if collected.pace_logs:
        from eq_evals.pace import leaderboard as pace_lb

        pace_rows = pace_lb.collect(collected.pace_logs, bootstrap, seed)
        for group in pace_rows:  # a group built on a log that is not complete says so in the JSON too
            group["partial"] = bool(set(group.get("logs", [])) & set(collected.partial_pace))
        pace_md = pace_lb.render(pace_rows)
        if collected.partial_pace:
            pace_md = ("**PARTIAL**: built from logs that are not complete (--allow-partial): "
                       + ", ".join(sorted(collected.partial_pace)) + "\n\n" + pace_md)
    warnings = collected.selection.warnings
    if not (tables or objective or sage_rows or crisis or heart or pace_rows):
        raise EqEvalsError("\n".join(["nothing to rate: the logs hold no judged comparisons, objective scores or "
                                      "SAGE, HEART or PACE samples", *warnings]))
    notes += [w.removeprefix("warning: ") for w in warnings]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    markdown = render_markdown(method, tables, judges, objective, gap, sage_md, crisis, notes, reference, pace_md)
    if heart_md:
        markdown += "\n## HEART (Bradley-Terry Elo, whatever --method; also heart_leaderboard.*)\n\n" + heart_md
    (out / "leaderboard.md").write_text(markdown, encoding="utf-8")
    rows = rows_for_csv(tables)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["language", "dimension", "model"])
    writer.writeheader()
    writer.writerows(rows)
    (out / "leaderboard.csv").write_text(buffer.getvalue(), encoding="utf-8")
    result = {"method": method, "description": METHODS[method], "bootstrap_rounds": bootstrap if method in BOOTSTRAP_METHODS else 0,
              "tables": rows, "dimension_mean_label": DIMENSION_MEAN_LABEL,
              "judges": judges, "objective": objective, "objective_reference": reference, "crisis_confusion": crisis, "gap": gap, "sage": sage_rows, "pace": pace_rows,
              "pace_partial_logs": sorted(collected.partial_pace),
              "notes": {f"{t.language}/{t.dimension}": t.note for t in tables if t.note},
              "objective_notes": notes, "heart": heart, "warnings": warnings,
              "partial_logs": [i.as_dict() for i in collected.selection.partial]}
    if tables:
        result["charts"] = [p.relative_to(out).as_posix() for p in plot(tables, out / "leaderboard.png", method)]
    (out / "leaderboard.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    return result
