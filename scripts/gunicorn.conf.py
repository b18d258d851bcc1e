"""gunicorn settings for ``bash scripts/run.sh`` (``gunicorn -c scripts/gunicorn.conf.py "app:create_app()"``).

Embedded defaults; the environment only chooses where to listen: ``HOST`` (default 127.0.0.1, loopback
only) and ``PORT`` (default 8000). Any setting can still be overridden without editing this file, e.g.
``GUNICORN_CMD_ARGS="--workers 4 --access-logfile -" bash scripts/run.sh`` (gunicorn applies
``GUNICORN_CMD_ARGS`` after this file).

Why ``gthread`` (threads in each of a few worker processes), not ``sync`` (one request per process):

- A slow client holds a thread, not a process. With ``sync`` a worker is stuck for as long as one client
  takes to send its request, so as many slow clients as there are workers take the whole server down.
  Here each worker has ``threads`` threads and the worker's main loop keeps accepting and dispatching
  connections to the free ones.
- The app's work is CPU-bound Python (the model's engine; ``model.scenario.limits`` caps one request at about half a
  second), and a process runs one thread of Python at a time: the number of *workers* sets how many
  predictions run at once (one per core), while the extra *threads* only wait on sockets (slow clients,
  kept-alive connections) or take turns with a prediction for the few milliseconds a cheap answer
  (``/healthz``, a cached answer, a static file) needs.

What gthread does and does not bound (read in gunicorn 27.0.1, ``gunicorn/workers/gthread.py`` and
``gunicorn/http/parser.py``):

- A new connection gets a thread only for its first byte: if nothing arrives within 5 s
  (``DEFAULT_WORKER_DATA_TIMEOUT``, not a setting) the connection goes back to the main loop's poller,
  which closes it after ``keepalive`` seconds. Kept-alive connections also wait in the poller, not in a
  thread. After a response, an unread rest of the request body is drained for at most 5 s and 64 KiB.
- Once a request's first byte has arrived, the thread reads the request line, the headers and then (when
  the app asks for it) the body with blocking reads and **no time limit**: a client that trickles its
  headers or its body a byte at a time, or that sends half a body and goes silent without closing, holds
  that thread for as long as it keeps the connection open (so does a client that stops reading a large
  answer: the response is written with blocking sends too). ``timeout`` does not help: it is the worker's
  heartbeat, which the main loop keeps beating while a thread waits (on HTTP/2 it also bounds a stalled
  stream, but HTTP/2 is off). gunicorn has no setting that bounds the time to read an HTTP/1.1 request.
- Mitigations here: many threads per worker (20 such clients cannot take all of them: see
  tests/app/test_server.py), the app refusing a body over 64 KiB from its Content-Length before reading it
  (413), and workers recycled after ``max_requests``. A recycled worker stops accepting, finishes its
  requests for up to ``graceful_timeout`` and then cannot exit while a thread is still stuck on a socket
  (the interpreter waits for it): the master kills it when its heartbeat stops, ``timeout`` later, and
  only then starts its replacement, so a stuck thread lives ``graceful_timeout + timeout`` (40 s) at most
  past the recycle and the server runs one worker short meanwhile. On SIGTERM the master kills workers
  still busy after ``graceful_timeout`` itself. None of this stops an attacker with more slow connections
  than there are threads: beyond the loopback default, put a proxy in front that buffers whole requests
  and times slow ones out (gunicorn's deployment docs recommend nginx for this; ``client_header_timeout``,
  ``client_body_timeout``, ``proxy_request_buffering on``).
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

# --- workers and threads ------------------------------------------------------------------------------------
# gthread, with gunicorn's own error answers (414, 431, 400, ...) rewritten as the app's problem+json with its
# security headers (app/serving.py).
worker_class = "app.serving.ProblemThreadWorker"
# One worker process per core (at least 2, so one busy or restarting worker never leaves none): the most
# CPU-bound predictions that can run in parallel.
workers = max(2, _cores())
# Threads per worker: a thread is held by every request being read, computed or written. 32 lets 20 slow
# or hostile clients sit on threads in one worker (all of them may land on the same one) while 12 more
# keep serving; an idle thread costs only its stack.
threads = 32
# Connections a worker holds at once (busy in a thread or kept alive in its poller); past it the worker
# stops accepting and the others take the new connections.
worker_connections = 1000

# --- time limits --------------------------------------------------------------------------------------------
# A worker whose main loop is silent this long (a hang, not a slow request: see above) is killed and
# replaced. Predictions take at most about a second (model.scenario.limits), so 30 s is only ever a real hang.
timeout = 30
# On stop or restart (SIGTERM, SIGHUP) workers finish the requests they hold for at most this long, then
# are killed (a worker recycled by max_requests: see above). Requests take about a second at most; this
# leaves room for slow networks and bounds how long a stop can take.
graceful_timeout = 10
# How long an idle kept-alive connection waits for its next request (in the poller, holding no thread).
keepalive = 2

# --- request size limits (gunicorn answers 414/431/400 itself, before the app: as problem+json, app/serving.py) -
# Request line (method, path and query): gunicorn's largest allowed value, so a query over the app's
# API_MAX_QUERY_BYTES (4096) but under this still reaches the app and gets its own 414 (query-too-long, naming
# max_query_bytes); only a longer line gets the server's 414 (request-line-too-long).
limit_request_line = 8190
limit_request_fields = 50  # header fields; browsers send about 20
limit_request_field_size = 8190  # bytes of one header field (name and value)

# --- bounded memory over time -------------------------------------------------------------------------------
# A worker is replaced (gracefully) after this many requests, plus a random 0..jitter so the workers do
# not restart together. Memory is already bounded by the per-process answers cache (API_CACHE_BYTES);
# this bounds anything else that grows, at the price of a cold cache and about 0.7 s of start-up per
# restart: at the README's ~1,000 cached answers/s (two workers) each restarts about every 20 s, at
# ordinary loads rarely.
max_requests = 10_000
max_requests_jitter = 1_000

# --- logging ------------------------------------------------------------------------------------------------
accesslog = None  # no access log (GUNICORN_CMD_ARGS="--access-logfile -" writes one to stdout)
errorlog = "-"  # start-up, worker and error messages to stderr
loglevel = "info"

# --- what this server does not offer ------------------------------------------------------------------------
# gunicorn 25.1+ opens a control socket ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl) through
# which a local user can change the worker count or stop the server; a second instance (a test, a second
# checkout) would take over the same path. Not wanted here.
control_socket_disable = True
