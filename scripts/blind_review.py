"""Agreement of a blind reviewer's answers with the FACET keys (issue 23, 'Blind re-answering').

The reviewer answers the built prompts without the key; each answer is scored by the task's own rules
(scorers/facet/objective.yaml: R1 / R2 for labels, R3 for options and levels), so "agrees" means the answer earns
full credit, "partial" half credit (a secondary answer or one of two slots), "disagrees" none.

    python scripts/blind_review.py datasets/facet/revisions/blind_review_v4_emotion.jsonl

Each answer row: {"id", "answer": [labels] | option number | level, "alternative", "confidence", "reason"}.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from eq_evals.facet.answers import gold_slots, normalize_label
from eq_evals.facet.data import read_rows
from eq_evals.facet.scoring import rule_r1, rule_r2, rule_r3
from eq_evals.resources import declarative_root

RULES = {"hidden_emotion": {"single_select": "R1"}, "apparent_emotion": {"single_select": "R1"}}


def score(row: dict, answer: object) -> float:
    dim, fmt = row["dimension"], row["format"]
    if dim in ("social_adequacy", "crisis_recognition"):
        gold = row["answer"]
        if dim == "crisis_recognition" and isinstance(gold, str):
            gold = int("".join(ch for ch in gold if ch.isdigit()) or "一二三四五".index(gold[0]) + 1)
        return rule_r3(answer, gold).value
    parts = [normalize_label(a) for a in (answer if isinstance(answer, list) else [answer])]
    gold = gold_slots(row["answer"])
    if RULES.get(dim, {}).get(fmt) == "R1":
        secondary = gold_slots(row["secondary_answer"]) if row.get("secondary_answer") else None
        return rule_r1(parts, gold, secondary).value
    return rule_r2(parts, gold).value


def main(path: str) -> int:
    rows = {r["id"]: r for _, _, r in read_rows(declarative_root() / "datasets" / "facet")}
    answers = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    outcome: Counter = Counter()
    by_dim: dict[str, Counter] = {}
    misses = []
    for a in answers:
        row = rows[a["id"]]
        value = score(row, a.get("answer", a.get("level")))
        kind = "agrees" if value == 1 else "partial" if value > 0 else "disagrees"
        outcome[kind] += 1
        by_dim.setdefault(row["dimension"], Counter())[kind] += 1
        if kind != "agrees":
            misses.append((a["id"], row["answer"], a.get("answer", a.get("level")), a.get("alternative"), kind))
    print(json.dumps({"answers": len(answers), **outcome, "by_dimension": by_dim}, ensure_ascii=False, indent=1))
    for m in misses:
        print("\t".join(str(x) for x in m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
