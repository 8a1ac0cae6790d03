"""``eq-evals heart ...``: HEART's commands. ``heart leaderboard LOGS...`` writes HEART's own leaderboard
(``heart_leaderboard.{md,csv,json,png}``, and ``heart_strategies.{md,json}`` for ``heart_strategies`` logs) with
``eq_evals.heart.leaderboard``, the same files ``eq-evals ratings`` writes for HEART logs (docs/heart.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eq_evals.commands import add_group, add_parser

TASKS = ("heart", "heart_strategies")


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from eq_evals import logcheck
    from eq_evals.errors import EqEvalsError
    from eq_evals.heart.leaderboard import write
    from eq_evals.pairwise.logs import expand_log_paths

    files = expand_log_paths(list(args.logs))
    selection = logcheck.Selection(retried=logcheck.completed_retries(files))
    others = []
    for path in files:
        if logcheck.task_name(logcheck.read(path, header_only=True)) not in TASKS:
            others.append(path)
            continue
        log, info = logcheck.read_checked(path)
        logcheck.add(selection, log, info, args.allow_partial)
    if others:
        selection.warnings.append(f"note: left out {len(others)} log(s) of other tasks ({', '.join(others[:3])}"
                                  f"{', ...' if len(others) > 3 else ''}); `eq-evals ratings` rates every benchmark")
    kept = [info.path for _, info in selection.kept]
    if not kept:
        raise EqEvalsError("\n".join([f"no complete HEART logs (eq_evals/heart, eq_evals/heart_strategies) in "
                                      f"{', '.join(args.logs)}", *selection.warnings]))
    out = Path(args.out)
    md, result = write(kept, out, args.bootstrap, args.seed, partial=sorted(selection.partial_paths))
    print(md)
    for warning in selection.warnings:
        print(f"eq-evals: {warning}", file=sys.stderr)
    written = [str(out / f"heart_leaderboard.{ext}") for ext in ("md", "csv", "json", "png") if "rows" in result]
    if "strategies" in result:
        written += [str(out / "heart_strategies.md"), str(out / "heart_strategies.json")]
    print(f"written: {', '.join(written)}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``heart`` command group to the ``eq-evals`` parser."""
    heart_sub = add_group(sub, "heart", help="HEART: the HEART leaderboard (Bradley-Terry Elo, win rates, sweep rate)",
                          examples=["eq-evals heart leaderboard heart-logs/ --out heart-ratings/"])
    p = add_parser(heart_sub, "leaderboard",
                   help="HEART's leaderboard from heart logs: H E A R T win rates, overall win rate, Elo with "
                        "asymptotic and bootstrap CIs, sweep rate; support strategies from heart_strategies logs",
                   examples=["eq-evals heart leaderboard heart-logs/ --out heart-ratings/",
                             "eq-evals heart leaderboard logs/ --bootstrap 100 --seed 1 --allow-partial"])
    p.add_argument("logs", nargs="+", metavar="LOGS", help="eq_evals/heart (and heart_strategies) logs or folders")
    p.add_argument("--out", default="ratings", help="output folder (default: ./ratings)")
    p.add_argument("--bootstrap", type=int, default=1000,
                   help="conversation-cluster bootstrap rounds for the Elo intervals (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument("--allow-partial", action="store_true",
                   help="include logs that are not complete (cancelled, errored), marked partial in every output")
    p.set_defaults(func=cmd_leaderboard)
