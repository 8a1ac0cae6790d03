"""``eq-evals agreement``: judge-human agreement for judge selection studies (FACET §4.4, App. C.5; docs/pairwise.md, '4. eq-evals agreement').

Human labels come as a CSV with the columns ``sample_id, rater, label`` and optionally ``dimension``:
``sample_id`` is a matchup id of a judgment log (``dimension|item|eN|model_a|model_b``), ``label`` is ``A``
(model_a better), ``B`` (model_b better) or ``DRAW``, or the name of the better model; ``dimension``, when
given, must be the matchup's dimension (a check against mislabelled rows).

As in docs/pairwise.md, '4. eq-evals agreement', each human annotation is one **instance** (human label, judge label), per judge; the judge's label
is its aggregated two-order verdict, and a position-conflicted verdict is ``DRAW``, a category of its own, so
judge inconsistency counts as disagreement. Reported per judge: Cohen's kappa over {A, B, DRAW} per dimension
and a Total kappa on all instances pooled (not the mean of the dimensions), kappa over the non-conflicted
instances only with the conflict rate, percent agreement, and the stability statistics over the per-dimension
kappas (mean, population SD, CV, min; the paper picks the judge with the lowest CV and a high minimum).
Also: Fleiss' kappa among the human raters (the expert-expert ceiling) on the matchups every human labelled,
Cohen's kappa of each judge against each human rater, and Krippendorff's alpha (nominal) over all raters.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eq_evals.core.text import fmt, number
from eq_evals.errors import EqEvalsError
from eq_evals.logcheck import expand_log_paths, select
from eq_evals.pairwise.verdict import PairVerdict, log_verdicts
from eq_evals.ratings import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement, stability

LABELS = ("A", "B", "DRAW")


@dataclass(frozen=True)
class Instance:
    """One human annotation paired with one judge's verdict on the same matchup (docs/pairwise.md, '4. eq-evals agreement')."""

    dimension: str
    human: str
    judge: str
    conflicted: bool  # the judge's two orders disagreed (its label is then DRAW)


@dataclass
class JudgeLogs:
    labels: dict[str, dict[str, str]]  # judge -> sample id -> A | B | DRAW
    conflicted: dict[str, dict[str, bool]]  # judge -> sample id -> position-conflicted
    pairs: dict[str, tuple[str, str]]  # sample id -> (model_a, model_b)
    dimensions: dict[str, str]  # sample id -> dimension
    warnings: list[str] = field(default_factory=list)  # logs skipped or included although partial (logcheck)
    partial: list[str] = field(default_factory=list)  # partial logs included (allow_partial)


def read_judgments(paths: list[str], allow_partial: bool = False) -> JudgeLogs:
    """Judge verdicts from judgment logs; logs that are not complete are skipped with a warning, or kept with
    ``allow_partial`` (``eq_evals.logcheck``)."""
    out = JudgeLogs(defaultdict(dict), defaultdict(dict), {}, {})
    selection = select(expand_log_paths(paths), allow_partial)
    out.warnings, out.partial = selection.warnings, sorted(selection.partial_paths)
    for log, info in selection.kept:
        path = info.path
        verdicts = log_verdicts(log, path)
        if not verdicts:
            raise EqEvalsError(f"{path} ({log.eval.task}) is not a judgment log (no pairwise verdict records)")
        _add_verdicts(verdicts, out)
    if not selection.kept:
        raise EqEvalsError("no complete judgment logs:\n" + "\n".join(selection.warnings))
    return out


ENSEMBLE_MAJORITY = "ensemble-majority"


def matchup_id(sample: str, v: PairVerdict, criterion: str, criteria: int) -> str:
    """The id human labels refer to: the sample id when the sample judged one matchup on one criterion (FACET's
    ``dimension|item|eN|model_a|model_b``), else ``criterion|sample|model_a|model_b`` with the two contestants
    sorted (HEART's one reply against several opponents on five criteria)."""
    if criteria == 1:
        return sample
    a, b = sorted((v.model_a, v.model_b))
    return f"{criterion}|{v.sample or sample}|{a}|{b}"


