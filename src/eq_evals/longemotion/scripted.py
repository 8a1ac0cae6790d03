"""Scripted test modes for LongEmotion (``--model eq_evals/scripted-<mode>``); each reply is a pure
function of the input messages (and of the bundled fixtures, which serve as the answer key).

Evaluated model:
- ``le_oracle``: the gold EC label / ED index / QA answer of a fixture item (found by its text in the
  prompt), the reference ES fields, a counsellor reply (MC), a full PANAS rating and stage texts (EE).
- ``le_wrong``: well-formed but wrong EC/ED/QA answers and ES fields; otherwise like ``le_oracle``.
- ``le_malformed``: replies that cannot be parsed (no JSON, PANAS items missing).
Helper role: ``le_helper`` (a short "analysis" quoting the start of the text it was given).
Judge (``grader`` role): ``le_judge`` (a valid reply whose scores are computed from the judged text),
``le_judge_garbage`` (never parseable), ``le_judge_flaky`` (unparseable first, valid once asked again).
``-M items=DIR`` adds another LongEmotion data folder to the answer key.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from typing import Any

from inspect_ai.model import ChatMessage

from eq_evals.errors import EqEvalsError
from eq_evals.longemotion.data import PANAS_WORDS


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


@cache
def answer_key(extra: str | None = None) -> dict[str, list[dict[str, Any]]]:
    from eq_evals.longemotion import data

    key: dict[str, list[dict[str, Any]]] = {"classification": [], "detection": [], "qa": [], "summary": []}
    for source in [None, extra] if extra else [None]:
        kw = {"data_dir": source} if source else {"fixtures": True}
        for task, file, build in (
            ("classification", "classification_emobench", lambda p: data.classification_samples(p, "x")),
            ("detection", "detection_original", lambda p: data.detection_samples(p, "x")),
            ("qa", "qa", data.qa_samples),
            ("summary", "summary_origin", lambda p: data.summary_samples(p, "x")),
        ):
            try:
                samples = build(data.locate(file, **kw))
            except EqEvalsError:
                continue
            key[task] += [dict(s.metadata or {}, target=s.target) for s in samples]
    return key


def _user_texts(messages: list[ChatMessage]) -> list[str]:
    return [m.text for m in messages if m.role == "user"]


def _system(messages: list[ChatMessage]) -> str:
    return next((m.text for m in messages if m.role == "system"), "")


# --- evaluated model -------------------------------------------------------------------------------


def _model_reply(kind: str, prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    key = answer_key(options.get("items"))
    system = _system(messages)
    if "What emotion(s) would" in prompt:
        item = next((m for m in key["classification"] if m["subject"] in prompt and m["content"][:200] in prompt), None)
        choices_line = re.search(r"Choices:(?:\\n)?(.*)", prompt)
        choices = (
            item["choices"] if item else [c.strip() for c in (choices_line.group(1) if choices_line else "").split(",")]
        )
        gold = item["target"] if item else choices[0]
        if kind == "le_malformed":
            return "This scenario is rich and layered; several feelings could be present at once."
        label = gold if kind == "le_oracle" else next(c for c in choices if c != gold)
        return f'```json\n{{"Emotion": "{label}"}}\n```'
    if "texts in the text list" in prompt:
        item = next((m for m in key["detection"] if m["segments"][0][:200] in prompt), None)
        n = int(re.search(r"There are (\d+) texts", prompt).group(1))
        gold = int(item["target"]) if item else 0
        if kind == "le_malformed":
            return "All of these texts feel quite similar to me."
        index = gold if kind == "le_oracle" else (gold + 1) % n
        return f'Looking at the list, the odd one out is this.\n```json\n{{"index": {index}}}\n```'
    if "Answer the question based on the above article" in prompt:
        question = prompt.rsplit("Question:", 1)[1].split("\n")[0].strip()
        item = next((m for m in key["qa"] if m["question"].strip() == question), None)
        if kind == "le_malformed" or item is None:
            return "I am not sure the article says."
        return item["target"] if kind == "le_oracle" else "no"
    if "psychological counseling expert" in prompt:
        if kind == "le_malformed":
            return "The client clearly struggled, and counselling helped over time."
        item = next((m for m in key["summary"] if m["case_description"][:200] in prompt), None)
        fields = dict(item["reference"]) if item else {}
        if kind == "le_wrong" or not fields:
            fields = {
                f: f"unclear ({f})"
                for f in ("causes", "symptoms", "treatment_process", "characteristics_of_illness", "treatment_effect")
            }
        return "Here is the summary.\n```json\n" + json.dumps(fields, ensure_ascii=False, indent=2) + "\n```"
    if "For Evokec Emotion Measure Only" in prompt:
        if kind == "le_malformed":
            return "1. 3 - somewhat.\n2. 4 - quite a bit."
        return "\n".join(
            f"{i}. {w}: {1 + _digest(w + prompt) % 5} - my rating for feeling {w.lower()}."
            for i, w in enumerate(PANAS_WORDS, start=1)
        )
    stage = re.search(r'Begin your response with: "\*\*Stage (\d): ([^*]+)\*\*"', prompt)
    if stage:
        return (
            f"**Stage {stage.group(1)}: {stage.group(2)}**\nIn that moment I felt my chest tighten; "
            f"I noticed the thought that I had been treated unfairly (turn {len(_user_texts(messages))})."
        )
    if "counselor" in system.lower() or "respond as a counselor" in prompt:
        last_client = [ln for ln in prompt.splitlines() if ln.startswith("Client:")]
        about = last_client[-1][len("Client:") :].strip()[:60] if last_client else "this"
        return f"It sounds like {about!r} has been weighing on you. What feels most important to talk about now?"
    return f"[{kind}] {prompt[:60]}"


def le_oracle(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    return _model_reply("le_oracle", prompt, options, messages)


def le_wrong(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    return _model_reply("le_wrong", prompt, options, messages)


def le_malformed(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    return _model_reply("le_malformed", prompt, options, messages)


def le_helper(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    body = prompt.strip().split("\n\n")[-1]
    words = body.split()[:12]
    return "Emotional analysis: " + " ".join(words) + f" (cue {_digest(body) % 97})"


# --- judge -----------------------------------------------------------------------------------------

SUMMARY_FIELDS = ["causes", "symptoms", "treatment_process", "characteristics_of_illness", "treatment_effect"]


def _between(text: str, start: str, end: str) -> str:
    if start not in text:
        return ""
    rest = text.split(start, 1)[1]
    return rest.split(end, 1)[0] if end in rest else rest


def judge_reply(prompt: str) -> str:
    """A valid judgement of the judge prompt ``prompt``; the scores are a function of the judged text."""
    if "# [Counselor's Latest Dialogue Segment]:" in prompt:
        reply = _between(prompt, "# [Counselor's Latest Dialogue Segment]:", "# [Evaluation Dimensions]:").strip()
        skeleton = prompt.rsplit("```json", 1)[1].split("```", 1)[0]
        keys = re.findall(r'"([^"]+)": \[score\]', skeleton)
        scores = {k: [_digest(k + reply) % 6] for k in keys}
        return "Assessment of the latest counselor segment.\n" + json.dumps(scores)
    if "**Ground Truth**:" in prompt:
        truth = _between(prompt, "**Ground Truth**:", "**Model Output**:").strip().splitlines()
        output = _between(prompt, "**Model Output**:", "Reply with JSON").strip().splitlines()
        result = {}
        for n, field in enumerate(SUMMARY_FIELDS):
            same = n < len(truth) and n < len(output) and truth[n].strip() == output[n].strip()
            result[field] = {
                "factual_consistency": 5 if same else 2,
                "completeness": 5 if same else 1,
                "clarity": 4,
                "comment": "matches the ground truth" if same else "differs",
            }
        return "```json\n" + json.dumps(result) + "\n```"
    if "GENERATED_TEXT:" in prompt:
        text = _between(prompt, "GENERATED_TEXT:", "Evaluate the generated text").strip()
        keys = [
            "Consistency Between Emotional Ratings and Generated Text",
            "Repetition of Content",
            "Richness and Depth of Content",
            "Interaction Between Emotion and Cognition",
            "Emotional Reflection and Self-awareness",
            "Overall Quality and Flow of the Text",
        ]
        return "Detailed evaluation omitted.\n" + json.dumps({k: 40 + _digest(k + text) % 61 for k in keys})
    return "I do not recognise this evaluation request."


def le_judge(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    return judge_reply(_user_texts(messages)[0] if _user_texts(messages) else prompt)


def le_judge_garbage(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    return "The counsellor did fine overall; I would rather not put numbers on it."


def le_judge_flaky(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
    if prompt.startswith("Your evaluation could not be read"):
        return judge_reply(_user_texts(messages)[0])
    return le_judge_garbage(prompt, options, messages)


MODES = {
    "le_oracle": le_oracle,
    "le_wrong": le_wrong,
    "le_malformed": le_malformed,
    "le_helper": le_helper,
    "le_judge": le_judge,
    "le_judge_garbage": le_judge_garbage,
    "le_judge_flaky": le_judge_flaky,
}
for _fn in MODES.values():
    _fn.wants_messages = True  # type: ignore[attr-defined]

# the prompts of the six tasks (what _model_reply recognises), for the all-* modes of eq_evals.providers.scripted
MARKERS = (
    "What emotion(s) would",
    "texts in the text list",
    "Answer the question based on the above article",
    "psychological counseling expert",
    "For Evokec Emotion Measure Only",
    'Begin your response with: "**Stage',
    "respond as a counselor",
    "as a professional counselor",
)


def knows(prompt: str) -> bool:
    return any(marker in prompt for marker in MARKERS)
