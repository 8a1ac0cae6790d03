"""``eq-evals facet ...``: FACET's commands. ``facet validate FILE...`` runs the FACET item validators
(``eq_evals.facet.validate``) on any file; it is also FACET's part of the generic ``eq-evals validate``."""

from __future__ import annotations

import argparse
from pathlib import Path

from eq_evals.commands import add_group, add_parser


def cmd_validate(args: argparse.Namespace) -> int:
    from eq_evals.facet.validate import ALIASES, CHECKS, Thresholds, render, run

    thresholds = Thresholds(
        margin=args.margin,
        folds=args.folds,
        repeats=args.repeats,
        shortcut_alpha=args.shortcut_alpha,
        alpha=args.alpha,
        min_support=args.min_support,
        position_alpha=args.position_alpha,
        proportion_tolerance=args.proportion_tolerance,
        near_duplicate=args.near_duplicate,
        same_scenario_z=args.same_scenario,
        same_scenario_z_bilingual=args.same_scenario_bilingual,
        template_share=args.template_share,
        overlap=args.overlap,
        length_ratio=tuple(args.length_ratio),
        min_items=args.min_items,
    )
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
    p.add_argument(
        "--margin",
        type=float,
        default=d.margin,
        help=f"detectors that read the whole item (crisis level): largest accepted gain over the majority class "
        f"(default {d.margin})",
    )
    p.add_argument(
        "--shortcut-alpha",
        type=float,
        default=d.shortcut_alpha,
        help="detectors that never see the scenario (options, length, position, form): one-sided binomial level "
        f"of the limit around chance (default {d.shortcut_alpha})",
    )
    p.add_argument("--folds", type=int, default=d.folds, help=f"cross-validation folds (default {d.folds})")
    p.add_argument(
        "--repeats",
        type=int,
        default=d.repeats,
        help=f"random stratified splits each detector's accuracy is averaged over (default {d.repeats})",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=d.alpha,
        help=f"family-wise level of the predictive n-gram test, Bonferroni (default {d.alpha})",
    )
    p.add_argument(
        "--min-support",
        type=int,
        default=d.min_support,
        help=f"n-grams in fewer items are not tested (default {d.min_support})",
    )
    p.add_argument(
        "--position-alpha",
        type=float,
        default=d.position_alpha,
        help=f"chi-square level for unbalanced gold positions (default {d.position_alpha})",
    )
    p.add_argument(
        "--proportion-tolerance",
        type=float,
        default=d.proportion_tolerance,
        help=f"largest accepted gap to the paper's multi-select share (default {d.proportion_tolerance})",
    )
    p.add_argument(
        "--near-duplicate",
        type=float,
        default=d.near_duplicate,
        help=f"Jaccard of shingle sets that marks a near-duplicate pair (default {d.near_duplicate})",
    )
    p.add_argument(
        "--same-scenario",
        type=float,
        default=d.same_scenario_z,
        help="summed row z-scores of embedding and TF-IDF cosine that mark two English-only items as a possible "
        f"same scenario (default {d.same_scenario_z}; the other same-scenario limits are in validation_limits.yaml)",
    )
    p.add_argument(
        "--same-scenario-bilingual",
        type=float,
        default=d.same_scenario_z_bilingual,
        help="summed row z-scores of the English embedding cosine and the Chinese character-bigram TF-IDF cosine "
        f"that mark two items with both versions as a possible same scenario (default {d.same_scenario_z_bilingual})",
    )
    p.add_argument(
        "--template-share",
        type=float,
        default=d.template_share,
        help=f"share of a dimension's items a long n-gram may recur in (default {d.template_share})",
    )
    p.add_argument(
        "--overlap",
        type=float,
        default=d.overlap,
        help=f"largest accepted share of an item's shingles in one authors' sample (default {d.overlap})",
    )
    p.add_argument(
        "--length-ratio",
        type=float,
        nargs=2,
        default=list(d.length_ratio),
        metavar=("LOW", "HIGH"),
        help=f"accepted Chinese characters per English word in a pair (default {d.length_ratio})",
    )
    p.add_argument(
        "--min-items",
        type=int,
        default=d.min_items,
        help=f"set-level checks skip a dimension/language with fewer items (default {d.min_items})",
    )


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
