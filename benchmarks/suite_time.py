"""Wall time of the default test suite (the README's test command without its set-up step), in two conditions.

Issue 18's targets: at most 5 minutes on a quiet 2-core machine, at most 8 minutes while another CPU-bound job holds
one core. ``quiet`` runs the suite alone; ``contended`` starts a busy loop in another process first (one core's worth
of pure-Python work, outside the suite's process tree) and stops it afterwards. The load average is sampled every 15
s during each run, so a run on a machine that was not quiet is read as such.

    python benchmarks/suite_time.py                     # both conditions, one run each
    python benchmarks/suite_time.py --conditions quiet  # one of them
    python benchmarks/suite_time.py --pytest-args "tests/core"   # a subset (for trying the script)

Results go to benchmarks/results/suite_time.json under ``runs`` (earlier runs are kept; the newest last).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine, now  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "suite_time.json"


def burn(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    """One core's worth of CPU-bound work until told to stop."""
    x = 0
    while not stop.is_set():
        for i in range(200_000):
            x = (x * 31 + i) % 1_000_003


def sample_load(stop: threading.Event, out: list[float]) -> None:
    while not stop.wait(15):
        out.append(round(os.getloadavg()[0], 2))


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True)
    return done.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def run_suite(pytest_args: list[str]) -> dict:
    """The README's test command (scripts/test.sh) without its set-up step: same interpreter, options and selection."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", "--dist", "loadfile"]
    cmd += ["-m", "not slow", *pytest_args]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    loads: list[float] = []
    stop = threading.Event()
    sampler = threading.Thread(target=sample_load, args=(stop, loads), daemon=True)
    before = [round(x, 2) for x in os.getloadavg()]
    start = time.monotonic()
    sampler.start()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    stop.set()
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|errors?|skipped|deselected)", summary)}
    return {
        "command": " ".join(shlex.quote(c) for c in ["python", *cmd[1:]]),
        "exit_code": done.returncode,
        "wall_seconds": round(wall, 1),
        "pytest_summary": summary,
        "tests": counts,
        "load_before_1_5_15": before,
        "load_1min_sampled_every_15s": {"min": min(loads), "max": max(loads), "n": len(loads)} if loads else None,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conditions", nargs="+", default=["quiet", "contended"], choices=["quiet", "contended"])
    ap.add_argument("--pytest-args", default="tests", help="what to run (default: tests, as the README)")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    runs = []
    for condition in args.conditions:
        stop = multiprocessing.Event()
        burner = multiprocessing.Process(target=burn, args=(stop,), daemon=True) if condition == "contended" else None
        if burner:
            burner.start()
            time.sleep(2)
        try:
            result = run_suite(shlex.split(args.pytest_args))
        finally:
            if burner:
                stop.set()
                burner.join(10)
        run = {"condition": condition, "date": now(), "commit": commit(), "machine": machine(), **result}
        target = 300 if condition == "quiet" else 480
        run["target_seconds"] = target
        run["meets_target"] = result["exit_code"] == 0 and result["wall_seconds"] <= target
        print(json.dumps(run, indent=2))
        runs.append(run)
    out = Path(args.out)
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    data.setdefault("runs", []).extend(runs)
    out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0 if all(r["exit_code"] == 0 for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
