"""HEART ratings from ``heart`` logs (HEART paper §9.8-9.9, §9.12, Figure 4), used by ``eq-evals ratings``.

1. Records: every comparison record of every ``heart_pairwise`` score; re-judged pairs are de-duplicated per
   (sample, unordered pair, judge, order, criterion, rubric), keeping the newest log's (docs/heart.md, 'Ratings (eq-evals ratings)').
2. Comparisons: one per (sample, pair, judge, criterion); with both orders judged, the two verdicts are combined
   by ``ratings.aggregate_orders`` (same winner -> mean strength; different winners -> a conflicted draw).
   Items are conversation clusters (``group_id``) so the bootstrap resamples conversations (§9.12).
3. Per criterion: Bradley-Terry on the release's soft outcomes (0.55..0.95 by strength, docs/heart.md, 'Ratings (eq-evals ratings)') with its
   ridge 1e-6 * sum(theta^2) (= ``l2=2e-6`` in ``bradley_terry``'s l2/2 convention), Elo = 1500 + 400 (theta -
   mean theta) / ln 10 (§9.8), the asymptotic interval (SE = sqrt(1/n_i), §9.8) and the cluster-bootstrap
   percentile interval, widened where needed to contain the estimate (``containing``); win rates overall and per
   dimension (a draw counts half), the sweep rate (the share of a system's judged calls in which it won all five
   dimensions, §4.5), judge diagnostics and judge-judge agreement.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eq_evals.charts import Chart, Point, save
from eq_evals.charts import footnote as chart_footnote
from eq_evals.core.text import fmt
from eq_evals.errors import EqEvalsError
from eq_evals.heart.prompts import CRITERIA, LETTERS
from eq_evals.logcheck import read as read_log
from eq_evals.logcheck import task_name
from eq_evals.pairwise.verdict import PairVerdict, log_verdicts
from eq_evals.ratings import (
    Comparison,
    Rating,
    Verdict,
    aggregate_orders,
    asymptotic_interval,
    bradley_terry,
    fleiss_kappa,
    krippendorff_alpha,
)
from eq_evals.sections import Inputs, Result, Section

SCORER = "heart_pairwise"
L2 = 2e-6  # the release's 1e-6 * sum(theta^2) in bradley_terry's l2/2 * ||theta||^2 convention (docs/heart.md, 'Ratings (eq-evals ratings)')


@dataclass
class _Where:
    """The path of a log already read (what ``as_logs`` needs of a LogCheck)."""

    path: str


@dataclass
class HeartRecords:
    records: list[dict[str, Any]] = field(default_factory=list)
    duplicates: int = 0
    logs: list[str] = field(default_factory=list)


def as_logs(items: list[Any]) -> list[tuple[str, Any]]:
    """(path, log) for items that are log paths (read here) or (log, LogCheck) pairs that already passed the gate
    (``eq-evals ratings`` and ``eq-evals heart leaderboard`` hand those over, so no log is read twice)."""
    out = []
    for item in items:
        if isinstance(item, tuple):
            log, info = item
            out.append((info.path, log))
        else:
            out.append((str(item), read_log(str(item))))
    return out


def read_records(items: list[Any]) -> HeartRecords:
    """Comparison records of heart logs (paths, or (log, LogCheck) pairs from the gate), newest first wins on
    duplicates (a log that is not a heart log is an error naming it)."""
    keyed: dict[tuple, tuple[tuple[str, int], dict[str, Any]]] = {}
    out = HeartRecords()
    for index, (path, log) in enumerate(as_logs(items)):
        if task_name(log) != "heart":
            raise EqEvalsError(f"{path} is a log of {log.eval.task}, not of eq_evals/heart")
        out.logs.append(path)
        when = (str(log.stats.completed_at or log.eval.created or ""), index)
        for _, verdict in log_verdicts(log, path):
            for r in records_from_verdict(verdict):
                key = (
                    r["sample_id"],
                    frozenset((r["system_a"], r["system_b"])),
                    r["judge"],
                    r["order"],
                    r["criterion"],
                    r["rubric"],
                )
                if key in keyed:
                    out.duplicates += 1
                    if when < keyed[key][0]:
                        continue
                keyed[key] = (when, r)
    out.records = [r for _, r in keyed.values()]
    rubrics = sorted({r["rubric"] for r in out.records})
    if len(rubrics) > 1:
        raise EqEvalsError(f"the heart logs mix rubrics {rubrics}; ratings are only comparable within one rubric")
    return out


def records_from_verdict(v: PairVerdict) -> list[dict[str, Any]]:
    """The typed verdict record's calls as HEART's per-call rows: the candidate is ``system_a``, ``order`` is
    ``ab`` when the candidate was shown first (``none`` for an empty reply's automatic loss), ``winner`` is
    ``a``/``b``/None and ``strength`` the verdict's strength."""
    rows = []
    for c in v.calls:
        order = "none" if not c.judge and c.error == "empty_response" else "ab" if c.order[0] == v.model_a else "ba"
        rows.append(
            {
                "sample_id": v.sample,
                "group_id": v.item,
                "subset": v.subset,
                "language": v.language,
                "system_a": v.model_a,
                "system_b": v.model_b,
                "judge": c.judge,
                "order": order,
                "criterion": c.criterion,
                "rubric": v.rubric,
                "self_judged": c.self_judged,
                "error": c.error,
                "winner": None if c.winner is None else "a" if c.winner == v.model_a else "b",
                "strength": None if c.winner is None else c.margin,
                "prompt_sha1": c.prompt_hash,
            }
        )
    return rows


def score_records(score: Any) -> list[dict[str, Any]]:
    """HEART's per-call rows of one ``heart_pairwise`` score (for reading a sample in a test or a notebook)."""
    return [
        r
        for record in (score.metadata or {}).get("verdicts", [])
        for r in records_from_verdict(PairVerdict.model_validate(record))
    ]


def _position_verdict(r: dict[str, Any], model_a: str) -> Verdict:
    """The record's verdict in its call's A/B positions, where the call showed ``model_a`` first if order is ab."""
    a_is_system_a = r["system_a"] == model_a
    won_by_model_a = (r["winner"] == "a") == a_is_system_a
    model_a_first = (r["order"] == "ab") == a_is_system_a
    return Verdict("A" if won_by_model_a == model_a_first else "B", int(r["strength"]))


def keyed_comparisons(records: list[dict[str, Any]]) -> list[tuple[str, Comparison]]:
    """(sample id, Comparison) per (sample, pair, judge, criterion) from the valid records (errors excluded)."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["winner"] is None:
            continue
        a, b = sorted((r["system_a"], r["system_b"]))
        groups[(r["sample_id"], a, b, r["judge"], r["criterion"])].append(r)
    out = []
    for (sid, a, b, judge, criterion), recs in sorted(groups.items()):
        a_first = [r for r in recs if (r["order"] == "ab") == (r["system_a"] == a)]
        b_first = [r for r in recs if r not in a_first]
        if (
            a_first and b_first
        ):  # both orders: combined as FACET's pipeline does (docs/heart.md, 'Judging (scorer heart_pairwise)', `order`)
            outcome, margin, conflicted = aggregate_orders(  # type: ignore[misc]
                _position_verdict(a_first[0], a), _position_verdict(b_first[0], a), "draw"
            )
        else:
            r = recs[0]
            outcome = 1.0 if (r["winner"] == "a") == (r["system_a"] == a) else 0.0
            margin, conflicted = int(r["strength"]), False
        out.append(
            (
                sid,
                Comparison(
                    model_a=a,
                    model_b=b,
                    outcome=outcome,
                    margin=margin,
                    item=recs[0]["group_id"],
                    dimension=criterion,
                    language=recs[0].get("language", "en"),
                    judge=judge,
                    conflicted=conflicted,
                ),
            )
        )
    return out


def comparisons(records: list[dict[str, Any]]) -> list[Comparison]:
    """The rating input: one Comparison per (sample, pair, judge, criterion); item = the conversation cluster."""
    return [c for _, c in keyed_comparisons(records)]


def win_rates(comps: list[Comparison]) -> dict[str, dict[str, float]]:
    """system -> criterion -> share of its comparisons won (a draw counts half), in percent."""
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in comps:
        tally[c.model_a][c.dimension].append(c.outcome)
        tally[c.model_b][c.dimension].append(1 - c.outcome)
    return {m: {d: 100 * sum(v) / len(v) for d, v in dims.items()} for m, dims in tally.items()}


def sweep_rates(records: list[dict[str, Any]]) -> dict[str, float]:
    """system -> percent of its judged calls (judge x order x opponent x sample) where it won all of H, E, A, R, T."""
    calls: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for r in records:
        if r["winner"] is not None:
            calls[(r["sample_id"], r["system_a"], r["system_b"], r["judge"], r["order"])][r["criterion"]] = r
    swept: dict[str, list[int]] = defaultdict(list)
    for (_, a, b, _, _), crit in calls.items():
        if all(x in crit for x in LETTERS):
            winners = {crit[x]["winner"] for x in LETTERS}
            swept[a].append(int(winners == {"a"}))
            swept[b].append(int(winners == {"b"}))
    return {m: 100 * sum(v) / len(v) for m, v in swept.items()}


def judge_diagnostics(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per judge: overall verdicts, error rate (unparseable after retries), first-position win rate (position
    bias), self-judged share (no judge outside the pair's families was available)."""
    out: dict[str, dict[str, Any]] = {}
    by_judge: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r["criterion"] == "overall" and r["judge"]:
            by_judge[r["judge"]].append(r)
    for judge, recs in sorted(by_judge.items()):
        valid = [r for r in recs if r["winner"] is not None]
        first = [int((r["winner"] == "a") == (r["order"] == "ab")) for r in valid]
        out[judge] = {
            "verdicts": len(recs),
            "error_rate": 1 - len(valid) / len(recs) if recs else None,
            "first_position_win_rate": sum(first) / len(first) if first else None,
            "self_judged_share": sum(bool(r["self_judged"]) for r in recs) / len(recs) if recs else None,
        }
    return out


def judge_agreement(keyed: list[tuple[str, Comparison]]) -> dict[str, Any]:
    """Agreement between judges on the overall winner (§4.4, §9.9): pairwise percent agreement per judge pair,
    k-way agreement (all judges agree), Fleiss' kappa on the comparisons every judge judged, and Krippendorff's
    alpha (nominal, missing allowed) over {a, b, draw}."""
    labels: dict[tuple, dict[str, str]] = defaultdict(dict)
    for sid, c in keyed:
        if c.dimension == "overall" and c.judge:
            labels[(sid, c.model_a, c.model_b)][c.judge] = {1.0: "a", 0.0: "b"}.get(c.outcome, "draw")
    judges = sorted({j for unit in labels.values() for j in unit})
    if len(judges) < 2:
        return {"judges": judges, "note": "fewer than two judges: no agreement to compute"}
    pairwise = {}
    for j, k in itertools.combinations(judges, 2):
        both = [u for u in labels.values() if j in u and k in u]
        pairwise[f"{j} ~ {k}"] = {
            "n": len(both),
            "agreement": sum(u[j] == u[k] for u in both) / len(both) if both else None,
        }
    full = [u for u in labels.values() if all(j in u for j in judges)]
    kway = sum(len(set(u.values())) == 1 for u in full) / len(full) if full else None
    fleiss = fleiss_kappa([[u[j] for j in judges] for u in full]) if full else None
    try:
        alpha = krippendorff_alpha([[u.get(j) for j in judges] for u in labels.values()])
    except ValueError:
        alpha = None
    return {
        "judges": judges,
        "pairwise": pairwise,
        "k_way": {"n": len(full), "agreement": kway},
        "fleiss_kappa": fleiss,
        "krippendorff_alpha": alpha,
    }


def containing(estimate: float, lower: float | None, upper: float | None) -> tuple[float | None, float | None, bool]:
    """A bootstrap interval widened, where it must be, to contain its estimate: (lower, upper, widened).

    The point Elo is fitted with the release's ridge (``L2``), the bootstrap fits with ``bradley_terry``'s
    stronger floor (``BOOTSTRAP_L2_FLOOR``: a resample in which a system never wins has no finite MLE). With
    perfect separation (a system that loses, or wins, every comparison) every resample shrinks that system
    towards the mean, and the percentile interval lies entirely on one side of the point (docs/heart.md,
    "Intervals"). The interval then reaches to the point estimate, so it always contains the number the row
    shows; ``widened`` says it was extended. No bootstrap (None bounds): unchanged."""
    if lower is None or upper is None:
        return lower, upper, False
    lo, hi = min(lower, estimate), max(upper, estimate)
    return lo, hi, (lo, hi) != (lower, upper)


def build(paths: list[Any], bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The HEART leaderboard (Figure 4 layout) and diagnostics from heart logs (paths or gated (log, check)
    pairs)."""
    data = read_records(paths)
    paths = data.logs
    keyed = keyed_comparisons(data.records)
    comps = [c for _, c in keyed]
    if not comps:
        raise EqEvalsError("the heart logs hold no valid judged comparisons: " + ", ".join(paths))
    ratings: dict[str, dict[str, Rating]] = {}
    notes: list[str] = []
    for criterion in CRITERIA:
        sub = [c for c in comps if c.dimension == criterion]
        if not sub:
            continue
        try:
            ratings[criterion] = bradley_terry(
                sub,
                margin_mode="heart_soft",
                l2=L2,
                anchor=1500.0,
                bootstrap_rounds=bootstrap,
                seed=seed,
                per_component=True,
            )
        except ValueError as ex:
            raise EqEvalsError(f"HEART {criterion}: {ex}") from None
        if len({r.component for r in ratings[criterion].values()}) > 1:
            notes.append(
                f"{criterion}: the comparison graph is disconnected; Elo is centred per component and not "
                "comparable across components"
            )
    rates, sweeps = win_rates(comps), sweep_rates(data.records)
    rows = []
    widened = []
    for model, r in sorted(ratings["overall"].items(), key=lambda kv: -kv[1].score):
        lo, hi = asymptotic_interval(r.score, r.n)  # score -/+ half a width: contains the score
        blo, bhi, extended = containing(r.score, r.lower, r.upper)
        if extended:
            widened.append(model)
        rows.append(
            {
                "model": model,
                **{x: rates.get(model, {}).get(x) for x in LETTERS},
                "overall_win_rate": rates.get(model, {}).get("overall"),
                "elo": r.score,
                "elo_ci_asymptotic": [lo, hi],
                "elo_ci_bootstrap": [blo, bhi],
                **({"elo_ci_bootstrap_widened": True} if extended else {}),
                "comparisons": r.n,
                "sweep_rate": sweeps.get(model),
                "elo_by_dimension": {x: ratings[x][model].score for x in LETTERS if model in ratings.get(x, {})},
            }
        )
        if r.n < 50:
            notes.append(f"{model}: only {r.n} overall comparisons (the paper's systems had thousands)")
    if widened:
        notes.append(
            f"bootstrap interval widened to contain the Elo estimate for {', '.join(widened)}: the "
            "bootstrap fits use a stronger ridge than the point fit, and with perfect separation (a system "
            "that won or lost every comparison) every resample lies on one side of the point"
        )
    by_subset = {}
    subsets = sorted({r.get("subset") or "" for r in data.records})
    if len(subsets) > 1:  # §4.9: regular vs adversarial histories, rated separately (overall only)
        for subset in subsets:
            sub = [
                c
                for c in comparisons([r for r in data.records if (r.get("subset") or "") == subset])
                if c.dimension == "overall"
            ]
            if len({c.model_a for c in sub} | {c.model_b for c in sub}) < 2:
                continue
            fit = bradley_terry(sub, margin_mode="heart_soft", l2=L2, anchor=1500.0, per_component=True)
            rates_s = win_rates(sub)
            by_subset[subset] = [
                {"model": m, "elo": r.score, "overall_win_rate": rates_s[m]["overall"], "comparisons": r.n}
                for m, r in sorted(fit.items(), key=lambda kv: -kv[1].score)
            ]
    errors = sum(1 for r in data.records if r["error"] == "parse")
    empty = len({(r["sample_id"], r["system_a"]) for r in data.records if r["error"] == "empty_response"})
    if data.duplicates:
        notes.append(f"{data.duplicates} records were judged in more than one log; the newest log's were kept")
    if errors:
        notes.append(f"{errors} criterion verdicts could not be parsed after the retries and are left out (not losses)")
    if empty:
        notes.append(f"{empty} empty replies counted as automatic losses at strength 5 (no judge call)")
    return {
        "rows": rows,
        "by_subset": by_subset,
        "judges": judge_diagnostics(data.records),
        "agreement": judge_agreement(keyed),
        "notes": notes,
        "n_records": len(data.records),
        "n_comparisons": len(comps),
        "rubric": next(iter({r["rubric"] for r in data.records}), None),
        "bootstrap_rounds": bootstrap,
        "method": "Bradley-Terry on soft outcomes 0.55..0.95 by strength (release), Elo = 1500 + 400 (theta - "
        "mean theta) / ln 10 (§9.8); CI: asymptotic sqrt(1/n) (§9.8) and conversation-cluster bootstrap",
    }


def render(result: dict[str, Any]) -> str:
    lines = [
        f"Rubric: {result['rubric']}; {result['method']}; bootstrap rounds: {result['bootstrap_rounds']}.",
        "",
        "| Model | H | E | A | R | T | Overall Win Rate | Elo Rating | 95% CI (asymptotic) | 95% CI (bootstrap) "
        "| comparisons | sweep rate |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        lo, hi = r["elo_ci_asymptotic"]
        blo, bhi = r["elo_ci_bootstrap"]
        lines.append(
            f"| {r['model']} | " + " | ".join(fmt(r[x]) for x in LETTERS) + f" | {fmt(r['overall_win_rate'])} | "
            f"{fmt(r['elo'])} | [{fmt(lo)}, {fmt(hi)}] | [{fmt(blo)}, {fmt(bhi)}] | {r['comparisons']} | "
            f"{fmt(r['sweep_rate'])} |"
        )
    lines += [
        "",
        "H E A R T and Overall Win Rate: percent of comparisons won (draws count half). Sweep rate: percent "
        "of judged calls where the system won all five dimensions.",
        "",
    ]
    for subset, rows in result.get("by_subset", {}).items():
        lines += [
            f"### {subset or '(no subset)'} histories only (overall)",
            "",
            "| Model | Overall Win Rate | Elo | comparisons |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {r['model']} | {fmt(r['overall_win_rate'])} | {fmt(r['elo'])} | {r['comparisons']} |" for r in rows
        ]
        lines.append("")
    if result["judges"]:
        lines += [
            "### Judge diagnostics",
            "",
            "| judge | overall verdicts | error rate | first-position win rate | self-judged share |",
            "|---|---|---|---|---|",
        ]
        for j, d in result["judges"].items():
            lines.append(
                f"| {j} | {d['verdicts']} | {fmt(d['error_rate'], 3)} | {fmt(d['first_position_win_rate'], 3)} | "
                f"{fmt(d['self_judged_share'], 3)} |"
            )
        lines.append("")
    ag = result["agreement"]
    if "pairwise" in ag:
        lines += ["### Judge agreement (overall winner)", ""]
        lines += [f"- {pair}: {fmt(v['agreement'], 3)} (n={v['n']})" for pair, v in ag["pairwise"].items()]
        lines += [
            f"- all {len(ag['judges'])} judges agree: {fmt(ag['k_way']['agreement'], 3)} (n={ag['k_way']['n']}); "
            f"Fleiss' kappa {fmt(ag['fleiss_kappa'], 3)}; Krippendorff's alpha {fmt(ag['krippendorff_alpha'], 3)}",
            "",
        ]
    if result["notes"]:
        lines += ["### Notes", ""] + [f"- {n}" for n in result["notes"]] + [""]
    return "\n".join(lines)


def charts(result: dict[str, Any], footnote: str = "") -> list[Chart]:
    """The leaderboard in the shared chart style (``eq_evals.charts``): the Elo with its cluster-bootstrap 95%
    interval, best first, then the win rates per dimension as bars (50% = an even record); the notes (few
    comparisons, intervals widened under perfect separation) under the title, partial rows marked."""
    mark = "partial" if result.get("partial_logs") else ""
    elo = Chart(
        f"HEART Elo (overall, rubric {result.get('rubric') or 'heart'}; {result.get('n_comparisons', '?')} comparisons)",
        "HEART Elo (Bradley-Terry, 1500-centred), 95% cluster-bootstrap interval",
        [Point(r["model"], r["elo"], *(r.get("elo_ci_bootstrap") or [None, None]), mark=mark) for r in result["rows"]],
        caveats=list(result.get("notes", [])) + (["built from partial logs (--allow-partial)"] if mark else []),
        footnote=footnote,
        digits=0,
    )
    rates = Chart(
        "HEART win rates per dimension (draws count half)",
        "percent of comparisons won",
        [
            Point(name, r.get(key), series=r["model"], mark=mark)
            for key, name in [*((x, x) for x in LETTERS), ("overall_win_rate", "Overall")]
            for r in result["rows"]
        ],
        kind="bars",
        references={"even": 50.0},
        sort=False,
        xlim=(0.0, 100.0),
    )
    return [elo, rates]


def plot(result: dict[str, Any], path: Path, footnote: str = "") -> list[Path]:
    """``heart_leaderboard.{svg,png}``: :func:`charts` stacked in one figure."""
    return save(charts(result, footnote), path.with_suffix(""))


def write(
    items: list[Any],
    out: Path,
    bootstrap: int = 1000,
    seed: int = 0,
    partial: list[str] | None = None,
    footnote: str = "",
) -> tuple[str, dict[str, Any]]:
    """heart logs -> heart_leaderboard.{md,csv,json,png}; heart_strategies logs -> heart_strategies.{md,json}.
    ``items``: log paths, or (log, LogCheck) pairs that passed the gate. ``partial``: logs kept although not
    complete (--allow-partial); every output then says so. Returns (Markdown, result)."""
    from eq_evals.heart.strategies import distribution, render_distribution

    logs = as_logs(items)
    judged = [(log, _Where(path)) for path, log in logs if task_name(log) == "heart"]
    classified = [(log, _Where(path)) for path, log in logs if task_name(log) == "heart_strategies"]
    out.mkdir(parents=True, exist_ok=True)
    md, result = "", {}
    if judged:
        result = build(judged, bootstrap, seed)
        md = render(result)
        if partial:
            result["partial_logs"] = sorted(partial)
            for r in result["rows"]:
                r["partial"] = True
            md = (
                "**PARTIAL**: built from logs that are not complete (--allow-partial): "
                + ", ".join(sorted(partial))
                + "\n\n"
                + md
            )
        (out / "heart_leaderboard.md").write_text("# HEART leaderboard\n\n" + md, encoding="utf-8")
        buffer = io.StringIO()
        fields = [
            "model",
            *LETTERS,
            "overall_win_rate",
            "elo",
            "elo_lower_asymptotic",
            "elo_upper_asymptotic",
            "elo_lower_bootstrap",
            "elo_upper_bootstrap",
            "comparisons",
            "sweep_rate",
            "partial",
            "notes",
        ]
        models = [r["model"] for r in result["rows"]]
        writer = csv.DictWriter(buffer, fieldnames=fields)
        writer.writeheader()
        for r in result["rows"]:
            writer.writerow(
                {
                    **{k: r[k] for k in fields if k in r},
                    "elo_lower_asymptotic": r["elo_ci_asymptotic"][0],
                    "elo_upper_asymptotic": r["elo_ci_asymptotic"][1],
                    "elo_lower_bootstrap": r["elo_ci_bootstrap"][0],
                    "elo_upper_bootstrap": r["elo_ci_bootstrap"][1],
                    # the caveats that concern the row: those naming it, and those naming no system
                    "notes": "; ".join(
                        n for n in result["notes"] if r["model"] in n or not any(m in n for m in models)
                    ),
                }
            )
        (out / "heart_leaderboard.csv").write_text(buffer.getvalue(), encoding="utf-8")
        result["charts"] = [p.name for p in plot(result, out / "heart_leaderboard.png", footnote)]
        (out / "heart_leaderboard.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    if classified:
        strategies = distribution(classified)
        table = render_distribution(strategies)
        (out / "heart_strategies.md").write_text(
            "# HEART support strategies (usage %, §4.8)\n\n" + table, encoding="utf-8"
        )
        (out / "heart_strategies.json").write_text(
            json.dumps(strategies, indent=2, ensure_ascii=False), encoding="utf-8"
        )
        md += "\n### Support strategies (usage % per system, §4.8)\n\n" + table
        result = {**result, "strategies": strategies}
    return md, result


def build_section(inputs: Inputs) -> Result:
    """The HEART section of ``eq-evals ratings`` (HEART's Bradley-Terry Elo whatever --method): the same files as
    ``eq-evals heart leaderboard`` (heart_leaderboard.*), and their Markdown under a heading."""
    partial = sorted(inputs.partial_paths)
    md, result = write(
        inputs.logs,
        inputs.out_dir,
        inputs.bootstrap,
        inputs.seed,
        partial=partial,
        footnote=chart_footnote(inputs.logs),
    )
    if not md:
        return Result()
    return Result(
        markdown="## HEART (Bradley-Terry Elo, whatever --method; also heart_leaderboard.*)\n\n" + md,
        json={"heart": result},
        files=[inputs.out_dir / name for name in result.get("charts", [])],
    )


SECTIONS = [
    Section(key="heart", title="HEART", tasks=frozenset({"heart", "heart_strategies"}), build=build_section, order=60)
]
