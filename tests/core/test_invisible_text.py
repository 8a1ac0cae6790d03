"""Issue 19, finding 7: an item whose text is only zero-width (or other invisible) characters is refused by every
benchmark's loader, through the one shared check (``eq_evals.core.text.check_text``), naming the file, the row and
the field. The FACET case runs through Inspect in tests/faults/test_inputs.py; here each loader is called directly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eq_evals.core.text import check_text, visible
from eq_evals.errors import DataError
from eq_evals.resources import resource

INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"


def _first(relative: str) -> dict[str, Any]:
    return json.loads(resource("datasets", relative).read_text(encoding="utf-8").splitlines()[0])


def _jsonl(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "text, seen",
    [
        ("hello", True),
        ("你好", True),
        (" \u200bx\u200b ", True),
        (INVISIBLE, False),
        (" \t\n", False),
        ("\u3164\u00ad\u200e", False),
    ],
)
def test_visible(text: str, seen: bool) -> None:
    assert visible(text) is seen


def test_the_shared_check_names_file_row_field_and_the_characters() -> None:
    with pytest.raises(
        DataError,
        match=r"^f.jsonl, line 3: field 'query' has no visible character, only "
        r"invisible ones \(U\+200B, U\+200C, U\+200D, U\+2060, U\+FEFF\)$",
    ):
        check_text(INVISIBLE, "f.jsonl", "line 3", "query")
    with pytest.raises(DataError, match="field 'query' is only whitespace"):
        check_text(" \n", "f.jsonl", "line 3", "query")
    assert check_text("ok", "f.jsonl", 1, "query") == "ok"


def test_sage_refuses_an_invisible_opening_line() -> None:
    from eq_evals.sage.data import normalise

    record = _first("sage/scenarios_rational.jsonl")
    normalise(record, "s.jsonl", 2)
    with pytest.raises(DataError, match=r"s.jsonl, row 2: field 'first_talk' has no visible character"):
        normalise({**record, "first_talk": INVISIBLE}, "s.jsonl", 2)


def test_pace_refuses_an_invisible_query() -> None:
    from eq_evals.pace.data import normalise

    record = _first("pace/items_en.jsonl")
    normalise(record, "p.jsonl", "line 2", 1, {})
    with pytest.raises(DataError, match=r"p.jsonl, line 2: field 'query' has no visible character"):
        normalise({**record, "query": INVISIBLE}, "p.jsonl", "line 2", 1, {})


def test_heart_refuses_an_invisible_turn_or_reference(tmp_path: Path) -> None:
    from eq_evals.heart.data import project_samples

    record = _first("heart/histories_en.jsonl")
    assert len(project_samples(_jsonl(tmp_path / "h.jsonl", record))) == 1
    turns = list(record["dialogue_history"])
    bad = {**record, "dialogue_history": [*turns[:-1], INVISIBLE]}
    with pytest.raises(
        DataError, match=rf"h.jsonl, row 2: field 'dialogue_history\[{len(turns) - 1}\]' has no visible"
    ):
        project_samples(_jsonl(tmp_path / "h.jsonl", {**record, "id": "other"}, bad))
    with pytest.raises(DataError, match=r"h.jsonl, row 1: field 'reference_response' has no visible"):
        project_samples(_jsonl(tmp_path / "h.jsonl", {**record, "reference_response": INVISIBLE}))


def test_longemotion_refuses_an_invisible_question_or_passage(tmp_path: Path) -> None:
    from eq_evals.longemotion.data import qa_samples

    record = {"number": "q1", "problem": "What does she feel?", "answer": "relief", "context": "A long passage."}
    assert len(qa_samples(_jsonl(tmp_path / "Emotion_QA.jsonl", record))) == 1
    for field in ("problem", "context"):
        with pytest.raises(DataError, match=rf"Emotion_QA.jsonl, line 2: field '{field}' has no visible"):
            qa_samples(_jsonl(tmp_path / "Emotion_QA.jsonl", record, {**record, field: INVISIBLE}))
