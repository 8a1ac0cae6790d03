"""Profile speed and plan accuracy (issue 20): a quick ``eq-evals profile`` of two scripted models whose every call
takes 0.5 s (``-M delay=0.5``, and the judge's and simulated user's too, ``-R delay=0.5``) against the longest of
its tasks run alone (one ``inspect eval`` of that task for the same two models, same items and roles, timed from
building the task to its logs, as the profile is timed from building its tasks to its report card). Target:
the profile's wall time at most 1.5x the longest single task's, as the tasks run concurrently (the profile's
default: the long dialogues as an eval set of their own in a second process, beside the other tasks'; docs/profile.md,
"Running and resuming").

Then the plan against the logs: the dry-run plan's calls, input and output tokens beside the calls and tokens the
logs record (model events). Target: within 15%, with the plan told the mean output length of a call
(``--output-tokens``, measured from the same logs: the plan cannot know how long a model's replies are, and the
scripted models' are far shorter than a real model's). The default plan (typical lengths per task) is reported
beside it.

    python benchmarks/profile_speed.py [--delay 0.5] [--results FILE]

Another ``--delay`` (written to another file) checks the result on a setting the profile was not tuned on.

Run from a development checkout put first on PYTHONPATH, Inspect's per-log lookup of the task code's distribution
scans every installed distribution (seconds a log); the benchmark caches that scan then and says so
(``distribution_scan_cached``), as an installed eq-evals never pays it.

Writes benchmarks/results/profile_speed.json.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402

import eq_evals._registry  # noqa: E402,F401
from eq_evals.cli import main as eq_evals  # noqa: E402
from eq_evals.profile.plan import build_task, make_plan, subset  # noqa: E402
from eq_evals.profile.run import actual_counts  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine, now  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "profile_speed.json"
S = "eq_evals/scripted-"
MODELS = [S + "all-good", S + "all-weak"]
JUDGE, USER = S + "jc-honest", S + "sage-user"
DELAY = 0.5
TARGET_RATIO, TARGET_ERROR = 1.5, 0.15
ARGS = [
    *[a for m in MODELS for a in ("--model", m)],
    *["--judge", JUDGE, "--simulated-user", USER, "--longemotion-data", "fixtures"],
]
DELAYED = ["-M", f"delay={DELAY}", "-R", f"delay={DELAY}"]


def cache_distribution_scan() -> bool:
    """Inspect looks up the distribution of each task's code once per log. When eq_evals runs from a source tree
    that is not the installed distribution's (a development checkout put first on PYTHONPATH), the fast path
    fails and every log scans every installed distribution's file list (seconds each): a cost of the setup, not
    of a profile, which writes 25 logs where a single task writes 2. Then the scan is cached for the process
    (installed packages do not change during a run); returns whether it was."""
    import functools

    import inspect_ai._util.package as package

    import eq_evals.engine

    if package.get_distribution_for_object(eq_evals.engine.build_task) is not None:
        return False  # an installed eq-evals: Inspect's fast path, nothing to cache
    package.packages_distributions = functools.cache(package.packages_distributions)  # type: ignore[assignment]
    return True


def quiet(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = eq_evals(argv)
    return status, out.getvalue()


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def phases(profile_dir: Path) -> tuple[dict[str, float], float]:
    """Wall seconds of each eval set, from its first task's start to its last task's end (the logs' stats; the
    dialogue eval set runs beside the generation one), and of all of them, from the first start to the last end."""
    from datetime import datetime

    from inspect_ai.log import list_eval_logs, read_eval_log

    out, every = {}, []
    for phase in ("generate", "dialogue", "judge"):
        spans = []
        for info in list_eval_logs(str(profile_dir / phase)):
            stats = read_eval_log(info.name, header_only=True).stats
            spans.append((datetime.fromisoformat(stats.started_at), datetime.fromisoformat(stats.completed_at)))
        if spans:
            out[phase] = round((max(e for _, e in spans) - min(s for s, _ in spans)).total_seconds(), 1)
            every += spans
    return out, round((max(e for _, e in every) - min(s for s, _ in every)).total_seconds(), 1)


def single_tasks(root: Path, profile_dir: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Wall seconds of each of the profile's tasks run alone (both models, the same items, roles and delay)."""
    options = {"longemotion_data": "fixtures"}
    plan = make_plan(MODELS, JUDGE, USER, "quick", None, options)
    roles = {"grader": get_model(JUDGE, delay=DELAY), "simulated_user": get_model(USER, delay=DELAY)}
    out, cpu_s = {}, {}
    for planned in plan.generate:
        # timed as `inspect eval eq_evals/TASK` runs it: the task is built (the profile builds its tasks too), then run
        start, start_cpu = time.perf_counter(), cpu()
        task = subset(build_task(planned.spec, options), planned.spec, "quick")
        logs = inspect_eval(
            task,
            model=MODELS,
            model_args={"delay": DELAY},
            model_roles=roles,
            log_dir=str(root / "alone" / planned.spec.key),
            display="none",
        )
        out[planned.spec.key] = round(time.perf_counter() - start, 2)
        cpu_s[planned.spec.key] = round(cpu() - start_cpu, 2)
        assert all(log.status == "success" for log in logs), planned.spec.key
    for planned in plan.judge_tasks:  # the pairwise judging alone, over the profile's generation logs
        gen = sorted(str(p) for p in (profile_dir / "generate").glob("*facet-interaction*.eval"))
        start, start_cpu = time.perf_counter(), cpu()
        task = build_task(planned.spec, options, logs=",".join(gen))
        [log] = inspect_eval(
            task, model="none", model_roles=roles, log_dir=str(root / "alone" / planned.spec.key), display="none"
        )
        out[planned.spec.key] = round(time.perf_counter() - start, 2)
        cpu_s[planned.spec.key] = round(cpu() - start_cpu, 2)
        assert log.status == "success"
    return out, cpu_s


