"""Embedded model throughput inside Inspect against raw llama.cpp, with several samples in flight.

Three measurements of the same chat prompts (temperature 0, seed 0, the same max tokens and threads) on
SmolLM2-135M-Instruct, alternated round by round so a shared machine's load falls on each alike. Each arm of
each round runs in a fresh process of its own (this script with ``--arm``), so no arm competes with a model
another arm left loaded (issue 22: an earlier version ran every arm in one process, and its raw rounds ran
beside the provider's still-loaded model: 95 tok/s instead of 142, which made Inspect look 1.19x faster
than raw):

- ``raw``: llama-cpp-python called directly from one thread, no Inspect;
- ``inspect``: an Inspect eval of the same prompts on ``eq_evals/smollm2`` with ``--max-samples`` samples in
  flight (every generate call runs on the model's one dedicated thread);
- ``inspect_worker_threads`` (with ``--baseline``): the same eval with the provider's calls sent to Inspect's
  pool of worker threads instead, as before the fix (issue 13: each new calling thread gets its own OpenMP
  team and the idle teams spin).

tokens/s = output tokens / seconds spent in generate calls (raw: the wall time of the calls; Inspect: the
wall time from the first model call's start to the last one's end, from the log's model events, so the
task's start-up and the model load are left out). Target: inspect >= 0.9 x raw.

    python benchmarks/embedded_throughput.py [--rounds 3] [--samples 8] [--max-samples 4] [--max-tokens 96] \
        [--threads 1] [--baseline]

Writes benchmarks/results/embedded_throughput.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.event import ModelEvent  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

import eq_evals._registry  # noqa: E402,F401
from eq_evals.providers import local_gguf  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine  # noqa: E402
from runtime_compare import PROMPTS  # noqa: E402


def prompts(n: int) -> list[str]:
    # distinct prompts (a numbered request), so no reply can come from a cache
    return [f"{PROMPTS[i % len(PROMPTS)]} (request {i + 1})" for i in range(n)]


def raw(n: int, max_tokens: int, threads: int, runtime: str) -> dict:
    """The runtime opened directly (the provider's own settings), called one prompt after another from this
    thread: no Inspect, no provider, no thread hand-off."""
    chat, close = local_gguf.OPEN[runtime](local_gguf.bundled_gguf("smollm2"), 4096, threads, 0)
    chat(messages=[{"role": "user", "content": "Hello!"}], max_tokens=8, temperature=0.0)
    tokens, t0 = 0, time.perf_counter()
    for text in prompts(n):
        reply = chat(messages=[{"role": "user", "content": text}], max_tokens=max_tokens, temperature=0.0, seed=0)
        tokens += reply["usage"]["completion_tokens"]
    seconds = time.perf_counter() - t0
    close()
    return {"tokens": tokens, "seconds": round(seconds, 3), "tokens_per_second": round(tokens / seconds, 2)}


def use_worker_threads(enabled: bool) -> None:
    """Before the fix: every call on a thread of Inspect's pool (a lock keeps the context safe)."""
    import threading

    import anyio

    if not enabled:
        local_gguf.ModelThread.run = _ORIGINAL_RUN
        return
    lock = threading.Lock()

    async def run(self, fn, *args, **kwargs):  # noqa: ANN001
        def call():
            with lock:
                return fn(*args, **kwargs)

        return await anyio.to_thread.run_sync(call)

    local_gguf.ModelThread.run = run


_ORIGINAL_RUN = local_gguf.ModelThread.run


def in_inspect(n: int, max_tokens: int, threads: int, max_samples: int, worker_threads: bool, runtime: str) -> dict:
    use_worker_threads(worker_threads)
    try:
        task = Task(
            dataset=MemoryDataset([Sample(input=text, id=i + 1) for i, text in enumerate(prompts(n))]),
            solver=generate(),
        )
        with tempfile.TemporaryDirectory() as logs:
            [log] = inspect_eval(
                task,
                model="eq_evals/smollm2",
                model_args={"n_threads": threads, "runtime": runtime},
                max_tokens=max_tokens,
                temperature=0.0,
                seed=0,
                max_samples=max_samples,
                log_dir=logs,
                display="none",
            )
            assert log.status == "success", log.error
            events = [e for s in log.samples for e in s.events if isinstance(e, ModelEvent)]
    finally:
        use_worker_threads(False)
    start = min(e.timestamp for e in events)
    end = max(e.completed for e in events)
    tokens = sum(e.output.usage.output_tokens for e in events)
    seconds = (end - start).total_seconds()
    return {
        "tokens": tokens,
        "seconds": round(seconds, 3),
        "tokens_per_second": round(tokens / seconds, 2),
        "samples": len(log.samples),
        "max_samples": max_samples,
    }


def one_arm(args: argparse.Namespace, runtime: str) -> dict:
    """One arm, in this process only (the parent starts a fresh process for each)."""
    if args.arm == "raw":
        return raw(args.samples, args.max_tokens, args.threads, runtime)
    return in_inspect(
        args.samples,
        args.max_tokens,
        args.threads,
        args.max_samples,
        worker_threads=args.arm == "inspect_worker_threads",
        runtime=runtime,
    )


def in_own_process(arm: str, args: argparse.Namespace, runtime: str) -> dict:
    argv = [sys.executable, __file__, "--arm", arm, "--runtime", runtime]
    for key in ("samples", "max_samples", "max_tokens", "threads"):
        argv += [f"--{key.replace('_', '-')}", str(getattr(args, key))]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"arm {arm} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--max-samples", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runtime", default=None, help="xllamacpp or llama_cpp (default: the provider's default)")
    parser.add_argument("--baseline", action="store_true", help="also measure the worker-thread path (before the fix)")
    parser.add_argument("--arm", choices=["raw", "inspect", "inspect_worker_threads"], help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "embedded_throughput.json"))
    args = parser.parse_args()
    runtime = local_gguf.choose_runtime(args.runtime)
    if args.arm:  # a child: one arm, its result as the last line of stdout
        print(json.dumps(one_arm(args, runtime)))
        return
    modes = ["raw", "inspect"] + (["inspect_worker_threads"] if args.baseline else [])
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    loads = []
    before = machine()
    for round_no in range(args.rounds):
        for mode in modes if round_no % 2 == 0 else list(reversed(modes)):
            loads.append(round(os.getloadavg()[0], 2))
            result = in_own_process(mode, args, runtime)
            runs[mode].append(result)
            print(
                f"round {round_no + 1} {mode:24s} {result['tokens_per_second']:7.2f} tok/s (load {loads[-1]})",
                flush=True,
            )
    median = {m: statistics.median(r["tokens_per_second"] for r in rs) for m, rs in runs.items()}
    per_round = [i["tokens_per_second"] / r["tokens_per_second"] for i, r in zip(runs["inspect"], runs["raw"])]
    summary = {
        "tokens_per_second_median": median,
        "ratio_inspect_over_raw": round(median["inspect"] / median["raw"], 3),
        "ratio_per_round": [round(x, 3) for x in per_round],
        "ratio_range": [round(min(per_round), 3), round(max(per_round), 3)],
        "target": ">= 0.9",
    }
    if args.baseline:
        summary["ratio_worker_threads_over_raw"] = round(median["inspect_worker_threads"] / median["raw"], 3)
    record = {
        "benchmark": "embedded_throughput",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": before
        | {
            "load_average_1min_at_each_run": loads,
            "load_average_1_5_15_after": machine()["load_average_1_5_15"],
            "note": "2 cores shared with other jobs, which may have run at the same time; each arm in its own process",
        },
        "config": {
            "model": "eq_evals/smollm2",
            "runtime": runtime,
            "samples": args.samples,
            "max_samples": args.max_samples,
            "max_tokens": args.max_tokens,
            "threads": args.threads,
            "rounds": args.rounds,
            "temperature": 0.0,
            "seed": 0,
            "isolation": "each arm of each round in a fresh process",
        },
        "summary": summary,
        "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
