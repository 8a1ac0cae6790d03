"""Registers PACE's parts with the catalogue: the item loader, the role check, the board scorers, the metric
and the scripted judges."""

from __future__ import annotations

from eq_evals.components import register
from eq_evals.pace import scripted as _scripted  # noqa: F401  (registers the pace-agent scripted modes)
from eq_evals.pace.data import pace_items
from eq_evals.pace.scorer import pace_battle, pace_board, pace_means, pace_roles

register("dataset", "pace_items")(pace_items)
register("solver", "pace_roles")(pace_roles)
register("scorer", "pace_board")(pace_board)
register("scorer", "pace_battle")(pace_battle)
register("metric", "pace_means")(pace_means)
