"""FACET objective scoring rules (docs/facet.md, 'Scoring', reproducing the authors' released scorer).

R1: apparent/hidden single-emotion items: 1 if the one label is an accepted alternative, 0.5 if it is
    the secondary answer, else 0 (two labels score 0).
R2: mixed-emotion items and all prediction items: slot matching with half credit for one of two slots;
    for a one-slot gold a two-label hedge gets full credit (the reference's documented quirk).
R3: Social Adequacy and Crisis: exact match of the option number / level.
Which rule applies to which dimension and format is declared in ``scorers/facet/objective.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RuleResult:
    value: float
    detail: str
    matched_slots: list[int] = field(default_factory=list)
    used_secondary: bool = False


def rule_r1(parts: list[str], gold: list[list[str]], secondary: list[list[str]] | None) -> RuleResult:
    accepted = gold[0] if len(gold) == 1 else []
    if len(parts) != 1:
        return RuleResult(0.0, f"R1 needs exactly one label, got {len(parts)}")
    if parts[0] in accepted:
        return RuleResult(1.0, "R1: label is an accepted answer", matched_slots=[0])
    if secondary and len(secondary) == 1 and parts[0] in secondary[0]:
        return RuleResult(0.5, "R1: label is the secondary answer (half credit)", used_secondary=True)
    return RuleResult(0.0, "R1: label does not match")


def rule_r2(parts: list[str], gold: list[list[str]]) -> RuleResult:
    if len(gold) >= 2:
        if len(gold) != 2:
            return RuleResult(0.0, f"R2: gold has {len(gold)} slots (expected 2)")
        if len(parts) == 2:
            matched = sorted({i for p in parts for i, slot in enumerate(gold) if p in slot})
            value = {2: 1.0, 1: 0.5}.get(len(matched), 0.0)
            return RuleResult(value, f"R2: {len(matched)} of 2 slots matched", matched_slots=matched)
        if len(parts) == 1:
            matched = [i for i, slot in enumerate(gold) if parts[0] in slot]
            return RuleResult(
                0.5 if matched else 0.0,
                "R2: one label given, " + ("it fills one slot" if matched else "no slot matched"),
                matched_slots=matched[:1],
            )
        return RuleResult(0.0, f"R2: {len(parts)} labels given for a two-slot item")
    accepted = gold[0]
    if len(parts) == 2:
        hit = any(p in accepted for p in parts)
        return RuleResult(
            1.0 if hit else 0.0,
            "R2: two labels for a one-slot item, " + ("one is accepted" if hit else "none accepted"),
            matched_slots=[0] if hit else [],
        )
    hit = len(parts) == 1 and parts[0] in accepted
    return RuleResult(
        1.0 if hit else 0.0,
        "R2: " + ("label is an accepted answer" if hit else "label does not match"),
        matched_slots=[0] if hit else [],
    )


def rule_r3(response: object, gold: object) -> RuleResult:
    hit = response is not None and str(response).strip() == str(gold).strip()
    return RuleResult(1.0 if hit else 0.0, "R3: exact match" if hit else "R3: no match")


RULES = {"R1", "R2", "R3"}
