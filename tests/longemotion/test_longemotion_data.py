"""LongEmotion loaders: the upstream copies in ../shared/data (every record), the project fixtures in
both layouts, bad rows, and the offline failure message."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import shared_file

import eq_evals._registry  # noqa: F401
from eq_evals.engine import register_all
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.longemotion import data
from eq_evals.longemotion.components import longemotion_dataset
from eq_evals.resources import resource

FIXTURES = resource("datasets", "longemotion/fixtures")


@pytest.fixture(autouse=True)
def _no_env_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(data.ENV_DATA_DIR, raising=False)


def _jsonl_count(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_shared_detection_both_variants_every_record() -> None:
    original = shared_file("longemotion", "Emotion_Detection_backup.jsonl")
    cleaned = shared_file("longemotion", "Emotion_Detection.jsonl")
    root = str(original.parent)
    a = longemotion_dataset("detection", data_dir=root, variant="original")
    b = longemotion_dataset("detection", data_dir=root, variant="cleaned")
    assert len(a) == _jsonl_count(original) == 136 and len(b) == _jsonl_count(cleaned) == 136
    for sample in a:
        labels, truth = sample.metadata["labels"], int(sample.target)
        assert 26 <= len(sample.metadata["segments"]) <= 36
        assert [lab for lab in labels if labels.count(lab) == 1] == [labels[truth]]
    # same labels and ground truths, different text in some segments
    assert [s.target for s in a] == [s.target for s in b]
    assert any(x.metadata["segments"] != y.metadata["segments"] for x, y in zip(a, b))


def test_shared_conversation_checkpoints() -> None:
    path = shared_file("longemotion", "Emotion_Conversations.jsonl")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    all_stages = longemotion_dataset("conversation", data_dir=str(path.parent), stages="all")
    stage4 = longemotion_dataset("conversation", data_dir=str(path.parent))
    assert len(records) == 100 and len(all_stages) == 12 * len(records) == 1200 and len(stage4) == 300
    assert {s.metadata["checkpoint"] for s in stage4} == {"4-1", "4-2", "4-3"}
    missing = {r["id"] for r in records if "description" not in r}
    assert missing == {7, 33, 64, 69}
    assert all(s.metadata["description"] is None for s in all_stages if s.metadata["dialogue_id"] in missing)
    # the history at a checkpoint: all earlier stages, then the current stage up to that client turn
    rec = records[0]
    sample = next(s for s in all_stages if s.id == f"mc-{rec['id']}-s2-half")
    turns = rec["stages"][1]["conversations"]
    client_idx = [i for i, t in enumerate(turns) if t["role"] == "Client"]
    p = len(client_idx) // 2
    expected = [t for t in rec["stages"][0]["conversations"]] + turns[: client_idx[p] + 1]
    assert sample.metadata["history"] == [{"role": t["role"], "context": t["context"]} for t in expected]
    assert sample.metadata["history"][-1]["role"] == "Client"


def test_checkpoint_positions() -> None:
    assert [p for _, _, p in data.checkpoint_positions(7)] == [1, 3, 5]
    assert [p for _, _, p in data.checkpoint_positions(12)] == [3, 6, 9]


def test_shared_summary_and_expression() -> None:
    es = shared_file("longemotion", "Emotion_Summary_origin.jsonl")
    samples = longemotion_dataset("summary", data_dir=str(es.parent))
    assert len(samples) == _jsonl_count(es) == 150
    assert all(isinstance(s.metadata["case_description"], str) and s.target.startswith("Causes: ") for s in samples)
    shared_file("longemotion", "Emotion_Expression_Situations.json")
    shared_file("longemotion", "Emotion_Expression_Questionnaires.json")
    ee = longemotion_dataset("expression", data_dir=str(es.parent))
    assert len(ee) == 428
    assert len({s.metadata["emotion"] for s in ee}) == 8
    assert len({(s.metadata["emotion"], s.metadata["factor"]) for s in ee}) == 36
    assert sum(s.metadata["emotion"] == "Guilt" for s in ee) == 102
    assert len(longemotion_dataset("expression", data_dir=str(es.parent), emotions="Anger")) == 88


def test_shared_2025_08_examples_use_old_field_names(tmp_path: Path) -> None:
    ec = shared_file("longemotion", "examples_2025-08", "Emotion_Classification_example.jsonl")
    qa = shared_file("longemotion", "examples_2025-08", "Emotion_QA_example.jsonl")
    # the examples carry other file names: link them under the release names in a temporary folder
    (tmp_path / "Emotion_Classification_Emobench.jsonl").symlink_to(ec)
    (tmp_path / "Emotion_QA.jsonl").symlink_to(qa)
    ec_samples = longemotion_dataset("classification", data_dir=str(tmp_path))
    qa_samples = longemotion_dataset("qa", data_dir=str(tmp_path))
    assert len(ec_samples) == _jsonl_count(ec) == 3 and len(qa_samples) == _jsonl_count(qa) == 2
    for s in ec_samples:
        assert s.target in s.metadata["choices"] and len(s.metadata["choices"]) == 6
        assert s.metadata["subject"] in s.metadata["content"]
    assert all(s.metadata["context"] and s.target for s in qa_samples)


def test_fixtures_flat_and_hub_layout(tmp_path: Path) -> None:
    flat = {
        t: register_all()[f"longemotion_{t}"](fixtures=True).dataset
        for t in ("classification", "detection", "qa", "conversation", "summary", "expression")
    }
    assert {t: len(d) for t, d in flat.items()} == {
        "classification": 3,
        "detection": 2,
        "qa": 2,
        "conversation": 6,
        "summary": 2,
        "expression": 4,
    }
    # the Hub layout: task folders with spaces in their names
    for key, (hub_path, names) in data.FILES.items():
        source = FIXTURES / names[0]
        if hub_path and source.is_file():
            (tmp_path / hub_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, tmp_path / hub_path)
    hub = longemotion_dataset("classification", data_dir=str(tmp_path))
    assert [s.target for s in hub] == [s.target for s in flat["classification"]]
    assert len(longemotion_dataset("expression", data_dir=str(tmp_path))) == 4
    assert len(longemotion_dataset("detection", data_dir=str(tmp_path))) == 2
    with pytest.raises(EqEvalsError, match="cleaned"):  # the cleaned ED file is not on the Hub
        longemotion_dataset("detection", data_dir=str(tmp_path), variant="cleaned")


def test_list_and_string_report_fields_are_joined() -> None:
    samples = longemotion_dataset("summary", fixtures=True)
    first, second = samples
    assert (
        first.metadata["case_description"].startswith("The client, a 24-year-old")
        and "  " not in first.metadata["case_description"]
    )
    assert "She reported" in first.metadata["case_description"]
    assert second.metadata["experience_and_reflection"].count("The counsellor") == 1


def test_bad_rows_name_file_row_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "Emotion_Detection_backup.jsonl"
    bad.write_text(json.dumps({"text": [{"index": 0, "context": "a"}], "label": ["x"], "ground_truth": 3}) + "\n")
    with pytest.raises(DataError, match=r"line 1: ground_truth 3 is outside 0..0"):
        longemotion_dataset("detection", data_dir=str(tmp_path))
    bad.write_text('{"text": [], "label": []}\nnot json\n')
    with pytest.raises(DataError, match="line 2: invalid JSON"):
        longemotion_dataset("detection", data_dir=str(tmp_path))
    bad.write_text('{"text": [], "label": []}\n')
    with pytest.raises(DataError, match="line 1: missing field 'ground_truth'"):
        longemotion_dataset("detection", data_dir=str(tmp_path))
    ec = tmp_path / "Emotion_Classification_Emobench.jsonl"
    ec.write_text(
        json.dumps({"id": 1, "content": "x", "subject": "A", "label": "Joy", "choices": ["Anger", "Fear"]}) + "\n"
    )
    with pytest.raises(DataError, match="label 'Joy' is not one of the choices"):
        longemotion_dataset("classification", data_dir=str(tmp_path))


def test_offline_without_local_copy_fails_at_once_naming_data_dir() -> None:
    start = time.monotonic()
    with pytest.raises(EqEvalsError) as info:
        register_all()["longemotion_qa"]()
    assert time.monotonic() - start < 10
    message = str(info.value)
    assert "-T data_dir=PATH" in message and "LongEmotion/LongEmotion" in message and "Emotion_QA.jsonl" in message


def test_missing_folder_and_file_messages(tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError, match="no such folder"):
        longemotion_dataset("qa", data_dir=str(tmp_path / "nope"))
    with pytest.raises(
        EqEvalsError, match="has no qa file; looked for 'Emotion QA/Emotion_QA.jsonl', 'Emotion_QA.jsonl'"
    ):
        longemotion_dataset("qa", data_dir=str(tmp_path))


def test_offline_fails_at_once_without_hf_hub_offline(tmp_path: Path) -> None:
    # no HF_HUB_OFFLINE, an empty cache, and a Hub endpoint on a closed local port: huggingface_hub alone
    # would retry with backoff for ~25 s per file; EE needs two files
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", data.ENV_DATA_DIR)}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HOME=str(tmp_path / "hf"))
    # timed inside the subprocess, after the imports (which take seconds on a loaded 2-core machine): the
    # point is that the load fails without huggingface_hub's retries, not how fast Python starts
    code = (
        "import time\n"
        "from eq_evals.errors import EqEvalsError\n"
        "from eq_evals.longemotion.components import longemotion_dataset\n"
        "start = time.monotonic()\n"
        "try:\n    longemotion_dataset('expression')\nexcept EqEvalsError as ex:\n    print(ex)\n"
        "print('ELAPSED', time.monotonic() - start)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "-T data_dir=PATH" in out.stdout and "Emotion_Expression_Situations.json" in out.stdout, out.stderr
    elapsed = float(out.stdout.rsplit("ELAPSED", 1)[1])
    assert elapsed < 5, f"took {elapsed:.1f} s"


def _fake_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, content: bytes) -> None:
    import huggingface_hub

    def fake_download(repo_id: str, filename: str, **kwargs) -> str:
        path = tmp_path / "hub" / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        return str(path)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)


def test_changed_hub_file_is_an_error_unless_accepted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    content = (FIXTURES / "Emotion_QA.jsonl").read_bytes()  # not the release's file: another md5
    actual = hashlib.md5(content).hexdigest()
    _fake_hub(monkeypatch, tmp_path, content)
    with pytest.raises(EqEvalsError) as info:
        longemotion_dataset("qa")
    message = str(info.value)
    assert "Emotion_QA.jsonl" in message and actual in message and data.HUB_MD5["Emotion_QA.jsonl"] in message
    assert "-T verify_checksums=false" in message and "-T revision=" in message
    samples = longemotion_dataset("qa", verify_checksums=False, revision="abc123")
    [source] = samples[0].metadata["data_source"]
    assert source["origin"] == "hub" and source["revision"] == "abc123" and source["md5"] == actual
    assert source["md5_verified"] is False and source["expected_md5"] == data.HUB_MD5["Emotion_QA.jsonl"]


def test_release_hub_file_is_verified(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(
        data.HUB_MD5, "Emotion_QA.jsonl", hashlib.md5((FIXTURES / "Emotion_QA.jsonl").read_bytes()).hexdigest()
    )
    _fake_hub(monkeypatch, tmp_path, (FIXTURES / "Emotion_QA.jsonl").read_bytes())
    samples = longemotion_dataset("qa")
    assert samples[0].metadata["data_source"][0]["md5_verified"] is True
    assert samples[0].metadata["data_source"][0]["revision"] == data.HF_REVISION


def test_skip_invalid_skips_bad_ec_rows_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    ec = tmp_path / "Emotion_Classification_Emobench.jsonl"
    good = {"id": 1, "content": "x", "subject": "A", "label": "Fear", "choices": ["Anger", "Fear"]}
    bad = dict(good, id=2, label="Joy")
    ec.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(DataError, match="skip_invalid"):
        longemotion_dataset("classification", data_dir=str(tmp_path))
    with caplog.at_level("WARNING"):
        samples = longemotion_dataset("classification", data_dir=str(tmp_path), skip_invalid=True)
    assert [s.id for s in samples] == ["ec-emobench-1"]
    assert "skipped 1 of 2" in caplog.text and "line 2" in caplog.text and "'Joy'" in caplog.text


def test_a_longemotion_file_cut_at_a_line_boundary_warns_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from support import shared_file

    from eq_evals.longemotion.components import longemotion_dataset

    full = shared_file("longemotion", "Emotion_Detection_backup.jsonl")
    with caplog.at_level("WARNING"):
        complete = longemotion_dataset("detection", data_dir=str(full.parent), variant="original")
    assert len(complete) == 136 and not [r for r in caplog.records if "records" in r.getMessage()]
    lines = full.read_text(encoding="utf-8").splitlines()
    (tmp_path / full.name).write_text("\n".join(lines[:100]) + "\n", encoding="utf-8")
    with caplog.at_level("WARNING"):
        cut = longemotion_dataset("detection", data_dir=str(tmp_path), variant="original")
    assert len(cut) == 100
    [warning] = [r.getMessage() for r in caplog.records if "records" in r.getMessage()]
    assert str(tmp_path / full.name) in warning and "has 100 records, but the release has 136" in warning
