"""One scenario on the real Linux stack and through the model's ``linux`` profile (issue 18).

:func:`run` loads the scenario's page over the namespaces (:mod:`validation.realstack.stack`) with real
software, reads the client namespace's capture (:mod:`validation.realstack.pcap`) and runs the model on
the same scenario with the byte counts the software actually wrote. The scenario is the model's own
document; the bench reads from it:

- ``network``: one-way delays and rates per direction (the relay's), ``packet_overhead_bytes`` is set to 40
  (IP 20 + TCP 20: timestamps are off in both namespaces; the relay serializes the IP packet);
- ``tcp.nagle``: off sets TCP_NODELAY at both ends from the first byte (http.client's own setting, and a
  preloaded shim in nginx); on clears it in the client and configures nginx with ``tcp_nodelay off``;
- ``http.header_flush``: on serves with ``sendfile on`` (nginx writes the header with writev, then the body
  with sendfile: the header leaves on its own), off with ``sendfile off`` and one 4 MB output buffer (header
  and body in one writev); ``server_write_bytes`` is therefore 0 (each part written at once);
- ``http.request_bytes``: every HTTP/1.x request is padded to it; ``http.response_header_bytes`` is
  replaced by the mean of nginx's actual headers (``Server``, ``Date``, ``Content-Type``, ``Content-Length``,
  ``Last-Modified``, ``Connection``, ``Accept-Ranges``: 170-190 bytes);
- h2 (nghttp, prior knowledge, 1 GB stream and connection windows, ``-a``: the objects are ``<img>`` tags
  at the HTML's end, so their requests leave when the HTML has arrived): the model's ``request_bytes``,
  ``multiplex.request_bytes`` and ``response_header_bytes`` are the bytes nghttp and nginx wrote (frame
  headers, SETTINGS and HPACK included), ``multiplex.frame_bytes`` nginx's ``http2_chunk_size``.

The page load time is measured on the capture: from the first SYN to the arrival of the last object's
last byte, as the model defines it. Object ends are found in each connection's byte stream (HTTP/1.x).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from latency_lab import Scenario, predict
from validation.realstack import pcap
from validation.realstack.stack import HERE, PORT_H1, PORT_H2, PORT_TFO, PORT_TLS, SERVER_IP, CaptureError, Stack

#: Protocols the bench runs, with the real client that speaks each.
CLIENTS = {
    "http10": "python http.client, Connection: close",
    "persistent": "python http.client, keep-alive",
    "http10_parallel": "python http.client, threads",
    "h2": "nghttp (nghttp2-client), h2c prior knowledge",
}
H2_CHUNK = 16384
OVERHEAD = 40
#: TLS: nginx buffers a response into records of up to ``ssl_buffer_size`` (16 KB) of plaintext, each with this
#: many bytes more on the wire (the cipher suites OpenSSL 3 picks here: TLS 1.3 TLS_AES_256_GCM_SHA384, a 5-byte
#: header, the content type and a 16-byte tag; TLS 1.2 ECDHE-ECDSA-AES256-GCM-SHA384, header, 8-byte explicit
#: nonce and tag). A response's bytes on the wire follow from them (:func:`tls_wire_bytes`); the sum over a
#: connection is checked against the capture.
TLS_RECORD = 16384
TLS_RECORD_OVERHEAD = {"1.3": 22, "1.2": 29}
#: What the server writes after the handshake and before the first response beyond the model's flights: TLS 1.2's
#: ChangeCipherSpec and Finished are the model's last flight (51 bytes); TLS 1.3's two NewSessionTicket messages
#: (OpenSSL sends them even with tickets and the session cache off) are the model's tls.session_tickets.
TLS_MODEL_SERVER_AFTER = {"1.3": 0, "1.2": 51}
#: OpenSSL 3's server sends this many NewSessionTicket messages after a full TLS 1.3 handshake (SSL_CTX_set_num_tickets'
#: default), each in a write of its own; the model gets them as tls.session_tickets (their bytes: what the capture
#: shows between the server's flight and the first response, shared evenly).
TLS13_TICKETS = 2
#: nginx's close_notify alert when it closes a connection (SSL_shutdown after the last response, a segment of its
#: own with TCP_NODELAY): a 2-byte alert in a record (1.3: 5 + 2 + 1 + 16; 1.2: 5 + 8 + 2 + 16). Not part of any
#: response; the model's connections close without it.
TLS_CLOSE_NOTIFY = {"1.3": 24, "1.2": 31}


def tls_wire_bytes(plain: int, version: str) -> int:
    """A response of ``plain`` bytes (header and body) as nginx writes it over TLS ``version``."""
    return plain + TLS_RECORD_OVERHEAD[version] * max(1, -(-plain // TLS_RECORD))


def port_of(doc: dict[str, Any], protocol: str) -> int:
    """nginx's port for the scenario: TLS, TCP Fast Open or plain HTTP/1.x (h2c has its own)."""
    s = Scenario.model_validate(doc)
    tls, tfo = s.tls.version != "none", s.tcp.handshake == "fast_open"
    if protocol == "h2" and (tls or tfo):
        raise ValueError("the bench runs h2 as h2c without TLS or Fast Open (nghttp's bytes are read as plain frames)")
    if tls and tfo:
        raise ValueError("the bench does not combine TLS with TCP Fast Open")
    if s.tcp.handshake not in ("three_way", "fast_open"):
        raise ValueError(f"tcp.handshake {s.tcp.handshake!r}: the real stack opens connections three_way or fast_open")
    if tls and (s.tls.resumption != "none" or s.tls.false_start):
        raise ValueError("the bench's TLS client makes a full handshake on every connection: tls.resumption 'none'")
    return PORT_TLS if tls else PORT_TFO if tfo else PORT_H1


