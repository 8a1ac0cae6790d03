"""The plan of a profile, made before any model call: which tasks run on which items, with which model roles, and
the calls, tokens and cost they are expected to take (docs/profile.md, "The plan").

Calls and input tokens come from the items themselves (their text, counted with ``core.text.approx_tokens``) and
each benchmark's estimate of one sample (``eq_evals.<benchmark>.profile``); output tokens from a typical reply
length per call, never above the task's ``max_tokens``. Cost is given where Inspect knows the model's price
(``--model-cost-config``, or Inspect's model database); otherwise it is None and the plan says so.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import Task, task_with
from inspect_ai.dataset import MemoryDataset, Sample

from eq_evals.core.text import markdown_table
from eq_evals.errors import EqEvalsError
from eq_evals.profile.spec import MODEL, PRESETS, Context, ProfileTask, Unavailable

ROLE_OPTIONS = {"judge": "--judge", "simulated_user": "--simulated-user"}
ROLE_NAMES = {"judge": "grader"}  # the profile's judge is bound to the tasks' grader role


def discover() -> list[ProfileTask]:
    """Every benchmark's profile tasks (``PROFILE`` in ``eq_evals/<benchmark>/profile.py``), found, not listed."""
    from eq_evals.components import package_modules

    tasks = [t for module in package_modules("profile").values() for t in getattr(module, "PROFILE", [])]
    keys = [t.key for t in tasks]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"profile tasks declared twice: {twice}")
    return tasks


def benchmarks(tasks: list[ProfileTask] | None = None) -> list[str]:
    return list(dict.fromkeys(t.benchmark for t in (tasks if tasks is not None else discover())))


def build_task(spec: ProfileTask, options: dict[str, Any], **extra: Any) -> Task:
    """The registered task with the profile's arguments (as ``inspect eval eq_evals/TASK -T ...`` builds it)."""
    from inspect_ai._util.registry import registry_lookup

    import eq_evals._registry  # noqa: F401  (registers the tasks)

    factory = registry_lookup("task", f"eq_evals/{spec.task}")
    return factory(**{**spec.args, **spec.args_for(options), **extra})


def select(samples: list[Sample], spec: ProfileTask, preset: str) -> list[Sample]:
    """The first ``per_group[preset]`` samples of each group (None: all), in the dataset's order."""
    keep = spec.per_group.get(preset)
    if keep is None:
        return list(samples)
    seen: dict[tuple, int] = defaultdict(int)
    out = []
    for sample in samples:
        group = tuple(str((sample.metadata or {}).get(k)) for k in spec.group_by)
        if seen[group] < keep:
            seen[group] += 1
            out.append(sample)
    return out


def subset(task: Task, spec: ProfileTask, preset: str) -> Task:
    samples = select(list(task.dataset), spec, preset)
    epochs = spec.epochs.get(preset)
    changes: dict[str, Any] = {"dataset": MemoryDataset(samples, name=task.dataset.name)}
    if epochs is not None:
        changes["epochs"] = epochs
    return task_with(task, **changes)


def model_price(model: str) -> Any | None:
    """Inspect's price of a model (per million tokens), or None when Inspect does not know it."""
    from inspect_ai.model._model_info import _get_model_info_direct

    try:
        info = _get_model_info_direct(model)
    except Exception:  # an unknown provider: no price
        return None
    return getattr(info, "cost", None) if info else None


def load_cost_config(path: str | None) -> None:
    """Register the prices of ``--model-cost-config`` with Inspect (its own file format) so the plan sees them."""
    if not path:
        return
    import yaml
    from inspect_ai.model._model_data.model_data import ModelCost
    from inspect_ai.model._model_info import ModelInfo, set_model_info

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as ex:
        raise EqEvalsError(f"--model-cost-config {path}: {ex}") from None
    for name, cost in data.items():
        try:
            set_model_info(name, ModelInfo(cost=ModelCost(**cost)))
        except Exception as ex:
            raise EqEvalsError(f"--model-cost-config {path}: model {name}: {ex}") from None


@dataclass
class Planned:
    """A task of the first phase (generation, pointwise judging, dialogues) or the second (pairwise judging)."""

    spec: ProfileTask
    task: Task | None  # None for a judging task: built from the generation logs after the first phase
    samples: int
    epochs: int


