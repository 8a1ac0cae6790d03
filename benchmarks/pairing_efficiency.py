"""Benchmark: judge calls needed to recover the true ranking, adaptive pairing vs round robin.

Simulation: ``--models`` models with known skills (evenly spaced, ``--spacing`` logits apart).
Each model's quality on an item is skill + N(0, item_sd). A judge call sees
latent = q_A - q_B + position_bias + N(0, noise) and names A if latent > 0, with
margin = clip(round(|latent| * margin_scale), 0, 5). Every matchup is judged in both orders
(2 calls) and aggregated with aggregate_orders (disagreements become draws).

- Round robin: items in order, all pairs on each item; after each item the ratings are refitted.
- Adaptive (FACET §4.6): the seed round on the first ``--seed-items`` items, then smart rounds
  (TrueSkill-FACET ratings, priority tiers 8/4/2 over 20 pairs) until the target is reached.
Both arms are scored the same way: Kendall tau between the true skills and margin-weighted
Bradley-Terry scores (an order-independent fit), checked after every item / round. The count is
the judge calls made when tau >= target is first reached. Writes benchmarks/results/pairing_efficiency.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

from eq_evals.ratings import Comparison, Verdict, aggregate_orders, bradley_terry, trueskill_facet
from eq_evals.ratings.pairing import adaptive_pairs, facet_seed_round, round_robin


class Judge:
    def __init__(self, skills, n_items, item_sd, noise, bias, margin_scale, seed):
        self.rng = np.random.default_rng(seed)
        self.skills = skills
        names = sorted(skills)
        self.quality = {
            f"item{i:03d}": {m: skills[m] + self.rng.normal(0, item_sd) for m in names} for i in range(n_items)
        }
        self.noise, self.bias, self.margin_scale = noise, bias, margin_scale
        self.calls = 0

    def _call(self, item, a, b) -> Verdict:
        self.calls += 1
        q = self.quality[item]
        latent = q[a] - q[b] + self.bias + self.rng.normal(0, self.noise)
        margin = int(min(5, round(abs(latent) * self.margin_scale)))
        return Verdict("A" if latent > 0 else "B", margin)

    def matchups(self, matchups, phase=""):
        out = []
        for item, (a, b) in matchups:
            agg = aggregate_orders(self._call(item, a, b), self._call(item, b, a))
            if agg is not None:
                outcome, margin, conflicted = agg
                out.append(Comparison(a, b, outcome, margin, item, conflicted=conflicted, phase=phase))
        return out


def tau_of(comps, skills) -> float:
    names = sorted(skills)
    try:
        r = bradley_terry(comps, models=names)
    except ValueError:
        return -1.0  # e.g. disconnected graph early on
    return float(kendalltau([skills[m] for m in names], [r[m].score for m in names]).statistic)


def run_round_robin(judge: Judge, skills, items):
    """Checkpoints (calls, tau) after each item, over the whole item set."""
    comps, trace = [], []
    pairs = round_robin(skills)
    for item in items:
        comps += judge.matchups([(item, p) for p in pairs])
        trace.append((judge.calls, tau_of(comps, skills)))
    return trace


def run_adaptive(judge: Judge, skills, items, seed_items, budget, seed):
    """Checkpoints (calls, tau) after the seed round and after every smart round, until the
    call budget (round robin's total) is spent or no new matchup can be made."""
    import random

    comps, trace, compared = [], [], set()
    models = sorted(skills)
    for idx, item in enumerate(items[:seed_items]):
        m = [(item, p) for p in facet_seed_round(models, idx, 0)]
        comps += judge.matchups(m, "seed")
        compared.update(m)
    trace.append((judge.calls, tau_of(comps, skills)))
    rng = random.Random(seed)
    rnd = 0
    while judge.calls < budget:
        rnd += 1
        ratings = trueskill_facet(comps, models=models)
        m = adaptive_pairs(ratings, compared, items, rng=rng)
        if not m:
            break
        comps += judge.matchups(m, f"smart_{rnd}")
        compared.update(m)
        trace.append((judge.calls, tau_of(comps, skills)))
    return trace


def first_reached(trace, target):
    return next((calls for calls, tau in trace if tau >= target), None)


def sustained(trace, target):
    """Calls at the first checkpoint from which tau stays >= target to the end of the run."""
    calls = None
    for c, tau in reversed(trace):
        if tau < target:
            break
        calls = c
    return calls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=10)
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--spacing", type=float, default=0.2)
    ap.add_argument("--item-sd", type=float, default=0.5)
    ap.add_argument("--noise", type=float, default=1.0)
    ap.add_argument("--bias", type=float, default=0.3)
    ap.add_argument("--margin-scale", type=float, default=1.5)
    ap.add_argument("--target", type=float, default=0.9)
    ap.add_argument("--seed-items", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=7)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "pairing_efficiency.json"))
    args = ap.parse_args()

    skills = {f"m{i:02d}": i * args.spacing for i in range(args.models)}
    items = [f"item{i:03d}" for i in range(args.items)]
    runs = []
    budget = args.items * len(round_robin(skills)) * 2
    for s in range(args.seeds):
        jargs = (skills, args.items, args.item_sd, args.noise, args.bias, args.margin_scale)
        rr = run_round_robin(Judge(*jargs, seed=1000 + s), skills, items)
        ad = run_adaptive(Judge(*jargs, seed=1000 + s), skills, items, args.seed_items, budget, seed=s)
        runs.append({
            "seed": s,
            "round_robin": {"first": first_reached(rr, args.target), "sustained": sustained(rr, args.target),
                            "final_tau": round(rr[-1][1], 3), "calls": rr[-1][0]},
            "adaptive": {"first": first_reached(ad, args.target), "sustained": sustained(ad, args.target),
                         "final_tau": round(ad[-1][1], 3), "calls": ad[-1][0]},
        })
        print(runs[-1], flush=True)

    def med(arm, key):
        vals = [r[arm][key] if r[arm][key] is not None else float("inf") for r in runs]
        return statistics.median(vals)

    summary = {key: {"round_robin": med("round_robin", key), "adaptive": med("adaptive", key)}
               for key in ("first", "sustained")}
    for key in summary:
        rr_m, ad_m = summary[key]["round_robin"], summary[key]["adaptive"]
        summary[key]["ratio"] = round(ad_m / rr_m, 3) if rr_m not in (0, float("inf")) else None
    ratio = summary["sustained"]["ratio"]
    result = {
        "benchmark": "pairing_efficiency",
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "config": {k: v for k, v in vars(args).items() if k != "out"} | {"call_budget": budget},
        "runs": runs,
        "median_calls_to_target": summary,
        "target_ratio": round(1 / 3, 3),
        "target_met": ratio is not None and ratio <= 1 / 3,
        "note": "first = calls when Kendall tau >= target is first reached; sustained = calls from "
                "which tau stays >= target until the budget (round robin over all items) is spent; "
                "target_met uses the sustained medians; None/inf = never reached",
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("median_calls_to_target", "target_met")}, indent=2))


if __name__ == "__main__":
    main()
