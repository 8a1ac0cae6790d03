#!/usr/bin/env bash
# Lint and format check with ruff (configured in pyproject.toml); scripts/setup.sh installs it with the test extra.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF=${RUFF:-.venv/bin/ruff}
"$RUFF" check src tests benchmarks scripts
"$RUFF" format --check src tests benchmarks scripts
