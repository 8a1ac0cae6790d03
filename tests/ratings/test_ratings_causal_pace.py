"""Causal-PACE weights and composite EQ: the worked numbers of docs/pace-weights.md, and properties on simulated data."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from support import COUNTS, count_rows

from eq_evals.ratings.causal_pace import (
    DIMENSIONS,
    PACE_DAG,
    PAPER_WEIGHTS,
    PARENTS,
    CausalWeights,
    DegenerateWeightsError,
    DimRecord,
    PositivityError,
    battles_from_records,
    composite_eq,
    confounding_sets,
    dimension_influence,
    discretizer,
    estimate_weights,
    interventional_distribution,
    normalize,
    resolve_weights,
    score_models,
)


def expanded_rows(counts=COUNTS) -> list[dict]:
    return [dict(zip(DIMENSIONS, key), Y=y) for key, ns in counts.items() for y, n in enumerate(ns) for _ in range(n)]


# --------------------------------------------------------------------------- §4.9.1


def test_dimension_influence_toy_values() -> None:
    binary = {0: {0: 0.8, 1: 0.2}, 1: {0: 0.2, 1: 0.8}}
    assert dimension_influence(binary) == pytest.approx(0.19274476, abs=1e-8)
    assert dimension_influence(binary) == pytest.approx(0.2 * math.log(0.4) + 0.8 * math.log(1.6), abs=1e-12)
    ternary = {"x0": {0: 0.6, 1: 0.3, 2: 0.1}, "x1": {0: 0.3, 1: 0.4, 2: 0.3}, "x2": {0: 0.1, 1: 0.3, 2: 0.6}}
    assert dimension_influence(ternary) == pytest.approx(0.13701515, abs=1e-8)
    # relabelling and reordering x leaves W unchanged; identical distributions give 0; one x value gives 0
    relabelled = {"b": ternary["x2"], 7: ternary["x0"], "a": ternary["x1"]}
    assert dimension_influence(relabelled) == pytest.approx(0.13701515, abs=1e-8)
    assert dimension_influence({0: {0: 0.3, 1: 0.7}, 1: {0: 0.3, 1: 0.7}}) == pytest.approx(0.0, abs=1e-15)
    assert dimension_influence({0: {0: 0.3, 1: 0.7}}) == 0.0
    # 0 ln 0 = 0: a y missing from one distribution
    assert dimension_influence({0: {0: 1.0}, 1: {1: 1.0}}) == pytest.approx(math.log(2))
    with pytest.raises(ValueError, match="probability distribution"):
        dimension_influence({0: {0: 0.5, 1: 0.6}})


# --------------------------------------------------------------------------- §4.9.2


def test_interventional_distributions_of_the_worked_example() -> None:
    rows = count_rows()
    expected = {"P": (0.295, 0.765), "A": (0.46, 0.60), "C": (0.38, 0.62), "E": (0.425, 0.625)}
    for x, (p0, p1) in expected.items():
        do = interventional_distribution(rows, x, PARENTS[x])
        assert do[0][1] == pytest.approx(p0, abs=1e-12) and do[1][1] == pytest.approx(p1, abs=1e-12)
        assert do[0][0] + do[0][1] == pytest.approx(1.0, abs=1e-12)
    # P has no parents: do(P) is the plain conditional
    assert interventional_distribution(rows, "P", ())[0][1] == pytest.approx(236 / 800, abs=1e-15)
    # naive (unadjusted) distributions differ: the adjustment is really applied
    assert interventional_distribution(rows, "A", ())[0][1] == pytest.approx(0.36, abs=1e-12)
    assert interventional_distribution(rows, "E", ())[1][1] == pytest.approx(0.715476, abs=1e-6)


def test_estimated_weights_of_the_worked_example() -> None:
    w = estimate_weights(count_rows())
    raw = {"P": 0.11543821, "A": 0.00986839, "C": 0.02908305, "E": 0.02018774}
    normalized = {"P": 0.661244, "A": 0.056527, "C": 0.166591, "E": 0.115638}
    naive = {"P": 0.365928, "A": 0.187673, "C": 0.197722, "E": 0.248677}
    naive_raw = {"P": 0.11543821, "A": 0.05920485, "C": 0.06237475, "E": 0.07844964}
    for d in DIMENSIONS:
        assert w.raw[d] == pytest.approx(raw[d], abs=1e-8)
        assert w.normalized[d] == pytest.approx(normalized[d], abs=1e-6)
        assert w.naive_normalized[d] == pytest.approx(naive[d], abs=1e-6)
        assert w.naive_raw[d] == pytest.approx(naive_raw[d], abs=1e-8)
    assert sum(w.raw.values()) == pytest.approx(0.17457739, abs=1e-8)
    assert w.n_rows == 1600 and w.ci is None and w.n_boot == 0
    assert w.do_distributions["E"][1][1] == pytest.approx(5 / 8, abs=1e-12)


def test_count_weighted_rows_equal_expanded_rows() -> None:
    weighted, expanded = estimate_weights(count_rows()), estimate_weights(expanded_rows())
    for d in DIMENSIONS:
        assert weighted.raw[d] == pytest.approx(expanded.raw[d], abs=1e-14)
        assert weighted.naive_raw[d] == pytest.approx(expanded.naive_raw[d], abs=1e-14)
    assert expanded.n_rows == 1600
    # a custom frequency column name, and weight=None ignoring "count"
    renamed = [{**{k: v for k, v in r.items() if k != "count"}, "n": r["count"]} for r in count_rows()]
    assert estimate_weights(renamed, weight="n").raw == pytest.approx(weighted.raw)
    # weight=None ignores the counts: every cell then has one Y=0 and one Y=1 row, so nothing affects Y
    assert estimate_weights(count_rows(), weight=None, fallback="uniform").n_rows == 32


def test_laplace_smoothing_alpha_one() -> None:
    w = estimate_weights(count_rows(), alpha=1.0)
    raw = {"P": 0.11483542, "A": 0.00992317, "C": 0.02890805, "E": 0.01993979}
    normalized = {"P": 0.661470, "A": 0.057159, "C": 0.166515, "E": 0.114856}
    for d in DIMENSIONS:
        assert w.raw[d] == pytest.approx(raw[d], abs=1e-8)
        assert w.normalized[d] == pytest.approx(normalized[d], abs=1e-6)
    assert w.options["alpha"] == 1.0


def test_positivity_error_names_the_cell_and_smoothing_proceeds() -> None:
    counts = {k: v for k, v in COUNTS.items() if k != (1, 0, 0, 1)}
    rows = count_rows(counts)
    with pytest.raises(PositivityError) as info:
        interventional_distribution(rows, "E", PARENTS["E"])
    err = info.value
    assert (err.x, err.value, err.stratum) == ("E", 1, (1, 0, 0))
    assert "E=1" in str(err) and "P=1, A=0, C=0" in str(err) and "alpha" in str(err)
    with pytest.raises(PositivityError, match="E=1"):
        estimate_weights(rows)
    smoothed = estimate_weights(rows, alpha=0.5)
    assert sum(smoothed.normalized.values()) == pytest.approx(1.0)
    # a forced x value that was never observed needs smoothing too
    with pytest.raises(PositivityError, match="P=2"):
        interventional_distribution(count_rows(), "P", (), x_domain=[0, 1, 2])
    assert len(interventional_distribution(count_rows(), "P", (), x_domain=[0, 1, 2], alpha=1)) == 3


def test_degenerate_weights() -> None:
    constant = [dict(P=p, A=a, C=c, E=e, Y=1, count=5) for p in (0, 1) for a in (0, 1) for c in (0, 1) for e in (0, 1)]
    with pytest.raises(DegenerateWeightsError, match="Y constant"):
        estimate_weights(constant)
    assert estimate_weights(constant, fallback="uniform").normalized == {d: 0.25 for d in DIMENSIONS}
    with pytest.raises(DegenerateWeightsError):
        normalize({d: 0.0 for d in DIMENSIONS})
    with pytest.raises(ValueError, match=">= 0"):
        normalize({"P": -1.0, "A": 2.0})


def test_bad_rows_are_named() -> None:
    rows = count_rows()
    rows[3] = {k: v for k, v in rows[3].items() if k != "C"}
    with pytest.raises(ValueError, match=r"row 3: missing value for 'C'"):
        estimate_weights(rows)
    with pytest.raises(ValueError, match=r"row 0: 'count' must be a finite number >= 0"):
        estimate_weights([dict(P=0, A=0, C=0, E=0, Y=0, count=-1)])
    with pytest.raises(ValueError, match="row 0: P: 'x' is not a number"):
        estimate_weights([dict(P="x", A=0, C=0, E=0, Y=0)], discretize="binary@6")
    with pytest.raises(ValueError, match="empty input"):
        estimate_weights([])
    with pytest.raises(ValueError, match="missing cluster value 'item'"):
        estimate_weights(count_rows(), n_boot=5, cluster="item")


def test_graph_and_discretisation() -> None:
    assert confounding_sets(PACE_DAG) == dict(PARENTS)
    with pytest.raises(ValueError, match="cycle"):
        confounding_sets({"P": ("A",), "A": ("P", "Y")})
    with pytest.raises(ValueError, match="no children"):
        confounding_sets({"P": ("Y",), "Y": ("P",)})
    binary = discretizer("binary@6")
    assert [binary(s) for s in (0, 5.9, 6, 10)] == [0, 0, 1, 1]
    tertiles = discretizer("tertiles")
    assert [tertiles(s) for s in (0, 3, 3.5, 4, 6, 6.5, 7, 10)] == [0, 0, 0, 1, 1, 1, 2, 2]
    for mode, bad in (("binary@6", 11), ("tertiles", -1), ("tertiles", "high")):
        with pytest.raises(ValueError):
            discretizer(mode)(bad)
    for mode in ("binary", "binary@x", "quartiles"):
        with pytest.raises(ValueError, match="discretize"):
            discretizer(mode)
    # a graded copy of the worked example, binarised at 6, gives the same weights as the 0/1 labels
    graded = [{**r, **{d: (8 if r[d] else 3) for d in DIMENSIONS}} for r in count_rows()]
    assert estimate_weights(graded, discretize="binary@6").raw == pytest.approx(estimate_weights(count_rows()).raw)


def test_bootstrap_intervals_rows_and_clusters() -> None:
    w = estimate_weights(count_rows(), n_boot=200, seed=1)
    again = estimate_weights(count_rows(), n_boot=200, seed=1)
    assert w.ci == again.ci and w.n_boot == 200 and w.n_skipped == 0
    for d in DIMENSIONS:
        lo, hi = w.ci[d]
        assert lo < w.normalized[d] < hi
        assert w.raw_ci[d][0] < w.raw[d] < w.raw_ci[d][1]
    # clusters: each expanded row in one of 40 items; whole items are resampled
    rows = [{**r, "item": f"it{k % 40}"} for k, r in enumerate(expanded_rows())]
    wc = estimate_weights(rows, n_boot=100, cluster="item", seed=0)
    assert all(wc.ci[d][0] <= wc.normalized[d] <= wc.ci[d][1] for d in DIMENSIONS)
    assert wc.options["cluster"] == "item"


def test_bootstrap_skips_and_counts_positivity_violations() -> None:
    counts = dict(COUNTS)
    counts[(1, 0, 0, 1)] = (1, 1)  # a rare cell: about e^-2 of the row resamples lose it
    w = estimate_weights(count_rows(counts), n_boot=300, seed=0)
    assert 0 < w.n_skipped < 300
    assert w.skipped_reasons == {"PositivityError": w.n_skipped}
    assert all(w.ci[d] is not None for d in DIMENSIONS)


# --------------------------------------------------------------------------- properties on a simulated SCM


def simulate(n: int, seed: int, c_affects_y: bool = True) -> list[dict]:
    """Binary P, A, C, E and ternary Y from a known SCM; C has no effect at all on Y when c_affects_y=False
    (neither directly nor through E) while still being caused by P (so it is confounded)."""
    rng = np.random.default_rng(seed)
    p = rng.random(n) < 0.5
    a = rng.random(n) < np.where(p, 0.75, 0.25)
    c = rng.random(n) < np.where(p, 0.8, 0.3)
    e = rng.random(n) < (1 + p + a + (c if c_affects_y else 0)) / 5
    score = 1.5 * p + 0.5 * a + (1.0 * c if c_affects_y else 0) + 1.0 * e + rng.normal(0, 1, n)
    y = np.digitize(score, [1.0, 2.5])
    return [dict(P=int(pi), A=int(ai), C=int(ci), E=int(ei), Y=int(yi)) for pi, ai, ci, ei, yi in zip(p, a, c, e, y)]


def compress(rows: list[dict]) -> list[dict]:
    from collections import Counter

    tally = Counter(tuple(r[k] for k in (*DIMENSIONS, "Y")) for r in rows)
    return [dict(zip((*DIMENSIONS, "Y"), key), count=n) for key, n in tally.items()]


def test_weights_are_invariant_to_relabelling_y_and_x() -> None:
    rows = compress(simulate(50_000, seed=3))
    base = estimate_weights(rows)
    y_names = {0: "low", 1: "tie", 2: "won"}
    relabelled_y = estimate_weights([{**r, "Y": y_names[r["Y"]]} for r in rows])
    x_names = {0: "fails", 1: "meets"}
    relabelled_x = estimate_weights([{**r, **{d: x_names[r[d]] for d in DIMENSIONS}} for r in rows])
    swapped = estimate_weights([{**r, **{d: 1 - r[d] for d in DIMENSIONS}, "Y": 2 - r["Y"]} for r in rows])
    for other in (relabelled_y, relabelled_x, swapped):
        for d in DIMENSIONS:
            assert other.raw[d] == pytest.approx(base.raw[d], rel=1e-12, abs=1e-15)


def test_a_dimension_without_effect_gets_weight_near_zero() -> None:
    rows = compress(simulate(400_000, seed=11, c_affects_y=False))
    w = estimate_weights(rows)
    assert w.normalized["C"] < 0.005  # sampling noise only
    assert w.naive_normalized["C"] > 0.05  # confounded by P: the unadjusted weight is large
    assert min(w.normalized[d] for d in ("P", "A", "E")) > 0.05
    # with an effect, C's weight is clearly positive
    assert estimate_weights(compress(simulate(100_000, seed=11))).normalized["C"] > 0.05


# --------------------------------------------------------------------------- §4.9.3 composite EQ


ALPHA_MODEL = {"P": 8, "A": 6, "C": 7, "E": 9}
BETA_MODEL = {"P": 6, "A": 9, "C": 8, "E": 7}


def test_composite_eq_worked_example() -> None:
    example = estimate_weights(count_rows())
    assert isinstance(example, CausalWeights)
    assert composite_eq(ALPHA_MODEL, example) == pytest.approx(7.835992, abs=1e-6)
    assert composite_eq(BETA_MODEL, example) == pytest.approx(6.618402, abs=1e-6)
    # the paper's weights are the default, renormalised (they sum to 0.999 as printed)
    assert composite_eq(ALPHA_MODEL) == pytest.approx(7.681682, abs=1e-6)
    assert composite_eq(BETA_MODEL) == pytest.approx(7.094094, abs=1e-6)
    assert composite_eq(ALPHA_MODEL, "equal") == composite_eq(BETA_MODEL, "equal") == pytest.approx(7.5)
    assert resolve_weights(None)[1] == "paper" and sum(resolve_weights(None)[0].values()) == pytest.approx(1.0)
    assert resolve_weights(dict(PAPER_WEIGHTS))[1] == "paper"


def test_composite_eq_bounds_one_hot_and_missing_dimensions() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        scores = dict(zip(DIMENSIONS, rng.uniform(0, 10, 4)))
        weights = dict(zip(DIMENSIONS, rng.uniform(0, 1, 4)))
        eq = composite_eq(scores, weights)
        assert min(scores.values()) - 1e-12 <= eq <= max(scores.values()) + 1e-12
    assert composite_eq({d: 0 for d in DIMENSIONS}) == 0 and composite_eq({d: 10 for d in DIMENSIONS}) == 10
    for d in DIMENSIONS:
        one_hot = {x: float(x == d) for x in DIMENSIONS}
        assert composite_eq(ALPHA_MODEL, one_hot) == ALPHA_MODEL[d]
    # a missing dimension: renormalise over the present ones
    partial = {"P": 8, "A": 6, "C": float("nan")}
    w = normalize(PAPER_WEIGHTS)
    expected = (w["P"] * 8 + w["A"] * 6) / (w["P"] + w["A"])
    assert composite_eq(partial) == pytest.approx(expected)
    with pytest.raises(ValueError, match="outside"):
        composite_eq({**ALPHA_MODEL, "E": 11})
    with pytest.raises(ValueError, match="no dimension score"):
        composite_eq({})


def test_weights_from_a_json_file(tmp_path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps(estimate_weights(count_rows()).as_dict()))
    weights, source = resolve_weights(str(path))
    assert source == "estimated" and weights["P"] == pytest.approx(0.661244, abs=1e-6)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="bad.json: not a weights file"):
        resolve_weights(str(tmp_path / "bad.json"))


# --------------------------------------------------------------------------- §4.9.4 per-model intervals


SAMPLES = [(8, 6, 7, 9), (6, 7, 5, 8), (9, 8, 8, 7), (7, 5, 6, 6)]


def records(model: str = "m", samples=SAMPLES, epochs: int = 1) -> list[DimRecord]:
    return [
        DimRecord(model, f"s{i}", ep, dict(zip(DIMENSIONS, s))) for i, s in enumerate(samples) for ep in range(epochs)
    ]


def test_score_models_t_interval() -> None:
    [res] = score_models(records(), method="t").values()
    assert res.eq == pytest.approx(7.136637, abs=1e-6)
    per_sample = [composite_eq(dict(zip(DIMENSIONS, s))) for s in SAMPLES]
    assert per_sample == pytest.approx([7.681682, 6.371371, 8.224224, 6.269269], abs=1e-6)
    assert res.eq == pytest.approx(sum(per_sample) / 4, abs=1e-12)  # linearity
    assert res.dimension_scores == {"P": 7.5, "A": 6.5, "C": 6.5, "E": 7.5}
    assert res.se == pytest.approx(0.484586, abs=1e-6)
    assert (res.ci_low, res.ci_high) == pytest.approx((5.594469, 8.678804), abs=1e-6)
    assert res.n_samples == 4 and res.weights_source == "paper"


def test_score_models_bootstrap() -> None:
    recs = records("m") + records("flat", [(5, 5, 5, 5)] * 4, epochs=2)
    out = score_models(recs, n_boot=500, seed=0)
    m, flat = out["m"], out["flat"]
    assert m.ci_low < m.eq < m.ci_high and m.se > 0
    assert (flat.eq, flat.ci_low, flat.ci_high, flat.se) == (5.0, 5.0, 5.0, 0.0)
    assert score_models(recs, n_boot=500, seed=0)["m"] == m  # seeded
    assert score_models(recs, n_boot=500, seed=0, paired=False)["m"].eq == m.eq
    for d in DIMENSIONS:
        lo, hi = m.dimension_ci[d]
        assert lo <= m.dimension_scores[d] <= hi
    # epochs are averaged per sample: two epochs (8, ...) and (6, ...) behave like one sample scored 7
    two = [
        DimRecord("e", "s0", 0, {"P": 8, "A": 8, "C": 8, "E": 8}),
        DimRecord("e", "s0", 1, {"P": 6, "A": 6, "C": 6, "E": 6}),
    ]
    assert score_models(two, method="t")["e"].n_samples == 1
    assert score_models(two, n_boot=10)["e"].eq == pytest.approx(7.0)
    grouped = score_models(
        [DimRecord("m", "a", 0, ALPHA_MODEL, lang="en"), DimRecord("m", "b", 0, BETA_MODEL, lang="zh")],
        group_by="lang",
        n_boot=10,
    )
    assert grouped["en"]["m"].eq == pytest.approx(7.681682, abs=1e-6) and grouped["zh"]["m"].group == "zh"
    with pytest.raises(ValueError, match="outside"):
        score_models([DimRecord("m", "a", 0, {"P": 12})])


def test_zero_count_rows_are_no_rows() -> None:
    rows = count_rows() + [dict(P=2, A=0, C=0, E=0, Y=0, count=0)]
    assert estimate_weights(rows).raw == pytest.approx(estimate_weights(count_rows()).raw, abs=1e-15)


def test_battles_from_pointwise_records_feed_thurstone() -> None:
    from eq_evals.ratings import thurstone_mosteller

    recs = [DimRecord("good", f"s{i}", 0, {"P": 8, "A": 7, "C": 8, "E": 8}) for i in range(6)]
    recs += [DimRecord("poor", f"s{i}", 0, {d: 9 if i == 0 else 4 for d in DIMENSIONS}, lang="zh") for i in range(6)]
    recs += [DimRecord("same", f"s{i}", 0, {"P": 8, "A": 7, "C": 8, "E": 8}) for i in range(3)]
    battles = battles_from_records(recs)
    by_pair = {}
    for c in battles:
        by_pair.setdefault((c.model_a, c.model_b), []).append(c.outcome)
    assert by_pair[("good", "poor")] == [0.0] + [1.0] * 5  # on s0 poor scores 9 everywhere and wins
    assert by_pair[("good", "same")] == [0.5] * 3  # equal composites draw
    assert all(c.margin == (0 if c.outcome == 0.5 else 1) and c.dimension == "eq" for c in battles)
    assert len(battles_from_records(recs, tie_margin=10.0)) == len(battles)
    assert {c.outcome for c in battles_from_records(recs, tie_margin=10.0)} == {0.5}
    ratings = thurstone_mosteller(battles)
    assert ratings["good"].score > ratings["same"].score > ratings["poor"].score


def brute_force_do(rows: list[dict], x: str, adjust: tuple[str, ...]) -> dict:
    """Theorem 3.1 written out with plain loops over the observed strata, as an independent reference."""
    total = sum(r["count"] for r in rows)
    strata = {tuple(r[a] for a in adjust) for r in rows}
    out = {}
    for xv in sorted({r[x] for r in rows}):
        out[xv] = {}
        for yv in sorted({r["Y"] for r in rows}):
            s = 0.0
            for z in strata:
                in_z = [r for r in rows if tuple(r[a] for a in adjust) == z]
                n_z = sum(r["count"] for r in in_z)
                n_xz = sum(r["count"] for r in in_z if r[x] == xv)
                n_xzy = sum(r["count"] for r in in_z if r[x] == xv and r["Y"] == yv)
                s += n_xzy / n_xz * n_z / total
            out[xv][yv] = s
    return out


def test_vectorised_estimator_matches_loops_and_mutual_information() -> None:
    rng = np.random.default_rng(5)
    raw = simulate(6_000, seed=5)
    # graded 0-10 scores, discretised into tertiles: three states per dimension, 27 strata for E
    graded = compress(
        [{**r, **{d: int(rng.integers(0, 4) if r[d] == 0 else rng.integers(3, 11)) for d in DIMENSIONS}} for r in raw]
    )
    w = estimate_weights(graded, discretize="tertiles")
    tert = discretizer("tertiles")
    binned = [{**r, **{d: tert(r[d]) for d in DIMENSIONS}} for r in graded]
    for d in DIMENSIONS:
        reference = brute_force_do(binned, d, PARENTS[d])
        for xv, dist in reference.items():
            for yv, p in dist.items():
                assert w.do_distributions[d][xv][yv] == pytest.approx(p, abs=1e-12)
        # W(X) = I(X; Y) with X uniform: H(Y_ref) - mean_x H(Y | do(x))
        do = np.array([[reference[xv][yv] for yv in sorted(reference[xv])] for xv in sorted(reference)])
        ref = do.mean(axis=0)
        entropy = lambda p: -float(np.sum(p[p > 0] * np.log(p[p > 0])))  # noqa: E731
        mi = entropy(ref) - float(np.mean([entropy(row) for row in do]))
        assert w.raw[d] == pytest.approx(mi, abs=1e-12)
        assert 0 <= w.raw[d] <= min(math.log(do.shape[0]), math.log(do.shape[1]))
