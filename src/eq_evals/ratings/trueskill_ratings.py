"""Sequential TrueSkill ratings: FACET's procedure (docs/ratings.md, '3. TrueSkill as FACET does it') and EQ-Bench 3's (docs/ratings.md, '4. TrueSkill as EQ-Bench 3 does it').

Both follow the ``trueskill`` package (0.4.5)'s non-deprecated module-level
``trueskill.rate_1vs1(r1, r2, drawn=..., env=env)`` and always recompute from scratch. By default
the updates run through ``trueskill_exact.make_rate_1vs1``, which returns the package's bits ~20x
faster; ``engine="package"`` calls the package itself (the reference the tests compare with).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import trueskill

from .comparisons import Comparison, Rating, canonical_order, check_comparisons, ranking, tally
from .trueskill_exact import make_rate_1vs1, rating_state, state_mu_sigma

__all__ = [
    "FACET_ENV",
    "facet_env",
    "facet_updates",
    "trueskill_facet",
    "eqbench3_fraction",
    "eqbench3_bin",
    "eqbench3_pseudo_wins",
    "trueskill_eqbench3",
    "EQBENCH3_ANCHORS",
    "win_probability",
]

MAX_WIN_MARGIN = 5
Z95 = 1.96


def facet_env() -> trueskill.TrueSkill:
    """FACET's environment: mu 1000, sigma 1000/3, beta sigma/2, tau 0, draw_probability 0."""
    sigma = 1000.0 / 3.0
    return trueskill.TrueSkill(mu=1000.0, sigma=sigma, beta=sigma / 2.0, tau=0.0, draw_probability=0.0)


FACET_ENV = facet_env()


def win_probability(a: trueskill.Rating, b: trueskill.Rating, env: trueskill.TrueSkill) -> float:
    """P(a beats b) = Phi((mu_a - mu_b) / sqrt(2 beta^2 + sigma_a^2 + sigma_b^2))."""
    denom = math.sqrt(2 * env.beta**2 + a.sigma**2 + b.sigma**2)
    return 0.5 * (1.0 + math.erf((a.mu - b.mu) / denom / math.sqrt(2.0)))


def facet_updates(c: Comparison) -> tuple[str, str, int, bool]:
    """(first, second, repeats, drawn) for one comparison under FACET's mapping.

    Conflicts/draws and wins with margin 0 are one drawn update; a win with margin m is
    min(m, 5) wins in a row for the winner (``first``).
    """
    if c.outcome == 0.5 or c.margin == 0:
        return c.model_a, c.model_b, 1, True
    m = min(c.margin, MAX_WIN_MARGIN)
    return c.winner, c.loser, m, False


ENGINES = ("exact", "package")


class _Final:
    """mu and sigma of a replayed rating, as the package's ``Rating`` properties give them."""

    __slots__ = ("mu", "sigma")

    def __init__(self, mu: float, sigma: float) -> None:
        self.mu, self.sigma = mu, sigma


def _replay(
    ordered: Sequence[Comparison],
    names: Sequence[str],
    env: trueskill.TrueSkill,
    plan,
    engine: str = "exact",
) -> dict[str, trueskill.Rating]:
    """Apply the comparisons from scratch; ``plan(c)`` gives the update steps of one comparison, each
    (first, second, repeats, drawn): ``repeats`` 1-v-1 updates with ``first`` as the winner (or a draw).

    engine="exact" replays (pi, tau) states through ``make_rate_1vs1`` (identical bits, much faster);
    engine="package" calls ``trueskill.rate_1vs1`` for every update."""
    if engine == "package":
        ratings = {m: env.create_rating() for m in names}
        for c in ordered:
            for first, second, repeats, drawn in plan(c):
                r1, r2 = ratings[first], ratings[second]
                for _ in range(repeats):
                    r1, r2 = trueskill.rate_1vs1(r1, r2, drawn=drawn, env=env)
                ratings[first], ratings[second] = r1, r2
        return ratings
    if engine != "exact":
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    rate = make_rate_1vs1(env)
    index = {m: i for i, m in enumerate(names)}
    p0, t0 = rating_state(env.mu, env.sigma)
    pis, taus = [p0] * len(names), [t0] * len(names)
    for c in ordered:
        for first, second, repeats, drawn in plan(c):
            i, j = index[first], index[second]
            pis[i], taus[i], pis[j], taus[j] = rate(pis[i], taus[i], pis[j], taus[j], drawn, repeats)
    return {m: _Final(*state_mu_sigma(pis[i], taus[i])) for m, i in index.items()}


def _facet_plan(c: Comparison) -> list[tuple[str, str, int, bool]]:
    return [facet_updates(c)]


def _order(comps: list[Comparison], order: str) -> list[Comparison]:
    if order == "sorted":
        return canonical_order(comps)
    if order == "given":
        return list(comps)
    raise ValueError(f"order must be 'sorted' or 'given', got {order!r}")


