#!/usr/bin/env bash
# Serve the latency-lab web app on http://127.0.0.1:8000/ (or $PORT).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check -r requirements.txt
exec python -m app
