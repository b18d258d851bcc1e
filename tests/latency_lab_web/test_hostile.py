"""Hostile bodies for the JSON API (issue "Serve it for a classroom"): each is a clear 4xx problem naming the field
or the limit, never a 500, a traceback or a hang.

- nesting deeper than ``max_json_depth`` is refused from the text, before anything parses, merges (``?preset=``),
  validates or caches it: a 422 ``limit-exceeded`` naming the limit and the path where it went past;
- strict JSON: a key given twice, ``NaN`` or ``Infinity`` is a 400 naming the path; an integer too long for Python
  to read is a 422 naming the field and what it allows;
- a body sent ``Transfer-Encoding: chunked`` is held to ``max_body_bytes`` like one with a Content-Length (413,
  never silently cut short), and one whose chunks are malformed is a 400.

Chunked bodies reach the app de-chunked by the WSGI server, which then sets ``wsgi.input_terminated``: the tests
give the app werkzeug's de-chunking stream (its development server's) and gunicorn's (the README's server), and
the last tests send the raw bytes to a real gunicorn started with scripts/gunicorn.conf.py.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import socket
import string
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.serving import DechunkedInput
from werkzeug.test import TestResponse

from latency_lab.scenario.json_input import MAX_JSON_DEPTH

P = "/api/v1/predict"
S = "/api/v1/sweep"
F = "/api/v1/formulas/persistent"
JSON = "application/json"
MAX_BODY = 64 * 1024


def problem(response: TestResponse, status: int) -> dict[str, Any]:
    """The problem document of an error answer, checked for its shape."""
    assert response.status_code == status, response.get_data(as_text=True)[:2000]
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json(force=True)
    assert body["status"] == status and body["detail"]
    return body


def paths(body: dict[str, Any]) -> list[str]:
    return [e["path"] for e in body["errors"]]


def nested(depth: int, leaf: str = "1") -> str:
    """An array nested ``depth`` deep around ``leaf``."""
    return "[" * depth + leaf + "]" * depth


def nested_objects(depth: int, key: str = "a") -> str:
    """An object nested ``depth`` deep (``{"a": {"a": ... 1}}``)."""
    return f'{{"{key}": ' * depth + "1" + "}" * depth


# --- nesting: max_json_depth -------------------------------------------------------------------------------------


# (id, url, body, the path where the limit was passed)
TOO_DEEP: list[tuple[str, str, str, str]] = [
    (
        "sweep values nested 300 deep",
        S,
        f'{{"field": "network.rtt_ms", "values": {nested(300)}}}',
        "values" + "[0]" * 31,
    ),
    (
        "field nested 500 deep with a preset",
        P + "?preset=h96-lan",
        f'{{"network": {nested_objects(500)}}}',
        "network" + ".a" * 31,
    ),
    ("array nested 10,000 deep", P, nested(10_000), "[0]" * 32),
    ("nested 30,000 deep with a preset", P + "?preset=n97-wan", nested(30_000, "{}"), "[0]" * 32),
    (
        "sweep scenario nested 400 deep",
        S,
        f'{{"field": "tcp.nagle", "values": [true], "scenario": {nested_objects(400, "page")}}}',
        "scenario" + ".page" * 31,
    ),
    (
        "formula field nested 1,000 deep",
        F + "?preset=h96-lan",
        f'{{"page": {{"object_bytes": {nested(1000)}}}}}',
        "page.object_bytes" + "[0]" * 30,
    ),
    ("deep after a long string", P, '{"x": "' + "[" * 5000 + '", "y": ' + nested(40) + "}", "y" + "[0]" * 31),
]


@pytest.mark.parametrize(("url", "text", "path"), [c[1:] for c in TOO_DEEP], ids=[c[0] for c in TOO_DEEP])
def test_too_deep_is_a_limit_problem_naming_the_path(client: FlaskClient, url: str, text: str, path: str) -> None:
    body = problem(client.post(url, data=text, content_type=JSON), 422)
    assert body["type"] == "/api/docs#problem-limit-exceeded"
    assert body["limit"]["name"] == "max_json_depth"
    assert body["limit"]["maximum"] == MAX_JSON_DEPTH < body["limit"]["actual"]
    assert paths(body) == [path]
    assert "max_json_depth" in body["detail"] and "max_json_depth" in body["errors"][0]["text"]


def test_the_depth_limit_is_exact(client: FlaskClient) -> None:
    """32 levels are read (and then validated: a list of lists is not a list of sizes), 33 are refused unread."""
    at = json.dumps({"page": {"object_bytes": json.loads(nested(MAX_JSON_DEPTH - 2))}})
    body = problem(client.post(P, data=at, content_type=JSON), 422)
    assert body["type"] == "/api/docs#problem-invalid-request" and "limit" not in body
    over = json.dumps({"page": {"object_bytes": json.loads(nested(MAX_JSON_DEPTH - 1))}})
    body = problem(client.post(P, data=over, content_type=JSON), 422)
    assert body["limit"] == {"name": "max_json_depth", "maximum": MAX_JSON_DEPTH, "actual": MAX_JSON_DEPTH + 1}
    assert paths(body) == ["page.object_bytes" + "[0]" * (MAX_JSON_DEPTH - 2)]


def test_brackets_inside_strings_are_not_nesting(client: FlaskClient) -> None:
    text = json.dumps({"network": {"rtt_ms": 20}, "protocols": ["h2"], "x": "[{" * 1000 + '\\"[' * 100})
    body = problem(client.post(P, data=text, content_type=JSON), 422)  # the unknown field x, nothing else
    assert paths(body) == ["x"]


# --- strict JSON ------------------------------------------------------------------------------------------------------


def test_a_repeated_key_is_named_with_its_path(client: FlaskClient) -> None:
    text = '{"network": {"rtt_ms": 1, "bandwidth_bps": 1e6, "rtt_ms": 200}, "page": {"object_bytes": [1, {"a": 1, "a": 1}]}}'
    body = problem(client.post(P + "?preset=h96-lan", data=text, content_type=JSON), 400)
    assert body["type"] == "/api/docs#problem-invalid-json"
    assert paths(body) == ["network.rtt_ms", "page.object_bytes[1].a"]
    assert "'rtt_ms'" in body["errors"][0]["message"] and "2 times" in body["errors"][0]["message"]


def test_a_5000_digit_integer_is_out_of_range_by_name(client: FlaskClient) -> None:
    digits = "9" * 5000
    body = problem(client.post(P, data=f'{{"tcp": {{"mss_bytes": {digits}}}}}', content_type=JSON), 422)
    [entry] = body["errors"]
    assert entry["path"] == "tcp.mss_bytes" and "65,495" in entry["allowed"]
    assert "5,000 digits" in entry["text"] and digits not in body["detail"]
    body = problem(
        client.post(S, data=f'{{"field": "tcp.mss_bytes", "values": [1460, {digits}]}}', content_type=JSON), 422
    )
    assert paths(body) == ["values[1]"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(client: FlaskClient, literal: str) -> None:
    body = problem(client.post(P, data=f'{{"network": {{"loss_rate": {literal}}}}}', content_type=JSON), 400)
    assert paths(body) == ["network.loss_rate"] and body["errors"][0]["allowed"]
    text = f'{{"field": "network.rtt_ms", "start": {literal}, "stop": 1, "steps": 2}}'
    assert paths(problem(client.post(S, data=text, content_type=JSON), 400)) == ["start"]


# --- chunked bodies ---------------------------------------------------------------------------------------------------


def chunked(body: bytes, size: int = 4096) -> bytes:
    """``body`` in the chunked transfer coding."""
    out = b"".join(
        f"{len(body[i : i + size]):x}\r\n".encode() + body[i : i + size] + b"\r\n" for i in range(0, len(body), size)
    )
    return out + b"0\r\n\r\n"


def werkzeug_stream(raw: bytes) -> Any:
    """What werkzeug's development server gives the app for a chunked request."""
    return DechunkedInput(io.BytesIO(raw))


