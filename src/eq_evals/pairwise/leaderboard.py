"""The shared pairwise leaderboard section: judging logs' verdict records rated as comparisons.

Every judging task a benchmark names in its leaderboard module's ``RATED_TASKS`` (FACET's interaction
judging, PACE's battles) writes the typed verdict record (``eq_evals.pairwise.verdict``); this section turns
them into comparisons, one per judge and matchup, rated per language and dimension, plus an Overall rating per
language from all dimensions' comparisons pooled (FACET's "Subjective Average", FACET paper §4), shown beside the
plain mean of the dimension ratings (a different statistic). Judge diagnostics (parse rate, position flips,
longer-answer wins, a judge rating its own model family) accompany every judged leaderboard. Other sections
read the comparisons from ``Inputs.shared["comparisons"]`` (FACET's subjective-objective gap).

Methods (docs/ratings.md): ``bt`` (default; Bradley-Terry on margin pseudo-wins with an item-level bootstrap
for 95% intervals), ``trueskill`` (FACET's exact procedure), ``eqbench3`` (EQ-Bench 3's margin-to-update
TrueSkill), ``elo``, ``thurstone`` (Thurstone-Mosteller probit MLE on an Elo display, as PACE ranks models, with
the same item bootstrap).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from tqdm import tqdm

from eq_evals.charts import Chart, Point, save
from eq_evals.charts import footnote as chart_footnote
from eq_evals.core.metrics import metric_key
from eq_evals.core.text import family, fmt
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.verdict import log_verdicts
from eq_evals.ratings import (
    Comparison,
    Rating,
    bradley_terry,
    elo,
    leaderboard,
    thurstone_mosteller,
    trueskill_eqbench3,
    trueskill_facet,
)
from eq_evals.ratings.bradley_terry import components
from eq_evals.ratings.parallel import run_calls
from eq_evals.sections import Inputs, Result, Section, rated_tasks

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
class Judged:
    """Comparisons and judge diagnostics from the judging logs."""

    comparisons: list[Comparison] = field(default_factory=list)
    by_task: dict[str, list[Comparison]] = field(default_factory=lambda: defaultdict(list))
    judges: dict[str, JudgeStats] = field(default_factory=lambda: defaultdict(JudgeStats))
    judged_models: set[str] = field(default_factory=set)
    partial_groups: set[tuple[str, str, str]] = field(default_factory=set)  # (task, language, dimension), partial


def judged_comparisons(inputs: Inputs) -> Judged:
    """Every recorded judgment of the section's logs as a comparison, with each judge's diagnostics."""
    out = Judged()
    for log, info in inputs.logs:
        partial = not info.complete
        for s, v in log_verdicts(log, info.path):
            # a matchup judged from a partial generation log (-T allow_partial=true)
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
                out.by_task[info.task].append(comp)
                if from_partial:
                    out.partial_groups |= {
                        (info.task, comp.language, comp.dimension),
                        (info.task, comp.language, "overall"),
                    }
                if not any(c.judge == j.judge for c in v.calls):
                    continue  # a verdict without recorded calls (a board's): no judge diagnostics
                stats = out.judges[j.judge]
                stats.matchups += 1
                stats.conflicted += int(j.conflicted)
                if comp.winner is not None and longer is not None:
                    stats.decisive += 1
                    stats.longer_wins += int(comp.winner == longer)
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
    task: str = ""  # the judging task, named in titles when several tasks are rated (never pooled together)
    # Overall tables only: model -> (plain mean of its per-dimension ratings, number of dimensions). A different
    # statistic from the Overall rating, which rates all dimensions' comparisons pooled (docs/ratings.md, '3. TrueSkill as FACET does it', 'Overall').
    dimension_means: dict[str, tuple[float, int]] = field(default_factory=dict)


# fewer matchups than this for a model: the table says its order rests on a small sample (docs/ratings.md)
MIN_MATCHUPS = 10
PARALLEL_MIN_COMPARISONS = 50_000  # below this, forking workers costs more than it saves


def build_tables(
    comparisons: list[Comparison],
    method: str,
    bootstrap: int,
    seed: int,
    progress: bool = True,
    workers: int | None = None,
    partial_groups: Iterable[tuple[str, str]] = (),
) -> list[Table]:
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
        results = run_calls(
            [(rate, (comps, method, bootstrap, seed)) for _, _, comps in jobs],
            [len(comps) for _, _, comps in jobs],
            workers,
            on_done=bar.update,
        )
    tables = []
    for (language, dimension, comps), (ratings, error) in zip(jobs, results):
        if error is not None:
            raise EqEvalsError(f"{language}/{dimension}: {error}") from None
        notes = []
        if all(c.outcome == 0.5 for c in comps):
            notes.append("every comparison is a draw: the ratings carry no ranking information")
        models = sorted({c.model_a for c in comps} | {c.model_b for c in comps})
        groups = components(comps, models)
        if len(groups) > 1:  # only bt and thurstone refuse (their fits raise); the sequential methods still rank
            notes.append(
                f"the comparison graph is disconnected into {len(groups)} components ("
                + "; ".join(", ".join(g) for g in groups)
                + "): ratings across components are not "
                "comparable, only within one"
            )
        separated = separation(comps, models)
        if separated:
            notes.append(
                f"perfect separation ({separated}): those ratings rest on the fit's prior and are bounds, not estimates"
            )
        fewest = min(sum(1 for c in comps if m in (c.model_a, c.model_b)) for m in models)
        if fewest < MIN_MATCHUPS:
            notes.append(
                f"small sample: only {len(comps)} comparisons, the fewest for one model {fewest} (under "
                f"{MIN_MATCHUPS}); the order may change with more"
                + (
                    "; sequential updates weigh the last matchups most"
                    if method in ("trueskill", "eqbench3", "elo")
                    else ""
                )
            )
        ratings, widened = containing(ratings)
        if widened:
            notes.append(
                "the bootstrap interval of " + ", ".join(widened) + " did not contain its rating (a fit at "
                "the edge of the data, e.g. all wins or all losses) and was widened to reach it"
            )
        tables.append(
            Table(
                language,
                dimension,
                leaderboard(ratings),
                len(comps),
                "; ".join(notes),
                partial=(language, dimension) in set(partial_groups),
            )
        )
    for t in tables:
        if t.dimension == "overall":
            per_dim = [d for d in tables if d.language == t.language and d.dimension != "overall"]
            for r in t.ratings:
                scores = [x.score for d in per_dim for x in d.ratings if x.model == r.model]
                if scores:
                    t.dimension_means[r.model] = (sum(scores) / len(scores), len(scores))
    return tables


def separation(comps: list[Comparison], models: list[str]) -> str:
    """The models that won (or lost) every comparison they were in, as "never lost: ...; never won: ...", or ""
    (the caveat ``bradley_terry`` otherwise only warns about on stderr)."""
    seen: dict[str, set[float]] = defaultdict(set)
    for c in comps:
        seen[c.model_a].add(c.outcome)
        seen[c.model_b].add(1 - c.outcome)
    unbeaten = [m for m in models if seen[m] == {1.0}]
    winless = [m for m in models if seen[m] == {0.0}]
    parts = ([f"never lost: {', '.join(unbeaten)}"] if unbeaten else []) + (
        [f"never won: {', '.join(winless)}"] if winless else []
    )
    return "; ".join(parts)


def containing(ratings: dict[str, Rating]) -> tuple[dict[str, Rating], list[str]]:
    """Every interval contains its estimate: a percentile bootstrap interval that misses the point rating (the
    point fit and the resampled fits meet the prior differently when a model never wins or never loses) is
    widened to reach it. Returns the ratings and the models whose interval was widened."""
    out, widened = {}, []
    for model, r in ratings.items():
        if r.lower is not None and r.upper is not None and not r.lower <= r.score <= r.upper:
            out[model] = replace(r, lower=min(r.lower, r.score), upper=max(r.upper, r.score))
            widened.append(model)
        else:
            out[model] = r
    return out, sorted(widened)


DIMENSION_MEAN_LABEL = (
    "mean of dimension ratings (plain mean of the model's per-dimension ratings: a different "
    "statistic from Overall, which rates all dimensions' comparisons pooled; docs/ratings.md §3)"
)


def render_tables(method: str, tables: list[Table], judges: dict) -> str:
    lines: list[str] = []
    if tables:
        lines += [
            f"Method: {METHODS[method]}. Ratings are comparable only within one table (same language, "
            "dimension, model cohort and judge).",
            "",
        ]
    for t in tables:
        title = "Overall (all dimensions pooled)" if t.dimension == "overall" else t.dimension
        overall = t.dimension == "overall"
        partial = " PARTIAL: some comparisons come from logs that are not complete (see Notes)." if t.partial else ""
        where = f"{t.task} · " if len({x.task for x in tables}) > 1 else ""
        lines += [
            f"## {where}{t.language} / {title}" + (" (partial)" if t.partial else ""),
            "",
            f"{t.n_comparisons} comparisons." + (f" Note: {t.note}." if t.note else "") + partial,
            "",
            "| rank | model | rating | 95% interval | matchups | wins | losses | draws |"
            + (" mean of dimension ratings † |" if overall else ""),
            "|---|---|---|---|---|---|---|---|" + ("---|" if overall else ""),
        ]
        for i, r in enumerate(t.ratings, 1):
            lo, hi = _interval(r)
            interval = f"{fmt(lo)} to {fmt(hi)}" if lo is not None else ""
            extra = ""
            if overall:
                mean, n = t.dimension_means.get(r.model, (None, 0))
                extra = f" {fmt(mean)} ({n} dim.) |" if mean is not None else " |"
            lines.append(
                f"| {i} | {r.model}{' (partial)' if t.partial else ''} | {fmt(r.score)} | {interval} | {r.n} | {r.wins} | {r.losses} | {r.draws} |"
                + extra
            )
        if overall:
            lines += ["", f"† {DIMENSION_MEAN_LABEL[0].upper() + DIMENSION_MEAN_LABEL[1:]}."]
        lines.append("")
    if judges:
        lines += [
            "## Judge diagnostics",
            "",
            "| judge | calls | parse rate | matchups | position-flip rate | "
            "longer answer wins | rates its own family |",
            "|---|---|---|---|---|---|---|",
        ]
        for judge, d in judges.items():
            lines.append(
                f"| {judge} | {d['calls']} | {fmt(d['parse_rate'], 3)} | {d['matchups']} | "
                f"{fmt(d['position_flip_rate'], 3)} | {fmt(d['longer_answer_win_rate'], 3)} | "
                f"{'YES: ' + ', '.join(d['self_family']) if d['self_family'] else 'no'} |"
            )
        lines.append("")
    return "\n".join(lines)


def rows_for_csv(tables: list[Table]) -> list[dict[str, Any]]:
    rows = []
    for t in tables:
        for rank, r in enumerate(t.ratings, 1):
            lo, hi = _interval(r)
            mean = t.dimension_means.get(r.model)
            rows.append(
                {
                    "task": t.task,
                    "language": t.language,
                    "dimension": t.dimension,
                    "rank": rank,
                    "model": r.model,
                    "partial": t.partial,
                    "note": t.note,
                    "rating": round(r.score, 3),
                    "lower": None if lo is None else round(lo, 3),
                    "upper": None if hi is None else round(hi, 3),
                    "sigma": r.sigma,
                    "matchups": r.n,
                    "wins": r.wins,
                    "losses": r.losses,
                    "draws": r.draws,
                    # Overall rows only; see DIMENSION_MEAN_LABEL (not the Overall statistic)
                    "mean_of_dimension_ratings": None if mean is None else round(mean[0], 3),
                    "n_dimensions": None if mean is None else mean[1],
                }
            )
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


def _chart(table: Table, method: str, title: str, footnote: str) -> Chart:
    """A table as a chart in the shared style (``eq_evals.charts``): models best first, a dot per rating and a
    thick 95% interval bar; the table's notes (few comparisons, disconnected graph, widened intervals) under the
    title, partial logs marked on the points."""
    points = [Point(r.model, r.score, *_interval(r), mark="partial" if table.partial else "") for r in table.ratings]
    caveats = ([table.note] if table.note else []) + (
        ["built from partial logs (--allow-partial)"] if table.partial else []
    )
    return Chart(title, AXIS_LABELS.get(method, method), points, caveats=caveats, footnote=footnote, digits=0)


def plot(tables: list[Table], path: Path, method: str, footnote: str = "") -> list[Path]:
    """Charts worth reading (issue 13), in the shared style (``eq_evals.charts``), each as SVG and PNG:
    ``leaderboard.{svg,png}`` is the overall figure (one panel per language: the Overall table, or the only
    dimension rated), and ``charts/<language>_<dimension>.{svg,png}`` one figure per dimension and language.
    Every chart shares one x scale, sorts models best first, labels both axes and draws the 95% intervals as
    thick bars. Returns the files written."""
    xlim = _chart_limits(tables)
    written = []
    overall = []
    several = len({t.task for t in tables}) > 1
    for task, language in sorted({(t.task, t.language) for t in tables}):
        mine = [t for t in tables if (t.task, t.language) == (task, language)]
        top = next((t for t in mine if t.dimension == "overall"), None) or mine[0]
        chart = _chart(
            top,
            method,
            f"{task + ' · ' if several else ''}{language} / {top.dimension} ({top.n_comparisons} comparisons)",
            footnote,
        )
        chart.xlim = xlim
        overall.append(chart)
    overall[0].footnote = f"{METHODS[method]} · {footnote}" if footnote else METHODS[method]
    written += save(overall, path.with_suffix(""))
    charts = path.parent / "charts"
    charts.mkdir(exist_ok=True)
    for t in tables:
        chart = _chart(
            t,
            method,
            f"{t.task + ' · ' if several else ''}{t.language} / {t.dimension} ({t.n_comparisons} comparisons)",
            footnote,
        )
        chart.xlim = xlim
        written += save(chart, charts / f"{(t.task + '_') if several else ''}{metric_key(t.language, t.dimension)}")
    return written


def build(inputs: Inputs) -> Result:
    judged = judged_comparisons(inputs)
    # each judging task is rated on its own (FACET's interaction dimensions and PACE's battles are never pooled
    # into one Overall); other sections read their own task's comparisons (FACET's subjective-objective gap)
    inputs.shared["comparisons"] = dict(judged.by_task)
    inputs.shared["partial_groups"] = judged.partial_groups
    if not judged.comparisons:
        return Result(json={"tables": [], "judges": {}}, csv={"leaderboard.csv": []})
    tables = []
    for task, comps in sorted(judged.by_task.items()):
        for t in build_tables(
            comps,
            inputs.method,
            inputs.bootstrap,
            inputs.seed,
            inputs.progress,
            partial_groups={(lang, dim) for tk, lang, dim in judged.partial_groups if tk == task},
        ):
            t.task = task
            tables.append(t)
    judges = {}
    for judge, stats in judged.judges.items():
        d = stats.as_dict()
        d["self_family"] = sorted(m for m in judged.judged_models if family(m) == family(judge))
        judges[judge] = d
    rows = rows_for_csv(tables)
    files = plot(tables, inputs.out_dir / "leaderboard.png", inputs.method, chart_footnote(inputs.logs))
    return Result(
        markdown=render_tables(inputs.method, tables, judges),
        json={
            "tables": rows,
            "dimension_mean_label": DIMENSION_MEAN_LABEL,
            "judges": judges,
            "notes": {f"{t.task}/{t.language}/{t.dimension}": t.note for t in tables if t.note},
            "charts": [p.relative_to(inputs.out_dir).as_posix() for p in files],
        },
        csv={"leaderboard.csv": rows},
        files=files,
    )


SECTIONS = [Section(key="ratings", title="Pairwise ratings", tasks=rated_tasks, build=build, order=10)]
