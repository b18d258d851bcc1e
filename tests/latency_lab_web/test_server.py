"""The README's ``bash scripts/run.sh``, for real: gunicorn on a free port, attacked and then stopped.

One server for the module, started once (after run.sh's venv set-up, gunicorn answers within about two
seconds) and stopped by the last test (or, if that did not run, by the fixture): the expensive requests
the model refuses are answered promptly (within CRITICAL_LIMIT_S) with a 4xx, 20 clients trickling half a request body
starve neither ``/healthz`` nor a prediction, nor do 500 connections trickling headers or bodies (``/healthz`` under
100 ms meanwhile), the server's own error answers (414, 431, 400, 501, 417, sent
as raw bytes) are problem+json with the app's security headers while a query just over the app's 4,096 bytes
still gets the app's own 414, and SIGTERM ends every process of the server within its graceful timeout even
with a client stuck mid-request.
"""

from __future__ import annotations

import ast
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
SETUP_TIMEOUT_S = 300.0  # run.sh's venv set-up (pip install, pip install -e . building the engine)
START_TIMEOUT_S = 60.0  # then from gunicorn listening to a 200 from /healthz
# Bounds that catch the failures issue 14 found (a worker held 30 s, /healthz 32 s behind two slow clients) without
# timing a shared machine to the millisecond: the one-second promise itself is measured in CPU time by
# bench/worst_case.py (every route's slowest request under 1 s, 2026-11-25), not here.
CRITICAL_LIMIT_S = 3.0  # each expensive request: answered (4xx or a correct 200) within this
HEALTHZ_LIMIT_S = 0.5  # /healthz under the slow-client attack, every one of the samples
HEALTHZ_SAMPLES = 5
SLOW_CLIENTS = 20
SLOW_BODY_BYTES = 10_000  # each slow client announces this body and sends half of it at once
TRICKLE_EVERY_S = 0.5  # then one more byte this often
TRICKLE_FOR_S = 10.0  # for this long in all


