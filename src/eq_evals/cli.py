"""The ``eq-evals`` command."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from eq_evals.errors import EqEvalsError


def _sample_counts(decl) -> str:
    from eq_evals import components
    from eq_evals.engine import substitute

    spec = decl.spec
    defaults = {n: p.default for n, p in spec.parameters.items()}
    counts = []
    languages = spec.parameters["language"].choices if "language" in spec.parameters else [None]
    for language in [lang for lang in languages if lang != "all"]:
        params = dict(defaults, **({"language": language} if language else {}))
        try:
            samples = components.DATASETS[spec.dataset.adapter](**substitute(spec.dataset.args, params))
        except Exception as ex:  # noqa: BLE001 - a listing reports, it does not fail
            counts.append(f"{language or 'all'}: unavailable ({type(ex).__name__}: {ex})")
            continue
        formats = Counter(str((s.metadata or {}).get("format", "-")) for s in samples)
        detail = ", ".join(f"{k} {v}" for k, v in sorted(formats.items()))
        counts.append(f"{language or 'all'}: {len(samples)} ({detail})")
    return "; ".join(counts)


def cmd_list(args: argparse.Namespace) -> int:
    from eq_evals.engine import load_declarations

    for decl in load_declarations():
        spec = decl.spec
        if args.benchmark and spec.benchmark != args.benchmark:
            continue
        print(f"eq_evals/{spec.name}  [{spec.benchmark}]")
        print(f"  {spec.description}")
        print(f"  samples: {_sample_counts(decl)}; epochs: {spec.epochs.count} ({spec.epochs.reducer})")
        for name, p in spec.parameters.items():
            choices = f" {p.choices}" if p.choices else ""
            print(f"  -T {name}={p.default!r} ({p.type}{choices}): {p.description}")
        print()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="eq-evals", description="eq-evals: emotional-intelligence benchmarks for Inspect AI")
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list every task with its description, parameters and sample counts")
    p_list.add_argument("--benchmark", help="only tasks of this benchmark (facet, sage, ...)")
    p_list.set_defaults(func=cmd_list)
    from eq_evals.sage.cli import register as register_sage  # the `eq-evals sage ...` group

    register_sage(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except EqEvalsError as ex:
        print(f"eq-evals: error: {ex}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
