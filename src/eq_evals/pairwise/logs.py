"""Reading generation logs for pairwise judging and ratings."""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log

from eq_evals.errors import EqEvalsError


@dataclass
class Response:
    sample_id: str
    epoch: int
    prompt: str
    text: str
    metadata: dict[str, Any]


@dataclass
class Generation:
    """One model's responses in one generation log."""

    model: str
    task: str
    path: str
    sample_ids: list[str]
    responses: dict[tuple[str, int], Response] = field(default_factory=dict)
    failed: list[tuple[str, int]] = field(default_factory=list)


def expand_log_paths(logs: str | list[str]) -> list[str]:
    """A folder (every ``*.eval`` / ``*.json`` log in it), files, globs, or a comma-separated list of those."""
    items = [p.strip() for p in (logs.split(",") if isinstance(logs, str) else logs) if p and p.strip()]
    paths: list[str] = []
    for item in items:
        path = Path(item).expanduser()
        if path.is_dir():
            found = sorted(str(p) for p in path.rglob("*") if p.suffix in (".eval", ".json") and p.is_file())
        else:
            found = sorted(glob.glob(str(path))) if any(c in item for c in "*?[") else [str(path)]
        if not found:
            raise EqEvalsError(f"no Inspect logs found at {item}")
        for p in found:
            if not Path(p).is_file():
                raise EqEvalsError(f"log {p} does not exist")
        paths += found
    if not paths:
        raise EqEvalsError("no logs given")
    return list(dict.fromkeys(paths))


def read_log(path: str) -> EvalLog:
    try:
        return read_eval_log(path)
    except Exception as ex:  # noqa: BLE001 - any unreadable file gets a message naming it
        raise EqEvalsError(f"{path} is not a readable Inspect log: {ex}") from None


def completion_text(text: str) -> str:
    """The final reply only: inner text of a last ``<answer>`` block if present (FACET spec §1.3, A29)."""
    from eq_evals.facet.answers import ANSWER_BLOCK

    blocks = ANSWER_BLOCK.findall(text or "")
    return (blocks[-1] if blocks else text or "").strip()


def load_generation(path: str) -> Generation:
    log = read_log(path)
    ids = [str(i) for i in (log.eval.dataset.sample_ids or [])]
    gen = Generation(model=log.eval.model, task=log.eval.task, path=path, sample_ids=ids)
    for sample in log.samples or []:
        key = (str(sample.id), sample.epoch)
        text = completion_text(sample.output.completion) if sample.output else ""
        if sample.error is not None or not text:
            gen.failed.append(key)
            continue
        prompt = sample.input if isinstance(sample.input, str) else sample.input[-1].text
        gen.responses[key] = Response(str(sample.id), sample.epoch, prompt, text, dict(sample.metadata or {}))
    return gen


def load_generations(logs: str | list[str], tasks: list[str] | None = None) -> list[Generation]:
    """The generation logs of two or more models for one task and one item set, checked."""
    gens = [load_generation(p) for p in expand_log_paths(logs)]
    if tasks:
        wrong = [g for g in gens if g.task.split("/")[-1] not in tasks]
        if wrong:
            raise EqEvalsError("these logs are not generation logs of " + ", ".join(tasks) + ": "
                               + "; ".join(f"{g.path} ({g.task})" for g in wrong))
    by_task: dict[str, list[str]] = {}
    for g in gens:
        by_task.setdefault(g.task, []).append(g.path)
    if len(by_task) > 1:
        raise EqEvalsError("logs of different tasks cannot be compared: "
                           + "; ".join(f"{task}: {', '.join(paths)}" for task, paths in by_task.items()))
    models: dict[str, str] = {}
    for g in gens:
        if g.model in models:
            raise EqEvalsError(f"model {g.model} appears in two logs: {models[g.model]} and {g.path}")
        models[g.model] = g.path
    reference = gens[0]
    for g in gens[1:]:
        if set(g.sample_ids) != set(reference.sample_ids):
            only_a = sorted(set(reference.sample_ids) - set(g.sample_ids))[:5]
            only_b = sorted(set(g.sample_ids) - set(reference.sample_ids))[:5]
            raise EqEvalsError(
                f"logs cover different item sets: {reference.path} ({len(reference.sample_ids)} items) and "
                f"{g.path} ({len(g.sample_ids)} items); e.g. only in the first: {only_a}, only in the second: "
                f"{only_b}. Run every model with the same task arguments (language, limit).")
    if len(gens) < 2:
        raise EqEvalsError(f"pairwise judging needs logs of at least two models; got one ({gens[0].model})")
    return gens
