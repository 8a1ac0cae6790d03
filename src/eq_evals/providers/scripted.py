"""A deterministic scripted model for tests: its reply is a pure function of the input messages.

Modes (``--model eq_evals/scripted-<mode>`` or ``-M mode=<mode>``):

- ``echo``: repeats the start of the last user message.
- ``malformed``: prose with no label, option or level in it.
- ``fail``: raises an error (the sample errors; nothing is retried).
- ``all-good`` / ``all-weak``: a tested model for every benchmark at once (``eq-evals profile``): the first of
  its modes (:data:`COMPOSITES`) that recognises the prompt answers it.

Benchmark packages add modes with :func:`register_mode` in their ``scripted`` module (set
``fn.wants_messages = True`` to receive the whole message list as a third argument): FACET's ``oracle``,
``prose``, ``wrong`` and ``half`` (``eq_evals.facet.scripted``), SAGE's simulated user, the judges, and so on.

Options for any mode (fault injection): ``-M delay=SECONDS`` waits before each reply (a slow model);
``-M fail_every=N`` raises for the prompts whose hash is divisible by N (about 1 in N prompts fail, always the
same ones), and succeeds for the others; ``-M fail_while=PATH`` raises while the file PATH exists (an outage
that ends: delete the file and ``inspect eval-retry`` the log), for every prompt, or with ``fail_every`` for
those 1 in N.

A mode declares options of its own with ``register_mode(name, options=...)`` (FACET's modes take
``-M items=PATH``); any other ``-M`` option is an error naming it and the valid ones (a misspelt ``fial_every``
would otherwise inject nothing, silently).
Every output carries ``usage`` (``core.text.approx_tokens`` of every input message and of the reply), so Inspect
never downloads a tokenizer.
"""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path
from typing import Any, Callable

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, ModelOutput, ModelUsage

from eq_evals.core.text import approx_tokens
from eq_evals.errors import EqEvalsError


class ScriptedFailure(RuntimeError):
    """Raised by the ``fail`` mode."""


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


def _echo(prompt: str, options: dict) -> str:
    return f"[scripted] {prompt[:80]}"


def _malformed(prompt: str, options: dict) -> str:
    return "Hmm, that is a hard one. People are complicated, and I would rather not pick."


def _fail(prompt: str, options: dict) -> str:
    raise ScriptedFailure("scripted model asked to fail (mode=fail)")


MODES: dict[str, Callable[..., str]] = {
    "echo": _echo,
    "malformed": _malformed,
    "fail": _fail,
}


# -M options every mode takes (see the module doc); a mode adds its own with register_mode(..., options=...)
COMMON_OPTIONS = ("delay", "fail_every", "fail_while")
MODE_OPTIONS: dict[str, tuple[str, ...]] = {}
# mode -> knows(prompt): whether the mode recognises the prompt as one of its benchmark's (for the all-* modes)
KNOWS: dict[str, Callable[[str], bool]] = {}
# Tested models for a whole profile (docs/profile.md): the first mode of the list that knows the prompt answers
# it, else the last one. all-good answers FACET's objective items and LongEmotion's tasks correctly and
# everything else warmly; all-weak answers them wrongly (but readably) and everything else tersely.
COMPOSITES: dict[str, tuple[str, ...]] = {
    "all-good": ("oracle", "le_oracle", "heart-warm"),
    "all-weak": ("wrong", "le_wrong", "heart-terse"),
}


def register_mode(
    name: str, options: tuple[str, ...] = (), knows: Callable[[str], bool] | None = None
) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Add a scripted mode: ``fn(prompt, options) -> reply text``, a pure function of its input; ``options``
    names the ``-M`` options it reads beyond :data:`COMMON_OPTIONS`; ``knows(prompt)``, when given, says whether
    the mode recognises a prompt (a composite mode of :data:`COMPOSITES` then lets it answer).
    Benchmark packages register theirs in their ``components`` module (e.g. a simulated user, a judge)."""

    def add(fn: Callable[..., str]) -> Callable[..., str]:
        if name in MODES and MODES[name] is not fn:
            raise ValueError(f"scripted mode {name!r} is registered twice")
        MODES[name] = fn
        MODE_OPTIONS[name] = tuple(options)
        if knows is not None:
            KNOWS[name] = knows
        return fn

    return add


def _composite(parts: tuple[str, ...]) -> Callable[..., str]:
    def reply(prompt: str, options: dict, messages: list[ChatMessage]) -> str:
        mode = next((m for m in parts[:-1] if m in KNOWS and KNOWS[m](prompt)), parts[-1])
        fn = MODES[mode]
        return fn(prompt, options, messages) if getattr(fn, "wants_messages", False) else fn(prompt, options)

    reply.wants_messages = True  # type: ignore[attr-defined]
    return reply


for _name, _parts in COMPOSITES.items():
    register_mode(_name)(_composite(_parts))


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
                raise EqEvalsError(
                    f"unknown -M option {option!r} for eq_evals/scripted-{mode}{hint}; valid options: "
                    f"{', '.join(valid)}"
                )
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
        # usage as a tokenizer would roughly count it: every input message (system, history, tool output) and the
        # reply (core.text.approx_tokens), so a profile's plan can be checked against a scripted run
        tokens_in, tokens_out = sum(approx_tokens(m.text) for m in input), approx_tokens(text)
        output.usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
        return output
