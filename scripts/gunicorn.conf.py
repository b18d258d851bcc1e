"""gunicorn settings for ``bash scripts/run.sh`` (``gunicorn -c scripts/gunicorn.conf.py "latency_lab_web:create_app()"``).

Embedded defaults; the environment only chooses where to listen: ``HOST`` (default 127.0.0.1, loopback
only) and ``PORT`` (default 8000). Any setting can still be overridden without editing this file, e.g.
``GUNICORN_CMD_ARGS="--workers 4 --access-logfile -" bash scripts/run.sh`` (gunicorn applies
``GUNICORN_CMD_ARGS`` after this file).

Why gevent workers (gunicorn's asynchronous worker, ``latency_lab_web.serving.ProblemGeventWorker``), not ``gthread`` and not a
proxy (issue 26):

- A slow client must cost nothing but its socket. With ``gthread`` (a few workers of 32 threads each) every
  connection that had sent its first byte held a thread while gunicorn read the rest of its request with blocking
  reads and no time limit: 64-70 connections trickling a body took ``/healthz`` to a 10 s timeout. A gevent worker
  reads every connection in a greenlet on one event loop: a connection waiting for its next byte (headers or body)
  holds a few KB and no thread, and the worker goes on serving the others. ``tests/latency_lab_web/test_server.py`` holds 500
  such connections (half trickling headers, half bodies) against this server and asks ``/healthz`` meanwhile.
- The front is the server itself, so ``bash scripts/run.sh`` still needs nothing but PyPI (gevent ships binary
  wheels) and no root: a buffering proxy (nginx's ``proxy_request_buffering on`` with ``client_header_timeout`` and
  ``client_body_timeout``) would be as good at this, but it is a second program to install (apt, root) and to
  start and stop with the app on every machine and in CI. Behind a public address a proxy in front is still
  wise (TLS, per-client limits); it is not needed for slow clients.
- Time limits: a request's headers must arrive within ``keepalive`` seconds (gunicorn's gevent worker reads every
  request, the first on a connection too, under ``gevent.Timeout(keepalive)``; past it the connection is
  closed), so connections trickling headers are dropped after 2 s; a body has no time limit but holds only its
  greenlet; ``worker_connections`` bounds the connections a worker holds at once (past it the worker stops
  accepting and the others take them). The app refuses a body over 64 KiB from its Content-Length before reading
  it, and a chunked one as soon as its chunk sizes add up past that (413, latency_lab_web/serving.py).
- What gevent costs: the app's work is CPU-bound Python (the model's engine; ``latency_lab.scenario.limits`` caps one
  request at about a second of CPU, most take a few ms), and a greenlet computing an answer keeps its worker's
  loop until it is done: a cheap request (``/healthz``, a cached answer, a static file) that lands on a worker in
  the middle of a prediction waits for that prediction, where gthread's threads took turns every 5 ms. With
  threads the process ran one thread of Python at a time anyway, so the total work per second is the same; the
  number of *workers* (one per core) still sets how many predictions run at once. ``gevent.monkey.patch_all`` runs
  in each worker before the app is imported (gunicorn's gevent worker does it): the app's locks and the
  request's step budget (a ``contextvars.ContextVar``, one per greenlet) work as they did with threads.
- A stopping worker (on SIGTERM, or recycled by ``max_requests`` where an operator sets it) stops accepting,
  finishes its requests for up to ``graceful_timeout`` and then stops the greenlets still waiting on a socket.
"""

from __future__ import annotations

import os
import sys


def _port() -> int:
    text = os.environ.get("PORT", "8000")
    try:
        port = int(text)
    except ValueError:
        sys.exit(f"PORT must be a whole number, got {text!r}")
    if not 0 < port < 65536:
        sys.exit(f"PORT must be between 1 and 65535, got {port}")
    return port


def _cores() -> int:
    # The cores this process may run on (honours taskset/cpusets), else all of the machine's.
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_host = os.environ.get("HOST", "127.0.0.1") or "127.0.0.1"
if ":" in _host and not _host.startswith("["):
    _host = f"[{_host}]"  # an IPv6 address

