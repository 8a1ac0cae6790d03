"""``eq-evals agreement JUDGMENT_LOGS --human labels.csv``: judge-human agreement (docs/pairwise.md §4)."""

from __future__ import annotations

import argparse

from eq_evals.commands import add_gate_options, add_parser

ORDER = 3  # place in `eq-evals --help`


def cmd_agreement(args: argparse.Namespace) -> int:
    from eq_evals.agreement_cli import main as agreement_main

    return agreement_main(args.judgments, args.human, args.out, allow_partial=args.allow_partial)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_parser(
        sub,
        "agreement",
        help="Cohen's/Fleiss' kappa and Krippendorff's alpha between judges and human labels",
        examples=[
            "eq-evals agreement judged/ --human labels.csv",
            "eq-evals agreement logs/heart.eval --human labels.csv --out agreement.json",
        ],
    )
    p.add_argument(
        "judgments", nargs="+", metavar="LOGS", help="judgment logs (eq_evals/facet_pairwise, eq_evals/heart)"
    )
    p.add_argument(
        "--human",
        required=True,
        help="CSV with columns sample_id, rater, label (A, B, DRAW or a model name) and an optional "
        "dimension column checked against the matchup",
    )
    p.add_argument("--out", help="also write the report as JSON")
    add_gate_options(p, partial="include judgment logs that are not complete (cancelled, errored), marked partial")
    p.set_defaults(func=cmd_agreement)
