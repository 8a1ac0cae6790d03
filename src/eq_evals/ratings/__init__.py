"""Rating mathematics for pairwise judging (no Inspect dependency).

See docs/ratings.md for the methods, formulas, parameters and degenerate cases.
"""

from .agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement, stability
from .bootstrap import bootstrap_counts, item_bootstrap, percentile_interval, separability
from .bradley_terry import asymptotic_interval, bradley_terry, comparison_weights, components, fit_win_matrices
from .comparisons import (
    Comparison,
    PairRecord,
    Rating,
    Verdict,
    aggregate_orders,
    canonical_order,
    leaderboard,
    plus_tally,
    ranking,
    win_rates,
)
from .elo import elo
from .gap import GapRow, delta_z, profile, profiles, zscores
from .pairing import (
    ActiveState,
    active_pairs,
    active_state,
    adaptive_pairs,
    facet_seed_round,
    pair_priorities,
    ranking_unchanged,
    round_robin,
    run_facet_pairing,
    settle_check,
)
from .thurstone import ELO_K, fit_thurstone, thurstone_elo, thurstone_mosteller
from .trueskill_ratings import (
    EQBENCH3_ANCHORS,
    eqbench3_bin,
    eqbench3_fraction,
    eqbench3_pseudo_wins,
    facet_env,
    trueskill_eqbench3,
    trueskill_facet,
    win_probability,
)

__all__ = [
    "Comparison",
    "PairRecord",
    "Rating",
    "Verdict",
    "aggregate_orders",
    "canonical_order",
    "leaderboard",
    "plus_tally",
    "ranking",
    "win_rates",
    "bradley_terry",
    "comparison_weights",
    "asymptotic_interval",
    "components",
    "fit_win_matrices",
    "trueskill_facet",
    "trueskill_eqbench3",
    "facet_env",
    "win_probability",
    "EQBENCH3_ANCHORS",
    "eqbench3_bin",
    "eqbench3_fraction",
    "eqbench3_pseudo_wins",
    "elo",
    "bootstrap_counts",
    "item_bootstrap",
    "percentile_interval",
    "separability",
    "round_robin",
    "facet_seed_round",
    "pair_priorities",
    "adaptive_pairs",
    "ranking_unchanged",
    "settle_check",
    "run_facet_pairing",
    "active_pairs",
    "active_state",
    "ActiveState",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "percent_agreement",
    "stability",
    "zscores",
    "delta_z",
    "profile",
    "profiles",
    "GapRow",
    "thurstone_mosteller",
    "fit_thurstone",
    "thurstone_elo",
    "ELO_K",
]
# Causal-PACE lives in its own module: ``from eq_evals.ratings.causal_pace import ...``
