"""The ``eq-evals`` command: the cross-benchmark verbs of ``eq_evals.commands`` and one group per benchmark
package that has a ``cli`` module, both found by walking the packages (``eq_evals.commands``; docs/cli.md)."""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from eq_evals.commands import PROG, benchmark_modules, verb_modules
from eq_evals.commands.agreement import cmd_agreement  # noqa: F401  (kept importable from here)
from eq_evals.commands.listing import cmd_list  # noqa: F401
from eq_evals.commands.ratings import cmd_ratings  # noqa: F401

EXAMPLES = """\
examples:
  eq-evals list                                  # the tasks, one line each
  eq-evals list facet_hidden                     # one task's parameters and sample counts
  eq-evals doctor logs/                          # what the logs are, and whether they can be compared
  eq-evals ratings logs/ --out ratings/          # every leaderboard the logs allow
  eq-evals sage leaderboard sage-logs/           # a benchmark's own command

cross-benchmark commands: {verbs}
benchmark groups: {groups} (eq-evals BENCHMARK --help)
The command tree: docs/cli.md. The tasks themselves run with `inspect eval eq_evals/TASK --model MODEL`."""


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("eq-evals")
    except PackageNotFoundError:  # a source tree on PYTHONPATH, not installed
        from eq_evals import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="eq-evals: emotional-intelligence benchmarks for Inspect AI",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for module in verb_modules():  # list, ratings, agreement, doctor, hub, validate
        module.register(sub)
    verbs = [a.dest for a in sub._choices_actions]
    for module in benchmark_modules().values():  # facet, heart, longemotion, pace, sage
        module.register(sub)
    groups = [a.dest for a in sub._choices_actions][len(verbs) :]
    parser.epilog = EXAMPLES.format(verbs=", ".join(verbs), groups=", ".join(groups))
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """A warning on the command line is for the user: its message, not the Python file and source line."""
    print(f"eq-evals: warning: {message}", file=file or sys.stderr)


def _quiet_broken_pipe() -> int:
    """The reader went away (``eq-evals list | head``): stop quietly, as a Unix tool killed by SIGPIPE does.
    Later writes (and the flush at exit) go to /dev/null so Python prints no second traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no file (e.g. captured by a test)
        pass
    return 141  # 128 + SIGPIPE, the status a shell reports for a writer whose reader closed the pipe


def main(argv: list[str] | None = None) -> int:
    from eq_evals.errors import EqEvalsError

    try:
        args = build_parser().parse_args(argv)
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here when everything fit in the buffer
        return status
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except EqEvalsError as ex:
        print(f"eq-evals: error: {ex}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