def path_of(doc: dict[str, Any]) -> tuple[float, float, float, float]:
    """(uplink delay ms, uplink bit/s, downlink delay ms, downlink bit/s) of the scenario."""
    net = Scenario.model_validate(doc).network
    up = (
        net.uplink_delay_ms
        if net.uplink_delay_ms is not None
        else net.rtt_ms - (net.downlink_delay_ms or net.rtt_ms / 2)
    )
    down = net.downlink_delay_ms if net.downlink_delay_ms is not None else net.rtt_ms - up
    return up, net.uplink_bandwidth_bps or net.bandwidth_bps, down, net.bandwidth_bps


def write_page(root: Path, sid: str, doc: dict[str, Any]) -> list[str]:
    """The scenario's HTML and objects as files under ``root``; returns the URL paths, HTML first."""
    s = Scenario.model_validate(doc)
    sizes = s.page.sizes()
    d = root / sid
    d.mkdir(parents=True, exist_ok=True)
    paths = [f"/{sid}/index.html"] + [f"/{sid}/{i}" for i in range(1, len(sizes) + 1)]
    tags = "".join(f'<img src="{p}">' for p in paths[1:]) + "</body></html>"
    head = "<html><body><!--"
    fill = s.page.html_bytes - len(head) - len("-->") - len(tags)
    if fill < 0:  # too small for the tags: the h2 client could not find the objects
        html = ("x" * s.page.html_bytes).encode()
    else:
        html = (head + "x" * fill + "-->" + tags).encode()
    (d / "index.html").write_bytes(html)
    for i, size in enumerate(sizes, 1):
        (d / str(i)).write_bytes(b"y" * size)
    return paths


