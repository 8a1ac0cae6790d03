"""Registers the pairwise-judging parts with the catalogue."""

from eq_evals.components import register
from eq_evals.pairwise.judge import pairwise_judge
from eq_evals.pairwise.matchups import pairwise_matchups

register("dataset", "pairwise_matchups")(pairwise_matchups)
register("scorer", "pairwise_judge")(pairwise_judge)
from eq_evals.pairwise import scripted_judge as _scripted_judge  # noqa: E402,F401  (scripted judge modes)
