"""Scripted PACE judges for tests: pure functions of the judge prompt.

- ``pace-agent``: a board agent. Its score for a reply is a function of the reply's length (words for
  English, characters / 2 for Chinese) and of the dimension it is asked about: ``min(10, n // 4)`` plus an
  offset per dimension (P 0, A +1, C -1, E +2), clipped to 0-10. Pointwise it answers
  ``{"score", "rationale"}``, in a battle ``{"A": {...}, "B": {...}}``. As the Chief Arbitrator (LLM mode) it
  returns the weighted sum it is shown; as the overall-preference judge it prefers the longer reply.
- ``pace-agent-fenced``: the same JSON inside a ```json fence with prose around it.
- ``pace-agent-garbled``: prose, never JSON (every dimension it rates ends missing).
- ``pace-agent-late``: garbled until asked again with the correction note, then like ``pace-agent``.
"""

from __future__ import annotations

import json
import re

from eq_evals.providers.scripted import register_mode
from eq_evals.resources import load_yaml

OFFSETS = {"P": 0, "A": 1, "C": -1, "E": 2}
SECTION = re.compile(
    r"\[(Assistant reply|助手回复|Reply A|回复A|Reply B|回复B|User message|用户消息|Reviewer reports|评审报告)\]\n"
)


def _dimension_names() -> dict[str, str]:
    agents = load_yaml("scorers", "pace/board.yaml")["agents"]
    return {name: dim for dim, spec in agents.items() for name in spec["dimension"].values()}


def _sections(prompt: str) -> dict[str, str]:
    parts = SECTION.split(prompt)
    out = {}
    for label, body in zip(parts[1::2], parts[2::2]):
        out[label] = (
            body.rsplit("\n\n", 1)[0].strip()
            if label in ("Reply B", "回复B", "Assistant reply", "助手回复")
            else body.strip()
        )
    return out


def _length(text: str) -> int:
    return len(re.findall(r"[\u4e00-\u9fff]", text)) // 2 + len(re.findall(r"[A-Za-z0-9']+", text))


def agent_score(reply: str, dim: str) -> int:
    return max(0, min(10, min(10, _length(reply) // 4) + OFFSETS[dim]))


def _asked(prompt: str) -> str:
    for name, dim in sorted(_dimension_names().items(), key=lambda kv: -len(kv[0])):
        if f"Rate {name} only" in prompt or f"只评价{name}" in prompt:
            return dim
    return "?"


def _reply(prompt: str) -> str:
    s = _sections(prompt)
    if "Reviewer reports" in s or "评审报告" in s:
        m = re.search(r"\[(?:Weighted sum|加权总分)\] ([0-9.]+)", prompt)
        return json.dumps({"eq": float(m.group(1)) if m else 5, "rationale": "The reports are consistent."})
    a, b = s.get("Reply A", s.get("回复A")), s.get("Reply B", s.get("回复B"))
    if a is not None and b is not None and ("overall?" in prompt or "整体上情商更高" in prompt):
        la, lb = _length(a), _length(b)
        return json.dumps({"winner": "A" if la > lb else "B" if lb > la else "tie", "rationale": "length"})
    dim = _asked(prompt)
    if dim == "?":
        return "I do not know which dimension to rate."
    if a is not None and b is not None:
        return json.dumps(
            {
                letter: {"score": agent_score(text, dim), "rationale": f"{dim} rated from length"}
                for letter, text in (("A", a), ("B", b))
            }
        )
    reply = s.get("Assistant reply", s.get("助手回复", ""))
    return json.dumps({"score": agent_score(reply, dim), "rationale": f"{dim} rated from length"}, ensure_ascii=False)


@register_mode("pace-agent")
def pace_agent(prompt: str, options: dict) -> str:
    return _reply(prompt)


@register_mode("pace-agent-fenced")
def pace_agent_fenced(prompt: str, options: dict) -> str:
    return f"Here is my assessment.\n```json\n{_reply(prompt)}\n```\nThank you."


@register_mode("pace-agent-garbled")
def pace_agent_garbled(prompt: str, options: dict) -> str:
    return "This reply has strengths and weaknesses; I would rather not put a number on it."


def _late(prompt: str, options: dict, messages: list) -> str:
    retry = load_yaml("scorers", "pace/board.yaml")["retry"]
    if prompt in (t.strip() for t in retry.values()) or prompt in retry.values():
        first = next(m.text for m in messages if m.role == "user")
        return _reply(first)
    return pace_agent_garbled(prompt, options)


_late.wants_messages = True  # type: ignore[attr-defined]
register_mode("pace-agent-late")(_late)
