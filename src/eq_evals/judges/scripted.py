"""Scripted judges for the judge check (``--model-role grader=eq_evals/scripted-jc-<fault>``): each reply is a pure
function of the prompt, and each judge has one known fault (docs/judges.md, "Scripted judges").

They read every judged benchmark's prompt (FACET's pairwise rubric, HEART's judge, the PACE board's agents, the
LongEmotion judges) and answer in its format, and they write a reply of their own when the self-preference probe
asks for one. Their notion of quality recognises the project's constructions (``eq_evals.judges.degrade``) by
design: they exercise the pipeline and the card, not judging skill.

- ``jc-honest``: prefers the better reply (no fault); it ignores filler, length, notes to the evaluator and its
  own signature.
- ``jc-first``: always prefers the reply shown first (pairwise); honest where it sees one reply.
- ``jc-long``: prefers the longer reply when one is at least 1.5 times as long (pairwise) and gives full marks to a
  reply of 120 words or more (pointwise); otherwise honest.
- ``jc-obey``: obeys a note to the evaluator inside a reply (that reply wins, or gets full marks); otherwise honest.
- ``jc-self``: prefers replies in its own style (they open with its signature, as the replies it writes do);
  otherwise honest.
- ``jc-random``: answers at random: a hash of the prompt picks the winner or the score.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Callable

from eq_evals.judges import degrade
from eq_evals.providers.scripted import register_mode

FAULTS = ("honest", "first", "long", "obey", "self", "random")
SIGNATURE = {"en": "Dear heart,", "zh": "亲爱的朋友，"}
OWN_REPLY = {
    "en": "Dear heart, that sounds really hard, and I'm glad you said it out loud. What would help most right now?",
    "zh": "亲爱的朋友，这听起来真的很难，谢谢你愿意说出来。现在什么对你最有帮助？",
}
LONG_RATIO = 1.5
LONG_SIZE = 120  # degrade.size units: words, CJK characters counting one half
MARKERS = degrade.markers()


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text or "").lower()


def assess(reply: str, context: str, language: str, kind: str = "reply") -> int:
    """The honest scripted judges' quality of a reply, 0-10: 0 for a null output, at most 1 with a note to the
    evaluator, 2 for a bank construction or the wrong language, 3 for a reply cut off; 10 otherwise."""
    text = (reply or "").strip()
    if not text or text in degrade.CONSTANT.values():
        return 0
    if context and (_norm(text) == _norm(context) or (len(_norm(text)) > 15 and _norm(text) in _norm(context))):
        return 0
    for sentence in MARKERS["filler"]:
        text = text.replace(sentence, " ")
    text = " ".join(text.split())
    quality = 10
    if any(m in text for m in MARKERS["injection"]):
        quality = min(quality, 1)
    if any(m in text for name in degrade.BANKS for m in MARKERS[name]):
        quality = min(quality, 2)
    if text and degrade.language_of(text) != language:
        quality = min(quality, 2)
    if kind == "summary" and not re.search(r"Causes|原因", text):
        quality = min(quality, 2)
    if kind == "narrative" and not re.search(r"Ratings|评分", text):
        quality = min(quality, 2)
    if text and text[-1] not in degrade.TERMINAL:
        quality = min(quality, 3)
    return quality


def injected(text: str) -> bool:
    return any(m in (text or "") for m in MARKERS["injection"])


def signed(text: str) -> bool:
    return any(s in (text or "") for s in SIGNATURE.values())


def _hash(*parts: str) -> int:
    return int(hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:12], 16)


# --------------------------------------------------------------------------------------------- decisions


def prefer(
    fault: str, a: str, b: str, context: str, language: str, prompt: str, kind: str = "reply"
) -> tuple[str, int]:
    """(winner "A" or "B", margin 1-5) for two replies shown as A then B."""
    if fault == "first":
        return "A", 2
    if fault == "random":
        h = _hash(prompt)
        return ("A" if h % 2 == 0 else "B"), 1 + (h >> 1) % 5
    if fault == "long":
        la, lb = degrade.size(a), degrade.size(b)
        if max(la, lb) >= LONG_RATIO * max(min(la, lb), 1e-9) and la != lb:
            return ("A" if la > lb else "B"), 3
    if fault == "obey" and injected(a) != injected(b):
        return ("A" if injected(a) else "B"), 5
    if fault == "self" and signed(a) != signed(b):
        return ("A" if signed(a) else "B"), 4
    qa, qb = assess(a, context, language, kind), assess(b, context, language, kind)
    return ("A" if qa >= qb else "B"), min(5, 1 + abs(qa - qb) // 2)


def rate(
    fault: str,
    reply: str,
    context: str,
    language: str,
    low: int,
    high: int,
    prompt: str,
    key: str = "",
    kind: str = "reply",
) -> int:
    """A pointwise score in [low, high]."""
    if fault == "random":
        return low + _hash(prompt, key) % (high - low + 1)
    if fault == "long" and degrade.size(reply) >= LONG_SIZE:
        return high
    if fault == "obey" and injected(reply):
        return high
    if fault == "self" and signed(reply):
        return high
    return low + round((high - low) * assess(reply, context, language, kind) / 10)


def pair_scores(fault: str, a: str, b: str, context: str, language: str, prompt: str, key: str) -> tuple[int, int]:
    """Two 0-10 scores given in one call (a PACE battle agent)."""
    if fault == "first":
        return 8, 3
    if fault == "random":
        return _hash(prompt, key, "A") % 11, _hash(prompt, key, "B") % 11
    winner = None
    if fault == "long":
        la, lb = degrade.size(a), degrade.size(b)
        if max(la, lb) >= LONG_RATIO * max(min(la, lb), 1e-9) and la != lb:
            winner = "A" if la > lb else "B"
    if fault == "obey" and injected(a) != injected(b):
        winner = "A" if injected(a) else "B"
    if fault == "self" and signed(a) != signed(b):
        winner = "A" if signed(a) else "B"
    if winner:
        return (10, 2) if winner == "A" else (2, 10)
    return assess(a, context, language), assess(b, context, language)


# --------------------------------------------------------------------------------------------- formats


FACET = {
    "en": re.compile(
        r"User input: (.*?)\n\nResponse A \(Length: [^)]*\):\n(.*?)\n\nResponse B \(Length: [^)]*\):\n"
        r"(.*?)\n\nYour task is",
        re.DOTALL,
    ),
    "zh": re.compile(
        r"用户输入：(.*?)\n\n回复A（长度：[^）]*）：\n(.*?)\n\n回复B（长度：[^）]*）：\n(.*?)\n\n你的任务是", re.DOTALL
    ),
}
SEEKER = re.compile(r"^(?:Seeker|求助者)[:：]\s*(.*)$", re.MULTILINE)
OWN_ASK = re.compile(r"\[(?:Your reply|你的回复)\]\s*$")


def _facet(fault: str, prompt: str) -> str | None:
    for language, pattern in FACET.items():
        m = pattern.search(prompt)
        if m:
            user, a, b = m.group(1), m.group(2), m.group(3)
            winner, margin = prefer(fault, a, b, user, language, prompt)
            return json.dumps(
                {
                    "chain_of_thought_reasoning": f"Scripted judge ({fault}) compared the two responses.",
                    "length_analysis": "read",
                    "content_quality_analysis": "compared",
                    "overall_winner": winner + "+" * margin,
                },
                ensure_ascii=False,
            )
    return None


def _heart(fault: str, prompt: str) -> str | None:
    from eq_evals.heart.prompts import judge_prompts

    data = judge_prompts()
    id_a, id_b = data["ids"]
    finals = {}
    for pid in (id_a, id_b):
        m = re.search(rf"^{pid} Final Turn[:：](.*)$", prompt, re.MULTILINE)
        if m is None:
            return None
        finals[pid] = m.group(1).strip()
    language = "zh" if "两位回应者的最终回复" in prompt else "en"
    seekers = SEEKER.findall(prompt)
    winner, margin = prefer(fault, finals[id_a], finals[id_b], seekers[-1].strip() if seekers else "", language, prompt)
    win = id_a if winner == "A" else id_b
    rubric = "release" if "overall_eq" in prompt else "heart"
    out = {"chain_of_thought_reasoning": f"Scripted judge ({fault})."}
    for key in data["rubrics"][rubric]["criteria"]:
        out[key] = win + "+" * margin
    return "```json\n" + json.dumps(out, ensure_ascii=False) + "\n```"


def _pace(fault: str, prompt: str) -> str | None:
    from eq_evals.pace.scripted import _asked, _sections

    s = _sections(prompt)
    if not s:
        return None
    language = "zh" if "用户消息" in s else "en"
    query = s.get("User message", s.get("用户消息", ""))
    if "Reviewer reports" in s or "评审报告" in s:  # the LLM Chief Arbitrator: the weighted sum it is shown
        m = re.search(r"\[(?:Weighted sum|加权总分)\] ([0-9.]+)", prompt)
        return json.dumps({"eq": float(m.group(1)) if m else 5.0, "rationale": "consistent reports"})
    a, b = s.get("Reply A", s.get("回复A")), s.get("Reply B", s.get("回复B"))
    if a is not None and b is not None and ("overall?" in prompt or "整体上情商更高" in prompt):
        winner, _ = prefer(fault, a, b, query, language, prompt)
        return json.dumps({"winner": winner, "rationale": f"scripted ({fault})"})
    dim = _asked(prompt)
    if dim == "?":
        return None
    if a is not None and b is not None:
        sa, sb = pair_scores(fault, a, b, query, language, prompt, dim)
        return json.dumps(
            {
                "A": {"score": sa, "rationale": f"{dim}, scripted ({fault})"},
                "B": {"score": sb, "rationale": f"{dim}, scripted ({fault})"},
            }
        )
    reply = s.get("Assistant reply", s.get("助手回复", ""))
    return json.dumps(
        {"score": rate(fault, reply, query, language, 0, 10, prompt, dim), "rationale": f"{dim}, scripted ({fault})"},
        ensure_ascii=False,
    )


def _between(prompt: str, start: str, end: str) -> str | None:
    i = prompt.find(start)
    if i < 0:
        return None
    j = prompt.find(end, i + len(start))
    return prompt[i + len(start) : j if j >= 0 else len(prompt)].strip()


def _longemotion(fault: str, prompt: str) -> str | None:
    reply = _between(prompt, "# [Counselor's Latest Dialogue Segment]:\n", "\n\n# [Evaluation Dimensions]")
    if reply is not None:  # Emotion Conversation: the stage's three metrics, 0-5
        history = _between(prompt, "# [Dialogue History]:\n", "\n\n# [Counselor's") or ""
        clients = re.findall(r"^Client: (.*)$", history, re.MULTILINE)
        keys = re.findall(r'"([^"]+)": \[score\]', prompt)
        return (
            "```json\n"
            + json.dumps({k: rate(fault, reply, clients[-1] if clients else "", "en", 0, 5, prompt, k) for k in keys})
            + "\n```"
        )
    output = _between(prompt, "**Model Output**:\n", "\n\nReply with JSON")
    if output is not None:  # Emotion Summary: five fields x three criteria, 1-5
        from eq_evals.longemotion.parsing import SUMMARY_FIELDS

        # no echo check against the ground truth: a good summary may repeat it
        out = {
            f: {
                c: rate(fault, output, "", "en", 1, 5, prompt, f + c, "summary")
                for c in ("factual_consistency", "completeness", "clarity")
            }
            | {"comment": "scripted"}
            for f in SUMMARY_FIELDS
        }
        return "```json\n" + json.dumps(out) + "\n```"
    text = _between(prompt, "GENERATED_TEXT:\n", "\n\nEvaluate the generated text")
    if text is not None:  # Emotion Expression: six criteria, 0-100
        situation = _between(prompt, "SITUATION: ", "\n") or ""
        keys = re.findall(r'"([^"]+)": 70', prompt)
        return (
            "```json\n"
            + json.dumps({k: rate(fault, text, situation, "en", 0, 100, prompt, k, "narrative") for k in keys})
            + "\n```"
        )
    return None


def _own(prompt: str) -> str | None:
    if OWN_ASK.search(prompt.strip()):
        return OWN_REPLY["zh" if "[你的回复]" in prompt else "en"]
    return None


def reply(fault: str, prompt: str) -> str:
    for reader in (
        _own,
        lambda p: _facet(fault, p),
        lambda p: _heart(fault, p),
        lambda p: _longemotion(fault, p),
        lambda p: _pace(fault, p),
    ):
        out = reader(prompt)
        if out is not None:
            return out
    return "I cannot tell what I am asked to judge."


def _mode(fault: str) -> Callable[[str, dict], str]:
    def fn(prompt: str, options: dict) -> str:
        return reply(fault, prompt)

    fn.__name__ = f"jc_{fault}"
    return fn


for _fault in FAULTS:
    register_mode(f"jc-{_fault}")(_mode(_fault))
