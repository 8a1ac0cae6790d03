"""Plain sequential Elo (online updates), for reference and comparison with other systems."""

from __future__ import annotations

from collections.abc import Iterable

from .comparisons import Comparison, Rating, canonical_order, check_comparisons, tally

__all__ = ["elo"]


def elo(
    comparisons: Iterable[Comparison],
    k: float = 32.0,
    initial: float = 1000.0,
    *,
    scale: float = 400.0,
    base: float = 10.0,
    margin_weighted: bool = False,
    models: Iterable[str] | None = None,
    order: str = "sorted",
) -> dict[str, Rating]:
    """Sequential Elo: E_a = 1 / (1 + base ** ((R_b - R_a) / scale)); R_a += k (S_a - E_a).

    Order: "sorted" = canonical (language, dimension, phase, item, pair) order, "given" = input
    order. Margin-agnostic by default (a draw is S = 0.5); margin_weighted=True applies a win with
    margin m >= 1 as m successive wins (FACET's pseudo-wins), margin 0 as a draw. No interval
    (lower/upper/sigma None): use bootstrap.item_bootstrap if needed.
    """
    comps, names = check_comparisons(comparisons, models, what="elo")
    if order == "sorted":
        comps_ordered = canonical_order(comps)
    elif order == "given":
        comps_ordered = comps
    else:
        raise ValueError(f"order must be 'sorted' or 'given', got {order!r}")
    r = {m: float(initial) for m in names}
    for c in comps_ordered:
        s, reps = c.outcome, 1
        if margin_weighted:
            if c.outcome == 0.5 or c.margin == 0:
                s = 0.5
            else:
                reps = c.margin
        for _ in range(reps):
            ea = 1.0 / (1.0 + base ** ((r[c.model_b] - r[c.model_a]) / scale))
            delta = k * (s - ea)
            r[c.model_a] += delta
            r[c.model_b] -= delta
    counts = tally(comps, names)
    return {m: Rating(m, r[m], None, None, None, *counts[m]) for m in names}
