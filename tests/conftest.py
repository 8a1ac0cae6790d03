"""Shared test setup: offline, one temporary log folder per test, and the logs of every benchmark built once
per test session (``benchmark_logs``, see tests/benchmark_logs.py), with one judge's verdicts on its FACET
generations (``judged_by_one_judge``). A test module that needs logs builds its own only when these cannot serve,
and says why.

The tests mirror the code: ``tests/<package>/test_*.py`` tests ``src/eq_evals/<package>`` (``tests/core`` the
engine and the shared top-level modules; ``tests/faults``, ``tests/golden`` and ``tests/architecture`` cut across).
The folders have no ``__init__.py`` (a package ``tests/packaging`` would hide the ``packaging`` distribution), so
pytest imports each test module by its file name: every test module's name must be unique across the folders.
The helper modules stay here (``support``, ``benchmark_logs``, ``task_snapshot``; ``faultkit`` beside the fault
tests) and this folder is put on ``sys.path``, so ``from support import ...`` works from every subfolder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")

from benchmark_logs import BenchmarkLogs, build_benchmark_logs  # noqa: E402  (after the offline settings)
from support import REPO, SHARED_DATA, judge_pairwise, need_embedded_model, shared_file  # noqa: E402,F401  (older imports)


@pytest.fixture
def log_dir(tmp_path: Path) -> str:
    return str(tmp_path / "logs")


@pytest.fixture(scope="session")
def benchmark_logs(tmp_path_factory: pytest.TempPathFactory) -> BenchmarkLogs:
    """Logs of every benchmark (scripted models), built once per test run: see tests/benchmark_logs.py."""
    return build_benchmark_logs(tmp_path_factory.mktemp("benchmark_logs"))


@pytest.fixture(scope="session")
def judged_by_one_judge(benchmark_logs: BenchmarkLogs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The log of ``facet_pairwise`` over the session's FACET interaction generations (three models, 12
    naturalness prompts in English and Chinese, ``benchmark_logs.generations_dir``), every pair judged in both
    orders by the one judge ``scripted-judge``: for tests that read a single judge's verdicts (the session's own
    judging log has a panel of two). Built once per test run."""
    log = judge_pairwise(
        benchmark_logs.generations_dir,
        "eq_evals/scripted-judge",
        tmp_path_factory.mktemp("one_judge"),
        pairing="round_robin",
    )
    assert log.status == "success", log.error
    return Path(log.location)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The embedded-model tests are slow as well (minutes on 2 cores, far more under load): the default run
    leaves them out with the other slow tests, and .ci/run runs them after it (`bash scripts/test.sh -m slow`). So do
    the browser tests (marker ``browser``, tests/browser.py): they start Chromium and often a server."""
    for item in items:
        if item.get_closest_marker("local_model") is not None or item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.slow)
