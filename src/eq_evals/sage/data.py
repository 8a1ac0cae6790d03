"""SAGE scenarios: the project-authored set (bundled), the official release (``-T source=PATH``) and a
Hugging Face Hub copy (``-T source=hf://OWNER/NAME@REVISION``), all in the released schema
(datasets/sage/README.md, 'Schema'): id, player, scene, main_cha, cha_group, task, first_talk (+ topic, hidden_task_type)."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Iterable

from inspect_ai.dataset import Sample

from eq_evals.core.sources import dataset_version, load_hub_rows, resolve, stamp
from eq_evals.core.text import check_text
from eq_evals.core.text import read_jsonl as core_read_jsonl
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.resources import display_path, resource
from eq_evals.sage.rules import INTENTIONS, PERSONALITIES, intention_of

BUNDLED = ("sage/scenarios_rational.jsonl", "sage/scenarios_emotional.jsonl")
TEXT_FIELDS = ("id", "player", "scene", "main_cha", "task", "first_talk")
CJK = re.compile(r"[\u4e00-\u9fff]")
logger = logging.getLogger(__name__)


def normalise(
    record: dict[str, Any], where: str, row: int | str, topics: dict[str, dict[str, str]] | None = None
) -> dict[str, Any]:
    """Check one scenario record and derive the fields the task groups by. Raises DataError."""
    if not isinstance(record, dict):
        raise DataError(where, row, "not a JSON object")
    for name in TEXT_FIELDS:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise DataError(where, row, f"field {name!r} is missing or not a non-empty string")
        check_text(value, where, row, name)  # only zero-width characters: refused too
    cha_group = record.get("cha_group")
    if not isinstance(cha_group, list) or not all(isinstance(t, str) for t in cha_group):
        raise DataError(where, row, "field 'cha_group' must be a list of trait strings")
    sid = record["id"].strip()
    extra = (topics or {}).get(sid, {})

    slug = record.get("intention") or intention_of(record["task"])
    if slug is not None and slug not in INTENTIONS:
        raise DataError(where, row, f"unknown intention {slug!r}; expected one of {sorted(INTENTIONS)}")
    known_type = INTENTIONS[slug][0] if slug else None
    task_type = record.get("hidden_task_type") or extra.get("hidden_task_type") or known_type
    if task_type not in ("rational", "emotional"):
        raise DataError(
            where,
            row,
            f"cannot tell the hidden-intention type of task {record['task']!r}: "
            "give 'hidden_task_type' (rational|emotional) or use one of the 8 intentions",
        )
    if known_type and task_type != known_type:
        raise DataError(where, row, f"hidden_task_type {task_type!r} contradicts intention {slug!r} ({known_type})")

    personality = record.get("personality") or PERSONALITIES.get(record["main_cha"].strip())
    if personality not in ("negative", "passive", "avoidant"):
        raise DataError(
            where,
            row,
            f"unknown personality type {record['main_cha']!r}; expected 负面型/被动型/回避型 "
            "or negative/passive/avoidant (or a 'personality' field)",
        )
    language = record.get("language") or ("zh" if CJK.search(record["first_talk"] + record["player"]) else "en")
    if language not in ("zh", "en"):
        raise DataError(where, row, f"language {language!r} is not zh or en")
    return {
        "id": sid,
        "scenario_id": record.get("scenario_id") or sid,
        "language": language,
        "player": record["player"],
        "scene": record["scene"],
        "main_cha": record["main_cha"],
        "cha_group": list(cha_group),
        "task": record["task"].strip(),
        "intention": slug or "other",
        "hidden_task_type": task_type,
        "personality": personality,
        "topic": record.get("topic") or extra.get("topic") or "",
        "first_talk": record["first_talk"].strip(),
    }


def to_sample(scenario: dict[str, Any]) -> Sample:
    # The tested model sees only `input` (the opening line); persona, scene and hidden intention live in
    # metadata, which only the simulated user's prompts read (docs/sage.md, 'The loop', 'What the tested model sees').
    return Sample(id=scenario["id"], input=scenario["first_talk"], target="", metadata=scenario)


def read_jsonl(path: Path) -> Iterable[tuple[int, Any]]:
    yield from core_read_jsonl(path, display_path(path))


def read_topics(path: Path) -> dict[str, dict[str, str]]:
    """``scenario_topics.jsonl`` ({id, topic, hidden_task_type}): the fields the released profiles lack."""
    out = {}
    for n, rec in read_jsonl(path):
        if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
            raise DataError(display_path(path), n, "expected an object with an 'id'")
        out[rec["id"]] = {k: rec[k] for k in ("topic", "hidden_task_type") if isinstance(rec.get(k), str)}
    return out


def _find_topics(path: Path) -> Path | None:
    for folder in (path if path.is_dir() else path.parent, (path if path.is_dir() else path.parent).parent):
        candidate = folder / "scenario_topics.jsonl"
        if candidate.is_file():
            return candidate
    return None


def _folder_files(path: Path) -> list[Path]:
    """The scenario files of a folder: its own .jsonl files (not subfolders), only the ``*withfirsttalk*``
    ones when there are any (the release's profile/ folder also holds simulator_profile.jsonl, the same
    scenarios without ``first_talk``)."""
    files = sorted(p for p in path.glob("*.jsonl") if p.is_file() and p.name != "scenario_topics.jsonl")
    preferred = [p for p in files if "withfirsttalk" in p.name]
    for skipped in (p for p in files if preferred and p not in preferred):
        logger.warning("SAGE: skipping %s (the folder has a *withfirsttalk* file)", display_path(skipped))
    return preferred or files


def _other_schema(file: Path) -> str | None:
    """Why ``file`` is not a scenario file (its first row lacks scenario fields), or None when it is one."""
    for _, rec in read_jsonl(file):
        missing = [k for k in (*TEXT_FIELDS, "cha_group") if not isinstance(rec, dict) or k not in rec]
        return f"its first row has no {', '.join(missing)}" if missing else None
    return "it is empty"


def load_local(path: Path) -> list[tuple[str, int, Any]]:
    """(file, row, record) of one file (every row must be a scenario), or of a folder: its own .jsonl files,
    not subfolders; files of another schema (first row without the scenario fields) are skipped with a
    warning, bad rows of scenario files are errors naming the file and row (raised by ``normalise``)."""
    if not path.is_dir():
        files = [path]
    else:
        files = []
        for file in _folder_files(path):
            problem = _other_schema(file)
            if problem:
                logger.warning("SAGE: skipping %s: not a scenario file (%s)", display_path(file), problem)
            else:
                files.append(file)
    if not files:
        raise EqEvalsError(
            f"no .jsonl scenario files in {path} (subfolders are not searched: point at the file "
            "or at the folder holding it, e.g. the release's profile/)"
        )
    return [(display_path(file), n, rec) for file in files for n, rec in read_jsonl(file)]


def load_scenarios(
    source: str | None = None,
    split: str = "test",
    topics: str | None = None,
    versions: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """All scenarios of the bundled set, of a local file/folder, or of a pinned Hub dataset
    (``hf://OWNER/NAME@REVISION``, its default config and ``split``), sorted by id. ``versions``, when
    given, receives the dataset's origin, revision and content hash (core/sources.py)."""
    topic_map: dict[str, dict[str, str]] | None = None
    if topics:
        topic_path = Path(topics).expanduser()
        if not topic_path.is_file():
            raise EqEvalsError(f"-T topics={topics}: no such file")
        topic_map = read_topics(topic_path)
    resolved = resolve(source, resource("datasets", "sage"))
    if resolved.kind == "bundled":
        records = [
            (display_path(resource("datasets", rel)), n, rec)
            for rel in BUNDLED
            for n, rec in read_jsonl(resource("datasets", rel))
        ]
    elif resolved.hub:
        where = f"{resolved.hub} (split {split})"
        records = [(where, i + 1, rec) for i, rec in enumerate(load_hub_rows(resolved.hub, None, split))]
    else:
        path = resolved.path
        if topic_map is None and (found := _find_topics(path)) is not None:
            topic_map = read_topics(found)
        records = load_local(path)
    if versions is not None:
        versions.append(dataset_version(resolved, [rec for _, _, rec in records], name="sage"))
    scenarios = [normalise(rec, where, n, topic_map) for where, n, rec in records]
    seen: dict[str, int] = {}
    for s in scenarios:
        seen[s["id"]] = seen.get(s["id"], 0) + 1
    dupes = sorted(k for k, v in seen.items() if v > 1)
    if dupes:
        raise EqEvalsError(f"duplicate scenario ids in {source or 'the bundled set'}: {dupes[:5]}")
    return sorted(scenarios, key=lambda s: s["id"])


def sage_samples(
    source: str | None = None,
    split: str = "test",
    topics: str | None = None,
    language: str = "zh",
    hidden_task_type: str = "all",
    personality: str = "all",
) -> list[Sample]:
    """SAGE scenarios (the dataset ``sage_scenarios`` of the declarations): the bundled project-authored set, or
    ``source`` (the official profiles JSONL, a folder of such files, or a pinned Hub dataset
    ``hf://OWNER/NAME@REVISION``), filtered by language / intention type / personality."""
    versions: list[dict[str, Any]] = []
    scenarios = load_scenarios(source, split, topics, versions)
    picked = [
        s
        for s in scenarios
        if language in ("all", s["language"])
        and hidden_task_type in ("all", s["hidden_task_type"])
        and personality in ("all", s["personality"])
    ]
    if not picked:
        langs = sorted({s["language"] for s in scenarios})
        raise EqEvalsError(
            f"no SAGE scenarios left after filtering (language={language}, hidden_task_type="
            f"{hidden_task_type}, personality={personality}); the source has languages {langs}"
        )
    return stamp([to_sample(s) for s in picked], versions[0])