def _permutation_stats(
    comps, names, env, plan, k: int, seed: int, engine: str = "exact"
) -> dict[str, tuple[float, float]]:
    if k < 2:
        raise ValueError(f"order_permutations must be >= 2 to give an SD, got {k}")
    rng = random.Random(seed)
    mus = {m: [] for m in names}
    for _ in range(k):
        shuffled = list(comps)
        rng.shuffle(shuffled)
        res = _replay(shuffled, names, env, plan, engine)
        for m in names:
            mus[m].append(res[m].mu)
    return {m: (float(np.mean(v)), float(np.std(v, ddof=1))) for m, v in mus.items()}


def _build(names, comps, final, perm, lower_upper=None) -> dict[str, Rating]:
    counts = tally(comps, names)
    out = {}
    for m in names:
        r = final[m]
        n, w, lo, d = counts[m]
        low, up = lower_upper[m] if lower_upper else (r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma)
        out[m] = Rating(
            model=m,
            score=float(r.mu),
            lower=float(low),
            upper=float(up),
            sigma=float(r.sigma),
            n=n,
            wins=w,
            losses=lo,
            draws=d,
            perm_mean=perm[m][0] if perm else None,
            perm_sd=perm[m][1] if perm else None,
        )
    return out


def trueskill_facet(
    comparisons: Iterable[Comparison],
    *,
    models: Iterable[str] | None = None,
    order: str = "sorted",
    order_permutations: int = 0,
    seed: int = 0,
    env: trueskill.TrueSkill | None = None,
    engine: str = "exact",
) -> dict[str, Rating]:
    """FACET's TrueSkill with margin pseudo-wins (docs/ratings.md, '3. TrueSkill as FACET does it'), recomputed from scratch.

    score = mu (the paper's "Elo"); sigma = TrueSkill sigma; lower/upper = mu -/+ 1.96 sigma (a
    posterior interval that pseudo-replication makes overconfident, not a bootstrap CI).
    order="sorted" replays in (language, dimension, phase, item, pair) order; "given" keeps the
    input order. order_permutations=K adds perm_mean/perm_sd: the mean and SD of mu over K random
    orders seeded by ``seed``. ``models`` lists models to include even without comparisons.
    engine="package" replays through ``trueskill.rate_1vs1`` itself (same results, ~20x slower).
    """
    comps, names = check_comparisons(comparisons, models, what="trueskill_facet")
    env = env or facet_env()
    final = _replay(_order(comps, order), names, env, _facet_plan, engine)
    perm = (
        _permutation_stats(comps, names, env, _facet_plan, order_permutations, seed, engine)
        if order_permutations
        else None
    )
    return _build(names, comps, final, perm)


# --------------------------------------------------------------------------- EQ-Bench 3

EQBENCH3_ANCHORS: Mapping[str, float] = {"o3": 1500.0, "meta-llama/llama-3.2-1b-instruct": 200.0}


def eqbench3_env() -> trueskill.TrueSkill:
    """EQ-Bench 3's environment: mu 1200, sigma 350/3, beta 350/6, tau 0, draw_probability 0."""
    return trueskill.TrueSkill(mu=1200.0, sigma=350 / 3, beta=350 / 6, tau=0.0, draw_probability=0.0)


def eqbench3_fraction(plus_first: int, plus_second: int, max_possible_diff: float = 30) -> float:
    """EQ-Bench 3's fraction for the first model from the two "+" tallies (identity blend).

    d = |P1 - P2|, d_norm = min(d / max_possible_diff, 1), margin = d_norm / 2 + 0.5; the
    fraction is margin for a win, 1 - margin for a loss and 0.5 for equal tallies. Floating-point
    operations follow the reference order, because the binning below is sensitive to them.
    """
    if plus_first == plus_second:
        return 0.5
    d_norm = min(abs(plus_first - plus_second) / max_possible_diff if max_possible_diff > 0 else 0.0, 1.0)
    margin = d_norm / 2.0 + 0.5
    frac = margin if plus_first > plus_second else 1.0 - margin
    return max(0.0, min(1.0, frac))


def eqbench3_bin(frac: float, bin_size: int = 20) -> tuple[int, int]:
    """Fraction -> (wins for the first model, wins for the second); (1, 1) means one draw."""
    frac = max(0.0, min(1.0, frac))
    step = 0.5 / bin_size
    if abs(frac - 0.5) < 1e-9:
        return 1, 1
    if frac > 0.5:
        return max(1, min(bin_size, math.ceil((frac - 0.5) / step))), 0
    return 0, max(1, min(bin_size, math.ceil((0.5 - frac) / step)))


def eqbench3_pseudo_wins(
    plus_first: int, plus_second: int, bin_size: int = 20, max_possible_diff: float = 30
) -> tuple[int, int]:
    return eqbench3_bin(eqbench3_fraction(plus_first, plus_second, max_possible_diff), bin_size)


