"""``facet_style``: descriptive statistics of interaction responses, approximating FACET Fig. 6a (paper §3).

Interaction quality is judged pairwise after generation (``facet_pairwise``, ``eq-evals ratings``); this
scorer only records the behavioural style the paper relates to perceived warmth: response length (words in
English, characters in Chinese), bullet points, and formulaic opening/closing templates from the lexicon
in ``scorers/facet/style.yaml`` (docs/pairwise.md, '1. Generation', note on facet_style).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from eq_evals.core.limits import unscored_if_cut
from eq_evals.core.text import final_reply, length
from eq_evals.resources import load_yaml


@cache
def lexicon(file: str) -> dict[str, Any]:
    data = load_yaml("scorers", file)
    compiled: dict[str, Any] = {"bullet": re.compile(data["bullet"], re.MULTILINE)}
    for part in ("opening", "closing"):
        compiled[part] = {
            lang: [re.compile(p, re.IGNORECASE) for p in patterns] for lang, patterns in data[part].items()
        }
    return compiled


response_text = final_reply  # the final reply: inside <answer> tags if the model used them (FACET §3)


def segments(text: str) -> list[str]:
    """Paragraphs, or sentences when there is only one paragraph (docs/pairwise.md, '1. Generation', note on facet_style)."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    if len(paragraphs) > 1:
        return paragraphs
    return [s for s in re.split(r"(?<=[.!?。！？])\s*", text.strip()) if s.strip()]


def style(text: str, language: str, file: str = "facet/style.yaml") -> dict[str, float]:
    lex = lexicon(file)
    parts = segments(text)
    head, tail = " ".join(parts[:2]), parts[-1] if parts else ""
    return {
        "length": float(length(text, language)),
        "bullets": float(len(lex["bullet"].findall(text))),
        "opening_template": float(any(p.search(head) for p in lex["opening"].get(language, []))),
        "closing_template": float(any(p.search(tail) for p in lex["closing"].get(language, []))),
    }


# No metrics: a generation run has no score of its own (its replies are judged later by facet_pairwise), and
# Inspect View lists a run by its first metric, so a mean reply length would read as one. Each sample's score
# keeps its statistics (Inspect View's Scoring tab; inspect_ai.analysis.samples_df for a table).
@scorer(metrics=[])
def facet_style(lexicon_file: str = "facet/style.yaml") -> Scorer:
    """Length, bullets and template use of an interaction response (descriptive; not a quality score)."""

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="a response"):  # a cut response's length is not its style
            return cut
        text = response_text(state.output.completion)
        if not text:
            return Score.unscored(reason="empty_response", explanation="the model returned no text")
        values = style(text, state.metadata.get("language", "en"), lexicon_file)
        return Score(value=values, answer=text[:200], explanation=", ".join(f"{k}={v:g}" for k, v in values.items()))

    return score


def _validate(lexicon_file: str = "facet/style.yaml") -> None:
    lexicon(lexicon_file)


facet_style.validate_declaration = _validate  # type: ignore[attr-defined]
