"""`eq-evals longemotion table`: the paper's Table 3 layout from LongEmotion logs, with partial logs skipped or
marked, repeated logs named, and fixture rows flagged as not the benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log

import eq_evals._registry  # noqa: F401
from eq_evals.cli import main
from eq_evals.longemotion.table import collect, render

ORACLE, ECHO = "eq_evals/scripted-le_oracle", "eq_evals/scripted-echo"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("le_table")
    for method in ("base", "rag"):
        inspect_eval(
            "eq_evals/longemotion_classification",
            model=[ORACLE, ECHO],
            epochs=1,
            display="none",
            task_args={"fixtures": True, "method": method, "retriever": "bm25"},
            log_dir=str(root / "le"),
        )
    inspect_eval(
        "eq_evals/longemotion_qa",
        model=[ORACLE, ECHO],
        epochs=1,
        display="none",
        task_args={"fixtures": True},
        log_dir=str(root / "le"),
    )
    return root


def test_rows_per_model_method_and_data_on_the_paper_scale(logs: Path) -> None:
    rows, warnings = collect([str(logs / "le")])
    table = {(r.model, r.method): r for r in rows}
    assert set(table) == {(m, k) for m in (ORACLE, ECHO) for k in ("base", "rag")}
    assert all(r.data == "fixtures" for r in rows)
    oracle = table[(ORACLE, "base")]
    assert oracle.cells["EC"].value == pytest.approx(100.0) and oracle.cells["QA"].value == pytest.approx(100.0)
    assert oracle.cells["EC"].n == 3  # the three fixture records, one epoch
    assert table[(ECHO, "base")].cells["EC"].value < 100.0
    assert "QA" not in table[(ORACLE, "rag")].cells  # QA ran with Base only
    assert any("not on LongEmotion" in w for w in warnings)
    text = render(rows, warnings)
    assert "| Model | Method | Data | EC (accuracy %) | ED (accuracy %) | QA (token F1 x100) |" in text
    assert "No overall score" in text


def test_a_cancelled_log_is_skipped_or_marked_partial(logs: Path, tmp_path: Path) -> None:
    [good] = [
        p
        for p in (logs / "le").iterdir()
        if "qa" in p.name and ORACLE.split("/")[1] in read_eval_log(str(p), header_only=True).eval.model
    ]
    log = read_eval_log(str(good))
    log.samples, log.status = log.samples[:1], "cancelled"
    log.results.completed_samples = 1
    write_eval_log(log, str(tmp_path / "cut.eval"))
    rows, warnings = collect([str(tmp_path / "cut.eval")])
    assert rows == [] and any("skipped" in w and "--allow-partial" in w for w in warnings)
    rows, warnings = collect([str(tmp_path / "cut.eval")], allow_partial=True)
    [row] = rows
    assert row.partial and row.cells["QA"].partial and "(partial)" in render(rows, warnings)


def test_a_repeated_run_is_named_and_the_newest_shown(logs: Path, tmp_path: Path) -> None:
    inspect_eval(
        "eq_evals/longemotion_qa",
        model=ORACLE,
        epochs=2,
        display="none",
        task_args={"fixtures": True},
        log_dir=str(tmp_path),
    )
    rows, warnings = collect([str(logs / "le"), str(tmp_path)])
    oracle = next(r for r in rows if (r.model, r.method) == (ORACLE, "base"))
    assert oracle.cells["QA"].n == 4 and str(tmp_path) in oracle.cells["QA"].log  # 2 records x 2 epochs, newest
    assert any("2 logs" in w for w in warnings) and any("epochs" in w for w in warnings)


def test_cli_json_and_no_logs(logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["longemotion", "table", str(logs / "le"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["method"] for r in data["rows"]} == {"base", "rag"} and data["columns"]["EC"]["unit"] == "accuracy %"
    (tmp_path / "empty").mkdir()
    inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        limit=2,
        epochs=1,
        display="none",
        log_dir=str(tmp_path / "empty"),
    )
    assert main(["longemotion", "table", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err  # a log of another task is named, not skipped in silence
    assert "not logs of eq_evals/longemotion_classification" in err and "(eq_evals/facet_hidden)" in err
