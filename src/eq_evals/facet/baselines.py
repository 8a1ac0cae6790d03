"""Reference rows for FACET's objective tasks: what chance and a majority guess score on the same items,
so that a model's accuracy (a 0.0 from a tiny model, say) can be read against them.

- ``chance``: the expected score of an answer drawn uniformly from the answer space the prompt offers:
  one taxonomy label of the item's language (single-emotion items), two different labels (mixed items),
  one of the item's options (Social Adequacy), one of the five CASE levels (Crisis). Exact, by enumeration
  under the same rules (R1/R2/R3, ``scorers/facet/objective.yaml``) and label normalisation the scorer uses.
- ``majority``: every item answered with the most frequent gold answer among the items of its dimension,
  language and format (ties: the alphabetically first), scored by the scorer itself. The majority answer is
  picked from ``majority_from`` (e.g. the whole dataset) when given, else from the same items; on a small
  subset (``--limit 10``) picking it in-sample would flatter the baseline.

Both are computed from item metadata (the samples of a dataset or of a log), so they describe exactly the
items a run saw. Used by ``scripts/demo.sh``; leaderboards and summaries can show the same rows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from statistics import fmean
from typing import Any, Iterable

from eq_evals.facet import answers
from eq_evals.facet.scorer import facet_score, load_rules
from eq_evals.facet.scoring import rule_r1, rule_r2
from eq_evals.facet.taxonomy import taxonomy


@dataclass
class BaselineRow:
    dimension: str
    language: str
    items: int
    chance: float
    majority: float
    majority_answers: dict[str, str]  # format -> the answer the majority baseline gives


def _first_alternatives(gold: str) -> str:
    return "+".join(slot[0] for slot in answers.gold_slots(gold, normalize=False))


def _chance(meta: dict[str, Any], rules_file: str) -> float:
    dimension, fmt, language = meta["dimension"], meta["format"], meta["language"]
    spec = load_rules(rules_file)["dimensions"][dimension]
    rule, kind = spec["rules"][fmt], spec["answer"]
    if kind == "labels":
        labels = sorted({answers.normalize_label(name) for name in taxonomy().names(language)})
        gold = answers.gold_slots(str(meta["answer"]))
        secondary = answers.gold_slots(str(meta["secondary_answer"])) if meta.get("secondary_answer") else None
        picks = [[a, b] for a, b in combinations(labels, 2)] if fmt == "multi_select" else [[a] for a in labels]
        score = (
            (lambda parts: rule_r1(parts, gold, secondary).value)
            if rule == "R1"
            else (lambda parts: rule_r2(parts, gold).value)
        )
        return fmean(score(parts) for parts in picks)
    if kind == "option":
        options = range(1, max(int(meta.get("n_options") or 0), 2) + 1)
        return fmean(facet_score(f"<answer>{n}</answer>", meta, rules_file).value for n in options)
    return fmean(facet_score(f"<answer>Level {n}</answer>", meta, rules_file).value for n in range(1, 6))


def _groups(metadatas: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict]]:
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for meta in metadatas:
        if meta and meta.get("dimension") and meta.get("answer") is not None:
            groups[(meta["dimension"], meta["language"], meta["format"])].append(meta)
    return groups


def facet_baselines(
    metadatas: Iterable[dict[str, Any]],
    rules_file: str = "facet/objective.yaml",
    majority_from: Iterable[dict[str, Any]] | None = None,
) -> list[BaselineRow]:
    """Chance and majority scores per (dimension, language) over these items (sample metadata)."""
    groups = _groups(metadatas)
    pools = _groups(majority_from) if majority_from is not None else groups
    majority: dict[tuple[str, str, str], str] = {}
    for key in groups:
        counts = Counter(_first_alternatives(str(m["answer"])) for m in pools.get(key) or groups[key])
        majority[key] = min(counts, key=lambda answer: (-counts[answer], answer))
    rows: dict[tuple[str, str], dict[str, Any]] = defaultdict(lambda: {"chance": [], "majority": [], "answers": {}})
    for key, metas in groups.items():
        dimension, language, fmt = key
        row = rows[(dimension, language)]
        row["answers"][fmt] = majority[key]
        for meta in metas:
            row["chance"].append(_chance(meta, rules_file))
            row["majority"].append(facet_score(f"<answer>{majority[key]}</answer>", meta, rules_file).value)
    return [
        BaselineRow(
            dimension, language, len(row["chance"]), fmean(row["chance"]), fmean(row["majority"]), row["answers"]
        )
        for (dimension, language), row in sorted(rows.items())
    ]
