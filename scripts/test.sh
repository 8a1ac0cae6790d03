#!/usr/bin/env bash
# Set up (see scripts/setup.sh), then run the test suite offline. Extra arguments go to pytest.
# The default run leaves out the tests marked slow (pyproject.toml); `bash scripts/test.sh -m slow` runs only
# them, and any other -m replaces the default selection (pytest keeps the last -m).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1
# -n auto: one worker per core (pytest-xdist), --dist loadfile: a module's tests (and its module fixtures) on one worker
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n auto --dist loadfile -m "not slow" "$@" tests
