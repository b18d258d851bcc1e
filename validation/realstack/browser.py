"""Real headless Chromium as the model's judge (issue 28): one origin, HTTP/1.1 and h2 over TLS 1.3.

A page (:data:`PAGES`: an HTML naming N PNG images at its end) is loaded by Debian's Chromium
(:mod:`validation.realstack.browser_client`, Playwright, a fresh browser and profile per load) inside the client
namespace of :class:`validation.realstack.stack.Stack`, from nginx's browser ports (HTTP/1.1 over TLS, h2 over TLS
by ALPN), with the relay's path between them and tcpdump on the client's side. The model runs the same page as its
document: ``persistent_parallel`` with 6 connections (Chrome's per-origin limit) for HTTP/1.1, ``h2`` for h2, TLS
1.3 without resumption, the ``linux`` TCP profile as the namespaces are set up (its congestion window counted in
packets, ``tcp.window_counts_packets``), and the bytes Chromium and nginx
actually wrote (measured on the capture: ClientHello, the server's flight, the NewSessionTickets, nginx's h2 SETTINGS
records, each request and response header on the wire).

Times are from the first SYN in the capture (the browser's clock is aligned on it by the navigation's
``connectStart``). What a load measures:

- ``load_ms``: the browser's load event (Navigation Timing ``loadEventStart``): the judge's figure;
- ``net_ms``: the last server byte in the capture, the model's ``page_load_ms`` (last byte of the last object);
- ``html_end_ms``: the HTML's last byte on the wire (the capture), what the model predicts; the browser's
  ``responseEnd`` for it, ``html_end_browser_ms``, lags it by up to tens of ms (the renderer's commit: Chromium's own time; 1.2-33.8 ms in 8 loads on 2026-11-30);
- ``resource_end_ms``: each image's ``responseEnd`` (Resource Timing);
- Chromium's own time, named: ``discovery_ms`` (from the HTML's last byte on the wire to the first image request on
  the wire: the network service hands the HTML to the renderer, which commits the navigation, parses the HTML, and
  the preload scanner's requests reach the network service) and ``load_lag_ms`` (from the last resource's ``responseEnd`` to the load event: the renderer is told,
  the image is taken in and the event dispatched). The model has neither: :func:`compare` gives the model's error
  against the load event as it is (``error``) and with these measured delays added (``accounted_error``).

Known differences (docs/measurements.md, 2026-11-29): Chromium binds a request to the first connection free (late
binding: on a 4-image page it opens 4 connections, as the model, and may use 3), and on h2 it holds image requests
beyond 10 in flight until earlier ones end (the network service's ResourceScheduler,
kDefaultMaxNumDelayableRequestsPerClient), which the model's h2 does not.
"""

from __future__ import annotations

import json
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from latency_lab import Scenario, predict
from validation.realstack import bench, pcap
from validation.realstack.grid import kernel_tcp
from validation.realstack.stack import HERE, PORT_BROWSER_H1, PORT_BROWSER_H2, SERVER_IP, CaptureError, Stack

