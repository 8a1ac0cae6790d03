"""``eq-evals doctor LOGS...`` (alias ``check``): what each log is, whether it is complete, why samples are
unscored, and whether the logs can be compared (``eq_evals.doctor``)."""

from __future__ import annotations

import argparse

from eq_evals.commands import add_parser

ORDER = 1  # place in `eq-evals --help`


def register(sub: argparse._SubParsersAction) -> None:
    from eq_evals.doctor import cmd_doctor

    p = add_parser(
        sub,
        "doctor",
        aliases=["check"],
        help="for a folder of logs: what each log is, is it complete, unscored samples and why, "
        "can the logs be compared",
        description="For a folder of logs: what each log is, is it complete, unscored samples and why, "
        "can the logs be compared. Exit status 1 when a log is partial or unreadable or the "
        "logs of a task cannot be compared.",
        examples=["eq-evals doctor logs/", "eq-evals check logs/facet.eval --json"],
    )
    p.add_argument("logs", nargs="+", metavar="LOGS", help="Inspect log files or folders")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_doctor)
