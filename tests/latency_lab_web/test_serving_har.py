"""A HAR through the real server (gunicorn with scripts/gunicorn.conf.py, latency_lab_web/serving.py's worker): its body
is held to max_har_bytes, not to the scenarios' max_body_bytes, with Content-Length and chunked alike; over it, 413
naming max_har_bytes. The server is gunicorn run from this interpreter's environment (scripts/run.sh's command without
its venv set-up)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from latency_lab.scenario.limits import MAX_HAR_BYTES
from tests.latency_lab_web.test_server import HOST, free_port, raw_request, request

ROOT = Path(__file__).parents[2]

DATA = Path(__file__).parents[1] / "data" / "har"


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    chosen = free_port()
    log = tmp_path_factory.mktemp("har") / "gunicorn.log"
    env = {**os.environ, "PORT": str(chosen), "HOST": HOST}
    command = [sys.executable, "-m", "gunicorn", "-c", "scripts/gunicorn.conf.py", "latency_lab_web:create_app()"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if request(chosen, "GET", "/healthz", timeout=2).status == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"gunicorn did not serve: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield chosen
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def big_har() -> bytes:
    """The recorded Chromium HAR padded past 64 KB (max_body_bytes) with a field the import does not read."""
    doc = json.loads((DATA / "chromium-devtools.har").read_text())
    doc["log"]["comment"] = "x" * 200_000
    return json.dumps(doc).encode()


def chunked(path: str, body: bytes, size: int = 50_000) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
    chunks = b"".join(
        b"%x\r\n" % len(body[i : i + size]) + body[i : i + size] + b"\r\n" for i in range(0, len(body), size)
    )
    return head.encode() + b"Connection: close\r\n\r\n" + chunks + b"0\r\n\r\n"


def with_length(path: str, body: bytes) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"Connection: close\r\n\r\n" + body


def test_a_har_over_max_body_bytes_is_read(port: int) -> None:
    body = big_har()
    assert len(body) > 64 * 1024
    for data in (with_length("/api/v1/har", body), chunked("/api/v1/har", body)):
        status, _, answer = raw_request(port, data, timeout=20)
        assert status == 200, answer[:300]
        assert json.loads(answer)["page"]["objects"] > 0


def test_a_har_over_max_har_bytes_is_413(port: int) -> None:
    """Refused from its Content-Length, or from its chunk sizes as they arrive, before the bytes are sent (only the
    head and a few bytes are sent here: the server answers and closes without reading the rest)."""
    most = MAX_HAR_BYTES
    head = "POST /api/v1/har HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
    for data in (
        head.encode() + f"Content-Length: {most + 1}\r\n\r\n".encode() + b"{",
        head.encode() + b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % (2 * most) + b"{",
    ):
        status, _, answer = raw_request(port, data, timeout=20)
        assert status == 413, answer[:300]
        assert json.loads(answer)["limit"]["name"] == "max_har_bytes"
