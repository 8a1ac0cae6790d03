"""FACET's scripted modes (``eq_evals/scripted-<mode>``): replies that are a pure function of the prompt.

- ``oracle``: recognises the FACET item in the prompt and answers its gold label, option or level.
- ``prose``: the oracle's answer inside a sentence, with no answer tags.
- ``wrong``: a well-formed wrong answer (a taxonomy label outside the gold, another option/level).
- ``half``: a half-credit answer where the item has one (one slot of a mixed item, or the secondary
  label); otherwise the wrong answer.

``-M items=PATH`` adds FACET data (authors' JSON or JSONL) to the answer key beside the bundled items.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Callable

from eq_evals.errors import DataError
from eq_evals.facet.answers import gold_slots
from eq_evals.facet.taxonomy import taxonomy
from eq_evals.providers.scripted import _digest, register_mode


@cache
def _answer_key(extra: str | None) -> list[dict[str, Any]]:
    from eq_evals.facet.data import facet_items
    from eq_evals.resources import resource

    dims = ["apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy", "crisis_recognition"]
    sources = [resource("datasets", "facet")] + ([Path(extra)] if extra else [])
    items = []
    for source in sources:
        for strip in (True, False):
            try:
                items += [dict(s.metadata, item_text=s.input) for s in facet_items(source, dims, "all", "all", strip)]
            except DataError:
                continue  # no (valid) items there: the scripted model just won't recognise them
    # longest texts first, so an item whose text contains another's is matched first
    return sorted(items, key=lambda m: len(m["item_text"]), reverse=True)


def find_item(prompt: str, extra: str | None = None) -> dict[str, Any] | None:
    return next((m for m in _answer_key(extra) if m["item_text"] in prompt), None)


def _first_alternatives(gold: str) -> list[str]:
    return [slot[0] for slot in gold_slots(gold, normalize=False)]


def correct_answer(item: dict[str, Any]) -> str:
    if item["dimension"] in ("social_adequacy", "crisis_recognition"):
        return str(item["answer"])
    return "+".join(_first_alternatives(str(item["answer"])))


def wrong_answer(item: dict[str, Any], prompt: str) -> str:
    if item["dimension"] == "social_adequacy":
        n = max(int(item.get("n_options") or 2), 2)
        return str(int(item["answer"]) % n + 1)
    if item["dimension"] == "crisis_recognition":
        level = int(item["crisis_level"]) % 5 + 1
        return [lv[item["language"]] for lv in taxonomy().crisis_levels][level - 1]
    excluded = {label for slot in gold_slots(str(item["answer"]), normalize=False) for label in slot}
    if item.get("secondary_answer"):
        excluded |= {label for slot in gold_slots(str(item["secondary_answer"]), normalize=False) for label in slot}
    pool = [name for name in taxonomy().names(item["language"]) if name not in excluded]
    pick = _digest(prompt)
    first = pool[pick % len(pool)]
    if item["format"] == "multi_select":
        second = [p for p in pool if p != first][(pick // 7) % (len(pool) - 1)]
        return f"{first}+{second}"
    return first


def half_answer(item: dict[str, Any], prompt: str) -> str:
    if item["format"] == "multi_select":
        return _first_alternatives(str(item["answer"]))[0]
    if item.get("secondary_answer"):
        return _first_alternatives(str(item["secondary_answer"]))[0]
    return wrong_answer(item, prompt)


def _facet_reply(kind: str) -> Callable[[str, dict], str]:
    def reply(prompt: str, options: dict) -> str:
        item = find_item(prompt, options.get("items"))
        if item is None:
            return "I could not find a question I recognise."
        answer = {"oracle": correct_answer, "prose": correct_answer}.get(kind)
        text = answer(item) if answer else (wrong_answer if kind == "wrong" else half_answer)(item, prompt)
        if kind == "prose":
            return (
                f"Reading the situation carefully, my answer is {text.upper() if item['language'] == 'en' else text}."
            )
        return f"<answer>{text}</answer>"

    return reply


for _kind in ("oracle", "prose", "wrong", "half"):
    # -M items=PATH: more FACET data; an objective item in the prompt is theirs (the all-* modes ask)
    register_mode(_kind, options=("items",), knows=lambda prompt: find_item(prompt) is not None)(_facet_reply(_kind))
