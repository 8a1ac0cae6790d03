"""FACET items: the project's JSONL records and the authors' released JSON, as Inspect samples.

Record schema (datasets/facet/README.md, 'Schema'): id, item_id, dimension, branch, language, format, input, answer,
secondary_answer, plus optional pool, judge_dimensions, scenario_domain, scenario. Every gold label is
checked against the taxonomy; a bad row raises DataError naming the file and row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable

from inspect_ai.dataset import Sample

from eq_evals.core.text import check_text, read_jsonl
from eq_evals.errors import DataError
from eq_evals.facet.answers import count_options, gold_slots, parse_level
from eq_evals.facet.taxonomy import taxonomy

DIMENSIONS = {
    # upstream "dim" string -> (dimension key, branch)
    "Apparent Emotion Recognition": ("apparent_emotion", "perception"),
    "Hidden Emotion Recognition": ("hidden_emotion", "perception"),
    "Emotion Prediction": ("emotion_prediction", "cognition"),
    "Social Adequacy": ("social_adequacy", "cognition"),
    "Crisis Recognition": ("crisis_recognition", "cognition"),
    "Emotion Matching": ("emotion_matching", "interaction"),
    "Empathetic Understanding": ("empathetic_understanding", "interaction"),
    "Emotion Deepening": ("emotion_deepening", "interaction"),
    "Emotion Regulation": ("emotion_regulation", "interaction"),
    "Expression Naturalness": ("expression_naturalness", "interaction"),
}
KNOWN_DIMENSIONS = {key for key, _ in DIMENSIONS.values()}
EMOTION_DIMENSIONS = {"apparent_emotion", "hidden_emotion", "emotion_prediction"}
FORMATS = {"single_select", "multi_select", "multiple_choice", "level_classification", "generative"}
POOLS = {  # docs/pairwise.md, '1. Generation' (note on pools): three prompt pools for the five interaction dimensions
    "emotion_deepening": ("deepening", ["emotion_deepening"]),
    "emotion_matching": ("shared", ["emotion_matching", "empathetic_understanding", "emotion_regulation"]),
    "empathetic_understanding": ("shared", ["emotion_matching", "empathetic_understanding", "emotion_regulation"]),
    "emotion_regulation": ("shared", ["emotion_matching", "empathetic_understanding", "emotion_regulation"]),
    "expression_naturalness": ("naturalness", ["expression_naturalness"]),
}
OPTION_LABEL = re.compile(r"\s*[(（][A-Z][A-Za-z\-/ ]{2,40}[)）](?=[.。]?\s*$)", re.MULTILINE)


def infer_format(answer: Any) -> str:
    """Item format from an upstream gold answer (datasets/facet/README.md, 'Schema')."""
    if answer is None:
        return "generative"
    if isinstance(answer, int) or (isinstance(answer, str) and answer.strip().isdigit()):
        return "multiple_choice"
    if isinstance(answer, str) and re.fullmatch(r"\s*(Level\s*[1-5]|[一二三四五1-5]级)\s*", answer):
        return "level_classification"
    return "multi_select" if "+" in str(answer) else "single_select"


def convert_upstream(data: dict, file: str) -> list[dict]:
    """The authors' bilingual format ``{id, dim, zh: {question, answer, secondary_answer}, en: {…}}``."""
    samples = data.get("samples") if isinstance(data, dict) else data
    if not isinstance(samples, list):
        raise DataError(file, "-", 'expected a list of samples or {"samples": [...]}')
    records = []
    for index, item in enumerate(samples):
        if not isinstance(item, dict) or "dim" not in item or "id" not in item:
            raise DataError(file, index, "each sample needs 'id' and 'dim'")
        if item["dim"] not in DIMENSIONS:
            raise DataError(file, index, f"unknown dimension {item['dim']!r}; expected one of {sorted(DIMENSIONS)}")
        dimension, branch = DIMENSIONS[item["dim"]]
        for language in ("en", "zh"):
            side = item.get(language)
            if side is None:
                continue
            if not isinstance(side, dict) or "question" not in side:
                raise DataError(file, index, f"'{language}' needs a 'question'")
            number = f"{int(item['id']):03d}" if str(item["id"]).isdigit() else str(item["id"])
            record = {
                "id": f"facet-{number}-{language}",
                "item_id": f"facet-{number}",
                "source_id": item["id"],
                "dimension": dimension,
                "branch": branch,
                "language": language,
                "format": infer_format(side.get("answer")),
                "input": side["question"],
                "answer": side.get("answer"),
                "secondary_answer": side.get("secondary_answer"),
            }
            if branch == "interaction":
                record["pool"], record["judge_dimensions"] = POOLS[dimension]
            records.append(record)
    return records


def read_records(path: Path) -> list[tuple[str | int, dict]]:
    """(row, record) pairs from a JSONL file (row = line number) or an authors' JSON file."""
    text = path.read_text(encoding="utf-8")
    name = str(path)
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as ex:
            raise DataError(name, f"line {ex.lineno}", f"invalid JSON: {ex.msg}") from None
        if isinstance(data, dict) and "samples" in data or isinstance(data, list) and data and "dim" in data[0]:
            return [(f"record {i + 1}", r) for i, r in enumerate(convert_upstream(data, name))]
        raise DataError(name, "-", 'unrecognised JSON layout (expected the authors\' {"samples": [...]})')
    return [(f"line {number}", row) for number, row in read_jsonl(None, name, text=text)]


def _check_labels(gold: Any, language: str, file: str, row: Any, field: str) -> None:
    known = {name.casefold() for name in taxonomy().names(language)}
    for slot in gold_slots(str(gold), normalize=False):
        for label in slot:
            if label.casefold() not in known:
                raise DataError(
                    file,
                    row,
                    f"{field} {gold!r}: label {label!r} is not in the {language} taxonomy "
                    "(datasets/facet/taxonomy.yaml)",
                )


