"""The one typed record of a pairwise judgement, written by every pairwise scorer and read back by one reader.

Every pairwise scorer (FACET interaction's ``pairwise_judge``, PACE battles' ``pace_battle``, HEART's
``heart_pairwise``) writes its verdicts into the score's metadata under ``verdicts``: a list of
:class:`PairVerdict` (one per matchup the sample judged; HEART judges one reply against several opponents, so
several). :func:`sample_verdicts` and :func:`log_verdicts` read them back, validated, for ratings, agreement,
active pairing, the judge checks and every benchmark leaderboard (docs/architecture.md, "How a verdict
travels"). A record that does not validate is an error naming the log and sample, never a silent skip.

A :class:`JudgeCall` is one call of one judge, with the two contestants in the order they were shown; a
:class:`Judgment` is one judge's combined verdict on one criterion of the matchup (both orders aggregated as
FACET §4 prescribes: the same winner keeps the rounded mean margin, different winners are a position-conflicted
draw). :meth:`PairVerdict.comparisons` turns the recorded judgments into rating inputs.
"""

from __future__ import annotations

from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eq_evals.errors import EqEvalsError
from eq_evals.ratings import Comparison, Verdict, aggregate_orders, plus_tally

KEY = "verdicts"


class JudgeCall(BaseModel):
    """One judge call: who judged, which criterion, the contestants in the order shown, what it said."""

    model_config = ConfigDict(extra="forbid")

    judge: str
    criterion: str
    order: list[str]  # [contestant shown first ("A"), contestant shown second ("B")]
    verdict: str | None = None  # the verdict as written, e.g. "B+++"; None when unreadable after every attempt
    winner: str | None = None  # the contestant the verdict favours; None when unreadable
    margin: int = 0  # the verdict's strength (number of "+", 0..5)
    attempts: int = 1
    reasoning: str = ""
    key: str = ""  # what makes an earlier verdict reusable (FACET's call key)
    reused_from: str | None = None  # the earlier judging log the verdict was taken from (no call made)
    error: str | None = None  # why there is no verdict (e.g. "parse", "empty_response")
    self_judged: bool = False  # the judge shares a family with a contestant
    prompt_hash: str | None = None

    def position_verdict(self) -> Verdict:
        """The verdict in the call's own A/B positions."""
        if self.winner is None:
            return Verdict(None, 0)
        return Verdict("A" if self.winner == self.order[0] else "B", int(self.margin))


class Judgment(BaseModel):
    """One judge's combined verdict on one criterion of the matchup (both orders aggregated)."""

    model_config = ConfigDict(extra="forbid")

    judge: str
    criterion: str
    outcome: float | None = None  # for model_a: 1 win, 0 loss, 0.5 draw; None = not recorded (see reason)
    margin: int = 0
    conflicted: bool = False  # the two orders disagreed (a position-inconsistent draw)
    plus_a: int | None = None  # raw "+" tallies over both orders (EQ-Bench 3's input)
    plus_b: int | None = None
    reason: str = ""  # why no outcome: unparseable reply, verdicts discarded


class PairVerdict(BaseModel):
    """Everything judged about one matchup: two contestants' replies to one item."""

    model_config = ConfigDict(extra="forbid")

    model_a: str
    model_b: str
    item: str  # the resampling unit (prompt instance, conversation cluster)
    sample: str = ""  # the judged sample's id
    language: str = "en"
    subset: str = ""  # the item's subset where a set has several (e.g. regular / adversarial)
    phase: str = ""
    epoch: int | None = None
    rubric: str = ""
    lengths: dict[str, int] = Field(default_factory=dict)  # contestant -> reply length (words or characters)
    calls: list[JudgeCall] = Field(default_factory=list)
    judgments: list[Judgment] = Field(default_factory=list)

    def comparisons(self) -> list[Comparison]:
        """One Comparison per recorded judgment (dimension = the judged criterion)."""
        return [
            Comparison(
                model_a=self.model_a,
                model_b=self.model_b,
                outcome=j.outcome,
                margin=j.margin,
                item=self.item,
                dimension=j.criterion,
                language=self.language,
                judge=j.judge,
                conflicted=j.conflicted,
                phase=self.phase,
                plus_a=j.plus_a,
                plus_b=j.plus_b,
            )
            for j in self.judgments
            if j.outcome is not None
        ]

    def longer(self) -> str | None:
        """The contestant with the longer reply, or None when equal or unknown."""
        a, b = self.lengths.get(self.model_a), self.lengths.get(self.model_b)
        if a is None or b is None or a == b:
            return None
        return self.model_a if a > b else self.model_b


def combine(calls: list[JudgeCall], model_a: str, conflict_policy: str = "draw") -> Judgment:
    """One judge's calls on one criterion as a Judgment for ``model_a``: both orders aggregated (FACET §4), or a
    single order taken as it is; an unreadable call leaves the judgment without an outcome."""
    judge, criterion = calls[0].judge, calls[0].criterion
    if any(c.winner is None for c in calls):
        return Judgment(judge=judge, criterion=criterion, reason="judge_unparseable")
    first = [c for c in calls if c.order[0] == model_a]
    second = [c for c in calls if c.order[0] != model_a]
    if first and second:
        v1, v2 = first[0].position_verdict(), second[0].position_verdict()
        result = aggregate_orders(v1, v2, conflict_policy)
        if result is None:
            return Judgment(judge=judge, criterion=criterion, reason="verdicts_discarded")
        tally = plus_tally(v1, v2)
        return Judgment(
            judge=judge,
            criterion=criterion,
            outcome=result[0],
            margin=result[1],
            conflicted=result[2],
            plus_a=tally[0] if tally else None,
            plus_b=tally[1] if tally else None,
        )
    call = calls[0]
    return Judgment(
        judge=judge, criterion=criterion, outcome=1.0 if call.winner == model_a else 0.0, margin=int(call.margin)
    )


def dump(verdicts: Iterable[PairVerdict]) -> list[dict[str, Any]]:
    return [v.model_dump() for v in verdicts]


def sample_verdicts(sample: Any, where: str = "") -> list[PairVerdict]:
    """The verdict records of one sample (every score that carries them), validated; an invalid record is an
    error naming the log and the sample."""
    out: list[PairVerdict] = []
    for name, score in (getattr(sample, "scores", None) or {}).items():
        records = (score.metadata or {}).get(KEY) if score is not None else None
        if not records:
            continue
        for record in records:
            try:
                out.append(PairVerdict.model_validate(record))
            except ValidationError as ex:
                raise EqEvalsError(
                    f"{where or 'a log'}, sample {sample.id}: the {name} verdict record is not "
                    f"readable ({ex.errors()[0]['loc']}: {ex.errors()[0]['msg']})"
                ) from None
    return out


def log_verdicts(log: Any, where: str = "") -> list[tuple[Any, PairVerdict]]:
    """(sample, verdict) for every verdict record of a log read with its samples."""
    where = where or str(getattr(log, "location", "") or "")
    return [(s, v) for s in log.samples or [] for v in sample_verdicts(s, where)]


def has_verdicts(log: Any) -> bool:
    return any(
        score is not None and KEY in (score.metadata or {})
        for s in log.samples or []
        for score in (s.scores or {}).values()
    )