# --- where to listen ----------------------------------------------------------------------------------------
bind = [f"{_host}:{_port()}"]  # loopback only unless HOST says otherwise
backlog = 2048  # connections the kernel queues before a worker accepts them

# --- workers -------------------------------------------------------------------------------------------------
# gevent (see above), with gunicorn's own error answers (414, 431, 400, ...) rewritten as the app's problem+json
# with its security headers and chunked bodies held to the app's body limit (latency_lab_web/serving.py).
worker_class = "latency_lab_web.serving.ProblemGeventWorker"
# One worker process per core (at least 2, so one busy or restarting worker never leaves none): the most
# CPU-bound predictions that can run in parallel.
workers = max(2, _cores())
# Connections a worker holds at once (being read, computed, written or kept alive), each a greenlet of a few KB;
# past it the worker stops accepting and the others take the new connections.
worker_connections = 1000

# --- time limits --------------------------------------------------------------------------------------------
# A worker whose loop is silent this long (a hang: a greenlet waiting on a socket does not silence it) is killed
# and replaced. Predictions take at most about a second (latency_lab.scenario.limits), so 30 s is only ever a real hang.
timeout = 30
# On stop or restart (SIGTERM, SIGHUP) workers finish the requests they hold for at most this long, then
# are killed. Requests take about a second at most; this
# leaves room for slow networks and bounds how long a stop can take.
graceful_timeout = 10
# How long a connection may take to send a request's headers, the first one too, and how long an idle kept-alive
# connection waits for its next request (gevent.Timeout in gunicorn's gevent worker: see above).
keepalive = 2

# --- request size limits (gunicorn answers 414/431/400 itself, before the app: as problem+json, latency_lab_web/serving.py) -
# Request line (method, path and query): gunicorn's largest allowed value, so a query over the app's
# API_MAX_QUERY_BYTES (4096) but under this still reaches the app and gets its own 414 (query-too-long, naming
# max_query_bytes); only a longer line gets the server's 414 (request-line-too-long).
limit_request_line = 8190
limit_request_fields = 50  # header fields; browsers send about 20
limit_request_field_size = 8190  # bytes of one header field (name and value)

# --- bounded memory over time -------------------------------------------------------------------------------
# Workers are not recycled (gunicorn's max_requests 0, its default). Memory is bounded by the per-process caches,
# each capped in bytes (API_CACHE_BYTES, PAGE_CACHE_BYTES, SWEEP_CACHE_BYTES; tests/latency_lab_web/test_memory.py soaks the
# served app with never-repeated requests and holds each worker within 10 % of its warmed-up size). Until
# 2026-11-28 a worker was replaced after 10,000 requests (+ a random 0-1,000): with the load spread evenly the two
# workers reached it within a second of each other, and while both finished their last requests (gunicorn polls
# their exit once a second) and their successors started (about 0.7 s each), nothing answered. bench/api_load.py
# then measured a p99 of 1.40-1.55 s for cached predictions (max 1.73 s) and, with recycling every 1,500
# requests, 1.31 s for cached sweeps; with no recycling, the same run 1,278 cached predictions/s at a p99 of
# 21.8 ms (docs/measurements.md). An operator who wants recycling anyway can ask for it with
# GUNICORN_CMD_ARGS="--max-requests N --max-requests-jitter J"; with 2 workers, make J larger than N / 2.
max_requests = 0

# --- logging ------------------------------------------------------------------------------------------------
accesslog = None  # no access log (GUNICORN_CMD_ARGS="--access-logfile -" writes one to stdout)
errorlog = "-"  # start-up, worker and error messages to stderr
loglevel = "info"

# --- what this server does not offer ------------------------------------------------------------------------
# gunicorn 25.1+ opens a control socket ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl) through
# which a local user can change the worker count or stop the server; a second instance (a test, a second
# checkout) would take over the same path. Not wanted here.
control_socket_disable = True