def _h1_objects(
    conns: dict[tuple[int, int], pcap.Connection],
    objs: list[dict[str, Any]],
    t0: float,
    tls: dict[tuple[int, int], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Each object's end (ms after the first SYN) from its connection's byte stream. The client names each
    object's connection by its port and an id; the n-th distinct connection on a port (in the order its
    objects ended) is the n-th in the capture. Over TLS (``tls``: :func:`_tls_split` of each connection) the
    responses follow the handshake and what the server wrote after it, each as its records' bytes."""
    nth: dict[int, dict[int, int]] = {}
    for o in sorted(objs, key=lambda o: o["end"]):
        ids = nth.setdefault(o["client_port"], {})
        ids.setdefault(o["connection"], len(ids))
    offset: dict[tuple[int, int], int] = {}
    if tls is not None:
        for key, t in tls.items():
            offset[key] = t["server_flight"] + t["server_after"]
    out = []
    for o in objs:
        key = (o["client_port"], nth[o["client_port"]][o["connection"]])
        c = conns.get(key)
        if c is None:
            raise CaptureError(f"no packets of connection {key} in the capture")
        plain = o["header_bytes"] + o["body_bytes"]
        wire = tls_wire_bytes(plain, tls[key]["version"]) if tls is not None else plain
        o["wire_bytes"] = wire
        offset[key] = offset.get(key, 0) + wire
        at = c.time_of_offset(offset[key])
        if at is None:
            raise CaptureError(f"{o['path']}: its last byte is not in the capture")
        out.append({**o, "end_ms": (at - t0) * 1000.0, "start_ms": (c.syn_time() - t0) * 1000.0})
    for key, total in offset.items():
        sent = max((end for _t, end in conns[key].down_ends()), default=0)  # retransmissions counted once
        if tls is not None:
            sent -= tls[key]["close_notify"]
        if sent != total:
            raise RuntimeError(f"connection {key}: the server sent {sent} bytes, the responses add up to {total}")
    return out


def _tls_split(
    c: pcap.Connection, objs: list[dict[str, Any]], version: str, path: tuple[float, float, float, float]
) -> dict[str, Any]:
    """One TLS connection's handshake from its capture: the ClientHello (client bytes before the server's
    first data), the server's flight (its bytes before the client's next data), the client's next segment
    (1.3: Finished; 1.2: ClientKeyExchange, ChangeCipherSpec, Finished), the mean request on the wire, what
    the server wrote between its flight and the first response (1.2: ChangeCipherSpec and Finished; 1.3: the
    NewSessionTickets), and the two hosts' handshake computing time (ms): the server's from the ClientHello's
    arrival to its flight (the path's delay and serialization taken out), the client's from the flight's
    arrival to its next segment and from there (1.3) or from the server's Finished (1.2) to the request."""
    up_ms, up_bps, down_ms, down_bps = path
    data = [p for p in c.packets if p.payload > 0]
    i = next(k for k, p in enumerate(data) if not p.up)
    j = next(k for k in range(i, len(data)) if data[k].up)
    ch = sum(p.payload for p in data[:i] if p.up)
    sf = sum(p.payload for p in data[i:j])
    cf = data[j].payload
    assert c.client_isn is not None
    up_total = max((p.seq - c.client_isn - 1) % 2**32 + p.payload for p in data if p.up)
    down = [p for p in data if not p.up]
    down_total = max(end for _t, end in c.down_ends())
    alert = 0
    if len(down) > 1 and down[-1].payload == TLS_CLOSE_NOTIFY[version] and down[-1].t > data[j].t:
        alert = down[-1].payload  # the server closed with a close_notify after its last response
        down_total -= alert
    n = len(objs)
    wire = sum(tls_wire_bytes(o["header_bytes"] + o["body_bytes"], version) for o in objs)
    after = down_total - sf - wire
    if not 0 <= after < 2000:
        raise RuntimeError(f"connection {c.client_port}: {after} bytes between the TLS handshake and the responses")
    ser_up = data[i - 1].ip_bytes * 8000.0 / up_bps
    ser_down = data[i].ip_bytes * 8000.0 / down_bps
    server_ms = (data[i].t - data[i - 1].t) * 1000.0 - up_ms - down_ms - ser_up - ser_down
    client_ms = (data[j].t - data[j - 1].t) * 1000.0
    k = j + 1
    if version == "1.2":  # the request follows the server's ChangeCipherSpec and Finished
        while k < len(data) and not data[k].up:
            k += 1
    if k < len(data) and data[k].up and (version == "1.2" or not data[k - 1].up or k == j + 1):
        client_ms += (data[k].t - data[k - 1].t) * 1000.0
    return {
        "version": version,
        "client_hello": ch,
        "server_flight": sf,
        "client_flight": cf,
        "request_bytes": (up_total - ch - cf) / max(1, n),
        "server_after": after,
        "close_notify": alert,
        "server_hs_ms": server_ms,
        "client_hs_ms": client_ms,
    }


def _client_gaps(conns: dict[tuple[int, int], pcap.Connection], objs: list[dict[str, Any]], t0: float) -> list[float]:
    """The client's own time (ms) after each response but the last: from its end to the client's next SYN or
    request, the time Python takes to go on (the model's client answers at once)."""
    starts = sorted((p.t - t0) * 1000.0 for c in conns.values() for p in c.packets if p.up and (p.syn or p.payload > 0))
    gaps = []
    for o in objs[:-1]:
        later = [s for s in starts if s > o["end_ms"]]
        if later:
            gaps.append(later[0] - o["end_ms"])
    return gaps


def overheads(
    conns: dict[tuple[int, int], pcap.Connection], path: tuple[float, float, float, float]
) -> dict[str, float]:
    """What the measured path adds to the scenario's, from the capture (ms).

    ``rtt_excess``: the handshake's round trip (SYN sent to SYN-ACK arrived) less the scenario's RTT and the
    two packets' serialization, the least over the connections (a later handshake may queue behind data):
    the relay's own delay both ways, the TUN devices' and the two stacks' time. ``server``: the least time
    from a request's packet to the first response byte, less the RTT, both packets' serialization and the
    excess: nginx's time for a request (reading it, opening the file, writing). Neither is in the scenario.
    """
    up_ms, up_bps, down_ms, down_bps = path
    rtt = up_ms + down_ms

    def ser(p: pcap.Packet) -> float:
        return p.ip_bytes * 8000.0 / (up_bps if p.up else down_bps)

    excess, server = [], []
    for c in conns.values():
        syn = next((p for p in c.packets if p.up and p.syn), None)
        synack = next((p for p in c.packets if not p.up and p.syn), None)
        if syn and synack:
            excess.append((synack.t - syn.t) * 1000.0 - rtt - ser(syn) - ser(synack))
    e = min(excess) if excess else 0.0
    for c in conns.values():
        pk = c.packets
        for i, p in enumerate(pk):
            if not (p.up and p.payload > 0):
                continue
            nxt = next((q for q in pk[i + 1 :] if q.payload > 0), None)
            if nxt is not None and not nxt.up:
                server.append((nxt.t - p.t) * 1000.0 - rtt - ser(p) - ser(nxt) - e)
    return {"rtt_excess": e, "server": max(0.0, min(server)) if server else 0.0}


def real_run(stack: Stack, sid: str, doc: dict[str, Any], protocol: str, work: Path) -> dict[str, Any]:
    """Load the page once over the real stack; the measured side of a record."""
    s = Scenario.model_validate(doc)
    paths = write_page(stack.root, sid, doc)
    up_ms, up_bps, down_ms, down_bps = path_of(doc)
    nagle = bool(s.tcp.nagle)
    port = port_of(doc, protocol)
    tls = s.tls.version if s.tls.version != "none" else None
    stack.serve(nagle=nagle, header_flush=s.http.header_flush, h2_chunk=H2_CHUNK, tls=tls or "1.3")
    cap = work / f"{sid}-{protocol}.pcap"
    spec = {
        "protocol": protocol,
        "host": SERVER_IP,
        "port": port,
        "paths": paths,
        "request_bytes": s.http.request_bytes,
        "nagle": nagle,
        "parallel": s.http.parallel_connections,
        "tls": tls or "none",
        "cafile": str(stack.cert),
        "fast_open": port == PORT_TFO,
    }
    with stack.link(up_ms, up_bps, down_ms, down_bps) as relay:
        stack.wait_server()
        if port == PORT_TFO:  # the server's cookie, as from an earlier visit (RFC 7413 4.1); outside the capture
            stack.in_client("python3", str(HERE / "client.py"), json.dumps({**spec, "protocol": "prime"}))
        before = stack.counters()
        with stack.capture(cap) as tcpdump:
            wall = time.monotonic()
            if protocol == "h2":
                out = stack.in_client(
                    "nghttp", "-n", "-a", "-w", "30", "-W", "30", "--no-dep", f"http://{SERVER_IP}:{PORT_H2}{paths[0]}"
                )
                client: dict[str, Any] = {"protocol": "h2", "stdout": out[-500:]}
            else:
                client = json.loads(stack.in_client("python3", str(HERE / "client.py"), json.dumps(spec)))
            wall = time.monotonic() - wall
        after = stack.counters()
    packets, other = pcap.read(cap, SERVER_IP)
    cap.unlink()
    conns = pcap.connections(packets)
    # packets of an earlier load's connections (a FIN or ACK the kernel sent again after that load's link was
    # gone, arriving at this one) are not part of this page: only connections whose SYN is in the capture
    stray = {k for k, c in conns.items() if c.client_isn is None}
    conns = {k: c for k, c in conns.items() if k not in stray}
    packets = sorted((p for c in conns.values() for p in c.packets), key=lambda p: p.t)
    syns = [p.t for p in packets if p.up and p.syn]
    if not syns:
        raise RuntimeError(f"{sid} {protocol}: no SYN in the capture")
    t0 = min(syns)
    rec: dict[str, Any] = {
        "tcpdump": tcpdump,
        "overheads": overheads(conns, (up_ms, up_bps, down_ms, down_bps)),
        "wall_s": wall,
        "relay": dict(relay),
        "counts": pcap.counts(packets),
        "other_packets": other,
    }
    rec["counts"]["connections"] = len(conns)
    rec["stray_connections"] = len(stray)
    rec["counts"]["retransmissions"] = pcap.retransmissions(conns)
    # the kernel's own counts of what it did during the load (only the ones that moved; MaxConn is a gauge)
    rec["kernel"] = {
        side: {k: v - before[side].get(k, 0) for k, v in after[side].items() if v != before[side].get(k, 0)}
        for side in after
    }
    if protocol == "h2":
        rec["overheads"]["server"] = 0.0  # nginx's server preface and SETTINGS come before any response
    if protocol == "h2":
        (c,) = conns.values()
        up_data = [p for p in c.packets if p.up and p.payload > 0]
        down_data = [p for p in c.packets if not p.up and p.payload > 0]
        goaway = up_data[-1].t
        end = max(p.t for p in down_data if p.t < goaway)
        first_down = down_data[0].t
        bodies = s.page.html_bytes + sum(s.page.sizes())
        down_bytes = max(e for t, e in c.down_ends() if t <= end)  # retransmissions counted once
        html_end = _h2_html_end(c, s.page.html_bytes)
        rec["h2_bytes"] = {
            "first_flight": sum(p.payload for p in up_data if p.t < first_down),
            "requests_after_html": sum(p.payload for p in up_data if html_end <= p.t < goaway),
            "response_bytes": down_bytes,
            "header_bytes_each": (down_bytes - bodies) / (1 + len(s.page.sizes())),
        }
        rec["page_load_ms"] = (end - t0) * 1000.0
        rec["objects"] = []
        rec["client_gaps_ms"] = []
    else:
        split = None
        if tls is not None:
            objs_of: dict[tuple[int, int], list[dict[str, Any]]] = {}
            nth: dict[int, dict[int, int]] = {}
            for o in sorted(client["objects"], key=lambda o: o["end"]):
                ids = nth.setdefault(o["client_port"], {})
                objs_of.setdefault((o["client_port"], ids.setdefault(o["connection"], len(ids))), []).append(o)
            split = {k: _tls_split(conns[k], v, tls, (up_ms, up_bps, down_ms, down_bps)) for k, v in objs_of.items()}
            rec["tls"] = list(split.values())
        objs = _h1_objects(conns, client["objects"], t0, split)
        rec["objects"] = [
            {k: o[k] for k in ("path", "client_port", "header_bytes", "body_bytes", "wire_bytes", "start_ms", "end_ms")}
            for o in objs
        ]
        rec["page_load_ms"] = max(o["end_ms"] for o in objs)
        rec["header_bytes_mean"] = statistics.fmean(o["header_bytes"] for o in objs)
        rec["client_gaps_ms"] = _client_gaps(conns, sorted(objs, key=lambda o: o["end_ms"]), t0)
    return rec


def _h2_html_end(c: pcap.Connection, html_bytes: int) -> float:
    """When the h2 client had the HTML (approximately: the first server packet after which the stream holds
    the HTML's bytes beyond the handshake's frames); the object requests follow it."""
    ends = c.down_ends()
    for t, end in ends:
        if end >= html_bytes:
            return t
    return ends[-1][0]


def model_doc(doc: dict[str, Any], protocol: str, real: dict[str, Any], accounted: bool = True) -> dict[str, Any]:
    """The scenario as the model gets it: the bench's fixed settings and the bytes the software wrote; with
    ``accounted``, also the time the measured path adds (:func:`overheads`): the excess round trip on the
    path's delays (half each way), nginx's time per request as ``server_think_ms`` and the client's median
    time between a response and its next request as ``client_think_ms``."""
    m: dict[str, Any] = json.loads(json.dumps(doc))
    if accounted:
        net = m.setdefault("network", {})
        e = real["overheads"]["rtt_excess"]
        if net.get("uplink_delay_ms") is not None and net.get("downlink_delay_ms") is not None:
            net["uplink_delay_ms"] += e / 2
            net["downlink_delay_ms"] += e / 2
        else:
            net["rtt_ms"] = net.get("rtt_ms", 70.0) + e
        h = m.setdefault("http", {})
        h["server_think_ms"] = round(real["overheads"]["server"], 4)
        gaps = real.get("client_gaps_ms") or []
        h["client_think_ms"] = round(statistics.median(gaps), 4) if gaps else 0.0
        if real.get("tls"):  # the hosts' handshake computing (signing, key exchange, checking the certificate)
            hs = statistics.median(t["server_hs_ms"] + t["client_hs_ms"] for t in real["tls"])
            h["connection_overhead_ms"] = round(max(0.0, hs), 4)
    m["protocols"] = [protocol]
    m.setdefault("network", {})["packet_overhead_bytes"] = OVERHEAD
    http = m.setdefault("http", {})
    http["server_write_bytes"] = 0
    if protocol == "h2":
        b = real["h2_bytes"]
        n = len(Scenario.model_validate(doc).page.sizes())
        http["request_bytes"] = max(1, b["first_flight"])
        http["response_header_bytes"] = max(0, round(b["header_bytes_each"]))
        m.setdefault("multiplex", {})["frame_bytes"] = H2_CHUNK
        # nginx writes each response's HEADERS frame (its SETTINGS with the first) before the DATA, a short
        # segment of its own (seen in the captures, 2026-11-27)
        m["multiplex"]["headers_alone"] = True
        if http.get("header_flush"):
            # nginx 1.22's h2 with sendfile corks around each sendfile and leaves TCP_NODELAY off after the
            # uncork (strace; __tcp_sock_set_cork in net/ipv4/tcp.c): the server sends with Nagle on whatever
            # tcp_nodelay says (report.GAPS["h2_sendfile_tail"])
            m.setdefault("tcp", {})["nagle"] = True
        if n:
            m["multiplex"]["request_bytes"] = max(1, round(b["requests_after_html"] / n))
    elif real.get("tls"):
        # the bytes on the wire: the handshake's first two flights as measured, each request and response with its
        # records' overhead, TLS 1.3's tickets (OpenSSL's 2, each written on its own: tls.session_tickets) and what
        # else the server wrote after the handshake beyond the model's flights, spread over the responses
        t = real["tls"]
        version = t[0]["version"]
        tls_doc = m.setdefault("tls", {})
        tls_doc["client_hello_bytes"] = round(statistics.median(x["client_hello"] for x in t))
        tls_doc["server_flight_bytes"] = round(statistics.median(x["server_flight"] for x in t))
        http["request_bytes"] = round(statistics.fmean(x["request_bytes"] for x in t))
        tickets = 0
        if version == "1.3":
            each = round(statistics.median(x["server_after"] for x in t) / TLS13_TICKETS)
            tls_doc["session_tickets"] = TLS13_TICKETS
            tls_doc["session_ticket_bytes"] = each
            tickets = TLS13_TICKETS * each
        extra = sum(x["server_after"] - TLS_MODEL_SERVER_AFTER[version] - tickets for x in t)
        objs = real["objects"]
        head = sum(o["wire_bytes"] - o["body_bytes"] for o in objs) + extra
        http["response_header_bytes"] = max(0, round(head / len(objs)))
    else:
        http["response_header_bytes"] = round(real["header_bytes_mean"])
    return m


def compare(real: dict[str, Any], model: Mapping[str, Any]) -> dict[str, Any]:
    """Error = (model - real) / real for the page load time and the packet count, object ends side by side."""
    r = model["results"][0]
    data = sum(1 for p in r.get("packets", []) if p["bytes"] > 0)
    out = {
        "model_ms": r["page_load_ms"],
        "real_ms": real["page_load_ms"],
        "error": (r["page_load_ms"] - real["page_load_ms"]) / real["page_load_ms"],
        "model_packets": r["counts"]["packets"],
        "real_packets": real["counts"]["packets"],
        "packet_error": (r["counts"]["packets"] - real["counts"]["packets"]) / real["counts"]["packets"],
        "model_data_packets": data,
        "real_data_packets": real["counts"]["data_packets"],
        "data_packet_error": (data - real["counts"]["data_packets"]) / real["counts"]["data_packets"],
        "model_bytes": r["counts"]["bytes_on_wire"],
        "real_bytes": real["counts"]["bytes_on_wire"],
        "model_stalls": {k: r["counts"][k] for k in ("delayed_ack_stalls", "nagle_stalls", "slow_start_restarts")},
    }
    if real["objects"]:
        ends = sorted(o["end_ms"] for o in real["objects"])
        mends = sorted(o["end_ms"] for o in r["objects"])
        if len(ends) == len(mends):
            out["object_end_diff_ms"] = [round(a - b, 3) for a, b in zip(mends, ends, strict=True)]
    return out


def _retrying(stack: Stack, sid: str, doc: dict[str, Any], protocol: str, work: Path) -> dict[str, Any]:
    """:func:`real_run`, once more if the capture missed packets (tcpdump starved of CPU); then it fails."""
    try:
        return real_run(stack, sid, doc, protocol, work)
    except CaptureError as e:
        print(f"{sid} {protocol}: {e}; loading it again", file=sys.stderr)
        return real_run(stack, sid, doc, protocol, work)


#: A load is judged only when the machine kept time during it (issue 26): the relay wrote its packets on time
#: (median lateness; the 99th percentile, which on a short load is its worst packet or two) and the handshake's
#: round trip was the path's (its excess is taken out of the model's path, so a SYN that waited for a CPU would
#: lengthen every modelled round trip). Figures on an idle machine, 714 stored loads of the grid on 2026-11-27:
#: lateness median 6.5-105 us, 99th percentile 27-195 us in 95 % of loads (8 ms at most), excess 0.005-0.38 ms.
QUIET_LATE_MEDIAN_US = 200.0
QUIET_LATE_P99_US = 1000.0
QUIET_RTT_EXCESS_MS = 0.5
#: the first wait (s) before loading a noisy load again, doubled for each further try (0.5, 1, 2, 4 s: a fresh-clone
#: CI run at 01:50 UTC on 2026-11-28 loaded c03 seven times within a second or two, all in one busy spell)
NOISY_BACKOFF_S = 0.5


def noise_allowance_ms(rec: dict[str, Any]) -> float:
    """How much a noisy load's time may owe to the machine (ms): each of the load's round trips (its time over the
    path's round trip) crosses the relay twice, and each crossing may be late by the relay's 99th-percentile
    lateness (the worst over the judged loads). Zero for a quiet run. The two stacks and the two programs wait for a
    CPU in the same busy spells; the relay's lateness stands for them all (c03 h2 on 2026-11-28: 56.6 ms against
    53.8-54.0 on a quiet machine, with a p99 lateness of 1.2 ms: 2 x 5.6 round trips x 1.2 = 13.6 ms)."""
    if not rec.get("noise"):
        return 0.0
    up_ms, _, down_ms, _ = path_of(rec["doc"])
    p99 = max((x for x in rec.get("relay_late_p99_us", []) if x is not None), default=0.0) / 1000.0
    return float(2.0 * rec["real_ms"] / (up_ms + down_ms) * p99)


def noise(real: dict[str, Any]) -> list[str]:
    """Why a load is too noisy to judge (the machine was busy), empty for a quiet one."""
    relay = real["relay"]
    med, p99 = relay.get("late_median_us"), relay.get("late_p99_us")
    out = []
    if med is None or med >= QUIET_LATE_MEDIAN_US:
        out.append(f"relay lateness median {med} us (quiet: < {QUIET_LATE_MEDIAN_US:.0f})")
    if p99 is None or p99 >= QUIET_LATE_P99_US:
        out.append(f"relay lateness p99 {p99} us (quiet: < {QUIET_LATE_P99_US:.0f})")
    excess = real["overheads"]["rtt_excess"]
    if excess >= QUIET_RTT_EXCESS_MS:
        out.append(f"handshake round trip {excess:.3f} ms over the path's (quiet: < {QUIET_RTT_EXCESS_MS})")
    return out


def _quiet_load(
    stack: Stack, sid: str, doc: dict[str, Any], protocol: str, work: Path, retries: int, rejected: list[list[str]]
) -> dict[str, Any]:
    """One load that :func:`noise` finds quiet, loading again up to ``retries`` times while it is not (each noisy
    load's reasons appended to ``rejected``); the last noisy load, with its ``noise``, when none is quiet."""
    for i in range(retries + 1):
        if i:  # a burst of the machine's other work passes: wait longer before each new try
            time.sleep(NOISY_BACKOFF_S * 2 ** (i - 1))
        real = _retrying(stack, sid, doc, protocol, work)
        why = noise(real)
        if not why:
            return real
        rejected.append(why)
        print(f"{sid} {protocol}: a noisy load ({'; '.join(why)}); loading it again", file=sys.stderr)
    real["noise"] = why
    return real


def run(
    stack: Stack, sid: str, doc: dict[str, Any], protocol: str, repeats: int = 1, noisy_retries: int = 3
) -> dict[str, Any]:
    """``repeats`` quiet real loads of one scenario and protocol (the median counts) against one model run; a
    noisy load (:func:`noise`) is loaded again, at most ``noisy_retries`` times per load."""
    rejected: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="realstack-run-") as tmp:
        reals = [_quiet_load(stack, sid, doc, protocol, Path(tmp), noisy_retries, rejected) for _ in range(repeats)]
    return _record(sid, doc, protocol, reals, rejected)


