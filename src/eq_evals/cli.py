"""The ``eq-evals`` command."""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

from eq_evals.errors import EqEvalsError


# Data loaders name HF_HUB_OFFLINE when the Hub is off limits; when `eq-evals list` set it itself, say so.
_OFFLINE_SET = re.compile(r"HF_HUB_OFFLINE(?:/HF_DATASETS_OFFLINE)? is set")
_LISTING_OFFLINE = "`eq-evals list` only counts data already on this machine (it never downloads)"


def default_samples(decl, overrides: dict | None = None) -> dict[str, list | Exception] | None:
    """The samples a declaration's dataset adapter builds with the task's default parameters, per language (each
    choice of a ``language`` parameter but 'all'; the key 'all' for a task without one), or the exception that
    stopped the build (e.g. data not on this machine). None when a required parameter decides the samples
    (``-T logs``). What `eq-evals list` counts; tests/test_register.py checks the register entries against it.
    ``overrides`` replaces defaults (e.g. a local ``data_dir``)."""
    from eq_evals import components
    from eq_evals.engine import substitute

    spec = decl.spec
    if any(p.required for p in spec.parameters.values()):
        return None
    defaults = dict({n: p.default for n, p in spec.parameters.items()}, **(overrides or {}))
    languages = spec.parameters["language"].choices if "language" in spec.parameters else [None]
    built: dict[str, list | Exception] = {}
    for language in [lang for lang in languages if lang != "all"]:
        params = dict(defaults, **({"language": language} if language else {}))
        try:
            built[language or "all"] = components.DATASETS[spec.dataset.adapter](**substitute(spec.dataset.args, params))
        except Exception as ex:  # noqa: BLE001 - a listing reports, it does not fail
            built[language or "all"] = ex
    return built


def _sample_counts(decl, offline_by_listing: bool = False) -> str:
    built = default_samples(decl)
    if built is None:
        return "built from " + ", ".join(f"-T {n}" for n, p in decl.spec.parameters.items() if p.required)
    counts = []
    for language, samples in built.items():
        if isinstance(samples, Exception):
            reason = str(samples).splitlines()[0] if str(samples) else type(samples).__name__
            if offline_by_listing:
                reason = _OFFLINE_SET.sub(_LISTING_OFFLINE, reason)
            counts.append(f"{language}: unavailable ({reason})")
            continue
        formats = Counter(str((s.metadata or {}).get("format", "-")) for s in samples)
        detail = "" if set(formats) == {"-"} else " (" + ", ".join(f"{k} {v}" for k, v in sorted(formats.items())) + ")"
        counts.append(f"{language}: {len(samples)}{detail}")
    return "; ".join(counts)