def _add_verdicts(verdicts: list[tuple[Any, PairVerdict]], out: JudgeLogs) -> None:
    """Each judge's label per matchup is its (two-order) verdict; with several judges on a matchup,
    ``ensemble-majority`` is their majority (a tie is DRAW), the LLM-ensemble label HEART reports for
    human-LLM agreement (HEART paper §9.9)."""
    per_sample: dict[str, int] = defaultdict(int)
    for sample, v in verdicts:
        per_sample[str(sample.id)] += len({j.criterion for j in v.judgments}) or 1
    votes: dict[str, list[str]] = defaultdict(list)
    for sample, v in verdicts:
        for j in v.judgments:
            if j.outcome is None:
                continue
            sid = matchup_id(str(sample.id), v, j.criterion, per_sample[str(sample.id)])
            a, b = (v.model_a, v.model_b) if sid == str(sample.id) else tuple(sorted((v.model_a, v.model_b)))
            outcome = j.outcome if a == v.model_a else 1 - j.outcome
            label = "A" if outcome == 1 else "B" if outcome == 0 else "DRAW"
            out.pairs[sid], out.dimensions[sid] = (a, b), j.criterion
            out.labels[j.judge][sid] = label
            out.conflicted[j.judge][sid] = j.conflicted
            votes[sid].append(label)
    for sid, labels in votes.items():
        if len(labels) > 1:
            a_votes, b_votes = labels.count("A"), labels.count("B")
            out.labels[ENSEMBLE_MAJORITY][sid] = "A" if a_votes > b_votes else "B" if b_votes > a_votes else "DRAW"


def judge_labels(paths: list[str]) -> tuple[dict[str, dict[str, str]], dict[str, tuple[str, str]]]:
    """rater (judge) -> sample_id -> label, and sample_id -> (model_a, model_b)."""
    logs = read_judgments(paths)
    return logs.labels, logs.pairs


def human_labels(
    csv_path: str, pairs: dict[str, tuple[str, str]], dimensions: dict[str, str] | None = None
) -> dict[str, dict[str, str]]:
    path = Path(csv_path)
    if not path.is_file():
        raise EqEvalsError(f"--human {csv_path}: no such file")
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"sample_id", "rater", "label"} - set(reader.fieldnames or [])
        if missing:
            raise EqEvalsError(
                f"{csv_path}: missing column(s) {sorted(missing)}; expected sample_id, rater, label "
                "(and optionally dimension)"
            )
        unknown = [c for c in reader.fieldnames or [] if c not in ("sample_id", "rater", "label", "dimension")]
        if unknown:
            raise EqEvalsError(
                f"{csv_path}: unknown column(s) {unknown}; expected sample_id, rater, label and "
                "optionally dimension (a misnamed column would be ignored)"
            )
        for row_number, row in enumerate(reader, start=2):
            if row.get(None):  # csv.DictReader puts cells beyond the header under None
                raise EqEvalsError(
                    f"{csv_path}, row {row_number}: {len(row[None])} more cell(s) than the header "
                    f"has columns: {row[None]}"
                )
            if any(row.get(c) is None for c in reader.fieldnames or []):
                raise EqEvalsError(f"{csv_path}, row {row_number}: fewer cells than the header has columns")
            sid, label = (row["sample_id"] or "").strip(), (row["label"] or "").strip()
            if sid not in pairs:
                raise EqEvalsError(
                    f"{csv_path}, row {row_number}: sample_id {sid!r} is not a matchup of the judgment logs"
                )
            dimension = (row.get("dimension") or "").strip()
            if dimension and dimensions is not None and dimension != dimensions.get(sid):
                raise EqEvalsError(
                    f"{csv_path}, row {row_number}: dimension {dimension!r} does not match the "
                    f"matchup's dimension {dimensions.get(sid)!r} (sample_id {sid!r})"
                )
            a, b = pairs[sid]
            label = {a: "A", b: "B"}.get(label, label.upper())
            if label not in LABELS:
                raise EqEvalsError(
                    f"{csv_path}, row {row_number}: label {row['label']!r} is not A, B, DRAW, {a} or {b}"
                )
            rater = f"human:{(row['rater'] or '').strip()}"
            if sid in labels[rater] and labels[rater][sid] != label:
                raise EqEvalsError(
                    f"{csv_path}, row {row_number}: rater {row['rater']!r} labels {sid!r} twice, differently"
                )
            labels[rater][sid] = label
    if not labels:
        raise EqEvalsError(f"{csv_path}: no labels")
    return labels