def run_adaptive(
    stack: Stack,
    sid: str,
    doc: dict[str, Any],
    protocol: str,
    within: Callable[[dict[str, Any]], bool],
    start: int = 3,
    cap: int = 9,
    spread: float | None = 0.03,
    noisy_retries: int = 4,
) -> dict[str, Any]:
    """Quiet real loads (:func:`run`'s) until the verdict is clear: at least ``start``, then more, up to ``cap``,
    while the loads' spread ((max - min) / median page-load time) is over ``spread`` or ``within`` (a load's
    own record, its model run on its own measured overheads: ``model_ms``, ``real_ms``, ``error``) says yes for
    some loads and no for others. The record is :func:`run`'s (the median load against the model) with each
    load's model time and ``within`` verdict (``load_model_ms``, ``load_within``). When no quiet load can be had
    within ``noisy_retries`` for one of them, it stops there; the record's ``noise`` names what was noisy."""
    rejected: list[list[str]] = []
    reals: list[dict[str, Any]] = []
    each: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="realstack-run-") as tmp:
        while True:
            reals.append(_quiet_load(stack, sid, doc, protocol, Path(tmp), noisy_retries, rejected))
            each.append(_modelled(sid, doc, protocol, reals[-1]))
            if "noise" in reals[-1]:
                break
            if len(reals) < start:
                continue
            verdicts = {within(r) for r in each}
            plts = sorted(x["page_load_ms"] for x in reals)
            wide = spread is not None and (plts[-1] - plts[0]) / statistics.median(plts) > spread
            if len(reals) >= cap or (len(verdicts) == 1 and not wide):
                break
    rec = _record(sid, doc, protocol, reals, rejected)
    rec["load_model_ms"] = [r["model_ms"] for r in each]
    rec["load_within"] = [within(r) for r in each]
    return rec


