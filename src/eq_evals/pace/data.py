"""PACE items: the project-authored set (default) or PACE-2700-style records from a file.

PACE-2700 (paper §4) is not obtainable (docs/pace.md, 'Dataset'), so its file format and field names are unknown. The
loader reads JSON (a list of objects, or {"data"|"items"|"records": [...]}), JSONL or CSV and maps the file's
field names onto the canonical record of docs/pace.md, 'Dataset' with ``field_map`` ("query:prompt,lang:language" means
canonical ``query`` is read from the file's ``prompt``). Every row is validated; a bad row is an error naming
the file, the row and the field.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.core.text import check_text, read_jsonl
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.resources import display_path, resource

LANGUAGES = ("en", "zh")
# PACE paper Table 4 scenario categories (PACE paper App. C.4): canonical id -> accepted spellings (compared lower-case,
# with "&", "and", "-" and spaces folded).
SCENARIOS = {
    "venting_self_doubt": ("emotional venting & self-doubt", "venting & self-doubt", "venting"),
    "conflict_retaliation": ("interpersonal conflict & retaliation", "conflict & retaliation", "conflict"),
    "work_academic": ("work & academic challenges", "work & academic", "work"),
    "advice_solutions": ("seeking advice & solutions", "advice & solutions", "advice"),
    "diary_reflection": ("personal diary & reflections", "diary & reflections", "diary"),
}
PROVOCATIONS = ("sarcasm", "misplaced_intensity", "harm_endorsement", "self_blame", "other")
CANONICAL = ("id", "query", "lang", "scenario", "split", "provocation", "triggers", "source")
BATTLE_FIELDS = ("model_a", "model_b", "response_a", "response_b", "winner", "dims_a", "dims_b")
CJK = re.compile(r"[\u4e00-\u9fff]")
PROJECT_FILES = {"en": "pace/items_en.jsonl", "zh": "pace/items_zh.jsonl"}


def _fold(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text.lower().replace("&", " and ")).strip()


_SCENARIO_LOOKUP = {_fold(name): key for key, names in SCENARIOS.items() for name in (key, *names)}


def scenario_id(value: str) -> str | None:
    """The canonical scenario id for a Table 4 name or id (case-insensitive), else None."""
    return _SCENARIO_LOOKUP.get(_fold(value))


def detect_language(text: str) -> str:
    """``zh`` when the text has any CJK ideograph (U+4E00-U+9FFF), else ``en`` (docs/pace.md, 'Dataset')."""
    return "zh" if CJK.search(text) else "en"


def parse_field_map(field_map: str | dict[str, str] | None) -> dict[str, str]:
    """``"query:prompt,lang:language"`` -> {"query": "prompt", "lang": "language"} (canonical: file field)."""
    if not field_map:
        return {}
    if isinstance(field_map, dict):
        pairs = list(field_map.items())
    else:
        pairs = []
        for part in field_map.split(","):
            if not part.strip():
                continue
            if ":" not in part:
                raise EqEvalsError(
                    f"-T field_map: {part.strip()!r} is not canonical:file_field "
                    "(e.g. field_map=query:prompt,lang:language)"
                )
            canonical, _, source = part.partition(":")
            pairs.append((canonical.strip(), source.strip()))
    known = CANONICAL + BATTLE_FIELDS
    for canonical, source in pairs:
        if canonical not in known:
            raise EqEvalsError(f"-T field_map: unknown canonical field {canonical!r}; expected one of {list(known)}")
        if not source:
            raise EqEvalsError(f"-T field_map: no file field given for {canonical!r}")
    return dict(pairs)


def read_rows(path: Path) -> list[tuple[str, Any]]:
    """(row label, record) pairs from a JSON, JSONL or CSV file."""
    name = display_path(path)
    if not path.is_file():
        raise EqEvalsError(f"PACE data {name} does not exist")
    text = path.read_text(encoding="utf-8-sig")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return [(f"line {i + 2}", dict(r)) for i, r in enumerate(csv.DictReader(text.splitlines()))]
    if suffix == ".jsonl":
        return [(f"line {number}", row) for number, row in read_jsonl(None, name, text=text)]
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as ex:
            raise DataError(name, f"line {ex.lineno}", f"invalid JSON: {ex.msg}") from None
        if isinstance(data, dict):
            data = next((data[k] for k in ("data", "items", "records") if isinstance(data.get(k), list)), None)
        if not isinstance(data, list):
            raise DataError(name, "-", 'expected a JSON list of records (or {"data": [...]})')
        return [(f"record {i + 1}", r) for i, r in enumerate(data)]
    raise EqEvalsError(f"PACE data {name}: unsupported file type {path.suffix!r} (use .json, .jsonl or .csv)")


def _get(record: dict, field: str, fields: dict[str, str]) -> Any:
    return record.get(fields.get(field, field))


def normalise(record: Any, file: str, row: str, index: int, fields: dict[str, str]) -> dict[str, Any]:
    """One validated canonical record (docs/pace.md, 'Dataset')."""
    if not isinstance(record, dict):
        raise DataError(file, row, f"expected an object, got {type(record).__name__}")

    def name(field: str) -> str:
        mapped = fields.get(field, field)
        return field if mapped == field else f"{field} (file field {mapped!r})"

    query = _get(record, "query", fields)
    if not isinstance(query, str) or not query.strip():
        raise DataError(
            file, row, f"missing or empty {name('query')}; map the file's field with -T field_map=query:<field>"
        )
    check_text(query, file, row, name("query"))  # only zero-width characters: refused too
    rid = _get(record, "id", fields)
    rid = f"pace-{index:05d}" if rid in (None, "") else str(rid)
    lang = _get(record, "lang", fields)
    if lang in (None, ""):
        lang = detect_language(query)
    elif str(lang).lower() not in LANGUAGES:
        raise DataError(file, row, f"{name('lang')} is {lang!r}; expected one of {list(LANGUAGES)}")
    lang = str(lang).lower()
    raw_scenario = _get(record, "scenario", fields)
    scenario = "unknown"
    if raw_scenario not in (None, ""):
        scenario = scenario_id(str(raw_scenario))
        if scenario is None:
            raise DataError(
                file,
                row,
                f"{name('scenario')} {raw_scenario!r} is not a PACE scenario (Table 4): "
                f"expected one of {list(SCENARIOS)} or their Table 4 names",
            )
    provocation = _get(record, "provocation", fields)
    if provocation not in (None, "") and provocation not in PROVOCATIONS:
        raise DataError(file, row, f"{name('provocation')} {provocation!r} is not one of {list(PROVOCATIONS)}")
    triggers = _get(record, "triggers", fields)
    if triggers not in (None, "") and not (isinstance(triggers, dict) and set(triggers) <= set("PACE")):
        raise DataError(file, row, f"{name('triggers')} must be an object with keys among P, A, C, E")
    split = _get(record, "split", fields)
    if split not in (None, "") and split not in ("dev", "test"):
        raise DataError(file, row, f"{name('split')} {split!r} is not dev or test")
    out = {
        "id": rid,
        "query": query.strip(),
        "language": lang,
        "scenario": scenario,
        "split": split or None,
        "provocation": provocation or None,
        "triggers": triggers or None,
        "source": _get(record, "source", fields) or None,
    }
    for field in BATTLE_FIELDS:
        value = _get(record, field, fields)
        if value not in (None, ""):
            out[field] = value
    # other fields of the row (e.g. focus_dimension, low_eq_anchor) are kept as metadata under their own names
    used = {fields.get(f, f) for f in CANONICAL + BATTLE_FIELDS}
    for key, value in record.items():
        if key not in used and key not in out and key not in ("language", "judge_dimensions"):
            out[key] = value
    return out


def load_records(path: Path, field_map: str | dict[str, str] | None = None) -> list[dict[str, Any]]:
    fields = parse_field_map(field_map)
    file = display_path(path)
    records, seen = [], {}
    for index, (row, record) in enumerate(read_rows(path)):
        rec = normalise(record, file, row, index, fields)
        if rec["id"] in seen:
            raise DataError(file, row, f"duplicate id {rec['id']!r} (also at {seen[rec['id']]})")
        seen[rec["id"]] = row
        records.append(rec)
    if not records:
        raise DataError(file, "-", "no records")
    return records


def to_sample(record: dict[str, Any]) -> Sample:
    metadata = {k: v for k, v in record.items() if k not in ("id", "query") and v is not None}
    # the pairwise matchups judge every pair of replies on the board's composite EQ
    metadata["judge_dimensions"] = ["pace_eq"]
    return Sample(id=record["id"], input=record["query"], target="", metadata=metadata)


def pace_items(
    source: str | None = None, language: str = "en", field_map: str | None = None, split: str | None = None
) -> list[Sample]:
    """PACE samples. Default: the project-authored items (datasets/pace/, Apache-2.0; not the paper's data).
    ``source``: a JSON/JSONL/CSV file of PACE-2700-style records, mapped with ``field_map``."""
    from eq_evals.core.sources import dataset_version, load_hub_rows, resolve, stamp

    if language not in (*LANGUAGES, "all"):
        raise EqEvalsError(f"-T language={language}: expected en, zh or all")
    # one resolver for every benchmark (docs/hub.md): bundled, a file, an exported folder, or hf://OWNER/NAME@REV
    resolved = resolve(source, resource("datasets", "pace"))
    if resolved.hub:
        fields = parse_field_map(field_map)
        raw = load_hub_rows(resolved.hub, language)
        records = [normalise(r, str(resolved.hub), str(i + 1), i, fields) for i, r in enumerate(raw)]
    elif resolved.kind == "local" and resolved.path.is_dir():
        wanted = LANGUAGES if language == "all" else (language,)
        files = [resolved.path / Path(PROJECT_FILES[lang]).name for lang in wanted]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise EqEvalsError(
                f"-T source={source}: a folder source needs the item files {missing} "
                "(as written by `eq-evals hub export pace`), or name a file"
            )
        records = [r for f in files for r in load_records(f, field_map)]
    elif source:
        records = load_records(Path(source).expanduser(), field_map)
    else:
        if field_map:
            raise EqEvalsError("-T field_map applies to -T source=FILE only; the project-authored items need none")
        wanted = LANGUAGES if language == "all" else (language,)
        records = [r for lang in wanted for r in load_records(resource("datasets", PROJECT_FILES[lang]))]
        for r in records:
            if r["source"] != "project-authored":
                raise DataError(
                    PROJECT_FILES[r["language"]], r["id"], "bundled items must have source 'project-authored'"
                )
    if language != "all":
        records = [r for r in records if r["language"] == language]
    if split:
        records = [r for r in records if r["split"] == split]
    if not records:
        raise EqEvalsError(
            f"no PACE items for language={language}"
            + (f", split={split}" if split else "")
            + (f" in {source}" if source else "")
        )
    return stamp([to_sample(r) for r in records], dataset_version(resolved, records, name=f"pace-{language}"))