CHROMIUM = "/usr/bin/chromium"
#: The browser runs SCHED_FIFO below the endpoints (nginx and tcpdump at 20, the relay at 30): it is the client, and
#: a shared machine's other work must not add to its time, but its startup must not hold up the capture.
BROWSER_PRIORITY = "10"
#: the browser's protocols and the model's schedule for each
PROTOCOLS = {"h1": "persistent_parallel", "h2": "h2"}
PORTS = {"h1": PORT_BROWSER_H1, "h2": PORT_BROWSER_H2}
#: Chrome's HTTP/1.1 connections per origin (net/socket/client_socket_pool_manager.cc, 6 in the normal pool)
CHROME_CONNECTIONS = 6
#: Pages: the HTML's size and the images' (sizes from a small set, as the issue asks).
PAGES: dict[str, dict[str, Any]] = {
    "img1": {"html_bytes": 3000, "object_bytes": [60000]},
    "img4": {"html_bytes": 5000, "object_bytes": [2000, 20000, 8000, 60000]},
    "img8": {"html_bytes": 8000, "object_bytes": [2000, 8000, 20000, 2000, 60000, 8000, 20000, 2000]},
    "img12": {"html_bytes": 10000, "object_bytes": [2000, 8000, 20000, 60000] * 3},
    "img20": {"html_bytes": 10000, "object_bytes": [2000, 8000, 2000, 20000, 8000] * 4},
}
#: Paths (RTT ms, rate Mb/s both ways)
PATHS: list[tuple[float, float]] = [(20, 10), (50, 10), (100, 5), (40, 50)]
#: the CI guard's runs: (page, protocol, path)
CI_RUNS: list[tuple[str, str, tuple[float, float]]] = [
    ("img4", "h1", (20, 10)),
    ("img4", "h2", (20, 10)),
    ("img8", "h1", (50, 10)),
    ("img8", "h2", (50, 10)),
]
#: Lantern's published accuracy for its page-load estimate against real loads (Spearman's rho 0.81, mean absolute
#: error 23 %; Hamilton et al., "Lantern: a performance simulator", as the issue cites it)
LANTERN = {"spearman_rho": 0.81, "mean_abs_error": 0.23}
#: A client segment of at most this many bytes after the HTML is no request: h2's SETTINGS ACK (9 bytes) and
#: WINDOW_UPDATE (13) in a TLS 1.3 record (22 more); an image's HEADERS frame is larger
H2_CONTROL = 40
#: The browser's clock against the capture's (ms): Navigation Timing is coarsened to 0.1 ms, and ``connectStart``
#: precedes the SYN on the wire by the kernel's send path
CLOCK_SLACK_MS = 1.0
#: TLS 1.3 NewSessionTicket records OpenSSL's server sends after a full handshake (bench.TLS13_TICKETS)
TICKETS = bench.TLS13_TICKETS
#: nginx's h2 SETTINGS records on the navigation's connection, each a TLS 1.3 record and a segment of its own after
#: the tickets (bytes on the wire past the TCP header): its SETTINGS with its WINDOW_UPDATE (9 + 18 + 13 bytes of
#: frames, 22 of record) and its SETTINGS ACK (9 + 22), as read from the capture of one load of img12-h2-100ms-5M
#: (2026-11-30, issue 28). A load measures its own (``h2_settings``, :func:`_h2_settings`); the 40 loads stored
#: before that was measured (validation/realstack/browser_results.json, 2026-11-30) get these.
H2_SETTINGS_CAPTURED = (62, 31)
#: A server record of at most this many bytes right after the tickets is one of h2's SETTINGS records, not the HTML's
H2_SETTINGS_MAX = 100


def png(size: int) -> bytes:
    """A valid 1x1 grey PNG of exactly ``size`` bytes (an ancillary private chunk, ``paDd``, fills it up: decoders
    skip it), so that Chromium decodes the image as a browser would a real one."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack("!I", len(data)) + kind + data + struct.pack("!I", zlib.crc32(kind + data))

    head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack("!IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    head += chunk(b"IDAT", zlib.compress(b"\x00\x80"))
    end = chunk(b"IEND", b"")
    pad = size - len(head) - len(end) - 12
    if pad < 0:
        raise ValueError(f"an image of {size} bytes is below the smallest PNG ({len(head) + len(end) + 12} bytes)")
    return head + chunk(b"paDd", b"z" * pad) + end


def doc(page: str, protocol: str, rtt_ms: float, rate_mbps: float) -> dict[str, Any]:
    """The model's scenario for one browser run (the bytes are filled in from a load by :func:`model_doc`)."""
    return {
        "protocols": [PROTOCOLS[protocol]],
        "network": {"rtt_ms": rtt_ms, "bandwidth_bps": rate_mbps * 1e6, "packet_overhead_bytes": bench.OVERHEAD},
        "tcp": kernel_tcp(nagle=False),  # Chromium and nginx both set TCP_NODELAY
        "http": {
            "request_bytes": 600,
            "header_flush": False,
            "server_write_bytes": 0,
            "parallel_connections": CHROME_CONNECTIONS,
        },
        "tls": {"version": "1.3", "resumption": "none"},
        "page": dict(PAGES[page]),
    }


def runs() -> list[dict[str, Any]]:
    """The comparison's runs: every page x protocol x path."""
    out = []
    for rtt, rate in PATHS:
        for page in PAGES:
            for proto in PROTOCOLS:
                rid = f"{page}-{proto}-{rtt:g}ms-{rate:g}M"
                out.append({"id": rid, "page": page, "protocol": proto, "doc": doc(page, proto, rtt, rate)})
    return out


