"""Record real HARs of a small page with the real Chromium on this machine (the fixtures of tests/latency_lab/scenario/test_har.py).

The page is served by two local HTTP/1.1 servers (two origins: the site, and a "third party" on another port): an
HTML document with a style sheet, a script and two images; the style sheet asks for a font and a background image;
the script adds an image and fetches a JSON document, and the third party serves the font and one of the images. Two HARs are written:

- ``chromium-devtools.har``: the HAR DevTools writes, built from Chromium's own DevTools-protocol events (Network.*
  and Page.*, read through Playwright's CDP session) as DevTools' HAR exporter builds it: ``_initiator`` (the
  initiator as Chromium reports it: the real initiator tree), ``_transferSize`` (encodedDataLength), ``timings`` from
  the resource timing (connect includes ssl), ``pageTimings.onContentLoad``/``onLoad`` from the page's events;
- ``chromium-playwright.har``: Playwright's own ``record_har_path`` (no ``_initiator``: Playwright does not record it).

Run: ``/work/main/.venv/bin/python tests/data/har/record.py [OUT_DIR]`` (default: this folder).
"""

from __future__ import annotations

import json
import random
import struct
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
#: Side of each square PNG (pixels of seeded random colours, so they do not compress: about 3 side^2 bytes).
IMAGES = {"a.png": 80, "b.png": 40, "bg.png": 30, "c.png": 50, "d.png": 60}
#: Bytes of the font (seeded random bytes: the browser fetches it, and fails to decode it, after the load).
FONT_BYTES = 15_000


def _png(side: int, rng: random.Random) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + bytes(rng.getrandbits(8) for _ in range(3 * side)) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def _files(third: str) -> dict[str, tuple[str, bytes]]:
    rng = random.Random(28)
    blobs = {name: _png(side, rng) for name, side in IMAGES.items()}
    blobs["font.woff2"] = bytes(rng.getrandbits(8) for _ in range(FONT_BYTES))
    html = (
        "<!doctype html><html><head><title>HAR fixture</title>"
        '<link rel="stylesheet" href="style.css"><script src="app.js"></script></head>'
        '<body><p class="f">Hello, HAR.</p><img src="a.png" alt=""><img src="b.png" alt="">'
        f'<img src="{third}/d.png" alt=""></body></html>'
    )
    css = (
        f'@font-face {{ font-family: T; src: url({third}/font.woff2) format("woff2"); }}\n'
        ".f { font-family: T; }\nbody { background: url(bg.png); }\n"
    )
    js = (
        "window.addEventListener('DOMContentLoaded', () => {"
        " const i = new Image(); i.alt = ''; i.src = 'c.png'; document.body.appendChild(i);"
        " fetch('data.json').then((r) => r.json()); });\n"
    )
    out = {"/index.html": ("text/html", html.encode()), "/style.css": ("text/css", css.encode())}
    out["/app.js"] = ("text/javascript", js.encode())
    out["/data.json"] = ("application/json", json.dumps({"items": list(range(400))}).encode())
    for name, blob in blobs.items():
        out[f"/{name}"] = ("font/woff2" if name.endswith("woff2") else "image/png", blob)
    return out


@contextmanager
def serve() -> Iterator[tuple[str, str]]:
    """Two HTTP/1.1 servers on free ports: (the site's origin, the third party's origin)."""
    files: dict[str, tuple[str, bytes]] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            found = files.get(self.path)
            if found is None:
                self.send_error(404)
                return
            kind, body = found
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    servers = [ThreadingHTTPServer(("127.0.0.1", 0), Handler) for _ in range(2)]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    site, third = (f"http://127.0.0.1:{s.server_address[1]}" for s in servers)
    files.update(_files(third))
    try:
        yield site, third
    finally:
        for s in servers:
            s.shutdown()
            s.server_close()


def _ms(start: float, end: float) -> float:
    return round(end - start, 3) if start >= 0 and end >= 0 else -1


