"""LongEmotion data: the official release (Hugging Face Hub ``LongEmotion/LongEmotion`` or a local copy)
as Inspect samples, with the real field names of each task (docs/longemotion.md, 'Dataset').

Where the files come from, in order:
1. ``data_dir`` (``-T data_dir=PATH``) or the ``LONGEMOTION_DATA_DIR`` environment variable: a folder in the
   Hub layout (``Emotion QA/Emotion_QA.jsonl``, e.g. a ``snapshot_download``) or the flat layout of the
   GitHub ``data/`` folder (``Emotion_QA.jsonl``);
2. ``fixtures=true``: the small project-written fixtures under ``datasets/longemotion/fixtures``;
3. the Hub at ``revision``, via ``hf_hub_download`` (cached by huggingface_hub; the cache is tried first,
   then one quick request decides whether the Hub is reachable). With no network and no cached copy this
   fails at once with a message saying how to point the task at a local copy. Each Hub file must have the
   md5 recorded for the release (``HUB_MD5``) unless ``verify_checksums`` is false.

A malformed record raises DataError naming the file, the row and the field.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.core.sources import hub_unreachable
from eq_evals.core.text import check_text, read_jsonl
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.resources import resource

logger = logging.getLogger(__name__)

HF_REPO = "LongEmotion/LongEmotion"
# The Hub repository could not be reached when this was written, so no commit sha is known; the md5s
# below (docs/longemotion.md, 'Dataset', release pinning; from the authors' comparison report) pin the file contents instead: a download whose
# md5 differs is an error unless -T verify_checksums=false. Pass -T revision=<sha> to pin a commit.
HF_REVISION = "main"
ENV_DATA_DIR = "LONGEMOTION_DATA_DIR"

# key -> (Hub path, flat-layout file names in order of preference)
FILES: dict[str, tuple[str | None, list[str]]] = {
    "classification_emobench": (
        "Emotion Classification/Emotion_Classification_Emobench.jsonl",
        ["Emotion_Classification_Emobench.jsonl"],
    ),
    "classification_finentity": (
        "Emotion Classification/Emotion_Classification_Finentity.jsonl",
        ["Emotion_Classification_Finentity.jsonl"],
    ),
    # the Hub file is the original (2025-08) version; the GitHub copy keeps it as *_backup.jsonl
    "detection_original": ("Emotion Detection/Emotion_Detection.jsonl", ["Emotion_Detection_backup.jsonl"]),
    "detection_cleaned": (None, ["Emotion_Detection.jsonl"]),
    "qa": ("Emotion QA/Emotion_QA.jsonl", ["Emotion_QA.jsonl"]),
    "conversation": ("Emotion Conversation/Emotion_Conversations.jsonl", ["Emotion_Conversations.jsonl"]),
    "summary_processed": ("Emotion Summary/Emotion_Summary.jsonl", ["Emotion_Summary.jsonl"]),
    "summary_origin": ("Emotion Summary/Emotion_Summary_origin.jsonl", ["Emotion_Summary_origin.jsonl"]),
    "expression_situations": (
        "Emotion Expression/Emotion_Expression_Situations.json",
        ["Emotion_Expression_Situations.json"],
    ),
    "expression_questionnaires": (
        "Emotion Expression/Emotion_Expression_Questionnaires.json",
        ["Emotion_Expression_Questionnaires.json"],
    ),
}
HUB_MD5 = {
    "Emotion_Classification_Emobench.jsonl": "f4a57874680c07ce32a15202b4d6ec51",
    "Emotion_Classification_Finentity.jsonl": "4679bb7ab038f9cf30d6c3fd8c235038",
    "Emotion_Detection.jsonl": "bccf0d03b986f9303867c776ace309c2",
    "Emotion_QA.jsonl": "e7862cad3fd5f279526e7de60a6e85e5",
    "Emotion_Conversations.jsonl": "b0abb87fcf6fad1c3ca5489e7c84bc45",
    "Emotion_Summary.jsonl": "58ee9da4ba955932b3142778cdb9b5d5",
    "Emotion_Summary_origin.jsonl": "b5ecd2580f95569e6729f3069958e516",
    "Emotion_Expression_Situations.json": "4f7f12185eff62c7ea54af2746c3df7f",
    "Emotion_Expression_Questionnaires.json": "5afb98e8db76dbb9ac3c09acf1fa8e37",
}
# Records per JSON Lines file of the release (LongEmotion paper Table 1 item counts; the flat GitHub layout's cleaned
# Emotion_Detection.jsonl has the same 136). A local copy with another count was cut or is another version.
RELEASE_RECORDS = {
    "Emotion_Classification_Emobench.jsonl": 200,
    "Emotion_Classification_Finentity.jsonl": 200,
    "Emotion_Detection.jsonl": 136,
    "Emotion_Detection_backup.jsonl": 136,
    "Emotion_QA.jsonl": 120,
    "Emotion_Conversations.jsonl": 100,
    "Emotion_Summary.jsonl": 150,
    "Emotion_Summary_origin.jsonl": 150,
}
FIXTURES = "longemotion/fixtures"
STAGE_NAMES = [
    "Reception and Inquiry Stage",
    "Diagnostic Stage",
    "Consultation Stage",
    "Consolidation and Ending Stage",
]
CHECKPOINTS = [("quarter", 1), ("half", 2), ("three_quarters", 3)]
PANAS_WORDS = [
    "Interested",
    "Distressed",
    "Excited",
    "Upset",
    "Strong",
    "Guilty",
    "Scared",
    "Hostile",
    "Enthusiastic",
    "Proud",
    "Irritable",
    "Alert",
    "Ashamed",
    "Inspired",
    "Nervous",
    "Determined",
    "Attentive",
    "Jittery",
    "Active",
    "Afraid",
]


FIXTURES_HINT = "-T fixtures=true runs the small project-written fixtures instead (a smoke test, not the benchmark)."


def _hint(source: str | None = None, repo: str = HF_REPO, revision: str = HF_REVISION) -> str:
    """What to do instead, in the terms of the parameter the user passed: ``-T source=`` when there is one (it
    replaces data_dir and revision, docs/longemotion.md), else ``-T data_dir``."""
    layout = "a folder holding the Hub layout or the flat data/ folder of the GitHub release"
    if source and source.startswith("hf://"):
        return (
            f"Download it where there is network: `hf download {repo} --repo-type dataset --revision {revision} "
            f"--local-dir DIR`, then run with -T source=DIR ({layout}). {FIXTURES_HINT}"
        )
    if source:
        return (
            f"-T source= takes {layout} (e.g. from `hf download {HF_REPO} --repo-type dataset --local-dir "
            f"DIR`), or a pinned Hub copy hf://OWNER/NAME@REVISION. {FIXTURES_HINT}"
        )
    return (
        "Point the task at a local copy with -T data_dir=PATH (or the LONGEMOTION_DATA_DIR environment "
        f"variable): {layout}, e.g. from `hf download {HF_REPO} --repo-type dataset --local-dir PATH`. "
        f"{FIXTURES_HINT}"
    )


def locate(
    key: str,
    data_dir: str | None = None,
    fixtures: bool = False,
    revision: str = HF_REVISION,
    verify_checksums: bool = True,
    info: dict[str, Any] | None = None,
    repo: str = HF_REPO,
    source: str | None = None,
) -> Path:
    """The file for ``key`` (see FILES), from data_dir, the bundled fixtures, or the Hub. A Hub file whose md5
    differs from the one recorded for the release (HUB_MD5) is an error unless ``verify_checksums`` is false.
    ``info``, when given, receives where the file came from and its md5 (recorded in the samples). ``source``:
    the ``-T source=`` the user passed (resolved by the caller into ``data_dir`` or ``repo`` and ``revision``);
    errors then name it, and the LONGEMOTION_DATA_DIR environment variable does not replace it."""
    hub_path, flat = FILES[key]
    if not source:
        data_dir = data_dir or os.environ.get(ENV_DATA_DIR) or None
    hint = _hint(source, repo, revision)
    if data_dir or fixtures:
        root = Path(data_dir).expanduser() if data_dir else resource("datasets", FIXTURES)
        where = f"-T source={source}" if source else f"-T data_dir={data_dir}" if data_dir else "the bundled fixtures"
        if not root.is_dir():
            raise EqEvalsError(f"LongEmotion: {where}: no such folder. {hint}")
        tried = ([root / hub_path] if hub_path else []) + [root / name for name in flat]
        for path in tried:
            if path.is_file():
                if info is not None:
                    info.update(
                        file=path.name,
                        origin="data_dir" if data_dir else "fixtures",
                        md5=hashlib.md5(path.read_bytes()).hexdigest(),
                        md5_verified=False,
                    )
                if data_dir:
                    check_record_count(path, info)
                return path
        raise EqEvalsError(
            f"LongEmotion: {where} has no {key} file; looked for "
            + ", ".join(repr(str(p.relative_to(root))) for p in tried)
            + f". {hint}"
        )
    if hub_path is None:
        raise EqEvalsError(f"LongEmotion: the {key} file exists only in the GitHub release, not on the Hub. {hint}")
    path = _hub_download(hub_path, revision, repo, hint)
    expected, actual = HUB_MD5.get(path.name), hashlib.md5(path.read_bytes()).hexdigest()
    if expected and actual != expected and verify_checksums:
        # the release is pinned by content, not by commit (no sha was known offline): a changed file is an error
        raise EqEvalsError(
            f"LongEmotion: {hub_path!r} from {repo}@{revision} has md5 {actual}, but the release this benchmark "
            f"was checked against has md5 {expected} (docs/longemotion.md, 'Dataset'): the file has changed and results would not be "
            "comparable. To evaluate this release knowingly, pass -T verify_checksums=false and pin it with "
            + (f"-T source=hf://{repo}@<commit sha>." if source else "-T revision=<commit sha>.")
        )
    if info is not None:
        info.update(
            file=path.name,
            origin="hub",
            repo=repo,
            revision=revision,
            md5=actual,
            expected_md5=expected,
            md5_verified=bool(expected) and actual == expected,
        )
    return path


def check_record_count(path: Path, info: dict[str, Any] | None = None) -> int | None:
    """Warn, naming the file, when a local JSON Lines copy holds another number of records than the release
    (e.g. a download cut at a line boundary still parses, on fewer records). Returns the count found."""
    expected = RELEASE_RECORDS.get(path.name)
    if expected is None or path.suffix != ".jsonl":
        return None
    found = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    if info is not None:
        info.update(records=found, release_records=expected)
    if found != expected:
        logger.warning(
            "LongEmotion: %s has %d records, but the release has %d (LongEmotion paper Table 1): the file is cut or "
            "another version, and results on it are not comparable with the paper's",
            path,
            found,
            expected,
        )
    return found


def _hub_download(hub_path: str, revision: str, repo: str = HF_REPO, hint: str | None = None) -> Path:
    """The Hub file: the local huggingface_hub cache first, then (if one quick request reaches the Hub) a
    download. Without network this fails at once instead of after huggingface_hub's retries with backoff."""
    from huggingface_hub import constants, hf_hub_download

    def fail(why: str) -> EqEvalsError:
        return EqEvalsError(
            f"LongEmotion: cannot get {hub_path!r} from the Hugging Face Hub ({repo}@{revision}): "
            f"{why}. {hint or _hint()}"
        )

    try:
        return Path(hf_hub_download(repo, hub_path, repo_type="dataset", revision=revision, local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached: try the network below
        pass
    if constants.HF_HUB_OFFLINE:
        raise fail("not in the local cache and HF_HUB_OFFLINE is set")
    problem = hub_unreachable(constants.ENDPOINT)
    if problem:
        raise fail(f"not in the local cache and {constants.ENDPOINT} cannot be reached ({problem})")
    try:
        return Path(hf_hub_download(repo, hub_path, repo_type="dataset", revision=revision, etag_timeout=5))
    except Exception as ex:  # noqa: BLE001 - missing, gated, network: all end in the same advice
        raise fail(f"{type(ex).__name__}: {str(ex).splitlines()[0] if str(ex) else ''}") from None


def read_records(path: Path) -> list[Any]:
    """A JSON Lines file as a list of records, or a JSON file as its value; DataError on a bad line."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [row for _, row in read_jsonl(path, str(path), text=text)]
    try:
        return json.loads(text)
    except json.JSONDecodeError as ex:
        raise DataError(str(path), f"line {ex.lineno}", f"invalid JSON: {ex.msg}") from None


def _need(record: Any, path: Path, row: Any, field: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(record, dict):
        raise DataError(str(path), row, "expected a JSON object")
    if field not in record:
        raise DataError(str(path), row, f"missing field {field!r}")
    value = record[field]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DataError(
            str(path), row, f"field {field!r} should be {getattr(kind, '__name__', kind)}, got {type(value).__name__}"
        )
    return value


def _text(value: Any) -> str:
    """List-valued report fields are joined with a space (docs/longemotion.md, 'Dataset')."""
    return " ".join(str(v) for v in value) if isinstance(value, list) else str(value)


# --- EC (LongEmotion paper §3.1) --------------------------------------------------------------------------------


def classification_samples(path: Path, subset: str, skip_invalid: bool = False) -> list[Sample]:
    """EC samples; with ``skip_invalid`` a bad record (e.g. a label that is not among its choices) is
    skipped with a warning listing every skipped row, instead of stopping the task."""
    samples, skipped = [], []
    for row, r in enumerate(read_records(path), start=1):
        try:
            samples.append(_classification_sample(path, subset, row, r))
        except DataError as ex:
            if not skip_invalid:
                raise
            skipped.append(str(ex))
    if skipped:
        logger.warning(
            "LongEmotion: -T skip_invalid=true skipped %d of %d EC records:\n%s",
            len(skipped),
            len(skipped) + len(samples),
            "\n".join(skipped),
        )
    return samples


def _classification_sample(path: Path, subset: str, row: int, r: Any) -> Sample:
    where = f"line {row}"
    # current release: content/subject; the 2025-08 files: context/Subject
    content_field = "content" if isinstance(r, dict) and "content" in r else "context"
    subject_field = "subject" if isinstance(r, dict) and "subject" in r else "Subject"
    content = check_text(_need(r, path, where, content_field, str), str(path), where, content_field)
    subject = check_text(_need(r, path, where, subject_field, str), str(path), where, subject_field)
    label = _need(r, path, where, "label", str)
    choices = _need(r, path, where, "choices", list)
    if not all(isinstance(c, str) for c in choices) or len(choices) < 2:
        raise DataError(str(path), where, "field 'choices' should be a list of at least two strings")
    if label not in choices:
        raise DataError(
            str(path),
            where,
            f"label {label!r} is not one of the choices {choices} "
            "(-T skip_invalid=true skips such records with a warning)",
        )
    rid = r.get("id", row - 1)
    return Sample(
        id=f"ec-{subset}-{rid}",
        input=f"What emotion(s) would {subject} ultimately feel in this situation?",
        target=label,
        metadata={
            "task": "classification",
            "subset": subset,
            "record_id": rid,
            "subject": subject,
            "content": content,
            "choices": choices,
            "source": r.get("source"),
            "length": r.get("length", r.get("token_length")),
        },
    )


# --- ED (LongEmotion paper §3.2) --------------------------------------------------------------------------------


def detection_samples(path: Path, variant: str) -> list[Sample]:
    samples = []
    for row, r in enumerate(read_records(path), start=1):
        where = f"line {row}"
        text = _need(r, path, where, "text", list)
        labels = _need(r, path, where, "label", list)
        truth = _need(r, path, where, "ground_truth", int)
        segments = []
        for i, seg in enumerate(text):
            if not isinstance(seg, dict) or not isinstance(seg.get("context"), str):
                raise DataError(str(path), where, f"text[{i}] should be an object with a string 'context'")
            segments.append(check_text(seg["context"], str(path), where, f"text[{i}].context"))
        if len(labels) != len(segments):
            raise DataError(str(path), where, f"'label' has {len(labels)} entries for {len(segments)} texts")
        if not 0 <= truth < len(segments):
            raise DataError(str(path), where, f"ground_truth {truth} is outside 0..{len(segments) - 1}")
        samples.append(
            Sample(
                id=f"ed-{row - 1:03d}",
                input="Which text expresses the unique emotion?",
                target=str(truth),
                metadata={
                    "task": "detection",
                    "variant": variant,
                    "segments": segments,
                    "labels": labels,
                    "length": r.get("length"),
                },
            )
        )
    return samples


# --- QA (LongEmotion paper §3.4) --------------------------------------------------------------------------------


def qa_samples(path: Path) -> list[Sample]:
    samples, seen = [], set()
    for row, r in enumerate(read_records(path), start=1):
        where = f"line {row}"
        question = check_text(_need(r, path, where, "problem", str), str(path), where, "problem")
        answer = _need(r, path, where, "answer", str)
        context = check_text(_need(r, path, where, "context", str), str(path), where, "context")
        number = str(r.get("number") or f"qa-{row - 1:03d}")
        sid = number if number not in seen else f"{number}#{row - 1}"
        seen.add(sid)
        samples.append(
            Sample(
                id=sid,
                input=question,
                target=answer,
                metadata={"task": "qa", "question": question, "context": context, "source": r.get("source")},
            )
        )
    return samples


# --- MC (LongEmotion paper §3.3) --------------------------------------------------------------------------------


def checkpoint_positions(n: int) -> list[tuple[str, int, int]]:
    """(name, k, index into the stage's client turns) for the quarter, half and three-quarter points."""
    return [(name, k, (n * k) // 4) for name, k in CHECKPOINTS]


def parse_stages(spec: str) -> list[int]:
    if str(spec).strip().lower() == "all":
        return [1, 2, 3, 4]
    try:
        stages = sorted({int(s) for s in str(spec).split(",") if s.strip()})
    except ValueError:
        raise EqEvalsError(f"-T stages={spec!r}: expected 'all' or stage numbers such as '4' or '1,2'") from None
    if not stages or any(s not in (1, 2, 3, 4) for s in stages):
        raise EqEvalsError(f"-T stages={spec!r}: stages are 1-4")
    return stages


def conversation_samples(path: Path, stages: str = "4") -> list[Sample]:
    wanted = parse_stages(stages)
    samples = []
    for row, r in enumerate(read_records(path), start=1):
        where = f"line {row}"
        dialogue_id = r.get("id", row - 1) if isinstance(r, dict) else row - 1
        stage_list = _need(r, path, where, "stages", list)
        if len(stage_list) != 4:
            raise DataError(str(path), where, f"expected 4 stages, found {len(stage_list)}")
        earlier: list[dict[str, str]] = []
        for s, stage in enumerate(stage_list, start=1):
            turns = _need(stage, path, f"{where}, stages[{s - 1}]", "conversations", list)
            for t, turn in enumerate(turns):
                if (
                    not isinstance(turn, dict)
                    or turn.get("role") not in ("Client", "Counselor")
                    or not isinstance(turn.get("context"), str)
                ):
                    raise DataError(
                        str(path),
                        f"{where}, stages[{s - 1}].conversations[{t}]",
                        "each turn needs role 'Client' or 'Counselor' and a string 'context'",
                    )
            client_idx = [i for i, turn in enumerate(turns) if turn["role"] == "Client"]
            if s in wanted and client_idx:
                for point, k, p in checkpoint_positions(len(client_idx)):
                    # the client turn the counselor replies to at this checkpoint must have something to read
                    check_text(
                        turns[client_idx[p]]["context"],
                        str(path),
                        where,
                        f"stages[{s - 1}].conversations[{client_idx[p]}].context",
                    )
                    history = earlier + [
                        {"role": t["role"], "context": t["context"]} for t in turns[: client_idx[p] + 1]
                    ]
                    samples.append(
                        Sample(
                            id=f"mc-{dialogue_id}-s{s}-{point}",
                            input=f"Counselling dialogue {dialogue_id}, stage {s} ({stage.get('stage', STAGE_NAMES[s - 1])}), "
                            f"{point.replace('_', '-')} checkpoint: reply as the counselor.",
                            metadata={
                                "task": "conversation",
                                "dialogue_id": dialogue_id,
                                "stage": s,
                                "stage_name": stage.get("stage", STAGE_NAMES[s - 1]),
                                "point": point,
                                "checkpoint": f"{s}-{k}",
                                "history": history,
                                "description": _text(r["description"]) if r.get("description") else None,
                            },
                        )
                    )
            earlier = earlier + [{"role": t["role"], "context": t["context"]} for t in turns]
        if not earlier:
            raise DataError(str(path), where, "the dialogue has no turns")
    return samples


def render_dialogue(messages: list[dict[str, str]]) -> str:
    return "".join(f"{m['role']}: {m['context']}\n" for m in messages)


# --- ES (LongEmotion paper §3.5) --------------------------------------------------------------------------------

REPORT_FIELDS = ["case_description", "consultation_process", "experience_and_reflection"]


def summary_samples(path: Path, variant: str) -> list[Sample]:
    from eq_evals.longemotion.parsing import SUMMARY_FIELDS, summary_text

    samples = []
    for row, r in enumerate(read_records(path), start=1):
        where = f"line {row}"
        report = {
            f: check_text(_text(_need(r, path, where, f, (str, list))), str(path), where, f) for f in REPORT_FIELDS
        }
        reference = {f: _text(_need(r, path, where, f, (str, list))) for f in SUMMARY_FIELDS}
        rid = r.get("id", row - 1)
        samples.append(
            Sample(
                id=f"es-{rid}",
                input=f"Summarise counselling report {rid}.",
                target=summary_text(reference),
                metadata={"task": "summary", "variant": variant, "record_id": rid, **report, "reference": reference},
            )
        )
    return samples


# --- EE (LongEmotion paper §3.6) --------------------------------------------------------------------------------


def expression_samples(situations: Path, questionnaires: Path, emotions: str | None = None) -> list[Sample]:
    data = read_records(situations)
    if not isinstance(data, dict) or not isinstance(data.get("emotions"), list):
        raise DataError(str(situations), "-", 'expected {"emotions": [...]}')
    qdata = read_records(questionnaires)
    panas = (
        next((q for q in qdata if isinstance(q, dict) and q.get("name") == "PANAS"), None)
        if isinstance(qdata, list)
        else None
    )
    if panas is None or not isinstance(panas.get("questions"), dict):
        raise DataError(str(questionnaires), "-", "expected a list holding the PANAS questionnaire with 'questions'")
    wanted = {e.strip().casefold() for e in emotions.split(",")} if emotions else None
    samples, k = [], 0
    for e, emotion in enumerate(data["emotions"]):
        name = _need(emotion, situations, f"emotions[{e}]", "name", str)
        factors = _need(emotion, situations, f"emotions[{e}]", "factors", list)
        for f, factor in enumerate(factors):
            fname = _need(factor, situations, f"emotions[{e}].factors[{f}]", "name", str)
            scenarios = _need(factor, situations, f"emotions[{e}].factors[{f}]", "scenarios", list)
            for s, scenario in enumerate(scenarios):
                if not isinstance(scenario, str):
                    raise DataError(str(situations), f"emotions[{e}].factors[{f}].scenarios[{s}]", "should be a string")
                check_text(scenario, str(situations), f"emotions[{e}].factors[{f}]", f"scenarios[{s}]")
                if wanted is None or name.casefold() in wanted:
                    samples.append(
                        Sample(
                            id=f"ee-{k:03d}",
                            input=scenario,
                            metadata={
                                "task": "expression",
                                "emotion": name,
                                "factor": fname,
                                "scenario": scenario,
                                # the original inserts the questions dict's Python repr (docs/longemotion.md, 'Methods', EE paragraph)
                                "statements": repr(panas["questions"]),
                                "panas_words": list(panas["questions"].values()),
                            },
                        )
                    )
                k += 1
    if wanted and not samples:
        raise EqEvalsError(f"-T emotions={emotions}: no scenario has these emotions")
    return samples
