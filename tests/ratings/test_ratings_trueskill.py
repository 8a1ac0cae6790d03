"""TrueSkill (FACET's, docs/ratings.md §3, and EQ-Bench 3's, §4) and sequential Elo."""

import random

import pytest
import trueskill

from eq_evals.ratings import (
    Comparison,
    elo,
    eqbench3_pseudo_wins,
    facet_env,
    trueskill_eqbench3,
    trueskill_facet,
)

C = Comparison


def test_facet_environment_parameters():
    env = facet_env()
    assert (env.mu, env.sigma, env.beta, env.tau, env.draw_probability) == pytest.approx(
        (1000.0, 1000 / 3, 500 / 3, 0.0, 0.0)
    )


def test_fresh_pair_one_win():
    r = trueskill_facet([C("x", "y", 1.0, 1, "i1")])
    assert (round(r["x"].score, 2), round(r["x"].sigma, 2)) == (1168.21, 287.78)
    assert (round(r["y"].score, 2), round(r["y"].sigma, 2)) == (831.79, 287.78)
    assert (r["x"].wins, r["x"].losses, r["y"].losses, r["x"].n) == (1, 0, 1, 1)


@pytest.mark.parametrize("m,mu", [(1, 1168.2), (2, 1239.5), (3, 1279.5), (4, 1305.5), (5, 1324.0)])
def test_margin_m_is_m_pseudo_wins(m, mu):
    # docs/ratings.md, '3. TrueSkill as FACET does it': winner mu after m wins from a fresh 1000 vs 1000 pair; B wins here
    r = trueskill_facet([C("x", "y", 0.0, m, "i1")])
    assert round(r["y"].score, 1) == mu
    assert r["x"].score == pytest.approx(2000 - r["y"].score)


def test_conflicts_and_margin_zero_are_draws_that_grow_sigma():
    for c in (C("x", "y", 0.5, 0, "i1", conflicted=True), C("x", "y", 1.0, 0, "i1")):
        r = trueskill_facet([c])
        assert r["x"].score == pytest.approx(1000.0) and r["y"].score == pytest.approx(1000.0)
        assert round(r["x"].sigma, 1) == 383.5  # 333.3 -> 383.5 (docs/ratings.md, '3. TrueSkill as FACET does it')
    # an unequal-rating draw, on the same environment (values computed with the trueskill package)
    env = facet_env()
    a, b = trueskill.rate_1vs1(trueskill.Rating(1100, 200), trueskill.Rating(1000, 1000 / 3), drawn=True, env=env)
    assert (round(a.mu, 1), round(a.sigma, 1), round(b.mu, 1), round(b.sigma, 1)) == (1080.6, 179.6, 1053.8, 226.7)


def _mixed(n=30, seed=3):
    rng = random.Random(seed)
    models = ["a", "b", "c", "d"]
    out = []
    for i in range(n):
        x, y = rng.sample(models, 2)
        o = rng.choice([1.0, 0.0, 0.5])
        out.append(C(x, y, o, 0 if o == 0.5 else rng.randint(1, 5), f"item{i}", phase="seed" if i < 15 else "smart_1"))
    return out


def test_sorted_order_is_input_order_independent_and_permutations_report_spread():
    cs = _mixed()
    shuffled = list(cs)
    random.Random(0).shuffle(shuffled)
    r1, r2 = trueskill_facet(cs), trueskill_facet(shuffled)
    assert {m: r.score for m, r in r1.items()} == {m: r.score for m, r in r2.items()}
    given = trueskill_facet(shuffled, order="given")
    assert any(abs(given[m].score - r1[m].score) > 1e-6 for m in r1)  # tau = 0: order matters
    p = trueskill_facet(cs, order_permutations=5, seed=1)
    assert all(r.perm_sd is not None and r.perm_sd > 0 for r in p.values())
    assert p["a"].perm_mean == trueskill_facet(cs, order_permutations=5, seed=1)["a"].perm_mean
    with pytest.raises(ValueError):
        trueskill_facet(cs, order_permutations=1)


def test_trueskill_degenerate_inputs():
    with pytest.raises(ValueError, match="empty"):
        trueskill_facet([])
    with pytest.raises(ValueError, match="at least two models"):
        trueskill_facet([], models=["solo"])
    r = trueskill_facet([], models=["a", "b"])  # priors only
    assert r["a"].score == pytest.approx(1000.0) and r["a"].n == 0


# ------------------------------------------------------------------ EQ-Bench 3


