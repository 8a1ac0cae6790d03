"""SAGE arithmetic: parsers (docs/sage.md, 'Implementation details and deviations'), the emotion update and termination replayed on every released
dialogue of the shared transcript files (test 1), and the aggregation against the reference numbers
recomputed from the released transcripts (test 2; SAGE paper Table 2)."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest
from support import shared_file

from eq_evals.sage.rules import (
    INTENTIONS,
    SimulatorParseError,
    aggregate,
    intention_of,
    load_rules,
    parse_emotion_output,
    parse_reply_output,
    replay,
)

TRANSCRIPTS = {
    # file -> docs/sage.md, 'Leaderboard' (reference rows recomputed from the released transcripts): mean e_T / success / failure / mean NPC turns / mean rational / mean emotional
    ("deepseek-v3-2024-1227_based_simulator", "gpt-4.1_result.jsonl.gz"): (68.15, 35, 13, 9.00, 63.3, 73.2),
    ("deepseek-v3-2024-1227_based_simulator", "llama3.3-70b_result.jsonl.gz"): (33.25, 7, 47, 8.05, 25.9, 40.9),
    ("gpt-4o-2024-0806_based_simulator", "claude3.7_result.jsonl.gz"): (70.34, 32, 10, 9.21, 66.5, 74.4),
}
TABLE2 = {"gpt-4.1_result.jsonl.gz": (68.2, 35, 13), "llama3.3-70b_result.jsonl.gz": (33.3, 7, 47)}


def read_transcripts(folder: str, name: str) -> list[dict]:
    path: Path = shared_file("sage", "reference_transcripts", folder, name)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def recorded_updates(dialogue: dict) -> tuple[list[int], list[str], list[int]]:
    """The stored change and reply of each update, and the recorded emotion after each user message."""
    users = [h for h in dialogue["history"] if h["role"] == "user"]
    changes, replies = [], []
    for message in users[1:]:
        planning = message["planning"]
        planning = ast.literal_eval(planning) if isinstance(planning, str) else planning
        changes.append(int(planning["change"]))
        replies.append(message["content"])
    return changes, replies, [int(m["emotion-point"]) for m in users]


@pytest.mark.parametrize("folder, name", sorted(TRANSCRIPTS))
def test_replay_reproduces_every_recorded_trajectory(folder: str, name: str) -> None:
    rules = load_rules()
    dialogues = read_transcripts(folder, name)
    assert len(dialogues) == 100
    reasons = set()
    for d in dialogues:
        changes, replies, trajectory = recorded_updates(d)
        result = replay(changes, replies, rules)
        npc_turns = sum(h["role"] == "assistant" for h in d["history"])
        assert result.trajectory == trajectory, d["id"]
        assert result.final == int(d["emo_point"]), d["id"]
        assert rules.state(result.final) == d["emo_state"], d["id"]
        assert result.updates == len(changes), f"{d['id']}: the dialogue went on after the rules say it ends"
        assert result.npc_turns == npc_turns, d["id"]
        # a dialogue that ran the full length ends on the 10th (never scored) tested reply
        assert (result.end_reason == "max_turns") == (d["history"][-1]["role"] == "assistant"), d["id"]
        reasons.add(result.end_reason)
    assert {"max_turns", "emotion_ge_100", "emotion_lt_10"} <= reasons


@pytest.mark.parametrize("folder, name", sorted(TRANSCRIPTS))
def test_aggregation_reproduces_the_spec_reference_numbers(folder: str, name: str) -> None:
    rows = []
    for d in read_transcripts(folder, name):
        changes, replies, _ = recorded_updates(d)
        slug = intention_of(d["task"])
        rows.append(
            {
                "emotion": int(d["emo_point"]),
                "npc_turns": sum(h["role"] == "assistant" for h in d["history"]),
                "hidden_task_type": INTENTIONS[slug][0],
                "end_reason": replay(changes, replies).end_reason,
            }
        )
    agg = aggregate(rows)
    score, success, failure, turns, rational, emotional = TRANSCRIPTS[(folder, name)]
    assert agg.n == 100
    assert round(agg.sentient, 2) == score
    assert (agg.success, agg.failure) == (success, failure)
    assert round(agg.mean_turns, 2) == turns
    assert round(agg.by_type["rational"], 1) == rational and round(agg.by_type["emotional"], 1) == emotional
    assert agg.ci_low < agg.sentient < agg.ci_high
    if name in TABLE2 and folder.startswith("deepseek"):  # paper Table 2 (DeepSeek-V3 simulator), one decimal
        assert (round(agg.sentient + 1e-9, 1), agg.success, agg.failure) == TABLE2[name]


def test_intention_types_agree_with_the_topics_file() -> None:
    profiles = shared_file("sage", "profiles", "simulator_profile_withfirsttalk.jsonl")
    topics = {
        json.loads(line)["id"]: json.loads(line)
        for line in shared_file("sage", "scenario_topics.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    for line in profiles.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        slug = intention_of(rec["task"])
        assert slug is not None, rec["task"]
        assert INTENTIONS[slug][0] == topics[rec["id"]]["hidden_task_type"]


def test_update_clips_caps_and_labels() -> None:
    rules = load_rules()
    assert rules.initial_emotion == 40 and rules.state(40) == "Emotion-B"
    assert rules.update(40, 15) == (50, 10)
    assert rules.update(40, -25) == (30, -10)
    assert rules.update(95, 10) == (100, 5)
    assert rules.update(5, -10) == (0, -5)  # the safety floor
    assert [rules.state(e) for e in (100, 99, 70, 69, 40, 39, 10, 9, 0)] == [
        "Emotion-S",
        "Emotion-A",
        "Emotion-A",
        "Emotion-B",
        "Emotion-B",
        "Emotion-C",
        "Emotion-C",
        "Emotion-F",
        "Emotion-F",
    ]


def test_end_reason_priority_and_goodbye_in_both_languages() -> None:
    rules = load_rules()
    assert rules.end_reason(100, "谢谢你，再见") == "emotion_ge_100"
    assert rules.end_reason(5, "拜拜") == "emotion_lt_10"
    assert rules.end_reason(10, "嗯") is None  # 10 does not stop the dialogue; < 10 does
    assert rules.end_reason(30, "算了，拜拜。") == "goodbye"
    assert rules.end_reason(30, "OK. Goodbye.") == "goodbye"
    assert rules.end_reason(30, "fine, bye") == "goodbye"
    assert rules.end_reason(30, "good-bye then") == "goodbye"
    assert rules.end_reason(30, "I went to Byers Road and bought a byelaw book") is None
    assert (
        rules.end_reason(30, "我想再见他一面") == "goodbye"
    )  # the faithful zh substring rule (docs/sage.md, 'The loop')


def test_replay_counts_updates_and_tested_replies() -> None:
    assert replay([10] * 9, [""] * 9).npc_turns == 6  # 40 -> 100 at the 6th update, after 6 tested replies
    r = replay([-10] * 9, [""] * 9)
    assert (r.trajectory, r.end_reason, r.npc_turns) == ([40, 30, 20, 10, 0], "emotion_lt_10", 4)
    r = replay([0] * 9, [""] * 9)
    assert (r.updates, r.npc_turns, r.end_reason, r.final) == (9, 10, "max_turns", 40)
    r = replay([-10, 0], ["再见", ""])
    assert (r.final, r.end_reason, r.npc_turns) == (30, "goodbye", 1)


CANONICAL = "Content:\n[关心]\nTargetCompletion:\n[部分]\nActivity:\n[有点失望]\nAnalyse:\n[一般]\nChange:\n[-5]"


@pytest.mark.parametrize(
    "text, change",
    [
        (CANONICAL, -5),
        (CANONICAL.replace(":", "："), -5),  # full-width colons
        ("**Content:** x\n**TargetCompletion:** y\n**Activity:** z\n**Analyse:** w\n**Change:** +10", 10),
        ("Change:\n[-5]", -5),
        ("Change: +10", 10),
        ("Activity: 心理活动]\n难过\nChange: 变化为-5，因为失望", -5),  # first integer wins
        ("Change: 15", 15),  # raw value kept; the update clips it
        ("Change：＋５", 5),  # full-width sign and digit
        ("Activity: change: 3 things\nChange: −10", -10),  # the last Change header counts
    ],
)
def test_emotion_parser(text: str, change: int) -> None:
    assert parse_emotion_output(text).raw_change == change


def test_emotion_parser_fields_and_failures() -> None:
    out = parse_emotion_output(CANONICAL)
    assert (out.content, out.target_completion, out.activity, out.analyse) == ("关心", "部分", "有点失望", "一般")
    with pytest.raises(SimulatorParseError):
        parse_emotion_output("Content: x\nActivity: y")
    with pytest.raises(SimulatorParseError):
        parse_emotion_output("Change: 不变")


@pytest.mark.parametrize(
    "text, reply",
    [
        ("Thinking:\n想想\nOrigin:\n草稿\nResponse:\n“唉，算了吧。。。”", "唉，算了吧。。。"),
        ("Thinking: a\nResponse: [Fine, whatever.]", "Fine, whatever."),
        ("**Response：**\n「嗯，你说得对」", "嗯，你说得对"),
    ],
)
def test_reply_parser(text: str, reply: str) -> None:
    assert parse_reply_output(text).reply == reply


def test_reply_parser_keeps_thinking_and_rejects_missing_response() -> None:
    assert parse_reply_output("Thinking:\nplan\nDraft:\nd\nResponse:\nhi").thinking.startswith("plan")
    with pytest.raises(SimulatorParseError):
        parse_reply_output("Thinking:\nI will say hi")
    with pytest.raises(SimulatorParseError):
        parse_reply_output("Response:\n  “”  ")


def test_english_goodbye_only_as_a_closing_farewell() -> None:
    rules = load_rules()
    for narrative in (
        "I never got to say goodbye.",
        "He left without saying goodbye. It still hurts.",
        "I don't want to see you",
        "We said our goodbyes at the station and I cried the whole way home.",
    ):
        assert rules.end_reason(40, narrative) is None, narrative
    for farewell in ("Okay, that's it. Goodbye.", "Thanks for listening, bye!", "See you later.", "Bye."):
        assert rules.end_reason(40, farewell) == "goodbye", farewell
    assert rules.end_reason(40, "我们在车站说了再见") == "goodbye"  # zh stays the released substring rule


def test_reply_parser_keeps_a_response_word_inside_the_reply() -> None:
    out = parse_reply_output("Thinking:\nplan\nResponse:\nHonestly? My response: no way. Not again.")
    assert out.reply == "Honestly? My response: no way. Not again." and out.thinking == "plan"


def test_confidence_interval_stays_in_the_emotion_range() -> None:
    agg = aggregate([{"emotion": e} for e in (100, 100, 100, 40)])
    assert agg.ci_high == 100.0 and 0.0 <= agg.ci_low < agg.sentient
    agg = aggregate([{"emotion": e} for e in (0, 0, 0, 60)])
    assert agg.ci_low == 0.0


def test_sage_ci_metric_is_clamped() -> None:
    from inspect_ai.scorer import SampleScore, Score

    from eq_evals.sage.scorer import sage_ci

    scores = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate((100, 100, 100, 40))]
    value = sage_ci()(scores)
    assert value["upper"] == 100.0 and value["lower"] < 85
