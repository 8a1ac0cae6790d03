"""Validators for PACE query files (``datasets/pace/items_*.jsonl`` or a user's JSON/JSONL/CSV of the same
fields, docs/pace.md 'Dataset'), run by the tests and by ``eq-evals pace validate FILE...`` / ``eq-evals validate``.

- ``schema``: the loader's rules (``eq_evals.pace.data.normalise``), one finding per bad row; duplicate ids.
- ``alignment``: each query's EN and ZH versions (ids ending ``-en`` / ``-zh``) exist and agree on scenario,
  provocation and trigger dimensions; Chinese characters per English word within bounds.
- ``same_scenario``: queries that tell the same story in other words (``eq_evals.core.itemcheck``).

Items without a key (PACE queries have no gold) leave nothing for the shortcut detectors to find.
Limits: datasets/facet/validation_limits.yaml (``pace`` section, and ``facet`` for the same-scenario limits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from eq_evals.core.embeddings import english_embeddings
from eq_evals.core.itemcheck import (
    Report,
    add_unique,
    collect_files,
    language_pairs,
    length_ratio,
    limits,
    reviewed_pairs,
)
from eq_evals.core.itemcheck import check_same_scenario as shared_check_same_scenario
from eq_evals.errors import DataError, EqEvalsError

CHECKS = ("schema", "alignment", "same_scenario")


@dataclass
class Query:
    file: str
    row: str
    record: dict

    @property
    def id(self) -> str:
        return self.record["id"]

    @property
    def key(self) -> str:
        return re.sub(r"-(en|zh)$", "", self.id)

    @property
    def language(self) -> str:
        return self.record["language"]


def load(files: list[Path], report: Report) -> list[Query]:
    from eq_evals.pace.data import normalise, read_rows

    out: list[Query] = []
    seen: dict[str, str] = {}
    for file in files:
        try:
            rows = read_rows(file)
        except (DataError, EqEvalsError) as ex:
            report.add(
                "schema", "error", None, getattr(ex, "problem", str(ex)), str(file), str(getattr(ex, "row", "-"))
            )
            continue
        for index, (row, record) in enumerate(rows):
            try:
                rec = normalise(record, str(file), row, index, {})
            except DataError as ex:
                report.add("schema", "error", None, ex.problem, str(file), row)
                continue
            add_unique(out, Query(str(file), row, rec), seen, report)
    return out


def check_alignment(queries: list[Query], report: Report, lim: dict) -> None:
    complete = language_pairs(queries, report, "query")
    ratios = []
    for _, en_q, zh_q in complete:
        en, zh = en_q.record, zh_q.record
        for field in ("scenario", "provocation", "split"):
            if en.get(field) != zh.get(field):
                report.add("alignment", "error", zh_q, f"{field} {zh.get(field)!r} differs from EN's {en.get(field)!r}")
        if sorted(en.get("triggers") or {}) != sorted(zh.get("triggers") or {}):
            report.add("alignment", "error", zh_q, "trigger dimensions differ from the EN version's")
        ratio = length_ratio(report, zh_q, en["query"], zh["query"], lim["length_ratio"])
        ratios += [ratio] if ratio is not None else []
    ratios.sort()
    report.figures["alignment"] = {
        "pairs": len(complete),
        "unpaired": len({q.key for q in queries}) - len(complete),
        "zh_chars_per_en_word": [round(ratios[0], 2), round(ratios[len(ratios) // 2], 2), round(ratios[-1], 2)]
        if ratios
        else None,
    }


def check_same_scenario(queries: list[Query], report: Report) -> None:
    shared_check_same_scenario(
        queries,
        report,
        lambda q: q.record["query"],
        {**limits("facet"), **limits("pace")},
        reviewed=reviewed_pairs("pace"),
        embed=english_embeddings,
    )


def run(paths: Iterable[str | Path], checks: Iterable[str] = CHECKS) -> Report:
    files = collect_files(paths, "PACE")
    report = Report([str(f) for f in files])
    queries = load(files, report)
    wanted = set(checks)
    if "alignment" in wanted:
        check_alignment(queries, report, limits("pace"))
    if "same_scenario" in wanted:
        check_same_scenario(queries, report)
    report.figures = dict(report.figures)
    return report