def compare(plan_rows: list[dict], actual: list[dict]) -> dict:
    out = {}
    for field in ("calls", "input_tokens", "output_tokens"):
        planned, real = sum(r[field] for r in plan_rows), sum(r[field] for r in actual)
        out[field] = {"plan": planned, "logs": real, "error": round((planned - real) / real, 4) if real else None}
    return out


def main() -> int:
    global DELAY, DELAYED, RESULTS
    import argparse

    parser = argparse.ArgumentParser(description="profile speed and plan accuracy (issue 20)")
    parser.add_argument("--delay", type=float, default=DELAY, help="seconds every call takes (the target's: 0.5)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the results")
    args = parser.parse_args()
    DELAY, RESULTS = args.delay, args.results
    DELAYED = ["-M", f"delay={DELAY}", "-R", f"delay={DELAY}"]
    started = now()
    load = machine()
    cached_scan = cache_distribution_scan()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        profile_dir = root / "profile"
        import eq_evals.profile.run  # noqa: F401  (imports out of the timing, as for the single tasks)

        start, start_cpu = time.perf_counter(), cpu()
        status, _ = quiet(["profile", *ARGS, *DELAYED, "--log-dir", str(profile_dir)])
        profile_wall, profile_cpu = round(time.perf_counter() - start, 2), round(cpu() - start_cpu, 2)
        assert status == 0
        record = json.loads((profile_dir / "plan.json").read_text(encoding="utf-8"))
        actual = actual_counts([p for p in record["logs"]])
        eval_sets, eval_sets_span = phases(profile_dir)
        alone, alone_cpu = single_tasks(root, profile_dir)
    longest_task = max(alone, key=alone.get)
    calls = sum(r["calls"] for r in actual)
    mean_out = round(sum(r["output_tokens"] for r in actual) / calls)
    _, calibrated = quiet(["profile", *ARGS, "--dry-run", "--json", "--output-tokens", str(mean_out)])
    _, typical = quiet(["profile", *ARGS, "--dry-run", "--json"])
    accuracy = compare(json.loads(calibrated)["rows"], actual)
    ratio = round(profile_wall / alone[longest_task], 3)
    result = {
        "benchmark": "profile_speed",
        "date": started,
        "machine": load,
        "load_after": machine()["load_average_1_5_15"],
        "setting": f"quick profile, 2 scripted models, every call {DELAY} s (models, judge, simulated user), "
        "LongEmotion fixtures, --processes 2 (the default)",
        "distribution_scan_cached": cached_scan,
        "profile_wall_s": profile_wall,
        "profile_cpu_s": profile_cpu,
        "eval_set_wall_s": eval_sets,
        "eval_sets_span_s": eval_sets_span,
        "outside_eval_sets_wall_s": round(profile_wall - eval_sets_span, 1),
        "single_task_wall_s": alone,
        "single_task_cpu_s": alone_cpu,
        "longest_single_task": longest_task,
        "ratio_to_longest_task": ratio,
        "ratio_eval_sets_only": round(eval_sets_span / alone[longest_task], 3),
        "target_ratio": TARGET_RATIO,
        "ratio_met": ratio <= TARGET_RATIO,
        "model_calls": calls,
        "mean_output_tokens_per_call": mean_out,
        "plan_vs_logs": accuracy,
        "plan_vs_logs_typical_lengths": compare(json.loads(typical)["rows"], actual),
        "target_error": TARGET_ERROR,
        "estimates_met": all(abs(v["error"]) <= TARGET_ERROR for v in accuracy.values() if v["error"] is not None),
    }
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
