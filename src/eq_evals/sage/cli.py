"""``eq-evals sage ...``: the SAGE leaderboard and the scenario generator."""

from __future__ import annotations

import argparse
import sys

from eq_evals.commands import add_gate_options, add_group, add_parser


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from eq_evals.errors import EqEvalsError
    from eq_evals.sage.leaderboard import collect, render, to_json

    rows = collect(args.logs, allow_partial=args.allow_partial)
    if not rows:
        raise EqEvalsError("\n".join([f"no SAGE logs in {', '.join(args.logs)}", *rows.warnings]))
    if args.json:
        print(to_json(rows))
        for warning in rows.warnings:
            print(warning, file=sys.stderr)
    else:
        print(render(rows))
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from eq_evals.sage.generate import run

    written, errors = run(
        args.model,
        args.n,
        args.language,
        args.out,
        seed=args.seed,
        temperature=args.temperature,
        base_url=args.base_url,
        id_prefix=args.id_prefix,
        max_concurrency=args.max_concurrency,
        append=args.append,
    )
    print(f"wrote {written} scenario(s) to {args.out} (model {args.model}, seed {args.seed})")
    for problem in errors:
        print(f"eq-evals: skipped {problem}", file=sys.stderr)
    print(
        f"run them with: inspect eval eq_evals/sage -T source={args.out} -T language="
        f"{'all' if args.language == 'both' else args.language} --model <tested> --model-role simulated_user=<simulator>"
    )
    return 1 if errors else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sage`` command group to the ``eq-evals`` parser."""
    sage_sub = add_group(
        sub,
        "sage",
        help="SAGE (Sentient Agent as a Judge): leaderboard and scenario generator",
        examples=[
            "eq-evals sage leaderboard sage-logs/",
            "eq-evals sage generate --model openai/gpt-4.1 --n 20 --language both --out my.jsonl",
        ],
    )

    p_board = add_parser(
        sage_sub,
        "leaderboard",
        help="Sentient leaderboard from SAGE logs (sorted by Sentient score; `eq-evals ratings` "
        "shows the same table in its SAGE section)",
        examples=["eq-evals sage leaderboard sage-logs/", "eq-evals sage leaderboard --json logs/ > sage.json"],
    )
    p_board.add_argument("logs", nargs="+", metavar="LOGS", help="Inspect log files or folders")
    p_board.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    add_gate_options(
        p_board, partial="include logs that are not complete (cancelled, errored), their rows marked partial"
    )
    p_board.set_defaults(func=cmd_leaderboard)

    p_gen = add_parser(
        sage_sub,
        "generate",
        help="write new personas and scenes with an LLM from seed pools (paper §2.2)",
        examples=[
            "eq-evals sage generate --model openai/gpt-4.1 --n 20 --language both --out my.jsonl --seed 1",
            "eq-evals sage generate --model eq_evals/scripted-sage-writer --n 3 --out demo.jsonl",
        ],
    )
    p_gen.add_argument(
        "--model", required=True, help="Inspect model, e.g. openai/gpt-4.1 or eq_evals/scripted-sage-writer"
    )
    p_gen.add_argument("--n", type=int, default=10, help="scenarios per language (default 10)")
    p_gen.add_argument("--language", choices=["zh", "en", "both"], default="zh")
    p_gen.add_argument("--out", required=True, help="output JSONL file (released schema)")
    p_gen.add_argument("--seed", type=int, default=0, help="seed for sampling the seed pools")
    p_gen.add_argument("--temperature", type=float, default=None)
    p_gen.add_argument("--base-url", default=None, help="model base URL (e.g. a local OpenAI-compatible server)")
    p_gen.add_argument("--id-prefix", default="gen", help="prefix of the generated scenario ids")
    p_gen.add_argument("--max-concurrency", type=int, default=4)
    p_gen.add_argument("--append", action="store_true", help="append to an existing output file")
    p_gen.set_defaults(func=cmd_generate)
