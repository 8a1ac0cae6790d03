"""What a benchmark contributes to a profile: the tasks, their arguments, the items each preset keeps, the model
roles they call and an estimate of the calls and tokens of one sample (docs/profile.md, "How the plan is made").

A benchmark declares ``PROFILE = [ProfileTask(...), ...]`` in ``eq_evals/<benchmark>/profile.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from inspect_ai.dataset import Sample

from eq_evals.core.text import approx_tokens

PRESETS = ("quick", "standard", "full")
MODEL = "model"  # the tested model, as a role name in the plan's rows


@dataclass(frozen=True)
class Context:
    """What an estimate may depend on besides the sample."""

    max_tokens: int | None  # the task's output cap for the tested model
    judges: int = 1  # models bound to the judge role
    opponents: int = 0  # earlier logs of the same task the sample is also judged against (HEART)
    options: dict[str, Any] = field(default_factory=dict)

    def reply(self, typical: float) -> float:
        """Output tokens of a tested model's call: ``--output-tokens`` if given, else ``typical``; at most the
        task's max_tokens."""
        return capped(self.options.get("output_tokens") or typical, self.max_tokens)

    def helper(self, typical: float) -> float:
        """Output tokens of a judge's or simulated user's call (their caps are their own)."""
        return self.options.get("output_tokens") or typical


@dataclass(frozen=True)
class Calls:
    """``calls`` model calls of ``role`` for one sample and epoch, each with about ``input_tokens`` in and
    ``output_tokens`` out."""

    role: str
    calls: float
    input_tokens: float
    output_tokens: float


@dataclass(frozen=True)
class Unavailable:
    reason: str
    fix: str


@dataclass(frozen=True)
class ProfileTask:
    """One task of a benchmark's profile.

    ``per_group``: items kept per group of ``group_by`` metadata values for each preset (None: all items), the
    first ones in the dataset's order. ``epochs``: per preset (None: the task's own). ``roles``: the model roles
    the task calls besides the tested model (``judge`` or ``simulated_user``, bound to the role names in
    ``role_names``). ``estimate(sample, context)``: the calls one sample makes per epoch.

    A judging task (``judges``: the generation task whose logs it compares) runs in the second phase, with its
    ``logs`` argument set to the generation logs of every profiled model and of ``--opponents``, and, when it has
    one, its ``reuse`` argument set to the earlier judging logs of ``--opponents``; its estimate is per matchup
    unit of the generation sample (``units(sample)``, e.g. the judged dimensions) and pair of models.
    """

    benchmark: str
    task: str
    args: dict[str, Any] = field(default_factory=dict)
    group_by: tuple[str, ...] = ("language",)
    per_group: dict[str, int | None] = field(default_factory=lambda: {"quick": 2, "standard": 10, "full": None})
    epochs: dict[str, int | None] = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": None})
    roles: tuple[str, ...] = ()
    role_names: dict[str, str] = field(default_factory=dict)  # profile role -> the task's model role name
    estimate: Callable[[Sample, Context], list[Calls]] = lambda sample, ctx: []
    judges: str | None = None
    units: Callable[[Sample], int] = lambda sample: 1
    opponents_arg: str | None = None  # a task argument that takes earlier logs to compare against (HEART)
    available: Callable[[dict[str, Any]], Unavailable | None] = lambda options: None
    label: str = ""  # what the row stands for, e.g. "objective items" (default: the task name)
    args_for: Callable[[dict[str, Any]], dict[str, Any]] = lambda options: {}

    @property
    def key(self) -> str:
        """A name unique within the profile: the task and the arguments that tell its runs apart."""
        distinct = [f"{k}={v}" for k, v in sorted(self.args.items()) if k in ("language",)]
        return self.task + (f"[{','.join(distinct)}]" if distinct else "")


def text_of(sample: Sample) -> str:
    """All the text of a sample's input."""
    if isinstance(sample.input, str):
        return sample.input
    return "\n".join(m.text for m in sample.input)


def tokens(*texts: Any) -> int:
    return sum(approx_tokens(t if isinstance(t, str) else str(t or "")) for t in texts)


def capped(typical: float, cap: int | None) -> float:
    return min(typical, cap) if cap else typical