def _devtools_har(events: list[tuple[str, dict[str, Any]]], browser_version: str) -> dict[str, Any]:
    """A HAR 1.2 document from the DevTools-protocol events, as DevTools' HAR exporter writes one."""
    requests: dict[str, dict[str, Any]] = {}
    extras: dict[str, dict[str, Any]] = {}  # responseReceivedExtraInfo may come before requestWillBeSent
    order: list[str] = []
    first_ts: float | None = None
    wall0 = 0.0
    content_load = load = -1.0
    for method, p in events:
        if method == "Network.requestWillBeSent":
            rid = p["requestId"]
            if rid not in requests:
                order.append(rid)
            requests[rid] = {"send": p, "response": None, "done": None, "data": 0}
            if first_ts is None:
                first_ts, wall0 = p["timestamp"], p["wallTime"]
        elif method == "Network.responseReceived":
            requests[p["requestId"]]["response"] = p["response"]
        elif method == "Network.responseReceivedExtraInfo":
            extras[p["requestId"]] = p
        elif method == "Network.dataReceived":
            requests[p["requestId"]]["data"] += p["dataLength"]
        elif method == "Network.loadingFinished":
            requests[p["requestId"]]["done"] = p
        elif method == "Page.domContentEventFired":
            content_load = p["timestamp"]
        elif method == "Page.loadEventFired":
            load = p["timestamp"]
    assert first_ts is not None
    page_id = "page_1"
    entries = []
    for rid in order:
        r = requests[rid]
        send, response, done = r["send"], r["response"], r["done"]
        if response is None or done is None:
            continue
        t = response["timing"]
        started = wall0 + (send["timestamp"] - first_ts)
        total = (done["timestamp"] - t["requestTime"]) * 1000
        headers_text = extras.get(rid, {}).get("headersText") or response.get("headersText")
        headers_size = len(headers_text.encode()) if headers_text else -1
        transfer = int(done["encodedDataLength"])
        entries.append(
            {
                "pageref": page_id,
                "startedDateTime": datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds"),
                "time": round(total, 3),
                "request": {
                    "method": send["request"]["method"],
                    "url": send["request"]["url"],
                    "httpVersion": response.get("protocol", "http/1.1"),
                    "headers": [{"name": k, "value": v} for k, v in send["request"]["headers"].items()],
                    "queryString": [],
                    "cookies": [],
                    "headersSize": -1,
                    "bodySize": 0,
                },
                "response": {
                    "status": response["status"],
                    "statusText": response.get("statusText", ""),
                    "httpVersion": response.get("protocol", "http/1.1"),
                    "headers": [{"name": k, "value": v} for k, v in response["headers"].items()],
                    "cookies": [],
                    "content": {"size": r["data"], "mimeType": response["mimeType"]},
                    "redirectURL": "",
                    "headersSize": headers_size,
                    "bodySize": transfer - headers_size if headers_size >= 0 else -1,
                    "_transferSize": transfer,
                },
                "cache": {},
                "timings": {
                    "blocked": round(t["dnsStart"] if t["dnsStart"] >= 0 else max(t["sendStart"], 0), 3),
                    "dns": _ms(t["dnsStart"], t["dnsEnd"]),
                    "connect": _ms(t["connectStart"], t["connectEnd"]),
                    "ssl": _ms(t["sslStart"], t["sslEnd"]),
                    "send": _ms(t["sendStart"], t["sendEnd"]),
                    "wait": _ms(t["sendEnd"], t["receiveHeadersEnd"]),
                    "receive": round(max(total - t["receiveHeadersEnd"], 0), 3),
                },
                "serverIPAddress": response.get("remoteIPAddress", ""),
                "connection": str(response.get("connectionId", "")),
                "_initiator": send["initiator"],
                "_priority": send["request"].get("initialPriority", ""),
                "_resourceType": send.get("type", "").lower(),
            }
        )
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "latency-lab tests/data/har/record.py (DevTools protocol)", "version": "1"},
            "browser": {"name": "Chromium", "version": browser_version},
            "pages": [
                {
                    "startedDateTime": datetime.fromtimestamp(wall0, UTC).isoformat(timespec="milliseconds"),
                    "id": page_id,
                    "title": "HAR fixture",
                    "pageTimings": {
                        "onContentLoad": round((content_load - first_ts) * 1000, 3) if content_load > 0 else -1,
                        "onLoad": round((load - first_ts) * 1000, 3) if load > 0 else -1,
                    },
                }
            ],
            "entries": entries,
        }
    }


def record(out: Path) -> tuple[Path, Path]:
    """Load the page twice in the real Chromium, fresh each time; write both HARs into ``out``."""
    from playwright.sync_api import sync_playwright

    devtools, playwright_har = out / "chromium-devtools.har", out / "chromium-playwright.har"
    with serve() as (site, _third), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        try:
            context = browser.new_context()
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            events: list[tuple[str, dict[str, Any]]] = []
            for name in (
                "Network.requestWillBeSent",
                "Network.responseReceived",
                "Network.responseReceivedExtraInfo",
                "Network.dataReceived",
                "Network.loadingFinished",
                "Page.domContentEventFired",
                "Page.loadEventFired",
            ):
                cdp.on(name, lambda params, name=name: events.append((name, params)))
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            cdp.send("Page.enable")
            page.goto(f"{site}/index.html", wait_until="load")
            page.wait_for_timeout(300)
            context.close()
            devtools.write_text(json.dumps(_devtools_har(events, browser.version), indent=1) + "\n")

            context = browser.new_context(record_har_path=str(playwright_har), record_har_content="omit")
            page = context.new_page()
            page.goto(f"{site}/index.html", wait_until="load")
            page.wait_for_timeout(300)
            context.close()
        finally:
            browser.close()
    return devtools, playwright_har


if __name__ == "__main__":
    print(*record(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent))
