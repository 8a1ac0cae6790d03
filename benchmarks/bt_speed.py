"""Benchmark: Bradley-Terry with a 1000-round item bootstrap on 20 models x 500 items x 5 dimensions.

Run: python benchmarks/bt_speed.py [--rounds 1000] [--models 20] [--items 500] [--dimensions 5]
Fits one leaderboard per dimension plus the pooled "overall" leaderboard (6 fits, each with
the bootstrap) and writes benchmarks/results/bt_speed.json. Target: < 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
from _machine import machine, now

from eq_evals.ratings import Comparison, bradley_terry
from eq_evals.ratings.pairing import facet_seed_round


def simulate(n_models: int, n_items: int, n_dims: int, seed: int = 0) -> list[Comparison]:
    rng = np.random.default_rng(seed)
    skill = {f"model_{i:02d}": float(s) for i, s in enumerate(rng.normal(0, 1.0, n_models))}
    models = sorted(skill)
    comps = []
    for d in range(n_dims):
        for it in range(n_items):
            for a, b in facet_seed_round(models, it, d):
                p = 1 / (1 + np.exp(-(skill[a] - skill[b])))
                u = rng.random()
                if u < 0.1:
                    comps.append(Comparison(a, b, 0.5, 0, f"item{it}", dimension=f"dim{d}", conflicted=True))
                    continue
                a_wins = rng.random() < p
                margin = int(min(5, 1 + abs(skill[a] - skill[b]) * 2 + rng.integers(0, 2)))
                comps.append(Comparison(a, b, 1.0 if a_wins else 0.0, margin, f"item{it}", dimension=f"dim{d}"))
    return comps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--models", type=int, default=20)
    ap.add_argument("--items", type=int, default=500)
    ap.add_argument("--dimensions", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "bt_speed.json"))
    args = ap.parse_args()
    random.seed(0)
    t0 = time.perf_counter()
    comps = simulate(args.models, args.items, args.dimensions)
    t_sim = time.perf_counter() - t0
    timings = {}
    t_all = time.perf_counter()
    for d in range(args.dimensions):
        sub = [c for c in comps if c.dimension == f"dim{d}"]
        t = time.perf_counter()
        bradley_terry(sub, bootstrap_rounds=args.rounds, seed=1)
        timings[f"dim{d}"] = time.perf_counter() - t
    t = time.perf_counter()
    overall = bradley_terry(comps, bootstrap_rounds=args.rounds, seed=1)
    timings["overall"] = time.perf_counter() - t
    total = time.perf_counter() - t_all
    widths = [r.upper - r.lower for r in overall.values()]
    result = {
        "benchmark": "bt_speed",
        "date": now(),
        "machine": machine() | {"numpy": np.__version__},
        "config": {
            "models": args.models,
            "items": args.items,
            "dimensions": args.dimensions,
            "bootstrap_rounds": args.rounds,
            "comparisons": len(comps),
        },
        "seconds": {
            "simulate": round(t_sim, 3),
            **{k: round(v, 3) for k, v in timings.items()},
            "total_fits_with_bootstrap": round(total, 3),
        },
        "overall_ci_width_elo": {"median": round(float(np.median(widths)), 2)},
        "target_seconds": 30,
        "target_met": total < 30,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
