"""Item-level (cluster) bootstrap helpers.

Prompt instances ("items") are resampled with replacement and every comparison made on a drawn
item comes along, as many times as the item was drawn. This is a cluster bootstrap
(docs/ratings.md, '2. Bradley–Terry (default)', Bootstrap) instead of resampling single battles, because the comparisons
made on one item share the same responses and are not independent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .comparisons import Comparison, Rating, natural_key, tally

__all__ = [
    "item_index",
    "bootstrap_counts",
    "percentile_interval",
    "item_bootstrap",
    "fitted_ratings",
    "separability",
]


def item_index(comparisons: Sequence[Comparison]) -> tuple[list[str], np.ndarray]:
    """Sorted unique items (natural order) and, per comparison, the index of its item."""
    items = sorted({c.item for c in comparisons}, key=lambda s: (natural_key(s), s))
    pos = {item: i for i, item in enumerate(items)}
    return items, np.fromiter((pos[c.item] for c in comparisons), dtype=np.int64, count=len(comparisons))


def bootstrap_counts(n_items: int, rounds: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """(rounds, n_items) multiplicities: each round draws n_items items with replacement."""
    if rounds < 1:
        raise ValueError(f"bootstrap rounds must be >= 1, got {rounds}")
    if n_items < 1:
        raise ValueError("bootstrap needs at least one item")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=rounds).astype(np.float64)


def percentile_interval(samples: np.ndarray, ci: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval ((1-ci)/2, (1+ci)/2) along ``axis`` (linear interpolation)."""
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    lo, hi = np.percentile(samples, [100 * (1 - ci) / 2, 100 * (1 + ci) / 2], axis=axis)
    return lo, hi


def fitted_ratings(
    comps: Sequence[Comparison],
    names: Sequence[str],
    scores: np.ndarray,
    boot: np.ndarray | None,
    ci: float,
    extra: Callable[[int], Mapping[str, float]] | None = None,
) -> dict[str, Rating]:
    """Each model's ``Rating`` from a fit: ``scores`` in the order of ``names``, and the bootstrap replicates
    ``boot`` (rounds x models; None: no interval) for the percentile interval at ``ci`` and the replicates' SD as
    sigma; the counts are ``tally``'s. ``extra(i)`` adds the method's own figures of the i-th model."""
    lower = upper = sd = None
    if boot is not None:
        lower, upper = percentile_interval(boot, ci, axis=0)
        sd = boot.std(axis=0, ddof=1) if len(boot) > 1 else np.zeros(len(names))
    counts = tally(comps, names)
    out = {}
    for i, m in enumerate(names):
        n, wins, losses, draws = counts[m]
        out[m] = Rating(
            model=m,
            score=float(scores[i]),
            lower=None if lower is None else float(lower[i]),
            upper=None if upper is None else float(upper[i]),
            sigma=None if sd is None else float(sd[i]),
            n=n,
            wins=wins,
            losses=losses,
            draws=draws,
            extra=extra(i) if extra else {},
        )
    return out


def item_bootstrap(
    comparisons: Sequence[Comparison],
    rate: Callable[[list[Comparison]], Mapping[str, Rating]],
    rounds: int = 200,
    seed: int = 0,
    ci: float = 0.95,
) -> dict[str, tuple[float, float, float]]:
    """Generic (slow) item bootstrap for any rating function, e.g. elo or trueskill_facet.

    Returns model -> (lower, upper, sd) of the score over the rounds. A model absent from a
    resample keeps no value for that round; models absent from every round are left out.
    Each resampled item's comparisons keep their order; copies of a drawn item are appended.
    """
    comps = list(comparisons)
    items, idx = item_index(comps)
    by_item: list[list[Comparison]] = [[] for _ in items]
    for c, i in zip(comps, idx):
        by_item[i].append(c)
    counts = bootstrap_counts(len(items), rounds, seed).astype(int)
    samples: dict[str, list[float]] = {}
    for row in counts:
        sample = [c for i, k in enumerate(row) for _ in range(k) for c in by_item[i]]
        try:
            result = rate(sample)
        except ValueError:
            continue  # e.g. a resample with a single model: skip the round
        for model, r in result.items():
            samples.setdefault(model, []).append(r.score)
    out = {}
    for model, values in samples.items():
        arr = np.asarray(values)
        lo, hi = percentile_interval(arr, ci)
        out[model] = (float(lo), float(hi), float(arr.std(ddof=1)) if arr.size > 1 else 0.0)
    return out


def separability(ratings: Mapping[str, Rating]) -> float | None:
    """Share of model pairs whose intervals do not overlap (Arena-Hard's "separability").

    None when fewer than two models have intervals.
    """
    with_ci = [r for r in ratings.values() if r.lower is not None and r.upper is not None]
    pairs = [(a, b) for i, a in enumerate(with_ci) for b in with_ci[i + 1 :]]
    if not pairs:
        return None
    apart = sum(1 for a, b in pairs if a.upper < b.lower or b.upper < a.lower)
    return apart / len(pairs)
