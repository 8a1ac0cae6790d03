"""Samples cut by a limit are never scores: the one check every eq-evals scorer makes first.

Inspect stops a sample's solvers when it reaches a sample limit (``--time-limit``, ``--working-limit``,
``--token-limit``, ``--message-limit``, ``--cost-limit``, a turn limit) or an operator interrupts it, records
``sample.limit`` in the log and then still runs the scorers on whatever the sample has. What it has is not an
answer: scoring it would read a reply that never came as a wrong answer (0, "no answer found") or as an empty
reply that loses every comparison, in a log that says complete. Inspect does not hand the scorer the limit, but
it records a ``sample_limit`` event in the sample's transcript where the limit fired; ``limit_hit`` reads it.

The rule (docs/ratings.md, "Samples that did not finish"): a sample cut by a limit is unscored
(``Score.unscored``, so Inspect's metrics and epoch reducers skip it), its reason says a limit cut it (``limit``,
or the benchmark's own name for what the limit left, e.g. SAGE's ``interrupted``), its explanation names the limit
("the time limit (1 s) was reached before ..."), and its metadata keeps ``limit`` = {type, limit, message}.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.event import SampleLimitEvent
from inspect_ai.log import transcript
from inspect_ai.scorer import Score

LIMIT_REASON = "limit"  # the reason of an unscored score when a benchmark has no more specific one

# the limits Inspect applies to a whole sample (inspect_ai.util.sample_limits); an event of one of these types
# whose value differs from the sample's own came from a scoped limit inside a solver, which the solver handled
_SAMPLE_LIMITS = ("token", "cost", "message", "turn", "working", "time")
_UNITS = {"time": " s", "working": " s", "cost": " USD"}


@dataclass(frozen=True)
class LimitHit:
    """A limit that stopped the sample: its kind (Inspect's ``SampleLimitEvent.type``), value and message."""

    type: str
    limit: float | None
    message: str

    @property
    def name(self) -> str:
        """``the time limit (1 s)``, ``the token limit (500)``, ``the message limit (6)``, ``an operator
        interrupt``."""
        if self.type == "operator":
            return "an operator interrupt"
        kind = "working time" if self.type == "working" else self.type
        if self.limit is None or self.limit < 0:
            return f"the {kind} limit"
        return f"the {kind} limit ({self.limit:g}{_UNITS.get(self.type, '')})"

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "limit": self.limit, "message": self.message}


def _sample_level(event: SampleLimitEvent) -> bool:
    if event.type not in _SAMPLE_LIMITS:  # operator, custom: always the whole sample
        return True
    try:
        from inspect_ai.util import sample_limits

        applied = getattr(sample_limits(), event.type).limit
    except (RuntimeError, AttributeError):  # no running sample (a scorer called directly): trust the event
        return True
    return (
        applied is None
        and event.limit is None
        or (applied is not None and event.limit is not None and float(applied) == float(event.limit))
    )


def limit_hit() -> LimitHit | None:
    """The limit that stopped the running sample's solvers, or None when none did.

    Read from the sample's transcript: Inspect records a ``sample_limit`` event where a limit fires (the time
    limit when it cancels the solvers, the token, message, cost and turn limits when they are exceeded, a
    working-time limit or an operator interrupt in the task runner). Events of scoped limits that a solver
    applied to part of its work (another value than the sample's limit of that kind) are not the sample's."""
    events = [e for e in transcript().events if isinstance(e, SampleLimitEvent)]
    for event in reversed(events):
        if _sample_level(event):
            return LimitHit(type=event.type, limit=event.limit, message=event.message)
    return None


def limit_score(
    hit: LimitHit,
    *,
    before: str = "an answer",
    reason: str = LIMIT_REASON,
    answer: str | None = None,
    detail: str = "",
    metadata: dict[str, Any] | None = None,
) -> Score:
    """The unscored score of a sample cut by ``hit``: ``reason`` (default ``limit``), an explanation naming the
    limit ("the time limit (1 s) was reached before an answer"), ``detail`` after it, and the limit in the
    metadata under ``limit``."""
    explanation = (
        f"{hit.name} was reached before {before} ({hit.message}); the sample is not scored "
        "(rerun it with a higher limit)"
    )
    if detail:
        explanation += f"\n\n{detail}"
    return Score.unscored(
        reason=reason,
        answer=answer or f"(cut by {hit.name})",
        explanation=explanation,
        metadata={**(metadata or {}), "limit": hit.as_dict()},
    )


def unscored_if_cut(
    *, before: str = "an answer", reason: str = LIMIT_REASON, metadata: dict[str, Any] | None = None
) -> Score | None:
    """``limit_score`` for the running sample when a limit cut it, else None: the first line of every scorer."""
    hit = limit_hit()
    return None if hit is None else limit_score(hit, before=before, reason=reason, metadata=metadata)
