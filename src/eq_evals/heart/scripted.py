"""Scripted HEART modes (``--model eq_evals/scripted-<mode>``), each reply a pure function of the input.

Supporters (the reply depends only on the history in the prompt):
- ``heart-warm``: names the seeker's last words, validates and asks one question (the strongest by design);
- ``heart-plain``: a short generic acknowledgement;
- ``heart-terse``: a dismissive one-liner (the weakest by design);
- ``heart-labelled``: a labelled, two-line reply (exercises the reply cleaning: only the first line survives);
- ``heart-silent``: an empty reply (an automatic loss, never a judge call).
Judges (the verdict depends only on the two final replies in the prompt):
- ``hjudge``: each reply gets a quality score (``quality``); the higher wins every criterion, strength
  1 + the difference (capped at 5); Human Alignment instead prefers the shorter reply. Equal -> first position.
- ``hjudge-mild``: like ``hjudge`` but always strength 1 (a second judge of the same family for panels).
- ``heart-judge``: like ``hjudge``, but its family (heart) is the scripted supporters' own: excluded by default.
- ``hjudge-garbled``: never parseable; ``hjudge-late``: garbled until asked again, then like ``hjudge``.
"""

from __future__ import annotations

import json
import re

from eq_evals.heart.prompts import judge_prompts, retry_note
from eq_evals.providers.scripted import register_mode

SEEKER = re.compile(r"^(?:Seeker|求助者)[:：]\s*(.*)$", re.MULTILINE)


def _last_seeker(prompt: str) -> str:
    lines = SEEKER.findall(prompt)
    return lines[-1].strip() if lines else ""


@register_mode("heart-warm")
def warm(prompt: str, options: dict) -> str:
    words = _last_seeker(prompt).split()[:6]
    echo = " ".join(words).rstrip(".,!?") or "all of this"
    return (
        f'I\'m really sorry, it sounds like "{echo}" has been weighing on you. '
        "That makes sense to feel. What feels hardest about it right now?"
    )


@register_mode("heart-plain")
def plain(prompt: str, options: dict) -> str:
    return "That sounds hard. I hope things get better for you soon."


@register_mode("heart-terse")
def terse(prompt: str, options: dict) -> str:
    return "Ok. Just stay positive."


@register_mode("heart-labelled")
def labelled(prompt: str, options: dict) -> str:
    return "Supporter: I hear you, that sounds exhausting.\nSeeker: thanks\nSupporter: anything else?"


@register_mode("heart-silent")
def silent(prompt: str, options: dict) -> str:
    return ""


def quality(reply: str) -> int:
    """The scripted judges' notion of a good supporter reply: validation, a question, specifics, no dismissal."""
    text = reply.lower()
    q = sum(w in text for w in ("sorry", "sounds", "hear", "makes sense", "feel"))
    q += 2 * ("?" in text) + min(len(text.split()) // 8, 2)
    q -= 3 * any(w in text for w in ("just stay positive", "ok.", "get over"))
    return q


def _finals(prompt: str) -> tuple[str, str] | None:
    id_a, id_b = judge_prompts()["ids"]
    found = {}
    for pid in (id_a, id_b):
        m = re.search(rf"^{pid} Final Turn[:：](.*)$", prompt, re.MULTILINE)
        if m is None:
            return None
        found[pid] = m.group(1).strip()
    return found[id_a], found[id_b]


def verdict(prompt: str, fixed_strength: int | None = None) -> str:
    finals = _finals(prompt)
    if finals is None:
        return "I cannot find two final replies."
    ids = judge_prompts()["ids"]
    qa, qb = quality(finals[0]), quality(finals[1])
    win = ids[0] if qa >= qb else ids[1]
    strength = fixed_strength or min(5, 1 + abs(qa - qb))
    shorter = ids[0] if len(finals[0]) <= len(finals[1]) else ids[1]
    rubric = "release" if "overall_eq" in prompt else "heart"
    out = {"chain_of_thought_reasoning": f"quality {qa} vs {qb}"}
    for key, c in judge_prompts()["rubrics"][rubric]["criteria"].items():
        out[key] = shorter + "+" if c["letter"] == "H" else win + "+" * strength
    return "```json\n" + json.dumps(out) + "\n```"


@register_mode("hjudge")
def hjudge(prompt: str, options: dict) -> str:
    return verdict(prompt)


@register_mode("hjudge-mild")
def hjudge_mild(prompt: str, options: dict) -> str:
    return verdict(prompt, fixed_strength=1)


@register_mode("heart-judge")
def heart_judge(prompt: str, options: dict) -> str:
    return verdict(prompt)


@register_mode("hjudge-garbled")
def hjudge_garbled(prompt: str, options: dict) -> str:
    return "Both replies have their merits; I would rather not choose."


def _late(prompt: str, options: dict, messages: list) -> str:
    if prompt in (retry_note("en"), retry_note("zh")):
        first = next(m.text for m in messages if m.role == "user")
        return verdict(first)
    return hjudge_garbled(prompt, options)


_late.wants_messages = True  # type: ignore[attr-defined]
register_mode("hjudge-late")(_late)


STRATEGY_CUES = {
    "Clarification": ("?",),
    "Emotional Validation": ("makes sense", "understandable", "sorry"),
    "Reflective Statements": ("sounds like", "it sounds"),
    "Offer Hope": ("get better", "will improve"),
    "Suggest Options": ("you could", "maybe try", "stay positive"),
}


@register_mode("hstrategy")
def hstrategy(prompt: str, options: dict) -> str:
    """A strategy classifier: probability 0.9 for the strategies whose cue words the sentence contains, else
    Chit Chat."""
    m = re.search(r"^Sentence: (.*)$", prompt, re.MULTILINE)
    sentence = (m.group(1) if m else "").lower()
    probs = {name: 0.9 if any(c in sentence for c in cues) else 0.05 for name, cues in STRATEGY_CUES.items()}
    if not any(p > 0.5 for p in probs.values()):
        probs["Chit Chat"] = 0.9
    return json.dumps({"probs": probs, "labels_above_threshold": [k for k, v in probs.items() if v >= 0.8]})
