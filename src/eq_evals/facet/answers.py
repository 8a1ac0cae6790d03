"""Parsing FACET answers, for both gold strings and model completions.

Gold strings use the authors' release format (datasets/facet/README.md, 'Schema'): ``/`` separates alternative labels
within a slot, ``+`` separates the two required slots of a mixed-emotion item; Social Adequacy golds
are option numbers; Crisis golds are ``Level N`` / ``N级``.

Two modes:
- reference (``normalize=False``): remove the literal ``<answer>``/``</answer>`` tags and strip, as the
  authors' scorer does; the whole remaining string is compared byte for byte.
- normalised (default, docs/facet.md, 'Parameters' (normalize_labels)): use the last ``<answer>`` block if any (a final block left open
  counts too: the tasks stop generation at ``</answer>``, and providers drop the stop sequence); NFKC (full-width
  characters), casefold, strip quotes/brackets/trailing punctuation, collapse white space, treat ``-``
  and space alike inside English labels, map list separators (、，,;； and 和 与) to ``+``; with no
  tags, fall back to the taxonomy labels mentioned in the prose, skipping negated mentions ("not
  anger", "不是愤怒"), and only when there are no more of them than the item asks for (otherwise the
  answer is ambiguous and scores 0: a list of labels is never read as a hedge).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache

from eq_evals.core.text import ANSWER_BLOCK
from eq_evals.facet.taxonomy import taxonomy

OPEN_BLOCK = re.compile(r"<answer>((?:(?!</?answer>).)*)\Z", re.IGNORECASE | re.DOTALL)
WRAPPERS = "\"'“”‘’「」『』()（）[]【】<>《》*`"
TRAILING = ".,;:!?。，；：！？、…"
SEPARATORS = re.compile(r"\s*(?:、|，|,|;|；|\band\b|和|与|&|\+)\s*")
ZH_NUMERALS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def reference_clean(text: str) -> str:
    """The authors' cleaning: drop the literal tags, strip."""
    return str(text).replace("<answer>", "").replace("</answer>", "").strip()


def extract_answer(completion: str) -> tuple[str, bool]:
    """Inner text of the last ``<answer>`` block, else the whole completion. Returns (text, tagged).
    A block still open at the end of the completion is the last block (generation stopped at ``</answer>``)."""
    left_open = OPEN_BLOCK.search(completion or "")
    if left_open and left_open.group(1).strip():
        return left_open.group(1).strip(), True
    blocks = ANSWER_BLOCK.findall(completion or "")
    if blocks:
        return blocks[-1].strip(), True
    return (completion or "").strip(), False


def normalize_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    text = re.sub(r"\s+", " ", text).strip()
    while text and (text[0] in WRAPPERS or text[-1] in WRAPPERS + TRAILING):
        text = text.strip(WRAPPERS).rstrip(TRAILING).strip()
    return text


def normalize_label(label: str) -> str:
    """Canonical form of one label: NFKC, casefold, hyphen and space alike, no wrappers."""
    text = normalize_text(label)
    return re.sub(r"[\s\-_]+", " ", text).strip()


def gold_slots(gold: str, normalize: bool = True) -> list[list[str]]:
    """``"desolation/dejection+worry"`` -> ``[["desolation", "dejection"], ["worry"]]``."""
    fix = normalize_label if normalize else (lambda s: s.strip())
    return [[fix(alt) for alt in slot.split("/") if alt.strip()] for slot in str(gold).split("+")]


@dataclass
class ParsedLabels:
    parts: list[str]  # the labels the response gives, in order
    method: str  # "tagged" | "whole" | "prose" | "none"
    off_taxonomy: list[str] = field(default_factory=list)


@cache
def _label_index(language: str, cross_language: bool) -> dict[str, str]:
    """normalised surface form -> canonical normalised label of the item's language."""
    tax = taxonomy()
    index = {normalize_label(name): normalize_label(name) for name in tax.names(language)}
    if cross_language:
        other = "zh" if language == "en" else "en"
        for entry in tax.labels:
            index.setdefault(normalize_label(entry[other]), normalize_label(entry[language]))
    return index


NEGATION = re.compile(
    r"(?:\b(?:not|no|never|nor|hardly|rather than|instead of|isn't|wasn't|aren't|n't)\b[\w\s,'-]{0,12}"
    r"|(?:不是|并非|而非|没有|并不|不|没)\s*)$"
)


