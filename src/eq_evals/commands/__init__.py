"""The ``eq-evals`` command line: one style for every command.

- Cross-benchmark verbs (``list``, ``ratings``, ``agreement``, ``doctor``, ``hub``, ``validate``) are modules of
  this package, one per verb, each with ``register(subparsers)``.
- Each benchmark package that has commands of its own exposes them as a group in its ``cli`` module
  (``eq_evals/<benchmark>/cli.py``) with the same ``register(subparsers)``: ``eq-evals facet ...``,
  ``eq-evals sage ...``. The top-level parser finds both by walking the packages (:func:`verb_modules`,
  :func:`benchmark_modules`); nothing lists them by hand.
- A benchmark's ``cli`` module that defines ``add_validate_arguments(parser)`` and ``cmd_validate(args)`` is
  a validator: ``eq-evals <benchmark> validate`` and the generic ``eq-evals validate`` both run it.
- Every parser is made with :func:`add_parser` (or :func:`add_group`), so each ``--help`` ends with examples.
- An old spelling stays as an alias that prints one deprecation line on stderr (:func:`deprecated`).

The command tree is documented in docs/cli.md.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import textwrap
from types import ModuleType
from typing import Any, Callable, Iterable

PROG = "eq-evals"


def _epilog(examples: Iterable[str] | str) -> str:
    lines = [examples] if isinstance(examples, str) else list(examples)
    return "examples:\n" + textwrap.indent("\n".join(lines), "  ")


def add_parser(
    sub: argparse._SubParsersAction,
    name: str,
    *,
    help: str,
    examples: Iterable[str] | str,
    description: str | None = None,
    aliases: Iterable[str] = (),
    **kwargs: Any,
) -> argparse.ArgumentParser:
    """``sub.add_parser`` in the house style: the help line doubles as the description, and the epilog lists
    examples verbatim (RawDescriptionHelpFormatter keeps their line breaks)."""
    text = description or help
    text = text if "\n" in text else textwrap.fill(text, width=100)
    return sub.add_parser(
        name,
        help=help,
        description=text,
        epilog=_epilog(examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        aliases=list(aliases),
        **kwargs,
    )


def add_group(
    sub: argparse._SubParsersAction,
    name: str,
    *,
    help: str,
    examples: Iterable[str] | str,
    description: str | None = None,
) -> argparse._SubParsersAction:
    """A command group (``eq-evals NAME COMMAND ...``); returns the group's own subparsers."""
    parser = add_parser(sub, name, help=help, examples=examples, description=description)
    return parser.add_subparsers(
        dest=f"{name.replace('-', '_')}_command", required=True, metavar="COMMAND", title="commands"
    )


def add_gate_options(p: argparse.ArgumentParser, *, partial: str | None = None, mixed: str | None = None) -> None:
    """The gate's two switches (``eq_evals.logcheck.gate``, docs/architecture.md, "The gate"), each with this
    command's help: ``partial`` for ``--allow-partial`` (keep logs that are not complete, marked partial),
    ``mixed`` for ``--allow-mixed-datasets`` (logs of different dataset or task versions together). A switch
    without a help text is not added."""
    if partial is not None:
        p.add_argument("--allow-partial", action="store_true", help=partial)
    if mixed is not None:
        p.add_argument("--allow-mixed-datasets", action="store_true", help=mixed)


def note(message: str) -> None:
    print(f"{PROG}: note: {message}", file=sys.stderr)


def deprecated(func: Callable[[argparse.Namespace], int], old: str, new: str) -> Callable[[argparse.Namespace], int]:
    """``func`` behind an old spelling: one line on stderr naming the new one, then the same command."""

    def run(args: argparse.Namespace) -> int:
        note(f"`{PROG} {old}` is deprecated; use `{PROG} {new}`")
        return func(args)

    run.__name__ = getattr(func, "__name__", "deprecated")
    run.deprecated = (old, new)  # type: ignore[attr-defined]
    return run


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__))


def verb_modules() -> list[ModuleType]:
    """The cross-benchmark verbs: every module of this package (each has ``register``), in the order of their
    ``ORDER`` (the order ``eq-evals --help`` lists them), then by name."""
    found = [importlib.import_module(f"{__name__}.{name}") for name in _modules(__name__) if not name.startswith("_")]
    return sorted(found, key=lambda m: (getattr(m, "ORDER", 100), m.__name__))


def benchmark_modules() -> dict[str, ModuleType]:
    """Benchmark name -> its ``cli`` module, for every subpackage of eq_evals that has one."""
    from eq_evals.components import package_modules

    return package_modules("cli")


def validators() -> dict[str, ModuleType]:
    """Benchmarks whose ``cli`` module offers a validator (``add_validate_arguments`` and ``cmd_validate``)."""
    return {
        name: m
        for name, m in benchmark_modules().items()
        if callable(getattr(m, "add_validate_arguments", None)) and callable(getattr(m, "cmd_validate", None))
    }
