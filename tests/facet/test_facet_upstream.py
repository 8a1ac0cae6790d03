"""The loader for the authors' released FACET JSON (docs/facet.md, 'Dataset'; datasets/facet/README.md, 'Schema'), on ../shared/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import shared_file

from eq_evals.errors import DataError
from eq_evals.facet.answers import gold_slots
from eq_evals.facet.data import facet_items, read_records
from eq_evals.facet.taxonomy import taxonomy

OBJECTIVE = ["apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy", "crisis_recognition"]
INTERACTION = [
    "emotion_matching",
    "empathetic_understanding",
    "emotion_deepening",
    "emotion_regulation",
    "expression_naturalness",
]


@pytest.fixture
def samples_file() -> Path:
    return shared_file("facet", "samples_dataset.json")


def test_reads_all_twenty_items_in_both_languages(samples_file: Path) -> None:
    records = [r for _, r in read_records(samples_file)]
    assert len(records) == 40
    by_dimension: dict[str, set] = {}
    for r in records:
        by_dimension.setdefault(r["dimension"], set()).add(r["item_id"])
    assert set(by_dimension) == set(OBJECTIVE + INTERACTION)
    assert all(len(ids) == 2 for ids in by_dimension.values())


def test_slot_structure_options_and_levels(samples_file: Path) -> None:
    samples = {s.id: s for s in facet_items(samples_file, OBJECTIVE + INTERACTION, "all")}
    assert gold_slots(samples["facet-004-en"].target) == [["desolation", "dejection"], ["worry"]]
    assert gold_slots(samples["facet-004-zh"].target) == [["落寞", "失落"], ["担忧"]]
    assert gold_slots(samples["facet-006-en"].target) == [["resentment", "anger"], ["disappointment"]]
    assert samples["facet-004-en"].metadata["format"] == "multi_select"
    assert samples["facet-007-en"].metadata["n_options"] == 6 and samples["facet-008-en"].metadata["n_options"] == 5
    assert samples["facet-007-en"].target == "5" and samples["facet-008-zh"].target == "4"
    assert (
        samples["facet-009-zh"].metadata["crisis_level"] == 2 and samples["facet-010-en"].metadata["crisis_level"] == 3
    )
    assert samples["facet-011-en"].metadata["format"] == "generative"
    assert samples["facet-011-en"].metadata["judge_dimensions"] == [
        "emotion_matching",
        "empathetic_understanding",
        "emotion_regulation",
    ]


def test_every_gold_label_is_in_the_taxonomy(samples_file: Path) -> None:
    for language in ("en", "zh"):
        known = set(taxonomy().names(language))
        for s in facet_items(samples_file, OBJECTIVE[:3], language):
            for slot in gold_slots(s.target, normalize=False):
                assert set(slot) <= known, (s.id, slot)


def test_answer_leaking_option_labels_are_stripped(samples_file: Path) -> None:
    [stripped] = [s for s in facet_items(samples_file, ["social_adequacy"], "en") if s.id == "facet-007-en"]
    [raw] = [
        s
        for s in facet_items(samples_file, ["social_adequacy"], "en", strip_option_labels=False)
        if s.id == "facet-007-en"
    ]
    assert "(Optimal Adequacy)" in raw.input and "(Optimal Adequacy)" not in stripped.input
    assert stripped.metadata["option_labels_stripped"] is True


def test_bad_rows_name_file_and_row(tmp_path: Path, samples_file: Path) -> None:
    data = json.loads(samples_file.read_text(encoding="utf-8"))
    data["samples"][2]["en"]["answer"] = "melancholy"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.json, record 5: answer 'melancholy': label 'melancholy' is not in"):
        facet_items(bad, OBJECTIVE, "all")
    data["samples"][2]["dim"] = "Telepathy"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match="row 2: unknown dimension 'Telepathy'"):
        facet_items(bad, OBJECTIVE, "all")


def test_project_jsonl_rows_are_validated(tmp_path: Path) -> None:
    good = {
        "id": "x-1-en",
        "dimension": "crisis_recognition",
        "language": "en",
        "format": "level_classification",
        "input": "A case.",
        "answer": "Level 2",
    }
    cases = [
        ({**good, "input": ""}, "missing field 'input'"),
        ({k: v for k, v in good.items() if k != "answer"}, "missing field 'answer'"),
        ({**good, "answer": "Level 9"}, "is not a crisis level"),
        ({**good, "language": "fr"}, "language 'fr'"),
        ({**good, "format": "essay"}, "format 'essay'"),
    ]
    for record, message in cases:
        path = tmp_path / "items.jsonl"
        path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
        with pytest.raises(DataError, match=rf"items.jsonl, line 2: .*{message}"):
            facet_items(path, OBJECTIVE, "all")
    path.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 2: invalid JSON"):
        facet_items(path, OBJECTIVE, "all")
