"""PACE unit tests: agent-reply parsing, weights and ablations, the deterministic arbitrator, the item loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import eq_evals._registry  # noqa: F401
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.pace import board as pb
from eq_evals.pace.data import detect_language, pace_items, parse_field_map, scenario_id
from eq_evals.ratings.causal_pace import PAPER_WEIGHTS, composite_eq

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pace"


# ------------------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    "reply",
    [
        '{"score": 7, "rationale": "sees the sarcasm"}',
        'Sure.\n```json\n{"score": 7, "rationale": "sees the sarcasm"}\n```\nDone.',
        'My verdict: {"score": "7", "rationale": "sees the sarcasm"} as requested',
    ],
)
def test_parse_report_valid_and_fenced(reply: str) -> None:
    assert pb.parse_report(reply) == {"score": 7.0, "rationale": "sees the sarcasm"}


@pytest.mark.parametrize(
    "reply, problem",
    [
        ("I would give it a seven.", "no JSON object"),
        ('{"score": 11, "rationale": "x"}', "outside 0-10"),
        ('{"score": "high"}', "not a number"),
        ('{"rationale": "no score"}', "not a number"),
        ('{"score": true}', "not a number"),
    ],
)
def test_parse_report_garbage(reply: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        pb.parse_report(reply)


def test_parse_pair_report_needs_both_replies() -> None:
    got = pb.parse_pair_report('{"A": {"score": 3, "rationale": "a"}, "B": {"score": 8, "rationale": "b"}}')
    assert got["A"]["score"] == 3 and got["B"]["score"] == 8
    with pytest.raises(ValueError, match="no report for reply B"):
        pb.parse_pair_report('{"A": {"score": 3}}')


def test_parse_preference() -> None:
    assert pb.parse_preference('{"winner": "tie"}')["winner"] == "tie"
    assert pb.parse_preference('{"winner": "b", "rationale": "x"}')["winner"] == "B"
    with pytest.raises(ValueError):
        pb.parse_preference('{"winner": "both"}')


async def _ask(mode: str, attempts: int):
    from inspect_ai.model import GenerateConfig, get_model

    from eq_evals.pairwise.judge import ask_until_parsed

    board = pb.load_board()
    messages = pb.agent_messages(
        board, "E", "en", "pointwise", {"query": "I failed again.", "reply": "one two three four five six seven eight"}
    )
    return await ask_until_parsed(
        get_model(f"eq_evals/scripted-{mode}"),
        messages,
        pb.parse_report,
        attempts,
        GenerateConfig(),
        board["retry"]["en"],
    )


def test_garbage_is_retried_then_missing_with_the_reason() -> None:
    import asyncio

    value, used, replies, problem = asyncio.run(_ask("pace-agent-late", attempts=3))
    assert value == {"score": 4.0, "rationale": "E rated from length"} and used == 2 and len(replies) == 2
    value, used, replies, problem = asyncio.run(_ask("pace-agent-garbled", attempts=3))
    assert value is None and used == 3 and len(replies) == 3 and "no JSON object" in problem
    value, used, _, _ = asyncio.run(_ask("pace-agent-fenced", attempts=3))
    assert value["score"] == 4.0 and used == 1


# ------------------------------------------------------------------------------------------ weights


def test_paper_weights_are_renormalised() -> None:
    w, source = pb.board_weights("paper")
    assert source == "paper" and sum(w.values()) == pytest.approx(1.0)
    assert w["P"] == pytest.approx(0.430 / 0.999)


def test_equal_weights_and_drop_renormalise() -> None:
    w, _ = pb.board_weights("equal")
    assert w == pytest.approx({d: 0.25 for d in "PACE"})
    w, source = pb.board_weights("paper", "GS")
    assert set(w) == {"P", "A", "C"} and sum(w.values()) == pytest.approx(1.0)
    assert w["P"] / w["C"] == pytest.approx(0.430 / 0.202) and "without E" in source
    assert pb.dropped("pa, C") == ["P", "C"]
    with pytest.raises(EqEvalsError, match="neither a dimension"):
        pb.dropped("XY")
    with pytest.raises(EqEvalsError, match="no agent"):
        pb.dropped("P,A,C,E")


def test_weights_file_errors(tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError, match="-T weights="):
        pb.board_weights(str(tmp_path / "absent.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"P": 1}))
    with pytest.raises(EqEvalsError, match="eq-evals pace weights"):
        pb.board_weights(str(bad))


def test_deterministic_arbitrator_is_the_causal_pace_composite() -> None:
    w, _ = pb.board_weights("paper")
    scores = {"P": 8.0, "A": 6.0, "C": 9.0, "E": 7.0}
    eq, used, missing = pb.combine(scores, w)
    assert eq == pytest.approx(composite_eq(scores, PAPER_WEIGHTS)) and missing == []
    eq, used, missing = pb.combine({**scores, "A": None}, w)
    assert missing == ["A"] and set(used) == {"P", "C", "E"} and sum(used.values()) == pytest.approx(1.0)
    assert eq == pytest.approx(sum(used[d] * scores[d] for d in used))
    assert pb.combine({d: None for d in "PACE"}, w) == (None, {}, ["P", "A", "C", "E"])


def test_board_prompts_fill_both_languages_and_keep_braces_in_text() -> None:
    board = pb.load_board()
    for lang, marker in (("en", "Perceptive Analyst"), ("zh", "感知分析师")):
        system, user = pb.agent_messages(board, "P", lang, "pointwise", {"query": "q {x}", "reply": "r {y}"})
        assert marker in system.text and "q {x}" in user.text and "r {y}" in user.text
    _, user = pb.agent_messages(board, "C", "en", "pairwise", {"query": "q", "reply_a": "one", "reply_b": "two"})
    assert "[Reply A]\none" in user.text and '"B": {"score"' in user.text
    assert pb.board_roles() == ["pace_pa", "pace_aa", "pace_cg", "pace_gs"]
    assert pb.board_roles("AA", "llm", True) == ["pace_pa", "pace_cg", "pace_gs", "pace_ca", "pace_overall"]


# ------------------------------------------------------------------------------------------ data


def test_paper_examples_fixture_loads_nine_samples() -> None:
    samples = pace_items(str(FIXTURES / "paper_examples.jsonl"), "all")
    assert len(samples) == 9
    assert [s.metadata["scenario"] for s in samples[:5]] == [
        "venting_self_doubt",
        "conflict_retaliation",
        "work_academic",
        "advice_solutions",
        "diary_reflection",
    ]
    fig14 = {s.metadata["focus_dimension"]: s for s in samples[5:]}
    assert set(fig14) == set("PACE") and "rusting machine" in fig14["E"].input
    assert fig14["C"].metadata["low_eq_anchor"].startswith("Engage in discussions")


def test_loader_field_map_csv_and_cjk_detection(tmp_path: Path) -> None:
    data = tmp_path / "p2700.csv"
    data.write_text(
        'qid,prompt,category\n7,"My week was great, lost my wallet.",Emotional Venting & Self-Doubt\n'
        "8,我同事又抢了我的功劳。,Work & Academic Challenges\n9,No category here,\n",
        encoding="utf-8",
    )
    samples = pace_items(str(data), "all", field_map="id:qid,query:prompt,scenario:category")
    assert [s.id for s in samples] == ["7", "8", "9"]
    assert [s.metadata["language"] for s in samples] == ["en", "zh", "en"]
    assert [s.metadata["scenario"] for s in samples] == ["venting_self_doubt", "work_academic", "unknown"]
    assert [s.id for s in pace_items(str(data), "zh", field_map="id:qid,query:prompt,scenario:category")] == ["8"]
    assert detect_language("plain English") == "en" and detect_language("有点难过") == "zh"
    assert scenario_id("SEEKING ADVICE AND SOLUTIONS") == "advice_solutions"


def test_loader_json_list_and_ids(tmp_path: Path) -> None:
    data = tmp_path / "p.json"
    data.write_text(json.dumps({"data": [{"text": "hello there"}, {"text": "second"}]}))
    samples = pace_items(str(data), "en", field_map="query:text")
    assert [s.id for s in samples] == ["pace-00000", "pace-00001"]


@pytest.mark.parametrize(
    "rows, problem",
    [
        ([{"id": "a"}], "line 1: missing or empty query"),
        ([{"query": "x", "lang": "fr"}], "lang is 'fr'"),
        ([{"query": "x", "scenario": "cooking"}], "not a PACE scenario"),
        ([{"query": "x", "provocation": "rage"}], "provocation 'rage'"),
        ([{"query": "x", "id": "1"}, {"query": "y", "id": "1"}], "line 2: duplicate id '1'"),
        ([{"query": "x", "triggers": {"Z": 1}}], "triggers must be an object"),
    ],
)
def test_loader_names_bad_rows(tmp_path: Path, rows: list, problem: str) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(DataError, match=problem) as ex:
        pace_items(str(data), "all")
    assert "bad.jsonl" in str(ex.value)


def test_loader_names_the_mapped_field(tmp_path: Path) -> None:
    data = tmp_path / "m.jsonl"
    data.write_text(json.dumps({"prompt": ""}))
    with pytest.raises(DataError, match="query \\(file field 'prompt'\\)"):
        pace_items(str(data), "all", field_map="query:prompt")


def test_field_map_errors() -> None:
    assert parse_field_map("query:prompt, lang:language") == {"query": "prompt", "lang": "language"}
    with pytest.raises(EqEvalsError, match="unknown canonical field"):
        parse_field_map("question:prompt")
    with pytest.raises(EqEvalsError, match="canonical:file_field"):
        parse_field_map("query")


def test_bundled_items_need_no_field_map() -> None:
    with pytest.raises(EqEvalsError, match="field_map applies to -T source"):
        pace_items(None, "en", field_map="query:prompt")
