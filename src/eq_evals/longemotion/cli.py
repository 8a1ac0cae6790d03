"""``eq-evals longemotion ...``: LongEmotion's commands (docs/longemotion.md)."""

from __future__ import annotations

import argparse

from eq_evals.commands import add_gate_options, add_group, add_parser


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``longemotion`` command group to the ``eq-evals`` parser."""
    from eq_evals.longemotion.table import cmd_table

    le_sub = add_group(
        sub,
        "longemotion",
        help="LongEmotion: results in the paper's Table 3 layout",
        examples=["eq-evals longemotion table le-logs/"],
    )
    t = add_parser(
        le_sub,
        "table",
        help="one row per model, method and data origin; one column per task "
        "(the paper's Table 3 layout; no overall score, the paper defines none)",
        examples=["eq-evals longemotion table le-logs/", "eq-evals longemotion table --json le-logs/"],
    )
    t.add_argument("logs", nargs="+", metavar="LOGS", help="Inspect log files or folders")
    t.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    add_gate_options(
        t,
        partial="include logs that are not complete (cancelled, errored), their cells marked partial",
        mixed="put logs made on different versions of the same data origin in one table",
    )
    t.set_defaults(func=cmd_table)
