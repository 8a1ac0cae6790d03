"""Pairing schedules: round robin, FACET's seed round and smart matching (docs/ratings.md, '7. Pairing').

Pure and deterministic: every random choice comes from an explicit seed or random.Random.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import erf

from .bradley_terry import comparison_weights, fit_win_matrices
from .comparisons import Comparison, Rating, ranking

__all__ = [
    "RANDOM_SEED",
    "ActiveState",
    "PairingRun",
    "active_pairs",
    "active_state",
    "adaptive_pairs",
    "facet_seed_round",
    "pair_priorities",
    "ranking_unchanged",
    "settle_check",
    "round_robin",
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
    """FACET's cold-start pairs for one prompt instance (docs/ratings.md, '7. Pairing', facet_seed_round).

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


def pair_priorities(
    ratings: Mapping[str, Rating | tuple[float, float]], pairs: Iterable[Pair] | None = None
) -> list[tuple[float, Pair]]:
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
    """One round of FACET smart matching (docs/ratings.md, '7. Pairing', adaptive_pairs).

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
            p for p in candidates if (p[0] in new or p[1] in new) and any((it, p) not in done for it in item_list)
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
        (it, p) for idx, it in enumerate(items) for p in facet_seed_round(models, idx, version, seed, seed_opponents)
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


# ---------------------------------------------------------------------------------------------
# Active pairing: small batches chosen to reduce the expected number of mis-ordered pairs.
# ---------------------------------------------------------------------------------------------

_GH_NODES, _GH_WEIGHTS = np.polynomial.hermite_e.hermegauss(16)
_GH_WEIGHTS = _GH_WEIGHTS / _GH_WEIGHTS.sum()


@dataclass(frozen=True)
class ActiveState:
    """What active pairing knows: BT strengths and their Laplace covariance (natural-log units).

    ``theta`` is indexed like ``models`` (sorted). ``cov`` is the covariance of theta in units of
    one matchup of information (pseudo-wins are rescaled, see :func:`active_state`).
    ``connected`` is False while the comparison graph does not join every model.
    """

    models: tuple[str, ...]
    theta: np.ndarray
    cov: np.ndarray
    connected: bool

    def misorder_probabilities(self) -> dict[Pair, float]:
        """P(the current BT order of each pair is wrong), from the Gaussian approximation."""
        out = {}
        for i, a in enumerate(self.models):
            for j in range(i + 1, len(self.models)):
                d = self.theta[i] - self.theta[j]
                v = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
                out[(a, self.models[j])] = float(_phi(-abs(d) / math.sqrt(max(v, 1e-12))))
        return out

    def expected_discordant(self) -> float:
        """Expected number of pairs the current BT ranking has in the wrong order."""
        return float(sum(self.misorder_probabilities().values()))


def settle_check(
    comparisons: Sequence[Comparison],
    models: Iterable[str],
    orders: list[tuple[str, ...]],
    settle_misorder: float = 1.0,
    settle_rounds: int = 2,
) -> tuple[bool, dict]:
    """Active judging's stopping rule (issue 14): is the ranking settled after these comparisons?

    Appends the current fitted order to ``orders`` (the caller keeps it between batches). Settled when the
    comparison graph is connected, the expected number of mis-ordered pairs under the Laplace posterior
    (``ActiveState.expected_discordant``) is below ``settle_misorder`` and the order is the same as in the
    previous ``settle_rounds`` checks. Returns (settled, state: expected_misordered_pairs, unchanged_batches,
    connected, order)."""
    state = active_state(comparisons, models)
    order = tuple(m for _, m in sorted(zip(-state.theta, state.models)))
    orders.append(order)
    unchanged = 0
    for previous in reversed(orders[:-1]):
        if previous != order:
            break
        unchanged += 1
    expected = state.expected_discordant()
    info = {
        "expected_misordered_pairs": round(expected, 4),
        "unchanged_batches": unchanged,
        "connected": state.connected,
        "order": list(order),
    }
    return state.connected and expected < settle_misorder and unchanged >= settle_rounds, info


def _phi(x):
    return 0.5 * (1.0 + erf(np.asarray(x) / math.sqrt(2.0)))


def _win_matrix(comparisons: Iterable[Comparison], pos: Mapping[str, int]) -> tuple[np.ndarray, int]:
    n = len(pos)
    W = np.zeros((n, n))
    count = 0
    for c in comparisons:
        if c.model_a not in pos or c.model_b not in pos:
            continue
        wa, wb = comparison_weights(c)
        i, j = pos[c.model_a], pos[c.model_b]
        W[i, j] += wa
        W[j, i] += wb
        count += 1
    return W, count


def active_state(comparisons: Iterable[Comparison], models: Iterable[str], l2: float = 0.1) -> ActiveState:
    """Fit the state active pairing works from (pure function of the comparisons).

    Margin-weighted BT (pseudo-wins, the same weights as :func:`bradley_terry`) with a Gaussian
    prior ``l2`` on the natural-log strengths, fitted by Newton's method. The covariance is the
    inverse Hessian (Laplace approximation), but in units of *matchups*: a margin-m win counts as m
    pseudo-wins in the fit, which would make the Hessian m times too confident (the pseudo-wins of
    one matchup are one judgement, not m independent ones), so the data Hessian is divided by the
    mean pseudo-weight per matchup before the prior is added.
    """
    names = _models(models)
    n = len(names)
    pos = {m: i for i, m in enumerate(names)}
    W, count = _win_matrix(comparisons, pos)
    N = W + W.T
    theta = fit_win_matrices(W, l2=l2) if count else np.zeros(n)
    diff = theta[:, None] - theta[None, :]
    p = 1.0 / (1.0 + np.exp(-diff))
    per_matchup = N.sum() / 2 / count if count else 1.0
    hw = N * p * (1 - p) / max(per_matchup, 1e-12)
    H = np.diag(hw.sum(axis=1)) - hw + l2 * np.eye(n)
    cov = np.linalg.inv(H)
    adj = N > 0
    seen, stack = {0}, [0]
    while stack:
        i = stack.pop()
        for j in np.flatnonzero(adj[i]):
            if int(j) not in seen:
                seen.add(int(j))
                stack.append(int(j))
    return ActiveState(tuple(names), theta, cov, len(seen) == n)


def _seed_cycle(names: list[str], comparisons: list[Comparison], free, r: random.Random) -> list[tuple[str, Pair]]:
    """Edges of a random Hamiltonian cycle that join different components of the comparison graph."""
    parent = {m: m for m in names}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in comparisons:
        if c.model_a in parent and c.model_b in parent:
            parent[find(c.model_a)] = find(c.model_b)
    order = names[:]
    r.shuffle(order)
    out, used_pairs, used_items = [], set(), set()
    for k in range(len(order)):
        a, b = order[k], order[(k + 1) % len(order)]
        pair = (a, b) if a < b else (b, a)
        if pair in used_pairs or find(a) == find(b):
            continue
        avail = free(pair)
        if not avail:
            continue
        fresh = [it for it in avail if it not in used_items] or avail
        item = r.choice(fresh)
        used_items.add(item)
        used_pairs.add(pair)
        out.append((item, pair))
    return out


def active_pairs(
    comparisons: Sequence[Comparison],
    compared: Iterable[tuple[str, Pair]],
    items: Sequence[str],
    models: Iterable[str],
    batch: int = 10,
    rng: random.Random | int | None = None,
    *,
    l2: float = 0.1,
    stop_below: float | None = None,
) -> list[tuple[str, Pair]]:
    """The next batch of (item, sorted pair) matchups to judge; [] when done.

    A sample-efficient alternative to FACET's smart rounds (docs/ratings.md §7):

    1. **Seed.** While the comparison graph does not connect all models, propose the edges of a
       random cycle through all models that join different components (N matchups at the start,
       each model meets two others), each on an item not yet used for that pair.
    2. **Active batches.** Otherwise fit margin-weighted BT with a Laplace covariance
       (:func:`active_state`) and pick ``batch`` matchups greedily by *expected reduction in the
       number of mis-ordered pairs* (the quantity Kendall tau counts): for a candidate pair x,
       one more matchup adds information p(1-p) along e_a - e_b; for every pair y the posterior
       mean difference then moves by N(0, δ_y) and its variance drops to v_y - δ_y, and the
       expected misorder probability E[Φ(-|μ'|/√(v_y-δ_y))] is computed by Gauss-Hermite
       quadrature. The candidate with the largest total drop is taken, the covariance is updated
       as if it had been judged (rank-one), and the next one is chosen. This favours close,
       uncertain neighbours but also pairs that tie an uncertain model to the rest.
    3. **Items.** Each matchup uses an item on which the pair was never compared (``compared`` and
       ``comparisons`` both count), preferring items on which neither model has been judged yet
       (spreads model-item noise), ties broken by ``rng``.

    Returns [] when every (item, pair) is used, or when ``stop_below`` is given and the expected
    number of mis-ordered pairs falls below it (the Laplace approximation is optimistic; treat it
    as a heuristic stop, and keep a call budget). Deterministic for a given rng/seed and inputs
    (the input order of ``comparisons`` does not matter). ``compared`` holds (item, pair) in any
    order within the pair. Judge failures (a matchup in ``compared`` without a comparison) are
    not retried on the same item.
    """
    if isinstance(rng, random.Random):
        r = rng
    else:
        r = random.Random(RANDOM_SEED if rng is None else rng)
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    names = _models(models)
    item_list = list(dict.fromkeys(items))
    comps = [c for c in comparisons if c.model_a in names and c.model_b in names]
    done = {(it, tuple(sorted(p))) for it, p in compared} | {(c.item, c.pair) for c in comps}
    used_by_model: dict[str, set[str]] = {m: set() for m in names}
    for it, (a, b) in done:
        if a in used_by_model and b in used_by_model:
            used_by_model[a].add(it)
            used_by_model[b].add(it)

    def free(pair: Pair) -> list[str]:
        return [it for it in item_list if (it, pair) not in done]

    state = active_state(comps, names, l2=l2)
    if not state.connected:
        seed = _seed_cycle(names, comps, free, r)
        if seed:
            return seed
        # no connecting edge has a free item: fall through to the active criterion
    if stop_below is not None and state.connected and state.expected_discordant() < stop_below:
        return []

    n = len(names)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    remaining = np.array([len(free((names[i], names[j]))) for i, j in pairs])
    if remaining.sum() == 0:
        return []
    I = np.array([i for i, _ in pairs])
    J = np.array([j for _, j in pairs])
    X = np.zeros((len(pairs), n))
    X[np.arange(len(pairs)), I] = 1.0
    X[np.arange(len(pairs)), J] = -1.0
    mu = state.theta[I] - state.theta[J]
    p = 1.0 / (1.0 + np.exp(-mu))
    info = p * (1 - p)  # Fisher information of one matchup on theta_a - theta_b (one game)
    cov = state.cov.copy()
    chosen: list[int] = []
    for _ in range(min(batch, int(remaining.sum()))):
        XS = X @ cov  # (P, n)
        C = XS @ X.T  # C[y, x] = cov(diff_y, diff_x)
        v = np.clip(np.diag(C), 1e-12, None)
        cand = np.flatnonzero(remaining > 0)
        w = info[cand]
        delta = (C[:, cand] ** 2) * w[None, :] / (1.0 + w * v[cand])[None, :]  # (targets, cands)
        delta = np.minimum(delta, v[:, None] * (1 - 1e-9))
        now = _phi(-np.abs(mu) / np.sqrt(v))
        post_sd = np.sqrt(v[:, None] - delta)
        spread = np.sqrt(delta)
        exp_after = np.zeros_like(delta)
        for z, wt in zip(_GH_NODES, _GH_WEIGHTS):
            exp_after += wt * _phi(-np.abs(mu[:, None] + z * spread) / post_sd)
        gain = (now[:, None] - exp_after).sum(axis=0)
        best = cand[int(np.argmax(gain - 1e-12 * np.arange(len(cand))))]  # ties: first in name order
        chosen.append(int(best))
        remaining[best] -= 1
        x = X[best]
        cx = cov @ x
        cov = cov - np.outer(cx, cx) * info[best] / (1.0 + info[best] * (x @ cx))

    out: list[tuple[str, Pair]] = []
    taken: set[tuple[str, Pair]] = set()
    for k in chosen:
        a, b = names[I[k]], names[J[k]]
        pair = (a, b)
        avail = [it for it in free(pair) if (it, pair) not in taken]
        if not avail:
            continue
        load = {it: (it in used_by_model[a]) + (it in used_by_model[b]) for it in avail}
        least = min(load.values())
        item = r.choice([it for it in avail if load[it] == least])
        taken.add((item, pair))
        used_by_model[a].add(item)
        used_by_model[b].add(item)
        out.append((item, pair))
    return out
