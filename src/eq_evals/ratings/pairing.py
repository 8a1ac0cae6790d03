"""Pairing schedules: round robin, FACET's seed round and smart matching (spec §4.6).

Pure and deterministic: every random choice comes from an explicit seed or random.Random.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .comparisons import Comparison, Rating, ranking

__all__ = [
    "RANDOM_SEED",
    "round_robin",
    "facet_seed_round",
    "pair_priorities",
    "adaptive_pairs",
    "ranking_unchanged",
    "PairingRun",
    "run_facet_pairing",
]

RANDOM_SEED = 42
Pair = tuple[str, str]


def _models(models: Iterable[str]) -> list[str]:
    names = list(models)
    if len(set(names)) != len(names):
        dup = sorted({m for m in names if names.count(m) > 1})
        raise ValueError(f"duplicate model names: {dup}")
    if len(names) < 2:
        raise ValueError(f"pairing needs at least two models, got {len(names)}: {names}")
    return sorted(names)


def round_robin(models: Iterable[str]) -> list[Pair]:
    """All unordered pairs (a, b) with a < b, in sorted order."""
    m = _models(models)
    return [(a, b) for i, a in enumerate(m) for b in m[i + 1 :]]


def facet_seed_round(
    models: Iterable[str], instance_index: int, version: int = 0, seed: int = RANDOM_SEED, opponents: int | None = None
) -> list[Pair]:
    """FACET's cold-start pairs for one prompt instance (spec §4.6 phase 1).

    RNG = random.Random(seed + instance_index + 10000 * version); for each model in sorted order,
    shuffle the other models and take the first k = min(N // 2, N - 1) (or ``opponents``).
    Returns the sorted set of unordered pairs.
    """
    m = _models(models)
    n = len(m)
    k = min(n // 2, n - 1) if opponents is None else min(opponents, n - 1)
    rng = random.Random(seed + instance_index + 10000 * version)
    pairs: set[Pair] = set()
    for model in m:
        others = [x for x in m if x != model]
        rng.shuffle(others)
        for other in others[:k]:
            pairs.add((model, other) if model < other else (other, model))
    return sorted(pairs)


def _mu_sigma(value) -> tuple[float, float]:
    if isinstance(value, Rating):
        if value.sigma is None:
            raise ValueError(f"adaptive pairing needs an uncertainty: rating of {value.model} has sigma=None")
        return value.score, value.sigma
    mu, sigma = value
    return float(mu), float(sigma)


def pair_priorities(ratings: Mapping[str, Rating | tuple[float, float]], pairs: Iterable[Pair] | None = None) -> list[tuple[float, Pair]]:
    """(priority, pair) best first; priority = (sigma_a + sigma_b) / (|mu_a - mu_b| + 1e-6).

    Ties are broken by the pair names, so the order is deterministic.
    """
    ms = {m: _mu_sigma(v) for m, v in ratings.items()}
    pairs = round_robin(ms) if pairs is None else [tuple(sorted(p)) for p in pairs]
    scored = [((ms[a][1] + ms[b][1]) / (abs(ms[a][0] - ms[b][0]) + 1e-6), (a, b)) for a, b in pairs]
    return sorted(scored, key=lambda t: (-t[0], t[1]))


def adaptive_pairs(
    ratings: Mapping[str, Rating | tuple[float, float]],
    compared: set[tuple[str, Pair]],
    items: Sequence[str],
    pairs_per_round: int = 20,
    samples_per_tier: tuple[int, int, int] = (8, 4, 2),
    tier_fractions: tuple[float, float] = (0.1, 0.3),
    rng: random.Random | int | None = None,
    *,
    involving: Iterable[str] | None = None,
) -> list[tuple[str, Pair]]:
    """One round of FACET smart matching (spec §4.6 phase 2, steps 3-4).

    Top ``pairs_per_round`` pairs by priority (pairs already played stay eligible); the pair at
    index i gets samples_per_tier[0] items if i <= floor(f0 n), [1] if i <= floor(f1 n), else [2],
    drawn uniformly without replacement from the items on which the pair was not yet compared
    (``compared`` holds (item, sorted pair)). ``involving`` (adding new models) restricts candidates
    to pairs with at least one of those models, excluding pairs already compared on every item.
    Returns the new (item, pair) matchups; empty means no new matchup can be created.
    """
    if isinstance(rng, random.Random):
        r = rng
    else:
        r = random.Random(RANDOM_SEED if rng is None else rng)
    if len(samples_per_tier) != 3 or len(tier_fractions) != 2:
        raise ValueError("samples_per_tier needs 3 values and tier_fractions 2")
    candidates = round_robin(ratings)
    item_list = list(items)
    done = {(it, tuple(sorted(p))) for it, p in compared}
    if involving is not None:
        new = set(involving)
        candidates = [
            p for p in candidates
            if (p[0] in new or p[1] in new) and any((it, p) not in done for it in item_list)
        ]
    chosen = pair_priorities(ratings, candidates)[:pairs_per_round]
    n = len(chosen)
    t1, t2 = math.floor(tier_fractions[0] * n), math.floor(tier_fractions[1] * n)
    out: list[tuple[str, Pair]] = []
    for i, (_, pair) in enumerate(chosen):
        k = samples_per_tier[0] if i <= t1 else samples_per_tier[1] if i <= t2 else samples_per_tier[2]
        available = [it for it in item_list if (it, pair) not in done]
        for it in r.sample(available, min(k, len(available))):
            out.append((it, pair))
    return out


def ranking_unchanged(previous, current, models: Iterable[str] | None = None) -> bool:
    """Convergence test: the full ranking (by score, name as tie-break) is identical.

    With ``models``, only those models' ranks must be unchanged (FACET's add-new-model rule).
    previous may be None (first round: never converged).
    """
    if previous is None:
        return False
    before, after = ranking(previous), ranking(current)
    if models is None:
        return before == after
    watch = set(models)
    return {m: i for i, m in enumerate(before) if m in watch} == {m: i for i, m in enumerate(after) if m in watch}


@dataclass
class PairingRun:
    comparisons: list[Comparison] = field(default_factory=list)
    rounds: int = 0
    converged: bool = False
    matchups_per_phase: dict[str, int] = field(default_factory=dict)


def run_facet_pairing(
    models: Sequence[str],
    items: Sequence[str],
    judge: Callable[[list[tuple[str, Pair]], str], list[Comparison]],
    rate: Callable[[list[Comparison]], Mapping[str, Rating]],
    *,
    version: int = 0,
    max_smart_rounds: int = 10,
    pairs_per_round: int = 20,
    samples_per_tier: tuple[int, int, int] = (8, 4, 2),
    tier_fractions: tuple[float, float] = (0.1, 0.3),
    seed_opponents: int | None = None,
    seed: int = RANDOM_SEED,
    on_round: Callable[[int, Mapping[str, Rating]], bool] | None = None,
) -> PairingRun:
    """Drive FACET's full schedule with a ``judge(matchups, phase) -> comparisons`` callback.

    Seed round on every item (in order), then up to max_smart_rounds smart rounds, stopping on an
    unchanged ranking or when no new matchup can be made. ``on_round(round, ratings)`` may return
    True to stop early (used by simulations). Judge failures are simply absent from the returned
    comparisons. Deterministic given ``seed``.
    """
    run = PairingRun()
    seed_matchups = [
        (it, p) for idx, it in enumerate(items)
        for p in facet_seed_round(models, idx, version, seed, seed_opponents)
    ]
    run.comparisons.extend(judge(seed_matchups, "seed"))
    run.matchups_per_phase["seed"] = len(seed_matchups)
    compared = {(it, p) for it, p in seed_matchups}
    rng = random.Random(seed)
    previous = None
    for rnd in range(1, max_smart_rounds + 1):
        current = rate(run.comparisons)
        if on_round is not None and on_round(rnd - 1, current):
            return run
        if rnd > 1 and ranking_unchanged(previous, current):
            run.converged = True
            return run
        previous = current
        matchups = adaptive_pairs(current, compared, items, pairs_per_round, samples_per_tier, tier_fractions, rng)
        if not matchups:
            return run
        phase = f"smart_{rnd}"
        run.comparisons.extend(judge(matchups, phase))
        run.matchups_per_phase[phase] = len(matchups)
        compared.update(matchups)
        run.rounds = rnd
    if on_round is not None:
        on_round(max_smart_rounds, rate(run.comparisons))
    return run
