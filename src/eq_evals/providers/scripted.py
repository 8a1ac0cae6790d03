"""A deterministic scripted model for tests: its reply is a pure function of the input messages.

Modes (``--model eq_evals/scripted-<mode>`` or ``-M mode=<mode>``):

- ``echo``: repeats the start of the last user message.
- ``oracle``: recognises the FACET item in the prompt and answers its gold label, option or level.
- ``prose``: the oracle's answer inside a sentence, with no answer tags.
- ``wrong``: a well-formed wrong answer (a taxonomy label outside the gold, another option/level).
- ``half``: a half-credit answer where the item has one (one slot of a mixed item, or the secondary
  label); otherwise the wrong answer.
- ``malformed``: prose with no label, option or level in it.
- ``fail``: raises an error (the sample errors; nothing is retried).

Benchmark packages add modes with :func:`register_mode` (set ``fn.wants_messages = True`` to receive the
whole message list as a third argument).

Options for any mode (fault injection): ``-M delay=SECONDS`` waits before each reply (a slow model);
``-M fail_every=N`` raises for the prompts whose hash is divisible by N (about 1 in N prompts fail, always the
same ones), and succeeds for the others; ``-M fail_while=PATH`` raises while the file PATH exists (an outage
that ends: delete the file and ``inspect eval-retry`` the log), for every prompt, or with ``fail_every`` for
those 1 in N.

``-M items=PATH`` adds FACET data (authors' JSON or JSONL) to the answer key beside the bundled items.
A mode declares options of its own with ``register_mode(name, options=...)``; any other ``-M`` option is an
error naming it and the valid ones (a misspelt ``fial_every`` would otherwise inject nothing, silently).
Every output carries ``usage``, so Inspect never downloads a tokenizer.
"""

from __future__ import annotations

import difflib
import hashlib
from functools import cache
from pathlib import Path
from typing import Any, Callable

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, ModelOutput, ModelUsage

from eq_evals.errors import DataError, EqEvalsError
from eq_evals.facet.answers import gold_slots
from eq_evals.facet.taxonomy import taxonomy


class ScriptedFailure(RuntimeError):
    """Raised by the ``fail`` mode."""


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


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
            return f"Reading the situation carefully, my answer is {text.upper() if item['language'] == 'en' else text}."
        return f"<answer>{text}</answer>"

    return reply


def _echo(prompt: str, options: dict) -> str:
    return f"[scripted] {prompt[:80]}"


def _malformed(prompt: str, options: dict) -> str:
    return "Hmm, that is a hard one. People are complicated, and I would rather not pick."


def _fail(prompt: str, options: dict) -> str:
    raise ScriptedFailure("scripted model asked to fail (mode=fail)")


MODES: dict[str, Callable[..., str]] = {
    "echo": _echo,
    "oracle": _facet_reply("oracle"),
    "prose": _facet_reply("prose"),
    "wrong": _facet_reply("wrong"),
    "half": _facet_reply("half"),
    "malformed": _malformed,
    "fail": _fail,
}


# -M options every mode takes (see the module doc); a mode adds its own with register_mode(..., options=...)
COMMON_OPTIONS = ("delay", "fail_every", "fail_while", "items")
MODE_OPTIONS: dict[str, tuple[str, ...]] = {}


def register_mode(name: str, options: tuple[str, ...] = ()) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Add a scripted mode: ``fn(prompt, options) -> reply text``, a pure function of its input; ``options``
    names the ``-M`` options it reads beyond :data:`COMMON_OPTIONS`.
    Benchmark packages register theirs in their ``components`` module (e.g. a simulated user, a judge)."""

    def add(fn: Callable[..., str]) -> Callable[..., str]:
        if name in MODES and MODES[name] is not fn:
            raise ValueError(f"scripted mode {name!r} is registered twice")
        MODES[name] = fn
        MODE_OPTIONS[name] = tuple(options)
        return fn

    return add


class Scripted:
    max_connections = 32

    def __init__(self, mode: str, **options: Any) -> None:
        from eq_evals.components import load_all

        load_all()  # benchmark packages register their own modes
        if mode not in MODES:
            raise EqEvalsError(f"unknown scripted mode {mode!r}; available: {sorted(MODES)}")
        valid = sorted({*COMMON_OPTIONS, *MODE_OPTIONS.get(mode, ())})
        for option in options:
            if option not in valid:
                close = difflib.get_close_matches(option, valid, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise EqEvalsError(f"unknown -M option {option!r} for eq_evals/scripted-{mode}{hint}; valid options: "
                                   f"{', '.join(valid)}")
        for option, kind in (("fail_every", int), ("delay", float)):
            if options.get(option) is not None:
                try:
                    ok = kind(options[option]) >= 0
                except (TypeError, ValueError):
                    ok = False
                if not ok:
                    raise EqEvalsError(f"-M {option}={options[option]!r}: expected a number >= 0")
        self.mode, self.options = mode, options

    async def generate(self, model_name: str, input: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        prompt = next((m.text for m in reversed(input) if isinstance(m, ChatMessageUser)), "")
        if self.options.get("delay"):
            import anyio

            await anyio.sleep(float(self.options["delay"]))
        every = int(self.options.get("fail_every") or 0)
        outage = self.options.get("fail_while")
        picked = _digest(prompt) % every == 0 if every else outage is not None  # fail_while alone: every prompt
        if picked and (outage is None or Path(str(outage)).exists()):
            why = f"fail_every={every}" if every else ""
            why += (", " if why else "") + (f"while {outage} exists" if outage is not None else "")
            raise ScriptedFailure(f"scripted model asked to fail on this prompt ({why})")
        fn = MODES[self.mode]
        text = fn(prompt, self.options, input) if getattr(fn, "wants_messages", False) else fn(prompt, self.options)
        output = ModelOutput.from_content(model=model_name, content=text)
        tokens_in, tokens_out = len(prompt.split()), len(text.split())
        output.usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
        return output
