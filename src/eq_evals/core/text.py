"""Small shared helpers that every layer uses, one of each: JSON Lines reading with row-naming errors, the check
that an item's text has something to read, number formatting with one spelling for a missing value, and a
model's family."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from pathlib import Path
from typing import Any, Callable

from eq_evals.errors import DataError

# How every table, chart label and card writes a number that is not there (CSV and JSON keep an empty cell/null).
MISSING = "n/a"


def fmt(x: Any, digits: int = 1, missing: str = MISSING) -> str:
    """``x`` with ``digits`` decimals; None or NaN as ``missing``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return missing
    return f"{x:.{digits}f}"


def number(x: Any) -> float | None:
    """``x`` as a float, or None when it is missing, NaN or not a number (CSV and JSON write None as empty/null)."""
    try:
        value = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; ``|`` inside a cell is escaped so a model name cannot break the row."""

    def cells(values: list[str]) -> str:
        return "| " + " | ".join(str(v).replace("|", "\\|") for v in values) + " |"

    return "\n".join([cells(header), "|" + "---|" * len(header)] + [cells(r) for r in rows])


def read_jsonl(
    path: Path | None,
    name: str | None = None,
    objects: bool = False,
    text: str | None = None,
    on_error: Callable[[int, str], None] | None = None,
) -> list[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line of a JSON Lines file (or of ``text``). A line that is
    not JSON (or, with ``objects``, not a JSON object) raises :class:`DataError` naming the file (``name``,
    default the path) and the line; with ``on_error(line, problem)`` it is reported there and skipped instead."""
    where = name or str(path)
    if text is None:
        text = Path(path).read_text(encoding="utf-8-sig")  # type: ignore[arg-type]
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        problem = None
        try:
            row = json.loads(line)
        except json.JSONDecodeError as ex:
            problem = f"invalid JSON: {ex.msg}"
        else:
            if objects and not isinstance(row, dict):
                problem = "a row must be a JSON object"
        if problem is not None:
            if on_error is None:
                raise DataError(where, f"line {number}", problem)
            on_error(number, problem)
            continue
        rows.append((number, row))
    return rows


# Characters that show nothing: besides whitespace, the Unicode format characters (category Cf: zero-width space,
# zero-width (non-)joiner, word joiner, byte order mark, soft hyphen, bidirectional marks), controls (Cc),
# separators (Z*) and the fillers that render blank (Hangul fillers, the blank braille pattern).
_SHOWS_NOTHING = ("Cf", "Cc", "Zs", "Zl", "Zp")
_BLANK_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def visible(text: str) -> bool:
    """Whether ``text`` has at least one character a reader can see."""
    return any(not (ch.isspace() or ch in _BLANK_FILLERS or unicodedata.category(ch) in _SHOWS_NOTHING) for ch in text)


def check_text(value: str, file: str, row: Any, field: str) -> str:
    """The one check every dataset loader makes on an item's text (a question, a dialogue turn, a passage):
    it must have a visible character. Raises :class:`DataError` naming the file, the row and the field when it is
    only whitespace, or only zero-width and other invisible characters (which pass a ``strip()`` check and would
    send the model an empty prompt). Returns ``value``."""
    if not value.strip():
        raise DataError(file, row, f"field {field!r} is only whitespace")
    if not visible(value):
        codes = ", ".join(sorted({f"U+{ord(ch):04X}" for ch in value if not ch.isspace()}))
        raise DataError(file, row, f"field {field!r} has no visible character, only invisible ones ({codes})")
    return value


# Names whose first word is not the family's: OpenAI's o-series are GPT models, Gemma is Google's.
FAMILY_ALIASES = {"o1": "gpt", "o3": "gpt", "o4": "gpt", "chatgpt": "gpt", "gemma": "gemini", "kimi": "moonshot"}


def family(model: str) -> str:
    """A model's family, for self-preference flags and same-family judge exclusion: the first word of the model
    name (``openai/gpt-4o`` -> gpt, ``anthropic/claude-3-5-sonnet`` -> claude, ``openai/o3-mini`` -> gpt);
    ``eq_evals/scripted-<mode>`` -> the mode's first word."""
    name = model.split("/")[-1].lower().removeprefix("scripted-")
    first = re.split(r"[-_.:@ ]", name, maxsplit=1)[0] or name
    first = first if re.match(r"^o\d", first) else re.split(r"\d", first, maxsplit=1)[0] or first
    return FAMILY_ALIASES.get(first, first)


# A reply's final answer block: models asked to reason first put the answer inside <answer> tags (FACET §3).
ANSWER_BLOCK = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)


def final_reply(completion: str) -> str:
    """The final reply only: the inner text of the last ``<answer>`` block if there is one, else all of it."""
    blocks = ANSWER_BLOCK.findall(completion or "")
    return (blocks[-1] if blocks else completion or "").strip()


CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def approx_tokens(text: str) -> int:
    """A tokenizer-free token count: one per CJK character or full-width mark, one per four other characters
    (the usual rule of thumb for English BPE vocabularies). The profile plan estimates with it, and the scripted
    models report it as their usage, so a plan can be checked against a scripted run."""
    text = text or ""
    cjk = len(CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def length(text: str, language: str, unit: str = "native") -> int:
    """A reply's length as FACET's judges see it (App. D): words (whitespace tokens) in English, non-space
    characters in Chinese; ``unit="reference"``: the raw character count (``len(text)``)."""
    if unit == "reference":
        return len(text)
    return len(text.split()) if language == "en" else len(re.sub(r"\s", "", text))
