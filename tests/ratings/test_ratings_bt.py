"""Bradley-Terry MLE, its item bootstrap, and degenerate inputs."""

import math
import random
import time
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from eq_evals.ratings import Comparison, bradley_terry, elo, item_bootstrap, separability

C = Comparison
ELO_3_TO_1 = 400 * math.log10(3)  # 190.85: P = 3/4 <=> 10^(d/400) = 3


def test_three_wins_to_one_hand_worked():
    cs = [C("a", "b", 1.0, 1, f"i{k}") for k in range(3)] + [C("b", "a", 1.0, 1, "i3")]
    r = bradley_terry(cs, margin_weighted=False, l2=0)
    assert r["a"].score - r["b"].score == pytest.approx(ELO_3_TO_1, abs=1e-6)
    assert (r["a"].score + r["b"].score) / 2 == pytest.approx(1000.0)
    assert r["a"].lower is None and r["a"].sigma is None
    # the default weak prior moves it by well under an Elo point
    assert bradley_terry(cs, margin_weighted=False)["a"].score - 1000 == pytest.approx(ELO_3_TO_1 / 2, abs=0.5)
    # natural-log scale: scale=1, base=e gives ln 3
    r = bradley_terry(cs, margin_weighted=False, l2=0, scale=1.0, base=math.e, anchor=0.0)
    assert r["a"].score - r["b"].score == pytest.approx(math.log(3))


def test_ties_are_half_wins_and_margin_modes():
    # a wins once, one draw: a 1.5 vs b 0.5 -> odds 3
    r = bradley_terry([C("a", "b", 1.0, 1, "i"), C("a", "b", 0.5, 0, "j")], margin_weighted=False, l2=0)
    assert r["a"].score - r["b"].score == pytest.approx(ELO_3_TO_1)
    # pseudo-wins: a wins with margin 3, b wins with margin 1 -> 3 vs 1
    cs = [C("a", "b", 1.0, 3, "i"), C("a", "b", 0.0, 1, "j")]
    r = bradley_terry(cs, l2=0)
    assert r["a"].score - r["b"].score == pytest.approx(ELO_3_TO_1)
    # margin-agnostic: 1 vs 1 -> equal
    r = bradley_terry(cs, margin_weighted=False, l2=0)
    assert r["a"].score == pytest.approx(r["b"].score)
    # fractional: a wins m=5 -> (1.0, 0.0); b wins m=0 -> (0.5, 0.5): a 1.5 vs b 0.5 -> odds 3
    cs = [C("a", "b", 1.0, 5, "i"), C("a", "b", 0.0, 0, "j")]
    r = bradley_terry(cs, margin_mode="fractional", l2=0)
    assert r["a"].score - r["b"].score == pytest.approx(ELO_3_TO_1)


def test_matches_an_independent_scipy_fit_and_anchor_model():
    rng = random.Random(5)
    models = ["m0", "m1", "m2", "m3", "m4"]
    skill = {m: i * 0.4 for i, m in enumerate(models)}
    cs = []
    for it in range(60):
        a, b = rng.sample(models, 2)
        p = 1 / (1 + math.exp(-(skill[a] - skill[b])))
        cs.append(C(a, b, 1.0 if rng.random() < p else 0.0, rng.randint(1, 3), f"it{it}"))
    r = bradley_terry(cs, margin_weighted=False, l2=0)
    # independent fit: minimise the negative log-likelihood of the raw rows over theta
    idx = {m: i for i, m in enumerate(models)}

    def nll(theta):
        return -sum(
            (
                c.outcome * math.log(1 / (1 + math.exp(-(theta[idx[c.model_a]] - theta[idx[c.model_b]]))))
                + (1 - c.outcome) * math.log(1 / (1 + math.exp(theta[idx[c.model_a]] - theta[idx[c.model_b]])))
            )
            for c in cs
        )

    theta = minimize(nll, np.zeros(5), method="BFGS", options={"gtol": 1e-8}).x
    elo_scores = theta * 400 / math.log(10)
    elo_scores += 1000 - elo_scores.mean()
    for m in models:
        assert r[m].score == pytest.approx(elo_scores[idx[m]], abs=0.05)
    ra = bradley_terry(cs, margin_weighted=False, l2=0, anchor_model="m0", anchor=1114.0)
    assert ra["m0"].score == pytest.approx(1114.0)
    assert ra["m3"].score - ra["m0"].score == pytest.approx(r["m3"].score - r["m0"].score)


