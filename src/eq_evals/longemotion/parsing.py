"""Reading model and judge replies for LongEmotion (docs/longemotion.md, 'Scoring').

One lenient JSON reader is used everywhere (docs/longemotion.md, 'Scoring'): strip the reasoning part, then try
the whole text, the fenced ```json blocks, and every balanced ``{...}`` in the text, after mapping
full-width punctuation to ASCII. Key-specific regexes are the last resort for EC and ED.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from typing import Any, Callable

THINK_END = "</think>"
FENCED = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
FULL_WIDTH = str.maketrans({"，": ",", "：": ":", "“": '"', "”": '"', "｛": "{", "｝": "}"})


def strip_think(text: str) -> str:
    """Everything after the last ``</think>`` (LongEmotion paper §5.1: Qwen3's reasoning is removed before scoring)."""
    if THINK_END in text:
        text = text.rsplit(THINK_END, 1)[1]
    return text.strip()


def _objects_in(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` and decodes, in text order (nested objects included)."""
    decoder, found = json.JSONDecoder(), []
    for i, ch in enumerate(text):
        if ch != "{":
            continue
        try:
            value, _ = decoder.raw_decode(text, i)
        except ValueError:
            continue
        found.append(value)
    return found


def json_candidates(text: str) -> list[Any]:
    """Candidate JSON values in order of preference: whole text, fenced blocks (last first), then any
    balanced object in the text (first first)."""
    text = strip_think(text)
    out: list[Any] = []
    for variant in (text, text.translate(FULL_WIDTH)):
        try:
            out.append(json.loads(variant))
        except ValueError:
            pass
        for block in reversed(FENCED.findall(variant)):
            try:
                out.append(json.loads(block.strip()))
            except ValueError:
                out.extend(_objects_in(block))
        out.extend(_objects_in(variant))
    return out


def find_json(text: str, accept: Callable[[dict], bool]) -> dict | None:
    """The first candidate object for which ``accept`` holds."""
    for value in json_candidates(text):
        if isinstance(value, dict):
            try:
                if accept(value):
                    return value
            except (TypeError, ValueError, KeyError):
                continue
    return None


# --- EC ----------------------------------------------------------------------------------------

EMOTION_KEY = re.compile(r'"Emotion"\s*:\s*"?([^"}\n]+)', re.IGNORECASE)


def parse_emotion(text: str) -> str | None:
    """The label of ``{"Emotion": ...}`` (docs/longemotion.md, 'Scoring'), or None."""
    found = find_json(text, lambda d: isinstance(d.get("Emotion"), (str, list)) and bool(d["Emotion"]))
    if found is not None:
        value = found["Emotion"]
        return " & ".join(map(str, value)) if isinstance(value, list) else str(value).strip()
    m = EMOTION_KEY.search(strip_think(text).translate(FULL_WIDTH))
    return m.group(1).strip().rstrip(",").strip() if m else None


def normalize_label(label: str) -> str:
    """Case, whitespace and spacing around '&' (docs/longemotion.md, 'Scoring')."""
    label = " ".join(label.strip().strip(".").split()).casefold()
    return " & ".join(part.strip() for part in label.split("&"))


# --- ED ----------------------------------------------------------------------------------------

INDEX_KEY = re.compile(r'"index"\s*:\s*"?(\d+)', re.IGNORECASE)


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, list) and len(value) == 1:
        return _as_int(value[0])
    return None


def parse_index(text: str) -> int | None:
    """The integer of ``{"index": ...}`` (docs/longemotion.md, 'Scoring': lenient, coerced to int), or None."""
    found = find_json(text, lambda d: _as_int(d.get("index")) is not None)
    if found is not None:
        return _as_int(found["index"])
    m = INDEX_KEY.search(strip_think(text).translate(FULL_WIDTH))
    return int(m.group(1)) if m else None


# --- QA: the paper's token F1 (LongEmotion paper §3.4) ---------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})


def normalize_answer(s: str) -> str:
    """lower -> ASCII punctuation to a space (not deleted) -> articles removed -> whitespace collapsed."""
    return " ".join(_ARTICLES.sub(" ", s.lower().translate(_PUNCT)).split())


def token_f1(prediction: str, gold: str) -> float:
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


# --- ES generation (LongEmotion paper §3.5) --------------------------------------------------------------------

SUMMARY_FIELDS = ["causes", "symptoms", "treatment_process", "characteristics_of_illness", "treatment_effect"]
SUMMARY_LABELS = {
    "causes": "Causes",
    "symptoms": "Symptoms",
    "treatment_process": "Treatment process",
    "characteristics_of_illness": "Characteristics of the illness",
    "treatment_effect": "Treatment effect",
}


def parse_summary(text: str) -> dict[str, str] | None:
    """The five-field JSON the ES prompt asks for, or None."""
    found = find_json(text, lambda d: all(k in d for k in SUMMARY_FIELDS))
    if found is None:
        return None
    return {
        k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        for k, v in ((k, found[k]) for k in SUMMARY_FIELDS)
    }


def summary_text(fields: dict[str, str]) -> str:
    """The five labelled lines the judge sees (for the model output and for the ground truth)."""
    return "\n".join(f"{SUMMARY_LABELS[k]}: {fields.get(k, '')}" for k in SUMMARY_FIELDS)


# --- judge scores ------------------------------------------------------------------------------


def score_number(value: Any, low: float, high: float) -> float | None:
    """A judge score: int, float, numeric string or a one-element list (the MC skeleton shows ``[score]``),
    inside [low, high]; else None."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*\d+)?\s*", value)
        if not m:
            return None
        value = float(m.group(1))
    if not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if low <= value <= high else None
