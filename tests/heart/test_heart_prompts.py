"""HEART prompts: generation prompt (resolved speakers, both styles), reply cleaning, the judge prompt in both
orders and both rubrics, the verdict parser on the cases of docs/heart.md ('Judging'), same-family exclusion and the order hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eq_evals.heart import prompts
from eq_evals.heart.data import project_samples
from eq_evals.heart.scorer import eligible_judges, family, order_seed

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "heart_histories.jsonl"


@pytest.fixture(scope="module")
def samples():
    return {s.id: s.metadata for s in project_samples(FIXTURE)}


def test_generation_prompt_labels_and_styles(samples) -> None:
    md = samples["fixture-adv-001-en"]  # supporter-first history
    system, user = prompts.generation_messages(md, "release")
    lines = user.splitlines()
    assert lines[-1] == "Supporter:"
    assert lines[-5:-1] == [
        "Supporter: Hello, what brings you here?",
        "Seeker: Why do you care. You are useless like everyone else.",
        "Supporter: I'm sorry you feel that way.",
        "Seeker: Stop apologizing and actually help me, my exams are in two days!",
    ]
    assert "40 words" in user and "\\n" not in user  # real newlines, not the release's literal backslash-n
    paper_system, paper_user = prompts.generation_messages(md, "paper")
    assert paper_user == user and paper_system != system and "1-3 sentences" in paper_system
    zh_system, zh_user = prompts.generation_messages(samples["fixture-reg-001-zh"], "release")
    assert zh_user.splitlines()[-1] == "支持者：" and "求助者：不太好" in zh_user


def test_reply_cleaning() -> None:
    assert prompts.clean_reply("Supporter: I hear you.\nSeeker: thanks") == "I hear you."
    assert prompts.clean_reply("\n\n  Response: That sounds hard. \nMore") == "That sounds hard."
    assert prompts.clean_reply("Supporter:\n") == ""
    assert prompts.reply_length("one two three", "en") == (3, False)
    assert prompts.reply_length(" ".join(["w"] * 41), "en") == (41, True)


@pytest.mark.parametrize(
    "rubric, keys",
    [
        (
            "heart",
            ["human_alignment", "empathic_responsiveness", "attunement", "resonance", "task_following", "overall"],
        ),
        (
            "release",
            [
                "empathic_responsiveness",
                "emotional_handling_and_insight",
                "personalization_and_contextual_adaptation",
                "conversational_fluency_and_naturalness",
                "instruction_following_and_safety",
                "overall_eq",
            ],
        ),
    ],
)
def test_judge_prompt_in_both_orders(samples, rubric: str, keys: list[str]) -> None:
    md = samples["fixture-reg-001-en"]
    x, y = "Reply X {with braces}", "Reply Y"
    _, ab = prompts.judge_messages(md, x, y, rubric)
    _, ba = prompts.judge_messages(md, y, x, rubric)
    for prompt, first, second in ((ab, x, y), (ba, y, x)):
        assert prompt.startswith("[RESPONDENT A0493]\nSupporter: Hi, how are you today?\nSeeker: Not great.")
        assert f"Final Response: {first}\n\n[RESPONDENT A0488]" in prompt
        assert f"A0493 Final Turn: {first}\nA0488 Final Turn: {second}" in prompt
        assert "Context: this conversation is about support with anxiety." in prompt
        skeleton = json.loads(prompt[prompt.index("{\n") : prompt.rindex("}") + 1])
        assert list(skeleton) == ["chain_of_thought_reasoning"] + keys
    assert ab != ba
    _, zh = prompts.judge_messages(samples["fixture-reg-001-zh"], x, y, rubric)
    assert "[回应者 A0493]\n支持者：你好" in zh and "最终回复：Reply X {with braces}" in zh


def verdicts(reply: str, rubric: str = "heart"):
    parsed = prompts.parse_judgment(reply, rubric)
    return None if parsed is None else parsed["verdicts"]


def reply(**values) -> str:
    return json.dumps({"chain_of_thought_reasoning": "r", **values})


ALL = dict(
    human_alignment="A0493+++",
    empathic_responsiveness="A0488",
    attunement="A0493++++++",
    resonance=" A0488 ++",
    task_following="A0493+",
    overall="A0488+++++",
)


def test_verdict_parser_cases() -> None:
    v = verdicts(reply(**ALL))
    assert v == {"H": (0, 3), "E": (1, 1), "A": (0, 5), "R": (1, 2), "T": (0, 1), "overall": (1, 5)}
    fenced = "Here you go:\n```json\n" + reply(**ALL) + "\n```\nThanks"
    assert verdicts(fenced) == v
    missing = dict(ALL)
    del missing["attunement"]
    assert verdicts(reply(**missing))["A"] is None and verdicts(reply(**missing))["H"] == (0, 3)
    assert verdicts(reply(**dict(ALL, overall="B+++")))["overall"] is None  # not a respondent id
    assert verdicts(reply(**dict(ALL, overall="tie")))["overall"] is None
    assert verdicts("I prefer the first one.") is None
    assert verdicts(reply(**{k: "A0493＋＋" for k in ALL}))["overall"] == (0, 2)  # full-width plus signs
    release = verdicts(
        reply(
            empathic_responsiveness="A0488++",
            emotional_handling_and_insight="A0493",
            personalization_and_contextual_adaptation="A0488+",
            conversational_fluency_and_naturalness="A0493++++",
            instruction_following_and_safety="A0488+++",
            overall_eq="A0493++",
        ),
        "release",
    )
    assert release == {"E": (1, 2), "A": (0, 1), "R": (1, 1), "H": (0, 4), "T": (1, 3), "overall": (0, 2)}


def test_soft_outcome_mapping() -> None:
    assert [prompts.soft_score(s) for s in (1, 2, 3, 4, 5)] == [0.55, 0.65, 0.75, 0.85, 0.95]
    assert prompts.soft_score(None) == 0.5


def test_families_and_same_family_exclusion() -> None:
    assert family("openai/gpt-4o") == family("openai/o3") == family("openai/gpt-5") == "gpt"
    assert family("anthropic/claude-sonnet-4-20250514") == "claude"
    assert family("google/gemini-2.5-flash") == family("vertex/gemma-3") == "gemini"
    assert family("together/meta-llama/Llama-3.3-70B") == "llama"
    assert family("eq_evals/scripted-heart-warm") == "heart" and family("eq_evals/scripted-hjudge") == "hjudge"
    judges = ["openai/gpt-4o", "anthropic/claude-sonnet-4-20250514", "google/gemini-2.5-flash"]
    assert eligible_judges(judges, ["openai/gpt-4.1-mini", "esconv_original"]) == (judges[1:], False)
    assert eligible_judges(judges, ["openai/gpt-5", "anthropic/claude-opus-4"]) == (judges[2:], False)
    # only same-family judges: all judge, flagged self-judged (docs/heart.md, 'Judging (scorer heart_pairwise)', exclude_same_family)
    assert eligible_judges(judges[:1], ["openai/gpt-5", "reference"]) == (judges[:1], True)
    assert eligible_judges(judges, ["openai/gpt-5", "reference"], exclude_same_family=False) == (judges, True)


def test_order_hash_is_stable_and_balanced() -> None:
    assert (
        order_seed(1234, "heart-reg-001", "esconv_original", "openai/gpt-4o").random()
        == order_seed(1234, "heart-reg-001", "esconv_original", "openai/gpt-4o").random()
    )
    firsts = [order_seed(1234, f"heart-reg-{i:03d}", "x", "j").random() < 0.5 for i in range(280)]
    assert 110 < sum(firsts) < 170
