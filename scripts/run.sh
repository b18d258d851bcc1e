#!/usr/bin/env bash
# Serve the latency-lab web app on http://127.0.0.1:8000/ (or $PORT).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/venv.sh requirements.txt
exec python -m app