def ci_runs() -> list[dict[str, Any]]:
    return [
        {"id": f"{p}-{proto}-{rtt:g}ms-{rate:g}M", "page": p, "protocol": proto, "doc": doc(p, proto, rtt, rate)}
        for p, proto, (rtt, rate) in CI_RUNS
    ]


def write_page(root: Path, sid: str, page: dict[str, Any]) -> list[str]:
    """The page's HTML (exactly ``html_bytes``, the images' tags at its end, as the model finds them when the HTML
    has arrived; an empty icon so that no favicon request follows) and images under ``root``; the URL paths."""
    d = root / sid
    d.mkdir(parents=True, exist_ok=True)
    names = [f"/{sid}/{i}.png" for i in range(len(page["object_bytes"]))]
    head = '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body><!--'
    tags = "-->" + "".join(f'<img src="{n}">' for n in names) + "</body></html>"
    fill = page["html_bytes"] - len(head) - len(tags)
    if fill < 0:
        raise ValueError(f"html_bytes {page['html_bytes']} is too small for {len(names)} image tags")
    (d / "index.html").write_text(head + "x" * fill + tags)
    for name, size in zip(names, page["object_bytes"], strict=True):
        (root / name.lstrip("/")).write_bytes(png(size))
    return [f"/{sid}/index.html", *names]


def spki_hash(cert: Path) -> str:
    """The certificate's public-key hash as Chromium's ``--ignore-certificate-errors-spki-list`` takes it: with it
    the self-signed certificate is accepted on the first handshake (with ``--ignore-certificate-errors`` alone
    Chromium dropped the first connection after its handshake and opened another 380 ms later, 2026-11-29)."""
    pub = subprocess.run(["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"], capture_output=True, check=True)
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub.stdout, capture_output=True)
    dig = subprocess.run(["openssl", "dgst", "-sha256", "-binary"], input=der.stdout, capture_output=True)
    b64 = subprocess.run(["openssl", "base64", "-A"], input=dig.stdout, capture_output=True, check=True)
    return b64.stdout.decode().strip()


def _tls_conn(c: pcap.Connection, path: tuple[float, float, float, float]) -> dict[str, Any] | None:
    """One TLS 1.3 connection's handshake on the capture: ClientHello bytes (the client's bytes before the server's
    first), the server's flight (its bytes before the client's Finished), the client's Finished, the hosts' time
    (ms: the client's from the SYN-ACK to its ClientHello and from the flight to its Finished and first request, the
    server's from the ClientHello to its flight, the path taken out), the bytes each way after the handshake."""
    up_ms, up_bps, down_ms, down_bps = path
    data = [p for p in c.packets if p.payload > 0]
    i = next((k for k, p in enumerate(data) if not p.up), None)
    j = next((k for k in range(i, len(data)) if data[k].up), None) if i is not None else None
    if i is None or j is None or not any(p.up for p in data[j + 1 :]):
        return None  # a connection that carried no request (Chromium opened it, then had no use for it)
    synack = next(p for p in c.packets if not p.up and p.syn)
    ser_up = data[i - 1].ip_bytes * 8000.0 / up_bps
    ser_down = data[i].ip_bytes * 8000.0 / down_bps
    server_ms = (data[i].t - data[i - 1].t) * 1000.0 - up_ms - down_ms - ser_up - ser_down
    client_ms = (data[0].t - synack.t) * 1000.0 + (data[j].t - data[j - 1].t) * 1000.0
    if j + 1 < len(data) and data[j + 1].up:
        client_ms += (data[j + 1].t - data[j].t) * 1000.0
    assert c.client_isn is not None
    up_total = max((p.seq - c.client_isn - 1) % 2**32 + p.payload for p in data if p.up)
    down_total = max(end for _t, end in c.down_ends())
    ch = sum(p.payload for p in data[:i] if p.up)
    sf = sum(p.payload for p in data[i:j])
    return {
        "client_hello": ch,
        "server_flight": sf,
        "client_finished": data[j].payload,
        "up_after": up_total - ch - data[j].payload,
        "down_after": down_total - sf,
        "hosts_ms": server_ms + client_ms,
        "request_t": next(p.t for p in data[j + 1 :] if p.up),
    }


