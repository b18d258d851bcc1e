#!/usr/bin/env bash
# Lint, type-check and test latency-lab: the one command CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/venv.sh requirements-dev.txt
# the packet-level simulator the model is validated against (tests/validation run it)
python -m pip install --quiet --disable-pip-version-check -r requirements-validation.txt

# Lint only the source folders that exist and hold Python files (bench/ may be empty for now).
paths=()
for dir in model app tests bench validation; do
    if [ -d "$dir" ] && [ -n "$(find "$dir" -name '*.py' -print -quit)" ]; then
        paths+=("$dir")
    fi
done

echo "== ruff check ${paths[*]}"
ruff check "${paths[@]}"
echo "== ruff format --check ${paths[*]}"
ruff format --check "${paths[@]}"
echo "== mypy model app validation"
mypy model app validation
echo "== pytest"
python -m pytest