def gunicorn_stream(raw: bytes) -> Any:
    """What gunicorn gives the app for a chunked request (its Body over its ChunkedReader)."""
    from gunicorn.http.body import Body, ChunkedReader
    from gunicorn.http.unreader import IterUnreader

    class Request:  # the reader's limits are read from the request with getattr: its defaults
        pass

    return Body(ChunkedReader(Request(), IterUnreader([raw])))


SERVERS: dict[str, Callable[[bytes], Any]] = {"werkzeug": werkzeug_stream, "gunicorn": gunicorn_stream}


def post_chunked(client: FlaskClient, raw: bytes, server: str, url: str = P) -> TestResponse:
    """POST ``raw`` (chunked bytes) as the server would hand it over: de-chunked, the stream ended by the server."""
    return client.post(
        url,
        headers={"Content-Type": JSON, "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input": SERVERS[server](raw), "wsgi.input_terminated": True},
    )


def padded(size: int) -> bytes:
    """A valid scenario of exactly ``size`` bytes (spaces after it): cut short anywhere past it, still valid."""
    doc = b'{"protocols": ["h2"]}'
    return doc + b" " * (size - len(doc))


@pytest.mark.parametrize("server", SERVERS)
def test_a_chunked_body_over_the_limit_is_413(client: FlaskClient, server: str) -> None:
    response = post_chunked(client, chunked(padded(MAX_BODY + 1)), server)
    body = problem(response, 413)
    assert body["limit"]["name"] == "max_body_bytes" and body["limit"]["actual"] > MAX_BODY
    assert response.headers["Connection"] == "close"
    assert problem(post_chunked(client, chunked(padded(10 * MAX_BODY), 60_000), server), 413)


