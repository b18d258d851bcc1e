#!/usr/bin/env bash
# Serve the latency-lab web app on http://127.0.0.1:8000/ (or $PORT; $HOST to listen elsewhere) with
# gunicorn: gthread workers, one per core, settings and their reasons in scripts/gunicorn.conf.py.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/venv.sh requirements.txt
exec gunicorn -c scripts/gunicorn.conf.py "app:create_app()"
