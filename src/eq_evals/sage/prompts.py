"""The simulated user's prompts (``solvers/sage/simulator.yaml``): loading, checking and rendering."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, Iterable

from inspect_ai.model import ChatMessage

from eq_evals.errors import EqEvalsError
from eq_evals.resources import display_path, load_yaml, resource

PROMPTS_FILE = "sage/simulator.yaml"
LANGUAGES = ("zh", "en")
# section -> placeholders it must contain
REQUIRED: dict[str, set[str]] = {
    "emotion_update": {"goal", "persona", "scene", "emotion", "history"},
    "reply": {"goal", "persona", "scene", "context", "latest", "feeling", "state"},
    "feeling": {"target_completion", "activity", "analyse"},
    "goal": set(),
    "npc_system": set(),
}
PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
RETRY_NOTE = (
    "(Your previous answer could not be used: {{problem}}. Answer again, following the output format above exactly.)"
)


@cache
def load_prompts(file: str = PROMPTS_FILE) -> dict[str, Any]:
    """Load and check a prompt file. It must give every section in each language it supplies (at least one
    of zh, en); a language it lacks is an error only when a scenario of that language runs (``languages``)."""
    where = display_path(resource("solvers", file))
    data = load_yaml("solvers", file)
    for section in REQUIRED:
        if not isinstance(data.get(section), dict):
            raise ValueError(f"{where}: needs a '{section}' mapping with {list(LANGUAGES)} versions")
    supplied = languages(data)
    if not supplied:
        raise ValueError(f"{where}: gives no prompts in any of {list(LANGUAGES)}")
    for section, needed in REQUIRED.items():
        for lang in supplied:
            text = data[section].get(lang)
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{where}: {section}.{lang} is missing or empty")
            missing = needed - set(PLACEHOLDER.findall(text))
            if missing:
                raise ValueError(
                    f"{where}: {section}.{lang} lacks the placeholder(s) "
                    + ", ".join("{{" + m + "}}" for m in sorted(missing))
                )
    for section in ("speakers", "opening", "hidden_theme_marker"):
        for lang in supplied:
            if not (data.get(section) or {}).get(lang):
                raise ValueError(f"{where}: {section}.{lang} is missing")
    return data


def languages(data: dict[str, Any]) -> list[str]:
    """The languages a prompt file supplies: those any of its required sections gives."""
    return [lang for lang in LANGUAGES if any(isinstance(data.get(s), dict) and data[s].get(lang) for s in REQUIRED)]


def require_language(language: str, file: str = PROMPTS_FILE) -> None:
    """A clear error when a scenario's language has no prompts in ``file``."""
    supplied = languages(load_prompts(file))
    if language not in supplied:
        raise EqEvalsError(
            f"{display_path(resource('solvers', file))}: no '{language}' prompts (it gives "
            f"{', '.join(supplied)}), but a '{language}' scenario is being run; add them or choose "
            f"-T language={supplied[0]}"
        )


def retry_note(problem: str | None, language: str, file: str = PROMPTS_FILE) -> str:
    """Appended to a simulator prompt when its previous output could not be parsed, so the retry differs."""
    template = (load_prompts(file).get("retry") or {}).get(language) or RETRY_NOTE
    return fill(template, {"problem": problem or "unknown problem"})


def fill(template: str, values: dict[str, Any]) -> str:
    """Replace each ``{{name}}`` once, by plain text substitution (never str.format; docs/sage.md, 'The loop')."""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise KeyError(f"no value for placeholder {{{{{m.group(1)}}}}}")
        return str(values[m.group(1)])

    return PLACEHOLDER.sub(sub, template)


def history_json(messages: Iterable[ChatMessage], language: str, file: str = PROMPTS_FILE) -> str:
    """The visible dialogue as the simulated user sees it (docs/sage.md, 'The loop'): speaker-labelled JSON of the text
    only (the tested model's reasoning is never shown; docs/sage.md, 'The loop' (what the simulated user sees))."""
    names = load_prompts(file)["speakers"][language]
    rows = [{"role": names[m.role], "content": m.text} for m in messages if m.role in ("user", "assistant")]
    return json.dumps(rows, ensure_ascii=False, indent=2)


def scene_with_intention(scene: str, task: str, language: str, file: str = PROMPTS_FILE) -> str:
    """The scene carries the hidden intention (datasets/sage/README.md, 'Schema'): append it when the scene does not state it."""
    if task and task.strip() in scene:
        return scene
    return scene.rstrip() + load_prompts(file)["hidden_theme_marker"][language] + task.strip()


def text(section: str, language: str, file: str = PROMPTS_FILE) -> str:
    return load_prompts(file)[section][language]


def _player_prompt(section: str, meta: dict[str, Any], file: str, **values: Any) -> str:
    """A prompt of the simulated user: ``section`` filled with the goal, its persona, the scene with its hidden
    intention, and ``values``."""
    lang = meta["language"]
    return fill(
        text(section, lang, file),
        {
            "goal": text("goal", lang, file),
            "persona": meta["player"],
            "scene": scene_with_intention(meta["scene"], meta["task"], lang, file),
            **values,
        },
    )


def emotion_prompt(meta: dict[str, Any], emotion: int, history: str, file: str = PROMPTS_FILE) -> str:
    return _player_prompt("emotion_update", meta, file, emotion=emotion, history=history)


def feeling_text(target_completion: str, activity: str, analyse: str, language: str, file: str = PROMPTS_FILE) -> str:
    return fill(
        text("feeling", language, file),
        {"target_completion": target_completion, "activity": activity, "analyse": analyse},
    )


def reply_prompt(
    meta: dict[str, Any], state: str, context: str, latest: str, feeling: str, file: str = PROMPTS_FILE
) -> str:
    return _player_prompt("reply", meta, file, context=context, latest=latest, feeling=feeling, state=state)


def opening_prompt(meta: dict[str, Any], state: str, file: str = PROMPTS_FILE) -> str:
    """The reply prompt with an empty history, used once per generated scenario for ``first_talk``."""
    opening = load_prompts(file)["opening"][meta["language"]]
    return reply_prompt(meta, state, opening["context"], "", opening["feeling"], file)
