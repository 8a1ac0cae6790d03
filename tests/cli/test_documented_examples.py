"""The examples in docs/*.md run as written.

- Every `<!-- example: no-keys -->` block is a scripted workflow a user can run without API keys: each command
  runs as written (inspect / eq-evals from this environment), in a fresh folder, in order.
- The worked example of docs/adding-a-task.md (its `<!-- example: PATH -->` YAML blocks) adds a task with YAML
  only, run through Inspect.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- example: no-keys -->\n```bash\n(.*?)```", re.DOTALL)
ADDING_A_TASK = ROOT / "docs" / "adding-a-task.md"


def examples() -> list[tuple[str, int, list[str]]]:
    found = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for i, block in enumerate(BLOCK.findall(doc.read_text(encoding="utf-8"))):
            lines = [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
            found.append((doc.name, i, lines))
    return found


def test_the_documented_workflows_have_examples() -> None:
    assert {name for name, _, _ in examples()} >= {
        "pairwise.md",
        "sage.md",
        "heart.md",
        "pace.md",
        "facet.md",
        "hub.md",
        "longemotion.md",
        "ratings.md",
        "pace-weights.md",
        "profile.md",
    }


@pytest.mark.parametrize(("doc", "index", "commands"), examples(), ids=lambda x: x if isinstance(x, str) else None)
def test_example_runs(doc: str, index: int, commands: list[str], tmp_path: Path) -> None:
    bindir = Path(sys.executable).parent
    # the installed eq-evals, as a user runs it (a bare source path on PYTHONPATH would register the tasks without
    # their eq_evals/ prefix: Inspect namespaces only installed packages)
    env = dict(os.environ, HF_HUB_OFFLINE="1", INSPECT_LOG_DIR=str(tmp_path / "logs"))
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] in ("inspect", "eq-evals"), f"{doc}: unexpected command {command!r}"
        argv[0] = str(bindir / argv[0])
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{doc} example {index}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        if argv[0].endswith("eq-evals"):
            assert "error" not in done.stderr.lower(), done.stderr
    if doc == "pairwise.md":
        assert (tmp_path / "ratings" / "leaderboard.md").stat().st_size > 0
        assert (tmp_path / "ratings" / "charts" / "en_expression_naturalness.png").exists()
        assert "written: ratings/leaderboard.md" in done.stdout and "//" not in done.stdout  # --out ratings/
    if doc == "facet.md":
        assert "reference: chance" in done.stdout and "reference: majority" in done.stdout
    if doc == "hub.md" and index == 0:
        assert (tmp_path / "pace-hub" / "README.md").read_text(encoding="utf-8").startswith("---")
    if doc == "hub.md" and index == 1:
        rows = (tmp_path / "build" / "results" / "scores.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(rows) == 2 * 6 and (tmp_path / "build" / "results" / "README.md").exists()
    if doc == "ratings.md":
        for out in ("ts", "eq3", "elo", "tm"):
            assert (tmp_path / out / "leaderboard.md").stat().st_size > 0, out
        assert "eq_evals/scripted-oracle" in (tmp_path / "ts" / "leaderboard.md").read_text(encoding="utf-8")
        assert "facet_pairwise" in done.stdout and "complete" in done.stdout.lower()  # the doctor's report
    if doc == "pace-weights.md":
        fitted = json.loads((tmp_path / "weights.json").read_text(encoding="utf-8"))
        assert fitted["source"] == "estimated" and set(fitted["weights"]) == {"P", "A", "C", "E"}
        assert "0.430" in done.stdout  # the paper's weights, printed without data
    if doc == "profile.md":
        assert "report card: card/report.html" in done.stdout
        card = json.loads((tmp_path / "card" / "report.json").read_text(encoding="utf-8"))
        status = {b["benchmark"]: b["status"] for b in card["benchmarks"]}
        assert status["facet"] == status["sage"] == "scored" and status["heart"] == "not run"
        assert (tmp_path / "card" / "report.html").stat().st_size > 0
    if doc == "heart.md":
        assert "| Model | H | E | A | R | T | Overall Win Rate | Elo Rating |" in done.stdout
        assert (tmp_path / "heart-ratings" / "heart_leaderboard.png").stat().st_size > 0
    if doc == "pace.md":
        assert "## PACE composite EQ" in done.stdout and "Thurstone-Mosteller" in done.stdout
    if doc == "longemotion.md":
        assert (
            "| eq_evals/scripted-le_oracle | coem | fixtures |" in done.stdout and "not on LongEmotion" in done.stdout
        )
        assert "| eq_evals/scripted-echo | rag | fixtures |" in done.stdout
    if doc == "sage.md":
        assert "eq_evals/scripted-echo" in done.stdout


# --- the worked example of docs/adding-a-task.md: YAML only --------------------------------------------------


def example_blocks() -> dict[str, str]:
    text = ADDING_A_TASK.read_text(encoding="utf-8")
    return dict(re.findall(r"<!-- example: (\S+) -->\n```yaml\n(.*?)```", text, flags=re.DOTALL))


def test_worked_example_adds_a_task_without_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = example_blocks()
    assert set(blocks) == {"solvers/facet/crisis_nodefs.yaml", "tasks/facet/facet_crisis_nodefs.yaml"}
    for name, text in blocks.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    from eq_evals.engine import load_declarations, register_all

    assert "facet_crisis_nodefs" in {d.spec.name for d in load_declarations()}
    register_all()
    [log] = inspect_eval(
        "eq_evals/facet_crisis_nodefs",
        model="eq_evals/scripted-oracle",
        task_args={"language": "zh"},
        epochs=1,
        limit=3,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success"
    assert log.results.scores[0].metrics["mean"].value == 1.0
    prompt = log.samples[0].messages[0].text
    assert "从一级（最低）到五级（最高）" in prompt and "被动自杀意念" not in prompt
