"""``eq-evals validate [BENCHMARK] FILE...``: run the item validators of the benchmarks that have one (FACET's
``eq_evals.facet.validate``, PACE's and HEART's) on the given files or folders. Each file goes to the validator
whose ``claims(path)`` accepts it (PACE: query records, HEART: dialogue histories), every other file to FACET's;
a benchmark name first (``eq-evals validate facet PATH...``) or ``--benchmark`` sends every file to that one.
A benchmark's own options (FACET's thresholds, ``--skip``, ``--authors``) belong to ``eq-evals <benchmark>
validate``; given here they still work, with a deprecation note (the spelling from before the benchmark
groups)."""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from eq_evals.commands import add_parser, note, validators
from eq_evals.errors import EqEvalsError

# argparse keeps the option strings of the benchmark options added here, to notice when one is used
_BENCHMARK_OPTIONS = "_benchmark_options"

ORDER = 4  # place in `eq-evals --help`


def route(paths: list[str], found: dict) -> dict[str, list[str]]:
    """Benchmark -> the files it validates: folders expanded, each file to the first validator that claims it,
    the rest to the validators that claim nothing (FACET's)."""
    from eq_evals.core.itemcheck import collect_files

    claimers = {b: m.claims for b, m in sorted(found.items()) if callable(getattr(m, "claims", None))}
    fallback = [b for b in sorted(found) if b not in claimers]
    out: dict[str, list[str]] = {}
    for file in collect_files(paths, "item"):
        owner = next((b for b, claims in claimers.items() if claims(file)), None)
        for bench in [owner] if owner else fallback:
            out.setdefault(bench, []).append(str(file))
    return out


def cmd_validate(args: argparse.Namespace) -> int:
    found = validators()
    if not args.benchmark and args.files and args.files[0] in found and not Path(args.files[0]).exists():
        args.benchmark, args.files = args.files[0], args.files[1:]
        if not args.files:
            raise EqEvalsError(f"eq-evals validate {args.benchmark}: give the files or folders to check")
    if args.benchmark:
        files = {args.benchmark: args.files}
    else:
        files = route(args.files, found)
    chosen = sorted(files)
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
        run_args.files = files[bench]
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
            "eq-evals validate my_items.jsonl                # the validator of the file's benchmark",
            "eq-evals validate facet datasets/facet/social.jsonl   # FACET's validator on one file",
            "eq-evals validate datasets/facet datasets/pace datasets/heart --json report.json",
            "eq-evals facet validate my_items.jsonl --skip text_classifier   # FACET's own options",
        ],
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help=f"item files or folders of them; a benchmark's name first ({', '.join(sorted(found))}) checks them all "
        "with its validator",
    )
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