def _tallies(c: Comparison) -> tuple[int, int]:
    """(plus for the alphabetically first model, plus for the second) for one comparison.

    Uses plus_a/plus_b when present; otherwise reconstructs them from the aggregated record: a
    win with margin m as 2m to 0 (both orders agreeing with m pluses each), a draw as 0 to 0.
    """
    if c.plus_a is not None and c.plus_b is not None:
        pa, pb = c.plus_a, c.plus_b
    elif c.outcome == 0.5:
        pa = pb = 0
    else:
        pa, pb = (2 * c.margin, 0) if c.outcome == 1.0 else (0, 2 * c.margin)
        if c.margin == 0:  # a win with no pluses still decides the outcome in EQ-Bench 3
            pa, pb = (1, 0) if c.outcome == 1.0 else (0, 1)
    return (pa, pb) if c.model_a < c.model_b else (pb, pa)


def _eqbench3_plan(bin_size: int, max_possible_diff: float):
    @functools.lru_cache(maxsize=None)
    def steps(first: str, second: str, p1: int, p2: int) -> tuple[tuple[str, str, int, bool], ...]:
        w1, w2 = eqbench3_pseudo_wins(p1, p2, bin_size, max_possible_diff)
        if w1 == 1 and w2 == 1:
            return ((first, second, 1, True),)
        # a side with no pseudo-wins has no update (the zero-repeat step is dropped)
        return tuple(s for s in ((first, second, w1, False), (second, first, w2, False)) if s[2])

    def plan_list(c: Comparison) -> tuple[tuple[str, str, int, bool], ...]:
        return steps(*c.pair, *_tallies(c))  # the plan depends only on the pair and the tallies

    return plan_list


def trueskill_eqbench3(
    comparisons: Iterable[Comparison],
    *,
    models: Iterable[str] | None = None,
    order: str = "sorted",
    bin_size: int = 20,
    ci_bin_size: int = 5,
    max_possible_diff: float = 30,
    anchors: Mapping[str, float] | None = None,
    rank_window: int | None = None,
    order_permutations: int = 0,
    seed: int = 0,
    engine: str = "exact",
) -> dict[str, Rating]:
    """EQ-Bench 3's margin-to-TrueSkill procedure (docs/ratings.md, '4. TrueSkill as EQ-Bench 3 does it'), recomputed from scratch.

    Each comparison's "+" tallies (see _tallies) give a fraction, binned into up to ``bin_size``
    pseudo-wins applied in a row (winner first); equal tallies are one drawn update. mu is from the
    bin-20 solve; sigma from a second solve with ``ci_bin_size`` pseudo-wins, and the interval is
    mu +/- 1.96 sigma, as EQ-Bench 3 does. ``anchors`` (e.g. EQBENCH3_ANCHORS) applies the linear
    normalisation when at least two anchor models are present (scores, bounds and sigma scaled);
    rank_window keeps, for a second solve, only comparisons between models at most that many
    ranks apart in the first solve. engine="package" replays through ``trueskill.rate_1vs1`` itself.
    """
    comps, names = check_comparisons(comparisons, models, what="trueskill_eqbench3")
    env = eqbench3_env()
    ordered = _order(comps, order)
    plan = _eqbench3_plan(bin_size, max_possible_diff)
    final = _replay(ordered, names, env, plan, engine)
    if rank_window is not None:
        rank = {m: i for i, m in enumerate(ranking({m: r.mu for m, r in final.items()}))}
        ordered = [c for c in ordered if abs(rank[c.model_a] - rank[c.model_b]) <= rank_window]
        final = _replay(ordered, names, env, plan, engine)
    ci_final = _replay(ordered, names, env, _eqbench3_plan(ci_bin_size, max_possible_diff), engine)
    perm = (
        _permutation_stats(ordered, names, env, plan, order_permutations, seed, engine) if order_permutations else None
    )
    a, b = 1.0, 0.0
    if anchors:
        present = [(m, v) for m, v in anchors.items() if m in final]
        if len(present) >= 2:
            (m1, v1), (m2, v2) = present[0], present[1]
            raw1, raw2 = final[m1].mu, final[m2].mu
            if raw1 != raw2:
                a = (v1 - v2) / (raw1 - raw2)
                b = v1 - a * raw1
    counts = tally(comps, names)
    out = {}
    for m in names:
        mu, sig = final[m].mu, ci_final[m].sigma
        n, w, lo, d = counts[m]
        out[m] = Rating(
            model=m,
            score=a * mu + b,
            lower=a * (mu - Z95 * sig) + b,
            upper=a * (mu + Z95 * sig) + b,
            sigma=abs(a) * sig,
            n=n,
            wins=w,
            losses=lo,
            draws=d,
            perm_mean=None if perm is None else a * perm[m][0] + b,
            perm_sd=None if perm is None else abs(a) * perm[m][1],
            extra={"raw_mu": mu, "raw_sigma_bin": final[m].sigma},
        )
    return out
