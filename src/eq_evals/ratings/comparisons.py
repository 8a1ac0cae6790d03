"""Comparison records, verdict aggregation, the Rating record and per-pair win rates.

Pure Python (plus scipy for the binomial test); no Inspect dependency.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "Verdict",
    "Comparison",
    "Rating",
    "PairRecord",
    "aggregate_orders",
    "plus_tally",
    "leaderboard",
    "ranking",
    "win_rates",
    "models_of",
    "check_comparisons",
    "natural_key",
    "canonical_order",
]

_VERDICT_RE = re.compile(r"^\s*([AB])\s*(\+{0,5})\s*$")


@dataclass(frozen=True)
class Verdict:
    """One judge call's overall verdict, in the call's own A/B positions.

    winner: "A", "B" or None when the reply could not be parsed; margin: the number of "+" (0..5).
    """

    winner: str | None
    margin: int = 0

    def __post_init__(self) -> None:
        if self.winner not in ("A", "B", None):
            raise ValueError(f"Verdict.winner must be 'A', 'B' or None, got {self.winner!r}")
        if not isinstance(self.margin, int) or not 0 <= self.margin <= 5:
            raise ValueError(f"Verdict.margin must be an int in 0..5, got {self.margin!r}")

    @classmethod
    def parse(cls, text: str | None) -> Verdict:
        """Parse "A+++" / "B+" / "A" (FACET's overall_winner field); anything else is unparseable."""
        if text is None:
            return cls(None, 0)
        match = _VERDICT_RE.match(str(text))
        if not match:
            return cls(None, 0)
        return cls(match.group(1), len(match.group(2)))

    @property
    def parsed(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True)
class Comparison:
    """One aggregated matchup between model_a and model_b on one prompt instance.

    outcome is from model_a's point of view: 1.0 = A wins, 0.0 = B wins, 0.5 = draw.
    margin is the winner's advantage level 0..5 (0 for a draw). ``item`` identifies the prompt
    instance (the bootstrap cluster). ``plus_a``/``plus_b`` are optional raw "+" tallies for each
    model summed over both position orders (EQ-Bench 3's input); see trueskill_eqbench3.
    """

    model_a: str
    model_b: str
    outcome: float
    margin: int
    item: str
    dimension: str = "overall"
    language: str = "en"
    judge: str = ""
    conflicted: bool = False
    phase: str = ""
    plus_a: int | None = None
    plus_b: int | None = None

    def __post_init__(self) -> None:
        if not self.model_a or not self.model_b:
            raise ValueError(f"Comparison on item {self.item!r}: empty model name")
        if self.model_a == self.model_b:
            raise ValueError(
                f"Comparison on item {self.item!r}: a model cannot be compared with itself ({self.model_a!r})"
            )
        if self.outcome not in (0.0, 0.5, 1.0):
            raise ValueError(
                f"Comparison {self.model_a} vs {self.model_b} on {self.item!r}: outcome must be "
                f"1.0, 0.5 or 0.0, got {self.outcome!r}"
            )
        if not isinstance(self.margin, int) or not 0 <= self.margin <= 5:
            raise ValueError(
                f"Comparison {self.model_a} vs {self.model_b} on {self.item!r}: margin must be an "
                f"int in 0..5, got {self.margin!r}"
            )
        if self.outcome == 0.5 and self.margin != 0:
            raise ValueError(
                f"Comparison {self.model_a} vs {self.model_b} on {self.item!r}: a draw must have "
                f"margin 0, got {self.margin}"
            )

    @property
    def pair(self) -> tuple[str, str]:
        """The sorted model pair."""
        return (self.model_a, self.model_b) if self.model_a < self.model_b else (self.model_b, self.model_a)

    @property
    def winner(self) -> str | None:
        if self.outcome == 1.0:
            return self.model_a
        if self.outcome == 0.0:
            return self.model_b
        return None

    @property
    def loser(self) -> str | None:
        if self.outcome == 1.0:
            return self.model_b
        if self.outcome == 0.0:
            return self.model_a
        return None


@dataclass(frozen=True)
class Rating:
    """A model's rating. lower/upper: a 95% interval (None when not computed); sigma: the
    method's uncertainty (TrueSkill σ, or the bootstrap SD for Bradley-Terry), None if absent.
    n, wins, losses, draws count comparisons (matchups), not pseudo-wins."""

    model: str
    score: float
    lower: float | None
    upper: float | None
    sigma: float | None
    n: int
    wins: int
    losses: int
    draws: int
    component: int = 0
    perm_mean: float | None = None
    perm_sd: float | None = None
    extra: Mapping[str, float] = field(default_factory=dict, compare=False)


def aggregate_orders(first: Verdict, second: Verdict, conflict_policy: str = "draw") -> tuple[float, int, bool] | None:
    """Aggregate two position-swapped verdicts (FACET's procedure, docs/ratings.md, '1. Records and aggregation of the two orders').

    ``first`` is the call with model_a in position A, ``second`` the call with model_b in
    position A. Returns (outcome for model_a, margin, conflicted), or None when the matchup is
    not recorded (either call unparseable, or a disagreement under conflict_policy="discard").
    Agreement: margin = round((m1 + m2) / 2) with Python's round-half-to-even.
    """
    if conflict_policy not in ("draw", "discard"):
        raise ValueError(f"conflict_policy must be 'draw' or 'discard', got {conflict_policy!r}")
    if not first.parsed or not second.parsed:
        return None
    a_wins_first = first.winner == "A"  # model_a was A in the first call
    a_wins_second = second.winner == "B"  # model_a was B in the second call
    if a_wins_first == a_wins_second:
        margin = round((first.margin + second.margin) / 2)
        return (1.0 if a_wins_first else 0.0, int(margin), False)
    if conflict_policy == "discard":
        return None
    return (0.5, 0, True)


def plus_tally(first: Verdict, second: Verdict) -> tuple[int, int] | None:
    """EQ-Bench-3-style "+" tallies (plus_a, plus_b) summed over both orders; None if unparseable."""
    if not first.parsed or not second.parsed:
        return None
    plus_a = (first.margin if first.winner == "A" else 0) + (second.margin if second.winner == "B" else 0)
    plus_b = (first.margin if first.winner == "B" else 0) + (second.margin if second.winner == "A" else 0)
    return plus_a, plus_b


# --------------------------------------------------------------------------- helpers


@functools.lru_cache(maxsize=65536)
def natural_key(text: str) -> tuple:
    """Sort key that orders embedded numbers numerically ("smart_2" < "smart_10"). Cached: a leaderboard
    sorts hundreds of thousands of comparisons over a few thousand distinct item names."""
    return tuple((0, int(tok), "") if tok.isdigit() else (1, 0, tok) for tok in re.split(r"(\d+)", text) if tok)


def canonical_order(comparisons: Sequence[Comparison]) -> list[Comparison]:
    """Deterministic replay order: (language, dimension, phase, item, pair, judge), with
    natural sorting of numbers, then input position for exact duplicates (stable sort)."""
    return sorted(
        comparisons,
        key=lambda c: (
            c.language,
            c.dimension,
            natural_key(c.phase),
            natural_key(c.item),
            c.pair,
            c.judge,
        ),
    )


def models_of(comparisons: Iterable[Comparison], models: Iterable[str] | None = None) -> list[str]:
    found = set(models or ())
    for c in comparisons:
        found.add(c.model_a)
        found.add(c.model_b)
    return sorted(found)


def check_comparisons(
    comparisons: Iterable[Comparison], models: Iterable[str] | None = None, *, what: str = "rating"
) -> tuple[list[Comparison], list[str]]:
    """Validate input and return (list of comparisons, sorted model names).

    Raises ValueError for empty input or fewer than two models.
    """
    comps = list(comparisons)
    for c in comps:
        if not isinstance(c, Comparison):
            raise TypeError(f"{what}: expected Comparison objects, got {type(c).__name__}")
    names = models_of(comps, models)
    if not comps and not names:
        raise ValueError(f"{what}: no comparisons to rate (empty input)")
    if len(names) < 2:
        raise ValueError(
            f"{what}: need at least two models to rate, got {len(names)}: {names} "
            "(a rating is only defined relative to other models)"
        )
    return comps, names


def effective_outcome(c: Comparison) -> float:
    """The outcome the ratings apply: a "win" with margin 0 (the judge gave no "+") counts as a draw, as
    in FACET's TrueSkill (docs/ratings.md, '3. TrueSkill as FACET does it') and the pseudo-win Bradley-Terry."""
    return 0.5 if c.margin == 0 else c.outcome


def tally(comparisons: Iterable[Comparison], models: Iterable[str]) -> dict[str, list[int]]:
    """Per model [n, wins, losses, draws] over matchups (margin-0 wins count as draws)."""
    counts = {m: [0, 0, 0, 0] for m in models}
    for c in comparisons:
        outcome = effective_outcome(c)
        for model, score in ((c.model_a, outcome), (c.model_b, 1.0 - outcome)):
            row = counts[model]
            row[0] += 1
            if score == 1.0:
                row[1] += 1
            elif score == 0.0:
                row[2] += 1
            else:
                row[3] += 1
    return counts


def leaderboard(ratings: Mapping[str, Rating]) -> list[Rating]:
    """Ratings sorted best first (score descending, then model name)."""
    return sorted(ratings.values(), key=lambda r: (-r.score, r.model))


def ranking(ratings: Mapping[str, Rating | float | tuple]) -> list[str]:
    """Model names best first. Accepts Rating objects, plain scores or (mu, sigma) tuples."""

    def score(value) -> float:
        if isinstance(value, Rating):
            return value.score
        if isinstance(value, tuple):
            return float(value[0])
        return float(value)

    return [m for m, _ in sorted(ratings.items(), key=lambda kv: (-score(kv[1]), kv[0]))]


@dataclass(frozen=True)
class PairRecord:
    """Head-to-head record of ``model`` against ``opponent``.

    win_rate excludes draws (None when there were only draws); p_value is a two-sided exact
    binomial test of wins out of wins + losses against 0.5 (None with no decisive games).
    """

    model: str
    opponent: str
    wins: int
    losses: int
    draws: int
    win_rate: float | None
    p_value: float | None


def win_rates(comparisons: Iterable[Comparison]) -> dict[tuple[str, str], PairRecord]:
    """Head-to-head records for every compared pair, keyed by (model, opponent) in both directions."""
    from scipy.stats import binomtest

    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for c in comparisons:
        row = counts[(c.model_a, c.model_b)]
        outcome = effective_outcome(c)
        if outcome == 1.0:
            row[0] += 1
        elif outcome == 0.0:
            row[1] += 1
        else:
            row[2] += 1
    merged: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for (a, b), (w, l, d) in counts.items():
        merged[(a, b)][0] += w
        merged[(a, b)][1] += l
        merged[(a, b)][2] += d
        merged[(b, a)][0] += l
        merged[(b, a)][1] += w
        merged[(b, a)][2] += d
    out: dict[tuple[str, str], PairRecord] = {}
    for (a, b), (w, l, d) in sorted(merged.items()):
        decisive = w + l
        rate = w / decisive if decisive else None
        p = float(binomtest(w, decisive, 0.5, alternative="two-sided").pvalue) if decisive else None
        out[(a, b)] = PairRecord(a, b, w, l, d, rate, p)
    return out
