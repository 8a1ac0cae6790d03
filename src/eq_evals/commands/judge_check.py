"""``eq-evals judge-check``: check a judge before trusting a leaderboard it builds (docs/judges.md).

With ``--judge MODEL`` (repeatable) it runs the judge-check tasks (``eq_evals/judge_check_<benchmark>``, Inspect
tasks like every other, with the judge bound as the ``grader`` role and ``--model none``) and writes one judge
card per judge (Markdown and JSON). Given only logs, it writes the cards of the judge-check logs it finds there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from eq_evals.commands import add_parser

ORDER = 5  # place in `eq-evals --help`
BENCHMARKS = ("facet", "heart", "pace", "pace_board", "longemotion")
BOARD_ROLES = ("pace_pa", "pace_aa", "pace_cg", "pace_gs", "pace_ca", "pace_overall")


def _pairs(values: list[str], what: str) -> dict[str, Any]:
    import yaml

    from eq_evals.errors import EqEvalsError

    out: dict[str, Any] = {}
    for value in values or []:
        if "=" not in value:
            raise EqEvalsError(f"{what} {value!r}: expected NAME=VALUE")
        name, raw = value.split("=", 1)
        out[name.strip()] = yaml.safe_load(raw) if what == "-M" else raw.strip()
    return out


def _model(name: str, model_args: dict[str, Any], max_tokens: int | None) -> Any:
    from inspect_ai.model import GenerateConfig, get_model

    return get_model(name, config=GenerateConfig(max_tokens=max_tokens), **model_args)


def run_checks(
    judges: list[str],
    benchmarks: list[str],
    preset: str,
    language: str,
    seed: int,
    log_dir: str,
    roles: dict[str, str],
    model_args: dict[str, Any],
    max_tokens: int | None,
    display: str,
) -> list[str]:
    """Run the judge-check tasks for each judge; returns the paths of the logs written."""
    from inspect_ai import eval as inspect_eval

    from eq_evals.errors import EqEvalsError

    runs: list[tuple[str, dict[str, Any]]] = []
    extra = {role: _model(m, model_args, max_tokens) for role, m in roles.items()}
    for judge in judges:
        runs.append((judge, {"grader": _model(judge, model_args, max_tokens), **extra}))
    if not judges:
        if not any(r in roles for r in BOARD_ROLES + ("grader",)):
            raise EqEvalsError("give a judge: --judge MODEL (or the PACE board's roles: --role pace_pa=MODEL ...)")
        wrong = [b for b in benchmarks if b not in ("pace", "pace_board") and "grader" not in roles]
        if wrong:
            raise EqEvalsError(f"{', '.join(wrong)} need a judge: --judge MODEL (--role binds only the roles it names)")
        runs.append((", ".join(f"{r}={m}" for r, m in roles.items()), extra))
    written = []
    for name, bound in runs:
        print(f"eq-evals: judge check of {name}: {', '.join(benchmarks)} (preset {preset})", file=sys.stderr)
        for benchmark in benchmarks:
            task = f"eq_evals/judge_check_{benchmark}"
            if benchmark == "longemotion" and language == "zh":
                print(
                    "eq-evals: note: the LongEmotion judge check has English items only; skipped for --language zh",
                    file=sys.stderr,
                )
                continue
            task_args = {"preset": preset, "seed": seed, "languages": "en" if benchmark == "longemotion" else language}
            [log] = inspect_eval(
                task, task_args=task_args, model="none", model_roles=bound, log_dir=log_dir, display=display
            )  # type: ignore[arg-type]
            where = str(log.location)
            print(f"eq-evals: {task}: {log.status} ({where})", file=sys.stderr)
            if log.status != "success":
                message = log.error.message.strip().splitlines()[-1] if log.error and log.error.message else log.status
                print(
                    f"eq-evals: warning: {task} did not finish: {message}; its card covers the pairs it judged "
                    f"(finish it with `inspect eval-retry {where}`)",
                    file=sys.stderr,
                )
            written.append(where)
    return written


def cmd_judge_check(args: argparse.Namespace) -> int:
    from eq_evals.errors import EqEvalsError
    from eq_evals.judges.card import judge_cards, summary_line, write_cards

    benchmarks = [b.strip() for b in args.benchmarks.split(",") if b.strip()]
    unknown = [b for b in benchmarks if b not in BENCHMARKS]
    if unknown or not benchmarks:
        raise EqEvalsError(
            f"--benchmarks {args.benchmarks}: expected a comma-separated list of {', '.join(BENCHMARKS)}"
        )
    roles = _pairs(args.role, "--role")
    logs = list(args.logs)
    if args.judge or roles:
        logs += run_checks(
            args.judge,
            benchmarks,
            args.preset,
            args.language,
            args.seed,
            args.log_dir,
            roles,
            _pairs(args.model_arg, "-M"),
            args.max_tokens,
            args.display,
        )
    if not logs:
        raise EqEvalsError("nothing to check: give --judge MODEL to run the check, or judge-check logs to read")
    cards = judge_cards(logs)
    if not cards:
        raise EqEvalsError(f"no judge-check logs in {', '.join(map(str, logs))} (logs of eq_evals/judge_check_* tasks)")
    written = write_cards(cards, args.out)
    for card in cards.values():
        print(summary_line(card))
    out = Path(args.out)
    print(f"written: {', '.join(str(out / p.name) for p in written)}")
    if args.strict and any(card.status == "fail" for card in cards.values()):
        return 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_parser(
        sub,
        "judge-check",
        help="check a judge before trusting it: known-answer pairs, position, verbosity, injection, null "
        "outputs, self-preference and repeat stability, as a judge card (Markdown and JSON)",
        description="Run the judge-check tasks (eq_evals/judge_check_<benchmark>) for each --judge and write "
        "its judge card, or write the cards of judge-check logs you give. Every judgement goes "
        "through the benchmark's own scorer, so the card describes the judge as the benchmark "
        "uses it. docs/judges.md explains the probes, thresholds and how to read the card.",
        examples=[
            "eq-evals judge-check --judge eq_evals/scripted-jc-honest --preset quick --out cards/",
            "eq-evals judge-check --judge openai/gpt-4o --benchmarks facet,heart --log-dir jc-logs/",
            "eq-evals judge-check --judge eq_evals/smollm2 -M n_threads=1 --max-tokens 96 "
            "--benchmarks facet --preset quick",
            "eq-evals judge-check --role pace_pa=openai/gpt-4o --role pace_aa=openai/gpt-4o-mini "
            "--role pace_cg=openai/gpt-4o --role pace_gs=openai/gpt-4o --benchmarks pace,pace_board",
            "eq-evals judge-check jc-logs/ --out cards/   # cards from earlier judge-check logs",
        ],
    )
    p.add_argument(
        "logs", nargs="*", metavar="LOGS", help="judge-check logs or folders to read (other logs are passed over)"
    )
    p.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="MODEL",
        help="a judge to check (repeatable), bound as the grader role; the PACE board's agents fall back to it",
    )
    p.add_argument(
        "--role",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="another model role for the check, e.g. the PACE board's pace_pa, pace_aa, pace_cg, pace_gs",
    )
    p.add_argument(
        "--benchmarks", default=",".join(BENCHMARKS), help=f"comma-separated, of {', '.join(BENCHMARKS)} (default: all)"
    )
    p.add_argument(
        "--preset",
        default="standard",
        choices=["quick", "standard", "thorough"],
        help="pairs per probe: quick (smoke), standard (about +-5 points on the main figures), thorough",
    )
    p.add_argument("--language", default="all", choices=["en", "zh", "all"], help="items of this language only")
    p.add_argument("--seed", type=int, default=0, help="seed of the pair selection")
    p.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a model argument for the judge models (as inspect's -M), e.g. n_threads=1",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="the judges' max_tokens (a scorer that sets its own, like HEART's 4096, keeps it)",
    )
    p.add_argument("--log-dir", default="logs", help="where the judge-check logs go (default: ./logs)")
    p.add_argument("--out", default="judge-cards", help="folder for the judge cards (default: ./judge-cards)")
    p.add_argument(
        "--display",
        default="none",
        choices=["full", "conversation", "rich", "plain", "log", "none"],
        help="Inspect's display while the checks run (default: none; progress lines go to stderr)",
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when a judge's card fails")
    p.set_defaults(func=cmd_judge_check)