def validate(record: dict, file: str, row: Any) -> None:
    for field in ("id", "dimension", "language", "format", "input"):
        value = record.get(field)
        if value is None or value == "":
            raise DataError(file, row, f"missing field {field!r}")
        if isinstance(value, str):
            check_text(value, file, row, field)  # only whitespace, or only zero-width characters: refused
    if record["dimension"] not in KNOWN_DIMENSIONS:
        raise DataError(
            file, row, f"unknown dimension {record['dimension']!r}; expected one of {sorted(KNOWN_DIMENSIONS)}"
        )
    if record["language"] not in ("en", "zh"):
        raise DataError(file, row, f"language {record['language']!r} is not 'en' or 'zh'")
    if record["format"] == "generative" and record.get("pool") not in (None, "deepening", "shared", "naturalness"):
        raise DataError(file, row, f"pool {record.get('pool')!r} is not deepening, shared or naturalness")
    if record["format"] not in FORMATS:
        raise DataError(file, row, f"format {record['format']!r} is not one of {sorted(FORMATS)}")
    dimension, fmt, gold = record["dimension"], record["format"], record.get("answer")
    if fmt != "generative" and gold in (None, ""):
        raise DataError(file, row, "missing field 'answer'")
    if dimension in EMOTION_DIMENSIONS:
        _check_labels(gold, record["language"], file, row, "answer")
        if record.get("secondary_answer"):
            _check_labels(record["secondary_answer"], record["language"], file, row, "secondary_answer")
    elif dimension == "crisis_recognition" and parse_level(str(gold)) is None:
        raise DataError(file, row, f"answer {gold!r} is not a crisis level (Level 1-5 / 一级-五级)")
    elif dimension == "social_adequacy":
        n = count_options(record["input"])
        if not str(gold).strip().isdigit() or not 1 <= int(gold) <= max(n, 1):
            raise DataError(file, row, f"answer {gold!r} is not one of the item's {n} numbered options")


def to_sample(record: dict, strip_option_labels: bool) -> Sample:
    text, stripped = record["input"], False
    if record["dimension"] == "social_adequacy" and strip_option_labels:
        new = OPTION_LABEL.sub("", text)
        text, stripped = new, new != text
    # the record's fields but the text, which is the input, and the id, which is the sample's id; the branch
    # follows from the dimension and an absent secondary answer is left out: every metadata field is copied,
    # validated and thinned again each time Inspect writes the sample (issue 14, harness overhead)
    metadata = {k: v for k, v in record.items() if k not in ("input", "id", "branch") and v is not None}
    if record["dimension"] == "social_adequacy":
        metadata["n_options"] = count_options(text)
        metadata["option_labels_stripped"] = stripped
    if record["dimension"] == "crisis_recognition":
        metadata["crisis_level"] = parse_level(str(record["answer"]))
    gold = record.get("answer")
    return Sample(id=record["id"], input=text, target="" if gold is None else str(gold), metadata=metadata)


# Hub configs (datasets/facet/README.md, 'Schema'; docs/hub.md): one per bundled file, a single `test` split, language as a column
CONFIGS = ("apparent", "hidden", "prediction", "social", "crisis", "deepening", "shared", "naturalness")


def read_rows(path: Path) -> list[tuple[str, Any, dict]]:
    """(file, row, record) for every record of one file or of a folder's *.jsonl and *.json files."""
    files = sorted(path.glob("*.jsonl")) + sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise DataError(str(path), "-", "no FACET data files (*.jsonl, *.json) found")
    return [(str(file), row, record) for file in files for row, record in read_records(file)]


def facet_items(
    path: str | Path,
    dimensions: Iterable[str] | None,
    language: str = "en",
    split: str = "all",
    strip_option_labels: bool = True,
    pools: Iterable[str] | None = None,
    judge: Iterable[str] | None = None,
    rows: list[tuple[str, Any, dict]] | None = None,
) -> list[Sample]:
    """Load, validate and filter FACET records from one file or folder (or the given ``rows``, e.g. of a
    Hub dataset): those of the given dimensions, or (interaction tasks) those of the given prompt pools
    (docs/pairwise.md, '1. Generation', note on pools). ``judge`` keeps only those dimensions in each item's ``judge_dimensions``."""
    path = Path(path)
    rows = read_rows(path) if rows is None else rows
    wanted, wanted_pools = set(dimensions or []), set(pools or [])
    if not wanted and not wanted_pools:
        raise ValueError("facet_items needs dimensions or pools")
    samples, seen = [], set()
    for file, row, record in rows:
        if not isinstance(record, dict):
            raise DataError(file, row, "a record must be a JSON object")
        validate(record, file, row)
        if wanted_pools:
            if record.get("pool") not in wanted_pools:
                continue
        elif record["dimension"] not in wanted:
            continue
        if language != "all" and record["language"] != language:
            continue
        if split != "all" and record["format"] != f"{split}_select":
            continue
        if record["id"] in seen:
            raise DataError(file, row, f"duplicate id {record['id']!r}")
        seen.add(record["id"])
        sample = to_sample(record, strip_option_labels)
        if judge is not None and sample.metadata.get("judge_dimensions"):
            sample.metadata["judge_dimensions"] = [d for d in sample.metadata["judge_dimensions"] if d in judge]
        samples.append(sample)
    if not samples:
        what = f"pools {sorted(wanted_pools)}" if wanted_pools else f"dimensions {sorted(wanted)}"
        raise DataError(str(path), "-", f"no items for {what}, language={language}, split={split}")
    return samples
