"""``eq-evals facet ...``: FACET's commands. ``facet validate FILE...`` runs the FACET item validators
(``eq_evals.facet.validate``) on any file; it is also FACET's part of the generic ``eq-evals validate``."""

from __future__ import annotations

import argparse
from pathlib import Path

from eq_evals.commands import add_group, add_parser

# The validator's limits on the command line: (option, ``Thresholds`` field, help with ``{default}``). The
# option's type is that of the field's default; a pair (``--length-ratio``) takes two numbers.
LIMIT_OPTIONS: tuple[tuple[str, str, str], ...] = (
    (
        "--margin",
        "margin",
        "detectors that read the whole item (crisis level): largest accepted gain over the majority class "
        "(default {default})",
    ),
    (
        "--shortcut-alpha",
        "shortcut_alpha",
        "detectors that never see the scenario (options, length, position, form): one-sided binomial level "
        "of the limit around chance (default {default})",
    ),
    ("--folds", "folds", "cross-validation folds (default {default})"),
    ("--repeats", "repeats", "random stratified splits each detector's accuracy is averaged over (default {default})"),
    ("--alpha", "alpha", "family-wise level of the predictive n-gram test, Bonferroni (default {default})"),
    ("--min-support", "min_support", "n-grams in fewer items are not tested (default {default})"),
    ("--position-alpha", "position_alpha", "chi-square level for unbalanced gold positions (default {default})"),
    (
        "--proportion-tolerance",
        "proportion_tolerance",
        "largest accepted gap to the paper's multi-select share (default {default})",
    ),
    (
        "--near-duplicate",
        "near_duplicate",
        "Jaccard of shingle sets that marks a near-duplicate pair (default {default})",
    ),
    (
        "--same-scenario",
        "same_scenario_z",
        "summed row z-scores of embedding and TF-IDF cosine that mark two English-only items as a possible "
        "same scenario (default {default}; the other same-scenario limits are in validation_limits.yaml)",
    ),
    (
        "--same-scenario-bilingual",
        "same_scenario_z_bilingual",
        "summed row z-scores of the English embedding cosine and the Chinese character-bigram TF-IDF cosine "
        "that mark two items with both versions as a possible same scenario (default {default})",
    ),
    (
        "--template-share",
        "template_share",
        "share of a dimension's items a long n-gram may recur in (default {default})",
    ),
    (
        "--overlap",
        "overlap",
        "largest accepted share of an item's shingles in one authors' sample (default {default})",
    ),
    (
        "--length-ratio",
        "length_ratio",
        "accepted Chinese characters per English word in a pair (default {default})",
    ),
    (
        "--min-items",
        "min_items",
        "set-level checks skip a dimension/language with fewer items (default {default})",
    ),
)


def _dest(option: str) -> str:
    return option.removeprefix("--").replace("-", "_")


def cmd_validate(args: argparse.Namespace) -> int:
    from eq_evals.facet.validate import ALIASES, CHECKS, Thresholds, render, run

    limits = {field: getattr(args, _dest(option)) for option, field, _ in LIMIT_OPTIONS}
    thresholds = Thresholds(**{field: tuple(v) if isinstance(v, list) else v for field, v in limits.items()})
    skip = {ALIASES.get(c, c) for c in args.skip or []}
    checks = [c for c in CHECKS if c not in skip]
    report = run(args.files, authors=args.authors, thresholds=thresholds, checks=checks)
    print(render(report))
    if args.json:
        Path(args.json).write_text(report.to_json(), encoding="utf-8")
        print(f"written: {args.json}")
    return 1 if report.errors else 0


def add_validate_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """FACET's validator options (the files and --json are the caller's)."""
    from eq_evals.facet.validate import ALIASES, CHECKS, Thresholds

    d = Thresholds()
    p.add_argument("--authors", help="the authors' samples_dataset.json, for the overlap check")
    p.add_argument(
        "--skip", nargs="*", choices=[*CHECKS, *ALIASES], help="checks to leave out (text_classifier = shortcuts)"
    )
    for option, field, text in LIMIT_OPTIONS:
        default = getattr(d, field)
        shown = text.format(default=default)
        if isinstance(default, tuple):
            p.add_argument(option, type=float, nargs=2, default=list(default), metavar=("LOW", "HIGH"), help=shown)
        else:
            p.add_argument(option, type=type(default), default=default, help=shown)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``facet`` command group to the ``eq-evals`` parser."""
    facet_sub = add_group(
        sub,
        "facet",
        help="FACET: item validators",
        examples=[
            "eq-evals facet validate datasets/facet/crisis.jsonl",
            "inspect eval eq_evals/facet_objective --model <model>   # the tasks themselves",
        ],
    )
    p = add_parser(
        facet_sub,
        "validate",
        help="check FACET item files (the project's JSONL, datasets/facet/README.md, or the authors' "
        "JSON): schema, answer leakage, predictive n-grams, shortcut detectors (options-only models, length "
        "rank, position, form), positions, duplicates, same scenario, templates, overlap with the authors' "
        "samples, EN/ZH alignment; limits in datasets/facet/validation_limits.yaml",
        examples=[
            "eq-evals facet validate my_items.jsonl",
            "eq-evals facet validate datasets/facet --authors samples_dataset.json --json report.json",
            "eq-evals facet validate my_items.jsonl --skip shortcuts predictive_ngrams",
        ],
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="FACET files or folders of them")
    p.add_argument("--json", help="also write figures and findings as JSON")
    add_validate_arguments(p)
    p.set_defaults(func=cmd_validate)