def _h2_settings(c: pcap.Connection, finished_t: float) -> list[int] | None:
    """nginx's h2 SETTINGS records on an h2 connection (bytes on the wire each, in order: its SETTINGS, its SETTINGS
    ACK): the server's data packets after the client's Finished (sent at ``finished_t``, capture clock) that follow
    the :data:`TICKETS` session tickets, as long as they are small (:data:`H2_SETTINGS_MAX`), at most two. None when
    there are none (the HTML's first segment follows the tickets)."""
    down = [p.payload for p in c.packets if not p.up and p.payload > 0 and p.t > finished_t]
    records: list[int] = []
    for x in down[TICKETS : TICKETS + 2]:
        if x > H2_SETTINGS_MAX:
            break
        records.append(x)
    return records or None


def real_load(stack: Stack, sid: str, run: dict[str, Any], work: Path) -> dict[str, Any]:
    """Load the run's page once in a fresh Chromium; the measured side of a record (times from the first SYN)."""
    d = run["doc"]
    s = Scenario.model_validate(d)
    paths = write_page(stack.root, sid, PAGES[run["page"]])
    path = bench.path_of(d)
    stack.serve(nagle=False, header_flush=False, tls="1.3")
    spec = {
        "url": f"https://{SERVER_IP}:{PORTS[run['protocol']]}{paths[0]}",
        "chromium": CHROMIUM,
        "flags": [f"--ignore-certificate-errors-spki-list={spki_hash(stack.cert)}"],
    }
    cap = work / f"{sid}.pcap"
    with stack.link(*path) as relay:
        stack.wait_server()
        with stack.capture(cap) as tcpdump:
            wall = time.monotonic()
            out = stack.in_client(
                sys.executable, str(HERE / "browser_client.py"), json.dumps(spec), priority=BROWSER_PRIORITY
            )
            wall = time.monotonic() - wall
    b = json.loads(out)
    packets, _other = pcap.read(cap, SERVER_IP)
    cap.unlink()
    conns = {k: c for k, c in pcap.connections(packets).items() if c.client_isn is not None}
    packets = sorted((p for c in conns.values() for p in c.packets), key=lambda p: p.t)
    t0 = min(p.t for p in packets if p.up and p.syn)
    nav = b["navigation"]
    if nav["nextHopProtocol"] != ("http/1.1" if run["protocol"] == "h1" else "h2"):
        raise RuntimeError(f"{sid}: Chromium spoke {nav['nextHopProtocol']}, not {run['protocol']}")
    res = sorted(b["resources"], key=lambda r: r["responseEnd"])
    if len(res) != len(paths) - 1:
        raise RuntimeError(f"{sid}: {len(res)} resources loaded, the page names {len(paths) - 1}")
    split = {k: _tls_conn(c, path) for k, c in conns.items()}
    tls = [x for x in split.values() if x is not None]
    used = {k: c for k, c in conns.items() if split[k] is not None}
    if not used:
        raise RuntimeError(f"{sid}: no connection in the capture carried a request")
    # the navigation's connection: the first to carry a request (an unused one may have opened before it)
    nav_key = min(used, key=lambda k: split[k]["request_t"])  # type: ignore[index]
    first_conn = used[nav_key]
    nav_request = split[nav_key]["request_t"]  # type: ignore[index]
    # the browser's clock aligned on the navigation connection's SYN (its connectStart), times from the first SYN
    origin = nav["connectStart"] - (first_conn.syn_time() - t0) * 1000.0

    def rel(x: float) -> float:
        return float(x - origin)

    browser_html_end = rel(nav["responseEnd"])
    html_end = _wire_html_end(first_conn, nav_request, t0 + browser_html_end / 1000.0, t0)
    requests = [
        (p.t - t0) * 1000.0
        for c in conns.values()
        for p in c.packets
        if p.up and ((p.syn and c is not first_conn) or (p.payload > H2_CONTROL and (p.t - t0) * 1000.0 > html_end))
    ]
    first_request = min((x for x in requests if x > html_end), default=html_end)
    last_byte = max((p.t - t0) * 1000.0 for p in packets if not p.up and p.payload > 0)
    ends = [rel(r["responseEnd"]) for r in res]
    h2_first = h2_settings = None
    if run["protocol"] == "h2":  # the client's bytes after its Finished up to the HTML's end
        up = [p for p in first_conn.packets if p.up and p.payload > 0]
        first = split[nav_key]
        assert first is not None
        k = next(i for i, p in enumerate(up) if p.payload == first["client_finished"] and i > 0)
        h2_first = sum(p.payload for p in up[k + 1 :] if (p.t - t0) * 1000.0 <= browser_html_end)
        h2_settings = _h2_settings(first_conn, up[k].t)
    return {
        "load_ms": rel(nav["loadEventStart"]),
        "net_ms": last_byte,
        "html_end_ms": html_end,
        "html_end_browser_ms": browser_html_end,
        "resource_end_ms": ends,
        "dom_interactive_ms": rel(nav["domInteractive"]),
        "discovery_ms": first_request - html_end,
        "first_fetch_ms": rel(min(r["startTime"] for r in res)),
        "last_fetch_ms": rel(max(r["startTime"] for r in res)),
        "requests_after_html_ms": sorted(x - html_end for x in requests if x > html_end),
        "load_lag_ms": rel(nav["loadEventStart"]) - max(ends),
        "protocol_seen": nav["nextHopProtocol"],
        "connections": len(used),
        "connections_opened": len(conns),
        "syn_ms": sorted((c.syn_time() - t0) * 1000.0 for c in conns.values()),
        "tls": tls,
        "h2_first_flight": h2_first,
        "h2_settings": h2_settings,
        "overheads": bench.overheads(used, path),
        "counts": pcap.counts(packets),
        "retransmissions": pcap.retransmissions(used),
        "tcpdump": tcpdump,
        "relay": dict(relay),
        "wall_s": wall,
        "launch_s": b["launch_s"],
        "bodies": s.page.html_bytes + sum(s.page.sizes()),
        "transfer": [nav["transferSize"], *(r["transferSize"] for r in res)],
    }


