"""Issue 19, the input parts of finding 7: what is read must not depend on how a path is written, invisible text is
not an item, and an error names the parameter the user passed.

- An ``EQ_EVALS_PATH`` overlay that re-declares a bundled task wins when the path is absolute and loses (is
  reported broken) when it is relative: declarations are read in sorted path order and the first one wins. The
  docs say an overlay's files "are found before the bundled ones" (docs/adding-a-task.md).
- A FACET item whose text is only zero-width characters is accepted (an item of only whitespace is refused).
- LongEmotion errors about a ``-T source=`` folder or Hub copy tell the user to pass ``-T data_dir``
  (docs/longemotion.md: ``source`` "replaces ``data_dir`` and ``revision``").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faultkit import REPO, run_cli
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError

MARK = "OVERLAY COPY of facet_hidden"


@pytest.fixture
def overlay_redeclaring_facet_hidden(tmp_path: Path) -> Path:
    task = REPO / "tasks" / "facet" / "facet_hidden.yaml"
    target = tmp_path / "my_evals" / "tasks" / "facet" / "facet_hidden.yaml"
    target.parent.mkdir(parents=True)
    lines = [
        f'description: "{MARK}."' if line.startswith("description:") else line
        for line in task.read_text(encoding="utf-8").splitlines()
    ]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "my_evals"


def test_an_overlay_redeclaring_a_bundled_task_wins_however_its_path_is_written(
    overlay_redeclaring_facet_hidden: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(overlay_redeclaring_facet_hidden.parent)
    listed = {}
    for how, path in (("absolute", str(overlay_redeclaring_facet_hidden)), ("relative", "my_evals")):
        monkeypatch.setenv("EQ_EVALS_PATH", path)
        _, out, _ = run_cli(capsys, "list", "--benchmark", "facet")
        listed[how] = MARK in out
    assert listed == {"absolute": True, "relative": True}, listed


def _items(tmp_path: Path, text: str) -> Path:
    first = json.loads((REPO / "datasets" / "facet" / "hidden.jsonl").read_text(encoding="utf-8").splitlines()[0])
    path = tmp_path / "items.jsonl"
    rows = [first, {**first, "id": "x1", "input": text}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run_on(items: Path, tmp_path: Path) -> None:
    inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        task_args={"source": str(items)},
        epochs=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )


def test_a_facet_item_of_only_whitespace_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError, match=r"items.jsonl, line 2: field 'input' is only whitespace"):
        _run_on(_items(tmp_path, " \n\t "), tmp_path)


def test_a_facet_item_of_only_zero_width_characters_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError, match=r"items.jsonl, line 2: field 'input'"):
        _run_on(_items(tmp_path, "\u200b\u200c\u200d\u2060\ufeff"), tmp_path)


def _longemotion_error(source: str, tmp_path: Path) -> str:
    with pytest.raises(EqEvalsError) as ex:
        inspect_eval(
            "eq_evals/longemotion_qa",
            model="eq_evals/scripted-le_oracle",
            task_args={"source": source},
            limit=1,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    return str(ex.value)


def test_a_missing_longemotion_source_names_source(tmp_path: Path) -> None:
    message = _longemotion_error(str(tmp_path / "absent"), tmp_path)
    assert "-T source=" in message and "data_dir" not in message


@pytest.mark.parametrize("kind", ["empty folder", "hub copy not cached"])
def test_a_longemotion_source_error_names_source_not_data_dir(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("LONGEMOTION_DATA_DIR", raising=False)
    (tmp_path / "empty").mkdir()
    source = str(tmp_path / "empty") if kind == "empty folder" else "hf://LongEmotion/LongEmotion@0123456789abcdef"
    message = _longemotion_error(source, tmp_path)
    assert "-T source=" in message and "data_dir" not in message, message
