"""Leaderboards from Inspect logs: ``eq-evals ratings LOGS...``.

Judgment logs (``pairwise_judge`` scores) become comparisons, one per judge and matchup, and are rated per
language and dimension, plus an Overall rating per language from all dimensions' comparisons pooled (FACET's
"Subjective Average", spec §4.7). Objective logs (FACET perception/cognition tasks) add per-model accuracy,
the Objective Average and the subjective-objective gap ΔZ with FACET's three profiles (spec §6.4). SAGE logs
add the Sentient leaderboard. Judge diagnostics (parse rate, position flips, longer-answer wins, a judge
rating its own model family) accompany every judged leaderboard.

Methods (see docs/ratings.md): ``bt`` (default; Bradley-Terry on margin pseudo-wins with an item-level
bootstrap for 95% intervals), ``trueskill`` (FACET's exact procedure), ``eqbench3`` (EQ-Bench 3's
margin-to-update TrueSkill), ``elo``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from inspect_ai.log import EvalLog, read_eval_log
from tqdm import tqdm

from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.logs import expand_log_paths
from eq_evals.ratings import (
    Comparison,
    Rating,
    bradley_terry,
    delta_z,
    elo,
    leaderboard,
    profile,
    trueskill_eqbench3,
    trueskill_facet,
)

OBJECTIVE_TASKS = {"facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis",
                   "facet_objective"}
METHODS: dict[str, str] = {
    "bt": "Bradley-Terry (margin pseudo-wins, Elo scale, item bootstrap 95% CI)",
    "trueskill": "TrueSkill as FACET rates (mu, +-2 sigma)",
    "eqbench3": "TrueSkill, EQ-Bench 3 margin-to-update mode (mu, +-2 sigma)",
    "elo": "Elo (sequential, K=32)",
}


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
    objective: dict[tuple[str, str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    sage_logs: list[str] = field(default_factory=list)
    judged_models: set[str] = field(default_factory=set)


def _task_name(log: EvalLog) -> str:
    return log.eval.task.split("/")[-1]


def _read(path: str, header_only: bool = False) -> EvalLog:
    try:
        return read_eval_log(path, header_only=header_only)
    except Exception as ex:  # noqa: BLE001
        raise EqEvalsError(f"{path} is not a readable Inspect log: {ex}") from None


def collect(paths: Iterable[str], progress: bool = True) -> Collected:
    files = expand_log_paths(list(paths))
    out = Collected()
    unknown = []
    for path in tqdm(files, desc="reading logs", unit="log", disable=not progress):
        header = _read(path, header_only=True)
        task = _task_name(header)
        if task == "sage":
            out.sage_logs.append(path)
            continue
        log = _read(path)
        if task in OBJECTIVE_TASKS:
            for s in log.samples or []:
                score = (s.scores or {}).get("facet_objective")
                if score is None or not isinstance(score.value, (int, float)) or math.isnan(float(score.value)):
                    continue
                md = s.metadata or {}
                out.objective[(log.eval.model, md.get("language", "en"), md.get("dimension", task))].append(
                    float(score.value))
            continue
        if not any("pairwise_judge" in (s.scores or {}) for s in log.samples or []):
            unknown.append(f"{path} ({log.eval.task})")
            continue
        for s in log.samples or []:
            score = (s.scores or {}).get("pairwise_judge")
            if score is None or not score.metadata:
                continue
            md = score.metadata
            out.judged_models |= {md["model_a"], md["model_b"]}
            longer = (md["model_a"] if md.get("length_a", 0) > md.get("length_b", 0)
                      else md["model_b"] if md.get("length_b", 0) > md.get("length_a", 0) else None)
            for j in md.get("judgments", []):
                stats = out.judges[j["judge"]]
                stats.calls += len(j["calls"])
                stats.unparsed_calls += sum(c["attempts"] - (1 if c["verdict"] else 0) for c in j["calls"])
                stats.calls += sum(c["attempts"] - 1 for c in j["calls"])
                r = j.get("result")
                if r is None:
                    continue
                stats.matchups += 1
                stats.conflicted += int(r["conflicted"])
                comp = Comparison(model_a=md["model_a"], model_b=md["model_b"], outcome=r["outcome"],
                                  margin=r["margin"], item=md["item"], dimension=md["dimension"],
                                  language=md["language"], judge=j["judge"], conflicted=r["conflicted"],
                                  phase=md.get("phase", ""), plus_a=r.get("plus_a"), plus_b=r.get("plus_b"))
                out.comparisons.append(comp)
                if comp.winner is not None and longer is not None:
                    stats.decisive += 1
                    stats.longer_wins += int(comp.winner == longer)
    if unknown:
        raise EqEvalsError("these logs are neither judgment logs (eq_evals/facet_pairwise), FACET objective logs "
                           "nor SAGE logs, so they cannot be rated: " + "; ".join(unknown))
    return out


def family(model: str) -> str:
    """A model's family for the self-preference flag: the first word of its name (gpt, claude, qwen...)."""
    name = model.split("/")[-1].lower()
    return re.split(r"[-_.:@\d]", name, maxsplit=1)[0] or name


