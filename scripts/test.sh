#!/usr/bin/env bash
# Set up (see scripts/setup.sh), then run the test suite offline. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@" tests
