"""FACET item rows that used to pass silently are errors naming the file and line (issue 12): an item of only
whitespace, a row with an unknown dimension (not dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eq_evals.errors import DataError
from eq_evals.facet.data import facet_items
from eq_evals.resources import resource


def _rows(tmp_path: Path, *changes: dict) -> Path:
    first = json.loads(resource("datasets", "facet/hidden.jsonl").read_text(encoding="utf-8").splitlines()[0])
    path = tmp_path / "items.jsonl"
    lines = [json.dumps(first)] + [json.dumps({**first, "id": f"x{i}", **c}) for i, c in enumerate(changes)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_facet_item_of_only_whitespace_is_an_error(tmp_path: Path) -> None:
    path = _rows(tmp_path, {"input": "  \n\t "})
    with pytest.raises(DataError, match=r"items.jsonl, line 2: field 'input' is only whitespace"):
        facet_items(path, ["hidden_emotion"], "all")


def test_a_facet_row_with_an_unknown_dimension_is_an_error_not_dropped(tmp_path: Path) -> None:
    path = _rows(tmp_path, {}, {"dimension": "hiden_emotion"}, {})
    with pytest.raises(DataError, match=r"items.jsonl, line 3: unknown dimension 'hiden_emotion'"):
        facet_items(path, ["hidden_emotion"], "all")
    assert len(facet_items(_rows(tmp_path, {}, {}), ["hidden_emotion"], "all")) == 3
