"""Reading generation logs for pairwise judging and ratings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspect_ai.log import EvalLog

from eq_evals.core.sources import VERSION_KEY
from eq_evals.core.text import final_reply
from eq_evals.errors import EqEvalsError
from eq_evals.logcheck import gate
from eq_evals.logcheck import read as read_log


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
    errors: list[str] = field(default_factory=list)  # first line of each failed sample's error
    state: str = "complete"  # eq_evals.logcheck: "complete" or why the log is partial


def load_generation(path: str, log: EvalLog | None = None) -> Generation:
    from eq_evals.logcheck import check

    log = log if log is not None else read_log(path)
    ids = [str(i) for i in (log.eval.dataset.sample_ids or [])]
    gen = Generation(
        model=log.eval.model, task=log.eval.task, path=path, sample_ids=ids, state=check(log, path).state()
    )
    # the data the generations were made on: the log header's (the engine keeps it there, not in every sample)
    header_versions = (log.eval.metadata or {}).get("datasets") or []
    for sample in log.samples or []:
        key = (str(sample.id), sample.epoch)
        text = final_reply(sample.output.completion) if sample.output else ""
        if sample.error is not None or not text:
            gen.failed.append(key)
            gen.errors.append(
                sample.error.message.strip().splitlines()[0]
                if sample.error is not None and sample.error.message.strip()
                else "empty reply"
            )
            continue
        prompt = sample.input if isinstance(sample.input, str) else sample.input[-1].text
        metadata = dict(sample.metadata or {})
        if header_versions and VERSION_KEY not in metadata:
            metadata[VERSION_KEY] = header_versions
        gen.responses[key] = Response(str(sample.id), sample.epoch, prompt, text, metadata)
    return gen


def load_generations(
    logs: str | list[str],
    tasks: list[str] | None = None,
    allow_partial: bool = False,
    allow_mixed_datasets: bool = False,
) -> list[Generation]:
    """The generation logs of two or more models for one task and one item set, checked. A log that is not
    complete (``eq_evals.logcheck``: cancelled, errored) is skipped with a warning, or kept with
    ``allow_partial`` (its missing responses then simply get no matchups). A model with no usable response at
    all is an error naming its log and the first failure."""
    import logging

    # the gate checks before the first judge call: complete logs, one per retry chain, one data version (or
    # -T allow_mixed_datasets=true), and only logs of the generation tasks this judging task reads
    selection = gate(
        logs,
        tasks=tasks,
        allow_partial=allow_partial,
        allow_mixed=allow_mixed_datasets,
        flag="-T allow_partial=true",
        mixed_flag="-T allow_mixed_datasets=true",
        what="judging",
    )
    for warning in selection.warnings:
        logging.getLogger(__name__).warning(warning)
    gens = [load_generation(info.path, log) for log, info in selection.kept]
    if not gens:
        raise EqEvalsError("no complete generation logs to judge:\n" + "\n".join(selection.warnings))
    empty = [g for g in gens if not g.responses]
    if empty:
        raise EqEvalsError(
            "these generation logs have no usable response, so their model cannot be judged: "
            + "; ".join(
                f"{g.path} ({g.model}: {len(g.failed)} of {len(g.sample_ids)} samples failed"
                + (f", e.g. {g.errors[0]!r}" if g.errors else "")
                + ")"
                for g in empty
            )
        )
    by_task: dict[str, list[str]] = {}
    for g in gens:
        by_task.setdefault(g.task, []).append(g.path)
    if len(by_task) > 1:
        raise EqEvalsError(
            "logs of different tasks cannot be compared: "
            + "; ".join(f"{task}: {', '.join(paths)}" for task, paths in by_task.items())
        )
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
                f"{only_b}. Run every model with the same task arguments (language, limit)."
            )
    if len(gens) < 2:
        raise EqEvalsError(
            f"pairwise judging needs logs of at least two models; got one ({gens[0].model})"
            + "".join("\n" + w for w in selection.warnings)
        )
    return gens
