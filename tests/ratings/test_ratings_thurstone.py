"""Thurstone-Mosteller ratings (PACE paper App. B.2; docs/ratings.md §11): the worked example there, ties, Elo map, bootstrap, and the
leaderboard method."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from eq_evals.ratings import ELO_K, fit_thurstone, thurstone_elo, thurstone_mosteller
from eq_evals.ratings import Comparison as C


def battles(record: list[tuple[str, str, int, int]], ties: int = 0) -> list[C]:
    """Each (a, b, wins of a, wins of b) as single-battle items; ``ties`` draws per pair."""
    out, k = [], 0
    for a, b, wa, wb in record:
        for outcome, n in ((1.0, wa), (0.0, wb), (0.5, ties)):
            for _ in range(n):
                out.append(C(a, b, outcome, 0 if outcome == 0.5 else 1, f"i{k}"))
                k += 1
    return out


SPEC_EXAMPLE = [("m_a", "m_b", 7, 3), ("m_b", "m_c", 6, 4), ("m_a", "m_c", 8, 2)]


def test_worked_example_of_the_docs() -> None:
    r = thurstone_mosteller(battles(SPEC_EXAMPLE))
    mu = [r[m].extra["mu"] for m in ("m_a", "m_b", "m_c")]
    assert mu == pytest.approx([0.454196, -0.090873, -0.363323], abs=1e-5)
    assert sum(mu) == pytest.approx(0.0, abs=1e-12)
    assert norm.cdf(mu[0] - mu[1]) == pytest.approx(0.7071, abs=1e-4)
    assert norm.cdf(mu[1] - mu[2]) == pytest.approx(0.6074, abs=1e-4)
    assert norm.cdf(mu[0] - mu[2]) == pytest.approx(0.7932, abs=1e-4)
    assert [r[m].score for m in ("m_a", "m_b", "m_c")] == pytest.approx([1134.29, 973.13, 892.58], abs=0.01)
    assert (r["m_a"].n, r["m_a"].wins, r["m_a"].losses, r["m_a"].draws) == (20, 15, 5, 0)
    W = np.array([[0, 7, 8], [3, 0, 6], [2, 4, 0.0]])
    mu2, nll = fit_thurstone(W)
    assert mu2 == pytest.approx(mu, abs=1e-9) and nll == pytest.approx(17.846573, abs=1e-6)
    # the MLE: the gradient of the paper's log-likelihood vanishes there
    d = mu2[:, None] - mu2[None, :]
    grad = (W * norm.pdf(d) / norm.cdf(d)).sum(axis=1) - (W * norm.pdf(d) / norm.cdf(d)).sum(axis=0)
    assert np.abs(grad).max() < 1e-6


def test_elo_map_parameters() -> None:
    assert ELO_K == pytest.approx(295.6677, abs=1e-4)
    assert thurstone_elo([0.5, -0.5]) == pytest.approx([1000 + ELO_K / 2, 1000 - ELO_K / 2])
    r = thurstone_mosteller(battles(SPEC_EXAMPLE), base=1500.0, k=100.0)
    assert r["m_a"].score == pytest.approx(1500 + 100 * 0.454196, abs=1e-3)
    assert sum(x.score for x in r.values()) / 3 == pytest.approx(1500.0)
    with pytest.raises(ValueError, match="k must be"):
        thurstone_mosteller(battles(SPEC_EXAMPLE), k=0)


def test_ties_half_or_dropped() -> None:
    comps = battles([("a", "b", 3, 1)], ties=2)
    half = thurstone_mosteller(comps)
    mu, _ = fit_thurstone(np.array([[0, 4.0], [2.0, 0]]))  # 3 wins + 2 half wins vs 1 win + 2 half wins
    assert half["a"].extra["mu"] == pytest.approx(mu[0], abs=1e-9)
    assert half["a"].extra["mu"] - half["b"].extra["mu"] == pytest.approx(norm.ppf(4 / 6), abs=1e-6)
    dropped = thurstone_mosteller(comps, ties="drop")
    assert dropped["a"].extra["mu"] - dropped["b"].extra["mu"] == pytest.approx(norm.ppf(3 / 4), abs=1e-6)
    assert half["a"].draws == dropped["a"].draws == 2  # the counts always show the draws
    only_ties = battles([("a", "b", 0, 0)], ties=3)
    assert thurstone_mosteller(only_ties)["a"].score == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="no battle left"):
        thurstone_mosteller(only_ties, ties="drop")
    # a margin-0 "win" is a draw by default (as the other leaderboard methods), a win with margin_zero="win"
    soft = [C("a", "b", 1.0, 0, "x"), C("a", "b", 0.0, 1, "y")]
    assert (
        thurstone_mosteller(soft)["a"].extra["mu"]
        < 0
        < thurstone_mosteller(soft, margin_zero="win")["a"].extra["mu"] + 1e-9
    )


def test_degenerate_inputs() -> None:
    with pytest.warns(RuntimeWarning, match="perfect separation"):
        r = thurstone_mosteller(battles([("a", "b", 5, 0)]))
    assert math.isfinite(r["a"].score) and r["a"].score > r["b"].score
    with pytest.raises(ValueError, match="disconnected"):
        thurstone_mosteller(battles([("a", "b", 2, 1), ("c", "d", 1, 2)]))
    with pytest.raises(ValueError, match="empty input"):
        thurstone_mosteller([])
    with pytest.raises(ValueError, match="ties must be"):
        thurstone_mosteller(battles(SPEC_EXAMPLE), ties="ignore")


def test_bootstrap_over_battles() -> None:
    comps = battles(SPEC_EXAMPLE)
    r = thurstone_mosteller(comps, bootstrap_rounds=300, seed=4)
    assert thurstone_mosteller(comps, bootstrap_rounds=300, seed=4) == r
    for x in r.values():
        assert x.lower < x.score < x.upper and x.sigma > 0
    # every battle is its own item here, so item clusters and single battles resample alike
    by_battle = thurstone_mosteller(comps, bootstrap_rounds=300, seed=4, cluster="battle")
    assert {m: (x.lower, x.upper) for m, x in by_battle.items()} == {m: (x.lower, x.upper) for m, x in r.items()}
    # one item holding every battle: each replicate draws that item, so the interval has zero width
    same_item = [C(c.model_a, c.model_b, c.outcome, c.margin, "one") for c in comps]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flat = thurstone_mosteller(same_item, bootstrap_rounds=20)
    assert all(x.lower == pytest.approx(x.score) == pytest.approx(x.upper) for x in flat.values())


def test_leaderboard_method(tmp_path) -> None:
    from eq_evals.pairwise.leaderboard import METHODS, build_tables, rate, render_tables

    comps = [C(c.model_a, c.model_b, c.outcome, c.margin, c.item, dimension="empathy") for c in battles(SPEC_EXAMPLE)]
    assert "thurstone" in METHODS
    ratings = rate(comps, "thurstone", bootstrap=50, seed=0)
    assert ratings["m_a"].lower is not None
    [table] = build_tables(comps, "thurstone", bootstrap=50, seed=0, progress=False)
    assert [r.model for r in table.ratings] == ["m_a", "m_b", "m_c"]
    assert "Thurstone-Mosteller" in render_tables("thurstone", [table], {})
