"""Running a profile: two Inspect eval sets in one log folder, each resumable with eval-set's own semantics
(docs/profile.md, "Running and resuming").

1. ``DIR/generate``: every profiled model on every first-phase task (objective items, interaction replies, SAGE
   dialogues, the PACE board, HEART against the reference, LongEmotion), the judge bound to the tasks' judge role
   and the simulated user to SAGE's.
2. ``DIR/judge``: the pairwise judging tasks (``facet_pairwise``) over the first phase's generation logs and those
   of ``--opponents``, reusing the opponents' verdicts, so only the new pairs are judged.

Running the same command again continues: eval-set skips the tasks whose logs are complete and retries the
others, reusing their finished samples. ``DIR/plan.json`` records what the folder profiles (models, preset,
items) under ``selection``; a command that would profile other items in the same folder is refused. The plan and,
after the run, the calls and tokens the logs record are written into the same file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from eq_evals.errors import EqEvalsError
from eq_evals.profile.plan import Plan, build_task, make_plan, subset, totals
from eq_evals.profile.spec import MODEL

GENERATE, JUDGE = "generate", "judge"
ALL = "*"  # every log of --opponents


def say(message: str) -> None:
    print(f"eq-evals: {message}", file=sys.stderr)


def parse_budget(value: str | None) -> dict[str, Any]:
    """``--budget``: Inspect's per-sample limits. ``20000`` or ``20000tokens`` -> token_limit; ``0.5usd`` or
    ``$0.5`` -> cost_limit (dollars)."""
    if not value:
        return {}
    text = value.strip().lower().replace(",", "").replace("_", "")
    try:
        if text.startswith("$") or text.endswith("usd"):
            return {"cost_limit": float(text.strip("$").removesuffix("usd"))}
        return {"token_limit": int(text.removesuffix("tokens"))}
    except ValueError:
        raise EqEvalsError(
            f"--budget {value}: expected tokens per sample (20000 or 20000tokens) or dollars per sample (0.5usd)"
        ) from None


def _local(location: str) -> str:
    """A log's path: eval-set names logs it did not run again by a ``file:`` URI."""
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(location).path) if location.startswith("file:") else location


def _header(path: str) -> Any:
    from inspect_ai.log import read_eval_log

    return read_eval_log(path, header_only=True)


def opponent_logs(paths: list[str]) -> dict[str, list[str]]:
    """Earlier logs given with ``--opponents``, by task key: ``facet_interaction[language=all]`` -> paths, and
    ``KEY:models`` -> the models they hold; the judging logs under their task name (their verdicts are reused)."""
    from eq_evals.logcheck import expand_log_paths

    out: dict[str, list[str]] = {}
    for path in expand_log_paths(paths):
        header = _header(str(path))
        task = header.eval.task.removeprefix("eq_evals/")
        language = (header.eval.task_args or {}).get("language")
        key = task + (f"[language={language}]" if language else "")
        out.setdefault(key, []).append(str(path))
        out.setdefault(task, []).append(str(path))
        out.setdefault(f"{key}:models", []).append(header.eval.model)
        out.setdefault(ALL, []).append(str(path))
    return out


def _selection(plan: Plan) -> dict[str, Any]:
    return {
        "preset": plan.preset,
        "items": {p.spec.key: sorted(str(s.id) for s in p.task.dataset) for p in plan.generate if p.task},
    }


def check_folder(log_dir: Path, plan: Plan) -> None:
    """Refuse to continue a profile of other items in the same folder (eval-set would take their logs as done)."""
    record = log_dir / "plan.json"
    mine = _selection(plan)
    if record.exists():
        earlier = json.loads(record.read_text(encoding="utf-8")).get("selection", {})
        if earlier.get("preset") != mine["preset"] or any(
            earlier.get("items", {}).get(k) not in (None, v) for k, v in mine["items"].items()
        ):
            raise EqEvalsError(
                f"{log_dir} holds a profile with preset {earlier.get('preset')} (or other items); continuing it with "
                f"preset {plan.preset} would mix them. Use another --log-dir, or the same options as before."
            )
        mine["items"] = {**earlier.get("items", {}), **mine["items"]}
    log_dir.mkdir(parents=True, exist_ok=True)
    plan.selection = mine
    write_plan(plan, log_dir, [], False)


