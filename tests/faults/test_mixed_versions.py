"""Issue 19, finding 5: logs made on different contents of the same data must not be pooled silently.

Every log records its data's origin, revision and content hash in its header (``datasets``; src/eq_evals/core/
sources.py), and ``eq-evals ratings`` refuses to rank logs of different versions together unless
``--allow-mixed-datasets`` (README, "Datasets on the Hugging Face Hub"). The other commands do not look:
``eq-evals agreement``, ``eq-evals sage leaderboard``, ``eq-evals longemotion table``, ``eq-evals pace weights`` and
``eq-evals doctor`` pass mixed versions silently, and ``facet_pairwise`` and ``pace_pairwise`` judge replies to
different prompts against each other when given generation logs of different data versions. Honest: refuse, naming
the logs, unless the user explicitly allows it, as ``eq-evals ratings`` does.

The second version is the bundled data with one field of every record changed, put in an ``EQ_EVALS_PATH`` overlay
(so the task arguments stay the same) or, for LongEmotion, in a copy of its fixtures passed as ``-T data_dir``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from faultkit import LE_FIXTURES, overlay, rewrite_jsonl, run_cli
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

import eq_evals._registry  # noqa: F401
from eq_evals.errors import EqEvalsError

JUDGE = {"grader": "eq_evals/scripted-judge"}
BOARD = {"grader": "eq_evals/scripted-pace-agent"}


def run(task: str, model: Any, log_dir: Path, overlay_root: Path | None = None, **kwargs: Any) -> list[EvalLog]:
    with pytest.MonkeyPatch.context() as mp:
        if overlay_root is not None:
            mp.setenv("EQ_EVALS_PATH", str(overlay_root))
        return inspect_eval(task, model=model, log_dir=str(log_dir), display="none", **kwargs)


def versions(log: EvalLog) -> set[str]:
    return {v["sha256"] for v in (log.eval.metadata or {}).get("datasets") or []}


def assert_refused(code: int, said: str, *groups: list[Path]) -> None:
    """Refused (non-zero exit), saying the data versions differ and naming a log of each version."""
    assert code != 0, said
    assert re.search(r"data(set)? versions?", said, re.IGNORECASE), said
    for group in groups:
        assert any(str(p) in said for p in group), f"none of {[str(p) for p in group]} is named in:\n{said}"


def assert_task_refused(build: Any, *groups: list[Path]) -> None:
    """A judging task given generation logs of different versions fails (before judging), naming them."""
    try:
        [log] = build()
    except EqEvalsError as ex:
        message = str(ex)
    else:
        assert log.status == "error", f"judged {len(log.samples)} matchups across data versions"
        message = log.error.message
    assert_refused(1, message, *groups)


def copy_logs(paths: list[Path], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copy(p, folder / p.name)) for p in paths]


# --- FACET: generations, judgments, agreement, doctor, facet_pairwise ----------------------------------------


@pytest.fixture(scope="module")
def facet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Naturalness generations on the bundled items (v1: echo, oracle) and on a changed copy (v2: echo,
    malformed), each version judged on its own."""
    root = tmp_path_factory.mktemp("facet_mixed")
    changed = overlay(root / "overlay", "facet", "input")
    v1 = run("eq_evals/facet_naturalness", ["eq_evals/scripted-echo", "eq_evals/scripted-oracle"], root / "v1", limit=3)
    v2 = run(
        "eq_evals/facet_naturalness",
        ["eq_evals/scripted-echo", "eq_evals/scripted-malformed"],
        root / "v2",
        changed,
        limit=3,
    )
    assert versions(v1[0]) == versions(v1[1]) and versions(v2[0]) == versions(v2[1])
    assert versions(v1[0]) != versions(v2[0])  # same file, different contents
    [j1] = run(
        "eq_evals/facet_pairwise",
        None,
        root / "j1",
        model_roles=JUDGE,
        task_args={"logs": str(root / "v1"), "pairing": "round_robin"},
    )
    [j2] = run(
        "eq_evals/facet_pairwise",
        None,
        root / "j2",
        model_roles=JUDGE,
        task_args={"logs": str(root / "v2"), "pairing": "round_robin"},
    )
    return {
        "root": root,
        "v1": [Path(x.location) for x in v1],
        "v2": [Path(x.location) for x in v2],
        "j1": Path(j1.location),
        "j2": Path(j2.location),
        "judged": [j1, j2],
    }


