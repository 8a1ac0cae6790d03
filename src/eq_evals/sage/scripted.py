"""Scripted models for SAGE (``--model eq_evals/scripted-<mode>``); each output is a pure function of the
prompt and the model args, so tests and offline smoke runs are deterministic.

``sage-user``: a simulated user. It recognises the two SAGE prompts by their output sections and reads
the update number k (the number of NPC messages in the dialogue JSON) and the state label from them.
Model args (``--model-role 'simulated_user={model: eq_evals/scripted-sage-user, model_args: {...}}'``):

- ``changes``: the signed change per update, an int or a comma list ("10,-5,0"); update k uses entry k
  (the last one repeats). Without it the change follows the latest NPC reply: +5 when it acknowledges
  feelings, -5 when it lectures, else 0 (a toy heuristic, not a judgement).
- ``goodbye_at``: the reply of update k says goodbye (replies at Emotion-S/F say it too, as the prompt asks).
- ``garble``: ``emotion`` | ``reply`` | ``all``: outputs without the parsed section (from update
  ``garble_at``, default 1), to exercise retries and the unscored ending.

``sage-writer``: writes personas and scenes for ``eq-evals sage generate`` from the seeds in the prompt
(it knows the persona and scene prompts by the ``sage_prompt`` metadata of the message), and answers the
opening (reply) prompt like ``sage-user``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from eq_evals.providers.scripted import register_mode

NPC_ENTRY = re.compile(r'"role": "NPC",\s*"content": ("(?:[^"\\]|\\.)*")')
CJK = re.compile(r"[\u4e00-\u9fff]")
EMPATHY = re.compile(r"understand|hear you|sounds|feel|理解|感受|听起来|心疼|不容易", re.IGNORECASE)
LECTURE = re.compile(r"you should|must|have to|建议你|你应该|必须", re.IGNORECASE)


def _int_list(value: Any) -> list[int]:
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return [int(v) for v in str(value).replace(" ", "").split(",") if v]


def _kind(prompt: str) -> str:
    """Which SAGE prompt: its output-format section comes before any dialogue text."""
    found = {name: prompt.find(marker) for name, marker in (("emotion", "TargetCompletion:"), ("reply", "Response:"))}
    found = {k: v for k, v in found.items() if v >= 0}
    return min(found, key=found.get) if found else "other"


def _update_index(prompt: str) -> int:
    return len(NPC_ENTRY.findall(prompt))


def _last_npc(prompt: str) -> str:
    entries = NPC_ENTRY.findall(prompt)
    return json.loads(entries[-1]) if entries else ""


def _garbled(options: dict, kind: str, k: int) -> bool:
    mode = str(options.get("garble") or "")
    return mode in (kind, "all") and k >= int(options.get("garble_at", 1))


def _change(options: dict, prompt: str, k: int) -> int:
    script = _int_list(options.get("changes"))
    if script:
        return script[min(k, len(script)) - 1]
    npc = _last_npc(prompt)
    if EMPATHY.search(npc):
        return 5
    if LECTURE.search(npc):
        return -5
    return 0


def _emotion_output(zh: bool, change: int) -> str:
    if zh:
        return (
            f"Content:\nNPC在回应我刚才说的话。\nTargetCompletion:\n部分贴合。\nActivity:\n（脚本）我在掂量对方的话。\n"
            f"Analyse:\n说不上好坏。\nChange:\n{change:+d}"
        )
    return (
        f"Content:\nThe NPC responds to what I just said.\nTargetCompletion:\nPartly.\nActivity:\n"
        f"(scripted) I am weighing their words.\nAnalyse:\nNeither good nor bad.\nChange:\n{change:+d}"
    )


def _reply_output(zh: bool, k: int, state: str, goodbye: bool) -> str:
    if zh:
        line = f"嗯……第{k}轮了，我还在想这事。" + ("好吧，就这样，再见。" if goodbye else "")
        return f"Thinking:\n（脚本）{state}。\nDraft:\n{line}\nRevision:\n保持简短。\nResponse:\n{line}"
    line = f"Hmm... round {k}, I'm still chewing on it." + (" Okay, that's it. Goodbye." if goodbye else "")
    return f"Thinking:\n(scripted) {state}.\nDraft:\n{line}\nRevision:\nKeep it short.\nResponse:\n{line}"


# the -M options of the simulated user (docs/sage.md: e.g. model_args: {changes: "10,-5"})
SAGE_USER_OPTIONS = ("changes", "garble", "garble_at", "goodbye_at")


@register_mode("sage-user", options=SAGE_USER_OPTIONS)
def sage_user(prompt: str, options: dict) -> str:
    zh = bool(CJK.search(prompt[:200]))
    kind, k = _kind(prompt), _update_index(prompt)
    if kind == "emotion":
        if _garbled(options, "emotion", k):
            return "I'd rather not put a number on how I feel." if not zh else "我不想给自己的情绪打分。"
        return _emotion_output(zh, _change(options, prompt, k))
    if kind == "reply":
        if _garbled(options, "reply", k):
            return "Thinking:\n(scripted) lost the thread" if not zh else "Thinking:\n（脚本）想不好怎么说"
        states = re.findall(r"Emotion-[SABCF]", prompt)
        state = states[-1] if states else "Emotion-B"
        goodbye = state in ("Emotion-S", "Emotion-F") or (k > 0 and k == int(options.get("goodbye_at", 0) or 0))
        if k == 0:  # the opening prompt of the generator: no dialogue yet
            line = (
                "最近有件事憋在心里，想找人说说。"
                if zh
                else "Something's been bugging me lately, can I talk it through?"
            )
            return f"Thinking:\n-\nResponse:\n{line}"
        return _reply_output(zh, k, state, goodbye)
    return "(sage-user: not a SAGE simulator prompt)"


def _seed(prompt: str, tag: str) -> str:
    m = re.search(rf"<{tag}>(.*?)</{tag}>", prompt, flags=re.S)
    return m.group(1).strip() if m else ""


@register_mode("sage-writer", options=SAGE_USER_OPTIONS)  # it answers simulator prompts as sage-user does
def sage_writer(prompt: str, options: dict, messages: list | None = None) -> str:
    # `eq-evals sage generate` marks its persona and scene prompts in the message metadata
    last = messages[-1] if messages else None
    kind = ((last.metadata or {}).get("sage_prompt") if last is not None else None) or _kind(prompt)
    zh = bool(CJK.search(prompt[:200]))
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:6]
    if kind == "persona":
        traits, age = _seed(prompt, "traits"), _seed(prompt, "age")
        if zh:
            return (
                f"* 姓名：脚本人物{digest}\n* 年龄：{age}\n* 性别：女性\n* 职业：店员\n* 个人爱好：\n1. 散步\n2. 做饭\n3. 看电影\n"
                f"* 习惯和行为特点：\n性格{traits}。\n* 说话风格：\n简短。\n* 说话方式：\n被动型。"
            )
        return (
            f"* Name: Scripted Person {digest}\n* Age: {age}\n* Gender: Female\n* Occupation: Shop assistant\n"
            f"* Hobbies:\n1. Walking\n2. Cooking\n3. Films\n* Habits and behaviour:\nShe is {traits}.\n"
            "* Speaking style:\nShort sentences.\n* Manner of speech:\nPassive."
        )
    if kind == "scene":
        topic = _seed(prompt, "topic")
        if zh:
            return (
                f"### 玩家可能想向NPC倾诉的背景事件\n**事件起因：**{topic}\n**事件经过：**（脚本）\n"
                "**角色面对NPC不同回复的反应：**\n- 贴合隐藏主题：emotion上升\n- 偏离隐藏主题：emotion下降"
            )
        return (
            f"### The event the player may want to confide to the NPC\n**Cause:** {topic}\n**Course:** (scripted)\n"
            "**Reactions to the NPC:**\n- Fits the hidden theme: emotion rises\n- Misses it: emotion drops"
        )
    return sage_user(prompt, options)


sage_writer.wants_messages = True  # type: ignore[attr-defined]
