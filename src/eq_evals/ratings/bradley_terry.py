"""Bradley-Terry maximum-likelihood ratings on the Elo scale, with an item-level bootstrap.

Model: P(i beats j) = 1 / (1 + base ** (-(R_i - R_j) / scale)), i.e. natural-log strengths
theta = R * ln(base) / scale. A draw counts as half a win for each side (Chatbot Arena's
convention; Chiang et al. 2024, docs/ratings.md, 'References'). The fit maximises the weighted log-likelihood

    L(theta) = sum_{i,j} W_ij * log sigmoid(theta_i - theta_j) - l2/2 * ||theta||^2

where W_ij is the (pseudo-)win weight of i over j, by damped Newton iterations on the win matrix
(the likelihood depends on the data only through W). Scores are then shifted so that their mean
is ``anchor`` (or so that ``anchor_model`` sits at ``anchor``). See docs/ratings.md.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from .bootstrap import bootstrap_counts, fitted_ratings, item_index
from .comparisons import Comparison, Rating, check_comparisons

__all__ = ["bradley_terry", "comparison_weights", "fit_win_matrices", "components", "asymptotic_interval"]

MARGIN_MODES = ("pseudo_wins", "fractional", "heart_soft")
# HEART's release (docs/ratings.md, '2. Bradley–Terry (default)', heart_soft; docs/heart.md, 'Ratings (eq-evals ratings)'): the winner's soft outcome by strength 1..5 (0.55 .. 0.95); unparsed/draw 0.5
HEART_SOFT = {1: 0.55, 2: 0.65, 3: 0.75, 4: 0.85, 5: 0.95}
BOOTSTRAP_L2_FLOOR = 1e-3


def comparison_weights(
    c: Comparison, margin_weighted: bool = True, margin_mode: str = "pseudo_wins"
) -> tuple[float, float]:
    """(weight to model_a beating model_b, weight to model_b beating model_a) for one comparison.

    - margin_weighted=False: a win is one win, a draw half a win each.
    - "pseudo_wins" (default, FACET §4.7): a win with margin m >= 1 is m wins; a win with margin
      0 and a draw are half a win each (FACET applies them as draws).
    - "fractional" (EQ-Bench-3-like): one game with the soft outcome 0.5 + 0.5 * m / 5 for the
      winner (m = 0 gives 0.5).
    - "heart_soft" (HEART's release, docs/ratings.md, '2. Bradley–Terry (default)', heart_soft): one game with the soft outcome 0.55/0.65/0.75/0.85/0.95
      for strength 1..5 (m = 0 gives 0.5).
    """
    y = c.outcome
    if not margin_weighted:
        return y, 1.0 - y
    if margin_mode == "pseudo_wins":
        if y == 0.5 or c.margin == 0:
            return 0.5, 0.5
        return (float(c.margin), 0.0) if y == 1.0 else (0.0, float(c.margin))
    if margin_mode == "fractional":
        if y == 0.5:
            return 0.5, 0.5
        frac = 0.5 + 0.5 * c.margin / 5.0
        return (frac, 1.0 - frac) if y == 1.0 else (1.0 - frac, frac)
    if margin_mode == "heart_soft":
        if y == 0.5:
            return 0.5, 0.5
        frac = HEART_SOFT.get(c.margin, 0.5)
        return (frac, 1.0 - frac) if y == 1.0 else (1.0 - frac, frac)
    raise ValueError(f"margin_mode must be one of {MARGIN_MODES}, got {margin_mode!r}")


def asymptotic_interval(
    score: float, n: int, z: float = 1.96, scale: float = 400.0, base: float = 10.0
) -> tuple[float | None, float | None]:
    """HEART §9.8's interval: SE = sqrt(1/n) on the natural-log strength (n = comparisons involving the model),
    i.e. score -/+ z * scale / ln(base) / sqrt(n) on the Elo scale (about 340.5 / sqrt(n) at 95%). It ignores the
    opponents' strengths and the soft outcomes (docs/heart.md, 'Ratings (eq-evals ratings)', Intervals); the bootstrap interval is the primary one."""
    if n <= 0:
        return None, None
    half = z * scale / math.log(base) / math.sqrt(n)
    return score - half, score + half


def components(comparisons: Iterable[Comparison], models: Sequence[str]) -> list[list[str]]:
    """Connected components of the (undirected) comparison graph, each sorted, largest first."""
    pos = {m: i for i, m in enumerate(models)}
    rows, cols = [], []
    for c in comparisons:
        rows.append(pos[c.model_a])
        cols.append(pos[c.model_b])
    n = len(models)
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    k, labels = connected_components(graph, directed=False)
    groups = [sorted(models[i] for i in range(n) if labels[i] == g) for g in range(k)]
    return sorted(groups, key=lambda g: (-len(g), g))


def fit_win_matrices(W: np.ndarray, l2: float = 0.0, max_iter: int = 200, tol: float = 1e-10) -> np.ndarray:
    """Fit BT strengths (natural log units, mean zero) for a batch of win matrices.

    W has shape (B, n, n) or (n, n); W[b, i, j] is the weight of i beating j. Damped Newton with a
    rank-one gauge term (the likelihood is invariant to a common shift, so the Hessian gets
    + 11^T/n, which leaves the step in the mean-zero subspace unchanged). Steps are capped at 3
    natural units per model, which keeps Newton stable when probabilities saturate.
    """
    single = W.ndim == 2
    if single:
        W = W[None]
    B, n, _ = W.shape
    N = W + np.swapaxes(W, 1, 2)
    wins = W.sum(axis=2)
    theta = np.zeros((B, n))
    eye = np.eye(n)
    gauge = np.ones((n, n)) / n
    active = np.ones(B, dtype=bool)
    scale = np.maximum(N.sum(axis=(1, 2)) / max(n, 1), 1.0)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        th = theta[idx]
        diff = th[:, :, None] - th[:, None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        Ni = N[idx]
        grad = wins[idx] - (Ni * p).sum(axis=2) - l2 * th
        hw = Ni * p * (1.0 - p)
        H = -hw + np.einsum("bi,ij->bij", hw.sum(axis=2) + l2, eye) + gauge[None] * scale[idx, None, None]
        step = np.linalg.solve(H, grad[:, :, None])[:, :, 0]
        big = np.abs(step).max(axis=1)
        factor = np.where(big > 3.0, 3.0 / np.maximum(big, 1e-300), 1.0)
        step *= factor[:, None]
        th = th + step
        th -= th.mean(axis=1, keepdims=True)
        theta[idx] = th
        done = (np.abs(step).max(axis=1) < tol) | (np.abs(grad).max(axis=1) < tol * scale[idx])
        active[idx[done]] = False
    return theta[0] if single else theta


def _strongly_connected(W: np.ndarray) -> tuple[bool, list[str]]:
    k, labels = connected_components(csr_matrix(W > 0), directed=True, connection="strong")
    return k == 1, labels


def bradley_terry(
    comparisons: Iterable[Comparison],
    margin_weighted: bool = True,
    scale: float = 400.0,
    base: float = 10.0,
    anchor: float = 1000.0,
    *,
    margin_mode: str = "pseudo_wins",
    models: Iterable[str] | None = None,
    bootstrap_rounds: int = 0,
    seed: int = 0,
    ci: float = 0.95,
    l2: float = 1e-3,
    anchor_model: str | None = None,
    per_component: bool = False,
    max_iter: int = 200,
) -> dict[str, Rating]:
    """Bradley-Terry MLE ratings on the Elo scale (see the module docstring and docs/ratings.md).

    bootstrap_rounds > 0 adds an item-level bootstrap (seeded by ``seed``): lower/upper are the
    percentile ``ci`` interval and sigma the bootstrap SD. ``l2`` is a weak Gaussian prior on the
    natural-log strengths that keeps ratings finite when a model never lost or never won (then a
    warning is issued); l2=0 gives the exact MLE and raises if it does not exist. A disconnected
    comparison graph raises ValueError listing the components, unless per_component=True, which
    fits each component separately (each centred on ``anchor``; Rating.component tells them apart).
    """
    if margin_mode not in MARGIN_MODES:
        raise ValueError(f"margin_mode must be one of {MARGIN_MODES}, got {margin_mode!r}")
    if scale <= 0 or base <= 1:
        raise ValueError("scale must be > 0 and base > 1")
    if l2 < 0:
        raise ValueError(f"l2 must be >= 0, got {l2}")
    comps, names = check_comparisons(comparisons, models, what="bradley_terry")
    groups = components(comps, names)
    if len(groups) > 1:
        if not per_component:
            listing = "; ".join(f"{i + 1}: {', '.join(g)}" for i, g in enumerate(groups))
            raise ValueError(
                f"bradley_terry: the comparison graph is disconnected into {len(groups)} components "
                f"({listing}); ratings across components are not comparable. Compare models across "
                "components, or pass per_component=True to rate each component separately."
            )
        out: dict[str, Rating] = {}
        for gi, group in enumerate(groups):
            members = set(group)
            sub = [c for c in comps if c.model_a in members]
            if len(group) == 1:
                out[group[0]] = Rating(group[0], float(anchor), None, None, None, 0, 0, 0, 0, component=gi)
                continue
            res = bradley_terry(
                sub,
                margin_weighted,
                scale,
                base,
                anchor,
                margin_mode=margin_mode,
                models=group,
                bootstrap_rounds=bootstrap_rounds,
                seed=seed,
                ci=ci,
                l2=l2,
                anchor_model=anchor_model if anchor_model in members else None,
                max_iter=max_iter,
            )
            for m, r in res.items():
                out[m] = Rating(**{**r.__dict__, "component": gi})
        return out
    if anchor_model is not None and anchor_model not in names:
        raise ValueError(f"bradley_terry: anchor_model {anchor_model!r} is not among the models {names}")

    n = len(names)
    pos = {m: i for i, m in enumerate(names)}
    items, item_of = item_index(comps)
    flat = np.zeros((len(items), n * n))
    for c, it in zip(comps, item_of):
        wa, wb = comparison_weights(c, margin_weighted, margin_mode)
        i, j = pos[c.model_a], pos[c.model_b]
        flat[it, i * n + j] += wa
        flat[it, j * n + i] += wb
    W = flat.sum(axis=0).reshape(n, n)

    strong, _ = _strongly_connected(W)
    if not strong:
        unbeaten = [names[i] for i in range(n) if W[:, i].sum() == 0]
        winless = [names[i] for i in range(n) if W[i, :].sum() == 0]
        detail = (
            f"never lost: {unbeaten or '-'}; never won: {winless or '-'}"
            if unbeaten or winless
            else "some group of models never lost to the rest"
        )
        if l2 == 0:
            raise ValueError(
                f"bradley_terry: the maximum-likelihood estimate does not exist ({detail}); "
                "use l2 > 0 for finite, prior-regularised ratings"
            )
        warnings.warn(
            f"bradley_terry: perfect separation ({detail}); those ratings are set by the l2={l2} prior "
            "and are only lower/upper bounds in spirit",
            RuntimeWarning,
            stacklevel=2,
        )

    to_elo = scale / math.log(base)

    def to_scores(theta: np.ndarray) -> np.ndarray:
        s = theta * to_elo
        if anchor_model is not None:
            return s - s[..., pos[anchor_model], None] + anchor
        return s - s.mean(axis=-1, keepdims=True) + anchor

    scores = to_scores(fit_win_matrices(W, l2=l2, max_iter=max_iter))
    boot = None
    if bootstrap_rounds:
        counts = bootstrap_counts(len(items), bootstrap_rounds, seed)
        Wb = (counts @ flat).reshape(bootstrap_rounds, n, n)
        boot = to_scores(fit_win_matrices(Wb, l2=max(l2, BOOTSTRAP_L2_FLOOR), max_iter=max_iter))
    return fitted_ratings(comps, names, scores, boot, ci)