def test_eqbench3_binning_matches_the_shipped_table():
    # docs/ratings.md, '4. TrueSkill as EQ-Bench 3 does it', step 3 (values computed with EQ-Bench 3's code)
    gaps = [1, 2, 3, 4, 5, 6, 9, 12, 15, 18, 24, 30, 45]
    bin20 = [1, 2, 3, 3, 4, 4, 7, 8, 10, 13, 16, 20, 20]
    bin5 = [1, 1, 1, 1, 1, 1, 2, 2, 3, 4, 4, 5, 5]
    for d, k20, k5 in zip(gaps, bin20, bin5):
        assert eqbench3_pseudo_wins(d, 0) == (k20, 0)
        assert eqbench3_pseudo_wins(0, d, 5) == (0, k5)
    assert eqbench3_pseudo_wins(7, 7) == (1, 1)  # equal tallies: one drawn update


def test_eqbench3_updates_match_measured_numbers():
    # one pairing from level ratings: winner 1200 -> 1258.9 (sigma 116.7 -> 100.7) for k = 1
    r = trueskill_eqbench3([C("m1", "m2", 1.0, 1, "s1", plus_a=1, plus_b=0)])
    assert round(r["m1"].extra["raw_mu"], 1) == 1258.9 and round(r["m1"].extra["raw_sigma_bin"], 1) == 100.7
    # and to 1343.1 (sigma 62.2) for k = 20 (a plus gap of 30 or more)
    r = trueskill_eqbench3([C("m2", "m1", 0.0, 5, "s1", plus_a=0, plus_b=40)])
    assert round(r["m1"].score, 1) == 1343.1 and round(r["m1"].extra["raw_sigma_bin"], 1) == 62.2
    # the interval uses sigma from the bin-5 solve: 5 wins in a row from fresh ratings
    env = trueskill.TrueSkill(mu=1200, sigma=350 / 3, beta=350 / 6, tau=0, draw_probability=0)
    w, l = env.create_rating(), env.create_rating()
    for _ in range(5):
        w, l = trueskill.rate_1vs1(w, l, env=env)
    assert r["m1"].sigma == pytest.approx(w.sigma)
    assert r["m1"].upper - r["m1"].score == pytest.approx(1.96 * w.sigma)
    # an exact tie raises sigma 116.7 -> 134.2
    r = trueskill_eqbench3([C("m1", "m2", 0.5, 0, "s1")])
    assert round(r["m1"].extra["raw_sigma_bin"], 1) == 134.2


def test_eqbench3_reconstructs_tallies_and_applies_anchors():
    # without plus tallies a win with margin m counts as 2m pluses to 0: margin 3 -> d = 6 -> 4 wins
    r1 = trueskill_eqbench3([C("a", "b", 1.0, 3, "s")])
    r2 = trueskill_eqbench3([C("a", "b", 1.0, 3, "s", plus_a=6, plus_b=0)])
    assert r1["a"].score == r2["a"].score
    cs = [C("hi", "mid", 1.0, 2, "s1"), C("mid", "lo", 1.0, 2, "s2"), C("hi", "lo", 1.0, 4, "s3")]
    r = trueskill_eqbench3(cs, anchors={"hi": 1500.0, "lo": 200.0})
    assert r["hi"].score == pytest.approx(1500.0) and r["lo"].score == pytest.approx(200.0)
    assert 200 < r["mid"].score < 1500
    raw = trueskill_eqbench3(cs)
    scale = 1300 / (raw["hi"].score - raw["lo"].score)
    assert r["mid"].sigma == pytest.approx(raw["mid"].sigma * scale)


# ------------------------------------------------------------------ Elo


def test_elo_hand_worked():
    # a beats b from 1000/1000 with k = 32: E = 0.5 -> a 1016, b 984
    # then b beats a: E_b = 1 / (1 + 10^((1016 - 984)/400)) = 1 / 2.202264 = 0.454078 -> delta = 32 * 0.545922 = 17.4695
    cs = [C("a", "b", 1.0, 3, "i1"), C("b", "a", 1.0, 1, "i2")]
    r = elo(cs)
    assert r["a"].score == pytest.approx(1016 - 17.4695, abs=1e-3)
    assert r["b"].score == pytest.approx(984 + 17.4695, abs=1e-3)
    # margin-weighted: 3 successive wins for a; a draw leaves equal ratings unchanged
    rm = elo([cs[0]], margin_weighted=True)
    assert rm["a"].score > 1016
    assert elo([C("a", "b", 0.5, 0, "i")])["a"].score == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="empty"):
        elo([])