def _find_labels_in_prose(text: str, index: dict[str, str]) -> list[str]:
    """Taxonomy labels mentioned (and not negated) in free text, longest match first, in order of appearance."""
    norm = normalize_label(text)
    found: list[tuple[int, int, str]] = []
    taken = [False] * len(norm)
    for surface in sorted(index, key=len, reverse=True):
        if re.search(r"[a-z]", surface):
            pattern = re.compile(rf"(?<![a-z]){re.escape(surface)}(?![a-z])")
        else:
            pattern = re.compile(re.escape(surface))
        for m in pattern.finditer(norm):
            if not any(taken[m.start() : m.end()]):
                for i in range(m.start(), m.end()):
                    taken[i] = True
                found.append((m.start(), m.end(), index[surface]))
    ordered: list[str] = []
    previous_end = 0
    for start, end, label in sorted(found):
        # a negation binds to the next label only: look between the previous label and this one
        negated = NEGATION.search(norm[max(previous_end, start - 24) : start])
        previous_end = end
        if not negated and label not in ordered:
            ordered.append(label)
    return ordered


def parse_labels(completion: str, language: str, cross_language: bool = False, max_labels: int = 2) -> ParsedLabels:
    """Normalised parse of an emotion-label answer; ``max_labels`` bounds the prose fallback."""
    text, tagged = extract_answer(completion)
    index = _label_index(language, cross_language)
    parts = [normalize_label(p) for p in SEPARATORS.split(normalize_text(text)) if normalize_label(p)]
    if parts and all(p in index for p in parts):
        return ParsedLabels([index[p] for p in parts], "tagged" if tagged else "whole")
    if tagged and parts:
        # tagged but not (all) taxonomy labels: keep them verbatim, they fail to match
        return ParsedLabels(
            [index.get(p, p) for p in parts], "tagged", off_taxonomy=[p for p in parts if p not in index]
        )
    mentioned = _find_labels_in_prose(text, index)
    if mentioned and len(mentioned) <= max_labels:
        return ParsedLabels(mentioned, "prose")
    if mentioned:
        return ParsedLabels([], "ambiguous", off_taxonomy=mentioned)
    return ParsedLabels([], "none", off_taxonomy=parts)


def parse_option(completion: str, n_options: int | None) -> int | None:
    """Option number of a Social Adequacy answer; None when absent or ambiguous (docs/facet.md, 'Parameters', normalize_labels)."""
    text, _ = extract_answer(completion)
    text = unicodedata.normalize("NFKC", text)
    numbers = {int(n) for n in re.findall(r"(?<!\d)(\d{1,2})(?!\d)", text)}
    numbers |= {ZH_NUMERALS[c] for c in re.findall(r"(?:选项|第)([一二三四五六七八九])", text)}
    if n_options:
        numbers = {n for n in numbers if 1 <= n <= n_options}
    return numbers.pop() if len(numbers) == 1 else None


ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5}
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def parse_level(text: str) -> int | None:
    """Crisis level 1..5 from ``Level 2``, ``level 2``, ``L2``, ``2``, ``Level II``, ``level two``, ``二级``,
    ``2级``, ``第二级``, ``二``; ``Level 12`` or two different levels give None."""
    inner, _ = extract_answer(str(text))
    inner = unicodedata.normalize("NFKC", inner).casefold()
    if re.search(r"(?<![\d.])(?:[6-9]|\d{2,})(?![\d.])\s*(?:级)?", inner) and re.search(r"level|级", inner):
        numbers = {int(n) for n in re.findall(r"(?<![\d.])(\d+)(?![\d.])", inner)}
        if any(n > 5 or n == 0 for n in numbers):
            return None  # e.g. "Level 12": not a CASE level, and never read as level 2
    levels = {int(n) for n in re.findall(r"(?<!\d)(?:level|l|等级|第)?\s*([1-5])(?!\d)\s*(?:级)?", inner)}
    levels |= {ROMAN[m] for m in re.findall(r"\blevel\s+(i{1,3}|iv|v)\b", inner)}
    levels |= {WORDS[m] for m in re.findall(r"\blevel\s+(one|two|three|four|five)\b", inner)}
    levels |= {ZH_NUMERALS[c] for c in re.findall(r"([一二三四五])\s*级", inner)}
    if not levels and inner.strip(" 第级。.") in ZH_NUMERALS:
        levels = {ZH_NUMERALS[inner.strip(" 第级。.")]}
    levels = {n for n in levels if 1 <= n <= 5}
    return levels.pop() if len(levels) == 1 else None


def count_options(item_text: str) -> int:
    """Number of numbered options (``1. …``, ``2、…``, ``(3) …``) at line starts in a Social Adequacy item."""
    found = re.findall(r"(?m)^\s*[(（]?(\d{1,2})[.、)）:：]", unicodedata.normalize("NFKC", item_text))
    return max((int(n) for n in found), default=0)
