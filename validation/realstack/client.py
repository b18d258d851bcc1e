"""The real-stack bench's HTTP/1.x client (issue 18): Python's http.client, run inside the client namespace.

    python3 client.py '{"protocol": ..., "host": ..., "port": ..., "paths": [...], "request_bytes": ...,
                        "nagle": ..., "parallel": ...}'

Loads the page the way the model's schedules do: the HTML first, then the objects in order.

- ``http10``: a new connection per object, each request with ``Connection: close``; the next connection
  opens when the previous response is complete.
- ``persistent``: one connection, each request when the previous response is complete.
- ``http10_parallel``: the HTML on its own connection, then the objects over ``parallel`` connections at a
  time, each object on a new connection (threads).

Every request is one write of exactly ``request_bytes`` (an ``X-Pad`` header fills it up). ``nagle`` false
keeps http.client's TCP_NODELAY, true clears it. ``tls`` ("1.2" or "1.3") speaks that TLS version only
(``ssl``, the server's certificate checked against ``cafile``; a full handshake on every connection: no session
is reused); ``fast_open`` opens every connection with TCP_FASTOPEN_CONNECT, so the request rides on the SYN
when the kernel holds the server's cookie (``"protocol": "prime"`` loads the first path once to get it). Prints one JSON document: each object's connection (the
client port), its place on that connection, its response header and body bytes and when it completed
(time.monotonic), and the bytes of each request.
Only the standard library, so it runs under any python3 without the project's virtual environment.
"""

from __future__ import annotations

import http.client
import json
import queue
import socket
import ssl
import sys
import threading
import time
from typing import Any

TCP_FASTOPEN_CONNECT = getattr(socket, "TCP_FASTOPEN_CONNECT", 30)  # Linux 4.11


class Conn(http.client.HTTPConnection):
    nagle = False
    fast_open = False
    tls: ssl.SSLContext | None = None

    def connect(self) -> None:
        if self.fast_open:
            # connect() returns at once; the SYN leaves with the first write, carrying it when a cookie is cached
            # (net/ipv4/tcp_fastopen.c, tcp_fastopen_defer_connect)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1)
            s.settimeout(self.timeout)
            s.connect((self.host, self.port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sock = s
        else:
            super().connect()
        if self.nagle:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
        if self.tls is not None:
            self.sock = self.tls.wrap_socket(self.sock, server_hostname=self.host)


def new_conn(spec: dict[str, Any]) -> Conn:
    conn = Conn(spec["host"], spec["port"], timeout=120)
    conn.nagle = spec["nagle"]
    conn.fast_open = bool(spec.get("fast_open"))
    if spec.get("tls", "none") != "none":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(spec["cafile"])
        v = ssl.TLSVersion.TLSv1_3 if spec["tls"] == "1.3" else ssl.TLSVersion.TLSv1_2
        ctx.minimum_version = ctx.maximum_version = v
        conn.tls = ctx
    return conn


def request_head(path: str, host: str, close: bool, size: int) -> list[tuple[str, str]]:
    """The headers after Host that make the request exactly ``size`` bytes (``host`` as http.client writes
    it: with the port when it is not 80)."""
    base = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n"
    headers = [("Connection", "close")] if close else []
    used = len(base) + sum(len(k) + len(v) + 4 for k, v in headers) + 2
    pad = size - used - len("X-Pad: \r\n")
    if pad < 0:
        raise SystemExit(f"request_bytes {size} is below the smallest request for {path} ({used + 9} bytes)")
    return [*headers, ("X-Pad", "x" * pad)]


def fetch(conn: Conn, path: str, spec: dict[str, Any], close: bool) -> dict[str, Any]:
    conn.putrequest("GET", path, skip_accept_encoding=True)
    host = spec["host"] if spec["port"] == 80 else f"{spec['host']}:{spec['port']}"
    for k, v in request_head(path, host, close, spec["request_bytes"]):
        conn.putheader(k, v)
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read()
    t = time.monotonic()
    if resp.status != 200:
        raise SystemExit(f"{path}: HTTP {resp.status}")
    head = len(f"HTTP/1.1 {resp.status} {resp.reason}\r\n") + sum(len(k) + len(v) + 4 for k, v in resp.msg.items())
    return {"path": path, "header_bytes": head + 2, "body_bytes": len(body), "end": t}


def one(spec: dict[str, Any], path: str, close: bool, conn: Conn | None = None) -> dict[str, Any]:
    own = conn is None
    if conn is None:
        conn = new_conn(spec)
        conn.connect()
    assert conn.sock is not None
    port = conn.sock.getsockname()[1]
    rec = fetch(conn, path, spec, close)
    rec["client_port"] = port
    rec["connection"] = id(conn)  # the same port may serve several connections one after another
    if own:
        conn.close()
    return rec


def main() -> None:
    spec = json.loads(sys.argv[1])
    paths = spec["paths"]
    proto = spec["protocol"]
    t0 = time.monotonic()
    out: list[dict[str, Any]] = []
    if proto == "http10":
        out = [one(spec, p, close=True) for p in paths]
    elif proto == "prime":
        out = [one(spec, paths[0], close=True)]
    elif proto == "persistent":
        conn = new_conn(spec)
        conn.connect()
        out = [one(spec, p, close=False, conn=conn) for p in paths]
        conn.close()
    elif proto == "http10_parallel":
        out = [one(spec, paths[0], close=True)]
        work: queue.Queue[tuple[int, str]] = queue.Queue()
        for i, p in enumerate(paths[1:]):
            work.put((i, p))
        done: list[dict[str, Any] | None] = [None] * (len(paths) - 1)
        errors: list[BaseException] = []

        def worker() -> None:
            while True:
                try:
                    i, p = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    done[i] = one(spec, p, close=True)
                except BaseException as e:  # reported below
                    errors.append(e)
                    return

        threads = [threading.Thread(target=worker) for _ in range(min(spec["parallel"], len(paths) - 1))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise SystemExit(f"parallel load failed: {errors[0]!r}")
        out += [d for d in done if d is not None]
    else:
        raise SystemExit(f"client.py: protocol {proto!r} is not one of http10, persistent, http10_parallel")
    for rec in out:
        rec["end"] -= t0
    json.dump({"protocol": proto, "objects": out}, sys.stdout)


if __name__ == "__main__":
    main()
