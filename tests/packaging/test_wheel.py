"""The wheel carries the declarative layer, so a non-editable install works from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def unpacked_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if build.returncode != 0 and "No module named 'hatchling'" in build.stderr:
        pytest.skip("hatchling is not installed (pip install hatchling) so the wheel cannot be built offline")
    assert build.returncode == 0, build.stderr[-2000:]
    [wheel] = list(out.glob("eq_evals-*.whl"))
    target = out / "site-packages"  # Inspect namespaces tasks of packages found under a site-packages path
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(target)
    return target


def test_wheel_contains_every_declarative_file(unpacked_wheel: Path) -> None:
    packaged = unpacked_wheel / "eq_evals" / "_declarative"
    for kind in ("tasks", "solvers", "scorers", "datasets"):
        source_files = {p.relative_to(REPO / kind) for p in (REPO / kind).rglob("*") if p.is_file()}
        shipped = {p.relative_to(packaged / kind) for p in (packaged / kind).rglob("*") if p.is_file()}
        assert source_files and source_files <= shipped, (kind, source_files - shipped)
    # the fragments declarations include (tasks/**/_*.yaml, docs/adding-a-task.md) ship beside them
    fragments = {p.relative_to(packaged).as_posix() for p in (packaged / "tasks").rglob("_*.yaml")}
    assert {"tasks/facet/_objective.yaml", "tasks/facet/_interaction.yaml", "tasks/longemotion/_base.yaml"} <= fragments
    entry_points = next(unpacked_wheel.glob("eq_evals-*.dist-info")) / "entry_points.txt"
    assert "eq_evals = eq_evals._registry" in entry_points.read_text()


def test_task_runs_from_the_wheel_in_another_directory(unpacked_wheel: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(unpacked_wheel), HF_HUB_OFFLINE="1")
    script = (
        "import eq_evals, eq_evals.resources as r\n"
        "from inspect_ai import eval\n"
        "print('MODULE', eq_evals.__file__); print('ROOT', r.declarative_root())\n"
        # facet_social includes tasks/facet/_objective.yaml, which includes _facet.yaml: read from the wheel
        "[log] = eval('eq_evals/facet_social', model='eq_evals/scripted-oracle', limit=2, epochs=1,"
        " log_dir='logs', display='none')\n"
        "print('OUTCOME', log.status, log.results.scores[0].metrics['mean'].value)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    # Inspect prints its own lines too (e.g. the hooks banner): read ours by their markers
    tagged = dict(
        line.split(" ", 1) for line in result.stdout.splitlines() if line.startswith(("MODULE ", "ROOT ", "OUTCOME "))
    )
    module_file, root, outcome = tagged["MODULE"], tagged["ROOT"], tagged["OUTCOME"]
    assert module_file.startswith(str(unpacked_wheel)) and root.startswith(str(unpacked_wheel))
    assert outcome == "success 1.0"
