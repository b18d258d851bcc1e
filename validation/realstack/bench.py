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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from model import Scenario, predict
from validation.realstack import pcap
from validation.realstack.stack import HERE, PORT_H1, PORT_H2, SERVER_IP, CaptureError, Stack

#: Protocols the bench runs, with the real client that speaks each.
CLIENTS = {
    "http10": "python http.client, Connection: close",
    "persistent": "python http.client, keep-alive",
    "http10_parallel": "python http.client, threads",
    "h2": "nghttp (nghttp2-client), h2c prior knowledge",
}
H2_CHUNK = 16384
OVERHEAD = 40


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
    conns: dict[tuple[int, int], pcap.Connection], objs: list[dict[str, Any]], t0: float
) -> list[dict[str, Any]]:
    """Each object's end (ms after the first SYN) from its connection's byte stream. The client names each
    object's connection by its port and an id; the n-th distinct connection on a port (in the order its
    objects ended) is the n-th in the capture."""
    nth: dict[int, dict[int, int]] = {}
    for o in sorted(objs, key=lambda o: o["end"]):
        ids = nth.setdefault(o["client_port"], {})
        ids.setdefault(o["connection"], len(ids))
    offset: dict[tuple[int, int], int] = {}
    out = []
    for o in objs:
        key = (o["client_port"], nth[o["client_port"]][o["connection"]])
        c = conns.get(key)
        if c is None:
            raise CaptureError(f"no packets of connection {key} in the capture")
        offset[key] = offset.get(key, 0) + o["header_bytes"] + o["body_bytes"]
        t = c.time_of_offset(offset[key])
        if t is None:
            raise CaptureError(f"{o['path']}: its last byte is not in the capture")
        out.append({**o, "end_ms": (t - t0) * 1000.0, "start_ms": (c.syn_time() - t0) * 1000.0})
    for key, total in offset.items():
        sent = max((end for _t, end in conns[key].down_ends()), default=0)  # retransmissions counted once
        if sent != total:
            raise RuntimeError(f"connection {key}: the server sent {sent} bytes, the responses add up to {total}")
    return out


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
    stack.serve(nagle=nagle, header_flush=s.http.header_flush, h2_chunk=H2_CHUNK)
    cap = work / f"{sid}-{protocol}.pcap"
    with stack.link(up_ms, up_bps, down_ms, down_bps) as relay:
        stack.wait_server()
        before = stack.counters()
        with stack.capture(cap) as tcpdump:
            wall = time.monotonic()
            if protocol == "h2":
                out = stack.in_client(
                    "nghttp", "-n", "-a", "-w", "30", "-W", "30", "--no-dep", f"http://{SERVER_IP}:{PORT_H2}{paths[0]}"
                )
                client: dict[str, Any] = {"protocol": "h2", "stdout": out[-500:]}
            else:
                spec = {
                    "protocol": protocol,
                    "host": SERVER_IP,
                    "port": PORT_H1,
                    "paths": paths,
                    "request_bytes": s.http.request_bytes,
                    "nagle": nagle,
                    "parallel": s.http.parallel_connections,
                }
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
        objs = _h1_objects(conns, client["objects"], t0)
        rec["objects"] = [
            {k: o[k] for k in ("path", "client_port", "header_bytes", "body_bytes", "start_ms", "end_ms")} for o in objs
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
        if n:
            m["multiplex"]["request_bytes"] = max(1, round(b["requests_after_html"] / n))
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


def run(stack: Stack, sid: str, doc: dict[str, Any], protocol: str, repeats: int = 1) -> dict[str, Any]:
    """``repeats`` real loads of one scenario and protocol (the median counts) against one model run."""
    with tempfile.TemporaryDirectory(prefix="realstack-run-") as tmp:
        reals = [_retrying(stack, sid, doc, protocol, Path(tmp)) for _ in range(repeats)]
    plts = [x["page_load_ms"] for x in reals]
    med = sorted(range(len(reals)), key=lambda i: plts[i])[len(reals) // 2]
    real = reals[med]
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
        "real_ms_all": plts,
        "real_wall_s": [round(x["wall_s"], 3) for x in reals],
        "relay_late_us": [x["relay"].get("late_median_us") for x in reals],
        "relay_late_p99_us": [x["relay"].get("late_p99_us") for x in reals],
        "raw_model_ms": raw,
        "raw_error": (raw - real["page_load_ms"]) / real["page_load_ms"],
        **compare(real, model),
    }


def main_one(path: str, protocols: list[str] | None, repeats: int) -> list[dict[str, Any]]:
    doc = json.loads(Path(path).read_text() if path != "-" else sys.stdin.read())
    protos = protocols or [p for p in Scenario.model_validate(doc).protocols if p in CLIENTS]
    with Stack() as stack:
        return [run(stack, "one", doc, p, repeats) for p in protos]
