"""HEART prompts: the generation prompt (docs/heart.md, 'Generation (solver heart_reply)'), reply cleaning (same section), the judge prompt and the
judge verdict parser (docs/heart.md, 'Judging (scorer heart_pairwise)'). Texts live in ``solvers/heart/prompts.yaml`` and ``scorers/heart/judge.yaml``."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from functools import cache
from typing import Any

from eq_evals.errors import EqEvalsError
from eq_evals.resources import load_yaml

PROMPTS_FILE = "heart/prompts.yaml"
JUDGE_FILE = "heart/judge.yaml"
LETTERS = ("H", "E", "A", "R", "T")
CRITERIA = LETTERS + ("overall",)
LANGUAGES = ("en", "zh")


@cache
def generation_prompts(file: str = PROMPTS_FILE) -> dict[str, Any]:
    data = load_yaml("solvers", file)
    for key in ("system", "user", "speakers", "turn", "strip_labels", "length_limit"):
        if key not in data:
            raise ValueError(f"solvers/{file}: needs '{key}'")
    for style in ("release", "paper"):
        for lang in LANGUAGES:
            if not isinstance(data["system"].get(style, {}).get(lang), str):
                raise ValueError(f"solvers/{file}: system.{style}.{lang} is missing")
    for lang in LANGUAGES:
        if not isinstance(data["user"].get(lang), str) or "{transcript}" not in data["user"][lang]:
            raise ValueError(f"solvers/{file}: user.{lang} needs a {{transcript}} placeholder")
    return data


@cache
def judge_prompts(file: str = JUDGE_FILE) -> dict[str, Any]:
    data = load_yaml("scorers", file)
    for key in ("ids", "system", "labels", "rubrics", "templates", "context", "retry_note"):
        if key not in data:
            raise ValueError(f"scorers/{file}: needs '{key}'")
    if len(data["ids"]) != 2 or data["ids"][0] == data["ids"][1]:
        raise ValueError(f"scorers/{file}: ids needs two different respondent ids")
    for name, rubric in data["rubrics"].items():
        letters = [c.get("letter") for c in rubric["criteria"].values()]
        if sorted(letters) != sorted(CRITERIA):
            raise ValueError(
                f"scorers/{file}: rubric {name!r} must map its criteria to H, E, A, R, T and overall "
                f"once each, got {letters}"
            )
        for key, c in rubric["criteria"].items():
            for lang in LANGUAGES:
                if not isinstance(c.get(lang), str):
                    raise ValueError(f"scorers/{file}: rubrics.{name}.criteria.{key}.{lang} is missing")
    return data


def transcript(history: list[str], speakers: list[str], language: str, labels: dict[str, str], fmt: str) -> str:
    """One turn per line, labelled with the resolved speaker (never by index parity; docs/heart.md,
    'Generation (solver heart_reply)', speaker labels)."""
    return "\n".join(fmt.format(speaker=labels[s], text=t) for t, s in zip(history, speakers))


def history_text(metadata: dict[str, Any], file: str = PROMPTS_FILE) -> str:
    """A sample's history one turn per line, each labelled Seeker/Supporter (求助者/支持者): the text the
    generation prompt embeds and the sample's input, so Inspect View shows who said what."""
    data = generation_prompts(file)
    language = metadata.get("language", "en")
    return transcript(
        metadata["dialogue_history"], metadata["speakers"], language, data["speakers"][language], data["turn"][language]
    )


def generation_messages(
    metadata: dict[str, Any], prompt_style: str = "release", file: str = PROMPTS_FILE
) -> tuple[str, str]:
    """(system message, user message) for one history."""
    data = generation_prompts(file)
    language = metadata.get("language", "en")
    if prompt_style not in data["system"]:
        raise EqEvalsError(f"prompt_style={prompt_style!r}: expected one of {sorted(data['system'])}")
    labels = data["speakers"][language]
    text = history_text(metadata, file)
    user = data["user"][language].replace("{supporter}", labels["supporter"]).replace("{transcript}", "\x00T")
    return data["system"][prompt_style][language], user.replace("\x00T", text)


def clean_reply(text: str, file: str = PROMPTS_FILE) -> str:
    """Reply cleaning as the release does it (docs/heart.md, 'Generation (solver heart_reply)'): strip, remove
    label strings, keep the first non-empty line ('' when nothing is left)."""
    labels = generation_prompts(file)["strip_labels"]
    out = (text or "").strip()
    for label in labels:
        out = out.replace(label, "")
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    return lines[0].strip().strip('"“”') if lines else ""


def reply_length(text: str, language: str, file: str = PROMPTS_FILE) -> tuple[int, bool]:
    """(length in the language's unit, over the stated limit)."""
    limit = generation_prompts(file)["length_limit"][language]
    n = len(text.split()) if limit["unit"] == "words" else len(re.sub(r"\s", "", text))
    return n, n > limit["max"]