def _wire_html_end(c: pcap.Connection, request_t: float, browser_end_t: float, t0: float) -> float:
    """When the HTML's last byte reached the client on the wire (ms from ``t0``): the last server data packet on the
    navigation's connection after its request, before the browser's ``responseEnd`` (``browser_end_t``, capture
    clock) and before the client's next request once the server's answer began (h2's first flight may take more than
    one packet). The browser's ``responseEnd`` can lag it by tens of ms (the network service hands the body to the
    renderer, which commits the navigation; 1.2-33.8 ms in 8 loads of img4-h1 on 2026-11-30 at load 0.3-4): Chromium's own time, which
    the model does not have and which goes into ``discovery_ms``."""
    late = browser_end_t + CLOCK_SLACK_MS / 1000.0
    down = [p.t for p in c.packets if not p.up and p.payload > 0 and request_t < p.t <= late]
    if not down:
        seen = " ".join(f"{(p.t - t0) * 1000.0:.2f}{'U' if p.up else 'D'}{p.payload}" for p in c.packets[:40])
        raise RuntimeError(
            f"no server data on the navigation's connection between its request ({(request_t - t0) * 1000.0:.2f} ms) "
            f"and the browser's responseEnd ({(browser_end_t - t0) * 1000.0:.2f} ms); its packets (ms, Up/Down, "
            f"payload): {seen}"
        )
    next_request = min(
        (p.t for p in c.packets if p.up and p.payload > H2_CONTROL and p.t > down[0]), default=float("inf")
    )
    return (max(t for t in down if t < next_request) - t0) * 1000.0


