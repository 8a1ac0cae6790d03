"""Benchmark: the FACET and EQ-Bench 3 TrueSkill modes at leaderboard scale (issue 14).

Run: python benchmarks/trueskill_speed.py            (writes benchmarks/results/trueskill_speed.json)

What is timed is what ``eq-evals ratings --method trueskill|eqbench3`` does: ``report.build_tables``,
one leaderboard per dimension plus the pooled Overall leaderboard, on the synthetic comparisons of
bt_speed.py (FACET's seed-round pairs, 10% conflicts, margins 0-5). Each configuration reports wall
and CPU seconds (CPU time is steadier on a shared machine). The reference engine (``trueskill.rate_1vs1``
for every update, the implementation before issue 14) is timed on ``--reference`` and on 20 models x
``--reference-items`` items, and its leaderboards are compared with the fast engine's for exact equality.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from _machine import machine, now
from bt_speed import simulate

from eq_evals.ratings import trueskill_eqbench3, trueskill_facet
from eq_evals.report import build_tables

METHODS = {"trueskill": "FACET", "eqbench3": "EQ-Bench 3"}


def cpu() -> float:
    """CPU seconds of this process and its finished worker processes."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    w, c = time.perf_counter(), cpu()
    out = fn()
    return out, round(time.perf_counter() - w, 3), round(cpu() - c, 3)


def tables(comps, method):
    return build_tables(comps, method, 0, 0, progress=False)


def reference_tables(comps, method):
    """build_tables' groups, rated with engine='package' (the implementation before issue 14)."""
    fn = trueskill_facet if method == "trueskill" else trueskill_eqbench3
    groups = {}
    for c in comps:
        groups.setdefault(c.dimension, []).append(c)
    groups["overall"] = comps
    return {d: fn(cs, engine="package") for d, cs in groups.items()}


def same(fast_tables, ref) -> bool:
    for t in fast_tables:
        r = ref[t.dimension]
        for x in t.ratings:
            if (x.score, x.sigma, x.lower, x.upper) != (
                r[x.model].score,
                r[x.model].sigma,
                r[x.model].lower,
                r[x.model].upper,
            ):
                return False
    return True


def parse_sizes(text: str) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in s.split("x")) for s in text.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--sizes", default="10x500,20x125,20x250,20x500,40x125", help="models x items per dimension, comma separated"
    )
    ap.add_argument("--dimensions", type=int, default=5)
    ap.add_argument(
        "--reference-items",
        type=int,
        default=25,
        help="items for the reference-engine run at 20 models (it takes ~25x longer)",
    )
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "trueskill_speed.json"))
    args = ap.parse_args()
    result = {
        "benchmark": "trueskill_speed",
        "date": now(),
        "machine": machine(),
        "what": "report.build_tables: per-dimension + pooled Overall leaderboards, synthetic comparisons "
        "(bt_speed.simulate), tables rated in parallel on the usable cores; cpu_seconds includes the "
        "worker processes",
        "dimensions": args.dimensions,
        "target_seconds": 10,
        "target_config": "20x500",
        "runs": [],
        "reference": [],
    }
    for models, items in parse_sizes(args.sizes):
        comps = simulate(models, items, args.dimensions)
        for method, label in METHODS.items():
            _, wall, cpu = timed(lambda: tables(comps, method))
            run = {
                "mode": label,
                "models": models,
                "items": items,
                "comparisons": len(comps),
                "wall_seconds": wall,
                "cpu_seconds": cpu,
            }
            result["runs"].append(run)
            print(json.dumps(run), flush=True)
    comps = simulate(20, args.reference_items, args.dimensions)
    for method, label in METHODS.items():
        fast, wall, cpu = timed(lambda: tables(comps, method))
        ref, rwall, rcpu = timed(lambda: reference_tables(comps, method))
        row = {
            "mode": label,
            "models": 20,
            "items": args.reference_items,
            "comparisons": len(comps),
            "fast_wall_seconds": wall,
            "fast_cpu_seconds": cpu,
            "reference_wall_seconds": rwall,
            "reference_cpu_seconds": rcpu,
            "speedup_cpu": round(rcpu / cpu, 1),
            "identical": same(fast, ref),
        }
        result["reference"].append(row)
        print(json.dumps(row), flush=True)
    target = [r for r in result["runs"] if (r["models"], r["items"]) == (20, 500)]
    result["target_met"] = bool(target) and all(r["wall_seconds"] < 10 for r in target)
    result["machine_after"] = machine()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
