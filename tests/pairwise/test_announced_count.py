"""Active pairing announces what it will do. Inspect prints a sample source's task with the count of its first
batch ("facet_pairwise (3 samples)") and then writes every batch (5 samples): the count is known before the later
batches are chosen from the verdicts. The task's "dataset:" line, printed under that count, names the first batch
and the most the run can judge (engine.build_task, pairwise.matchups). Run through the real `inspect eval`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log


def test_active_pairing_announces_first_batch_and_ceiling(benchmark_logs, tmp_path: Path) -> None:
    inspect = Path(sys.executable).with_name("inspect")
    argv = [str(inspect), "eval", "eq_evals/facet_pairwise", "--model", "none", "--display", "plain"]
    argv += ["--model-role", "grader=eq_evals/scripted-judge", "--log-dir", str(tmp_path)]
    argv += ["-T", f"logs={benchmark_logs.generations_dir}", "-T", "language=en", "-T", "budget=5", "-T", "batch=2"]
    done = subprocess.run(argv, env=dict(os.environ, HF_HUB_OFFLINE="1"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = list_eval_logs(str(tmp_path))
    log = read_eval_log(path)
    first = log.eval.dataset.samples
    out = " ".join(done.stdout.split())  # the header wraps at the terminal's width
    assert f"facet_pairwise ({first} samples)" in out
    announced = f"first batch {first} of at most 5 matchups (active pairing)"
    assert log.eval.dataset.name == announced and f"dataset: first batch {first} of at most 5 matchups" in out
    assert first < len(log.samples) <= 5  # more than the announced first batch, never more than the ceiling
