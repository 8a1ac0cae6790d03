"""Causal-PACE: causal dimension weights and the composite EQ (PACE paper §3, App. C; docs/pace-weights.md).

Pure mathematics (standard library + numpy, scipy for the t quantile); no Inspect dependency. Reading PACE
Inspect logs lives beside the PACE tasks (``records_from_logs``), not here.

- The causal graph is fixed prior knowledge (PACE paper §3.1, Fig. 2, Table 3): P→A, P→C, P→E, A→E, C→E and
  every dimension → Y. The confounding (adjustment) set of a dimension is its parents.
- ``interventional_distribution``: PACE paper Theorem 3.1 (§3.1) and App. C.2, parent (backdoor) adjustment
  P(Y | do(X=x)) = Σ_a P(Y | X=x, 𝔸_X=a) P(𝔸_X=a), summed over the observed joint assignments a of 𝔸_X and
  weighted by their *joint* frequency. With parents as the adjustment set this is the *total* effect of X on Y
  (mediated paths stay open; docs/pace-weights.md, 'The mathematics'), although the paper calls it the direct effect.
- ``dimension_influence``: Definition 3.1 (PACE paper §3.1), W(X) = (1/|X|) Σ_x KL(P(Y|do(x)) || P(Y|U_X)) in nats,
  P(Y|U_X) = (1/|X|) Σ_x P(Y|do(x)): the effective information of X on Y (mutual information under a uniform
  intervention on X).
- ``composite_eq``: Definition 3.2 (PACE paper §3.1), EQ = Σ_X W̄(X)·Score(X), W̄ = W / Σ W, Score(X) ∈ [0, 10].
- ``PAPER_WEIGHTS``: the paper's fitted weights (PACE paper §5.2), printed to three decimals (sum 0.999) and
  therefore always renormalised on use. They are the default whenever no weights are given.

Project choices (docs/pace-weights.md, 'What is the paper's and what is ours'; each a named parameter): ``alpha`` additive smoothing of P(Y | X, 𝔸_X)
(default 0 = the paper's plain frequencies, an empty (x, stratum) cell raises ``PositivityError``);
``discretize`` for graded 0–10 scores ("none", "binary@T", "tertiles"); the bootstrap of the weights (rows, or
clusters such as items); ``fallback`` when every W is 0. Never estimate weights from a Y that was itself
produced by a PACE composite (docs/pace-weights.md, 'Circularity warning'): Y must be an independent overall judgement.
See docs/pace-weights.md.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .bootstrap import bootstrap_counts, percentile_interval
from .comparisons import Comparison

__all__ = [
    "DIMENSIONS",
    "DIMENSION_NAMES",
    "PACE_DAG",
    "PARENTS",
    "PAPER_WEIGHTS",
    "PositivityError",
    "DegenerateWeightsError",
    "confounding_sets",
    "discretizer",
    "interventional_distribution",
    "dimension_influence",
    "normalize",
    "resolve_weights",
    "CausalWeights",
    "estimate_weights",
    "composite_eq",
    "DimRecord",
    "CompositeResult",
    "score_models",
    "battles_from_records",
]

DIMENSIONS: tuple[str, ...] = ("P", "A", "C", "E")
DIMENSION_NAMES = {
    "P": "Perceptive Insight",
    "A": "Adaptive Attunement",
    "C": "Constructive Conviction",
    "E": "Empathic Guidance",
}
# Children of each node (paper Fig. 2; PACE paper §3.1, Table 3). Y is the overall EQ performance.
PACE_DAG: Mapping[str, tuple[str, ...]] = {"P": ("A", "C", "E", "Y"), "A": ("E", "Y"), "C": ("E", "Y"), "E": ("Y",)}
# Confounding sets = parents (paper Table 3; its "I" for P is the empty set, App. C.2).
PARENTS: Mapping[str, tuple[str, ...]] = {"P": (), "A": ("P",), "C": ("P",), "E": ("P", "A", "C")}
# The paper's weights (§5.2), as printed: they sum to 0.999, so ``normalize`` is applied on use.
PAPER_WEIGHTS: Mapping[str, float] = {"P": 0.430, "A": 0.161, "C": 0.202, "E": 0.206}
SCORE_RANGE = (0.0, 10.0)
DISCRETIZE_MODES = ("none", "binary@T", "tertiles")


class PositivityError(ValueError):
    """A value of X never occurs in one of the observed confounder strata (and alpha = 0)."""

    def __init__(self, x: str, value: Hashable, adjust: Sequence[str], stratum: tuple) -> None:
        self.x, self.value, self.adjust, self.stratum = x, value, tuple(adjust), tuple(stratum)
        where = ", ".join(f"{a}={v!r}" for a, v in zip(adjust, stratum))
        super().__init__(
            f"positivity violated: {x}={value!r} never occurs in the stratum ({where}) although the stratum is "
            f"observed, so P(Y | {x}={value!r}, {', '.join(adjust)}) is undefined; pass alpha > 0 (additive "
            "smoothing) or coarsen the scores (discretize)"
        )


class DegenerateWeightsError(ValueError):
    """The weights sum to zero (no dimension has any effect on Y), so W̄ = W / Σ W is undefined."""


# --------------------------------------------------------------------------- graph


def confounding_sets(dag: Mapping[str, Sequence[str]] = PACE_DAG, y: str = "Y") -> dict[str, tuple[str, ...]]:
    """Parents of every dimension of ``dag`` (children lists) = its confounding set 𝔸_X (PACE paper §3.1, Table 3).

    Validates that the graph is acyclic and that ``y`` has no children. Dimensions are every node but ``y``,
    in the order they first appear.
    """
    nodes: list[str] = []
    for parent, children in dag.items():
        for node in (parent, *children):
            if node != y and node not in nodes:
                nodes.append(node)
    if y in dag and dag[y]:
        raise ValueError(f"causal graph: the outcome {y!r} must have no children, got {list(dag[y])}")
    parents: dict[str, list[str]] = {n: [] for n in nodes}
    for parent, children in dag.items():
        for child in children:
            if child != y:
                parents[child].append(parent)
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 1:
            raise ValueError(f"causal graph has a cycle: {' -> '.join([*path, node])}")
        if state.get(node) == 2:
            return
        state[node] = 1
        for child in dag.get(node, ()):
            if child != y:
                visit(child, [*path, node])
        state[node] = 2

    for n in nodes:
        visit(n, [])
    return {n: tuple(parents[n]) for n in nodes}


# --------------------------------------------------------------------------- discretisation


def discretizer(mode: str) -> Callable[[Any], Any]:
    """A function mapping one dimension value to its discrete state, for ``mode``:

    - "none": values are used as given (already discrete labels, e.g. 0/1 compliance).
    - "binary@T" (e.g. "binary@6", docs/pace-weights.md, 'Estimating weights', discretize; default threshold 6): a 0–10 score s becomes 1 if s >= T else 0.
    - "tertiles": fixed bins of the 0–10 scale, 0–3 → 0, 4–6 → 1, 7–10 → 2 (docs/pace-weights.md, 'Estimating weights', discretize; the bins are fixed,
      not data quantiles; a non-integer score s falls in bin 0 if s < 4, 1 if s < 7, else 2).

    The returned function raises ValueError (with the reason) for a non-numeric or out-of-range value.
    """
    if mode == "none":
        return lambda v: v
    if mode == "tertiles":
        return lambda v: _bin(_score(v), (4.0, 7.0))
    if mode.startswith("binary@"):
        try:
            threshold = float(mode.split("@", 1)[1])
        except ValueError:
            raise ValueError(f"discretize {mode!r}: the threshold after '@' must be a number, e.g. binary@6") from None
        return lambda v: int(_score(v) >= threshold)
    raise ValueError(f"discretize must be 'none', 'tertiles' or 'binary@T' (e.g. 'binary@6'), got {mode!r}")


def _score(value: Any) -> float:
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a number (a 0-10 score is needed to discretize)") from None
    if not SCORE_RANGE[0] <= s <= SCORE_RANGE[1]:
        raise ValueError(f"score {value!r} is outside [0, 10]")
    return s


def _bin(s: float, edges: tuple[float, ...]) -> int:
    return sum(s >= e for e in edges)


# --------------------------------------------------------------------------- core computation


def _sort_key(v: Any) -> tuple:
    return (0, float(v), "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0.0, repr(v))


def _domain(values: Iterable[Hashable], forced: Sequence[Hashable] | None, what: str) -> list:
    seen = sorted(set(values), key=_sort_key)
    if forced is None:
        return seen
    forced = list(forced)
    unknown = [v for v in seen if v not in forced]
    if unknown:
        raise ValueError(f"{what}: observed values {unknown} are not in the given domain {forced}")
    return forced


def _do_matrix(
    n_xzy: np.ndarray, alpha: float, x: str, x_dom: Sequence, adjust: Sequence[str], strata: Sequence[tuple]
) -> np.ndarray:
    """(|X|, |Y|) matrix of P(Y=y | do(X=x)) from the weighted counts n[x, z, y] (Theorem 3.1)."""
    n_z = n_xzy.sum(axis=(0, 2))
    total = n_z.sum()
    if total <= 0:
        raise ValueError(f"{x}: no observations (total weight 0)")
    observed = n_z > 0
    n_xz = n_xzy.sum(axis=2)
    den = n_xz + alpha * n_xzy.shape[2]
    empty = (den <= 0) & observed[None, :]
    if empty.any():
        xi, zi = map(int, np.argwhere(empty)[0])
        raise PositivityError(x, x_dom[xi], adjust, strata[zi])
    with np.errstate(invalid="ignore", divide="ignore"):
        cond = (n_xzy + alpha) / den[:, :, None]
    p_z = np.where(observed, n_z / total, 0.0)
    return np.einsum("xzy,z->xy", np.where(observed[None, :, None], cond, 0.0), p_z)


def _influence(do: np.ndarray) -> float:
    """W(X) from a (|X|, |Y|) matrix of interventional distributions (Definition 3.1, nats)."""
    ref = do.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(do > 0, do * np.log(do / ref[None, :]), 0.0)
    return float(max(terms.sum() / do.shape[0], 0.0))


@dataclass
class _Encoded:
    """Rows encoded as integer codes per column plus weights, for fast (bootstrap) recomputation."""

    columns: dict[str, np.ndarray]
    domains: dict[str, list]
    weights: np.ndarray

    def counts(
        self, x: str, adjust: Sequence[str], y: str, weights: np.ndarray | None = None
    ) -> tuple[np.ndarray, list[tuple]]:
        w = self.weights if weights is None else weights
        if adjust:
            zcols = np.stack([self.columns[a] for a in adjust], axis=1)
            strata_codes, z = np.unique(zcols, axis=0, return_inverse=True)
            z = z.reshape(-1)
            strata = [tuple(self.domains[a][c] for a, c in zip(adjust, row)) for row in strata_codes]
        else:
            z = np.zeros(len(w), dtype=np.int64)
            strata = [()]
        nx, nz, ny = len(self.domains[x]), len(strata), len(self.domains[y])
        flat = (self.columns[x] * nz + z) * ny + self.columns[y]
        return np.bincount(flat, weights=w, minlength=nx * nz * ny).reshape(nx, nz, ny), strata


def _encode(
    rows: Iterable[Mapping[str, Any]],
    columns: Sequence[str],
    weight: str | None,
    domains: Mapping[str, Sequence | None] | None = None,
    transform: Mapping[str, Callable[[Any], Any]] | None = None,
    extra: str | None = None,
) -> tuple[_Encoded, list]:
    values: dict[str, list] = {c: [] for c in columns}
    weights: list[float] = []
    extras: list = []
    for i, r in enumerate(rows):
        for c in columns:
            if c not in r or r[c] is None or (isinstance(r[c], float) and math.isnan(r[c])):
                raise ValueError(f"row {i}: missing value for {c!r}")
            v = r[c]
            if transform and c in transform:
                try:
                    v = transform[c](v)
                except ValueError as ex:
                    raise ValueError(f"row {i}: {c}: {ex}") from None
            values[c].append(v)
        w = 1.0 if weight is None else r.get(weight, 1.0)
        try:
            w = float(w)
        except (TypeError, ValueError):
            raise ValueError(f"row {i}: {weight!r} must be a number, got {w!r}") from None
        if not w >= 0 or math.isinf(w):
            raise ValueError(f"row {i}: {weight!r} must be a finite number >= 0, got {w!r}")
        weights.append(w)
        if extra is not None:
            if extra not in r or r[extra] in (None, ""):
                raise ValueError(f"row {i}: missing cluster value {extra!r}")
            extras.append(r[extra])
    keep = [k for k, w in enumerate(weights) if w > 0]
    if not keep:
        raise ValueError("no observations (empty input, or every count is 0)")
    if len(keep) < len(weights):  # a row with count 0 is no row: it must not add values to the domains
        values = {c: [values[c][k] for k in keep] for c in columns}
        weights = [weights[k] for k in keep]
        extras = [extras[k] for k in keep] if extras else extras
    doms = {c: _domain(values[c], (domains or {}).get(c), c) for c in columns}
    codes = {}
    for c in columns:
        pos = {v: k for k, v in enumerate(doms[c])}
        codes[c] = np.fromiter((pos[v] for v in values[c]), dtype=np.int64, count=len(values[c]))
    return _Encoded(codes, doms, np.asarray(weights, dtype=np.float64)), extras


def interventional_distribution(
    rows: Iterable[Mapping[str, Any]],
    x: str,
    adjust: Sequence[str],
    *,
    y: str = "Y",
    weight: str | None = "count",
    alpha: float = 0.0,
    x_domain: Sequence[Hashable] | None = None,
    y_domain: Sequence[Hashable] | None = None,
) -> dict[Hashable, dict[Hashable, float]]:
    """P(Y=y | do(X=x)) for every x and y (PACE paper Theorem 3.1, §3.1, with 𝔸_X = ``adjust``; App. C.2).

    ``rows``: mappings with keys x, *adjust, y and an optional frequency column ``weight`` (default "count",
    missing = 1; count-weighted rows give exactly the result of the expanded rows). Domains are the observed
    values unless forced with ``x_domain``/``y_domain`` (a forced, never-observed x needs alpha > 0).
    ``alpha`` is additive (Laplace) smoothing of P(Y | X, 𝔸_X): (n(x,a,y) + alpha) / (n(x,a) + alpha·|Y|).
    Only observed strata a (n(a) > 0) enter the sum, weighted by their joint frequency P(𝔸_X = a).
    Raises ``PositivityError`` naming the cell when alpha = 0 and some x never occurs in an observed stratum.
    """
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    cols = [x, *adjust, y]
    enc, _ = _encode(rows, cols, weight, {x: x_domain, y: y_domain})
    n, strata = enc.counts(x, adjust, y)
    do = _do_matrix(n, alpha, x, enc.domains[x], adjust, strata)
    return {xv: {yv: float(do[i, j]) for j, yv in enumerate(enc.domains[y])} for i, xv in enumerate(enc.domains[x])}


def dimension_influence(do_dist: Mapping[Hashable, Mapping[Hashable, float]]) -> float:
    """W(X) (Definition 3.1; PACE paper §3.1): mean over x of KL(P(Y|do(x)) || mean_x' P(Y|do(x'))), natural log.

    ``do_dist`` maps each x of the domain to its distribution over Y (missing y = probability 0). 0·ln 0 = 0.
    One x value gives 0.
    """
    if not do_dist:
        raise ValueError("dimension_influence: empty interventional distribution")
    ys = sorted({yv for d in do_dist.values() for yv in d}, key=_sort_key)
    do = np.asarray([[float(d.get(yv, 0.0)) for yv in ys] for d in do_dist.values()])
    if (do < 0).any() or not np.allclose(do.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("dimension_influence: every P(Y | do(X=x)) must be a probability distribution over Y")
    return _influence(do)


def normalize(weights: Mapping[str, float], *, fallback: str | None = None) -> dict[str, float]:
    """W̄(X) = W(X) / Σ W (Definition 3.2). Raises DegenerateWeightsError when Σ W = 0 unless
    fallback="uniform" (every W̄ = 1/n, docs/pace-weights.md, 'Estimating weights', fallback)."""
    if fallback not in (None, "uniform"):
        raise ValueError(f"fallback must be None or 'uniform', got {fallback!r}")
    w = {k: float(v) for k, v in weights.items()}
    if not w:
        raise ValueError("normalize: no weights")
    bad = {k: v for k, v in w.items() if not (math.isfinite(v) and v >= 0)}
    if bad:
        raise ValueError(f"normalize: weights must be finite and >= 0, got {bad}")
    total = sum(w.values())
    if total <= 0:
        if fallback == "uniform":
            return {k: 1.0 / len(w) for k in w}
        raise DegenerateWeightsError(
            f"every dimension weight is 0 ({w}): no dimension changes the distribution of Y, so the normalised "
            "weights W / sum(W) are undefined (is Y constant?); pass fallback='uniform' for equal weights"
        )
    return {k: v / total for k, v in w.items()}


# --------------------------------------------------------------------------- weight estimation


@dataclass(frozen=True)
class CausalWeights:
    """Fitted Causal-PACE weights. ``ci`` (on W̄) and ``raw_ci`` (on W) are percentile bootstrap intervals
    when n_boot > 0 (None for a dimension when every replicate was skipped)."""

    raw: dict[str, float]
    normalized: dict[str, float]
    do_distributions: dict[str, dict]
    naive_normalized: dict[str, float]
    n_rows: float
    ci: dict[str, tuple[float, float] | None] | None = None
    naive_raw: dict[str, float] = field(default_factory=dict)
    raw_ci: dict[str, tuple[float, float] | None] | None = None
    n_boot: int = 0
    n_skipped: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the shape ``eq-evals pace weights`` writes)."""

        def iv(d, k):
            return None if d is None or d.get(k) is None else [d[k][0], d[k][1]]

        return {
            "weights": {k: {"value": v, "ci": iv(self.ci, k)} for k, v in self.normalized.items()},
            "raw": {k: {"value": v, "ci": iv(self.raw_ci, k)} for k, v in self.raw.items()},
            "naive": {"normalized": self.naive_normalized, "raw": self.naive_raw},
            "do_distributions": {
                k: {str(x): {str(y): p for y, p in d.items()} for x, d in dist.items()}
                for k, dist in self.do_distributions.items()
            },
            "n_rows": self.n_rows,
            "options": self.options,
            "n_boot": self.n_boot,
            "n_skipped": self.n_skipped,
            "skipped_reasons": self.skipped_reasons,
        }