def rate(comparisons: list[Comparison], method: str, bootstrap: int, seed: int) -> dict[str, Rating]:
    if method == "bt":
        return bradley_terry(comparisons, bootstrap_rounds=bootstrap, seed=seed)
    if method == "trueskill":
        return trueskill_facet(comparisons)
    if method == "eqbench3":
        return trueskill_eqbench3(comparisons)
    if method == "elo":
        return elo(comparisons)
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


def build_tables(comparisons: list[Comparison], method: str, bootstrap: int, seed: int,
                 progress: bool = True) -> list[Table]:
    groups: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
    for c in comparisons:
        groups[(c.language, c.dimension)].append(c)
        groups[(c.language, "overall")].append(c)
    tables = []
    for (language, dimension), comps in tqdm(sorted(groups.items()), desc=f"rating ({method})", unit="table",
                                              disable=not progress):
        if dimension == "overall" and len({c.dimension for c in comps}) == 1:
            continue  # one dimension only: overall is the same table
        models = {c.model_a for c in comps} | {c.model_b for c in comps}
        if len(models) < 2:
            raise EqEvalsError(f"{language}/{dimension}: only one model ({models.pop()}); ratings need two or more")
        try:
            ratings = leaderboard(rate(comps, method, bootstrap, seed))
        except ValueError as ex:
            raise EqEvalsError(f"{language}/{dimension}: {ex}") from None
        note = ""
        if all(c.outcome == 0.5 for c in comps):
            note = "every comparison is a draw: the ratings carry no ranking information"
        tables.append(Table(language, dimension, ratings, len(comps), note))
    return tables


def objective_rows(collected: Collected) -> dict[str, dict[str, dict[str, float]]]:
    """language -> model -> {dimension: accuracy %, "objective_average": mean of the dimensions}."""
    out: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for (model, language, dimension), values in collected.objective.items():
        out[language][model][dimension] = 100 * sum(values) / len(values)
    for language, models in out.items():
        for model, dims in models.items():
            dims["objective_average"] = sum(dims.values()) / len(dims)
    return out


def gap_rows(tables: list[Table], objective: dict) -> dict[str, Any]:
    """ΔZ = Z(subjective) - Z(objective) per language over the models present in both (spec §6.4)."""
    out: dict[str, Any] = {}
    for language, models in objective.items():
        overall = [t for t in tables if t.language == language and t.dimension == "overall"] or \
                  [t for t in tables if t.language == language]
        if not overall:
            continue
        subjective = {r.model: r.score for r in overall[0].ratings}
        shared = sorted(set(subjective) & set(models))
        if len(shared) < 2:
            continue
        try:
            rows = delta_z({m: models[m]["objective_average"] for m in shared}, {m: subjective[m] for m in shared})
        except ValueError as ex:  # e.g. every model has the same score: z is undefined
            out.setdefault("_notes", {})[language] = f"ΔZ undefined: {ex}"
            continue
        out[language] = {m: {"z_objective": row.z_obj, "z_subjective": row.z_sub, "delta_z": row.delta_z}
                         for m, row in rows.items()}
    languages = [lang for lang in out if lang != "_notes"]
    if len(languages) >= 2:  # a profile reads the sign of ΔZ in every language
        for m in set.intersection(*(set(out[lang]) for lang in languages)):
            deltas = [out[lang][m]["delta_z"] for lang in languages]
            for lang in languages:
                out[lang][m]["profile"] = profile(deltas)
    return out


def _fmt(x: float | None, digits: int = 1) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def render_markdown(method: str, tables: list[Table], judges: dict, objective: dict, gap: dict,
                    sage: str | None) -> str:
    lines = ["# eq-evals leaderboard", ""]
    if tables:
        lines += [f"Method: {METHODS[method]}. Ratings are comparable only within one table (same language, "
                  "dimension, model cohort and judge).", ""]
    for t in tables:
        title = "Overall (all dimensions pooled)" if t.dimension == "overall" else t.dimension
        lines += [f"## {t.language} / {title}", "", f"{t.n_comparisons} comparisons." + (f" Note: {t.note}." if t.note else ""), "",
                  "| rank | model | rating | 95% interval | matchups | wins | losses | draws |",
                  "|---|---|---|---|---|---|---|---|"]
        for i, r in enumerate(t.ratings, 1):
            lo, hi = _interval(r)
            interval = f"{_fmt(lo)} to {_fmt(hi)}" if lo is not None else ""
            lines.append(f"| {i} | {r.model} | {_fmt(r.score)} | {interval} | {r.n} | {r.wins} | {r.losses} | {r.draws} |")
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
        lines += ["## Objective accuracy (%)", ""]
        for language, models in sorted(objective.items()):
            dims = sorted({d for v in models.values() for d in v if d != "objective_average"})
            lines += [f"### {language}", "", "| model | " + " | ".join(dims) + " | objective average |",
                      "|---|" + "---|" * (len(dims) + 1)]
            for model, v in sorted(models.items(), key=lambda kv: -kv[1]["objective_average"]):
                lines.append(f"| {model} | " + " | ".join(_fmt(v.get(d)) for d in dims)
                             + f" | {_fmt(v['objective_average'])} |")
            lines.append("")
    if gap:
        lines += ["## Subjective-objective gap (ΔZ = Z_sub - Z_obj; FACET §3, spec §6.4)", "",
                  "| language | model | Z objective | Z subjective | ΔZ | profile |", "|---|---|---|---|---|---|"]
        for language, models in sorted(gap.items()):
            if language == "_notes":
                continue
            for model, v in sorted(models.items(), key=lambda kv: -kv[1]["delta_z"]):
                lines.append(f"| {language} | {model} | {_fmt(v['z_objective'], 3)} | {_fmt(v['z_subjective'], 3)} | "
                             f"{_fmt(v['delta_z'], 3)} | {v.get('profile', '')} |")
        lines += [f"\nNote ({language}): {note}" for language, note in gap.get("_notes", {}).items()]
        lines.append("")
    if sage:
        lines += ["## SAGE", "", sage, ""]
    return "\n".join(lines)


