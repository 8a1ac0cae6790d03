"""Pairing: round robin, FACET seed round and smart matching (docs/ratings.md, '7. Pairing')."""

import random
from itertools import combinations

import pytest

from eq_evals.ratings import (
    Comparison,
    active_pairs,
    active_state,
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
    # independent restatement of docs/ratings.md, '7. Pairing', facet_seed_round (RANDOM_SEED + row + 10000 * version; k = 4)
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
        return [
            Comparison(x, y, 1.0 if skill[x] > skill[y] else 0.0, abs(skill[x] - skill[y]), it, phase=phase)
            for it, (x, y) in matchups
        ]

    run = run_facet_pairing(list(skill), items, judge, trueskill_facet, max_smart_rounds=4, pairs_per_round=4)
    assert run.matchups_per_phase["seed"] == sum(len(facet_seed_round(list(skill), i, 0)) for i in range(8))
    assert run.converged or run.rounds <= 4
    final = trueskill_facet(run.comparisons)
    assert sorted(final, key=lambda m: -final[m].score) == ["a", "b", "c", "d"]
    again = run_facet_pairing(list(skill), items, judge, trueskill_facet, max_smart_rounds=4, pairs_per_round=4)
    assert again.comparisons == run.comparisons


# --- active pairing ------------------------------------------------------------------------


def _noisy_judge(skill, seed=0):
    """Deterministic simulated judge: the better model wins with a logistic probability."""
    import math

    r = random.Random(seed)

    def judge(matchups):
        out = []
        for it, (x, y) in matchups:
            p = 1 / (1 + math.exp(-(skill[x] - skill[y])))
            win = r.random() < p
            out.append(Comparison(x, y, 1.0 if win else 0.0, r.randint(1, 3), it))
        return out

    return judge


def _drive(models, items, judge, batch=5, seed=0, max_batches=1000, **kw):
    comps, compared, batches = [], set(), []
    for _ in range(max_batches):
        m = active_pairs(comps, compared, items, models, batch=batch, rng=seed, **kw)
        if not m:
            break
        batches.append(m)
        comps += judge(m)
        compared.update(m)
    return comps, compared, batches


def test_active_pairs_seed_cycle_connects_every_model():
    out = active_pairs([], set(), ITEMS, NINE, rng=3)
    pairs = [p for _, p in out]
    assert len(out) == 9 and len(set(pairs)) == 9  # a random cycle through all nine models
    assert all(p == tuple(sorted(p)) for p in pairs)
    degree = {m: 0 for m in NINE}
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    assert set(degree.values()) == {2}
    assert len({it for it, _ in out}) == 9  # distinct items
    assert active_pairs([], set(), ITEMS, NINE, rng=3) == out  # deterministic under a seed
    assert active_pairs([], set(), ITEMS, list(reversed(NINE)), rng=random.Random(3)) == out


def test_active_pairs_reconnects_a_disconnected_start():
    # two components {a, b} and {c, d}: only edges across them are proposed
    comps = [Comparison("a", "b", 1.0, 2, "i0"), Comparison("c", "d", 0.0, 1, "i0")]
    out = active_pairs(comps, {(c.item, c.pair) for c in comps}, ITEMS, "abcd", rng=0)
    assert out and all(({a, b} & {"a", "b"}) and ({a, b} & {"c", "d"}) for _, (a, b) in out)
    state = active_state(comps + [Comparison("b", "c", 1.0, 1, "i1")], "abcd")
    assert state.connected


def test_active_pairs_deterministic_and_never_repeats_an_item_pair():
    skill = {m: 0.3 * i for i, m in enumerate(NINE)}
    items = ITEMS[:6]
    comps, compared, batches = _drive(NINE, items, _noisy_judge(skill), batch=7, seed=11)
    flat = [m for b in batches for m in b]
    assert len(flat) == len(set(flat)) == len(compared)  # never the same (item, pair) twice
    assert len(flat) == 6 * 36  # runs until every (item, pair) is used, then []
    assert len(batches[0]) == 9 and all(len(b) <= 7 for b in batches[1:])  # seed cycle, then batches
    _, _, batches2 = _drive(NINE, items, _noisy_judge(skill), batch=7, seed=11)
    assert batches2 == batches
    # input order of the comparisons does not matter
    mid = comps[:60]
    assert active_pairs(mid, {(c.item, c.pair) for c in mid}, items, NINE, rng=5) == active_pairs(
        list(reversed(mid)), {(c.item, c.pair) for c in mid}, items, NINE, rng=5
    )


def test_active_pairs_two_models_and_exhausted_items():
    out = active_pairs([], set(), ["i1", "i2", "i3"], ["b", "a"], rng=0)
    assert len(out) == 1 and out[0][1] == ("a", "b")
    comps = [Comparison("a", "b", 1.0, 1, out[0][0])]
    nxt = active_pairs(comps, set(out), ["i1", "i2", "i3"], ["a", "b"], batch=5, rng=0)
    # only two unused items remain for the single pair
    assert sorted(it for it, _ in nxt) == sorted({"i1", "i2", "i3"} - {out[0][0]})
    assert {p for _, p in nxt} == {("a", "b")}
    full = {(i, ("a", "b")) for i in ("i1", "i2", "i3")}
    assert active_pairs(comps, full, ["i1", "i2", "i3"], ["a", "b"], rng=0) == []
    with pytest.raises(ValueError, match="at least two"):
        active_pairs([], set(), ["i1"], ["a"])
    with pytest.raises(ValueError, match="batch"):
        active_pairs([], set(), ["i1"], ["a", "b"], batch=0)


def test_active_pairs_judge_failure_is_not_retried_on_the_same_item():
    out = active_pairs([], set(), ["i1", "i2"], ["a", "b"], rng=0)
    # the matchup failed: it is in `compared` but produced no comparison -> seed again elsewhere
    again = active_pairs([], set(out), ["i1", "i2"], ["a", "b"], rng=0)
    assert again and again[0][0] != out[0][0]


def test_active_pairs_focuses_on_uncertain_neighbours_and_recovers_the_order():
    skill = {m: 0.4 * i for i, m in enumerate(NINE)}
    comps, compared, _ = _drive(NINE, ITEMS, _noisy_judge(skill, seed=2), batch=10, seed=0, max_batches=40)
    state = active_state(comps, NINE)
    order = [m for _, m in sorted(zip(-state.theta, state.models))]
    true = sorted(NINE, key=lambda m: -skill[m])
    # nearly all of the 36 pairs in the right order after 400 matchups
    wrong = sum(order.index(a) > order.index(b) for a, b in combinations(true, 2))
    assert wrong <= 2
    # matchups concentrate on near neighbours in the true order
    gaps = [abs(true.index(a) - true.index(b)) for _, (a, b) in compared]
    assert sum(g <= 2 for g in gaps) / len(gaps) > 0.6


def test_active_pairs_stop_below():
    skill = {"a": 4.0, "b": 0.0, "c": -4.0}
    comps, compared, _ = _drive("abc", ITEMS, _noisy_judge(skill), batch=5, seed=0, stop_below=0.05)
    assert len(compared) < 3 * len(ITEMS)  # stopped before exhausting the items
    assert active_state(comps, "abc").expected_discordant() < 0.05