def model_doc(d: dict[str, Any], protocol: str, real: dict[str, Any]) -> dict[str, Any]:
    """The run's scenario with what the load measured: the bytes each side wrote (TLS records included), the excess
    round trip of the relay and the stacks, nginx's time per request and the hosts' handshake computing time."""
    m: dict[str, Any] = json.loads(json.dumps(d))
    t = real["tls"]
    n = len(Scenario.model_validate(d).page.sizes())
    m["network"]["rtt_ms"] += real["overheads"]["rtt_excess"]
    h = m["http"]
    h["server_think_ms"] = round(real["overheads"]["server"], 4) if protocol == "h1" else 0.0
    h["connection_overhead_ms"] = round(max(0.0, statistics.median(x["hosts_ms"] for x in t)), 4)
    tls = m["tls"]
    tls["client_hello_bytes"] = round(statistics.median(x["client_hello"] for x in t))
    tls["server_flight_bytes"] = round(statistics.median(x["server_flight"] for x in t))
    tls["session_tickets"] = TICKETS
    tls["session_ticket_bytes"] = bench.TLS_RECORD_OVERHEAD["1.3"] + 57  # OpenSSL 3's ticket record: 79 bytes
    tickets = TICKETS * tls["session_ticket_bytes"]
    down = sum(x["down_after"] - tickets for x in t)
    if protocol == "h2":  # nginx's SETTINGS records (one connection): the model writes them, not in the headers
        settings = [*(real.get("h2_settings") or H2_SETTINGS_CAPTURED), 0, 0]
        mux = m.setdefault("multiplex", {})
        mux["server_settings_bytes"], mux["settings_ack_bytes"] = settings[0], settings[1]
        down -= settings[0] + settings[1]
    up = sum(x["up_after"] for x in t)
    h["response_header_bytes"] = max(0, round((down - real["bodies"]) / (n + 1)))
    if protocol == "h1":
        h["request_bytes"] = round(up / (n + 1))
    else:  # h2: one connection; the first flight (preface, SETTINGS, WINDOW_UPDATE, the HTML's HEADERS) and the rest
        first = real.get("h2_first_flight") or round(up / (n + 1))
        h["request_bytes"] = first
        m.setdefault("multiplex", {})["request_bytes"] = max(1, round((up - first) / max(1, n)))
        m["multiplex"]["frame_bytes"] = bench.H2_CHUNK
        # nginx over TLS writes the HTML's HEADERS with its DATA (the capture of issue 28: a full first segment)
        m["multiplex"]["headers_alone"] = False
    # Linux's congestion window counts packets: the tickets and SETTINGS records each take a slot (issue 28)
    m["tcp"]["window_counts_packets"] = True
    return m


def compare(rec: dict[str, Any]) -> dict[str, Any]:
    """The model against the median load: its page time against the load event (``error``), against the load event
    less Chromium's own time (``accounted_error``: the model plus the measured discovery and load lag) and against
    the last byte (``net_error``), and each resource's end (sorted) against Resource Timing's."""
    real = rec["real"]
    mdoc = model_doc(rec["doc"], rec["protocol"], real)
    r = predict(mdoc)["results"][0]
    model = float(r["page_load_ms"])
    own = real["discovery_ms"] + real["load_lag_ms"]
    mends = sorted(float(o["end_ms"]) for o in r["objects"])
    rends = sorted([real["html_end_ms"], *real["resource_end_ms"]])
    return {
        "model_doc": mdoc,
        "model_ms": model,
        "real_ms": real["load_ms"],
        "error": (model - real["load_ms"]) / real["load_ms"],
        "accounted_ms": model + own,
        "accounted_error": (model + own - real["load_ms"]) / real["load_ms"],
        "net_error": (model - real["net_ms"]) / real["net_ms"],
        "model_connections": r["counts"].get("connections"),
        "resource_end_diff_ms": [round(a - b, 3) for a, b in zip(mends, rends, strict=False)],
    }


def run(stack: Stack, spec: dict[str, Any], repeats: int = 3, noisy_retries: int = 3) -> dict[str, Any]:
    """``repeats`` loads of one run (each in a fresh browser; a load during which the relay ran late or the
    handshake's round trip exceeded the path's is loaded again, bench.noise) and the model against the median."""
    loads, rejected = [], []
    with tempfile.TemporaryDirectory(prefix="realstack-browser-") as tmp:
        for _ in range(repeats):
            real: dict[str, Any] | None = None
            for i in range(noisy_retries + 1):
                if i:
                    time.sleep(bench.NOISY_BACKOFF_S * 2 ** (i - 1))
                try:
                    real = real_load(stack, spec["id"], spec, Path(tmp))
                except CaptureError as e:  # tcpdump starved of CPU: this load cannot be read, load it again
                    rejected.append([str(e)])
                    continue
                why = bench.noise(real)
                if not why:
                    break
                rejected.append(why)
            else:
                if real is None:
                    raise CaptureError(f"{spec['id']}: no load could be read: {rejected[-1]}")
                real["noise"] = why
            loads.append(real)
    order = sorted(range(len(loads)), key=lambda i: loads[i]["load_ms"])
    real = loads[order[len(order) // 2]]
    rec = {**spec, "real": real, "load_ms_all": [x["load_ms"] for x in loads], "rejected_loads": rejected}
    rec["noise"] = [w for x in loads for w in x.get("noise", [])]
    return {**rec, **compare(rec)}
