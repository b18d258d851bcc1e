#!/usr/bin/env bash
# Serve the latency-lab web app on http://127.0.0.1:8000/ (or $PORT; $HOST to listen elsewhere) with
# gunicorn: gevent workers (asynchronous: a slow client holds no thread), one per core, settings and their
# reasons in scripts/gunicorn.conf.py.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/venv.sh requirements.txt
# glibc's malloc keeps a fixed mmap threshold (128 KiB) instead of raising it to the largest block freed: a big
# page's passing buffers then get their own mappings, not holes between cached answers, and the workers' memory
# stays flat (tests/latency_lab_web/test_memory.py: about 155 MB a worker, flat within 1 %, against 245 MB and creeping)
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
exec gunicorn -c scripts/gunicorn.conf.py "latency_lab_web:create_app()"
