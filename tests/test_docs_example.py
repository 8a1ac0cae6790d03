"""The worked example in docs/adding-a-task.md: YAML only, run through Inspect."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

DOC = Path(__file__).resolve().parents[1] / "docs" / "adding-a-task.md"


def example_blocks() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
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
    [log] = inspect_eval("eq_evals/facet_crisis_nodefs", model="eq_evals/scripted-oracle",
                         task_args={"language": "zh"}, epochs=1, limit=3, log_dir=str(tmp_path / "logs"),
                         display="none")
    assert log.status == "success"
    assert log.results.scores[0].metrics["mean"].value == 1.0
    prompt = log.samples[0].messages[0].text
    assert "从一级（最低）到五级（最高）" in prompt and "被动自杀意念" not in prompt