def write_plan(plan: Plan, log_dir: Path, logs: list[str], finished: bool) -> Path:
    """plan.json beside the logs: the plan, what the folder profiles and, after the run, the logs and the calls and
    tokens they record."""
    record = plan.as_dict()
    record["totals"] = totals(plan.rows)
    record["selection"] = plan.selection
    record["finished"] = finished
    record["logs"] = logs
    mine = [p for p in logs if Path(p).resolve().is_relative_to(log_dir.resolve())]
    record["actual"] = actual_counts(mine) if mine else []
    path = log_dir / "plan.json"
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _roles(plan: Plan, role_args: dict[str, Any]) -> dict[str, Any]:
    """The judge as the tasks' ``grader`` role, the simulated user as SAGE's ``simulated_user``."""
    from inspect_ai.model import get_model

    roles: dict[str, Any] = {}
    for name, model in (("grader", plan.judge), ("simulated_user", plan.simulated_user)):
        if model:
            roles[name] = get_model(model, **role_args) if role_args else model
    return roles


def _eval_set(tasks: list, models: Any, log_dir: Path, roles: dict[str, Any], common: dict[str, Any]) -> tuple:
    import re

    from inspect_ai import eval_set
    from inspect_ai._util.error import PrerequisiteError

    try:
        return eval_set(
            tasks,
            model=models,
            model_roles=roles or None,  # type: ignore[arg-type]
            log_dir=str(log_dir),
            **common,
        )
    except PrerequisiteError as ex:  # e.g. logs of other tasks or options in the folder
        message = re.sub(r"\[/?bold\]", "", str(ex)).replace("ERROR: ", "").strip()
        raise EqEvalsError(
            f"{log_dir}: {message}\nA profile's folder holds the logs of one set of models' tasks with one set of "
            "options (benchmarks, judge, simulated user, --opponents, --budget, -M): run the same command as before "
            "to continue it, or use another --log-dir."
        ) from None


