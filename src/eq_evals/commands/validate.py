"""``eq-evals validate FILE...``: run the item validators of every benchmark that has one (today FACET's,
``eq_evals.facet.validate``) on the given files; ``--benchmark`` picks one. A benchmark's own options (FACET's
thresholds, ``--skip``, ``--authors``) belong to ``eq-evals <benchmark> validate``; given here they still work,
with a deprecation note (the spelling from before the benchmark groups)."""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from eq_evals.commands import add_parser, note, validators

# argparse keeps the option strings of the benchmark options added here, to notice when one is used
_BENCHMARK_OPTIONS = "_benchmark_options"

ORDER = 4  # place in `eq-evals --help`


def cmd_validate(args: argparse.Namespace) -> int:
    found = validators()
    chosen = [args.benchmark] if args.benchmark else sorted(found)
    used = [
        (bench, dest, flag)
        for bench, dest, flag, default in getattr(args, _BENCHMARK_OPTIONS, [])
        if getattr(args, dest) != default
    ]
    for bench in sorted({b for b, _, _ in used}):
        flags = ", ".join(flag for b, _, flag in used if b == bench)
        note(f"`eq-evals validate` with {bench}'s options ({flags}) is deprecated; use `eq-evals {bench} validate`")
    status = 0
    for bench in chosen:
        run_args = copy.copy(args)
        if args.json and len(chosen) > 1:  # one report per benchmark: r.json -> r.facet.json, ...
            path = Path(args.json)
            run_args.json = str(path.with_name(f"{path.stem}.{bench}{path.suffix}"))
        if len(chosen) > 1:
            print(f"== {bench}")
        status = max(status, found[bench].cmd_validate(run_args))
    return status


def register(sub: argparse._SubParsersAction) -> None:
    found = validators()
    p = add_parser(
        sub,
        "validate",
        help=f"check item files with the validators of every benchmark that has one ({', '.join(found)})",
        examples=[
            "eq-evals validate my_items.jsonl                # every benchmark's validator",
            "eq-evals validate datasets/facet --json report.json",
            "eq-evals facet validate my_items.jsonl --skip text_classifier   # FACET's own options",
        ],
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="item files or folders of them")
    p.add_argument("--benchmark", choices=sorted(found), help="only this benchmark's validator")
    p.add_argument(
        "--json",
        help="also write figures and findings as JSON (with several validators: one file "
        "each, the benchmark's name before the suffix)",
    )
    options: list[tuple[str, str, str, object]] = []
    for bench, module in sorted(found.items()):
        group = p.add_argument_group(f"{bench} options (deprecated here: use `eq-evals {bench} validate`)")
        before = list(p._actions)
        module.add_validate_arguments(group)
        for action in p._actions:
            if action not in before:
                action.help = argparse.SUPPRESS
                options.append(
                    (
                        bench,
                        action.dest,
                        action.option_strings[0] if action.option_strings else action.dest,
                        action.default,
                    )
                )
    p.set_defaults(func=cmd_validate, **{_BENCHMARK_OPTIONS: options})
