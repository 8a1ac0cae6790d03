"""``eq-evals card LOGS... --out DIR``: the report card of any logs (docs/profile.md, "The report card"):
report.html (self-contained, opens from disk), report.md and report.json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from eq_evals.commands import add_gate_options, add_parser
from eq_evals.errors import EqEvalsError

ORDER = 3  # place in `eq-evals --help`: after ratings


def cmd_card(args: argparse.Namespace) -> int:
    from eq_evals.card import write_card

    plan = None
    if args.plan:
        try:
            plan = json.loads(Path(args.plan).read_text(encoding="utf-8"))
        except (OSError, ValueError) as ex:
            raise EqEvalsError(f"--plan {args.plan}: not a readable JSON plan ({ex})") from None
    paths = write_card(
        args.logs,
        Path(args.out),
        plan=plan,
        title=args.title,
        allow_partial=not args.complete_only,
        allow_mixed=args.allow_mixed_datasets,
        method=args.method,
        bootstrap=args.bootstrap,
        seed=args.seed,
    )
    card = json.loads(paths["json"].read_text(encoding="utf-8"))
    for warning in card["warnings"]:
        print(f"eq-evals: {warning.removeprefix('warning: ')}", file=sys.stderr)
    for b in card["benchmarks"]:
        print(
            f"{b['name']:<12} {b['status']:<11} {len(b['logs'])} logs" + (f"  ({b['reason']})" if b["reason"] else "")
        )
    print(f"report card: {paths['html']} (open it in a browser; also {paths['md'].name} and {paths['json'].name})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_parser(
        sub,
        "card",
        help="a report card (self-contained report.html, report.md, report.json) from any logs",
        examples=[
            "eq-evals card logs/ --out card/",
            "eq-evals card facet-logs/ sage-logs/ judge-check-logs/ --out card/ --title 'my-model, quick profile'",
        ],
    )
    p.add_argument("logs", nargs="+", metavar="LOGS", help="log files or folders (judge-check logs add judge cards)")
    p.add_argument("--out", default="card", help="output folder (default: ./card)")
    p.add_argument("--title", default=None, help="the card's title")
    p.add_argument(
        "--plan", default=None, help="a plan (JSON, from eq-evals profile --dry-run) to show beside the logs"
    )
    p.add_argument(
        "--method",
        default="bt",
        choices=["bt", "trueskill", "eqbench3", "elo", "thurstone"],
        help="rating method of the pairwise tables (as eq-evals ratings; default bt)",
    )
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap rounds (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument(
        "--complete-only",
        action="store_true",
        help="skip logs that are not complete (by default they are kept and every number from them marked partial)",
    )
    add_gate_options(p, mixed="put logs made on different dataset versions (content hashes) together")
    p.set_defaults(func=cmd_card)