def kappa_block(instances: list[Instance]) -> dict[str, Any]:
    """Cohen's kappa (human vs judge over {A, B, DRAW}), percent agreement, the conflict rate and kappa over the
    non-conflicted instances. Kappa is None where undefined (both raters used one and the same label)."""
    if not instances:
        return {
            "n": 0,
            "kappa": None,
            "percent_agreement": None,
            "conflict_rate": None,
            "kappa_non_conflicted": None,
            "n_non_conflicted": 0,
        }
    h, j = [i.human for i in instances], [i.judge for i in instances]
    clean = [i for i in instances if not i.conflicted]
    return {
        "n": len(instances),
        "kappa": number(cohen_kappa(h, j, LABELS)),
        "percent_agreement": percent_agreement(h, j),
        "conflict_rate": (len(instances) - len(clean)) / len(instances),
        "kappa_non_conflicted": number(cohen_kappa([i.human for i in clean], [i.judge for i in clean], LABELS))
        if clean
        else None,
        "n_non_conflicted": len(clean),
    }


def judge_agreement(instances: list[Instance]) -> dict[str, Any]:
    """Per-dimension blocks, the Total block on all instances pooled, and stability over the dimension kappas."""
    by_dim: dict[str, list[Instance]] = defaultdict(list)
    for i in instances:
        by_dim[i.dimension].append(i)
    per_dimension = {d: kappa_block(v) for d, v in sorted(by_dim.items())}
    kappas = [v["kappa"] for v in per_dimension.values() if v["kappa"] is not None]
    undefined = sorted(d for d, v in per_dimension.items() if v["kappa"] is None)
    stab = {k: number(v) for k, v in stability(kappas).items()} if kappas else None
    return {
        "per_dimension": per_dimension,
        "total": kappa_block(instances),
        "stability": stab,
        "stability_note": (
            f"kappa undefined (one label only) in {', '.join(undefined)}: left out of the stability statistics"
        )
        if undefined
        else "",
    }


def human_fleiss(humans: dict[str, dict[str, str]], dimensions: dict[str, str]) -> dict[str, Any] | None:
    """Fleiss' kappa among the human raters on the matchups all of them labelled (expert-expert ceiling),
    pooled and per dimension. None with fewer than two human raters or two shared matchups."""
    if len(humans) < 2:
        return None
    shared = sorted(set.intersection(*(set(v) for v in humans.values())))
    if len(shared) < 2:
        return None

    def fk(sids: list[str]) -> float | None:
        return number(fleiss_kappa([[humans[r][s] for r in sorted(humans)] for s in sids])) if sids else None

    by_dim: dict[str, list[str]] = defaultdict(list)
    for s in shared:
        by_dim[dimensions.get(s, "")].append(s)
    return {
        "raters": len(humans),
        "n": len(shared),
        "kappa": fk(shared),
        "per_dimension": {d: {"kappa": fk(v), "n": len(v)} for d, v in sorted(by_dim.items())},
    }


def agreement(judgments: list[str], human_csv: str, allow_partial: bool = False) -> dict:
    logs = read_judgments(judgments, allow_partial)
    humans = human_labels(human_csv, logs.pairs, logs.dimensions)
    report: dict = {
        "labels": list(LABELS),
        "raters": sorted(logs.labels) + sorted(humans),
        "judges": {},
        "cohen": {},
        "warnings": logs.warnings,
        "partial_logs": logs.partial,
    }
    for judge, jl in sorted(logs.labels.items()):
        instances = [
            Instance(logs.dimensions[sid], label, jl[sid], logs.conflicted[judge].get(sid, False))
            for _, hl in sorted(humans.items())
            for sid, label in sorted(hl.items())
            if sid in jl
        ]
        unjudged = sum(1 for hl in humans.values() for sid in hl if sid not in jl)
        report["judges"][judge] = {**judge_agreement(instances), "unjudged_annotations": unjudged}
        per_human = {}
        for human, hl in sorted(humans.items()):
            shared = sorted(set(jl) & set(hl))
            if len(shared) >= 2:
                per_human[human] = {
                    "kappa": number(cohen_kappa([jl[s] for s in shared], [hl[s] for s in shared], LABELS)),
                    "n": len(shared),
                }
        values = [v["kappa"] for v in per_human.values() if v["kappa"] is not None]
        report["cohen"][judge] = {"per_human": per_human, "mean": sum(values) / len(values) if values else None}
    report["fleiss_humans"] = human_fleiss(humans, logs.dimensions)
    raters = {**logs.labels, **humans}
    items = sorted(set().union(*(set(v) for v in raters.values())))
    report["krippendorff_alpha"] = {
        "alpha": number(krippendorff_alpha([[raters[r].get(s) for r in raters] for s in items])),
        "n": len(items),
    }
    return report