@pytest.mark.parametrize("server", SERVERS)
def test_a_chunked_body_at_the_limit_is_read_whole(client: FlaskClient, server: str) -> None:
    response = post_chunked(client, chunked(padded(MAX_BODY), 1000), server)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert [r["protocol"] for r in response.get_json()["results"]] == ["h2"]
    response = post_chunked(client, chunked(b'{"field": "network.rtt_ms", "values": [10, 20]}', 7), server, S)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]


MALFORMED = {
    "chunk size not hex": b"zz\r\n{}\r\n0\r\n\r\n",
    "negative chunk size": b"-2\r\n{}\r\n0\r\n\r\n",
    "chunk longer than its size": b"2\r\n{}  \r\n0\r\n\r\n",
    "no last chunk": b"2\r\n{}\r\n",
    "cut inside a chunk": b"10\r\n{}",
}


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_chunked_body_is_400(client: FlaskClient, server: str, raw: bytes) -> None:
    body = problem(post_chunked(client, raw, server), 400)
    assert body["type"] == "/api/docs#problem-invalid-json"
    assert "chunked" in body["detail"], body["detail"]


# --- the real server: gunicorn with scripts/gunicorn.conf.py ------------------------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def gunicorn_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """gunicorn as scripts/run.sh starts it (its config file), without run.sh's venv set-up (tests/latency_lab_web/test_server.py
    runs that), one worker; the port it listens on."""
    pytest.importorskip("gunicorn")
    port = _free_port()
    env = {**os.environ, "PORT": str(port), "GUNICORN_CMD_ARGS": "--workers 1"}
    env.pop("HOST", None)
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "scripts/gunicorn.conf.py", "latency_lab_web:create_app()"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"gunicorn exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"gunicorn not listening after 60 s:\n{log.read_text(errors='replace')[-4000:]}")
                time.sleep(0.05)
        yield port
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)  # SIGTERM to its group: the master and its worker
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        log_text = log.read_text(errors="replace")
        assert "Traceback" not in log_text, log_text[-4000:]


def raw_request(port: int, head: bytes, body: bytes) -> tuple[int, dict[str, Any]]:
    """Send ``head`` and ``body`` as they are on a new connection; the answer's status and problem (or JSON) document."""
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(head + body)
        response = http.client.HTTPResponse(sock)
        response.begin()
        data = response.read()
    assert response.getheader("Content-Type", "").split(";")[0] in (JSON, "application/problem+json")
    return response.status, json.loads(data)


