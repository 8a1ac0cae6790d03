"""SAGE scenarios: the bundled project-authored set, the official loader, the Hub path and bad rows."""

from __future__ import annotations

import json
import sys
import types
from collections import Counter
from pathlib import Path

import pytest
from support import shared_file

from eq_evals.errors import DataError, EqEvalsError
from eq_evals.sage import prompts
from eq_evals.sage.data import load_scenarios, sage_samples
from eq_evals.sage.rules import INTENTIONS


@pytest.mark.parametrize("language", ["en", "zh"])
def test_bundled_set_covers_every_intention_and_personality(language: str) -> None:
    scenarios = [s for s in load_scenarios() if s["language"] == language]
    assert len(scenarios) >= 30
    assert set(Counter(s["intention"] for s in scenarios)) == set(INTENTIONS)
    assert set(Counter(s["personality"] for s in scenarios)) == {"negative", "passive", "avoidant"}
    assert set(Counter(s["hidden_task_type"] for s in scenarios)) == {"rational", "emotional"}
    for s in scenarios:
        assert INTENTIONS[s["intention"]][1 if language == "zh" else 2] == s["task"], s["id"]
        assert prompts.scene_with_intention(s["scene"], s["task"], language) == s["scene"], (
            f"{s['id']}: the scene should state its hidden intention"
        )
        assert len(s["cha_group"]) == 3 and s["first_talk"] and s["topic"]


def test_bundled_scenarios_are_paired_across_languages() -> None:
    by_scenario: dict[str, set[str]] = {}
    for s in load_scenarios():
        by_scenario.setdefault(s["scenario_id"], set()).add(s["language"])
    assert all(langs == {"en", "zh"} for langs in by_scenario.values())


def test_samples_hide_the_scenario_from_the_input_and_filter() -> None:
    samples = sage_samples(language="zh", hidden_task_type="rational", personality="avoidant")
    assert samples and all(
        s.metadata["hidden_task_type"] == "rational" and s.metadata["personality"] == "avoidant" for s in samples
    )
    for s in samples:
        assert s.input == s.metadata["first_talk"]
        assert s.metadata["task"] not in s.input
    with pytest.raises(EqEvalsError, match="no SAGE scenarios left"):
        sage_samples(
            source=str(shared_file("sage", "profiles", "simulator_profile_withfirsttalk.jsonl")), language="en"
        )


def test_official_profiles_load_with_topics_joined() -> None:
    path = shared_file("sage", "profiles", "simulator_profile_withfirsttalk.jsonl")
    scenarios = load_scenarios(str(path))
    assert len(scenarios) == 100 and {s["language"] for s in scenarios} == {"zh"}
    assert Counter(s["personality"] for s in scenarios) == {"negative": 41, "passive": 34, "avoidant": 25}
    assert Counter(s["hidden_task_type"] for s in scenarios) == {"rational": 51, "emotional": 49}
    assert Counter(s["intention"] for s in scenarios)["practical_advice"] == 15  # paper Table 1
    assert all(s["topic"] for s in scenarios)  # joined from scenario_topics.jsonl one folder up
    assert [s["id"] for s in scenarios] == sorted(s["id"] for s in scenarios)


def test_official_profiles_through_the_task(tmp_path: Path) -> None:
    from eq_evals.engine import register_all

    path = shared_file("sage", "profiles", "simulator_profile_withfirsttalk.jsonl")
    task = register_all()["sage"](source=str(path))
    assert len(task.dataset) == 100


def write(tmp_path: Path, rows: list) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )
    return path


GOOD = {
    "id": "x1",
    "player": "* 姓名：甲",
    "scene": "背景",
    "main_cha": "被动型",
    "cha_group": ["内向", "谨慎", "自卑"],
    "task": "你希望对方用心倾听你的情绪宣泄",
    "first_talk": "唉。",
}


@pytest.mark.parametrize(
    "row, problem",
    [
        ({k: v for k, v in GOOD.items() if k != "first_talk"}, "first_talk"),
        (dict(GOOD, cha_group="内向"), "cha_group"),
        (dict(GOOD, main_cha="乐观型"), "personality"),
        (dict(GOOD, task="你想要别的东西"), "hidden-intention type"),
        (dict(GOOD, hidden_task_type="rational"), "contradicts"),
        ("{not json", "invalid JSON"),
    ],
)
def test_bad_rows_name_the_file_row_and_field(tmp_path: Path, row, problem: str) -> None:
    path = write(tmp_path, [GOOD, row])
    with pytest.raises(DataError, match=problem) as err:
        load_scenarios(str(path))
    assert ("row 2" in str(err.value) or "line 2" in str(err.value)) and "bad.jsonl" in str(err.value)


