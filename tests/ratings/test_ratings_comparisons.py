"""Verdict aggregation (docs/ratings.md, '1. Records and aggregation of the two orders'), comparison records, ordering and win rates."""

import pytest

from eq_evals.ratings import (
    Comparison,
    Rating,
    Verdict,
    aggregate_orders,
    canonical_order,
    leaderboard,
    plus_tally,
    ranking,
    win_rates,
)


@pytest.mark.parametrize(
    "m1,m2,expected",
    [(1, 2, 2), (2, 3, 2), (3, 4, 4), (4, 5, 4), (1, 4, 2), (2, 5, 4), (0, 1, 0), (5, 5, 5)],
)
def test_agreeing_orders_round_half_to_even(m1, m2, expected):
    # model_a wins both calls: A in the first call, B in the second (positions swapped)
    assert aggregate_orders(Verdict("A", m1), Verdict("B", m2)) == (1.0, expected, False)
    # model_b wins both calls
    assert aggregate_orders(Verdict("B", m1), Verdict("A", m2)) == (0.0, expected, False)


def test_disagreement_and_failures():
    # the judge picks position A both times = different underlying models -> conflict
    assert aggregate_orders(Verdict("A", 3), Verdict("A", 2)) == (0.5, 0, True)
    assert aggregate_orders(Verdict("A", 3), Verdict("A", 2), conflict_policy="discard") is None
    assert aggregate_orders(Verdict(None), Verdict("A", 2)) is None
    assert aggregate_orders(Verdict("B", 1), Verdict(None)) is None
    with pytest.raises(ValueError):
        aggregate_orders(Verdict("A", 1), Verdict("B", 1), conflict_policy="keep")


def test_verdict_parse_and_validation():
    assert Verdict.parse("A+++") == Verdict("A", 3)
    assert Verdict.parse(" B ") == Verdict("B", 0)
    assert Verdict.parse("A++++++") == Verdict(None, 0)
    assert Verdict.parse("tie") == Verdict(None, 0)
    with pytest.raises(ValueError):
        Verdict("C", 1)
    with pytest.raises(ValueError):
        Verdict("A", 6)


def test_plus_tally():
    # first call (a as A): A+++ -> 3 for a; second (b as A): A+ -> 1 for b
    assert plus_tally(Verdict("A", 3), Verdict("A", 1)) == (3, 1)
    assert plus_tally(Verdict("A", 3), Verdict("B", 2)) == (5, 0)


def test_comparison_validation():
    with pytest.raises(ValueError, match="itself"):
        Comparison("x", "x", 1.0, 1, "i")
    with pytest.raises(ValueError, match="outcome"):
        Comparison("x", "y", 0.7, 1, "i")
    with pytest.raises(ValueError, match="draw must have margin 0"):
        Comparison("x", "y", 0.5, 2, "i")
    with pytest.raises(ValueError, match="margin"):
        Comparison("x", "y", 1.0, 6, "i")
    c = Comparison("y", "x", 0.0, 2, "i")
    assert c.pair == ("x", "y") and c.winner == "x" and c.loser == "y"


def test_canonical_order_sorts_numbers_naturally():
    cs = [
        Comparison("a", "b", 1.0, 1, "item10", phase="smart_10"),
        Comparison("a", "b", 1.0, 1, "item2", phase="smart_2"),
        Comparison("a", "b", 1.0, 1, "item10", phase="seed"),
        Comparison("a", "b", 1.0, 1, "item9", phase="seed"),
    ]
    got = [(c.phase, c.item) for c in canonical_order(cs)]
    assert got == [("seed", "item9"), ("seed", "item10"), ("smart_2", "item2"), ("smart_10", "item10")]


def test_win_rates_exclude_draws_with_exact_binomial_test():
    cs = [Comparison("a", "b", 1.0, 1, f"i{k}") for k in range(9)]
    cs += [Comparison("b", "a", 1.0, 2, "j"), Comparison("a", "b", 0.5, 0, "k", conflicted=True)]
    rec = win_rates(cs)
    ab, ba = rec[("a", "b")], rec[("b", "a")]
    assert (ab.wins, ab.losses, ab.draws) == (9, 1, 1)
    assert ab.win_rate == pytest.approx(0.9) and ba.win_rate == pytest.approx(0.1)
    # two-sided exact binomial, 9 of 10: 2 * (C(10,9) + C(10,10)) / 2^10 = 22/1024
    assert ab.p_value == pytest.approx(22 / 1024)
    assert ba.p_value == pytest.approx(22 / 1024)
    only_draws = win_rates([Comparison("a", "b", 0.5, 0, "k")])
    assert only_draws[("a", "b")].win_rate is None and only_draws[("a", "b")].p_value is None


def test_leaderboard_and_ranking_sort_best_first_with_name_tiebreak():
    r = {m: Rating(m, s, None, None, None, 0, 0, 0, 0) for m, s in (("b", 1.0), ("a", 1.0), ("c", 2.0))}
    assert [x.model for x in leaderboard(r)] == ["c", "a", "b"]
    assert ranking(r) == ["c", "a", "b"]
    assert ranking({"x": (1.0, 5.0), "y": (2.0, 1.0)}) == ["y", "x"]


def test_margin_zero_wins_count_as_draws_everywhere():
    from eq_evals.ratings import Comparison, trueskill_facet, win_rates

    comps = [Comparison("a", "b", 1.0, 0, "i1"), Comparison("a", "b", 1.0, 2, "i2")]
    ratings = trueskill_facet(comps)
    assert (ratings["a"].wins, ratings["a"].draws, ratings["b"].losses, ratings["b"].draws) == (1, 1, 1, 1)
    record = win_rates(comps)[("a", "b")]
    assert (record.wins, record.losses, record.draws) == (1, 0, 1)
