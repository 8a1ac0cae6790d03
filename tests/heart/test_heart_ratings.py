"""HEART's rating arithmetic: the soft-outcome mapping, the Elo formula, the asymptotic interval, recovery of known
strengths, and agreement with the release's arithmetic as docs/heart.md, 'Ratings (eq-evals ratings)' and docs/ratings.md, '2. Bradley–Terry (default)' describe it (re-implemented here)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.optimize import minimize

from eq_evals.heart.leaderboard import L2, comparisons, sweep_rates, win_rates
from eq_evals.ratings import Comparison, asymptotic_interval, bradley_terry, comparison_weights

TRUE_THETA = {"sys-a": 1.2, "sys-b": 0.6, "sys-c": 0.0, "sys-d": -0.5, "reference": -1.3}


def synthetic(n_items: int = 150, seed: int = 7) -> list[dict]:
    """Forced-choice judge records with strengths: the winner drawn from the true BT probabilities; the strength
    grows with the true gap (1..5), plus noise."""
    rng = random.Random(seed)
    systems = sorted(TRUE_THETA)
    records = []
    for item in range(n_items):
        for i, a in enumerate(systems):
            for b in systems[i + 1 :]:
                for judge in ("j1", "j2"):
                    p = 1 / (1 + math.exp(-(TRUE_THETA[a] - TRUE_THETA[b])))
                    a_wins = rng.random() < p
                    strength = max(1, min(5, round(1 + abs(TRUE_THETA[a] - TRUE_THETA[b]) * 1.5 + rng.gauss(0, 0.7))))
                    records.append(
                        {
                            "sample_id": f"s{item}",
                            "group_id": f"g{item // 2}",
                            "language": "en",
                            "system_a": a,
                            "system_b": b,
                            "judge": judge,
                            "order": rng.choice(["ab", "ba"]),
                            "criterion": "overall",
                            "winner": "a" if a_wins else "b",
                            "strength": strength,
                            "error": None,
                            "self_judged": False,
                            "rubric": "heart",
                        }
                    )
    return records


def release_elo(records: list[dict]) -> dict[str, float]:
    """The release's arithmetic as docs/heart.md, 'Ratings (eq-evals ratings)' and docs/ratings.md, '2. Bradley–Terry (default)' describe it: soft score s_c for the first-listed system; minimise
    -sum[s log p + (1-s) log(1-p)] + 1e-6 sum(log s_i)^2 with p = s_a/(s_a+s_b) clipped to [1e-10, 1-1e-10], BFGS
    from theta = 0; strengths divided by their geometric mean; rating 1500 + 400 log10(s_i)."""
    soft = {1: 0.55, 2: 0.65, 3: 0.75, 4: 0.85, 5: 0.95}
    systems = sorted({r["system_a"] for r in records} | {r["system_b"] for r in records})
    idx = {s: i for i, s in enumerate(systems)}
    a = np.array([idx[r["system_a"]] for r in records])
    b = np.array([idx[r["system_b"]] for r in records])
    s = np.array([soft[r["strength"]] if r["winner"] == "a" else 1 - soft[r["strength"]] for r in records])

    def loss(theta: np.ndarray) -> float:
        p = np.clip(1 / (1 + np.exp(theta[b] - theta[a])), 1e-10, 1 - 1e-10)
        return float(-(s * np.log(p) + (1 - s) * np.log(1 - p)).sum() + 1e-6 * (theta**2).sum())

    theta = minimize(loss, np.zeros(len(systems)), method="BFGS", options={"gtol": 1e-9}).x
    strengths = np.exp(theta)
    strengths /= np.exp(np.log(strengths).mean())
    return {sys: 1500 + 400 * math.log10(strengths[i]) for sys, i in idx.items()}


def test_soft_outcome_mapping() -> None:
    def c(outcome: float, margin: int) -> Comparison:
        return Comparison("x", "y", outcome, margin, "i")

    assert [comparison_weights(c(1.0, m), margin_mode="heart_soft")[0] for m in range(1, 6)] == pytest.approx(
        [0.55, 0.65, 0.75, 0.85, 0.95]
    )
    assert comparison_weights(c(0.0, 3), margin_mode="heart_soft") == pytest.approx((0.25, 0.75))
    assert comparison_weights(c(0.5, 0), margin_mode="heart_soft") == (0.5, 0.5)


def test_elo_formula_and_asymptotic_interval() -> None:
    comps = comparisons(synthetic(40))
    ratings = bradley_terry(comps, margin_mode="heart_soft", l2=L2, anchor=1500.0)
    scores = {m: r.score for m, r in ratings.items()}
    assert np.mean(list(scores.values())) == pytest.approx(1500.0, abs=1e-9)
    # Elo_i = 1500 + 400 (theta_i - mean theta) / ln 10 = 1500 + 400 log10(s_i / geomean(s))
    theta = {m: (v - 1500) * math.log(10) / 400 for m, v in scores.items()}
    strengths = {m: math.exp(t) for m, t in theta.items()}
    geomean = math.exp(np.mean([math.log(v) for v in strengths.values()]))
    for m, s in strengths.items():
        assert scores[m] == pytest.approx(1500 + 400 * math.log10(s / geomean))
    lo, hi = asymptotic_interval(1500.0, 4000)
    assert (hi - lo) / 2 == pytest.approx(
        340.5 / math.sqrt(4000), rel=1e-3
    )  # ±5.4 at n = 4,000 (HEART paper §9.8: SE = sqrt(1/n_i))
    assert asymptotic_interval(1500.0, 0) == (None, None)


def test_known_strengths_are_recovered() -> None:
    comps = comparisons(synthetic())
    ratings = bradley_terry(comps, margin_mode="heart_soft", l2=L2, anchor=1500.0, bootstrap_rounds=100, seed=1)
    ranked = sorted(ratings, key=lambda m: -ratings[m].score)
    assert ranked == sorted(TRUE_THETA, key=lambda m: -TRUE_THETA[m])
    assert all(r.lower < r.score < r.upper for r in ratings.values())
    rates = win_rates(comps)
    assert rates["sys-a"]["overall"] > 60 > rates["reference"]["overall"]


def test_heart_mode_agrees_with_the_release_arithmetic() -> None:
    records = synthetic(60, seed=3)
    ours = bradley_terry(comparisons(records), margin_mode="heart_soft", l2=L2, anchor=1500.0)
    theirs = release_elo(records)
    for m in theirs:
        assert ours[m].score == pytest.approx(theirs[m], abs=0.05), m


def test_both_orders_are_combined_and_sweeps_counted() -> None:
    base = {
        "sample_id": "s1",
        "group_id": "g1",
        "language": "en",
        "system_a": "new",
        "system_b": "old",
        "judge": "j",
        "error": None,
        "self_judged": False,
        "rubric": "heart",
    }
    agree = [
        dict(base, order="ab", criterion="overall", winner="a", strength=2),
        dict(base, order="ba", criterion="overall", winner="a", strength=5),
    ]
    [c] = comparisons(agree)
    assert (c.model_a, c.model_b, c.outcome, c.margin, c.conflicted) == ("new", "old", 1.0, 4, False)
    # position-biased judge: the first-shown reply wins in both orders -> a conflicted draw
    biased = [
        dict(base, order="ab", criterion="overall", winner="a", strength=3),
        dict(base, order="ba", criterion="overall", winner="b", strength=3),
    ]
    [c] = comparisons(biased)
    assert (c.outcome, c.margin, c.conflicted) == (0.5, 0, True)
    sweep = [dict(base, order="ab", criterion=x, winner="a", strength=1) for x in "HEART"]
    sweep += [dict(base, order="ba", criterion=x, winner="a" if x != "T" else "b", strength=1) for x in "HEART"]
    assert sweep_rates(sweep) == {"new": 50.0, "old": 0.0}


def test_judge_agreement_statistics() -> None:
    from eq_evals.heart.leaderboard import judge_agreement

    def comp(judge: str, outcome: float) -> Comparison:
        return Comparison("x", "y", outcome, 0 if outcome == 0.5 else 2, "g", dimension="overall", judge=judge)

    # 4 comparisons: j1 and j2 agree on 3, j1 and j3 on 2; j3 did not judge the last one
    keyed = []
    for sid, (v1, v2, v3) in enumerate([(1.0, 1.0, 1.0), (0.0, 0.0, 1.0), (1.0, 0.0, 1.0), (0.0, 0.0, None)]):
        keyed += [(f"s{sid}", comp("j1", v1)), (f"s{sid}", comp("j2", v2))]
        if v3 is not None:
            keyed.append((f"s{sid}", comp("j3", v3)))
    result = judge_agreement(keyed)
    assert result["pairwise"]["j1 ~ j2"] == {"n": 4, "agreement": 0.75}
    assert result["pairwise"]["j1 ~ j3"] == {"n": 3, "agreement": pytest.approx(2 / 3)}
    assert result["k_way"] == {"n": 3, "agreement": pytest.approx(1 / 3)}
    # Fleiss on the 3 fully judged units: labels (a,a,a), (b,b,a), (a,b,a)
    from eq_evals.ratings import fleiss_kappa

    assert result["fleiss_kappa"] == pytest.approx(fleiss_kappa([["a", "a", "a"], ["b", "b", "a"], ["a", "b", "a"]]))
    assert -1 <= result["krippendorff_alpha"] <= 1
    assert judge_agreement(keyed[:1])["note"].startswith("fewer than two judges")
