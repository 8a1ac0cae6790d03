"""HEART data: the official release (counts, hashes, speakers, flags; never bundled) and the project-authored schema."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from support import shared_file

from eq_evals.errors import DataError, EqEvalsError
from eq_evals.heart import data
from eq_evals.heart.data import heart_samples, project_samples, release_samples, strategy_definitions

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "heart_histories.jsonl"


def release_dir() -> Path:
    return shared_file("heart", "dialogues_regular.json").parent


def test_release_counts_hashes_ids_and_speakers() -> None:
    folder = release_dir()
    for name, (_, _, digest) in data.RELEASE_FILES.items():
        assert data.sha256(folder / name) == digest
    samples = release_samples(folder)
    assert len(samples) == 300
    assert sum(s.metadata["subset"] == "regular" for s in samples) == 280
    ids = [s.id for s in samples]
    assert len(set(ids)) == 300 and ids[0] == "heart-reg-000" and ids[280] == "heart-adv-00"
    for s in samples:
        md = s.metadata
        sp = md["speakers"]
        assert len(sp) == md["n_turns"] == len(md["dialogue_history"])
        assert all(a != b for a, b in zip(sp, sp[1:])), s.id  # strictly alternating
        assert md["last_speaker"] == ("supporter" if s.id == "heart-reg-082" else "seeker"), s.id
    adversarial = [s for s in samples if s.metadata["subset"] == "adversarial"]
    assert all(s.metadata["speakers"][0] == "supporter" and s.metadata["speakers_inferred"] for s in adversarial)
    assert all(s.target == "" and s.metadata["group_id"].startswith("adv:") for s in adversarial)
    regular = samples[:280]
    assert sum(s.metadata["speakers"][0] == "supporter" for s in regular) == 152
    assert sorted(s.metadata["source_index"] for s in regular if s.metadata["reference_repeats_history"]) == [
        43,
        93,
        97,
        99,
    ]
    assert sum(s.metadata["reference_shared_with_sibling"] for s in regular) == 24
    assert regular[48].metadata["content_flags"] == ["self_harm_request"]
    assert len({s.metadata["group_id"] for s in regular}) == 261  # conversation clusters (19 pairs)
    assert regular[13].metadata["group_id"] == regular[100].metadata["group_id"]
    assert len(release_samples(folder, "adversarial")) == 20


def test_tampered_release_copy_is_rejected(tmp_path: Path) -> None:
    folder = release_dir()
    for name in ("dialogues_regular.json", "dialogues_adversarial.json"):
        shutil.copy(folder / name, tmp_path / name)
    rows = json.loads((tmp_path / "dialogues_regular.json").read_text())
    rows[5]["vanilla_completion"] = "edited"
    (tmp_path / "dialogues_regular.json").write_text(json.dumps(rows, indent=2))
    with pytest.raises(DataError, match=r"dialogues_regular.json.*sha256 .* does not match"):
        heart_samples(str(tmp_path))


def test_release_download_fails_fast_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EQ_EVALS_CACHE", str(tmp_path))
    # an address no packet reaches (TEST-NET-1, RFC 5737): the network is unreachable for this download
    monkeypatch.setattr(data, "RAW_URL", "http://192.0.2.1/{commit}/{path}")
    monkeypatch.setattr(data, "DOWNLOAD_TIMEOUT", 3.0)
    start = time.monotonic()
    with pytest.raises(EqEvalsError, match=r"cannot download the HEART release.*Offline\?.*-T source=FOLDER"):
        heart_samples("release")
    assert time.monotonic() - start < 8.0
    assert not list(tmp_path.rglob("*.json"))


def test_release_is_english_only() -> None:
    with pytest.raises(EqEvalsError, match="English only"):
        heart_samples(str(release_dir()), language="zh")


def test_project_rows_load_and_filter() -> None:
    en = project_samples(FIXTURE, "en")
    assert [s.id for s in en] == ["fixture-reg-001-en", "fixture-reg-002-en", "fixture-adv-001-en"]
    assert en[0].metadata["speakers"] == ["supporter", "seeker"] and en[0].target.startswith("That sounds")
    assert en[2].metadata["reference_response"] is None and en[2].metadata["escalation_profile"] == "linear-ramp"
    assert [s.id for s in project_samples(FIXTURE, "zh")] == ["fixture-reg-001-zh"]
    assert [s.id for s in heart_samples(str(FIXTURE), "en", "adversarial")] == ["fixture-adv-001-en"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r.pop("speakers"), r"row 2: missing field\(s\) \['speakers'\]"),
        (lambda r: r.update(emotion_type="boredom"), r"row 2: emotion_type='boredom'"),
        (lambda r: r.update(problem_type="Job Crisis"), r"row 2: problem_type='Job Crisis'"),
        (lambda r: r.update(speakers=["seeker"] * 5), r"row 2: speakers must list"),
        (lambda r: r.update(source="HEART"), r"row 2: source='HEART'"),
        (lambda r: r.update(subset="adversarial", escalation_profile=None), r"row 2: an adversarial row needs"),
        (lambda r: r.update(id="fixture-reg-001-en"), r"row 2: id='fixture-reg-001-en'"),
    ],
)
def test_bad_project_rows_are_named(tmp_path: Path, edit, message: str) -> None:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    edit(row)
    lines[1] = json.dumps(row, ensure_ascii=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=message) as info:
        project_samples(bad)
    assert str(bad) in str(info.value)


def test_invalid_json_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(FIXTURE.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 5: invalid JSON"):
        project_samples(bad)


def test_bundled_project_set() -> None:
    from eq_evals.resources import resource

    for language in ("en", "zh"):
        path = resource("datasets", f"heart/histories_{language}.jsonl")
        assert path.is_file(), f"{path} is bundled with eq-evals and must exist"
        samples = heart_samples(None, language)
        assert len(samples) >= 60 and all(s.metadata["language"] == language for s in samples)


def test_strategy_definitions_release_and_project() -> None:
    release = strategy_definitions(str(release_dir()))
    assert len(release) == 15 and "Reflective Statements" in release
    own = strategy_definitions(None)
    assert sorted(own) == sorted(release)  # the same 15 names, the project's own one-line definitions
    assert all(own[k] != release[k] for k in own)