def criteria(rubric: str, file: str = JUDGE_FILE) -> dict[str, str]:
    """JSON key -> letter (H, E, A, R, T, overall) of a rubric, in prompt order."""
    data = judge_prompts(file)
    if rubric not in data["rubrics"]:
        raise EqEvalsError(f"rubric={rubric!r}: expected one of {sorted(data['rubrics'])}")
    return {k: c["letter"] for k, c in data["rubrics"][rubric]["criteria"].items()}


def judge_messages(
    metadata: dict[str, Any], first: str, second: str, rubric: str = "heart", file: str = JUDGE_FILE
) -> tuple[str, str]:
    """(system, user) judge messages with ``first`` shown as the first respondent id."""
    data = judge_prompts(file)
    language = metadata.get("language", "en")
    id_a, id_b = data["ids"]
    labels = data["labels"][language]
    text = transcript(
        metadata["dialogue_history"],
        metadata["speakers"],
        language,
        labels,
        "{speaker}: {text}" if language == "en" else "{speaker}：{text}",
    )
    crit = data["rubrics"][rubric]["criteria"]
    lines = [f"- {c[language]}" for c in crit.values()]
    skeleton = {"chain_of_thought_reasoning": data["reasoning_hint"][language]}
    skeleton.update({k: data["verdict_hint"][language].format(id_a=id_a, id_b=id_b) for k in crit})
    context = (
        data["context"][language].format(emotion_type=metadata["emotion_type"]) if metadata.get("emotion_type") else ""
    )
    values = {
        "respondent": labels["respondent"],
        "final": labels["final"],
        "id_a": id_a,
        "id_b": id_b,
        "criteria": "\n".join(lines),
        "context": context,
        "skeleton": json.dumps(skeleton, ensure_ascii=False, indent=2),
        "transcript": "\x00T",
        "response_a": "\x00A",
        "response_b": "\x00B",
    }
    # texts from the data and the replies are inserted last, so their braces are never read as placeholders
    user = data["templates"][language].format_map(values)
    user = user.replace("\x00T", text).replace("\x00A", first).replace("\x00B", second)
    return data["system"][language], re.sub(r"\n{3,}", "\n\n", user)


def retry_note(language: str, file: str = JUDGE_FILE) -> str:
    data = judge_prompts(file)
    return data["retry_note"][language].format(id_a=data["ids"][0], id_b=data["ids"][1])


def prompt_hash(*texts: str) -> str:
    return hashlib.sha1("\x00".join(texts).encode("utf-8")).hexdigest()


def _json_object(reply: str) -> dict[str, Any] | None:
    text = re.sub(r"```(?:json)?", "", reply)
    for candidate in (text.strip(), text[text.find("{") : text.rfind("}") + 1] if "{" in text else ""):
        if not candidate:
            continue
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            return data
    return None


def parse_judgment(reply: str, rubric: str = "heart", file: str = JUDGE_FILE) -> dict[str, Any] | None:
    """A judge reply -> {"verdicts": {letter: (position 0|1, strength 1..5) | None}, "reasoning": str}.

    As docs/heart.md, 'Judging (scorer heart_pairwise)' describes it: code fences stripped; ``json.loads``, else
    the first ``{`` to the last ``}``; each criterion
    value must start with one of the two ids, optionally followed by "+" signs; strength = number of "+",
    0 -> 1, capped at 5. A missing or invalid criterion is None (a criterion-level error; the release's
    copy-one-verdict-to-all fallback is not reproduced). None when no JSON object can be read."""
    data = _json_object(unicodedata.normalize("NFKC", reply or ""))
    if data is None:
        return None
    ids = judge_prompts(file)["ids"]
    pattern = re.compile(r"^\s*(" + "|".join(map(re.escape, ids)) + r")\s*(\+*)")
    verdicts: dict[str, tuple[int, int] | None] = {}
    for key, letter in criteria(rubric, file).items():
        value = data.get(key)
        m = pattern.match(unicodedata.normalize("NFKC", value)) if isinstance(value, str) else None
        verdicts[letter] = (ids.index(m.group(1)), min(max(1, len(m.group(2))), 5)) if m else None
    reasoning = data.get("chain_of_thought_reasoning", "")
    return {"verdicts": verdicts, "reasoning": reasoning if isinstance(reasoning, str) else json.dumps(reasoning)}


def soft_score(strength: int | None) -> float:
    """The release's soft outcome for the winner (docs/heart.md, 'Ratings (eq-evals ratings)'): strength 1..5 -> 0.55..0.95; unparsed -> 0.5."""
    from eq_evals.ratings.bradley_terry import HEART_SOFT

    return HEART_SOFT.get(strength or 0, 0.5)
