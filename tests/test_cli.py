"""The eq-evals console script."""

from __future__ import annotations

import subprocess
import sys


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "eq_evals.cli", *args], capture_output=True, text=True, timeout=120)


def test_list_prints_tasks_with_parameters_and_sample_counts() -> None:
    result = run_cli("list", "--benchmark", "facet")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name in ("facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis"):
        assert f"eq_evals/{name}" in out
    assert "-T language='en' (str ['en', 'zh', 'all'])" in out
    assert "samples: en: 60 (level_classification 60); zh: 60 (level_classification 60)" in out
    assert "unavailable" not in out


def test_unknown_command_fails_cleanly() -> None:
    result = run_cli("frobnicate")
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_list_explains_tasks_built_from_logs_and_counts_sage() -> None:
    out = run_cli("list").stdout
    assert "eq_evals/facet_pairwise" in out and "samples: built from -T logs;" in out
    sage = out.split("eq_evals/sage ")[1]
    assert "samples: zh: 32; en: 32;" in sage
