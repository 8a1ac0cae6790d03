"""The judging dataset: which model pairs are compared on which prompt instances.

- ``round_robin``: every pair of models on every instance and dimension.
- ``active``: eq-evals' own uncertainty-driven batches (``ratings.active_pairs``), within a budget of
  matchups per dimension (default: a third of round robin's); fewer judge calls for the same ranking
  accuracy in ``benchmarks/pairing_efficiency.py``.
- ``adaptive`` (docs/ratings.md, '7. Pairing'): a seed round in which each model meets about half of the others on
  every instance, then rounds that pick the most informative pairs from the current TrueSkill ratings
  (uncertain and close), until the ranking stops changing or ``max_rounds`` is reached. Runs inside one
  Inspect task through a ``SampleSource``, so every judgment lands in one log.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import uuid
from typing import Any

from inspect_ai import SampleSource
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalSample

from eq_evals.core.sources import VERSION_KEY, versions_of
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.logs import Generation, load_generations
from eq_evals.pairwise.verdict import sample_verdicts
from eq_evals.ratings import (
    Comparison,
    active_pairs,
    adaptive_pairs,
    facet_seed_round,
    ranking_unchanged,
    settle_check,
    trueskill_facet,
)

Instance = tuple[str, int]  # (sample id, epoch)
logger = logging.getLogger(__name__)

# active sources of runs in progress, by run_key (see stop_hook)
RUNNING: dict[str, "ActiveSource"] = {}


class Pool:
    """The responses of all models, indexed for building matchups."""

    def __init__(self, gens: list[Generation], language: str, dimensions: list[str] | None) -> None:
        self.models = sorted(g.model for g in gens)
        self.by_model = {g.model: g for g in gens}
        # models whose generation log is not complete (kept with allow_partial): their matchups say so
        self.partial = {g.model for g in gens if g.state != "complete"}
        instances: dict[Instance, dict[str, Any]] = {}
        for g in gens:
            for key, response in g.responses.items():
                if language != "all" and response.metadata.get("language") != language:
                    continue
                instances.setdefault(key, {"prompt": response.prompt, "metadata": response.metadata})
        self.instances = sorted(instances)
        self.info = instances
        self.dimensions: dict[Instance, list[str]] = {}
        for key in self.instances:
            dims = self.info[key]["metadata"].get("judge_dimensions") or ["overall"]
            if dimensions:
                dims = [d for d in dims if d in dimensions]
            self.dimensions[key] = dims
        if not any(self.dimensions.values()):
            raise EqEvalsError(f"no prompt instances to judge for language={language}, dimensions={dimensions}")

    def dataset_versions(self) -> list[dict[str, Any]]:
        """The data every generation was made on (the log header's ``datasets``), whatever gets paired."""
        return versions_of(r for g in self.by_model.values() for r in g.responses.values())

    def round_robin(self) -> int:
        """The matchups of round robin: every pair of models on every instance and dimension."""
        n = len(self.models)
        return sum(len(self.dimensions[key]) for key in self.instances) * n * (n - 1) // 2

    def available(self, key: Instance, model: str) -> bool:
        return key in self.by_model[model].responses

    def sample(self, key: Instance, dimension: str, a: str, b: str, phase: str) -> Sample | None:
        a, b = sorted((a, b))
        if not (self.available(key, a) and self.available(key, b)):
            return None  # a model's generation failed on this instance: nothing to compare
        sid, epoch = key
        md = self.info[key]["metadata"]
        return Sample(
            id=f"{dimension}|{sid}|e{epoch}|{a}|{b}",
            input=self.info[key]["prompt"],
            metadata={
                "dimension": dimension,
                "language": md.get("language", "en"),
                "item": f"{sid}#{epoch}",
                "item_id": md.get("item_id", sid),
                "epoch": epoch,
                "model_a": a,
                "model_b": b,
                "phase": phase,
                "user_input": self.info[key]["prompt"],
                "response_a": self.by_model[a].responses[key].text,
                "response_b": self.by_model[b].responses[key].text,
                # the data both generations were made on (core/sources.py), so ratings can refuse mixed versions
                VERSION_KEY: versions_of(self.by_model[m].responses[key] for m in (a, b)),
                **({"partial_generations": sorted(self.partial & {a, b})} if self.partial & {a, b} else {}),
            },
        )


def round_robin_samples(pool: Pool) -> list[Sample]:
    samples = []
    for key in pool.instances:
        for dimension in pool.dimensions[key]:
            for a, b in itertools.combinations(pool.models, 2):
                s = pool.sample(key, dimension, a, b, "round_robin")
                if s is not None:
                    samples.append(s)
    return samples


def comparisons_from_sample(sample: EvalSample, scorer: str = "pairwise_judge") -> list[Comparison]:
    """One Comparison per judge with a recorded result, from the typed verdict record."""
    return [c for v in sample_verdicts(sample) for c in v.comparisons()]


class AdaptiveSource(SampleSource):
    """FACET's seed round plus rating-driven rounds (docs/ratings.md, '7. Pairing'), run separately per language and dimension."""

    def dataset_versions(self) -> list[dict[str, Any]]:
        return self.pool.dataset_versions()

    def __init__(
        self,
        pool: Pool,
        max_rounds: int,
        pairs_per_round: int,
        samples_per_tier: tuple[int, ...],
        tier_fractions: tuple[float, ...],
        seed: int,
    ) -> None:
        self.pool, self.max_rounds, self.pairs_per_round = pool, max_rounds, pairs_per_round
        self.samples_per_tier, self.tier_fractions, self.seed = samples_per_tier, tier_fractions, seed
        self.round = 0
        self.comparisons: list[Comparison] = []
        self.compared: dict[tuple[str, str], set] = {}
        self.previous: dict[tuple[str, str], dict] = {}
        self.done: set[tuple[str, str]] = set()
        self.rng = random.Random(seed)

    def _add(self, sample: Sample | None, out: list[Sample]) -> None:
        if sample is not None:
            md = sample.metadata or {}
            group = (md["language"], md["dimension"])
            self.compared.setdefault(group, set()).add((md["item"], md["model_a"], md["model_b"]))
            out.append(sample)

    def initial_samples(self) -> list[Sample]:
        out: list[Sample] = []
        for index, key in enumerate(self.pool.instances):
            pairs = facet_seed_round(self.pool.models, instance_index=index, version=key[1], seed=self.seed)
            for dimension in self.pool.dimensions[key]:
                for a, b in pairs:
                    self._add(self.pool.sample(key, dimension, a, b, "seed"), out)
        return out

    async def sample_complete(self, sample: EvalSample) -> list[Sample] | None:
        self.comparisons += comparisons_from_sample(sample)
        return None

    def plan(self, first: int) -> str:
        """What Inspect announces as the dataset, short enough for its one-line header: its sample count is the seed
        round only (``engine.build_task``); the ceiling is round robin."""
        return f"seed round {first} of at most {self.pool.round_robin()} matchups (adaptive pairing)"

    async def next_samples(self) -> list[Sample] | None:
        self.round += 1
        if self.round > self.max_rounds:
            return None
        out: list[Sample] = []
        by_key = {f"{sid}#{epoch}": (sid, epoch) for sid, epoch in self.pool.instances}
        language_of = {k: self.pool.info[key]["metadata"].get("language", "en") for k, key in by_key.items()}
        groups = sorted({(language_of[k], d) for k, key in by_key.items() for d in self.pool.dimensions[key]})
        for group in [g for g in groups if g not in self.done]:
            language, dimension = group
            comps = [c for c in self.comparisons if (c.language, c.dimension) == group]
            if not comps:
                self.done.add(group)
                continue
            ratings = trueskill_facet(comps)
            if self.round > 1 and ranking_unchanged(self.previous.get(group, {}), ratings):
                self.done.add(
                    group
                )  # converged: the ranking did not change since the last round (docs/ratings.md, '7. Pairing')
                continue
            self.previous[group] = ratings
            items = [k for k in by_key if language_of[k] == language and dimension in self.pool.dimensions[by_key[k]]]
            compared = {(item, (a, b)) for item, a, b in self.compared.get(group, set())}
            chosen = adaptive_pairs(
                ratings,
                compared,
                items,
                pairs_per_round=self.pairs_per_round,
                samples_per_tier=self.samples_per_tier,
                tier_fractions=self.tier_fractions,
                rng=self.rng,
            )
            before = len(out)
            for item, (a, b) in chosen:
                self._add(self.pool.sample(by_key[item], dimension, a, b, f"smart_{self.round}"), out)
            if len(out) == before:
                self.done.add(group)
        return out or None


class ActiveSource(SampleSource):
    """Uncertainty-driven batches (``eq_evals.ratings.active_pairs``; docs/ratings.md): a random cycle that
    connects every model, then batches of the matchups expected to fix the most mis-ordered pairs under
    the current Bradley-Terry fit, until the ranking of a dimension is settled (``stop="settled"``) or its
    budget of matchups is spent; the budget is a ceiling, not a target.

    Settled (issue 14): the comparison graph is connected, the expected number of mis-ordered model pairs
    under the fit's Laplace posterior (``ActiveState.expected_discordant``) is below ``settle_misorder``, and
    the fitted order has not changed over the last ``settle_rounds`` batches. Every matchup's metadata has
    ``pairing``: the state its batch was chosen from (round, matchups before, expected mis-ordered pairs,
    batches with an unchanged order), so the log shows how the ranking settled. Each stop (settled, budget
    or no matchup left) is logged at INFO, kept in ``ActiveSource.stopped``, and written into the log's
    metadata (``log.metadata["active_pairing"]``) when the task ends, by ``pairwise.stop_hook`` (Inspect
    keeps no logging done between batches, and refuses an early-stopping manager on a sample source)."""

    def dataset_versions(self) -> list[dict[str, Any]]:
        return self.pool.dataset_versions()

    def __init__(
        self,
        pool: Pool,
        batch: int,
        budget: int | None,
        seed: int,
        stop: str = "settled",
        settle_misorder: float = 1.0,
        settle_rounds: int = 2,
    ) -> None:
        if stop not in ("settled", "budget"):
            raise EqEvalsError(f"-T stop={stop}: expected settled or budget")
        if settle_rounds < 1 or settle_misorder <= 0:
            raise EqEvalsError(
                f"-T settle_rounds must be >= 1 and settle_misorder > 0, got {settle_rounds}, {settle_misorder}"
            )
        self.pool, self.batch, self.rng = pool, batch, random.Random(seed)
        self.stop, self.settle_misorder, self.settle_rounds = stop, settle_misorder, settle_rounds
        self.by_key = {f"{sid}#{epoch}": (sid, epoch) for sid, epoch in pool.instances}
        self.dimensions = sorted({d for dims in pool.dimensions.values() for d in dims})
        self.items = {d: [k for k, key in self.by_key.items() if d in pool.dimensions[key]] for d in self.dimensions}
        full = {d: len(self.items[d]) * len(pool.models) * (len(pool.models) - 1) // 2 for d in self.dimensions}
        # default budget: a third of round robin's matchups, the efficiency target measured in benchmarks/
        self.budget = {d: budget if budget is not None else -(-full[d] // 3) for d in self.dimensions}
        self.comparisons: dict[str, list[Comparison]] = {d: [] for d in self.dimensions}
        self.compared: dict[str, set] = {d: set() for d in self.dimensions}
        self.orders: dict[str, list[tuple[str, ...]]] = {d: [] for d in self.dimensions}
        self.stopped: dict[str, dict[str, Any]] = {}
        self.state: dict[str, dict[str, Any]] = {}
        self.round = 0
        self.run_key = uuid.uuid4().hex  # the task's metadata carries it, so the end-of-task hook finds this source
        RUNNING[self.run_key] = self

    def _settled(self, d: str) -> dict[str, Any] | None:
        """The stop record when dimension d is settled (``ratings.settle_check``); else None. The state is
        kept in self.state[d] for the batch's metadata."""
        self.state[d] = {"round": self.round, "matchups_before": len(self.compared[d])}
        if not self.comparisons[d]:
            return None
        settled, info = settle_check(
            self.comparisons[d], self.pool.models, self.orders[d], self.settle_misorder, self.settle_rounds
        )
        self.state[d].update({k: v for k, v in info.items() if k != "order"})
        if self.stop == "settled" and settled:
            return {
                "reason": "settled",
                "expected_misordered_pairs": info["expected_misordered_pairs"],
                "order": info["order"],
            }
        return None

    def _finish(self, d: str, info: dict[str, Any]) -> None:
        info = {
            "dimension": d,
            **info,
            "matchups": len(self.compared[d]),
            "budget": self.budget[d],
            "round_robin": len(self.items[d]) * len(self.pool.models) * (len(self.pool.models) - 1) // 2,
        }
        self.stopped[d] = info
        logger.info("active pairing stopped: %s", json.dumps(info))

    def _round(self) -> list[Sample]:
        self.round += 1
        out: list[Sample] = []
        for d in self.dimensions:
            if d in self.stopped:
                continue
            left = self.budget[d] - len(self.compared[d])
            if left <= 0:
                self._finish(d, {"reason": "budget"})
                continue
            settled = self._settled(d)
            if settled:
                self._finish(d, settled)
                continue
            chosen = active_pairs(
                self.comparisons[d], self.compared[d], self.items[d], self.pool.models, batch=self.batch, rng=self.rng
            )[:left]
            if not chosen:
                self._finish(d, {"reason": "no matchup left"})
            for item, (a, b) in chosen:
                self.compared[d].add((item, (a, b)))
                sample = self.pool.sample(
                    self.by_key[item], d, a, b, "connect" if self.round == 1 else f"active_{self.round}"
                )
                if sample is not None:
                    sample.metadata = {**(sample.metadata or {}), "pairing": dict(self.state[d])}
                    out.append(sample)
        return out

    def initial_samples(self) -> list[Sample]:
        return self._round()

    async def sample_complete(self, sample: EvalSample) -> list[Sample] | None:
        for c in comparisons_from_sample(sample):
            self.comparisons[c.dimension].append(c)
        return None

    async def next_samples(self) -> list[Sample] | None:
        return self._round() or None

    def plan(self, first: int) -> str:
        """What Inspect announces as the dataset, short enough for its one-line header: its sample count is the first
        batch only (``engine.build_task``); the ceiling is the budget, summed over the dimensions."""
        return f"first batch {first} of at most {sum(self.budget.values())} matchups (active pairing)"

    def stop_report(self) -> dict[str, Any]:
        """The stop record of every dimension, for the log's metadata (``stop_hook``); a dimension the run
        left before any stop (cancelled, interrupted) says so."""
        open_ = {
            d: {
                "dimension": d,
                "reason": "the run ended before a stop (cancelled or interrupted)",
                "matchups": len(self.compared[d]),
                "budget": self.budget[d],
            }
            for d in self.dimensions
            if d not in self.stopped
        }
        return {
            "stop_rule": self.stop,
            "settle_misorder": self.settle_misorder,
            "settle_rounds": self.settle_rounds,
            "batches": self.round,
            "dimensions": {**self.stopped, **open_},
        }


def pairwise_matchups(
    logs: str,
    language: str = "all",
    dimensions: str | None = None,
    generation_tasks: list[str] | None = None,
    pairing: str = "active",
    max_rounds: int = 10,
    pairs_per_round: int = 20,
    seed: int = 42,
    batch: int = 10,
    budget: int | None = None,
    stop: str = "settled",
    settle_misorder: float = 1.0,
    settle_rounds: int = 2,
    allow_partial: bool = False,
    allow_mixed_datasets: bool = False,
) -> list[Sample] | SampleSource:
    """Matchups from the generation logs of two or more models (a folder or comma-separated files)."""
    if not logs:
        raise EqEvalsError("-T logs=DIR is required: the generation logs of two or more models of one task")
    wanted = [d.strip() for d in dimensions.split(",")] if dimensions else None
    pool = Pool(load_generations(logs, generation_tasks, allow_partial, allow_mixed_datasets), language, wanted)
    if pairing == "round_robin":
        samples = round_robin_samples(pool)
        if not samples:
            raise EqEvalsError(
                f"no matchups in {logs}: no prompt instance was answered by two or more of the models "
                f"({', '.join(pool.models)}); see each log's failed samples (eq-evals doctor)"
            )
        return samples
    if pairing == "adaptive":
        return AdaptiveSource(pool, max_rounds, pairs_per_round, (8, 4, 2), (0.1, 0.3), seed)
    if pairing == "active":
        return ActiveSource(pool, batch, budget, seed, stop, settle_misorder, settle_rounds)
    raise EqEvalsError(f"-T pairing={pairing}: expected round_robin, adaptive or active")