def _record(
    sid: str, doc: dict[str, Any], protocol: str, reals: list[dict[str, Any]], rejected: list[list[str]]
) -> dict[str, Any]:
    plts = [x["page_load_ms"] for x in reals]
    med = sorted(range(len(reals)), key=lambda i: plts[i])[len(reals) // 2]
    real = reals[med]
    return {
        **_modelled(sid, doc, protocol, real),
        "real_ms_all": plts,
        "real_wall_s": [round(x["wall_s"], 3) for x in reals],
        "relay_late_us": [x["relay"].get("late_median_us") for x in reals],
        "relay_late_p99_us": [x["relay"].get("late_p99_us") for x in reals],
        "rtt_excess_all": [round(x["overheads"]["rtt_excess"], 4) for x in reals],
        "rejected_loads": rejected,
        "noise": [why for x in reals for why in x.get("noise", [])],
    }


def remodel(rec: dict[str, Any]) -> dict[str, Any]:
    """A stored record with the model's side computed again (the model changed, the real loads did not): no
    root, no namespaces."""
    return {**rec, **_modelled(rec["id"], rec["doc"], rec["protocol"], rec["real"])}


def _modelled(sid: str, doc: dict[str, Any], protocol: str, real: dict[str, Any]) -> dict[str, Any]:
    """The model's side of a record for the real load ``real`` (the median of the repeats)."""
    mdoc = model_doc(doc, protocol, real)
    model = predict(mdoc, packets=True)
    raw = predict(model_doc(doc, protocol, real, accounted=False))["results"][0]["page_load_ms"]
    return {
        "id": sid,
        "protocol": protocol,
        "client": CLIENTS[protocol],
        "doc": doc,
        "model_doc": mdoc,
        "real": real,
        "raw_model_ms": raw,
        "raw_error": (raw - real["page_load_ms"]) / real["page_load_ms"],
        **compare(real, model),
    }


def main_one(path: str, protocols: list[str] | None, repeats: int) -> list[dict[str, Any]]:
    doc = json.loads(Path(path).read_text() if path != "-" else sys.stdin.read())
    protos = protocols or [p for p in Scenario.model_validate(doc).protocols if p in CLIENTS]
    with Stack() as stack:
        return [run(stack, "one", doc, p, repeats) for p in protos]