def _config_value(name: str) -> Any:
    """A setting of scripts/gunicorn.conf.py, read from its source (running it would read $PORT and $HOST)."""
    tree = ast.parse((ROOT / "scripts" / "gunicorn.conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(name)


GRACEFUL_TIMEOUT_S = float(_config_value("graceful_timeout"))
STOP_TIMEOUT_S = GRACEFUL_TIMEOUT_S + 5  # a stop, even with a client stuck in a request


def live_processes() -> Iterator[tuple[int, int, int]]:
    """``(pid, parent pid, process group)`` of every live process (zombies left out), from ``/proc``. Also used by
    bench/soak.py."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        state, ppid, group = stat[stat.rindex(")") + 2 :].split()[:3]
        if state != "Z":
            yield int(entry.name), int(ppid), int(group)


@dataclass
class Server:
    """The ``bash scripts/run.sh`` process (its own session and process group) and its log."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    stopped: bool = False
    setup_seconds: float | None = None
    start_seconds: float | None = None
    stop_seconds: float | None = None
    leftover: list[int] = field(default_factory=list)

    def output(self, tail: int = 4000) -> str:
        """The last ``tail`` characters of run.sh's output (pip's and gunicorn's); 0: all of it."""
        text = self.log.read_text(errors="replace")
        return text[-tail:] if tail else text

    def group_members(self) -> list[int]:
        """Live processes (zombies excluded) of the server's process group: gunicorn's master and workers."""
        pgid = self.proc.pid
        if not Path("/proc/self/stat").exists():  # no procfs: the signal test (counts zombies too)
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return []
            return [pgid]
        return [pid for pid, _ppid, group in live_processes() if group == pgid]

    def stop(self) -> int:
        """SIGTERM to the whole group (as a service manager or a terminal's process group would get); SIGKILL
        to whatever is left after STOP_TIMEOUT_S. Sets ``stop_seconds`` (until the last process of the group
        ended) and ``leftover`` (what was still running then). Returns the master's exit status."""
        if self.stopped:
            return self.proc.returncode
        self.stopped = True
        start = time.monotonic()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pass
        # a worker the master killed at the end of its graceful timeout may take a moment to be gone
        deadline = max(start + STOP_TIMEOUT_S, time.monotonic() + 1)
        while self.group_members() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.stop_seconds = time.monotonic() - start
        self.leftover = self.group_members()
        if self.leftover or self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait()
        return self.proc.returncode


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes
    seconds: float
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def request(port: int, method: str, path: str, body: Any = None, timeout: float = 10.0) -> Answer:
    """One request on a new connection; ``seconds`` from before connecting to the last byte of the body."""
    headers = {"Connection": "close", "Accept-Encoding": "identity"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    start = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        payload = response.read()
    finally:
        conn.close()
    seconds = time.perf_counter() - start
    return Answer(
        status=response.status,
        content_type=response.getheader("Content-Type", ""),
        body=payload,
        seconds=seconds,
        headers={k.lower(): v for k, v in response.getheaders()},
    )


def start_server(log: Path, port: int | None = None, env_extra: dict[str, str] | None = None) -> Server:
    """``bash scripts/run.sh`` on ``port`` (a free one if ``None``), with ``env_extra`` added to its environment,
    answering ``/healthz``; RuntimeError saying why if not (the server is then stopped). Also used by
    bench/soak.py."""
    port = port or free_port()
    env = dict(os.environ)
    env.pop("HOST", None)  # the README's default: loopback
    env.update(env_extra or {})
    env["PORT"] = str(port)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killpg reaches gunicorn's master and workers
        )
    srv = Server(proc=proc, port=port, log=log)
    try:
        # run.sh first sets up the venv (pip, and the engine's build); that is not the server's start-up
        setup_deadline = time.monotonic() + SETUP_TIMEOUT_S
        while "Listening at:" not in srv.output(0):
            if proc.poll() is not None:
                raise RuntimeError(f"bash scripts/run.sh exited with {proc.returncode} before serving:\n{srv.output()}")
            if time.monotonic() > setup_deadline:
                raise RuntimeError(
                    f"gunicorn not listening after {SETUP_TIMEOUT_S:.0f} s of venv set-up:\n{srv.output()}"
                )
            time.sleep(0.1)
        srv.setup_seconds = time.monotonic() - (setup_deadline - SETUP_TIMEOUT_S)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {proc.returncode} before serving:\n{srv.output()}")
            try:
                if request(port, "GET", "/healthz", timeout=2).status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"no 200 from /healthz within {START_TIMEOUT_S:.0f} s of gunicorn listening:\n{srv.output()}"
                )
            time.sleep(0.1)
        srv.start_seconds = time.monotonic() - (deadline - START_TIMEOUT_S)
    except BaseException:
        srv.stop()
        raise
    return srv


def served(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Server]:
    """A module fixture's body: :func:`start_server` (a failure to start fails the test), yielded, then stopped."""
    try:
        srv = start_server(tmp_path_factory.mktemp(name) / "run.log")
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from served(tmp_path_factory, "server")


def test_served_by_gunicorn(server: Server) -> None:
    log = server.output(0)
    print(f"\nvenv set-up {server.setup_seconds:.1f} s, then /healthz answered {server.start_seconds:.1f} s later")
    assert "Using worker: latency_lab_web.serving.ProblemGeventWorker" in log, log
    assert f"Listening at: http://{HOST}:{server.port}" in log, log


# --- expensive requests: refused fast (or answered), never a 500, never a hang -------------------------

PAGE_LIMIT = "/?http.server_write_bytes=1&page.html_bytes=3000000"
CRITICAL: list[tuple[str, str, str, dict[str, Any] | None]] = [
    (
        "getall-11MB-html-1-byte-writes",
        "POST",
        "/api/v1/predict",
        {
            "protocols": ["getall"],
            "page": {"html_bytes": 11_000_000, "object_bytes": []},
            "http": {"server_write_bytes": 1},
        },
    ),
    ("page-3MB-html-1-byte-writes", "GET", PAGE_LIMIT, None),
    (
        "http10-mss100-64KiB-requests-1000x1000B",
        "POST",
        "/api/v1/predict",
        {
            "protocols": ["http10"],
            "tcp": {"mss_bytes": 100},
            "http": {"request_bytes": 65536},
            "page": {"html_bytes": 1000, "object_count": 1000, "object_size_bytes": 1000},
        },
    ),
    # the same with objects small enough to pass the scenario's segment cap: the engine's budget refuses it
    (
        "http10-mss100-64KiB-requests-1000x500B",
        "POST",
        "/api/v1/predict",
        {
            "protocols": ["http10"],
            "tcp": {"mss_bytes": 100},
            "http": {"request_bytes": 65536},
            "page": {"html_bytes": 1000, "object_count": 1000, "object_size_bytes": 500},
        },
    ),
    (
        "tls12-no-resumption-mss100-1000x1000B",
        "POST",
        "/api/v1/predict",
        {
            "tls": {"version": "1.2", "resumption": "none"},
            "tcp": {"mss_bytes": 100},
            "page": {"object_count": 1000, "object_size_bytes": 1000},
        },
    ),
    (
        "tls12-no-resumption-mss100-1000x500B",
        "POST",
        "/api/v1/predict",
        {
            "tls": {"version": "1.2", "resumption": "none"},
            "tcp": {"mss_bytes": 100},
            "page": {"object_count": 1000, "object_size_bytes": 500},
        },
    ),
    (
        "page-tls12-no-resumption-mss100-1000x500B",
        "GET",
        # the calculator's canonical query order (another order is redirected there)
        "/?protocols=http10&tcp.mss_bytes=100&page.object_count=1000&page.object_size_bytes=500"
        "&tls.version=1.2&tls.resumption=none",
        None,
    ),
]


@pytest.mark.parametrize(("name", "method", "path", "body"), CRITICAL, ids=[c[0] for c in CRITICAL])
def test_expensive_request_answered_fast(
    server: Server, name: str, method: str, path: str, body: dict[str, Any] | None
) -> None:
    try:
        answer = request(server.port, method, path, body, timeout=5 * CRITICAL_LIMIT_S)
    except TimeoutError:
        pytest.fail(f"{method} {path}: no answer within {5 * CRITICAL_LIMIT_S:.0f} s")
    print(f"\n{name}: {answer.status} in {answer.seconds * 1000:.0f} ms")
    assert answer.status == 200 or 400 <= answer.status < 500, (answer.status, answer.body[:500])
    assert answer.seconds < CRITICAL_LIMIT_S, f"{answer.status} after {answer.seconds:.2f} s"
    if path.startswith("/api/"):
        if answer.status == 200:
            assert answer.content_type.startswith("application/json"), answer.content_type
            results = answer.json()["results"]
            assert [r["protocol"] for r in results] == (body or {}).get("protocols", [r["protocol"] for r in results])
            assert all(r["page_load_ms"] > 0 for r in results), results
        else:
            assert answer.content_type.startswith("application/problem+json"), answer.content_type
            problem = answer.json()
            assert problem["status"] == answer.status and problem["detail"], problem
    else:
        assert answer.content_type.startswith("text/html"), answer.content_type
        page = answer.body.decode()
        if answer.status != 200:  # the form, with a message saying what is wrong: on the field that causes it
            # (issue 25: a limit's message in words on its field, tests/latency_lab_web/test_form.py), or in the form's alert
            on_field = re.search(r'aria-invalid="true"', page) and re.search(r'class="field-error"[^>]*>[^<]+', page)
            in_alert = re.search(r'role="alert"', page) and "The scenario is not valid" in page
            assert on_field or in_alert, page[:2000]


# --- slow clients: 20 connections trickling half a request body ------------------------------------------


class SlowClient(threading.Thread):
    """Sends the headers of a predict request and half its body, then a byte every TRICKLE_EVERY_S."""

    def __init__(self, port: int, halt: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.halt = halt
        self.ready = threading.Event()
        self.sent = 0
        self.error: BaseException | None = None
        self.sock: socket.socket | None = None

    def run(self) -> None:
        try:
            sock = socket.create_connection((HOST, self.port), timeout=5)
            self.sock = sock
            head = (
                f"POST /api/v1/predict HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {SLOW_BODY_BYTES}\r\n\r\n"
            ).encode()
            body = b'{"protocols": ["persistent"]' + b" " * (SLOW_BODY_BYTES - 29) + b"}"
            assert len(body) == SLOW_BODY_BYTES
            sock.sendall(head + body[: SLOW_BODY_BYTES // 2])
            self.sent = SLOW_BODY_BYTES // 2
            self.ready.set()
            while not self.halt.wait(TRICKLE_EVERY_S) and self.sent < SLOW_BODY_BYTES - 1:
                sock.sendall(body[self.sent : self.sent + 1])
                self.sent += 1
        except BaseException as error:  # reported by the test
            self.error = error
            self.ready.set()

    def answered(self) -> bytes | None:
        """What the server has sent back so far: None while it is still waiting for the body (nothing to read),
        else the bytes (b"": it closed the connection)."""
        assert self.sock is not None
        readable, _, _ = select.select([self.sock], [], [], 0)
        return self.sock.recv(65536) if readable else None


def test_slow_clients_do_not_starve_the_server(server: Server) -> None:
    # the figures to compare with: the same requests on the idle server
    idle = [request(server.port, "GET", "/healthz").seconds for _ in range(HEALTHZ_SAMPLES)]

    stop = threading.Event()
    clients = [SlowClient(server.port, stop) for _ in range(SLOW_CLIENTS)]
    start = time.monotonic()
    for client in clients:
        client.start()
    try:
        for client in clients:
            assert client.ready.wait(5), "a slow client could not connect"
            assert client.error is None, client.error
        time.sleep(1.0)  # every slow request is in the server by now, waiting for its body

        healthz: list[float] = []
        for _ in range(HEALTHZ_SAMPLES):
            try:
                answer = request(server.port, "GET", "/healthz", timeout=5)
            except TimeoutError:
                pytest.fail(f"GET /healthz: no answer within 5 s while {SLOW_CLIENTS} slow clients send bodies")
            assert answer.status == 200 and answer.json() == {"status": "ok"}, answer
            healthz.append(answer.seconds)
            time.sleep(0.5)
        predict = request(server.port, "POST", "/api/v1/predict", {"protocols": ["persistent", "pipelined"]}, timeout=5)
        assert predict.status == 200, predict.body[:500]
        assert [r["protocol"] for r in predict.json()["results"]] == ["persistent", "pipelined"]
        page = request(server.port, "GET", "/?preset=n97-wan", timeout=5)
        assert page.status == 200 and page.content_type.startswith("text/html"), page.status

        # the attack held for the whole time: every slow client still sending, none answered yet
        while time.monotonic() - start < TRICKLE_FOR_S:
            time.sleep(0.1)
        for client in clients:
            assert client.error is None, client.error
            assert client.is_alive() and client.sent > SLOW_BODY_BYTES // 2, (client.sent, client.error)
            assert client.answered() is None, "the server answered a request whose body is not complete"
    finally:
        stop.set()
        for client in clients:
            client.join(5)
            if client.sock is not None:
                client.sock.close()

    print(
        f"\nidle /healthz: max {max(idle) * 1000:.1f} ms; under {SLOW_CLIENTS} slow clients: "
        + ", ".join(f"{s * 1000:.1f}" for s in healthz)
        + f" ms (max {max(healthz) * 1000:.1f}); predict {predict.seconds * 1000:.0f} ms, "
        f"page {page.seconds * 1000:.0f} ms; slow clients sent {min(c.sent for c in clients)}.."
        f"{max(c.sent for c in clients)} of {SLOW_BODY_BYTES} bytes over {time.monotonic() - start:.1f} s"
    )
    assert max(healthz) < HEALTHZ_LIMIT_S, [round(s * 1000, 1) for s in healthz]


# --- 500 slow connections: half trickling headers, half trickling bodies (issue 26) ------------------------------

MANY_SLOW = 500  # connections held open at once, half of each kind
# /healthz meanwhile: issue 26's goal, held by the median of the samples, and every sample under MANY_HEALTHZ_MAX_S
# (main's gthread server gave no answer within 5 s). The header connections are closed by the server together
# (keepalive after they opened together) and open again together: a burst of 250 new connections every 2 s, which
# on a machine busy with other work (load average 14-15 on 2 cores, 2026-11-27 23:41-23:44 UTC) put 2 to 4 of 20
# samples at 134 ms to 1.04 s while the median stayed 9-22 ms (at load average 9: median 5.6 ms, max 16.5 ms).
MANY_HEALTHZ_LIMIT_S = 0.1
MANY_HEALTHZ_MAX_S = 2.0
MANY_HEALTHZ_SAMPLES = 20


class SlowHorde(threading.Thread):
    """``MANY_SLOW`` connections from one thread: half send a request line and part of a header and then a header
    byte every TRICKLE_EVERY_S; half send a predict request's headers and half its body and then a body byte every
    TRICKLE_EVERY_S. A connection the server closes is opened again at once (as an attacker would), so the number
    held stays at ``MANY_SLOW``; a body connection that gets an answer before its body is complete is a failure."""

    def __init__(self, port: int, halt: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.halt = halt
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.reopened = {"headers": 0, "body": 0}
        self.answered_early: list[bytes] = []
        self.socks: list[tuple[str, socket.socket]] = []

    def _open(self, kind: str) -> socket.socket:
        sock = socket.create_connection((HOST, self.port), timeout=5)
        if kind == "headers":
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nX-Slow: ".encode())
        else:
            head = (
                f"POST /api/v1/predict HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {SLOW_BODY_BYTES}\r\n\r\n"
            ).encode()
            sock.sendall(head + b'{"protocols": ["persistent"]' + b" " * (SLOW_BODY_BYTES // 2 - 28))
        sock.setblocking(False)
        return sock

    def run(self) -> None:
        try:
            for n in range(MANY_SLOW):
                kind = ("headers", "body")[n % 2]
                self.socks.append((kind, self._open(kind)))
            self.ready.set()
            while not self.halt.wait(TRICKLE_EVERY_S):
                for i, (kind, sock) in enumerate(self.socks):
                    closed = False
                    try:
                        readable, _, _ = select.select([sock], [], [], 0)
                        if readable:
                            data = sock.recv(65536)
                            if data and kind == "body":
                                self.answered_early.append(data[:200])
                            closed = True
                        else:
                            sock.send(b"a" if kind == "headers" else b" ")
                    except OSError:
                        closed = True
                    if closed:
                        sock.close()
                        self.reopened[kind] += 1
                        self.socks[i] = (kind, self._open(kind))
        except BaseException as error:  # reported by the test
            self.error = error
            self.ready.set()

    def close(self) -> None:
        for _, sock in self.socks:
            sock.close()


def test_500_slow_connections_leave_healthz_fast(server: Server) -> None:
    """Issue 26: 64-70 connections trickling a body took /healthz to a 10 s timeout behind gthread's threads. The
    README's server now reads requests on an event loop (gevent workers): 500 connections trickling headers or
    bodies hold no thread, and /healthz answers in under 100 ms meanwhile (the median; none over MANY_HEALTHZ_MAX_S)."""
    idle = [request(server.port, "GET", "/healthz").seconds for _ in range(HEALTHZ_SAMPLES)]
    stop = threading.Event()
    horde = SlowHorde(server.port, stop)
    horde.start()
    try:
        assert horde.ready.wait(60), "the slow connections could not be opened"
        assert horde.error is None, horde.error
        time.sleep(2 * TRICKLE_EVERY_S)  # every connection has trickled since it was opened
        healthz: list[float] = []
        for _ in range(MANY_HEALTHZ_SAMPLES):
            try:
                answer = request(server.port, "GET", "/healthz", timeout=5)
            except TimeoutError:
                pytest.fail(f"GET /healthz: no answer within 5 s while {MANY_SLOW} slow connections trickle")
            assert answer.status == 200 and answer.json() == {"status": "ok"}, answer
            healthz.append(answer.seconds)
            time.sleep(0.2)
        predict = request(server.port, "POST", "/api/v1/predict", {"protocols": ["persistent"]}, timeout=5)
        assert predict.status == 200, predict.body[:500]
        assert horde.error is None, horde.error
        assert horde.is_alive() and len(horde.socks) == MANY_SLOW
        assert not horde.answered_early, horde.answered_early[:3]
    finally:
        stop.set()
        horde.join(10)
        horde.close()
    over = [round(s * 1000, 1) for s in healthz if s >= MANY_HEALTHZ_LIMIT_S]
    print(
        f"\nidle /healthz: max {max(idle) * 1000:.1f} ms; under {MANY_SLOW} slow connections: median "
        f"{sorted(healthz)[len(healthz) // 2] * 1000:.1f} ms, max {max(healthz) * 1000:.1f} ms, {len(over)} of "
        f"{len(healthz)} over {MANY_HEALTHZ_LIMIT_S * 1000:.0f} ms; predict {predict.seconds * 1000:.0f} ms; "
        f"reopened after the server closed them: {horde.reopened}"
    )
    assert sorted(healthz)[len(healthz) // 2] < MANY_HEALTHZ_LIMIT_S, [round(s * 1000, 1) for s in healthz]
    assert max(healthz) < MANY_HEALTHZ_MAX_S, [round(s * 1000, 1) for s in healthz]


# --- the server's own error answers: problem+json with the app's security headers --------------------------------

_LINE_LIMIT = int(_config_value("limit_request_line"))
_FIELDS_LIMIT = int(_config_value("limit_request_fields"))
_FIELD_SIZE_LIMIT = int(_config_value("limit_request_field_size"))
#: (id, raw request, status, problem type, instance)
SERVER_ERRORS: list[tuple[str, bytes, int, str, str]] = [
    (
        "request line over gunicorn's limit",
        b"GET /api/v1/predict?network.rtt_ms=" + b"7" * (_LINE_LIMIT + 10) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        414,
        "/api/docs#problem-request-line-too-long",
        "",
    ),
    # over the app's 4,096-byte query limit but under gunicorn's line limit: the app's own 414 is reachable
    (
        "query over max_query_bytes, under gunicorn's limit",
        b"GET /api/v1/predict?network.rtt_ms=" + b"7" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        414,
        "/api/docs#problem-query-too-long",
        "/api/v1/predict",
    ),
    (
        "too many header fields",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-F%d: 1\r\n" % i for i in range(_FIELDS_LIMIT + 5))
        + b"\r\n",
        431,
        "/api/docs#problem-header-fields-too-large",
        "",
    ),
    (
        "a header field too long",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * (_FIELD_SIZE_LIMIT + 10) + b"\r\n\r\n",
        431,
        "/api/docs#problem-header-fields-too-large",
        "",
    ),
    ("not a request line", b"GARBAGE\r\n\r\n", 400, "/api/docs#problem-bad-request", ""),
    ("bad HTTP version", b"GET /healthz HTTP/9.1\r\nHost: x\r\n\r\n", 400, "/api/docs#problem-bad-request", ""),
    (
        "bad header name",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
        400,
        "/api/docs#problem-bad-request",
        "",
    ),
    (
        "unsupported transfer coding",
        b"POST /api/v1/predict HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: foo\r\n\r\n0\r\n\r\n",
        501,
        "about:blank",
        "",
    ),
    ("unknown expectation", b"GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-foo\r\n\r\n", 417, "about:blank", ""),
]


def raw_request(port: int, data: bytes, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` as is on a new connection; the answer's status, headers (names lower-cased) and body, read
    until the server closes the connection (every one of these answers says Connection: close)."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize(
    ("name", "data", "status", "kind", "instance"), SERVER_ERRORS, ids=[e[0] for e in SERVER_ERRORS]
)
def test_server_errors_are_problems_with_the_security_headers(
    server: Server, name: str, data: bytes, status: int, kind: str, instance: str
) -> None:
    from latency_lab_web import SECURITY_HEADERS

    got, headers, body = raw_request(server.port, data)
    print(f"\n{name}: {got} {body[:160].decode(errors='replace')}")
    assert got == status, (headers, body[:500])
    assert headers["content-type"] == "application/problem+json", headers
    for header, value in SECURITY_HEADERS.items():
        assert headers.get(header.lower()) == value, (header, headers)
    assert headers.get("cache-control") == "no-store", headers
    assert int(headers["content-length"]) == len(body)
    doc = json.loads(body)
    assert (doc["status"], doc["type"], doc["instance"]) == (status, kind, instance), doc
    assert doc["title"] and doc["detail"], doc
    if status == 431:
        assert f"{_FIELDS_LIMIT} fields" in doc["detail"] and f"{_FIELD_SIZE_LIMIT:,} bytes" in doc["detail"], doc
    if kind.endswith("request-line-too-long"):
        assert f"{_LINE_LIMIT:,} bytes" in doc["detail"], doc
    if kind.endswith("query-too-long"):  # the app's own answer
        assert doc["limit"]["name"] == "max_query_bytes", doc
    else:
        assert doc["errors"] == [], doc
    # the server still answers after each
    assert request(server.port, "GET", "/healthz").status == 200


# --- connections take turns on one worker ------------------------------------------------------------------

TURNS_PIPELINED = 10  # predictions of TURNS_QUERY sent at once on one connection (each some tens of ms of CPU)
TURNS_QUERY = "page.object_count=50&page.object_size_bytes=20000"
TURNS_MOST_BEFORE = 3  # of them, at most this many may be answered after the first and before the other's /healthz


def _answers_in(data: bytes) -> int:
    return data.count(b"HTTP/1.1 ")


def test_workers_are_not_recycled() -> None:
    """Recycling a worker after N requests took the whole server away for over a second: with the load spread
    evenly, both workers reached their count within a second of each other (a jitter of 0-1,000 on 10,000), and
    until both had finished (gunicorn polls a stopping worker once a second) and their successors had started,
    nothing answered: bench/api_load.py's cached predictions had a p99 of 1.40-1.55 s (2026-11-28), 21.8 ms without
    recycling. Memory is bounded by the byte-capped caches instead (tests/latency_lab_web/test_memory.py)."""
    assert _config_value("max_requests") == 0
    with pytest.raises(LookupError):
        _config_value("max_requests_jitter")


def test_a_busy_connection_does_not_hold_the_others(tmp_path: Path) -> None:
    """One worker (``--workers 1``), two kept-alive connections: the first sends ten predictions at once (pipelined,
    all in the worker's buffer), the second asks ``/healthz`` once the first answer has arrived. The worker serves
    its connections in turns (latency_lab_web/serving.py: ``gevent.idle()`` after each answer), so ``/healthz`` is answered
    after at most a few more predictions; before, a connection whose next request was already there kept the
    worker until it paused, and ``/healthz`` waited for all ten. Counts, not times: a busy machine slows both
    alike."""
    try:
        srv = start_server(tmp_path / "run.log", env_extra={"GUNICORN_CMD_ARGS": "--workers 1"})
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        busy = socket.create_connection((HOST, srv.port), timeout=30)
        other = socket.create_connection((HOST, srv.port), timeout=30)
        try:
            requests = b"".join(
                f"GET /api/v1/predict?network.rtt_ms={50 + i}&{TURNS_QUERY} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
                for i in range(TURNS_PIPELINED)
            )
            busy.sendall(requests)
            received = b""
            while _answers_in(received) < 1:
                chunk = busy.recv(1 << 20)
                assert chunk, received[:300]
                received += chunk
            first = _answers_in(received)
            other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            healthz = b""
            while b"\r\n\r\n" not in healthz:
                # read both connections as their bytes come, so the busy one is never held up by a full socket
                ready, _, _ = select.select([busy, other], [], [], 30)
                assert ready, "no answer within 30 s"
                for sock in ready:
                    chunk = sock.recv(1 << 20)
                    assert chunk, (sock is other, received[:300])
                    if sock is other:
                        healthz += chunk
                    else:
                        received += chunk
            before = _answers_in(received) - first
        finally:
            busy.close()
            other.close()
        print(f"\n/healthz answered after {before} more of the {TURNS_PIPELINED} pipelined predictions")
        assert healthz.startswith(b"HTTP/1.1 200"), healthz[:300]
        assert before <= TURNS_MOST_BEFORE, f"/healthz waited for {before} predictions on the other connection"
    finally:
        srv.stop()


# --- shutdown -----------------------------------------------------------------------------------------------


def test_stops_cleanly(server: Server) -> None:
    """Last in the module: SIGTERM to the group ends gunicorn's master and every worker, with status 0,
    within the graceful timeout, even with a client still in the middle of sending a request body."""
    workers = re.findall(r"Booting worker with pid: (\d+)", server.output(0))
    assert len(workers) >= 2, server.output()
    assert len(server.group_members()) == 1 + len(workers), (server.group_members(), workers)
    halt = threading.Event()
    stuck = SlowClient(server.port, halt)
    stuck.start()
    try:
        assert stuck.ready.wait(5) and stuck.error is None, stuck.error
        time.sleep(0.5)  # in the server, waiting for the rest of its body
        status = server.stop()
    finally:
        halt.set()
        stuck.join(5)
        if stuck.sock is not None:
            stuck.sock.close()
    print(f"\nstopped in {server.stop_seconds:.2f} s with status {status} (one slow client still sending)")
    assert not server.leftover, f"still running after {STOP_TIMEOUT_S:.0f} s: {server.leftover}"
    assert status == 0, server.output()
    assert server.stop_seconds is not None and server.stop_seconds < STOP_TIMEOUT_S
    assert "Shutting down: Master" in server.output(), server.output()
