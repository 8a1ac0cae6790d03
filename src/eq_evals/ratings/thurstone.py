"""Thurstone–Mosteller (probit) ratings with an Elo display, as the PACE paper ranks models (App. B.2;
docs/ratings.md, '11. Thurstone–Mosteller').

Model [paper]: S_i = μ_i + ε_i, ε_i ~ N(0, σ²), P(M_i ≻ M_j) = Φ((μ_i − μ_j)/√(2σ²)); μ is the maximum of

    L(μ) = Σ_t [ y_t ln Φ(μ_i − μ_j) + (1 − y_t) ln Φ(μ_j − μ_i) ]

found with L-BFGS-B. Project choices (docs/ratings.md, '11. Thurstone–Mosteller', all parameters): √(2σ²) = 1 (σ is not identifiable
and this makes the paper's D ~ N(μ_i − μ_j, 1) consistent); sum-zero identifiability (n − 1 free parameters,
μ_n = −Σ μ_i); bounds (−10, 10) on the free parameters so that an unbeaten model stays finite; ties y = 0.5
(``ties="half"``) or left out (``ties="drop"``); Elo display 1000 + k·(μ − mean μ) with
k = 400·1.702/ln 10 ≈ 295.67 (probit-to-logistic matching, so Elo differences keep the usual 10^(d/400) odds
reading; the paper does not give its linear map). Intervals: percentile bootstrap over battles, clustered by
``Comparison.item`` as the other methods do (identical to resampling battles when every battle has its own
item; ``cluster="battle"`` resamples single comparisons).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_ndtr

from .bootstrap import bootstrap_counts, fitted_ratings, item_index
from .bradley_terry import components
from .comparisons import Comparison, Rating, check_comparisons, effective_outcome

__all__ = ["ELO_K", "ELO_BASE", "fit_thurstone", "thurstone_elo", "thurstone_mosteller"]

ELO_K = 400.0 * 1.702 / math.log(10.0)  # ≈ 295.6677
ELO_BASE = 1000.0
BOUND = 10.0
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _nll_grad(free: np.ndarray, W: np.ndarray) -> tuple[float, np.ndarray]:
    mu = np.append(free, -free.sum())
    d = mu[:, None] - mu[None, :]
    logcdf = log_ndtr(d)
    nll = -float((W * logcdf).sum())
    # d/dd ln Φ(d) = φ(d)/Φ(d), computed in log space for stability
    ratio = np.exp(-0.5 * d * d - _LOG_SQRT_2PI - logcdf)
    g = W * ratio
    grad_mu = -(g.sum(axis=1) - g.sum(axis=0))
    return nll, grad_mu[:-1] - grad_mu[-1]


def _single_threaded_blas():
    """L-BFGS-B makes many tiny LAPACK calls; a multi-threaded BLAS on a busy machine made each 3-model fit
    ~30x slower (measured 54 ms vs 1.7 ms), so the fits run with one BLAS thread when threadpoolctl is present."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: without it the fit is only slower
        return contextlib.nullcontext()
    return threadpool_limits(1)


def fit_thurstone(W: np.ndarray, *, start: np.ndarray | None = None, bound: float = BOUND) -> tuple[np.ndarray, float]:
    """Sum-zero MLE of μ for a win-weight matrix W (W[i, j] = weight of i beating j; a tie adds 0.5 to both
    W[i, j] and W[j, i]). Returns (μ, negative log-likelihood)."""
    n = W.shape[0]
    if n < 2:
        raise ValueError("thurstone: need at least two models")
    with _single_threaded_blas():
        return _fit(W, start, bound)


def _fit(W: np.ndarray, start: np.ndarray | None, bound: float) -> tuple[np.ndarray, float]:
    n = W.shape[0]
    x0 = np.zeros(n - 1) if start is None else np.asarray(start, dtype=np.float64)[:-1]
    res = minimize(
        _nll_grad,
        x0,
        args=(W,),
        jac=True,
        method="L-BFGS-B",
        bounds=[(-bound, bound)] * (n - 1),
        options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 10_000},
    )
    mu = np.append(res.x, -res.x.sum())
    return mu, float(res.fun)


def thurstone_elo(mu: Sequence[float] | np.ndarray, *, base: float = ELO_BASE, k: float = ELO_K) -> np.ndarray:
    """Linear Elo display: base + k·(μ − mean μ) (docs/ratings.md, '11. Thurstone–Mosteller')."""
    mu = np.asarray(mu, dtype=np.float64)
    return base + k * (mu - mu.mean(axis=-1, keepdims=True))


