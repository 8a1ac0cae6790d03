"""Declarations that include fragments (docs/adding-a-task.md, "Shared keys: fragments"): every bundled task
builds exactly as the committed snapshot says, and the merge rules and their errors."""

from __future__ import annotations

import pytest

from tests import task_snapshot


def test_every_built_task_matches_the_committed_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rewrite of the declarations (e.g. into fragments) must not change any built task. After a deliberate
    change, regenerate the snapshot with `python -m tests.task_snapshot --write` and review its diff."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("LONGEMOTION_DATA_DIR", raising=False)
    monkeypatch.delenv("EQ_EVALS_PATH", raising=False)
    import json

    current = json.loads(json.dumps(task_snapshot.describe_all(), ensure_ascii=False, default=str))
    diff = task_snapshot.differences(task_snapshot.load_snapshot(), current)
    assert not diff, "built tasks differ from tests/fixtures/built_tasks.json:\n" + "\n".join(diff[:40])
