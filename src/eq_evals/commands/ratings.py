"""``eq-evals ratings LOGS...``: every leaderboard the logs allow (FACET, LongEmotion, SAGE, PACE, HEART), as Markdown, CSV,
JSON, SVG and PNG (docs/pairwise.md, docs/ratings.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eq_evals.commands import add_gate_options, add_parser

METHODS = ["bt", "trueskill", "eqbench3", "elo", "thurstone"]

ORDER = 2  # place in `eq-evals --help`


def cmd_ratings(args: argparse.Namespace) -> int:
    from eq_evals.report import run

    result = run(
        args.logs,
        args.out,
        args.method,
        args.bootstrap,
        args.seed,
        progress=not args.quiet,
        allow_mixed_datasets=args.allow_mixed_datasets,
        allow_partial=args.allow_partial,
    )
    print((Path(args.out) / "leaderboard.md").read_text(encoding="utf-8"))
    for warning in result["warnings"]:
        print(f"eq-evals: {warning}", file=sys.stderr)
    out = Path(args.out)  # a Path, so --out ratings/ does not print ratings//leaderboard.md
    charts = (
        f"; charts (SVG and PNG): {out / 'leaderboard.png'} (overall) and "
        f"{sum(1 for c in result['charts'] if c.startswith('charts/') and c.endswith('.png'))} in {out / 'charts'}"
        if result.get("charts")
        else ""
    )
    print(f"written: {out / 'leaderboard.md'}, .csv, .json{charts}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_parser(
        sub,
        "ratings",
        help="leaderboards (Markdown, CSV, JSON, SVG and PNG charts) from judgment, objective, LongEmotion, SAGE, PACE and HEART logs",
        examples=[
            "eq-evals ratings judged/ objective/ --out ratings/",
            "eq-evals ratings judged/ --method trueskill --out ts/ --quiet",
            "eq-evals ratings pace-logs/ pace-battles/ --method thurstone --bootstrap 100 --out tm/",
        ],
    )
    p.add_argument("logs", nargs="+", metavar="LOGS", help="log files or folders")
    p.add_argument(
        "--method",
        default="bt",
        choices=METHODS,
        help="bt: Bradley-Terry with bootstrap CIs (default); trueskill: FACET's TrueSkill; "
        "eqbench3: EQ-Bench 3's TrueSkill mode; elo: plain Elo; thurstone: "
        "Thurstone-Mosteller (PACE) with bootstrap CIs",
    )
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap rounds for bt and thurstone (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument("--out", default="ratings", help="output folder (default: ./ratings)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_gate_options(
        p,
        partial="include logs that are not complete (cancelled, errored), marked partial in every output",
        mixed="rank logs made on different dataset versions (content hashes) together",
    )
    p.set_defaults(func=cmd_ratings)
