"""Harness overhead: seconds per sample of a declarative eq-evals FACET task against a bare Inspect task
that does the same generate-and-match, on the scripted model, in one run. Target: at most 1.2x.

The bare task gets the very same rendered prompts (so the model does the same work) and scores with a
minimal exact match of the <answer> block; the eq-evals task adds what the declaration brings (template
rendering per sample, the R1/R2/R3 scorer with normalisation, grouped metrics).

    python benchmarks/harness_overhead.py [--repeats 5] [--language all]

Writes benchmarks/results/harness_overhead.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from inspect_ai import Task, eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr  # noqa: E402
from inspect_ai.solver import TaskState, generate  # noqa: E402

import eq_evals._registry  # noqa: E402,F401
from eq_evals.core.solvers import render  # noqa: E402
from eq_evals.engine import register_all  # noqa: E402
from eq_evals.providers.scripted import correct_answer  # noqa: E402

MODEL = "eq_evals/scripted-oracle"


@scorer(metrics=[accuracy(), stderr()])
def bare_match():
    async def score(state: TaskState, target: Target) -> Score:
        found = re.findall(r"<answer>(.*?)</answer>", state.output.completion, re.DOTALL)
        answer = found[-1].strip() if found else ""
        return Score(value=1.0 if answer == target.text else 0.0, answer=answer)

    return score


def bare_task(language: str) -> Task:
    declared = register_all()["facet_objective"](language=language)
    # target: the exact string the oracle answers, so a plain string comparison is a fair match
    samples = [Sample(id=s.id, input=render("facet/objective.yaml", s.metadata["dimension"], s.metadata, s.input),
                      target=correct_answer(s.metadata)) for s in declared.dataset]
    return Task(dataset=MemoryDataset(samples), solver=[generate()], scorer=bare_match(), name="bare_facet")


def timed(run) -> tuple[float, int]:
    start = time.perf_counter()
    [log] = run()
    elapsed = time.perf_counter() - start
    assert log.status == "success", log.error
    return elapsed, len(log.samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--language", default="all")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as logs:
        def eq_run():
            return inspect_eval("eq_evals/facet_objective", model=MODEL, task_args={"language": args.language},
                                epochs=1, log_dir=logs, display="none")

        def bare_run():
            return inspect_eval(bare_task(args.language), model=MODEL, epochs=1, log_dir=logs, display="none")

        for warm in (eq_run, bare_run):  # warm-up: imports, answer-key index, first log write
            [log] = warm()
            assert log.results.scores[0].metrics["mean" if warm is eq_run else "accuracy"].value == 1.0
        eq_times, bare_times = [], []
        for _ in range(args.repeats):  # interleaved, so drift affects both alike
            t, n = timed(eq_run)
            eq_times.append(t / n)
            t, n_bare = timed(bare_run)
            bare_times.append(t / n_bare)
    eq_s, bare_s = statistics.median(eq_times), statistics.median(bare_times)
    ratio = eq_s / bare_s
    lines = [
        "# Harness overhead: eq-evals FACET task vs a bare Inspect task",
        "",
        f"- date: {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        f"- task: eq_evals/facet_objective, language={args.language}, {n} samples, 1 epoch, model {MODEL}",
        f"- repeats: {args.repeats} (interleaved, after one warm-up run each); median seconds per sample",
        "",
        "| run | s/sample (median) | all runs |",
        "|---|---|---|",
        f"| eq-evals declarative task | {eq_s:.5f} | {', '.join(f'{t:.5f}' for t in eq_times)} |",
        f"| bare Inspect task, same prompts | {bare_s:.5f} | {', '.join(f'{t:.5f}' for t in bare_times)} |",
        "",
        f"**ratio: {ratio:.3f}x** (target: at most 1.2x) -> {'met' if ratio <= 1.2 else 'NOT met'}",
        "",
    ]
    out = Path(__file__).parent / "results" / "harness_overhead.md"
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
