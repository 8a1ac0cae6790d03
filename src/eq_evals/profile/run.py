"""Running a profile: Inspect eval sets in one log folder, each resumable with eval-set's own semantics
(docs/profile.md, "Running and resuming").

1. ``DIR/generate``: every profiled model on every first-phase task (objective items, interaction replies, SAGE
   dialogues, the PACE board, HEART against the reference, LongEmotion), the judge bound to the tasks' judge role
   and the simulated user to SAGE's.
   ``DIR/dialogue``: the first-phase tasks whose samples are long chains of calls (SAGE's dialogues), run at the
   same time as an eval set of their own in a second process (``--processes 2``, the default where it can: Linux,
   a display that does not take the terminal, no model run inside the process; :func:`one_process_reason`). One Python process runs its eval set's tasks on one event
   loop, and a dialogue waits for the loop at every turn: while the other tasks start (their samples, logs and
   scorers keep the loop busy for seconds) each of its turns waits, and a chain of turns adds those waits up.
   In a process of its own a dialogue runs as it would alone, and the other tasks use another core.
2. ``DIR/judge``: the pairwise judging tasks (``facet_pairwise``) over the first phase's generation logs and those
   of ``--opponents``, reusing the opponents' verdicts, so only the new pairs are judged. It waits for the first
   phase's tasks in its own process only (the dialogues are not judged pairwise).

Running the same command again continues: eval-set skips the tasks whose logs are complete and retries the
others, reusing their finished samples. ``DIR/plan.json`` records what the folder profiles (models, preset,
items) under ``selection``; a command that would profile other items in the same folder is refused. The plan and,
after the run, the calls and tokens the logs record are written into the same file.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

from eq_evals.errors import EqEvalsError
from eq_evals.profile.plan import Plan, build_task, make_plan, subset, totals
from eq_evals.profile.spec import MODEL

GENERATE, DIALOGUE, JUDGE = "generate", "dialogue", "judge"
ALL = "*"  # every log of --opponents
# calls one after another in a sample (all roles) from which a task runs in the second process: SAGE's dialogues
# (the simulated user's turn, then the model's, round after round; SAGE paper §2.1-2.2); every other task's samples make at
# most a handful of calls
CHAIN = 10


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


def check_folder(log_dir: Path, plan: Plan, dialogue: list[str] | None = None) -> list[str]:
    """Refuse to continue a profile of other items in the same folder (eval-set would take their logs as done).
    Returns the tasks (keys) that run in ``DIR/dialogue``: ``dialogue`` for a new folder; for a folder being
    continued, those it ran there before (none, for a folder made in one process), so that each eval set finds
    its own logs again."""
    record = log_dir / "plan.json"
    mine = _selection(plan)
    mine[DIALOGUE] = sorted(dialogue or [])
    if record.exists():
        earlier = json.loads(record.read_text(encoding="utf-8")).get("selection", {})
        mine[DIALOGUE] = sorted(
            set(earlier.get(DIALOGUE) or []) | (set(dialogue or []) - set(earlier.get("items", {})))
        )
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
    return mine[DIALOGUE]


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


def chain_depths(plan: Plan) -> dict[str, float]:
    """Model calls per sample of each first-phase task, every role together (the plan's rows): how long a chain
    of calls, one after another, a sample can be."""
    calls: dict[str, float] = {}
    samples: dict[str, float] = {}
    for row in plan.rows:
        calls[row["task"]] = calls.get(row["task"], 0.0) + (row.get("calls") or 0)
        if row.get("role") == MODEL:
            samples[row["task"]] = samples.get(row["task"], 0.0) + (row.get("samples") or 0)
    return {task: calls[task] / n for task, n in samples.items() if n}


# providers that hold a model's weights (or start its server) in the calling process: a second process would load a
# second copy
IN_PROCESS = ("hf/", "vllm/", "sglang/", "transformer_lens/", "eq_evals/smollm2", "eq_evals/gguf")


def one_process_reason(models: list[str | None], display: str | None) -> str | None:
    """Why the dialogues cannot have a process of their own here, or None. The second process is forked (it
    inherits the built tasks: no new interpreter to start), which is done on Linux only; two displays that take
    the terminal would overwrite each other; and a model run in-process would be loaded twice."""
    if not sys.platform.startswith("linux"):
        return f"a second process is forked on Linux only, not on {sys.platform}"
    if (display or "none") not in ("none", "log"):
        return f"--display {display} takes the terminal (none or log leave it to both processes)"
    local = sorted({m for m in models if m and m.startswith(IN_PROCESS)})
    if local:
        return f"{', '.join(local)} runs in this process and would be loaded a second time"
    return None


def _dialogue_child(tasks: list, models: Any, log_dir: Path, roles: dict[str, Any], common: dict, conn: Any) -> None:
    """The second process: the dialogue tasks' eval set. Sends back (ok, log paths) or ("error", message)."""
    from eq_evals import summary_hook

    summary_hook.clear_task_end_listeners()  # the parent reads ahead for its own card, not this process
    try:
        ok, logs = _eval_set(tasks, models, log_dir, roles, common)
        conn.send((ok, [_local(log.location) for log in logs]))
    except BaseException as ex:  # noqa: BLE001 - whatever stops it is reported by the parent, naming the folder
        conn.send(("error", str(ex) if isinstance(ex, EqEvalsError) else f"{type(ex).__name__}: {ex}"))
    finally:
        conn.close()


class Dialogues:
    """The dialogue tasks' eval set in a forked process (``DIR/dialogue``), started before the parent's own."""

    def __init__(self, tasks: list, models: Any, log_dir: Path, roles: dict[str, Any], common: dict) -> None:
        context = multiprocessing.get_context("fork")
        self.log_dir = log_dir
        self._conn, child = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_dialogue_child, args=(tasks, models, log_dir, roles, common, child), name="eq-evals-dialogue"
        )
        self._process.start()
        child.close()

    def result(self) -> tuple[bool, list[str]]:
        """Wait for it; its logs, or an error naming its folder."""
        try:
            outcome = self._conn.recv()
        except EOFError:
            outcome = ("error", "it ended without a word")
        except BaseException:  # a Ctrl-C while waiting (it reaches both): let it finish cancelling first
            self.stop()
            raise
        self._process.join()
        if outcome[0] == "error":
            raise EqEvalsError(
                f"{self.log_dir}: the dialogue tasks' eval set failed (exit code {self._process.exitcode}): "
                f"{outcome[1]}\nThe other tasks' logs are kept; run the same command again to continue."
            )
        return bool(outcome[0]), list(outcome[1])

    def stop(self) -> None:
        """After an error in the parent: let it finish cancelling (a Ctrl-C reaches both), else end it."""
        self._process.join(timeout=30)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join()