def test_unknown_intention_is_accepted_with_an_explicit_type(tmp_path: Path) -> None:
    path = write(tmp_path, [dict(GOOD, task="你想要别的东西", hidden_task_type="emotional")])
    [s] = load_scenarios(str(path))
    assert (s["intention"], s["hidden_task_type"], s["language"]) == ("other", "emotional", "zh")


def test_hub_source_fails_at_once_offline_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EqEvalsError, match="hf download some-org/sage-profiles .*-T source=DIR"):
        load_scenarios("hf://some-org/sage-profiles@0123abc")
    with pytest.raises(EqEvalsError, match="not pinned"):
        load_scenarios("hf://some-org/sage-profiles")
    with pytest.raises(EqEvalsError, match="hf://some-org/sage-profiles"):  # the old owner/name form: advice
        load_scenarios("some-org/sage-profiles")


def test_hub_source_goes_through_datasets_with_the_pinned_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def load_dataset(name, config=None, revision=None, split=None):
        calls.append((name, config, revision, split))
        return [GOOD, dict(GOOD, id="x0")]

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setattr("eq_evals.core.sources.hub_unreachable", lambda endpoint: None)
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    scenarios = load_scenarios("hf://some-org/sage-profiles@0123abc", split="test")
    assert calls == [("some-org/sage-profiles", None, "0123abc", "test")]
    assert [s["id"] for s in scenarios] == ["x0", "x1"]


def test_prompt_file_is_complete_and_checked(tmp_path: Path) -> None:
    data = prompts.load_prompts()
    for lang in ("zh", "en"):
        assert "TargetCompletion:" in data["emotion_update"][lang] and "Response:" in data["reply"][lang]
    assert prompts.fill("a {{x}} b {{y}}", {"x": "{{y}}", "y": "{}"}) == "a {{y}} b {}"
    with pytest.raises(KeyError):
        prompts.fill("{{missing}}", {})


def test_bundled_traits_come_from_the_generator_pools() -> None:
    from eq_evals.sage.generate import load_generator

    pools = load_generator()["personality_types"]
    for s in load_scenarios():
        assert set(s["cha_group"]) <= set(pools[s["personality"]][s["language"]]["traits"]), (s["id"], s["cha_group"])


def test_folder_source_is_flat_prefers_withfirsttalk_and_skips_other_schemas(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "profile"
    (folder / "third_party").mkdir(parents=True)
    rows = [GOOD, dict(GOOD, id="x2")]
    (folder / "simulator_profile_withfirsttalk.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )
    (folder / "simulator_profile.jsonl").write_text(  # the same scenarios without first_talk
        "\n".join(json.dumps({k: v for k, v in r.items() if k != "first_talk"}, ensure_ascii=False) for r in rows),
        encoding="utf-8",
    )
    (folder / "third_party" / "other.jsonl").write_text(
        json.dumps(dict(GOOD, main_cha="Negative type")), encoding="utf-8"
    )
    with caplog.at_level("WARNING"):
        assert [s["id"] for s in load_scenarios(str(folder))] == ["x1", "x2"]
    assert "simulator_profile.jsonl" in caplog.text

    other = tmp_path / "mixed"
    other.mkdir()
    (other / "scenarios.jsonl").write_text(json.dumps(GOOD, ensure_ascii=False), encoding="utf-8")
    (other / "notes.jsonl").write_text(json.dumps({"id": "n1", "note": "not a scenario"}), encoding="utf-8")
    with caplog.at_level("WARNING"):
        assert [s["id"] for s in load_scenarios(str(other))] == ["x1"]
    assert "notes.jsonl" in caplog.text and "not a scenario file" in caplog.text
    # a scenario file with a bad row is still an error naming the file and row
    (other / "scenarios.jsonl").write_text(
        json.dumps(GOOD, ensure_ascii=False) + "\n" + json.dumps(dict(GOOD, id="x3", main_cha="?")), encoding="utf-8"
    )
    with pytest.raises(DataError, match="row 2"):
        load_scenarios(str(other))


def test_release_root_folder_is_not_searched_recursively() -> None:
    root = shared_file("sage", "profiles").parent
    with pytest.raises(EqEvalsError, match="subfolders are not searched"):
        load_scenarios(str(root))
    assert len(load_scenarios(str(root / "profiles"))) == 100
