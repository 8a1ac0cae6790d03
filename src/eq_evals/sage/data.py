"""SAGE scenarios: the project-authored set (bundled), the official release (``-T source=PATH``) and a
Hugging Face Hub copy (``-T source=<owner>/<name> -T revision=<commit>``), all in the released schema
(spec §2): id, player, scene, main_cha, cha_group, task, first_talk (+ topic, hidden_task_type)."""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import Any, Iterable

from inspect_ai.dataset import Sample

from eq_evals.errors import DataError, EqEvalsError
from eq_evals.resources import display_path, resource
from eq_evals.sage.rules import INTENTIONS, PERSONALITIES, intention_of

BUNDLED = ("sage/scenarios_rational.jsonl", "sage/scenarios_emotional.jsonl")
TEXT_FIELDS = ("id", "player", "scene", "main_cha", "task", "first_talk")
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
CJK = re.compile(r"[\u4e00-\u9fff]")
logger = logging.getLogger(__name__)


def _truthy(env: str) -> bool:
    return os.environ.get(env, "").strip().lower() in ("1", "true", "yes", "on")


def normalise(record: dict[str, Any], where: str, row: int | str,
              topics: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """Check one scenario record and derive the fields the task groups by. Raises DataError."""
    if not isinstance(record, dict):
        raise DataError(where, row, "not a JSON object")
    for name in TEXT_FIELDS:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise DataError(where, row, f"field {name!r} is missing or not a non-empty string")
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
        raise DataError(where, row, f"cannot tell the hidden-intention type of task {record['task']!r}: "
                                    "give 'hidden_task_type' (rational|emotional) or use one of the 8 intentions")
    if known_type and task_type != known_type:
        raise DataError(where, row, f"hidden_task_type {task_type!r} contradicts intention {slug!r} ({known_type})")

    personality = record.get("personality") or PERSONALITIES.get(record["main_cha"].strip())
    if personality not in ("negative", "passive", "avoidant"):
        raise DataError(where, row, f"unknown personality type {record['main_cha']!r}; expected 负面型/被动型/回避型 "
                                    "or negative/passive/avoidant (or a 'personality' field)")
    language = record.get("language") or ("zh" if CJK.search(record["first_talk"] + record["player"]) else "en")
    if language not in ("zh", "en"):
        raise DataError(where, row, f"language {language!r} is not zh or en")
    return {
        "id": sid, "scenario_id": record.get("scenario_id") or sid, "language": language,
        "player": record["player"], "scene": record["scene"], "main_cha": record["main_cha"],
        "cha_group": list(cha_group), "task": record["task"].strip(), "intention": slug or "other",
        "hidden_task_type": task_type, "personality": personality,
        "topic": record.get("topic") or extra.get("topic") or "", "first_talk": record["first_talk"].strip(),
    }


def to_sample(scenario: dict[str, Any]) -> Sample:
    # The tested model sees only `input` (the opening line); persona, scene and hidden intention live in
    # metadata, which only the simulated user's prompts read (spec §6.2).
    return Sample(id=scenario["id"], input=scenario["first_talk"], target="", metadata=scenario)


def read_jsonl(path: Path) -> Iterable[tuple[int, Any]]:
    where = display_path(path)
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as ex:
                raise DataError(where, n, f"invalid JSON ({ex.msg})") from None


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


def load_local(path: Path, topics: dict[str, dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """One file (every row must be a scenario), or a folder: its own .jsonl files, not subfolders; files of
    another schema (first row without the scenario fields) are skipped with a warning, bad rows of scenario
    files are errors naming the file and row."""
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
        raise EqEvalsError(f"no .jsonl scenario files in {path} (subfolders are not searched: point at the file "
                           "or at the folder holding it, e.g. the release's profile/)")
    scenarios = []
    for file in files:
        where = display_path(file)
        scenarios += [normalise(rec, where, n, topics) for n, rec in read_jsonl(file)]
    return scenarios


def load_hub(dataset_id: str, revision: str | None, split: str,
             topics: dict[str, dict[str, str]] | None = None) -> list[dict[str, Any]]:
    if not revision:
        raise EqEvalsError(f"-T source={dataset_id}: pin the Hub revision with -T revision=<commit sha or tag> "
                           "so the run is reproducible")
    if _truthy("HF_HUB_OFFLINE") or _truthy("HF_DATASETS_OFFLINE"):
        raise EqEvalsError(
            f"-T source={dataset_id}: the Hugging Face Hub is offline (HF_HUB_OFFLINE/HF_DATASETS_OFFLINE is set). "
            "Download the dataset where there is network (e.g. `huggingface-cli download --repo-type dataset "
            f"{dataset_id} --revision {revision} --local-dir DIR`) and point at the local copy with "
            "-T source=DIR (a folder of .jsonl files) or -T source=DIR/<file>.jsonl.")
    try:
        import datasets
    except ImportError:
        raise EqEvalsError("-T source=<hub id> needs the 'datasets' package (pip install datasets)") from None
    try:
        rows = datasets.load_dataset(dataset_id, revision=revision, split=split)
    except Exception as ex:  # noqa: BLE001 - network, auth, missing split: report with the fix
        raise EqEvalsError(f"-T source={dataset_id} (revision {revision}, split {split}) could not be loaded: "
                           f"{type(ex).__name__}: {ex}. To use a local copy pass -T source=PATH.") from None
    where = f"hf://{dataset_id}@{revision}/{split}"
    return [normalise(dict(rec), where, i, topics) for i, rec in enumerate(rows)]


def load_scenarios(source: str | None = None, revision: str | None = None, split: str = "train",
                   topics: str | None = None) -> list[dict[str, Any]]:
    """All scenarios of the bundled set, of a local file/folder, or of a Hub dataset (sorted by id)."""
    topic_map: dict[str, dict[str, str]] | None = None
    if topics:
        topic_path = Path(topics).expanduser()
        if not topic_path.is_file():
            raise EqEvalsError(f"-T topics={topics}: no such file")
        topic_map = read_topics(topic_path)
    if not source:
        scenarios = [s for rel in BUNDLED for s in load_local(resource("datasets", rel), topic_map)]
    else:
        path = Path(source).expanduser()
        if path.exists():
            if topic_map is None and (found := _find_topics(path)) is not None:
                topic_map = read_topics(found)
            scenarios = load_local(path, topic_map)
        elif HUB_ID.match(source) and not source.startswith((".", "~")):
            scenarios = load_hub(source, revision, split, topic_map)
        else:
            raise EqEvalsError(f"-T source={source}: no such file or folder (nor a Hub dataset id owner/name)")
    seen: dict[str, int] = {}
    for s in scenarios:
        seen[s["id"]] = seen.get(s["id"], 0) + 1
    dupes = sorted(k for k, v in seen.items() if v > 1)
    if dupes:
        raise EqEvalsError(f"duplicate scenario ids in {source or 'the bundled set'}: {dupes[:5]}")
    return sorted(scenarios, key=lambda s: s["id"])


def sage_samples(source: str | None = None, revision: str | None = None, split: str = "train",
                 topics: str | None = None, language: str = "zh", hidden_task_type: str = "all",
                 personality: str = "all") -> list[Sample]:
    scenarios = load_scenarios(source, revision, split, topics)
    picked = [s for s in scenarios
              if language in ("all", s["language"])
              and hidden_task_type in ("all", s["hidden_task_type"])
              and personality in ("all", s["personality"])]
    if not picked:
        langs = sorted({s["language"] for s in scenarios})
        raise EqEvalsError(f"no SAGE scenarios left after filtering (language={language}, hidden_task_type="
                           f"{hidden_task_type}, personality={personality}); the source has languages {langs}")
    return [to_sample(s) for s in picked]
