"""``eq-evals agreement``: judge-human agreement for judge selection studies (FACET §4.4, App. C.5).

Human labels come as a CSV with the columns ``sample_id, rater, label``: ``sample_id`` is a matchup id of a
judgment log (``dimension|item|eN|model_a|model_b``), ``label`` is ``A`` (model_a better), ``B`` (model_b
better) or ``DRAW``, or the name of the better model. Each judge of the judgment logs becomes a rater with the
label of its aggregated two-order verdict. Reported: Cohen's kappa of every judge against every human rater
(and their mean), Fleiss' kappa over all raters on the matchups every rater labelled, and Krippendorff's alpha
(nominal) over everything, missing labels allowed.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

from inspect_ai.log import read_eval_log

from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.logs import expand_log_paths
from eq_evals.ratings import cohen_kappa, fleiss_kappa, krippendorff_alpha

LABELS = ("A", "B", "DRAW")


def judge_labels(paths: list[str]) -> tuple[dict[str, dict[str, str]], dict[str, tuple[str, str]]]:
    """rater (judge) -> sample_id -> label, and sample_id -> (model_a, model_b)."""
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    pairs: dict[str, tuple[str, str]] = {}
    for path in expand_log_paths(paths):
        log = read_eval_log(path)
        found = False
        for s in log.samples or []:
            score = (s.scores or {}).get("pairwise_judge")
            if score is None or not score.metadata:
                continue
            found = True
            md = score.metadata
            pairs[str(s.id)] = (md["model_a"], md["model_b"])
            for j in md.get("judgments", []):
                if j.get("result"):
                    outcome = j["result"]["outcome"]
                    labels[j["judge"]][str(s.id)] = "A" if outcome == 1 else "B" if outcome == 0 else "DRAW"
        if not found:
            raise EqEvalsError(f"{path} ({log.eval.task}) is not a judgment log (no pairwise_judge scores)")
    return labels, pairs


def human_labels(csv_path: str, pairs: dict[str, tuple[str, str]]) -> dict[str, dict[str, str]]:
    path = Path(csv_path)
    if not path.is_file():
        raise EqEvalsError(f"--human {csv_path}: no such file")
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"sample_id", "rater", "label"} - set(reader.fieldnames or [])
        if missing:
            raise EqEvalsError(f"{csv_path}: missing column(s) {sorted(missing)}; expected sample_id, rater, label")
        for row_number, row in enumerate(reader, start=2):
            sid, label = row["sample_id"].strip(), row["label"].strip()
            if sid not in pairs:
                raise EqEvalsError(f"{csv_path}, row {row_number}: sample_id {sid!r} is not a matchup of the judgment logs")
            a, b = pairs[sid]
            label = {a: "A", b: "B"}.get(label, label.upper())
            if label not in LABELS:
                raise EqEvalsError(f"{csv_path}, row {row_number}: label {row['label']!r} is not A, B, DRAW, "
                                   f"{a} or {b}")
            labels[f"human:{row['rater'].strip()}"][sid] = label
    if not labels:
        raise EqEvalsError(f"{csv_path}: no labels")
    return labels


def agreement(judgments: list[str], human_csv: str) -> dict:
    judges, pairs = judge_labels(judgments)
    humans = human_labels(human_csv, pairs)
    report: dict = {"cohen": {}, "raters": sorted(judges) + sorted(humans)}
    for judge, jl in sorted(judges.items()):
        per_human = {}
        for human, hl in sorted(humans.items()):
            shared = sorted(set(jl) & set(hl))
            if len(shared) >= 2:
                per_human[human] = {"kappa": cohen_kappa([jl[s] for s in shared], [hl[s] for s in shared], LABELS),
                                    "n": len(shared)}
        values = [v["kappa"] for v in per_human.values()]
        report["cohen"][judge] = {"per_human": per_human, "mean": sum(values) / len(values) if values else None}
    raters = {**judges, **humans}
    items = sorted(set().union(*(set(v) for v in raters.values())))
    complete = [s for s in items if all(s in v for v in raters.values())]
    report["fleiss"] = ({"kappa": fleiss_kappa([[raters[r][s] for r in raters] for s in complete]), "n": len(complete)}
                        if len(complete) >= 2 and len(raters) >= 2 else None)
    report["krippendorff_alpha"] = {"alpha": krippendorff_alpha([[raters[r].get(s) for r in raters] for s in items]),
                                    "n": len(items)}
    return report


def render(report: dict) -> str:
    lines = ["| judge | human rater | Cohen's kappa | matchups |", "|---|---|---|---|"]
    for judge, d in report["cohen"].items():
        for human, v in d["per_human"].items():
            lines.append(f"| {judge} | {human} | {v['kappa']:.3f} | {v['n']} |")
        if d["mean"] is not None:
            lines.append(f"| {judge} | (mean) | {d['mean']:.3f} | |")
    if report["fleiss"]:
        lines.append(f"\nFleiss' kappa, all {len(report['raters'])} raters: {report['fleiss']['kappa']:.3f} "
                     f"on {report['fleiss']['n']} matchups")
    lines.append(f"Krippendorff's alpha (nominal): {report['krippendorff_alpha']['alpha']:.3f} "
                 f"on {report['krippendorff_alpha']['n']} matchups")
    return "\n".join(lines)


def main(judgments: list[str], human_csv: str, out: str | None) -> int:
    report = agreement(judgments, human_csv)
    print(render(report))
    if out:
        Path(out).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0
