"""Scripted judges for tests: pure functions of the judge prompt.

- ``judge``: position-invariant; the shorter response wins (by the lengths the prompt states), margin
  1 + |difference| // 10 capped at 5; equal lengths -> "A+" (so a tie becomes a position conflict).
- ``judge-first``: always "A++" (pure position bias: every matchup is conflicted).
- ``judge-garbled``: never names a winner.
- ``judge-late``: garbled until it is asked again, then like ``judge`` (exercises the retry).
"""

from __future__ import annotations

import json
import re

from eq_evals.pairwise.judge import RETRY_NOTE
from eq_evals.providers.scripted import register_mode

LENGTHS = re.compile(r"(?:Response|回复)\s*([AB])\s*[（(]\s*(?:Length|长度)\s*[:：]\s*(\d+)")


def _verdict(prompt: str) -> str:
    lengths = {letter: int(n) for letter, n in LENGTHS.findall(prompt)}
    if set(lengths) != {"A", "B"}:
        return json.dumps({"chain_of_thought_reasoning": "I cannot see two responses.", "overall_winner": "?"})
    a, b = lengths["A"], lengths["B"]
    winner = "A" if a <= b else "B"
    margin = min(5, 1 + abs(a - b) // 10)
    return json.dumps(
        {
            "chain_of_thought_reasoning": f"Response A has length {a}, B {b}; the shorter one is "
            "kinder to a distressed user.",
            "length_analysis": "compared",
            "content_quality_analysis": "similar",
            "overall_winner": winner + "+" * margin,
        }
    )


@register_mode("judge")
def judge(prompt: str, options: dict) -> str:
    return _verdict(prompt)


@register_mode("judge-first")
def judge_first(prompt: str, options: dict) -> str:
    return json.dumps({"chain_of_thought_reasoning": "The first response is better.", "overall_winner": "A++"})


@register_mode("judge-garbled")
def judge_garbled(prompt: str, options: dict) -> str:
    return "Both responses have merits and I would not like to choose."


def _judge_late(prompt: str, options: dict, messages: list) -> str:
    if prompt in RETRY_NOTE.values():
        first = next(m.text for m in messages if m.role == "user")
        return _verdict(first)
    return judge_garbled(prompt, options)


_judge_late.wants_messages = True  # type: ignore[attr-defined]
register_mode("judge-late")(_judge_late)
