"""Issue 23: the PACE item validator (src/eq_evals/pace/validate.py): schema, EN/ZH alignment, reworded copies."""

from __future__ import annotations

import json
from pathlib import Path

from support import REPO

from eq_evals.pace.validate import run

DATA = REPO / "datasets" / "pace"


def rows(language: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"items_{language}.jsonl").read_text(encoding="utf-8").splitlines()]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_bundled_queries_are_aligned() -> None:
    report = run([DATA], checks=["schema", "alignment"])
    assert not report.errors, "\n".join(map(str, report.errors))
    assert report.figures["alignment"]["pairs"] == len(rows("en")) and report.figures["alignment"]["unpaired"] == 0


def test_schema_alignment_and_a_reworded_copy_are_caught(tmp_path: Path) -> None:
    en, zh = rows("en")[:6], rows("zh")[:6]
    en[1] = dict(en[1], scenario="not_a_scenario")
    zh[2] = dict(zh[2], provocation=en[3]["provocation"] if en[3]["provocation"] != zh[2]["provocation"] else None)
    copy = dict(en[0], id="pace-proj-900-en", query=en[0]["query"].replace("Fantastic", "Great"))
    report = run(
        [write(tmp_path / "en.jsonl", [*en, copy]), write(tmp_path / "zh.jsonl", zh)],
        checks=["schema", "alignment", "same_scenario"],
    )
    errors = [(f.check, f.item or f.row) for f in report.errors]
    assert ("schema", "line 2") in errors
    assert ("alignment", zh[2]["id"]) in errors
    assert ("alignment", "pace-proj-900-en") in errors  # no zh partner
    assert ("same_scenario", "pace-proj-900-en") in errors  # reworded copy of 001
