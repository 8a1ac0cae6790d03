"""Inter-rater agreement: Cohen's kappa, Fleiss' kappa, Krippendorff's alpha (nominal).

Implemented directly from the definitions (docs/ratings.md, '8. Agreement'); no scikit-learn.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence

import numpy as np

__all__ = ["cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "percent_agreement", "stability"]


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    if len(a) != len(b) or not a:
        raise ValueError("percent_agreement: need two non-empty label sequences of equal length")
    return sum(x == y for x, y in zip(a, b)) / len(a)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], labels: Sequence[Hashable] | None = None) -> float:
    """kappa = (p_o - p_e) / (1 - p_e), p_e = sum_k p_a(k) p_b(k) from each rater's marginals.

    ``labels`` fixes the label space (e.g. {"A", "B", "DRAW"}); unlisted labels raise.
    Returns nan when p_e = 1 (both raters used one and the same label: kappa is undefined).
    """
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa: the two raters labelled {len(a)} and {len(b)} instances")
    if not a:
        raise ValueError("cohen_kappa: no instances")
    if labels is not None:
        allowed = set(labels)
        bad = sorted({str(x) for x in list(a) + list(b) if x not in allowed})
        if bad:
            raise ValueError(f"cohen_kappa: labels outside the label space {sorted(map(str, allowed))}: {bad}")
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    p_e = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if p_e == 1.0:
        return float("nan")
    return (p_o - p_e) / (1.0 - p_e)


def fleiss_kappa(data=None, *, table=None) -> float:
    """Fleiss' kappa for a fixed number n of raters per instance.

    Pass either ``data``: a list with, per instance, the sequence of the n raters' labels (a
    numpy 2-D numeric array is read as a count table instead), or ``table``: counts n_ij of raters
    giving instance i category j. P_i = (sum_j n_ij^2 - n) / (n (n - 1)); p_j = sum_i n_ij / (N n);
    kappa = (mean P_i - sum p_j^2) / (1 - sum p_j^2). nan when sum p_j^2 = 1.
    """
    if table is None:
        if isinstance(data, np.ndarray) and data.ndim == 2 and np.issubdtype(data.dtype, np.number):
            table = data
        else:
            if not data:
                raise ValueError("fleiss_kappa: no instances")
            cats = sorted({x for row in data for x in row}, key=repr)
            col = {c: j for j, c in enumerate(cats)}
            table = np.zeros((len(data), len(cats)))
            for i, row in enumerate(data):
                for x in row:
                    table[i, col[x]] += 1
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError("fleiss_kappa: the table must be 2-D with at least one instance")
    per = t.sum(axis=1)
    if not np.all(per == per[0]):
        raise ValueError(
            f"fleiss_kappa: every instance needs the same number of raters, got {sorted(set(per.tolist()))}"
        )
    n = per[0]
    if n < 2:
        raise ValueError("fleiss_kappa: needs at least two raters per instance")
    N = t.shape[0]
    P_i = ((t**2).sum(axis=1) - n) / (n * (n - 1))
    p_j = t.sum(axis=0) / (N * n)
    P_e = float((p_j**2).sum())
    if P_e == 1.0:
        return float("nan")
    return float((P_i.mean() - P_e) / (1.0 - P_e))


def krippendorff_alpha(units: Sequence[Sequence[Hashable | None]]) -> float:
    """Krippendorff's alpha, nominal level, missing values allowed (None or nan).

    ``units``: per unit (instance), the values given by each coder (None where missing). Units with
    fewer than two values are not pairable and are dropped. Coincidences
    o_ck = sum_u (number of ordered pairs (c, k) of values in u) / (m_u - 1); n_c = sum_k o_ck;
    alpha = 1 - (n - 1) * D_o / D_e with D_o = sum_{c != k} o_ck, D_e = sum_{c != k} n_c n_k.
    nan when there is only one category among the pairable values (no variation).
    """
    coinc: Counter = Counter()
    for unit in units:
        vals = [v for v in unit if not _missing(v)]
        m = len(vals)
        if m < 2:
            continue
        counts = Counter(vals)
        for c, nc in counts.items():
            for k, nk in counts.items():
                pairs = nc * (nk - 1) if c == k else nc * nk
                if pairs:
                    coinc[(c, k)] += pairs / (m - 1)
    if not coinc:
        raise ValueError("krippendorff_alpha: no unit has two or more values")
    n_c: Counter = Counter()
    for (c, _k), v in coinc.items():
        n_c[c] += v
    n = sum(n_c.values())
    d_o = sum(v for (c, k), v in coinc.items() if c != k)
    d_e = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k)
    if d_e == 0:
        return float("nan")
    return 1.0 - (n - 1) * d_o / d_e


def stability(kappas: Sequence[float]) -> dict[str, float]:
    """Judge-selection statistics over per-dimension kappas (FACET paper App. C.5, Table 3): mean, population SD, CV, min."""
    k = np.asarray(kappas, dtype=float)
    if k.size == 0:
        raise ValueError("stability: no kappa values")
    mean = float(k.mean())
    sd = float(k.std(ddof=0))
    return {"mean": mean, "sd": sd, "cv": sd / mean if mean else float("nan"), "min": float(k.min())}