def chunked_head(url: str = P) -> bytes:
    return (
        f"POST {url} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()


def sized_head(length: int, url: str = P) -> bytes:
    return (
        f"POST {url} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
    ).encode()


@pytest.mark.slow  # starts gunicorn
def test_gunicorn_holds_chunked_bodies_to_the_limit(gunicorn_port: int) -> None:
    status, doc = raw_request(gunicorn_port, chunked_head(), chunked(padded(MAX_BODY)))
    assert status == 200 and [r["protocol"] for r in doc["results"]] == ["h2"]
    status, doc = raw_request(gunicorn_port, chunked_head(), chunked(padded(MAX_BODY + 1)))
    assert (status, doc["limit"]["name"]) == (413, "max_body_bytes")
    for name, raw in MALFORMED.items():
        if name in ("no last chunk", "cut inside a chunk"):
            continue  # gunicorn waits for the rest of the body: a slow client (tests/latency_lab_web/test_server.py)
        status, doc = raw_request(gunicorn_port, chunked_head(), raw)
        assert status == 400 and "chunked" in doc["detail"], (name, status, doc)


@pytest.mark.slow  # starts gunicorn
def test_gunicorn_answers_hostile_json_with_4xx(gunicorn_port: int) -> None:
    cases = [
        (f'{{"field": "network.rtt_ms", "values": {nested(300)}}}', S, 422, "values" + "[0]" * 31),
        (f'{{"network": {nested_objects(500)}}}', P + "?preset=h96-lan", 422, "network" + ".a" * 31),
        ('{"page": {"html_bytes": ' + "9" * 5000 + "}}", P, 422, "page.html_bytes"),
        ('{"network": {"rtt_ms": 1, "rtt_ms": 2}}', P, 400, "network.rtt_ms"),
        ('{"network": {"rtt_ms": NaN}}', P, 400, "network.rtt_ms"),
    ]
    for text, url, expected, path in cases:
        body = text.encode()
        for head, sent in ((sized_head(len(body), url), body), (chunked_head(url), chunked(body))):
            status, doc = raw_request(gunicorn_port, head, sent)
            assert (status, [e["path"] for e in doc["errors"]]) == (expected, [path]), (url, doc)


@pytest.mark.slow  # starts gunicorn
@pytest.mark.parametrize("size", ["ffffffffffffffffffff", "fffffffffffff", f"{MAX_BODY + 1:x}"])
def test_gunicorn_refuses_a_chunk_over_the_limit_at_once(gunicorn_port: int, size: str) -> None:
    """Issue 26: a chunk size of ``ffffffffffffffffffff`` followed by a few bytes got no answer (the server waited for
    the chunk). A body whose chunk sizes announce more than max_body_bytes is refused as the size line arrives."""
    start = time.monotonic()
    with socket.create_connection((HOST, gunicorn_port), timeout=5) as sock:
        sock.sendall(chunked_head().replace(b"Connection: close\r\n", b"") + size.encode() + b"\r\n{}")
        response = http.client.HTTPResponse(sock)
        try:
            response.begin()
        except TimeoutError:
            pytest.fail(f"chunk size {size}: no answer within 5 s")
        doc = json.loads(response.read())
    assert (response.status, doc["limit"]["name"]) == (413, "max_body_bytes"), doc
    assert response.getheader("Connection") == "close"
    assert time.monotonic() - start < 2.0


def test_hundreds_of_unknown_parameters_give_a_small_problem(client: FlaskClient) -> None:
    """Issue 26: a 4 KB query of 685 unknown parameters returned a 3.3 MB problem document (each problem listing all
    the allowed names). The document lists the first MAX_PROBLEMS_LISTED and says how many there are (676 here)."""
    from latency_lab_web.web.problems import MAX_PROBLEMS_LISTED

    names = [a + b for a in string.ascii_lowercase for b in string.ascii_lowercase]
    query = "&".join(f"{name}=1" for name in names)
    assert len(query) <= 4096
    response = client.get(f"{P}?{query}")
    body = problem(response, 422)
    assert len(response.data) < 64 * 1024, len(response.data)
    assert len(body["errors"]) == MAX_PROBLEMS_LISTED
    head = f"{len(names)} problems, the first {MAX_PROBLEMS_LISTED} listed: "
    assert body["detail"].startswith(head), body["detail"][:200]
    assert [e["path"] for e in body["errors"]] == names[:MAX_PROBLEMS_LISTED]
    assert "network.rtt_ms" in body["errors"][0]["allowed"]


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/static//style.css?v=1", "/static/style.css?v=1"),  # merged slashes
        ("/api//v1/presets", "/api/v1/presets"),
        ("/experiments", "/experiments/"),  # the missing trailing slash
    ],
)
def test_routing_redirects_do_not_reflect_the_host(client: FlaskClient, path: str, location: str) -> None:
    """Issue 26: the Host header was reflected in werkzeug's merge-slashes redirect
    (``Location: http://evil.example/static/style.css``). The redirect now names the path alone."""
    response = client.get(path, headers={"Host": "evil.example"})
    assert response.status_code == 308
    assert response.headers["Location"] == location
