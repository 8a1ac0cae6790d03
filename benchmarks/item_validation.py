"""Item validation report (issue 23): every item validator on the bundled FACET, PACE and HEART files, with each
shortcut detector's mean and range over the repeated splits, chance, majority, limit and result, the
same-scenario pairs found (and whether the pairs issue 23 lists are among them), and the HEART reference style.

    python benchmarks/item_validation.py --tag v3 [--repeats N]

Writes benchmarks/results/facet_validation_<tag>.json and .md. The limits are datasets/facet/validation_limits.yaml.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eq_evals.core.itemcheck import render_report  # noqa: E402
from eq_evals.facet.validate import Thresholds, render  # noqa: E402
from eq_evals.facet.validate import run as facet_run  # noqa: E402
from eq_evals.heart.validate import run as heart_run  # noqa: E402
from eq_evals.pace.validate import run as pace_run  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine, now  # noqa: E402

# the same-scenario pairs issue 23 found by reading version 3 (FACET item ids without pa-/-en, PACE ids without -en)
ISSUE_PAIRS = [
    ("pa-social-026", "pa-social-034"),
    ("pa-social-028", "pa-social-055"),
    ("pa-crisis-025", "pa-crisis-054"),
    ("pa-hidden-042", "pa-social-033"),
    ("pa-apparent-015", "pa-hidden-052"),
    ("pa-prediction-035", "pa-social-020"),
    ("pace-proj-015", "pace-proj-060"),
    ("pace-proj-004", "pace-proj-045"),
]


def pairs_of(report) -> set[frozenset]:
    out = set()
    for f in report.findings:
        if f.check == "same_scenario" and f.item:
            other = f.message.split("same story as ")[1].split(" ")[0]
            out.add(frozenset((other, f.item.rsplit("-", 1)[0] if f.item.endswith(("-en", "-zh")) else f.item)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tag", required=True, help="the data version, for the file names (e.g. v3)")
    parser.add_argument("--repeats", type=int, default=Thresholds().repeats)
    args = parser.parse_args()
    before, start = machine(), time.time()
    os.chdir(Path(__file__).resolve().parents[1])  # relative paths in the report: datasets/facet/...
    facet = facet_run([Path("datasets/facet")], thresholds=Thresholds(repeats=args.repeats))
    pace = pace_run([Path("datasets/pace")])
    heart = heart_run([Path("datasets/heart")])
    found = pairs_of(facet) | pairs_of(pace) | pairs_of(heart)
    issue = {f"{a} ~ {b}": frozenset((a, b)) in found for a, b in ISSUE_PAIRS}
    result = {
        "benchmark": "item_validation",
        "tag": args.tag,
        "date": now(),
        "machine": before,
        "seconds": round(time.time() - start, 1),
        "limits": "datasets/facet/validation_limits.yaml",
        "repeats": args.repeats,
        "issue_23_pairs_found": issue,
        "same_scenario_pairs_flagged": {
            "facet": sum(1 for f in facet.findings if f.check == "same_scenario" and f.item),
            "pace": sum(1 for f in pace.findings if f.check == "same_scenario" and f.item),
            "heart": sum(1 for f in heart.findings if f.check == "same_scenario" and f.item),
        },
        "errors": {"facet": len(facet.errors), "pace": len(pace.errors), "heart": len(heart.errors)},
        "facet": json.loads(facet.to_json()),
        "pace": json.loads(pace.to_json()),
        "heart": json.loads(heart.to_json()),
    }
    out = Path(__file__).parent / "results" / f"facet_validation_{args.tag}"
    out.with_suffix(".json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    found_lines = "\n".join(f"- {pair}: {'found' if ok else 'MISSED'}" for pair, ok in issue.items())
    md = (
        f"# Item validation, data {args.tag} ({result['date']})\n\n"
        f"`python benchmarks/item_validation.py --tag {args.tag}` with the limits of "
        "`datasets/facet/validation_limits.yaml`; every figure is in the JSON file beside this one.\n\n"
        f"Errors: FACET {len(facet.errors)}, PACE {len(pace.errors)}, HEART {len(heart.errors)}.\n\n"
        f"Same-scenario pairs issue 23 lists:\n\n{found_lines}\n\n"
        f"Pairs flagged in all: {result['same_scenario_pairs_flagged']}.\n\n"
        "## FACET\n\n```\n" + render(facet) + "\n```\n\n"
        "## PACE\n\n```\n" + render_report(pace, "PACE") + "\n```\n\n"
        "## HEART\n\n```\n" + render_report(heart, "HEART") + "\n```\n"
    )
    out.with_suffix(".md").write_text(md, encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