def test_all_ties_give_equal_finite_ratings():
    cs = [C("a", "b", 0.5, 0, "i"), C("b", "c", 0.5, 0, "j"), C("a", "c", 0.5, 0, "k")]
    r = bradley_terry(cs, bootstrap_rounds=50)
    for m in "abc":
        assert r[m].score == pytest.approx(1000.0) and math.isfinite(r[m].upper)


def test_two_models_perfect_separation_warns_and_stays_finite():
    cs = [C("a", "b", 1.0, 2, f"i{k}") for k in range(4)]
    with pytest.warns(RuntimeWarning, match="never lost"):
        r = bradley_terry(cs)
    assert math.isfinite(r["a"].score) and r["a"].score > r["b"].score
    with pytest.raises(ValueError, match="does not exist"):
        bradley_terry(cs, l2=0)


def test_degenerate_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="empty"):
        bradley_terry([])
    with pytest.raises(ValueError, match="at least two models"):
        bradley_terry([], models=["solo"])
    cs = [C("a", "b", 1.0, 1, "i"), C("b", "a", 1.0, 1, "j"), C("c", "d", 1.0, 1, "k"), C("d", "c", 1.0, 2, "l")]
    with pytest.raises(ValueError, match=r"disconnected into 2 components \(1: a, b; 2: c, d\)"):
        bradley_terry(cs)
    r = bradley_terry(cs, per_component=True)
    assert r["a"].component == r["b"].component != r["c"].component
    assert r["a"].score + r["b"].score == pytest.approx(2000.0)
    with pytest.raises(ValueError, match="anchor_model"):
        bradley_terry(cs[:2], anchor_model="zzz")


def _sim(n_models=6, n_items=40, seed=0):
    rng = random.Random(seed)
    models = [f"m{i}" for i in range(n_models)]
    cs = []
    for it in range(n_items):
        for i, a in enumerate(models):
            for b in models[i + 1 :]:
                p = 1 / (1 + math.exp(-(0.3 * (models.index(a) - models.index(b)))))
                u = rng.random()
                cs.append(
                    C(
                        a,
                        b,
                        0.5 if u < 0.1 else (1.0 if rng.random() < p else 0.0),
                        0 if u < 0.1 else rng.randint(1, 3),
                        f"it{it}",
                    )
                )
    return cs


def test_bootstrap_is_seeded_and_contains_the_estimate():
    cs = _sim()
    r1 = bradley_terry(cs, bootstrap_rounds=200, seed=7)
    r2 = bradley_terry(list(reversed(cs)), bootstrap_rounds=200, seed=7)
    r3 = bradley_terry(cs, bootstrap_rounds=200, seed=8)
    for m in r1:
        assert (r1[m].lower, r1[m].upper) == (r2[m].lower, r2[m].upper)
        assert r1[m].lower < r1[m].score < r1[m].upper
        assert r1[m].sigma > 0
    assert any(r1[m].lower != r3[m].lower for m in r1)
    assert r1["m0"].score < r1["m5"].score
    assert 0.0 <= separability(r1) <= 1.0


def test_bootstrap_resamples_items_as_clusters():
    # every comparison is on one item: each resample is that same item -> zero-width interval
    cs = [C("a", "b", 1.0, 1, "only"), C("b", "a", 1.0, 2, "only"), C("a", "b", 0.5, 0, "only")]
    r = bradley_terry(cs, bootstrap_rounds=30)
    for m in "ab":
        assert r[m].lower == pytest.approx(r[m].score) and r[m].upper == pytest.approx(r[m].score)


def test_generic_item_bootstrap_for_elo():
    cs = _sim(n_models=3, n_items=15)
    ci = item_bootstrap(cs, lambda s: elo(s), rounds=20, seed=1)
    assert set(ci) == {"m0", "m1", "m2"} and all(lo <= hi for lo, hi, _ in ci.values())


def test_speed_smoke():
    # 10 models x 100 items x 200 rounds: well under a second or two
    rng = np.random.default_rng(0)
    models = [f"m{i}" for i in range(10)]
    cs = [
        C(models[a], models[b], float(rng.integers(0, 2)), 1, f"it{it}")
        for it in range(100)
        for a in range(10)
        for b in range(a + 1, 10)
    ]
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bradley_terry(cs, bootstrap_rounds=200)
    assert time.perf_counter() - t < 10
