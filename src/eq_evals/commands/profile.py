"""``eq-evals profile``: a model's emotional-intelligence profile across the benchmarks in one command (Inspect
eval sets: every task at once, SAGE's long dialogues beside them in a second process, then the pairwise judging),
with a plan before any call and a report card after (docs/profile.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from eq_evals.commands import add_parser

ORDER = 1  # place in `eq-evals --help`: the first thing to run


def cmd_profile(args: argparse.Namespace) -> int:
    from eq_evals.profile.plan import load_cost_config, make_plan, render
    from eq_evals.profile.prefetch import prefetching
    from eq_evals.profile.run import opponent_logs, parse_budget, run_profile, say, write_outputs

    load_cost_config(args.model_cost_config)
    budget = parse_budget(args.budget)
    opponents = opponent_logs(args.opponents) if args.opponents else {}
    options = {
        "longemotion_data": args.longemotion_data,
        "output_tokens": args.output_tokens,
        "max_tokens": args.max_tokens,
    }
    selected = [b.strip() for b in args.benchmarks.split(",") if b.strip()] if args.benchmarks else None
    plan = make_plan(args.model, args.judge, args.simulated_user, args.preset, selected, options, opponents)
    for name, value in budget.items():  # Inspect's own per-sample limits
        plan.notes.append(
            f"--budget {args.budget}: Inspect's {name}={value} for every sample; a sample that reaches it stops and "
            "is unscored with reason limit"
        )
    if args.json and args.dry_run:
        import json

        from eq_evals.profile.plan import totals

        print(json.dumps({**plan.as_dict(), "totals": totals(plan.rows)}, indent=1, ensure_ascii=False))
    else:
        print(render(plan))
    if args.dry_run:
        return 0
    if not plan.generate:
        say("error: nothing to run (see 'Not run' above)")
        return 2
    log_dir = Path(args.log_dir)
    from eq_evals.commands.judge_check import _pairs

    model_args, role_args = _pairs(args.model_arg, "-M"), _pairs(args.role_arg, "-M")
    runs = len(plan.generate) * len(plan.models)
    common = {
        "display": args.display,
        "max_tasks": args.max_tasks or max(runs, 1),  # every task at once by default: the slowest sets the pace
        "retry_attempts": args.retry_attempts,
        **({"model_cost_config": args.model_cost_config} if args.model_cost_config else {}),
        **budget,
    }
    if args.max_connections:
        common["max_connections"] = args.max_connections
    if model_args:
        common["model_args"] = model_args
    if args.max_tokens:
        common["max_tokens"] = args.max_tokens
    out = Path(args.out) if args.out else log_dir / "card"
    with prefetching() as ahead:  # finished logs read ahead while the models work, for the counts and the card
        logs = run_profile(plan, log_dir, opponents, options, common, role_args, processes=args.processes)
        ahead.close()
        written = write_outputs(plan, log_dir, logs, out, args.title)
    print(f"logs: {log_dir}  (browse them: inspect view --log-dir {log_dir})")
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_parser(
        sub,
        "profile",
        help="a model's EI profile across the benchmarks in one command: a plan first, a report card after",
        description="Run the benchmarks' profile tasks for each --model at once as Inspect eval sets (the long "
        "dialogues in a second process beside the others; resumable: the same command again continues them and pays "
        "for no finished call), then the pairwise judging of their replies, "
        "and write plan.json beside the logs and the report card. --dry-run prints the plan only: per benchmark, "
        "task and model role the samples, expected calls, input and output tokens and, where Inspect knows the "
        "price, the cost. docs/profile.md explains the presets, the plan and the card.",
        examples=[
            "eq-evals profile --model eq_evals/scripted-heart-warm --model eq_evals/scripted-echo "
            "--judge eq_evals/scripted-jc-honest --simulated-user eq_evals/scripted-sage-user --dry-run",
            "eq-evals profile --model eq_evals/scripted-heart-warm --model eq_evals/scripted-echo "
            "--judge eq_evals/scripted-jc-honest --simulated-user eq_evals/scripted-sage-user --log-dir profile-logs",
            "eq-evals profile --model openai/gpt-4o --judge openai/gpt-4o-mini --simulated-user openai/gpt-4o-mini "
            "--preset standard --budget 20000tokens --opponents profile-logs --log-dir gpt-4o-profile",
        ],
    )
    p.add_argument("--model", action="append", required=True, metavar="MODEL", help="a model to profile (repeatable)")
    p.add_argument("--judge", metavar="MODEL", help="the judge: FACET pairwise, the PACE board, HEART, LongEmotion")
    p.add_argument("--simulated-user", metavar="MODEL", help="SAGE's simulated user")
    p.add_argument(
        "--preset",
        default="quick",
        choices=["quick", "standard", "full"],
        help="items per task: quick (a few per language and dimension, one epoch), standard (about five times "
        "as many), full (every item, the tasks' own epochs); default: quick",
    )
    p.add_argument("--benchmarks", metavar="B,...", help="comma-separated subset (default: every benchmark)")
    p.add_argument("--log-dir", default="profile-logs", help="the profile's folder (default: ./profile-logs)")
    p.add_argument("--out", metavar="DIR", help="the report card's folder (default: LOG_DIR/card)")
    p.add_argument("--title", help="the report card's title")
    p.add_argument("--dry-run", action="store_true", help="print the plan and make no model call")
    p.add_argument(
        "--output-tokens",
        type=int,
        metavar="N",
        help="for the plan: assume every call writes about N tokens (default: a typical length per task and role, "
        "docs/profile.md); e.g. the mean output of an earlier profile's calls",
    )
    p.add_argument("--json", action="store_true", help="with --dry-run: print the plan as JSON (plan.json's fields)")
    p.add_argument(
        "--budget",
        metavar="LIMIT",
        help="Inspect's per-sample limit: tokens (20000 or 20000tokens: token_limit) or dollars (0.5usd: "
        "cost_limit, needs prices); a sample that reaches it is unscored with reason limit",
    )
    p.add_argument(
        "--opponents",
        action="append",
        default=[],
        metavar="LOGS",
        help="logs of an earlier profile of other models: their replies are compared with the new models' and "
        "their pairwise verdicts reused, so only the new pairs are judged",
    )
    p.add_argument(
        "--longemotion-data",
        metavar="DIR|hub|fixtures",
        help="LongEmotion's data: a local copy of the release, 'hub' to download it, or 'fixtures' (the project's "
        "small smoke-test fixtures, not the benchmark); default: LONGEMOTION_DATA_DIR, else LongEmotion is not run",
    )
    p.add_argument("--model-cost-config", metavar="FILE", help="model prices (Inspect's YAML/JSON format) for the cost")
    p.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a model argument for the profiled models (as inspect's -M), e.g. n_threads=1 or delay=0.5",
    )
    p.add_argument(
        "-R",
        "--role-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a model argument for the judge and the simulated user, e.g. delay=0.5",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="the profiled models' output cap for every task (Inspect's --max-tokens; default: each task's own)",
    )
    p.add_argument("--max-tasks", type=int, help="task runs at once (default: all of them)")
    p.add_argument("--max-connections", type=int, help="concurrent calls per model (Inspect's default if unset)")
    p.add_argument(
        "--processes",
        type=int,
        choices=[1, 2],
        default=2,
        help="2 (default): the long dialogues (SAGE) run as an eval set of their own in a second process, in "
        "DIR/dialogue, beside the other tasks (Linux, --display none or log, no model run in-process such as "
        "eq_evals/smollm2; else one process, said); 1: every task "
        "in one eval set. A folder being continued keeps the layout it was made with",
    )
    p.add_argument("--retry-attempts", type=int, default=3, help="eval-set's retries of a failed task (default: 3)")
    p.add_argument(
        "--display",
        default="none",
        choices=["full", "conversation", "rich", "plain", "log", "none"],
        help="Inspect's display while the profile runs (default: none)",
    )
    p.set_defaults(func=cmd_profile)