def _weights(c: Comparison, ties: str, margin_zero: str) -> tuple[float, float] | None:
    y = effective_outcome(c) if margin_zero == "draw" else c.outcome
    if y == 0.5:
        return None if ties == "drop" else (0.5, 0.5)
    return (1.0, 0.0) if y == 1.0 else (0.0, 1.0)


def thurstone_mosteller(
    comparisons: Iterable[Comparison],
    *,
    ties: str = "half",
    base: float = ELO_BASE,
    k: float = ELO_K,
    models: Iterable[str] | None = None,
    bootstrap_rounds: int = 0,
    seed: int = 0,
    ci: float = 0.95,
    cluster: str = "item",
    margin_zero: str = "draw",
) -> dict[str, Rating]:
    """Thurstone–Mosteller ratings on the Elo display scale (see the module docstring and docs/ratings.md).

    Each comparison is one battle with y = its outcome for model_a. ``margin_zero="draw"`` (default) reads a
    "win" with margin 0 as a draw, like the other leaderboard methods and the win/loss/draw counts
    (``effective_outcome``); "win" keeps the raw outcome. Rating.score is the Elo display, ``extra["mu"]`` the
    latent μ (sum zero); lower/upper/sigma come from ``bootstrap_rounds`` percentile replicates (seeded).
    Raises ValueError for a disconnected comparison graph (ratings across components are not comparable) or
    when ties="drop" leaves no battle; perfect separation warns (μ is then held by the ±10 bounds).
    """
    if ties not in ("half", "drop"):
        raise ValueError(f"ties must be 'half' or 'drop', got {ties!r}")
    if cluster not in ("item", "battle"):
        raise ValueError(f"cluster must be 'item' or 'battle', got {cluster!r}")
    if margin_zero not in ("draw", "win"):
        raise ValueError(f"margin_zero must be 'draw' or 'win', got {margin_zero!r}")
    if k <= 0:
        raise ValueError(f"k must be > 0, got {k}")
    comps, names = check_comparisons(comparisons, models, what="thurstone")
    groups = components(comps, names)
    if len(groups) > 1:
        listing = "; ".join(f"{i + 1}: {', '.join(g)}" for i, g in enumerate(groups))
        raise ValueError(
            f"thurstone: the comparison graph is disconnected into {len(groups)} components ({listing}); "
            "ratings across components are not comparable"
        )
    n = len(names)
    pos = {m: i for i, m in enumerate(names)}
    if cluster == "item":
        items, unit_of = item_index(comps)
        n_units = len(items)
    else:
        n_units, unit_of = len(comps), np.arange(len(comps))
    flat = np.zeros((n_units, n * n))
    used = 0
    for c, u in zip(comps, unit_of):
        w = _weights(c, ties, margin_zero)
        if w is None:
            continue
        used += 1
        i, j = pos[c.model_a], pos[c.model_b]
        flat[u, i * n + j] += w[0]
        flat[u, j * n + i] += w[1]
    if not used:
        raise ValueError("thurstone: no battle left to rate (every comparison is a tie and ties='drop')")
    W = flat.sum(axis=0).reshape(n, n)
    never_lost = [names[i] for i in range(n) if W[:, i].sum() == 0]
    never_won = [names[i] for i in range(n) if W[i, :].sum() == 0]
    if never_lost or never_won:
        warnings.warn(
            f"thurstone: perfect separation (never lost: {never_lost or '-'}; never won: "
            f"{never_won or '-'}); those latent scores sit at the ±{BOUND:g} bounds",
            RuntimeWarning,
            stacklevel=2,
        )
    with _single_threaded_blas():
        mu, _ = _fit(W, None, BOUND)
        scores = thurstone_elo(mu, base=base, k=k)
        boot = None
        if bootstrap_rounds:
            counts = bootstrap_counts(n_units, bootstrap_rounds, seed)
            boot = np.empty((bootstrap_rounds, n))
            for b, row in enumerate(counts):
                boot[b] = thurstone_elo(_fit((row @ flat).reshape(n, n), mu, BOUND)[0], base=base, k=k)
    return fitted_ratings(comps, names, scores, boot, ci, extra=lambda i: {"mu": float(mu[i])})
