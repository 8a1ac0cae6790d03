"""FACET difficulty report (issue 11): how hard the bundled objective items are, per dimension and language.

Three references, each measured on every bundled item (60 per dimension and language):
- the validator's text-only naive Bayes (``eq_evals.facet.validate``; mean over its seeded random splits), which
  never sees a model;
- the scripted oracle (answers from the answer key: 100% only shows that prompts, parsing and scoring agree);
- the embedded model, SmolLM2-135M-Instruct (``eq_evals/smollm2``), through the real ``inspect eval`` path of each
  dimension's task (``facet_apparent`` ... ``facet_crisis``, ``-T language=all``) with the task's declared generation
  settings (128 tokens, stop at ``</answer>``), temperature 0, one epoch; besides its accuracy, how many replies
  held no parseable answer at all. Its prompts are long (the 62-label list), so on 2 cores it answers about one
  item every 3-6 seconds: ``--per-language N`` runs the first N items of each dimension and language (the files
  alternate English and Chinese lines, so the first 2N samples of a task are N items in each language); 0 runs all.

    python benchmarks/facet_difficulty.py [--per-language N] [--log-dir DIR]

Writes benchmarks/results/facet_difficulty.json; datasets/facet/README.md quotes it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from inspect_ai import eval as inspect_eval  # noqa: E402

from eq_evals.facet.validate import run as validate  # noqa: E402
from eq_evals.resources import resource  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine, now  # noqa: E402

NO_ANSWER = ("(no label found)", "(no answer found)")


def per_group(log) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    """Accuracy (mean score) and the number of replies with no parseable answer, per language:dimension."""
    groups: dict[str, list] = defaultdict(list)
    for sample in log.samples:
        score = sample.scores["facet_objective"]
        groups[f"{sample.metadata['language']}:{sample.metadata['dimension']}"].append(score)
    out = {}
    for key, scores in sorted(groups.items()):
        values = [float(s.value) for s in scores if isinstance(s.value, (int, float))]
        out[key] = {
            "items": len(scores),
            "accuracy": round(sum(values) / len(values), 3) if values else None,
            "unscored": len(scores) - len(values),
            "no_answer": sum(1 for s in scores if s.answer in NO_ANSWER),
        }
    return out


TASKS = {
    "apparent_emotion": "facet_apparent",
    "hidden_emotion": "facet_hidden",
    "emotion_prediction": "facet_prediction",
    "social_adequacy": "facet_social",
    "crisis_recognition": "facet_crisis",
}


def run_model(model: str, log_dir: str, per_language: int, **config) -> tuple[dict, dict]:  # type: ignore[no-untyped-def]
    """Every dimension's task on ``model``; per-group figures and, per task, seconds, output tokens and log name."""
    groups: dict[str, dict] = {}
    runs: dict[str, dict] = {}
    for dimension, task in TASKS.items():
        start = time.perf_counter()
        [log] = inspect_eval(
            f"eq_evals/{task}",
            model=model,
            task_args={"language": "all"},
            epochs=1,
            limit=2 * per_language or None,
            log_dir=log_dir,
            display="none",
            **config,
        )
        if log.status != "success":
            raise SystemExit(f"{model} on {task}: the run did not finish ({log.status}): {log.error}")
        groups.update(per_group(log))
        runs[task] = {
            "seconds": round(time.perf_counter() - start, 1),
            "samples": len(log.samples),
            "output_tokens": sum(u.output_tokens for u in (log.stats.model_usage or {}).values()),
            "log": Path(log.location).name,
        }
    return groups, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--per-language",
        type=int,
        default=20,
        help="first N items of each dimension and language (default 20; 0 = all 60)",
    )
    parser.add_argument("--log-dir", help="keep the Inspect logs here (default: a temporary folder)")
    args = parser.parse_args()
    before = machine()
    report = validate([resource("datasets", "facet")], checks=["shortcuts"])
    text_only = {  # the bag-of-words detector (Social Adequacy: on the options alone)
        key: {k: fig[k] for k in ("accuracy", "accuracy_min", "accuracy_max", "majority", "repeats")}
        for key, group in report.figures["shortcuts"].items()
        for name, fig in group.get("detectors", {}).items()
        if name in ("bow", "options_bow")
    }
    with tempfile.TemporaryDirectory() as tmp:
        log_dir = args.log_dir or tmp
        oracle, oracle_run = run_model("eq_evals/scripted-oracle", log_dir, args.per_language)
        smol, smol_run = run_model("eq_evals/smollm2", log_dir, args.per_language, temperature=0.0)
    result = {
        "benchmark": "facet_difficulty",
        "date": now(),
        "machine": before,
        "load_after": machine()["load_average_1_5_15"],
        "items": "bundled FACET objective items (datasets/facet), every language and dimension",
        "items_per_dimension_and_language": args.per_language or 60,
        "text_only_naive_bayes": text_only,
        "scripted_oracle": {"per_group": oracle, "runs": oracle_run},
        "smollm2": {
            "settings": "eq_evals/smollm2 (SmolLM2-135M-Instruct GGUF), temperature 0, 1 epoch, each task's "
            "config (max_tokens 128, stop </answer>)",
            "per_group": smol,
            "runs": smol_run,
        },
    }
    out = Path(__file__).parent / "results" / "facet_difficulty.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("| dimension | language | text only | majority | oracle | SmolLM2-135M | no answer |")
    for key, fig in smol.items():
        language, dimension = key.split(":")
        t = text_only.get(f"{dimension}:{language}", {})
        print(
            f"| {dimension} | {language} | {t.get('accuracy')} | {t.get('majority')} | {oracle[key]['accuracy']} | "
            f"{fig['accuracy']} | {fig['no_answer']}/{fig['items']} |"
        )
    print(f"written: {out}")


if __name__ == "__main__":
    main()