def rows_for_csv(tables: list[Table]) -> list[dict[str, Any]]:
    rows = []
    for t in tables:
        for rank, r in enumerate(t.ratings, 1):
            lo, hi = _interval(r)
            rows.append({"language": t.language, "dimension": t.dimension, "rank": rank, "model": r.model,
                         "rating": round(r.score, 3), "lower": None if lo is None else round(lo, 3),
                         "upper": None if hi is None else round(hi, 3), "sigma": r.sigma, "matchups": r.n,
                         "wins": r.wins, "losses": r.losses, "draws": r.draws})
    return rows


def plot(tables: list[Table], path: Path, method: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    languages = sorted({t.language for t in tables})
    dims = sorted({t.dimension for t in tables}, key=lambda d: (d == "overall", d))
    n_models = max(len(t.ratings) for t in tables)
    fig, axes = plt.subplots(len(languages), len(dims), squeeze=False,
                             figsize=(3.6 * len(dims) + 1, 0.45 * n_models * len(languages) + 1.6))
    for i, language in enumerate(languages):
        for j, dim in enumerate(dims):
            ax = axes[i][j]
            table = next((t for t in tables if t.language == language and t.dimension == dim), None)
            if table is None:
                ax.axis("off")
                continue
            rs = list(reversed(table.ratings))
            ys = range(len(rs))
            lo_hi = [_interval(r) for r in rs]
            err = [[r.score - (lo if lo is not None else r.score) for r, (lo, _) in zip(rs, lo_hi)],
                   [(hi if hi is not None else r.score) - r.score for r, (_, hi) in zip(rs, lo_hi)]]
            ax.errorbar([r.score for r in rs], list(ys), xerr=err, fmt="o", capsize=3)
            ax.set_yticks(list(ys), [r.model.split("/")[-1] for r in rs], fontsize=8)
            ax.set_title(f"{language} / {dim}", fontsize=9)
            ax.tick_params(axis="x", labelsize=8)
    fig.suptitle(f"eq-evals ratings: {METHODS[method]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(paths: list[str], out_dir: str, method: str = "bt", bootstrap: int = 1000, seed: int = 0,
        progress: bool = True) -> dict[str, Any]:
    collected = collect(paths, progress)
    tables = build_tables(collected.comparisons, method, bootstrap, seed, progress) if collected.comparisons else []
    judges = {}
    for judge, stats in collected.judges.items():
        d = stats.as_dict()
        d["self_family"] = sorted(m for m in collected.judged_models if family(m) == family(judge))
        judges[judge] = d
    objective = {lang: dict(models) for lang, models in objective_rows(collected).items()}
    gap = gap_rows(tables, objective) if tables and objective else {}
    sage_md, sage_rows = None, None
    if collected.sage_logs:
        from eq_evals.sage import leaderboard as sage_lb

        rows = sage_lb.collect(collected.sage_logs)
        sage_md, sage_rows = sage_lb.render(rows), json.loads(sage_lb.to_json(rows))
    if not (tables or objective or sage_rows):
        raise EqEvalsError("nothing to rate: the logs hold no judged comparisons, objective scores or SAGE samples")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "leaderboard.md").write_text(render_markdown(method, tables, judges, objective, gap, sage_md), encoding="utf-8")
    rows = rows_for_csv(tables)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["language", "dimension", "model"])
    writer.writeheader()
    writer.writerows(rows)
    (out / "leaderboard.csv").write_text(buffer.getvalue(), encoding="utf-8")
    result = {"method": method, "description": METHODS[method], "bootstrap_rounds": bootstrap if method == "bt" else 0,
              "tables": rows, "judges": judges, "objective": objective, "gap": gap, "sage": sage_rows,
              "notes": {f"{t.language}/{t.dimension}": t.note for t in tables if t.note}}
    (out / "leaderboard.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    if tables:
        plot(tables, out / "leaderboard.png", method)
    return result