def test_ratings_refuse_the_mixed_judgments(facet: dict, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The reference behaviour (and a check that the two versions really differ)."""
    code, out, err = run_cli(capsys, "ratings", facet["j1"], facet["j2"], "--quiet", "--out", tmp_path)
    assert_refused(code, out + err, [facet["j1"]], [facet["j2"]])
    assert "--allow-mixed-datasets" in err


def test_agreement_refuses_mixed_dataset_versions(facet: dict, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ids = [str(s.id) for log in facet["judged"] for s in log.samples]
    human = tmp_path / "human.csv"
    human.write_text("sample_id,rater,label\n" + "".join(f"{i},h1,A\n{i},h2,B\n" for i in ids), encoding="utf-8")
    code, out, err = run_cli(capsys, "agreement", facet["j1"], facet["j2"], "--human", human)
    assert_refused(code, out + err, [facet["j1"]], [facet["j2"]])


def test_doctor_flags_mixed_dataset_versions(facet: dict, capsys: pytest.CaptureFixture) -> None:
    oracle, malformed = facet["v1"][1], facet["v2"][1]  # two models, same task arguments, different data
    code, out, _ = run_cli(capsys, "doctor", oracle, malformed, "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert_refused(code, " ".join(report["comparability"]), [oracle], [malformed])


def test_facet_pairwise_refuses_generations_of_different_versions(facet: dict, tmp_path: Path) -> None:
    mixed = copy_logs([facet["v1"][1], facet["v2"][1]], tmp_path / "gen")  # oracle (v1) and malformed (v2)
    assert_task_refused(
        lambda: run(
            "eq_evals/facet_pairwise",
            None,
            tmp_path / "judged",
            model_roles=JUDGE,
            task_args={"logs": str(tmp_path / "gen"), "pairing": "round_robin"},
        ),
        [mixed[0], facet["v1"][1]],
        [mixed[1], facet["v2"][1]],
    )


# --- SAGE ------------------------------------------------------------------------------------------------------


def test_sage_leaderboard_refuses_mixed_dataset_versions(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    changed = overlay(tmp_path / "overlay", "sage/scenarios_emotional.jsonl", "first_talk")
    user = {"simulated_user": get_model("eq_evals/scripted-sage-user", changes=10)}
    [a] = run("eq_evals/sage", "eq_evals/scripted-echo", tmp_path / "logs", model_roles=user, limit=2)
    [b] = run("eq_evals/sage", "eq_evals/scripted-oracle", tmp_path / "logs", changed, model_roles=user, limit=2)
    assert versions(a) != versions(b) and a.eval.task_args == b.eval.task_args
    code, out, err = run_cli(capsys, "sage", "leaderboard", tmp_path / "logs")
    assert_refused(code, out + err, [Path(a.location)], [Path(b.location)])


# --- LongEmotion -------------------------------------------------------------------------------------------------


def test_longemotion_table_refuses_mixed_dataset_versions(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    copy = Path(shutil.copytree(LE_FIXTURES, tmp_path / "changed"))
    rewrite_jsonl(
        copy / "Emotion_Classification_Emobench.jsonl", lambda r: {**r, "content": r["content"] + "\nthe end ."}
    )
    [a] = run(
        "eq_evals/longemotion_classification",
        "eq_evals/scripted-le_oracle",
        tmp_path / "logs",
        epochs=1,
        task_args={"data_dir": str(LE_FIXTURES)},
    )
    [b] = run(
        "eq_evals/longemotion_classification",
        "eq_evals/scripted-le_wrong",
        tmp_path / "logs",
        epochs=1,
        task_args={"data_dir": str(copy)},
    )
    assert a.status == b.status == "success"
    code, out, err = run_cli(capsys, "longemotion", "table", tmp_path / "logs")
    assert_refused(code, out + err, [Path(a.location)], [Path(b.location)])


# --- PACE ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """PACE generations (echo, oracle) on the bundled items (v1) and on a changed copy (v2), and battles judged
    with -T overall=true for each version."""
    root = tmp_path_factory.mktemp("pace_mixed")
    changed = overlay(root / "overlay", "pace/items_en.jsonl", "query")
    models = ["eq_evals/scripted-echo", "eq_evals/scripted-oracle"]
    v1 = run("eq_evals/pace", models, root / "v1", model_roles=BOARD, limit=2)
    v2 = run("eq_evals/pace", models, root / "v2", changed, model_roles=BOARD, limit=2)
    assert versions(v1[0]) != versions(v2[0])
    battles = [
        run(
            "eq_evals/pace_pairwise",
            None,
            root / f"b{i}",
            model_roles=BOARD,
            task_args={"logs": str(root / f"v{i}"), "overall": True},
        )[0]
        for i in (1, 2)
    ]
    return {
        "root": root,
        "v1": [Path(x.location) for x in v1],
        "v2": [Path(x.location) for x in v2],
        "b1": Path(battles[0].location),
        "b2": Path(battles[1].location),
    }


def test_pace_weights_refuse_mixed_dataset_versions(pace: dict, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(
        capsys,
        "pace",
        "weights",
        pace["b1"],
        pace["b2"],
        "--bootstrap",
        "0",
        "--fallback",
        "uniform",
        "--out",
        tmp_path / "w.json",
    )
    assert_refused(code, out + err, [pace["b1"]], [pace["b2"]])


def test_pace_pairwise_refuses_generations_of_different_versions(pace: dict, tmp_path: Path) -> None:
    mixed = copy_logs([pace["v1"][0], pace["v2"][1]], tmp_path / "gen")  # echo (v1) and oracle (v2)
    assert_task_refused(
        lambda: run(
            "eq_evals/pace_pairwise",
            None,
            tmp_path / "battles",
            model_roles=BOARD,
            task_args={"logs": str(tmp_path / "gen")},
        ),
        [mixed[0], pace["v1"][0]],
        [mixed[1], pace["v2"][1]],
    )
