"""The fast TrueSkill update against the ``trueskill`` package (the reference): identical bits."""

import random

import pytest
import trueskill

from eq_evals.ratings import Comparison, facet_env, trueskill_eqbench3, trueskill_facet
from eq_evals.ratings.trueskill_exact import make_rate_1vs1, rating_state
from eq_evals.ratings.trueskill_ratings import eqbench3_env


@pytest.mark.parametrize(
    "env",
    [facet_env(), eqbench3_env(), trueskill.TrueSkill(draw_probability=0.1)],
    ids=["facet", "eqbench3", "package-default"],
)
def test_single_update_is_bit_identical_on_random_ratings(env):
    rate = make_rate_1vs1(env)
    rng = random.Random(7)
    checked = raised = 0
    for _ in range(3000):
        r1 = trueskill.Rating(rng.gauss(env.mu, 3 * env.sigma), env.sigma * rng.uniform(0.01, 1.5))
        r2 = trueskill.Rating(rng.gauss(env.mu, 3 * env.sigma), env.sigma * rng.uniform(0.01, 1.5))
        drawn = rng.random() < 0.3
        try:
            a, b = trueskill.rate_1vs1(r1, r2, drawn=drawn, env=env)
        except FloatingPointError:
            with pytest.raises(FloatingPointError):
                rate(r1.pi, r1.tau, r2.pi, r2.tau, drawn)
            raised += 1
            continue
        assert rate(r1.pi, r1.tau, r2.pi, r2.tau, drawn) == (a.pi, a.tau, b.pi, b.tau), (r1, r2, drawn)
        checked += 1
    assert checked > 2500


def test_extreme_upsets_raise_like_the_package():
    env = facet_env()
    rate = make_rate_1vs1(env)
    weak, strong = trueskill.Rating(-1e5, 1.0), trueskill.Rating(1e5, 1.0)
    with pytest.raises(FloatingPointError):
        trueskill.rate_1vs1(weak, strong, env=env)
    with pytest.raises(FloatingPointError):
        rate(weak.pi, weak.tau, strong.pi, strong.tau, False)


def test_state_round_trip_matches_rating():
    r = trueskill.Rating(1234.5, 98.7)
    assert rating_state(1234.5, 98.7) == (r.pi, r.tau)


def _random_comparisons(seed: int, n_models: int, n: int) -> list[Comparison]:
    rng = random.Random(seed)
    models = [f"m{i}" for i in range(n_models)]
    skill = {m: rng.gauss(0, 1) for m in models}
    out = []
    for k in range(n):
        a, b = rng.sample(models, 2)
        u = rng.random()
        if u < 0.15:
            out.append(Comparison(a, b, 0.5, 0, f"i{k}", dimension=rng.choice(["d1", "d2"]), conflicted=True))
            continue
        a_wins = rng.random() < 1 / (1 + 2.718 ** (skill[b] - skill[a]))
        margin = rng.randint(0, 5)
        rng.randint(0, 20), rng.randint(0, 20)  # two draws kept: the random stream the expectations were made with
        plus = {}
        if rng.random() < 0.5:  # EQ-Bench 3's raw "+" tallies on half of them
            plus = {"plus_a": rng.randint(0, 20), "plus_b": rng.randint(0, 20)}
        out.append(
            Comparison(a, b, 1.0 if a_wins else 0.0, margin, f"i{k}", dimension=rng.choice(["d1", "d2"]), **plus)
        )
    return out


def _as_tuple(ratings):
    return {
        m: (r.score, r.sigma, r.lower, r.upper, r.perm_mean, r.perm_sd, r.extra.get("raw_mu"))
        for m, r in ratings.items()
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whole_facet_replay_equals_the_package(seed):
    comps = _random_comparisons(seed, n_models=6, n=150)
    fast = trueskill_facet(comps, order_permutations=3, seed=seed)
    ref = trueskill_facet(comps, order_permutations=3, seed=seed, engine="package")
    assert _as_tuple(fast) == _as_tuple(ref)


@pytest.mark.parametrize("seed", [0, 1])
def test_whole_eqbench3_replay_equals_the_package(seed):
    comps = _random_comparisons(seed, n_models=5, n=60)
    kw = dict(order_permutations=2, seed=seed, rank_window=2)
    assert _as_tuple(trueskill_eqbench3(comps, **kw)) == _as_tuple(trueskill_eqbench3(comps, engine="package", **kw))


def test_unknown_engine_is_an_error():
    with pytest.raises(ValueError, match="engine"):
        trueskill_facet([Comparison("a", "b", 1.0, 1, "i")], engine="fast")


@pytest.mark.parametrize("method", ["trueskill", "eqbench3", "bt"])
def test_tables_rated_in_worker_processes_equal_serial(method):
    from eq_evals.pairwise.leaderboard import build_tables

    comps = [
        Comparison(c.model_a, c.model_b, c.outcome, c.margin, c.item, dimension=c.dimension, language=lang)
        for lang in ("en", "zh")
        for c in _random_comparisons(3, n_models=5, n=80)
    ]
    serial = build_tables(comps, method, 50, 1, progress=False, workers=1)
    parallel = build_tables(comps, method, 50, 1, progress=False, workers=2)
    assert [(t.language, t.dimension, [(r.model, r.score, r.lower, r.upper) for r in t.ratings]) for t in serial] == [
        (t.language, t.dimension, [(r.model, r.score, r.lower, r.upper) for r in t.ratings]) for t in parallel
    ]
    assert {(t.language, t.dimension) for t in serial} == {
        (lg, d) for lg in ("en", "zh") for d in ("d1", "d2", "overall")
    }


def test_a_worker_error_names_the_table():
    from eq_evals.errors import EqEvalsError
    from eq_evals.pairwise.leaderboard import build_tables

    comps = [Comparison("a", "b", 1.0, 1, "i1", dimension="d1"), Comparison("a", "b", 0.5, 0, "i2", dimension="d2")]
    with pytest.raises(EqEvalsError, match="unknown method"):
        build_tables(comps, "nope", 0, 0, progress=False, workers=2)


def test_settle_check_needs_a_stable_order_and_few_expected_misorderings():
    from eq_evals.ratings import settle_check

    models = ["a", "b", "c"]
    beats = [("a", "b"), ("b", "c"), ("a", "c")]
    few = [Comparison(x, y, 1.0, 2, f"i{k}") for k, (x, y) in enumerate(beats)]
    orders: list = []
    settled, info = settle_check(few, models, orders, settle_misorder=0.5, settle_rounds=2)
    assert not settled and info["order"] == models and info["unchanged_batches"] == 0
    many = [Comparison(x, y, 1.0, 3, f"i{k}-{n}") for n in range(40) for k, (x, y) in enumerate(beats)]
    results = [settle_check(many, models, orders, 0.5, 2) for _ in range(2)]
    assert [r[0] for r in results] == [False, True]  # the order must repeat settle_rounds times
    assert results[1][1]["expected_misordered_pairs"] < 0.5 and results[1][1]["unchanged_batches"] == 2
    # a strict threshold is not met by the same evidence
    assert not settle_check(many, models, orders, 1e-9, 2)[0]
    # a disconnected graph is never settled
    apart = [Comparison("a", "b", 1.0, 3, f"j{n}") for n in range(50)]
    assert not settle_check(apart, models, [("a", "b", "c")] * 3, 10.0, 2)[0]