def estimate_weights(
    rows: Iterable[Mapping[str, Any]],
    *,
    dag: Mapping[str, Sequence[str]] = PACE_DAG,
    y: str = "Y",
    alpha: float = 0.0,
    discretize: str = "none",
    weight: str | None = "count",
    n_boot: int = 0,
    seed: int = 0,
    cluster: str | None = None,
    ci: float = 0.95,
    y_domain: Sequence[Hashable] | None = None,
    fallback: str | None = None,
) -> CausalWeights:
    """Causal-PACE weights from observations of (P, A, C, E, Y) (docs/pace-weights.md, 'Estimating weights').

    For every dimension X of ``dag``: W(X) = ``dimension_influence`` of the parent-adjusted interventional
    distribution, W̄ = ``normalize``(W). The naive (unadjusted, P(Y | X)) weights are reported beside them.
    ``discretize`` is applied to the dimension columns (not to Y; see ``discretizer``); ``weight`` names an
    optional frequency column. ``n_boot`` > 0 adds percentile bootstrap intervals at level ``ci``: rows are
    resampled (expanded by their counts: a multinomial draw of the total count), or whole clusters when
    ``cluster`` names a column (e.g. "item": every row of a drawn item comes along, weighted by the number of
    draws; docs/pace-weights.md, 'Estimating weights', n_boot). Replicates that hit a PositivityError or DegenerateWeightsError are skipped and
    counted (``n_skipped``); domains stay those of the full data.
    """
    parents = confounding_sets(dag, y)
    dims = list(parents)
    transform = {d: discretizer(discretize) for d in dims}
    rows = list(rows)
    enc, clusters = _encode(rows, [*dims, y], weight, {y: y_domain}, transform, extra=cluster)

    def fit(w: np.ndarray | None) -> tuple[dict[str, float], dict[str, np.ndarray], dict[str, float]]:
        raw, dos, naive = {}, {}, {}
        for d in dims:
            n, strata = enc.counts(d, parents[d], y, w)
            dos[d] = _do_matrix(n, alpha, d, enc.domains[d], parents[d], strata)
            raw[d] = _influence(dos[d])
            n0, strata0 = enc.counts(d, (), y, w)
            naive[d] = _influence(_do_matrix(n0, alpha, d, enc.domains[d], (), strata0))
        return raw, dos, naive

    raw, dos, naive = fit(None)
    normalized = normalize(raw, fallback=fallback)
    naive_norm = normalize(naive, fallback="uniform")
    ci_out = raw_ci = None
    skipped: dict[str, int] = {}
    if n_boot:
        rng = np.random.default_rng(seed)
        if cluster is None:
            total = enc.weights.sum()
            n_draw = int(round(total))
            draws = rng.multinomial(n_draw, enc.weights / total, size=n_boot).astype(np.float64)
        else:
            ids = sorted(set(map(str, clusters)))
            pos = {c: i for i, c in enumerate(ids)}
            of_row = np.fromiter((pos[str(c)] for c in clusters), dtype=np.int64, count=len(clusters))
            mult = bootstrap_counts(len(ids), n_boot, rng)
            draws = mult[:, of_row] * enc.weights[None, :]
        boot_w, boot_raw = [], []
        for w in draws:
            try:
                r, _, _ = fit(w)
                boot_w.append([normalize(r)[d] for d in dims])
                boot_raw.append([r[d] for d in dims])
            except (PositivityError, DegenerateWeightsError) as ex:
                key = type(ex).__name__
                skipped[key] = skipped.get(key, 0) + 1
        if boot_w:
            lo, hi = percentile_interval(np.asarray(boot_w), ci)
            rlo, rhi = percentile_interval(np.asarray(boot_raw), ci)
            ci_out = {d: (float(lo[k]), float(hi[k])) for k, d in enumerate(dims)}
            raw_ci = {d: (float(rlo[k]), float(rhi[k])) for k, d in enumerate(dims)}
        else:
            ci_out = raw_ci = {d: None for d in dims}
    do_dict = {
        d: {xv: {yv: float(dos[d][i, j]) for j, yv in enumerate(enc.domains[y])} for i, xv in enumerate(enc.domains[d])}
        for d in dims
    }
    options = {
        "y": y,
        "alpha": alpha,
        "discretize": discretize,
        "weight": weight,
        "cluster": cluster,
        "ci": ci,
        "seed": seed,
        "fallback": fallback,
        "parents": {d: list(parents[d]) for d in dims},
        "domains": {c: [_jsonable(v) for v in enc.domains[c]] for c in [*dims, y]},
    }
    return CausalWeights(
        raw=raw,
        normalized=normalized,
        do_distributions=do_dict,
        naive_normalized=naive_norm,
        n_rows=float(enc.weights.sum()),
        ci=ci_out,
        naive_raw=naive,
        raw_ci=raw_ci,
        n_boot=n_boot,
        n_skipped=sum(skipped.values()),
        skipped_reasons=skipped,
        options=options,
    )