def render(report: dict) -> str:
    lines = [
        "# Judge-human agreement (FACET paper App. C.5; protocol in docs/pairwise.md §4)",
        "",
        "Instances = (human annotation, judge verdict) pairs; Cohen's kappa over {A, B, DRAW}, where a judge's "
        "DRAW is a position-conflicted verdict. Total = all instances pooled (not the mean of the dimensions).",
        "",
    ]
    if report.get("partial_logs"):
        lines += [
            "PARTIAL: verdicts from logs that are not complete are included: " + ", ".join(report["partial_logs"]),
            "",
        ]
    for judge, d in report["judges"].items():
        lines += [
            f"## {judge}",
            "",
            "| dimension | instances | kappa | % agreement | conflict rate | kappa (non-conflicted) | non-conflicted |",
            "|---|---|---|---|---|---|---|",
        ]
        for dim, b in [*d["per_dimension"].items(), ("**Total**", d["total"])]:
            lines.append(
                f"| {dim} | {b['n']} | {fmt(b['kappa'], 3)} | {fmt(b['percent_agreement'], 3)} | "
                f"{fmt(b['conflict_rate'], 3)} | {fmt(b['kappa_non_conflicted'], 3)} | {b['n_non_conflicted']} |"
            )
        s = d["stability"]
        if s:
            lines.append(
                f"\nStability over the {len(d['per_dimension'])} per-dimension kappas: mean {fmt(s['mean'], 3)}, "
                f"population SD {fmt(s['sd'], 3)}, CV {fmt(s['cv'], 3)}, min {fmt(s['min'], 3)}."
            )
        if d["stability_note"]:
            lines.append(f"Note: {d['stability_note']}.")
        if d["unjudged_annotations"]:
            lines.append(f"Note: {d['unjudged_annotations']} human annotations have no verdict of this judge.")
        lines.append("")
    f = report["fleiss_humans"]
    if f:
        lines.append(
            f"Fleiss' kappa among the {f['raters']} human raters (ceiling): {fmt(f['kappa'], 3)} on {f['n']} "
            "matchups labelled by all of them; per dimension: "
            + ", ".join(f"{dim} {fmt(v['kappa'], 3)} (n={v['n']})" for dim, v in f["per_dimension"].items())
        )
    else:
        lines.append("Fleiss' kappa among humans: needs two or more human raters sharing two or more matchups.")
    lines += ["", "| judge | human rater | Cohen's kappa | matchups |", "|---|---|---|---|"]
    for judge, d in report["cohen"].items():
        for human, v in d["per_human"].items():
            lines.append(f"| {judge} | {human} | {fmt(v['kappa'], 3)} | {v['n']} |")
        if d["mean"] is not None:
            lines.append(f"| {judge} | (mean) | {fmt(d['mean'], 3)} | |")
    lines.append(
        f"\nKrippendorff's alpha (nominal, all raters): {fmt(report['krippendorff_alpha']['alpha'], 3)} "
        f"on {report['krippendorff_alpha']['n']} matchups"
    )
    return "\n".join(lines)


def main(judgments: list[str], human_csv: str, out: str | None, allow_partial: bool = False) -> int:
    import sys

    report = agreement(judgments, human_csv, allow_partial)
    print(render(report))
    for warning in report["warnings"]:
        print(f"eq-evals: {warning}", file=sys.stderr)
    if out:
        Path(out).write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0