def run_profile(
    plan: Plan,
    log_dir: Path,
    opponents: dict[str, list[str]],
    options: dict[str, Any],
    common: dict[str, Any],
    role_args: dict[str, Any] | None = None,
) -> list[str]:
    """Run both phases; returns the logs the profile is made of (its own and the opponents' generation logs)."""
    check_folder(log_dir, plan)
    roles = _roles(plan, role_args or {})
    tasks = []
    for planned in plan.generate:
        task = planned.task
        if planned.spec.opponents_arg and opponents.get(planned.spec.key):
            # judged against the reference and the opponents' replies: the task is rebuilt with them
            extra = {planned.spec.opponents_arg: ",".join(["reference", *sorted(opponents[planned.spec.key])])}
            task = subset(build_task(planned.spec, options, **extra), planned.spec, plan.preset)
        tasks.append(task)
    # the longest chains of calls first: eval-set starts the tasks one after another, and a task whose samples are
    # long sequential dialogues (SAGE's turns) sets the phase's end, so it should not wait behind the short ones
    depth: dict[str, float] = {}
    for row in plan.rows:
        if row.get("samples"):
            depth[row["task"]] = max(depth.get(row["task"], 0.0), row["calls"] / row["samples"])
    specs = [planned.spec for planned in plan.generate]
    order = sorted(range(len(tasks)), key=lambda i: -depth.get(specs[i].task, 0.0))
    tasks = [tasks[i] for i in order]
    written: list[str] = []
    task_of: dict[str, str] = {}
    ok = True
    if tasks:
        say(f"profile: phase 1 ({len(tasks)} tasks x {len(plan.models)} models) in {log_dir / GENERATE}")
        ok, logs = _eval_set(tasks, plan.models, log_dir / GENERATE, roles, common)
        written += [_local(log.location) for log in logs]
        task_of = {_local(log.location): log.eval.task.removeprefix("eq_evals/") for log in logs}
        if not ok:
            say(
                "warning: some tasks of phase 1 did not finish; run the same command again to continue "
                "(finished samples are not run again)"
            )
    if plan.judge_tasks:
        if not ok:
            say("profile: phase 2 (pairwise judging) waits until phase 1 is complete")
        else:
            judging = []
            for planned in plan.judge_tasks:
                source = planned.spec.judges or ""
                gen = [p for p in written if task_of.get(p) == source.split("[")[0]]
                # sorted: the arguments are part of the task's identity in the eval set, so a rerun finds its log
                extra: dict[str, Any] = {"logs": ",".join(sorted(gen) + sorted(opponents.get(source, [])))}
                earlier = opponents.get(planned.spec.task, [])
                if earlier:
                    extra["reuse"] = ",".join(sorted(earlier))
                judging.append(build_task(planned.spec, options, **extra))
            say(f"profile: phase 2 ({len(judging)} judging tasks) in {log_dir / JUDGE}")
            judge_common = {k: v for k, v in common.items() if k != "model_args"}  # no tested model here
            ok2, logs = _eval_set(judging, "none", log_dir / JUDGE, roles, judge_common)
            written += [_local(log.location) for log in logs]
            if not ok2:
                say("warning: pairwise judging did not finish; run the same command again to continue")
    # the opponents' logs join the card, but not their judging logs of a task judged again here (the new log holds
    # their verdicts, reused)
    rejudged = {p for planned in plan.judge_tasks for p in opponents.get(planned.spec.task, [])}
    theirs = [p for p in opponents.get(ALL, []) if p not in rejudged and p not in written]
    return written + theirs


def actual_counts(paths: list[str]) -> list[dict[str, Any]]:
    """Model calls and tokens per task and role as the logs record them (model events; every call Inspect made,
    none for a reused or cached one)."""
    from inspect_ai.log import read_eval_log

    rows: dict[tuple, dict[str, Any]] = {}
    for path in paths:
        log = read_eval_log(path)
        task = log.eval.task.removeprefix("eq_evals/")
        roles = {str(v.model): k for k, v in (log.eval.model_roles or {}).items()}
        for sample in log.samples or []:
            for event in sample.events:
                if event.event != "model" or getattr(event, "cached", False):
                    continue
                role = event.role or (MODEL if event.model == log.eval.model else roles.get(event.model, event.model))
                key = (task, role, event.model, log.eval.model)
                row = rows.setdefault(
                    key,
                    {
                        "task": task,
                        "role": role,
                        "model": event.model,
                        "for_model": log.eval.model,
                        "calls": 0,
                        "input_tokens": 0,
                        "output_tokens": 0,
                    },
                )
                row["calls"] += 1
                usage = event.output.usage if event.output else None
                if usage:
                    row["input_tokens"] += usage.input_tokens or 0
                    row["output_tokens"] += usage.output_tokens or 0
    return list(rows.values())


def write_outputs(plan: Plan, log_dir: Path, logs: list[str], out: Path, title: str | None) -> dict[str, Any]:
    """plan.json beside the logs (the plan, what the logs record, and the logs), then the report card."""
    path = write_plan(plan, log_dir, logs, True)
    record = json.loads(path.read_text(encoding="utf-8"))
    written: dict[str, Any] = {"plan": path}
    try:
        from eq_evals.card import write_card  # type: ignore[import-not-found]
    except ImportError:
        say("note: the report card is not available in this version; wrote the plan and the logs only")
        return written
    written.update(write_card(logs, out, plan=record, title=title, allow_partial=True))
    return written


__all__ = ["make_plan", "run_profile", "write_outputs", "parse_budget", "opponent_logs", "actual_counts"]
