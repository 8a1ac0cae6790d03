"""Issue 12, items 3, 4 and 8: bad input that used to pass silently is a clear error naming what is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.agreement_cli import human_labels
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.facet.data import facet_items
from eq_evals.resources import resource


def test_a_misspelled_task_parameter_is_an_error_listing_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError) as ex:
        inspect_eval("eq_evals/facet_hidden", model="eq_evals/scripted-oracle", task_args={"langauge": "zh"},
                     limit=1, log_dir=str(tmp_path), display="none")
    message = str(ex.value)
    assert "unknown parameter(s) -T langauge (did you mean language?)" in message
    assert "valid parameters: language, source, normalize_labels" in message and "eq-evals list" in message
    assert not list(tmp_path.glob("*.eval"))  # nothing ran
    # declared parameters still work, typed
    [log] = inspect_eval("eq_evals/facet_hidden", model="eq_evals/scripted-oracle", task_args={"language": "zh"},
                         limit=1, epochs=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.samples[0].metadata["language"] == "zh"


def _rows(tmp_path: Path, *changes: dict) -> Path:
    first = json.loads(resource("datasets", "facet/hidden.jsonl").read_text(encoding="utf-8").splitlines()[0])
    path = tmp_path / "items.jsonl"
    lines = [json.dumps(first)] + [json.dumps({**first, "id": f"x{i}", **c}) for i, c in enumerate(changes)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_facet_item_of_only_whitespace_is_an_error(tmp_path: Path) -> None:
    path = _rows(tmp_path, {"input": "  \n\t "})
    with pytest.raises(DataError, match=r"items.jsonl, row line 2: field 'input' is only whitespace"):
        facet_items(path, ["hidden_emotion"], "all")


def test_a_facet_row_with_an_unknown_dimension_is_an_error_not_dropped(tmp_path: Path) -> None:
    path = _rows(tmp_path, {}, {"dimension": "hiden_emotion"}, {})
    with pytest.raises(DataError, match=r"items.jsonl, row line 3: unknown dimension 'hiden_emotion'"):
        facet_items(path, ["hidden_emotion"], "all")
    assert len(facet_items(_rows(tmp_path, {}, {}), ["hidden_emotion"], "all")) == 3


PAIRS = {"m|i1|e1|a|b": ("a", "b"), "m|i2|e1|a|b": ("a", "b")}


def _csv(tmp_path: Path, text: str) -> str:
    path = tmp_path / "human.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_agreement_rejects_extra_columns_and_cells(tmp_path: Path) -> None:
    ok = human_labels(_csv(tmp_path, "sample_id,rater,label\nm|i1|e1|a|b,r1,A\nm|i2|e1|a|b,r1,b\n"), PAIRS)
    assert ok == {"human:r1": {"m|i1|e1|a|b": "A", "m|i2|e1|a|b": "B"}}
    with pytest.raises(EqEvalsError, match=r"human.csv: unknown column\(s\) \['lable'\]"):
        human_labels(_csv(tmp_path, "sample_id,rater,label,lable\nm|i1|e1|a|b,r1,A,B\n"), PAIRS)
    with pytest.raises(EqEvalsError, match=r"human.csv, row 3: 1 more cell\(s\) than the header has columns: \['B'\]"):
        human_labels(_csv(tmp_path, "sample_id,rater,label\nm|i1|e1|a|b,r1,A\nm|i2|e1|a|b,r1,A,B\n"), PAIRS)
    with pytest.raises(EqEvalsError, match=r"human.csv, row 2: fewer cells"):
        human_labels(_csv(tmp_path, "sample_id,rater,label,dimension\nm|i1|e1|a|b,r1,A\n"), PAIRS)
