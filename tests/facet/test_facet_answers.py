"""FACET answer parsing and the R1/R2/R3 rules (docs/facet.md, 'Scoring'): worked examples and robust parsing."""

from __future__ import annotations

import pytest

from eq_evals.facet.answers import count_options, gold_slots, parse_labels, parse_level, parse_option
from eq_evals.facet.scorer import facet_score


def item(dimension: str, fmt: str, answer, secondary=None, language: str = "en", **extra) -> dict:
    return dict(dimension=dimension, format=fmt, answer=answer, secondary_answer=secondary, language=language, **extra)


# (item, response, score in reference mode, score normalised): the rules' cases, including the authors' scorer's quirks
WORKED = [
    (item("apparent_emotion", "single_select", "anger", "resentment"), "<answer>resentment</answer>", 0.5, 0.5),
    (item("apparent_emotion", "single_select", "loneliness"), "Loneliness", 0.0, 1.0),
    (item("hidden_emotion", "single_select", "dissatisfaction/anger"), "anger", 1.0, 1.0),
    (item("hidden_emotion", "multi_select", "desolation/dejection+worry"), "dejection+worry", 1.0, 1.0),
    (item("hidden_emotion", "multi_select", "desolation/dejection+worry"), "worry", 0.5, 0.5),
    (item("hidden_emotion", "multi_select", "desolation/dejection+worry"), "desolation+dejection", 0.5, 0.5),
    (item("emotion_prediction", "single_select", "shame/embarrassment"), "embarrassment+fear", 1.0, 1.0),
    (item("emotion_prediction", "single_select", "shame/embarrassment"), "fear+anger", 0.0, 0.0),
    (item("apparent_emotion", "single_select", "anger"), "anger+worry", 0.0, 0.0),
    (item("hidden_emotion", "multi_select", "desolation/dejection+worry"), "worry+dejection+fear", 0.0, 0.0),
    (item("social_adequacy", "multiple_choice", 5, n_options=6), "5", 1.0, 1.0),
    (item("crisis_recognition", "level_classification", "Level 2"), "2", 0.0, 1.0),
    (item("crisis_recognition", "level_classification", "Level 2"), "<answer>Level 2</answer>", 1.0, 1.0),
]


@pytest.mark.parametrize("meta, response, reference, normalised", WORKED)
def test_spec_worked_examples(meta: dict, response: str, reference: float, normalised: float) -> None:
    assert facet_score(response, meta, normalize=False).value == reference
    assert facet_score(response, meta).value == normalised


@pytest.mark.parametrize(
    "response, language, expected",
    [
        ("<answer>LONELINESS</answer>", "en", ["loneliness"]),  # case
        ("<answer>ｗｏｒｒｙ＋ｄｉｓａｐｐｏｉｎｔｍｅｎｔ</answer>", "en", ["worry", "disappointment"]),  # full-width
        ("<answer>失落＋担忧</answer>", "zh", ["失落", "担忧"]),  # Chinese, full-width plus
        ("<answer>失落、担忧</answer>", "zh", ["失落", "担忧"]),  # Chinese list separator
        ("我认为是失落和担忧。", "zh", ["失落", "担忧"]),  # prose, no tags
        ("The speaker mostly feels self doubt.", "en", ["self-doubt"]),  # prose; hyphen/space alike
        ("<answer>'Being Moved'.</answer>", "en", ["being moved"]),  # quotes, trailing punctuation
        ("Thinking... <answer>anger</answer> no wait <answer>worry</answer>", "en", ["worry"]),  # last block
        ("worry, and a bit of shame", "en", ["worry", "shame"]),
        ("It is not anger but sadness.", "en", ["sadness"]),  # negated mention skipped
        ("她不是愤怒，而是悲伤", "zh", ["悲伤"]),
        ("I would rather not say.", "en", []),  # malformed
    ],
)
def test_label_parsing(response: str, language: str, expected: list[str]) -> None:
    parsed = parse_labels(response, language)
    canon = [p.replace(" ", "-") if p == "self doubt" else p for p in parsed.parts]
    assert canon == expected


def test_off_taxonomy_labels_are_recorded() -> None:
    score = facet_score("<answer>melancholy</answer>", item("apparent_emotion", "single_select", "sadness"))
    assert score.value == 0.0 and score.metadata["off_taxonomy"] == ["melancholy"]


def test_cross_language_labels_only_when_asked() -> None:
    meta = item("apparent_emotion", "single_select", "孤独", language="zh")
    assert facet_score("<answer>loneliness</answer>", meta).value == 0.0
    assert facet_score("<answer>loneliness</answer>", meta, cross_language=True).value == 1.0


@pytest.mark.parametrize(
    "response, n, expected",
    [
        ("5", 6, 5),
        ("<answer>(3)</answer>", 6, 3),
        ("Option 2.", 5, 2),
        ("选项4", 5, 4),
        ("第四项", 5, 4),
        ("I pick 7", 6, None),
        ("3 or 4", 6, None),
        ("none of them", 6, None),
    ],
)
def test_option_parsing(response: str, n: int, expected: int | None) -> None:
    assert parse_option(response, n) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Level 2", 2),
        ("level 4", 4),
        ("L3", 3),
        ("5", 5),
        ("二级", 2),
        ("2级", 2),
        ("第三级", 3),
        ("五", 5),
        ("<answer>Level 1</answer>", 1),
        ("Level 2 or Level 3", None),
        ("unclear", None),
        ("Level 12", None),
        ("Level II", 2),
        ("level four", 4),
        ("<answer>Level 3</answer> (out of 5)", 3),
    ],
)
def test_level_parsing(text: str, expected: int | None) -> None:
    assert parse_level(text) == expected


def test_gold_slots_and_option_count() -> None:
    assert gold_slots("desolation/dejection+worry") == [["desolation", "dejection"], ["worry"]]
    assert count_options("Q?\n1. a\n2. b\n3、c\n(4) d") == 4


def test_score_explanation_shows_parsed_answer_beside_gold() -> None:
    score = facet_score("<answer>worry</answer>", item("hidden_emotion", "multi_select", "desolation/dejection+worry"))
    assert score.value == 0.5
    assert "parsed: worry" in score.explanation and "gold: desolation/dejection+worry" in score.explanation


@pytest.mark.parametrize(
    "meta, response, expected",
    [
        # prose naming more labels than the item asks for is ambiguous, never a hedge (R2 quirk not triggered)
        (item("emotion_prediction", "single_select", "hope"), "I hope this helps: sadness", 0.0),
        (
            item("emotion_prediction", "single_select", "anger"),
            "The protagonist would not feel anger; she would feel sadness.",
            0.0,
        ),
        (item("emotion_prediction", "single_select", "愤怒", language="zh"), "她不是愤怒，而是悲伤", 0.0),
        (item("apparent_emotion", "single_select", "sadness"), "It is not anger but sadness.", 1.0),
        (item("hidden_emotion", "multi_select", "worry+shame"), "Mostly worry, and some shame.", 1.0),
        (item("hidden_emotion", "multi_select", "worry+shame"), "worry, shame and anger all mixed", 0.0),
    ],
)
def test_prose_fallback_is_conservative(meta: dict, response: str, expected: float) -> None:
    assert facet_score(response, meta).value == expected


def test_closing_template_lexicon_is_specific() -> None:
    from eq_evals.facet.style import style

    assert style("我在想，你是不是把所有事都扛在自己身上了？", "zh")["closing_template"] == 0.0
    assert style("先别急着怪自己。\n\n我一直在这里陪着你。", "zh")["closing_template"] == 1.0
