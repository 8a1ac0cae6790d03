"""Shared test setup: offline, one temporary log folder per test, and the logs of every benchmark built once
per test session (``benchmark_logs``, see tests/benchmark_logs.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")

from benchmark_logs import BenchmarkLogs, build_benchmark_logs  # noqa: E402  (after the offline settings)
from support import REPO, SHARED_DATA, need_embedded_model, shared_file  # noqa: E402,F401  (older imports)


@pytest.fixture
def log_dir(tmp_path: Path) -> str:
    return str(tmp_path / "logs")


@pytest.fixture(scope="session")
def benchmark_logs(tmp_path_factory: pytest.TempPathFactory) -> BenchmarkLogs:
    """Logs of every benchmark (scripted models), built once per test run: see tests/benchmark_logs.py."""
    return build_benchmark_logs(tmp_path_factory.mktemp("benchmark_logs"))