def cmd_list(args: argparse.Namespace) -> int:
    import os

    offline_by_listing = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() not in ("1", "true", "yes", "on")
    os.environ["HF_HUB_OFFLINE"] = "1"  # a listing counts what is here; it never downloads data
    from eq_evals.engine import load_declarations_tolerant
    from eq_evals.resources import display_path

    decls, broken = load_declarations_tolerant()
    for file, error in broken.items():
        print(f"eq-evals: BROKEN {display_path(file)}: {error}", file=sys.stderr)
    for decl in decls:
        spec = decl.spec
        if args.benchmark and spec.benchmark != args.benchmark:
            continue
        print(f"eq_evals/{spec.name}  [{spec.benchmark}]")
        print(f"  {spec.description}")
        print(f"  samples: {_sample_counts(decl, offline_by_listing)}; epochs: {spec.epochs.count} ({spec.epochs.reducer})")
        if spec.config:
            settings = ", ".join(f"{k}={v!r}" for k, v in spec.config.items())
            print(f"  generation: {settings} (command-line --max-tokens, --stop-seqs, --temperature ... win)")
        for name, p in spec.parameters.items():
            choices = f" {p.choices}" if p.choices else ""
            print(f"  -T {name}={p.default!r} ({p.type}{choices}): {p.description}")
        print()
    return 1 if broken else 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from eq_evals.report import run

    result = run(args.logs, args.out, args.method, args.bootstrap, args.seed, progress=not args.quiet,
                 allow_mixed_datasets=args.allow_mixed_datasets, allow_partial=args.allow_partial)
    print((Path(args.out) / "leaderboard.md").read_text(encoding="utf-8"))
    for warning in result["warnings"]:
        print(f"eq-evals: {warning}", file=sys.stderr)
    out = Path(args.out)  # a Path, so --out ratings/ does not print ratings//leaderboard.md
    charts = f"; charts: {out / 'leaderboard.png'} (overall) and {len(result['charts']) - 1} in {out / 'charts'}" \
        if result.get("charts") else ""
    print(f"written: {out / 'leaderboard.md'}, .csv, .json{charts}")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    from eq_evals.agreement_cli import main as agreement_main

    return agreement_main(args.judgments, args.human, args.out, allow_partial=args.allow_partial)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """A warning on the command line is for the user: its message, not the Python file and source line."""
    print(f"eq-evals: warning: {message}", file=file or sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="eq-evals", description="eq-evals: emotional-intelligence benchmarks for Inspect AI")
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list every task with its description, parameters and sample counts")
    p_list.add_argument("--benchmark", help="only tasks of this benchmark (facet, sage, ...)")
    p_list.set_defaults(func=cmd_list)
    from eq_evals.sage.cli import register as register_sage  # the `eq-evals sage ...` group

    register_sage(sub)
    from eq_evals.pace.cli import register as register_pace  # the `eq-evals pace ...` group

    register_pace(sub)
    from eq_evals.hub import register as register_hub  # the `eq-evals hub ...` group (docs/hub.md)

    register_hub(sub)
    from eq_evals.doctor import register as register_doctor  # `eq-evals doctor` / `eq-evals check`

    register_doctor(sub)
    from eq_evals.longemotion.table import register as register_longemotion  # `eq-evals longemotion table`

    register_longemotion(sub)
    from eq_evals.facet.cli import register as register_validate  # `eq-evals validate FILE...`

    register_validate(sub)
    p_rate = sub.add_parser("ratings", help="leaderboards (Markdown, CSV, JSON, PNG) from judgment, objective and SAGE logs")
    p_rate.add_argument("logs", nargs="+", help="log files or folders")
    p_rate.add_argument("--method", default="bt", choices=["bt", "trueskill", "eqbench3", "elo", "thurstone"],
                        help="bt: Bradley-Terry with bootstrap CIs (default); trueskill: FACET's TrueSkill; "
                             "eqbench3: EQ-Bench 3's TrueSkill mode; elo: plain Elo; thurstone: "
                             "Thurstone-Mosteller (PACE) with bootstrap CIs")
    p_rate.add_argument("--bootstrap", type=int, default=1000, help="bootstrap rounds for bt and thurstone (default 1000)")
    p_rate.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p_rate.add_argument("--out", default="ratings", help="output folder (default: ./ratings)")
    p_rate.add_argument("--quiet", action="store_true", help="no progress bars")
    p_rate.add_argument("--allow-mixed-datasets", action="store_true",
                        help="rank logs made on different dataset versions (content hashes) together")
    p_rate.add_argument("--allow-partial", action="store_true",
                        help="include logs that are not complete (cancelled, errored), marked partial in every output")
    p_rate.set_defaults(func=cmd_ratings)
    p_agree = sub.add_parser("agreement", help="Cohen's/Fleiss' kappa and Krippendorff's alpha between judges and human labels")
    p_agree.add_argument("judgments", nargs="+", help="judgment logs (eq_evals/facet_pairwise)")
    p_agree.add_argument("--human", required=True,
                         help="CSV with columns sample_id, rater, label (A, B, DRAW or a model name) and an optional "
                              "dimension column checked against the matchup")
    p_agree.add_argument("--out", help="also write the report as JSON")
    p_agree.add_argument("--allow-partial", action="store_true",
                         help="include judgment logs that are not complete (cancelled, errored), marked partial")
    p_agree.set_defaults(func=cmd_agreement)
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return args.func(args)
    except EqEvalsError as ex:
        print(f"eq-evals: error: {ex}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
