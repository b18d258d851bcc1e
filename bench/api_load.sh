#!/usr/bin/env bash
# Load test of the JSON API (bench/api_load.py): the README's server (gunicorn, scripts/gunicorn.conf.py) on 127.0.0.1,
# driven by wrk.
# Not part of CI (it takes about 3 minutes and measures this machine). Installs wrk (Debian) if missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/venv.sh requirements-dev.txt
if ! command -v wrk > /dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq wrk > /dev/null
    else
        echo "wrk is not installed: sudo apt-get install wrk" >&2
        exit 1
    fi
fi
exec python bench/api_load.py "$@"