def run_profile(
    plan: Plan,
    log_dir: Path,
    opponents: dict[str, list[str]],
    options: dict[str, Any],
    common: dict[str, Any],
    role_args: dict[str, Any] | None = None,
    processes: int = 1,
) -> list[str]:
    """Run both phases; returns the logs the profile is made of (its own and the opponents' generation logs).
    ``processes`` 2: the tasks whose samples are chains of at least ``CHAIN`` calls (SAGE's dialogues) run in a
    second process, in ``DIR/dialogue`` (unless :func:`one_process_reason` gives one)."""
    depth = chain_depths(plan)
    long_ones = [p.spec.key for p in plan.generate if depth.get(p.spec.key, 0.0) >= CHAIN]
    if len(long_ones) == len(plan.generate):
        long_ones = []  # nothing to run beside them
    reason = one_process_reason([*plan.models, plan.judge, plan.simulated_user], common.get("display"))
    if processes < 2:
        reason = "--processes 1"
    dialogue = set(check_folder(log_dir, plan, [] if reason else long_ones))
    if long_ones and reason and not dialogue and processes >= 2:
        say(f"profile: the dialogues run with the other tasks, in one process: {reason}")
    roles = _roles(plan, role_args or {})
    tasks, chains = [], []
    for planned in plan.generate:
        task = planned.task
        if planned.spec.opponents_arg and opponents.get(planned.spec.key):
            # judged against the reference and the opponents' replies: the task is rebuilt with them
            extra = {planned.spec.opponents_arg: ",".join(["reference", *sorted(opponents[planned.spec.key])])}
            task = subset(build_task(planned.spec, options, **extra), planned.spec, plan.preset)
        (chains if planned.spec.key in dialogue else tasks).append(task)
    written: list[str] = []
    task_of: dict[str, str] = {}
    ok = True
    dialogues = None
    if chains:
        say(f"profile: phase 1, dialogues ({len(chains)} tasks x {len(plan.models)} models) in {log_dir / DIALOGUE}")
        if reason:  # a folder made with the second process, continued where it cannot be forked: after the others
            say(f"profile: the dialogues' eval set runs after the other tasks, in this process: {reason}")
        else:
            dialogues = Dialogues(chains, plan.models, log_dir / DIALOGUE, roles, common)
    try:
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
        written += _judge_phase(plan, log_dir, opponents, options, common, roles, written, task_of, ok)
    except BaseException:
        if dialogues:
            dialogues.stop()
        raise
    if chains:
        if dialogues:
            ok_dialogues, paths = dialogues.result()
        else:  # a folder made with the second process, continued where it is not forked: here, after the others
            ok_dialogues, logs = _eval_set(chains, plan.models, log_dir / DIALOGUE, roles, common)
            paths = [_local(log.location) for log in logs]
        written += paths
        if not ok_dialogues:
            say(
                "warning: some dialogue tasks did not finish; run the same command again to continue "
                "(finished samples are not run again)"
            )
    # the opponents' logs join the card, but not their judging logs of a task judged again here (the new log holds
    # their verdicts, reused)
    rejudged = {p for planned in plan.judge_tasks for p in opponents.get(planned.spec.task, [])}
    theirs = [p for p in opponents.get(ALL, []) if p not in rejudged and p not in written]
    return written + theirs


def _judge_phase(
    plan: Plan,
    log_dir: Path,
    opponents: dict[str, list[str]],
    options: dict[str, Any],
    common: dict[str, Any],
    roles: dict[str, Any],
    written: list[str],
    task_of: dict[str, str],
    ok: bool,
) -> list[str]:
    """Phase 2, the pairwise judging of phase 1's generation logs (``DIR/judge``); returns its logs."""
    out: list[str] = []
    if not plan.judge_tasks:
        return out
    if not ok:
        say("profile: phase 2 (pairwise judging) waits until phase 1 is complete")
        return out
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
    out += [_local(log.location) for log in logs]
    if not ok2:
        say("warning: pairwise judging did not finish; run the same command again to continue")
    return out


def actual_counts(paths: list[str]) -> list[dict[str, Any]]:
    """Model calls and tokens per task and role as the logs record them (model events; every call Inspect made,
    none for a reused or cached one)."""
    from eq_evals.logcheck import read

    rows: dict[tuple, dict[str, Any]] = {}
    for path in paths:
        log = read(path)
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
