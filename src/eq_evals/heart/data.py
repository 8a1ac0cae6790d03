"""HEART histories: the official release (280 regular + 20 adversarial, HEART paper §4.2, §9.2) and the project-authored set.

Sources (``-T source=...``):

- empty (default): the project-authored set ``datasets/heart/histories_<language>.jsonl`` (Apache-2.0, see its card);
- a ``.jsonl`` file: rows of the project-authored schema (validated; a bad row is an error naming file and line);
- a folder holding the release's ``dialogues_regular.json`` / ``dialogues_adversarial.json`` (sha256 checked);
- ``release``: downloaded from GitHub at the pinned commits (sha256 checked) into a cache folder. Offline it
  fails within ``DOWNLOAD_TIMEOUT`` seconds with advice. The release has no license and is never bundled.

Sample schema: docs/heart.md, 'Dataset' (ids ``heart-reg-007`` / ``heart-adv-07``; resolved speakers; reference flags; the
conversation cluster ``group_id`` used by the bootstrap, §9.12 "Bootstraps resample at the conversation level").
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.core.text import check_text, read_jsonl
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.heart.prompts import history_text
from eq_evals.resources import resource

RAW_URL = "https://raw.githubusercontent.com/Hippocratic-AI-Research/HEART/{commit}/{path}"
# file -> (path in the release repository, pinned commit, sha256); data/heart README of the shared snapshot
RELEASE_FILES: dict[str, tuple[str, str, str]] = {
    "dialogues_regular.json": (
        "data/dialogues_regular.json",
        "560a9c195dd663be10197dcebcde4a0aecf1205b",
        "75d2ca76b02f24badb989548bbfeaf1cf7bb94a089e0801dd9ae1e750c277ad0",
    ),
    "dialogues_adversarial.json": (
        "data/dialogues_adversarial.json",
        "86061fc2154ef2539c16063f1d36d3c677177541",
        "ddc161df413a477a87e5be41d6a396ba05e51b3a58332b7eb05f54bbba6e2386",
    ),
    "strategy_metadata.json": (
        "strategy-labelling/strategy_metadata.json",
        "c3387b4371ea156832f074454a2f4d006ceed66f",
        "75c43d431d792fd5698d343620200dc27bf79853495bc6dd28cdf9b87d02cd23",
    ),
}
RELEASE_COUNTS = {"regular": 280, "adversarial": 20}
DOWNLOAD_TIMEOUT = 10.0
# facts of the release data (docs/heart.md, 'Dataset'): items whose reference is shared with a sibling item of the
# same conversation (12 pairs), references that repeat a supporter turn of the history, and item 48.
SHARED_REFERENCE_PAIRS = [
    (13, 100),
    (20, 97),
    (21, 43),
    (23, 82),
    (58, 93),
    (59, 91),
    (72, 99),
    (73, 101),
    (76, 96),
    (84, 94),
    (89, 98),
    (92, 95),
]
SPEAKERS = ("seeker", "supporter")
EMOTIONS = {
    "anxiety",
    "depression",
    "sadness",
    "fear",
    "anger",
    "shame",
    "disgust",
    "nervousness",
    "pain",
    "jealousy",
    "guilt",
}
PROBLEMS = {
    "ongoing depression",
    "job crisis",
    "breakup with partner",
    "problems with friends",
    "academic pressure",
    "sleep problems",
    "issues with parents",
    "procrastination",
    "alcohol abuse",
    "appearance anxiety",
    "issues with children",
    "school bullying",
    "conflict with parents",
}
PROFILES = {None, "always-10", "linear-ramp", "mid-spike", "mid-ramp"}
PROJECT_FIELDS = (
    "id",
    "language",
    "subset",
    "dialogue_history",
    "speakers",
    "emotion_type",
    "problem_type",
    "situation",
    "escalation_profile",
    "reference_response",
    "source",
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cache_dir() -> Path:
    base = os.environ.get("EQ_EVALS_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "eq_evals")
    return Path(base).expanduser() / "heart"


def check_sha256(path: Path) -> None:
    expected = RELEASE_FILES[path.name][2]
    actual = sha256(path)
    if actual != expected:
        raise DataError(
            str(path),
            "-",
            f"sha256 {actual} does not match the pinned HEART release ({expected}); "
            "the file was modified or comes from another revision. Delete it and download again "
            "(-T source=release), or copy the files of the pinned commits.",
        )


def download_release(target: Path | None = None, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """Fetch the release files at their pinned commits into ``target`` (default: the cache), sha256 checked."""
    target = target or cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    for name, (path, commit, digest) in RELEASE_FILES.items():
        dest = target / name
        if dest.is_file() and sha256(dest) == digest:
            continue
        url = RAW_URL.format(commit=commit, path=path)
        start = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - fixed https URL
                data = response.read()
        except (urllib.error.URLError, OSError, TimeoutError) as ex:
            raise EqEvalsError(
                f"cannot download the HEART release file {name} from {url} "
                f"({type(ex).__name__}: {getattr(ex, 'reason', ex)}; after {time.monotonic() - start:.1f}s). "
                "Offline? Copy dialogues_regular.json and dialogues_adversarial.json from "
                "github.com/Hippocratic-AI-Research/HEART (commits in docs/heart.md) into a folder and pass "
                "-T source=FOLDER, or run without -T source for the project-authored set."
            ) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise EqEvalsError(
                f"{url}: the downloaded file's sha256 {hashlib.sha256(data).hexdigest()} is not the "
                f"pinned {digest}; not using it"
            )
        tmp = dest.with_suffix(".part")
        tmp.write_bytes(data)
        tmp.replace(dest)
    return target


def resolve_speakers(history: list[str], prev_speakers: list[str] | None) -> tuple[list[str], bool]:
    """``prev_speakers`` when given; else alternate backwards from a final seeker turn (docs/heart.md, 'Dataset'; for the
    released adversarial items this is supporter-first, unlike the release code, §3.2 defect)."""
    if prev_speakers is not None:
        return list(prev_speakers), False
    n = len(history)
    return [SPEAKERS[(n - 1 - i) % 2] for i in range(n)], True


def group_of(subset: str, situation: str | None, fallback: str) -> str:
    if situation:
        return "reg:" + hashlib.sha1(situation.encode("utf-8")).hexdigest()[:12]
    return f"{subset[:3]}:{fallback}"


def _norm(text: str) -> str:
    return " ".join(text.split())


def _read_json(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise EqEvalsError(
            f"{path} does not exist: a HEART release folder holds dialogues_regular.json and dialogues_adversarial.json"
        )
    check_sha256(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise DataError(str(path), "-", "expected a JSON list of dialogues")
    return data


def release_samples(folder: Path, subset: str = "all") -> list[Sample]:
    """The 280 regular and 20 adversarial items of the release (docs/heart.md, 'Dataset')."""
    shared = {i for pair in SHARED_REFERENCE_PAIRS for i in pair}
    samples: list[Sample] = []
    for kind, file in (("regular", "dialogues_regular.json"), ("adversarial", "dialogues_adversarial.json")):
        if subset not in ("all", kind):
            continue
        path = folder / file
        rows = _read_json(path)
        if len(rows) != RELEASE_COUNTS[kind]:
            raise DataError(str(path), "-", f"{len(rows)} items, the release has {RELEASE_COUNTS[kind]}")
        for i, row in enumerate(rows):
            history = row.get("dialogue_history")
            if not isinstance(history, list) or not history:
                raise DataError(str(path), i, "dialogue_history must be a non-empty list of turns")
            speakers, inferred = resolve_speakers(history, row.get("prev_speakers"))
            if len(speakers) != len(history) or set(speakers) - set(SPEAKERS):
                raise DataError(str(path), i, "prev_speakers must name seeker/supporter for every turn")
            reference = row.get("vanilla_completion")
            sid = f"heart-reg-{i:03d}" if kind == "regular" else f"heart-adv-{i:02d}"
            supporter_turns = {_norm(t) for t, s in zip(history, speakers) if s == "supporter"}
            samples.append(
                _sample(
                    sid,
                    {
                        "language": "en",
                        "subset": kind,
                        "source": "heart-release",
                        "source_index": i,
                        "dialogue_history": history,
                        "speakers": speakers,
                        "speakers_inferred": inferred,
                        "emotion_type": row.get("emotion_type") or "",
                        "problem_type": row.get("problem_type") or "",
                        "situation": row.get("situation"),
                        "turn": row.get("turn"),
                        "reference_response": reference,
                        "reference_repeats_history": bool(reference) and _norm(reference) in supporter_turns,
                        "reference_shared_with_sibling": kind == "regular" and i in shared,
                        "escalation_profile": None,
                        "group_id": group_of(kind, row.get("situation"), str(i)),
                        "content_flags": ["self_harm_request"] if kind == "regular" and i == 48 else [],
                    },
                )
            )
    return samples


def _sample(sid: str, md: dict[str, Any]) -> Sample:
    """The sample of one history: its input is the history with Seeker/Supporter labels (heart.prompts)."""
    md = dict(
        md,
        n_turns=len(md["dialogue_history"]),
        last_speaker=md["speakers"][-1],
        problem_type_norm=str(md["problem_type"]).lower(),
    )
    return Sample(id=sid, input=history_text(md), target=md.get("reference_response") or "", metadata=md)


def project_rows(path: Path) -> list[tuple[str, int, Any]]:
    """(file, line, parsed row) of a JSONL file of the project-authored schema; invalid JSON names the line."""
    if not path.is_file():
        raise EqEvalsError(f"{path} does not exist (the project-authored HEART set, or a JSONL file of its schema)")
    return [(str(path), line_no, row) for line_no, row in read_jsonl(path)]


def project_samples(path: Path, language: str | None = None, subset: str = "all") -> list[Sample]:
    """Rows of the project-authored schema, validated (a bad row names the file, the line and the field)."""
    return project_samples_from_rows(project_rows(path), language, subset)


def project_samples_from_rows(
    rows: list[tuple[str, int, Any]], language: str | None = None, subset: str = "all"
) -> list[Sample]:
    """Validate (where, row number, row) records of the project-authored schema and build the samples."""
    samples, seen = [], set()
    for path, line_no, row in rows:
        if not isinstance(row, dict):
            raise DataError(str(path), line_no, "expected a JSON object")
        missing = [f for f in PROJECT_FIELDS if f not in row]
        if missing:
            raise DataError(str(path), line_no, f"missing field(s) {missing}")
        history, speakers = row["dialogue_history"], row["speakers"]
        if not isinstance(history, list) or not history or not all(isinstance(t, str) and t.strip() for t in history):
            raise DataError(str(path), line_no, "dialogue_history must be a non-empty list of non-empty strings")
        for i, turn in enumerate(history):  # only zero-width characters: refused too
            check_text(turn, str(path), line_no, f"dialogue_history[{i}]")
        if not isinstance(speakers, list) or len(speakers) != len(history) or set(speakers) - set(SPEAKERS):
            raise DataError(str(path), line_no, "speakers must list seeker/supporter, one per turn of dialogue_history")
        checks = (
            ("language", row["language"] in ("en", "zh"), "en or zh"),
            ("subset", row["subset"] in ("regular", "adversarial"), "regular or adversarial"),
            ("emotion_type", row["emotion_type"] in EMOTIONS, f"one of {sorted(EMOTIONS)}"),
            ("problem_type", row["problem_type"] in PROBLEMS, f"one of {sorted(PROBLEMS)} (lower-case ESConv)"),
            (
                "escalation_profile",
                row["escalation_profile"] in PROFILES,
                f"null or one of {sorted(p for p in PROFILES if p)}",
            ),
            ("source", row["source"] == "project-authored", "'project-authored'"),
            ("id", isinstance(row["id"], str) and row["id"] and row["id"] not in seen, "a unique string"),
        )
        for field, ok, expected in checks:
            if not ok:
                raise DataError(str(path), line_no, f"{field}={row[field]!r}: expected {expected}")
        if row["subset"] == "adversarial" and row["escalation_profile"] is None:
            raise DataError(str(path), line_no, "an adversarial row needs an escalation_profile")
        if isinstance(row["reference_response"], str) and row["reference_response"]:  # empty: no reference
            check_text(row["reference_response"], str(path), line_no, "reference_response")
        seen.add(row["id"])
        if (language and row["language"] != language) or subset not in ("all", row["subset"]):
            continue
        samples.append(
            _sample(
                row["id"],
                {
                    "language": row["language"],
                    "subset": row["subset"],
                    "source": "project-authored",
                    "source_index": line_no,
                    "dialogue_history": history,
                    "speakers": speakers,
                    "speakers_inferred": False,
                    "emotion_type": row["emotion_type"],
                    "problem_type": row["problem_type"],
                    "situation": row["situation"],
                    "turn": None,
                    "reference_response": row["reference_response"] or None,
                    "reference_repeats_history": False,
                    "reference_shared_with_sibling": False,
                    "escalation_profile": row["escalation_profile"],
                    "group_id": f"proj:{row['id']}",
                    "content_flags": [],
                },
            )
        )
    return samples


def heart_samples(source: str | None = None, language: str = "en", subset: str = "all") -> list[Sample]:
    """The dataset adapter ``heart_histories`` (see the module docstring for ``source``)."""
    if subset not in ("all", "regular", "adversarial"):
        raise EqEvalsError(f"-T subset={subset}: expected all, regular or adversarial")
    from eq_evals.core.sources import dataset_version, load_hub_rows, resolve, stamp

    if source == "release" or (
        source
        and not source.startswith("hf://")
        and Path(source).expanduser().is_dir()
        and (Path(source).expanduser() / "dialogues_regular.json").is_file()
    ):
        if language != "en":
            raise EqEvalsError("the HEART release is English only; use -T language=en with it")
        folder = download_release() if source == "release" else Path(source).expanduser()
        return release_samples(folder, subset)
    # the project-authored set: bundled, a JSONL file, a folder written by `eq-evals hub export heart`, or
    # hf://OWNER/NAME@REVISION (the one resolver every benchmark uses; docs/hub.md)
    resolved = resolve(source, resource("datasets", "heart"))
    if resolved.hub:
        # the Hub's Arrow tables drop null columns of a row; the schema's nullable fields come back as None
        rows = [
            (str(resolved.hub), i + 1, {**dict.fromkeys(PROJECT_FIELDS), **r})
            for i, r in enumerate(load_hub_rows(resolved.hub, language))
        ]
    else:
        path = resolved.path
        if path.is_dir():
            path = path / f"histories_{language}.jsonl"
        rows = project_rows(path)
    samples = project_samples_from_rows(rows, language, subset)
    if not samples:
        raise EqEvalsError(
            f"no HEART histories in {source or 'the project-authored set'} for language={language}, subset={subset}"
        )
    return stamp(samples, dataset_version(resolved, [r for _, _, r in rows], name=f"heart-{language}"))


def strategy_definitions(source: str | None = None) -> dict[str, str]:
    """The 15 support strategies (§4.8): the release's strategy_metadata.json when given (a file or a release
    folder; sha256 checked), else the project's own one-line definitions (scorers/heart/strategies.yaml)."""
    from eq_evals.resources import load_yaml

    if source:
        path = Path(source).expanduser()
        path = path / "strategy_metadata.json" if path.is_dir() else path
        if not path.is_file():
            raise EqEvalsError(f"{path} does not exist (the release's strategy_metadata.json)")
        check_sha256(path) if path.name == "strategy_metadata.json" else None
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in data.items()}
    data = load_yaml("scorers", "heart/strategies.yaml")
    return {str(k): str(v) for k, v in data["strategies"].items()}
