"""Pairing: round robin, FACET seed round and smart matching (spec §4.6)."""

import random
from itertools import combinations

import pytest

from eq_evals.ratings import (
    Comparison,
    adaptive_pairs,
    facet_seed_round,
    pair_priorities,
    ranking_unchanged,
    round_robin,
    run_facet_pairing,
    trueskill_facet,
)

NINE = [f"model{i}" for i in range(9)]
ITEMS = [f"item{i}" for i in range(60)]


def test_round_robin():
    assert round_robin(["c", "a", "b"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(round_robin(NINE)) == 36
    with pytest.raises(ValueError, match="at least two"):
        round_robin(["solo"])
    with pytest.raises(ValueError, match="duplicate"):
        round_robin(["a", "a", "b"])


def test_seed_round_follows_the_spec_procedure():
    pairs = facet_seed_round(NINE, 3, 0)
    # independent restatement of spec §4.6 phase 1 (RANDOM_SEED + row + 10000 * version; k = 4)
    rng = random.Random(42 + 3 + 0)
    expected = set()
    for m in sorted(NINE):
        others = [x for x in sorted(NINE) if x != m]
        rng.shuffle(others)
        expected |= {tuple(sorted((m, o))) for o in others[:4]}
    assert set(pairs) == expected
    assert facet_seed_round(NINE, 3, 0) == pairs
    assert facet_seed_round(NINE, 3, 1) != pairs  # version changes the seed
    # each model picks 4 of 8: a pair is absent with probability (1/2)^2 -> about 27 of 36
    mean = sum(len(facet_seed_round(NINE, i, 0)) for i in range(300)) / 300
    assert 26 < mean < 28
    assert facet_seed_round(["a", "b"], 0) == [("a", "b")]


def test_adaptive_pairs_tiers_priority_and_exclusion():
    # ratings: the closest, most uncertain pair must come first
    ratings = {m: (1000 + 100 * i, 100.0) for i, m in enumerate(NINE)}
    ratings["model8"] = (1000.0, 300.0)  # ties with model0 and is very uncertain
    pr = pair_priorities(ratings)
    assert pr[0][1] == ("model0", "model8")
    out = adaptive_pairs(ratings, set(), ITEMS, rng=1)
    # 20 pairs: 3 x 8 + 4 x 4 + 13 x 2 = 66 matchups
    assert len(out) == 66
    per_pair = {}
    for item, pair in out:
        per_pair.setdefault(pair, []).append(item)
    ordered = [p for _, p in pr[:20]]
    assert [len(per_pair[p]) for p in ordered] == [8] * 3 + [4] * 4 + [2] * 13
    assert all(len(set(v)) == len(v) for v in per_pair.values())  # without replacement
    assert adaptive_pairs(ratings, set(), ITEMS, rng=1) == out  # deterministic
    # items already compared for a pair are never drawn again
    compared = {(it, ("model0", "model8")) for it in ITEMS[:-1]}
    again = adaptive_pairs(ratings, compared, ITEMS, rng=2)
    assert [it for it, p in again if p == ("model0", "model8")] == [ITEMS[-1]]


def test_adaptive_pairs_for_new_models_only_and_exhaustion():
    ratings = {"a": (1000, 50), "b": (1010, 50), "new": (1500, 300)}
    out = adaptive_pairs(ratings, set(), ["i1", "i2"], involving=["new"], rng=0)
    assert {p for _, p in out} == {("a", "new"), ("b", "new")}
    full = {(i, p) for i in ("i1", "i2") for p in round_robin(ratings)}
    assert adaptive_pairs(ratings, full, ["i1", "i2"], rng=0) == []
    with pytest.raises(ValueError, match="sigma"):
        adaptive_pairs(trueskill_facet([], models=["a", "b"]) | {"c": _no_sigma()}, set(), ["i"], rng=0)


def _no_sigma():
    from eq_evals.ratings import Rating

    return Rating("c", 1000.0, None, None, None, 0, 0, 0, 0)


def test_ranking_unchanged():
    prev = {"a": 3.0, "b": 2.0, "c": 1.0}
    assert not ranking_unchanged(None, prev)
    assert ranking_unchanged(prev, {"a": 30.0, "b": 20.0, "c": 10.0})
    assert not ranking_unchanged(prev, {"a": 1.0, "b": 2.0, "c": 3.0})
    assert ranking_unchanged(prev, {"a": 3.0, "b": 1.0, "c": 2.0}, models=["a"])


def test_run_facet_pairing_with_a_simulated_judge():
    skill = {"a": 3, "b": 2, "c": 1, "d": 0}
    items = [f"it{i}" for i in range(8)]

    def judge(matchups, phase):
        return [Comparison(x, y, 1.0 if skill[x] > skill[y] else 0.0, abs(skill[x] - skill[y]), it, phase=phase)
                for it, (x, y) in matchups]

    run = run_facet_pairing(list(skill), items, judge, trueskill_facet, max_smart_rounds=4, pairs_per_round=4)
    assert run.matchups_per_phase["seed"] == sum(len(facet_seed_round(list(skill), i, 0)) for i in range(8))
    assert run.converged or run.rounds <= 4
    final = trueskill_facet(run.comparisons)
    assert sorted(final, key=lambda m: -final[m].score) == ["a", "b", "c", "d"]
    again = run_facet_pairing(list(skill), items, judge, trueskill_facet, max_smart_rounds=4, pairs_per_round=4)
    assert again.comparisons == run.comparisons