def _jsonable(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


# --------------------------------------------------------------------------- composite EQ


def resolve_weights(weights: Any = None, *, dimensions: Sequence[str] = DIMENSIONS) -> tuple[dict[str, float], str]:
    """Normalised weights and their source ("paper", "estimated", "equal" or "user") from:
    None or "paper" (the paper's weights, renormalised), "equal", a ``CausalWeights``, a mapping of weights, or
    the path of a JSON file written by ``eq-evals pace weights`` (its "weights" values)."""
    if weights is None or (isinstance(weights, str) and weights == "paper"):
        return normalize(PAPER_WEIGHTS), "paper"
    if isinstance(weights, str) and weights == "equal":
        return {d: 1.0 / len(dimensions) for d in dimensions}, "equal"
    if isinstance(weights, CausalWeights):
        return dict(weights.normalized), "estimated"
    if isinstance(weights, (str, Path)):
        path = Path(weights)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            w = {k: float(v["value"] if isinstance(v, Mapping) else v) for k, v in data["weights"].items()}
        except (OSError, ValueError, KeyError, TypeError) as ex:
            raise ValueError(
                f"{path}: not a weights file written by `eq-evals pace weights` "
                f'(expected {{"weights": {{"P": {{"value": ...}}, ...}}}}): {ex}'
            ) from None
        return normalize(w), "estimated"
    if isinstance(weights, Mapping):
        if PAPER_WEIGHTS == {k: float(v) for k, v in weights.items()}:
            return normalize(weights), "paper"
        return normalize(weights), "user"
    raise TypeError(f"weights must be 'paper', 'equal', a mapping, CausalWeights or a JSON path, got {weights!r}")


def composite_eq(scores: Mapping[str, float], weights: Any = PAPER_WEIGHTS) -> float:
    """LLM EQ = Σ_X W̄(X)·Score(X) (Definition 3.2), Score(X) ∈ [0, 10] ⇒ EQ ∈ [0, 10].

    ``weights``: anything ``resolve_weights`` accepts (default the paper's, renormalised). Dimensions whose
    score is missing or NaN are left out and the weights renormalised over the dimensions present (docs/pace.md, 'The board');
    ValueError if none is present, a score is outside [0, 10], or the present dimensions all weigh 0.
    """
    w, _ = resolve_weights(weights)
    present = {}
    for d in w:
        s = scores.get(d)
        if s is None or (isinstance(s, float) and math.isnan(s)):
            continue
        s = float(s)
        if not SCORE_RANGE[0] <= s <= SCORE_RANGE[1]:
            raise ValueError(f"composite_eq: Score({d}) = {s} is outside [0, 10]")
        present[d] = s
    if not present:
        raise ValueError(f"composite_eq: no dimension score among {list(w)} in {dict(scores)}")
    sub = normalize({d: w[d] for d in present})
    return float(sum(sub[d] * present[d] for d in present))


# --------------------------------------------------------------------------- per-model scores with intervals


@dataclass(frozen=True)
class DimRecord:
    """One scored response: per-dimension 0–10 scores (NaN or absent = missing)."""

    model: str
    sample_id: str
    epoch: int
    scores: Mapping[str, float]
    lang: str | None = None
    scenario: str | None = None


@dataclass(frozen=True)
class CompositeResult:
    model: str
    eq: float
    ci_low: float
    ci_high: float
    se: float
    dimension_scores: dict[str, float]
    dimension_ci: dict[str, tuple[float, float]]
    n_samples: int
    weights: dict[str, float]
    weights_source: str
    group: str | None = None


def _matrix(records: Sequence[DimRecord], dims: Sequence[str]) -> dict[str, tuple[list[str], np.ndarray]]:
    """model -> (sample ids, (n, dims) mean over epochs, NaN = missing)."""
    acc: dict[str, dict[str, list[list[float]]]] = {}
    for r in records:
        row = [float(r.scores[d]) if r.scores.get(d) is not None else math.nan for d in dims]
        for d, s in zip(dims, row):
            if not math.isnan(s) and not SCORE_RANGE[0] <= s <= SCORE_RANGE[1]:
                raise ValueError(
                    f"{r.model}, sample {r.sample_id}, epoch {r.epoch}: Score({d}) = {s} is outside [0, 10]"
                )
        acc.setdefault(r.model, {}).setdefault(str(r.sample_id), []).append(row)
    out = {}
    for model, by_id in acc.items():
        ids = sorted(by_id)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN dimension stays NaN (missing)
            m = np.asarray([np.nanmean(np.asarray(by_id[i]), axis=0) for i in ids])
        out[model] = (ids, m)
    return out


def _weighted_means(counts: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(B, dims) per-dimension means of the rows of m weighted by counts (B, n); NaN ignored."""
    mask = ~np.isnan(m)
    num = counts @ np.where(mask, m, 0.0)
    den = counts @ mask.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _eq_rows(means: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Composite per row of (B, dims) means, renormalising over the present dimensions."""
    present = ~np.isnan(means)
    ww = np.where(present, w[None, :], 0.0)
    tot = ww.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, (ww * np.where(present, means, 0.0)).sum(axis=1) / np.where(tot > 0, tot, 1.0), np.nan)


def score_models(
    records: Iterable[DimRecord],
    weights: Any = PAPER_WEIGHTS,
    *,
    ci: float = 0.95,
    method: str = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
    paired: bool = True,
    group_by: str | None = None,
) -> dict[str, Any]:
    """Per-model composite EQ with intervals (docs/pace-weights.md, 'Per-model EQ with intervals').

    Epochs are averaged per (model, sample_id) first. Score(X) = mean of the model's per-sample scores on X
    (missing values left out); EQ = ``composite_eq``(Score) — equal to the mean of the per-sample composites
    when no score is missing (linearity, §4.6). Intervals at level ``ci``:
    - method="t": EQ ± t_{(1+ci)/2, n-1}·sd(per-sample composites)/√n (dimension CIs likewise);
    - method="bootstrap": percentile interval of ``n_boot`` replicates (seeded); paired=True draws the same
      sample ids for every model (from the union of ids; a model averages the drawn ids it has), paired=False
      resamples each model's ids independently. se = bootstrap SD.
    group_by="lang"|"scenario" returns {group: {model: CompositeResult}} instead of {model: CompositeResult}.
    """
    if method not in ("bootstrap", "t"):
        raise ValueError(f"method must be 'bootstrap' or 't', got {method!r}")
    if group_by not in (None, "lang", "scenario"):
        raise ValueError(f"group_by must be None, 'lang' or 'scenario', got {group_by!r}")
    records = list(records)
    if group_by is not None:
        groups: dict[str, list[DimRecord]] = {}
        for r in records:
            groups.setdefault(str(getattr(r, group_by)), []).append(r)
        return {
            g: {
                m: CompositeResult(**{**res.__dict__, "group": g})
                for m, res in score_models(
                    rs, weights, ci=ci, method=method, n_boot=n_boot, seed=seed, paired=paired
                ).items()
            }
            for g, rs in sorted(groups.items())
        }
    if not records:
        raise ValueError("score_models: no records")
    w_norm, source = resolve_weights(weights)
    dims = list(w_norm)
    w = np.asarray([w_norm[d] for d in dims])
    per_model = _matrix(records, dims)
    all_ids = sorted({i for ids, _ in per_model.values() for i in ids})
    id_pos = {i: k for k, i in enumerate(all_ids)}
    rng = np.random.default_rng(seed)
    shared = bootstrap_counts(len(all_ids), n_boot, rng) if method == "bootstrap" and paired else None
    out = {}
    for model in sorted(per_model):
        ids, m = per_model[model]
        means = _weighted_means(np.ones((1, len(ids))), m)[0]
        eq = float(_eq_rows(means[None, :], w)[0])
        if math.isnan(eq):
            raise ValueError(f"score_models: {model} has no dimension score at all")
        dim_ci: dict[str, tuple[float, float]] = {}
        if method == "t":
            from scipy.stats import t as t_dist

            per_sample = _eq_rows(m, w)
            n = int((~np.isnan(per_sample)).sum())
            q = float(t_dist.ppf((1 + ci) / 2, n - 1)) if n > 1 else math.nan
            se = float(np.nanstd(per_sample, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
            lo, hi = eq - q * se, eq + q * se
            for k, d in enumerate(dims):
                col = m[:, k][~np.isnan(m[:, k])]
                if col.size > 1:
                    half = float(col.std(ddof=1) / math.sqrt(col.size)) * float(t_dist.ppf((1 + ci) / 2, col.size - 1))
                    dim_ci[d] = (float(means[k]) - half, float(means[k]) + half)
                else:
                    dim_ci[d] = (math.nan, math.nan)
        else:
            if shared is not None:
                counts = shared[:, [id_pos[i] for i in ids]]
            else:
                counts = bootstrap_counts(len(ids), n_boot, rng)
            boot_means = _weighted_means(counts, m)
            boot_eq = _eq_rows(boot_means, w)
            ok = ~np.isnan(boot_eq)
            if not ok.any():
                lo = hi = se = math.nan
            else:
                lo, hi = (float(v) for v in percentile_interval(boot_eq[ok], ci))
                se = float(boot_eq[ok].std(ddof=1)) if ok.sum() > 1 else 0.0
            for k, d in enumerate(dims):
                col = boot_means[:, k][~np.isnan(boot_means[:, k])]
                dim_ci[d] = tuple(float(v) for v in percentile_interval(col, ci)) if col.size else (math.nan, math.nan)
        out[model] = CompositeResult(
            model=model,
            eq=eq,
            ci_low=float(lo),
            ci_high=float(hi),
            se=float(se),
            dimension_scores={d: float(means[k]) for k, d in enumerate(dims)},
            dimension_ci=dim_ci,
            n_samples=len(ids),
            weights=w_norm,
            weights_source=source,
        )
    return out


def battles_from_records(
    records: Iterable[DimRecord], weights: Any = PAPER_WEIGHTS, *, tie_margin: float = 0.0, dimension: str = "eq"
) -> list[Comparison]:
    """Pairwise battles from pointwise PACE scores, for Thurstone–Mosteller / Bradley–Terry / TrueSkill.

    For every pair of models and every sample id both were scored on (epochs averaged), the composite EQs are
    compared: model_a wins if EQ_a − EQ_b > ``tie_margin``, loses if < −tie_margin, else a draw (docs/pace-weights.md, 'Per-model EQ with intervals', battles_from_records).
    Decisive battles get margin 1 (so the leaderboard methods read them as wins), draws margin 0. ``item`` is
    the sample id, ``language`` the record's ``lang`` (or "en"). Samples without any dimension score are left
    out.
    """
    if tie_margin < 0:
        raise ValueError(f"tie_margin must be >= 0, got {tie_margin}")
    records = list(records)
    w_norm, _ = resolve_weights(weights)
    lang = {(r.model, str(r.sample_id)): r.lang for r in records}
    eq: dict[str, dict[str, float]] = {}
    for model, (ids, m) in _matrix(records, list(w_norm)).items():
        values = _eq_rows(m, np.asarray(list(w_norm.values())))
        eq[model] = {i: float(v) for i, v in zip(ids, values) if not math.isnan(v)}
    out = []
    models = sorted(eq)
    for k, a in enumerate(models):
        for b in models[k + 1 :]:
            for item in sorted(set(eq[a]) & set(eq[b])):
                diff = eq[a][item] - eq[b][item]
                outcome = 1.0 if diff > tie_margin else 0.0 if diff < -tie_margin else 0.5
                out.append(
                    Comparison(
                        a,
                        b,
                        outcome,
                        0 if outcome == 0.5 else 1,
                        item,
                        dimension=dimension,
                        language=lang.get((a, item)) or "en",
                    )
                )
    return out
