"""The long dialogues in a second process (docs/profile.md, "Running and resuming"), through the real command
line: which folder each task's logs go to, a folder continued in the layout it was made with (whatever
``--processes`` says), no call paid twice, and a failure of the second process named with its folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from eq_evals.cli import main
from eq_evals.profile.run import one_process_reason

S = "eq_evals/scripted-"
BASE = [
    "profile",
    *["--model", S + "all-good", "--judge", S + "jc-honest", "--simulated-user", S + "sage-user"],
    *["--benchmarks", "sage,pace"],
]


def layout(logs: Path) -> dict[str, set[str]]:
    """Folder -> the tasks whose logs it holds."""
    out: dict[str, set[str]] = {}
    for info in list_eval_logs(str(logs)):
        task = read_eval_log(info.name, header_only=True).eval.task.removeprefix("eq_evals/")
        out.setdefault(Path(info.name.removeprefix("file://")).parent.name, set()).add(task)
    return out


def calls(logs: Path) -> int:
    return sum(
        1
        for info in list_eval_logs(str(logs))
        for s in read_eval_log(info.name).samples or []
        for e in s.events
        if e.event == "model"
    )


def test_the_dialogues_run_in_a_second_process_and_a_rerun_pays_nothing(capsys, tmp_path: Path) -> None:
    logs = tmp_path / "p"
    assert main([*BASE, "--log-dir", str(logs)]) == 0
    assert "dialogues (1 tasks x 1 models)" in capsys.readouterr().err
    assert layout(logs) == {"dialogue": {"sage"}, "generate": {"pace"}}
    record = json.loads((logs / "plan.json").read_text(encoding="utf-8"))
    assert record["selection"]["dialogue"] == ["sage[language=all]"]
    first = calls(logs)
    assert sum(r["calls"] for r in record["actual"]) == first  # the dialogue's calls are counted too
    card = json.loads((logs / "card" / "report.json").read_text(encoding="utf-8"))
    status = {b["benchmark"]: b["status"] for b in card["benchmarks"]}
    assert status["sage"] == status["pace"] == "scored", status
    # the same command again, and with --processes 1: the folder keeps its layout, eval-set finds every task done
    for again in ([], ["--processes", "1"]):
        assert main([*BASE, *again, "--log-dir", str(logs)]) == 0
        assert layout(logs) == {"dialogue": {"sage"}, "generate": {"pace"}}
        assert calls(logs) == first
    # (with --processes 1 the dialogues' eval set ran in this process, after the others, and said so)
    assert "runs after the other tasks, in this process: --processes 1" in capsys.readouterr().err


@pytest.mark.slow
def test_a_folder_made_in_one_process_stays_in_one(capsys, tmp_path: Path) -> None:
    logs = tmp_path / "p"
    assert main([*BASE, "--processes", "1", "--log-dir", str(logs)]) == 0
    assert layout(logs) == {"generate": {"sage", "pace"}}
    assert json.loads((logs / "plan.json").read_text(encoding="utf-8"))["selection"]["dialogue"] == []
    first = calls(logs)
    assert main([*BASE, "--log-dir", str(logs)]) == 0  # --processes 2, the default: continued as it was made
    assert layout(logs) == {"generate": {"sage", "pace"}}
    assert calls(logs) == first


@pytest.mark.slow
def test_a_failure_of_the_second_process_is_named_and_the_other_logs_are_kept(capsys, tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert main([*BASE[:-1], "pace", "--log-dir", str(other)]) == 0
    [foreign] = list((other / "generate").glob("*.eval"))
    logs = tmp_path / "p"
    (logs / "dialogue").mkdir(parents=True)
    shutil.copy(foreign, logs / "dialogue")  # a log of another task where the dialogues' eval set runs
    capsys.readouterr()
    assert main([*BASE, "--log-dir", str(logs)]) == 2
    err = capsys.readouterr().err
    assert f"{logs / 'dialogue'}: the dialogue tasks' eval set failed" in err, err
    assert "run the same command again" in err
    [pace] = [info.name for info in list_eval_logs(str(logs / "generate"))]
    assert read_eval_log(pace, header_only=True).status == "success"


def test_where_the_dialogues_cannot_have_a_process_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    scripted = [S + "all-good", S + "jc-honest", None]
    assert one_process_reason(scripted, "none") is None
    assert one_process_reason(scripted, "log") is None
    assert "takes the terminal" in (one_process_reason(scripted, "full") or "")
    assert "loaded a second time" in (one_process_reason(["eq_evals/smollm2", *scripted], "none") or "")
    assert "eq_evals/gguf" in (one_process_reason([*scripted[:2], "eq_evals/gguf"], None) or "")
    monkeypatch.setattr("sys.platform", "darwin")
    assert "Linux only" in (one_process_reason(scripted, "none") or "")


def test_a_model_run_in_process_keeps_the_dialogues_in_one_process(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eq_evals.profile.run as run

    sets: dict[str, list[str]] = {}

    def eval_set(tasks, models, log_dir, roles, common):  # noqa: ANN001, ANN202 - records the eval sets, runs none
        sets[Path(log_dir).name] = sorted(t.name.removeprefix("eq_evals/") for t in tasks)
        return True, []

    monkeypatch.setattr(run, "_eval_set", eval_set)
    monkeypatch.setattr(run, "write_outputs", lambda *a, **k: {})
    # the embedded model as the simulated user: SAGE's dialogues stay with the other tasks, and the command says why
    command = [*BASE[:5], "--simulated-user", "eq_evals/smollm2", *BASE[7:]]
    assert main([*command, "--log-dir", str(tmp_path / "p")]) == 0
    assert sets == {"generate": ["pace", "sage"]}
    assert "in one process: eq_evals/smollm2 runs in this process" in capsys.readouterr().err


PROFILE = "import sys\nfrom eq_evals.cli import main\nsys.exit(main(sys.argv[1:]))"


@pytest.mark.slow
def test_a_ctrl_c_stops_both_processes_and_the_same_command_continues(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    logs = tmp_path / "p"
    command = [*BASE, "-M", "delay=0.3", "-R", "delay=0.3", "--log-dir", str(logs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen(
        [sys.executable, "-c", PROFILE, *command],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, which a terminal's Ctrl-C reaches whole
    )
    deadline = time.time() + 120
    while not list((logs / "dialogue").glob("*.eval")) and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(2)  # a few turns of the dialogues (28 calls of 0.3 s each)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, err
    time.sleep(1)
    with pytest.raises(ProcessLookupError):  # no process of the group is left (the second one ended too)
        os.killpg(proc.pid, 0)
    unfinished = [info.name for info in list_eval_logs(str(logs / "dialogue"))]
    assert unfinished and read_eval_log(unfinished[0], header_only=True).status != "success"
    # the same command again continues: every log complete, the card written
    assert main(command) == 0
    assert layout(logs) == {"dialogue": {"sage"}, "generate": {"pace"}}
    assert all(read_eval_log(i.name, header_only=True).status == "success" for i in list_eval_logs(str(logs)))
    assert (logs / "card" / "report.html").is_file()
