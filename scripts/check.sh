#!/usr/bin/env bash
# The quick check for your own loop (under a minute once set up): lint, format, types, import contracts and the
# unit tests. Everything else (browsers, the real server under load, ns-3, the engine differential) runs in
# scripts/test.sh, which is what CI runs. Uses the project's .venv (scripts/test.sh or scripts/run.sh makes it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
    echo "error: no .venv yet: run 'bash scripts/test.sh' (or scripts/run.sh) once to set it up" >&2
    exit 1
fi
export PATH="$PWD/.venv/bin:$PATH"
paths=(latency_lab latency_lab_web tests bench validation setup.py)
echo "== ruff check"
ruff check "${paths[@]}"
echo "== ruff format --check"
ruff format --check "${paths[@]}"
echo "== mypy latency_lab latency_lab_web validation"
mypy latency_lab latency_lab_web validation
echo "== import contracts (lint-imports)"
lint-imports --no-cache
echo "== unit tests"
python -m pytest -q -p no:cacheprovider -m "not browser and not slow" \
    --ignore=tests/browser --ignore=tests/validation \
    --deselect tests/latency_lab/engine/test_engine_backends.py \
    --ignore=tests/latency_lab_web/test_server.py --ignore=tests/latency_lab_web/test_memory.py \
    --ignore=tests/latency_lab_web/test_api_schemathesis.py --ignore=tests/latency_lab/test_cli_dask.py "$@"
