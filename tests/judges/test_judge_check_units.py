"""The judge check's parts without a model run (docs/judges.md): the known-answer pairs and their constructions, the
card's statistics and statuses, the scripted judges' premise, bad input, and the leaderboard renderer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eq_evals.errors import DataError, EqEvalsError
from eq_evals.judges import degrade
from eq_evals.judges.card import THRESHOLDS, paired_difference, status, wilson
from eq_evals.judges.items import BENCHMARKS, items
from eq_evals.judges.pairs import KEY, MAX_RATIO, PRESETS, build_pairs, candidates, counts, judge_check_pairs

PAIRWISE_BENCHMARKS = ("facet", "heart", "pace")


# --------------------------------------------------------------------------------------------- constructions


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_known_pairs_are_deterministic_and_not_decidable_by_length(benchmark: str) -> None:
    first = [(p.id, p.worse) for p in candidates(benchmark)]
    assert first == [(p.id, p.worse) for p in candidates(benchmark)]
    for pair in candidates(benchmark):
        assert pair.worse != pair.item.good, pair.id
        assert degrade.size(pair.worse) <= MAX_RATIO * degrade.size(pair.item.good) + 1e-9, pair.id
        if pair.degradation == "truncated":
            assert pair.worse[-1] not in degrade.TERMINAL and pair.item.good.startswith(pair.worse[:10]), pair.id
        if pair.degradation == "wrong_language":
            assert degrade.language_of(pair.worse) != pair.item.language, pair.id
    kinds = {p.item.kind for p in candidates(benchmark)}
    for kind in kinds:  # every degradation that applies to a kind is made for it
        made = {p.degradation for p in candidates(benchmark) if p.item.kind == kind}
        expected = set(degrade.KINDS[kind]) - ({"wrong_language"} if benchmark == "longemotion" else set())
        assert made == expected, (benchmark, kind)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_covers_every_probe_degradation_and_language(benchmark: str, preset: str) -> None:
    pairs = build_pairs(benchmark, preset)
    assert len({p.id for p in pairs}) == len(pairs)
    by_id = {p.id: p for p in pairs}
    want = counts(benchmark, preset)
    for probe in ("verbosity", "injection", "null", "self", "repeat"):
        got = [p for p in pairs if p.probe == probe]
        assert got, (probe, preset)
        assert len(got) <= want[probe]
    known = [p for p in pairs if p.probe == "known"]
    assert len(known) >= min(want["known"], len(candidates(benchmark)))
    assert {p.degradation for p in known} == {p.degradation for p in candidates(benchmark)}
    assert {p.item.language for p in known} == {i.language for i in items(benchmark)}
    for p in pairs:  # every matched control and every repeated pair is in the run
        if p.control:
            assert p.control in by_id and by_id[p.control].probe == "known", p.id
        if p.repeat_of:
            assert by_id[p.repeat_of].worse == p.worse, p.id
    for p in pairs:
        if p.probe == "verbosity":
            assert degrade.size(p.worse) >= 2 * degrade.size(p.item.good), p.id
            assert p.worse.startswith(by_id[p.control].worse.strip()[:20]), p.id
        if p.probe == "injection":
            assert any(note in p.worse for notes in degrade.INJECTIONS.values() for note in notes), p.id
    assert {p.variant for p in pairs if p.probe == "injection"} == {"note-en", "note-zh"}


def test_the_samples_feed_each_benchmarks_scorer() -> None:
    facet = judge_check_pairs("facet", "quick")
    md = facet[0].metadata
    assert {"model_a", "model_b", "response_a", "response_b", "user_input", "dimension", "language", "item"} <= set(md)
    assert md["model_b"] == "judgecheck/good" and md[KEY]["good_slot"] == "b"
    assert md["dimension"] in items("facet")[0].dimensions or md["dimension"]
    heart = judge_check_pairs("heart", "quick")[0].metadata
    assert heart["reference_response"] == heart["response_b"] and heart["dialogue_history"] and heart["speakers"]
    le = {s.metadata["task"] for s in judge_check_pairs("longemotion", "quick")}
    assert le == {"conversation", "summary", "expression"}
    versions = {json.dumps(s.metadata["dataset_version"], sort_keys=True) for s in facet}
    assert len(versions) == 1 and json.loads(versions.pop())["name"] == "judges/facet"
    # the version hashes the items and banks, not the preset's selection
    assert judge_check_pairs("facet", "standard")[0].metadata["dataset_version"] == facet[0].metadata["dataset_version"]


def test_bad_input_is_an_error_naming_file_row_or_parameter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from eq_evals.judges import items as items_module

    overlay = tmp_path / "overlay"
    (overlay / "datasets" / "judges").mkdir(parents=True)
    bundled = Path(items_module.resource("datasets", "judges/facet.jsonl")).read_text(encoding="utf-8").splitlines()
    broken = bundled[:2] + [json.dumps({"id": "pa-naturalness-999-en", "language": "en", "reply": "Hi."})]
    (overlay / "datasets" / "judges" / "facet.jsonl").write_text("\n".join(broken) + "\n", encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(overlay))
    items_module._items.cache_clear()
    try:
        with pytest.raises(
            DataError,
            match=r"datasets/judges/facet.jsonl, line 3: id 'pa-naturalness-999-en' is "
            r"not an item",
        ):
            items("facet")
        (overlay / "datasets" / "judges" / "facet.jsonl").write_text(
            bundled[0] + "\n" + json.dumps({"id": "pa-naturalness-001-zh", "language": "zh", "reply": "  "}) + "\n",
            encoding="utf-8",
        )
        items_module._items.cache_clear()
        with pytest.raises(DataError, match=r"facet.jsonl, line 2: field 'reply' must be a non-empty string"):
            items("facet")
    finally:
        items_module._items.cache_clear()
    with pytest.raises(EqEvalsError, match=r"-T preset=huge: expected one of quick, standard, thorough"):
        build_pairs("facet", "huge")
    with pytest.raises(EqEvalsError, match="no judge check for 'sage'"):
        items("sage")


# --------------------------------------------------------------------------------------------- statistics


def test_wilson_and_newcombe_intervals() -> None:
    # Newcombe (1998a) example: 81 of 263 -> 0.2553 to 0.3662
    p, low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson(0, 0) == (None, None, None)
    # Newcombe's paired interval (method 10) on the worked example of Altman et al. (2000), Statistics with
    # Confidence, Table 6.2: 14 both, 5 first only, 0 second only, 22 neither -> 0.122 (0.011 to 0.226)
    diff, low, high = paired_difference([(1, 1)] * 14 + [(1, 0)] * 5 + [(0, 0)] * 22)
    assert round(diff, 3) == 0.122 and round(low, 3) == 0.011 and round(high, 3) == 0.226
    # a handful of pairs cannot fail a judge: 2 of 2 against 0 of 2 still reaches below the verbosity pass line
    _, low, _ = paired_difference([(1, 0), (1, 0)])
    assert low < THRESHOLDS["verbosity"].passes
    _, low, _ = paired_difference([(1, 0)] * 4)
    assert low > THRESHOLDS["injection"].passes


def test_statuses_need_the_interval_to_fail() -> None:
    assert status("accuracy", 0.95, 0.9, 1.0) == "pass"
    assert status("accuracy", 0.5, 0.3, 0.7) == "fail"
    assert status("accuracy", 0.5, 0.1, 0.95) == "warn"  # too few pairs to fail
    assert status("accuracy", 0.85, 0.7, 0.95) == "warn"
    assert status("position", 0.1, 0.05, 0.2) == "pass"
    assert status("position", 0.5, 0.3, 0.7) == "fail"
    assert status("null", None, None, None) == "n/a"
    for key, t in THRESHOLDS.items():  # every threshold says where it comes from
        assert t.source and t.measures and (t.passes >= t.fails if t.better == "higher" else t.passes <= t.fails), key


# --------------------------------------------------------------------------------------------- scripted judges


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_honest_scripted_judge_ranks_every_good_reply_first(benchmark: str) -> None:
    from eq_evals.judges.scripted import assess

    for pair in build_pairs(benchmark, "thorough"):
        if pair.probe == "self":
            continue
        context = "" if pair.item.kind == "summary" else pair.item.echo
        good = assess(pair.item.good, context, pair.item.language, pair.item.kind)
        worse = assess(pair.worse, context, pair.item.language, pair.item.kind)
        assert good == 10 and worse < good, (pair.id, good, worse)


def test_scripted_judges_are_pure_functions_of_the_prompt() -> None:
    from eq_evals.judges.scripted import reply

    prompt = (
        "User input: I lost my job.\n\nResponse A (Length: 3 words):\nThat sounds hard.\n\nResponse B (Length: 2 "
        "words):\nGet over\n\nYour task is to compare."
    )
    for fault in ("honest", "first", "long", "obey", "self", "random"):
        assert reply(fault, prompt) == reply(fault, prompt)
    assert json.loads(reply("honest", prompt))["overall_winner"].startswith("A")
    assert json.loads(reply("first", prompt))["overall_winner"].startswith("A")
    assert reply("honest", "What is the capital of France?") == "I cannot tell what I am asked to judge."


# --------------------------------------------------------------------------------------------- leaderboards


def test_render_judges_says_judge_not_checked() -> None:
    from eq_evals.judges.card import JudgeCard
    from eq_evals.judges.section import render_judges

    section = {
        "status": "fail",
        "figures": {"accuracy": {"value": 0.5, "status": "fail"}, "position": {"value": 0.6, "status": "fail"}},
    }
    cards = {"openai/gpt-4o": JudgeCard("openai/gpt-4o", {"facet": section})}
    text = render_judges({"facet": {"openai/gpt-4o", "anthropic/claude-x"}, "heart": {"openai/gpt-4o"}}, cards)
    assert "| facet | anthropic/claude-x | judge not checked | |" in text
    assert "| facet | openai/gpt-4o | FAIL (accuracy 50.0%) | known-answer accuracy, position flips |" in text
    assert "| heart | openai/gpt-4o | judge not checked (card has facet only) | |" in text


def test_board_key_names_one_model_or_every_agent() -> None:
    from eq_evals.judges.card import board_key

    assert board_key({"grader": "openai/gpt-4o"}) == "openai/gpt-4o"
    assert (
        board_key({"grader": "a/x", "pace_pa": "b/y"})
        == "pace_board[pace_pa=b/y, pace_aa=a/x, pace_cg=a/x, pace_gs=a/x]"
    )


def test_cli_refuses_to_run_without_a_judge_or_logs(capsys: pytest.CaptureFixture) -> None:
    from eq_evals.cli import main

    assert main(["judge-check"]) == 2
    assert "give --judge MODEL to run the check, or judge-check logs to read" in capsys.readouterr().err
    assert main(["judge-check", "--judge", "eq_evals/scripted-jc-honest", "--benchmarks", "facet,sage"]) == 2
    assert "--benchmarks facet,sage: expected a comma-separated list of" in capsys.readouterr().err