@dataclass
class Plan:
    models: list[str]
    judge: str | None
    simulated_user: str | None
    preset: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    generate: list[Planned] = field(default_factory=list)
    judge_tasks: list[Planned] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    selection: dict[str, Any] = field(default_factory=dict)  # preset and items, for continuing in the same folder

    def as_dict(self) -> dict[str, Any]:
        """The plan as plan.json and the report card read it: ``rows`` per benchmark, task, role and model, as the
        logs' model events count them (a judge's calls for every profiled model together); ``rows_by_model`` as
        printed, per task variant (e.g. HEART's languages) and profiled model."""
        return {
            "models": self.models,
            "judge": self.judge,
            "simulated_user": self.simulated_user,
            "preset": self.preset,
            "rows": aggregate(self.rows),
            "rows_by_model": self.rows,
            "skipped": self.skipped,
            "notes": self.notes,
        }


def aggregate(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows summed per benchmark, task (without its variant), role and model."""
    out: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        key = (r["benchmark"], r["task"].split("[")[0], r["role"], r["model"])
        row = out.setdefault(
            key,
            {
                "benchmark": key[0],
                "task": key[1],
                "role": key[2],
                "model": key[3],
                "samples": 0,
                "calls": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": 0.0,
            },
        )
        for name in ("samples", "calls", "input_tokens", "output_tokens"):
            row[name] += r[name]
        row["cost_usd"] = None if row["cost_usd"] is None or r["cost_usd"] is None else row["cost_usd"] + r["cost_usd"]
    return list(out.values())


def _role_model(role: str, plan: Plan, model: str) -> str:
    return {MODEL: model, "judge": plan.judge, "simulated_user": plan.simulated_user}.get(role) or role


def _add_rows(plan: Plan, spec: ProfileTask, model: str, per_role: dict[str, list[float]]) -> None:
    for role, (calls, tin, tout) in per_role.items():
        who = _role_model(role, plan, model)
        price = model_price(who)
        cost = None if price is None else (tin * price.input + tout * price.output) / 1e6
        plan.rows.append(
            {
                "benchmark": spec.benchmark,
                "task": spec.key,
                # the role as the task names it (its logs' model roles): the judge is every task's grader
                "role": spec.role_names.get(role, ROLE_NAMES.get(role, role)),
                "model": who,
                "for_model": model,
                "samples": per_role_samples(spec, plan, role),
                "calls": round(calls),
                "input_tokens": round(tin),
                "output_tokens": round(tout),
                "cost_usd": cost,
            }
        )


def per_role_samples(spec: ProfileTask, plan: Plan, role: str) -> int:
    planned = next((p for p in plan.generate + plan.judge_tasks if p.spec is spec), None)
    return planned.samples if planned else 0


def _estimate(samples: list[Sample], epochs: int, spec: ProfileTask, ctx: Context, pairs: int = 1) -> dict:
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for sample in samples:
        weight = epochs * pairs * (spec.units(sample) if spec.judges else 1)
        for c in spec.estimate(sample, ctx):
            t = totals[c.role]
            t[0] += c.calls * weight
            t[1] += c.calls * c.input_tokens * weight
            t[2] += c.calls * c.output_tokens * weight
    return dict(totals)


def make_plan(
    models: list[str],
    judge: str | None,
    simulated_user: str | None,
    preset: str,
    selected: list[str] | None,
    options: dict[str, Any],
    opponents: dict[str, list[str]] | None = None,
) -> Plan:
    """The plan: tasks with their items, the rows of expected calls and tokens, and what cannot run and why.

    ``opponents``: task key -> earlier logs of other models (``--opponents``), which the judging tasks compare
    the profiled models with (their verdicts are reused) and HEART judges against."""
    if preset not in PRESETS:
        raise EqEvalsError(f"--preset {preset}: expected one of {', '.join(PRESETS)}")
    opponents = opponents or {}
    specs = discover()
    known = benchmarks(specs)
    if selected:
        unknown = [b for b in selected if b not in known]
        if unknown:
            raise EqEvalsError(f"--benchmarks: unknown {', '.join(unknown)}; known: {', '.join(known)}")
        specs = [s for s in specs if s.benchmark in selected]
    plan = Plan(list(models), judge, simulated_user, preset)
    bound = {"judge": judge, "simulated_user": simulated_user}
    generated: dict[str, list[Sample]] = {}
    for spec in specs:
        missing = [r for r in spec.roles if not bound.get(r)]
        why = spec.available(options)
        if missing:
            why = Unavailable(
                f"{spec.task} needs a {' and a '.join(r.replace('_', ' ') for r in missing)}",
                " ".join(f"{ROLE_OPTIONS[r]} MODEL" for r in missing),
            )
        if why is None and spec.judges:
            earlier = {m for m in opponents.get(f"{spec.judges}:models", [])}
            total = len(set(models) | earlier)
            if spec.judges not in generated:
                why = Unavailable(f"{spec.task} compares {spec.judges} replies, which this profile does not make", "")
            elif total < 2:
                why = Unavailable(
                    f"{spec.task} compares two or more models; this profile has one and no earlier logs",
                    "add another --model, or --opponents LOGS with an earlier profile of other models",
                )
        if why is not None:
            same = [s for s in plan.skipped if s["benchmark"] == spec.benchmark and s["reason"] == why.reason]
            if same:  # one entry per benchmark and reason, naming its tasks
                same[0]["task"] += f", {spec.key}"
            else:
                plan.skipped.append(
                    {"benchmark": spec.benchmark, "task": spec.key, "reason": why.reason, "fix": why.fix}
                )
            continue
        if spec.judges:
            samples = generated[spec.judges]
            earlier = set(opponents.get(f"{spec.judges}:models", [])) - set(models)
            n = len(set(models) | earlier)
            new_pairs = math.comb(n, 2) - math.comb(len(earlier), 2)  # pairs of earlier models: verdicts reused
            planned = Planned(spec, None, sum(spec.units(s) for s in samples) * new_pairs, 1)
            plan.judge_tasks.append(planned)
            ctx = Context(max_tokens=None, judges=1, options=options)
            _add_rows(plan, spec, "all", _estimate(samples, 1, spec, ctx, new_pairs))
            continue
        try:
            task = subset(build_task(spec, options), spec, preset)
        except EqEvalsError as ex:
            plan.skipped.append({"benchmark": spec.benchmark, "task": spec.key, "reason": str(ex), "fix": ""})
            continue
        samples = list(task.dataset)
        epochs = task.epochs or 1
        generated[spec.key] = samples
        plan.generate.append(Planned(spec, task, len(samples), epochs))
        ctx = Context(
            max_tokens=options.get("max_tokens") or task.config.max_tokens,
            judges=1,
            opponents=len(opponents.get(spec.key, [])),
            options=options,
        )
        totals = _estimate(samples, epochs, spec, ctx)
        for model in models:
            _add_rows(plan, spec, model, totals)
    unpriced = sorted({r["model"] for r in plan.rows if r["cost_usd"] is None})
    if unpriced:
        plan.notes.append(
            "Inspect does not know the price of "
            + ", ".join(unpriced)
            + ": no cost for their rows (give prices with --model-cost-config FILE, Inspect's format)"
        )
    return plan


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    costs = [r["cost_usd"] for r in rows]
    return {
        "calls": sum(r["calls"] for r in rows),
        "input_tokens": sum(r["input_tokens"] for r in rows),
        "output_tokens": sum(r["output_tokens"] for r in rows),
        "cost_usd": None if any(c is None for c in costs) else sum(costs),
        "cost_known_usd": sum(c for c in costs if c is not None),
    }


def render(plan: Plan) -> str:
    """The plan as Markdown: one row per benchmark, task, model role and model."""
    header = ["benchmark", "task", "role", "model", "samples", "calls", "input tokens", "output tokens", "cost (USD)"]
    rows = [
        [
            r["benchmark"],
            r["task"],
            r["role"] if r["role"] == MODEL or r["for_model"] == "all" else f"{r['role']} (for {r['for_model']})",
            r["model"],
            str(r["samples"]),
            f"{r['calls']:,}",
            f"{r['input_tokens']:,}",
            f"{r['output_tokens']:,}",
            "price unknown" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}",
        ]
        for r in plan.rows
    ]
    t = totals(plan.rows)
    priced = [r for r in plan.rows if r["cost_usd"] is not None]
    cost = (
        f"{t['cost_usd']:.4f}"
        if t["cost_usd"] is not None
        else f"at least {t['cost_known_usd']:.4f} (some prices unknown)"
        if priced
        else "prices unknown"
    )
    rows.append(
        ["**total**", "", "", "", "", f"{t['calls']:,}", f"{t['input_tokens']:,}", f"{t['output_tokens']:,}", cost]
    )
    lines = [
        f"# Profile plan ({plan.preset} preset)",
        "",
        f"Models: {', '.join(plan.models)}; judge (role grader): {plan.judge or 'none'}; simulated user (role "
        f"simulated_user): {plan.simulated_user or 'none'}.",
        "",
        markdown_table(header, rows),
    ]
    if plan.skipped:
        lines += ["", "## Not run", ""]
        for s in plan.skipped:
            fix = f" To run it: {s['fix']}." if s["fix"] else ""
            lines.append(f"- {s['benchmark']} ({s['task']}): {s['reason']}.{fix}")
    if plan.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in plan.notes]
    lines += [
        "",
        "Estimates: calls and input tokens from the items (about 4 characters or one CJK character a token); "
        "output tokens from a typical reply per call, capped by each task's max_tokens (docs/profile.md).",
    ]
    return "\n".join(lines) + "\n"
