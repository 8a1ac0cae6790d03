"""LongEmotion answer parsing, the QA token F1, and judge reply reading."""

from __future__ import annotations

import pytest

from eq_evals.longemotion import parsing
from eq_evals.longemotion.scorer import load_rubric, parse_judgement


def test_f1_vector() -> None:
    f1 = parsing.token_f1("The Health Protection Behavior", "Health Protection Behavior, Health Detection Behavior")
    assert f1 == pytest.approx(2 * 1.0 * 0.5 / 1.5)


def test_f1_normalisation_punctuation_becomes_space_and_articles_go() -> None:
    assert parsing.normalize_answer("Don't  STOP, the-an a end.") == "don t stop end"
    assert parsing.token_f1("don't", "don t") == 1.0  # punctuation is replaced by a space, not deleted
    assert parsing.token_f1("a the an", "the") == 0.0
    assert parsing.token_f1("yes", "no") == 0.0
    assert parsing.token_f1("“yes”", "yes") == 0.0  # curly quotes are not ASCII punctuation (as in the paper's code)


@pytest.mark.parametrize(
    "text, label",
    [
        ('{"Emotion": "Pride"}', "Pride"),
        ('Sure.\n```json\n{"Emotion": "Anger"}\n```', "Anger"),
        ('<think>maybe {"Emotion": "Joy"}</think>```json\n{"Emotion": "Gratitude & Joy"}\n```', "Gratitude & Joy"),
        ('first ```json\n{"Emotion": "A"}\n``` then ```json\n{"Emotion": "B"}\n```', "B"),  # the last fenced block
        ('{"Emotion"： "Delight"}', "Delight"),  # full-width colon
        ('The answer: "Emotion": "Hopeless", sorry', "Hopeless"),  # key regex fallback
        ("I cannot tell.", None),
    ],
)
def test_parse_emotion(text: str, label: str | None) -> None:
    assert parsing.parse_emotion(text) == label


@pytest.mark.parametrize(
    "text, index",
    [
        ('```json\n{"index": 24}\n```', 24),
        ('{"index": "7"}', 7),
        ('{"index": [3]}', 3),
        ('blah "index": 12 blah', 12),
        ("the fourth text", None),
        ('{"index": true}', None),
    ],
)
def test_parse_index(text: str, index: int | None) -> None:
    assert parsing.parse_index(text) == index


def test_labels_are_compared_normalised() -> None:
    assert parsing.normalize_label(" gratitude&JOY. ") == parsing.normalize_label("Gratitude & Joy")
    assert parsing.normalize_label("Joy") != parsing.normalize_label("Gratitude & Joy")


def test_parse_summary_nested_fenced_and_unparseable() -> None:
    fields = {f: f"v-{f}" for f in parsing.SUMMARY_FIELDS}
    import json

    assert parsing.parse_summary("x\n```json\n" + json.dumps(fields) + "\n```") == fields
    assert parsing.parse_summary(json.dumps({**fields, "causes": ["a", "b"]}))["causes"] == '["a", "b"]'
    assert parsing.parse_summary('{"causes": "x"}') is None
    text = parsing.summary_text(fields)
    assert (
        text.splitlines()[0] == "Causes: v-causes" and text.splitlines()[-1] == "Treatment effect: v-treatment_effect"
    )


@pytest.mark.parametrize(
    "value, expected",
    [
        (4, 4.0),
        ("3", 3.0),
        ([5], 5.0),
        (["2"], 2.0),
        (4.5, 4.5),
        ("4/5", 4.0),
        (6, None),
        (-1, None),
        ("good", None),
        (True, None),
        ([1, 2], None),
    ],
)
def test_score_number(value: object, expected: float | None) -> None:
    assert parsing.score_number(value, 0, 5) == expected


def test_conversation_judgement_with_list_values_and_full_width_comma() -> None:
    rubric = load_rubric("longemotion/conversation.yaml")
    keys = [m["key"] for m in rubric["stages"][2]["metrics"]]
    reply = 'Evaluation:\n{"' + keys[0] + '": [4]，"' + keys[1] + '": [3], "' + keys[2] + '": "2"}'
    value, problem = parse_judgement(rubric, reply, keys)
    assert problem == "" and value == {"score": 3.0, keys[0]: 4.0, keys[1]: 3.0, keys[2]: 2.0}
    value, problem = parse_judgement(rubric, '{"' + keys[0] + '": 9}', keys)
    assert value is None and "0-5" in problem


def test_summary_and_expression_judgements() -> None:
    rubric = load_rubric("longemotion/summary.yaml")
    cell = {"factual_consistency": 5, "completeness": 3, "clarity": 4, "comment": "ok"}
    import json

    reply = "```json\n" + json.dumps({f: cell for f in parsing.SUMMARY_FIELDS}) + "\n```"
    value, _ = parse_judgement(rubric, reply, parsing.SUMMARY_FIELDS)
    assert value["score"] == 4.0 and value["completeness"] == 3.0 and value["causes"] == 4.0
    missing = json.dumps({f: cell for f in parsing.SUMMARY_FIELDS[:4]})
    assert parse_judgement(rubric, missing, parsing.SUMMARY_FIELDS)[0] is None
    rubric = load_rubric("longemotion/expression.yaml")
    keys = [c["key"] for c in rubric["criteria"]]
    value, _ = parse_judgement(rubric, json.dumps({k: 60 + i for i, k in enumerate(keys)}), keys)
    assert value["score"] == pytest.approx(62.5)
