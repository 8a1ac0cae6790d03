"""``eq-evals heart ...``: HEART's commands. ``heart leaderboard LOGS...`` writes HEART's own leaderboard
(``heart_leaderboard.{md,csv,json,svg,png}``, and ``heart_strategies.{md,json}`` for ``heart_strategies`` logs) with
``eq_evals.heart.leaderboard``, the same files ``eq-evals ratings`` writes for HEART logs (docs/heart.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eq_evals.commands import add_gate_options, add_group, add_parser

TASKS = ("heart", "heart_strategies")


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from eq_evals import logcheck
    from eq_evals.charts import footnote as chart_footnote
    from eq_evals.heart.leaderboard import write
    from eq_evals.judges.card import TASKS as CHECK_TASKS
    from eq_evals.judges.card import cards_from_logs
    from eq_evals.judges.section import judges_of_logs, render_judges

    selection = logcheck.gate(
        args.logs,
        tasks=set(TASKS) | set(CHECK_TASKS),  # judge-check logs give the judges' cards (docs/judges.md)
        allow_partial=args.allow_partial,
        allow_mixed=args.allow_mixed_datasets,
        what="eq-evals heart leaderboard",
    )
    checks = [(log, info) for log, info in selection.kept if info.task in CHECK_TASKS]
    kept = [(log, info) for log, info in selection.kept if info.task not in CHECK_TASKS]
    out = Path(args.out)
    if kept:
        md, result = write(
            kept,
            out,
            args.bootstrap,
            args.seed,
            partial=sorted(selection.partial_paths),
            footnote=chart_footnote(kept),
        )
        print(md)
        # the judges these numbers rest on: their judge cards, or "judge not checked"
        print(
            render_judges(
                judges_of_logs(log for log, _ in kept), cards_from_logs((log, info.path) for log, info in checks)
            )
        )
    for warning in selection.warnings:
        print(f"eq-evals: {warning}", file=sys.stderr)
    if not kept:
        print(f"eq-evals: error: no complete HEART logs in {', '.join(args.logs)}", file=sys.stderr)
        return 2
    written = [str(out / f"heart_leaderboard.{ext}") for ext in ("md", "csv", "json", "png") if "rows" in result]
    if "strategies" in result:
        written += [str(out / "heart_strategies.md"), str(out / "heart_strategies.json")]
    print(f"written: {', '.join(written)}")
    return 0


def claims(path: Path) -> bool:
    """Whether ``eq-evals validate`` hands this file to HEART's validator (its first record looks like HEART's)."""
    from eq_evals.core.itemcheck import first_record

    record = first_record(path)
    return isinstance(record, dict) and "dialogue_history" in record


def add_validate_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """HEART's validator has no options of its own (limits: datasets/facet/validation_limits.yaml)."""


def cmd_validate(args: argparse.Namespace) -> int:
    from eq_evals.core.itemcheck import run_validator_command
    from eq_evals.heart.validate import run

    return run_validator_command(args, "HEART", run)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``heart`` command group to the ``eq-evals`` parser."""
    heart_sub = add_group(
        sub,
        "heart",
        help="HEART: the HEART leaderboard (Bradley-Terry Elo, win rates, sweep rate)",
        examples=["eq-evals heart leaderboard heart-logs/ --out heart-ratings/"],
    )
    p = add_parser(
        heart_sub,
        "leaderboard",
        help="HEART's leaderboard from heart logs: H E A R T win rates, overall win rate, Elo with "
        "asymptotic and bootstrap CIs, sweep rate; support strategies from heart_strategies logs",
        examples=[
            "eq-evals heart leaderboard heart-logs/ --out heart-ratings/",
            "eq-evals heart leaderboard logs/ --bootstrap 100 --seed 1 --allow-partial",
        ],
    )
    p.add_argument(
        "logs",
        nargs="+",
        metavar="LOGS",
        help="eq_evals/heart and eq_evals/heart_strategies logs or folders (a log of another task is an "
        "error naming it: `eq-evals ratings` reads every benchmark)",
    )
    p.add_argument("--out", default="ratings", help="output folder (default: ./ratings)")
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        help="conversation-cluster bootstrap rounds for the Elo intervals (default 1000)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    add_gate_options(
        p,
        partial="include logs that are not complete (cancelled, errored), marked partial in every output",
        mixed="rate logs made on different dataset or task versions together",
    )
    p.set_defaults(func=cmd_leaderboard)
    v = add_parser(
        heart_sub,
        "validate",
        help="check HEART history files (the project's JSONL schema, datasets/heart/README.md): schema, reference "
        "style against the release's human replies (questions, sentence counts), bot insults in adversarial "
        "histories, EN/ZH alignment, same scenario; limits in datasets/facet/validation_limits.yaml",
        examples=["eq-evals heart validate datasets/heart", "eq-evals heart validate my_histories.jsonl --json r.json"],
    )
    v.add_argument("files", nargs="+", metavar="FILE", help="HEART history files or folders of them")
    v.add_argument("--json", help="also write figures and findings as JSON")
    v.set_defaults(func=cmd_validate)
