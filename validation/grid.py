"""The validation grid (issue 3): many scenarios, model against ns-3, raw results to JSON.

:func:`scenarios` draws the grid from a fixed seed (:data:`SEED`), so the same scenarios come out on
every machine: RTT 1-700 ms, 28.8 kb/s-100 Mb/s, MSS 536 and 1460, initial window 1-10, Nagle on and
off, header flush on and off, delayed ACK 40 and 200 ms after 1 or 2 segments, asymmetric delays and
rates, 1-50 objects of 100 B-100 KB, pipelined requests each in its own write or all in one (issue 16, every other
scenario), the seeds' five protocols and h2 (issue 7), always with ``tcp.profile`` ``ns3`` and
``packet_overhead_bytes`` 42 (what ns-3 puts on the wire). Every scenario stays within the model's
schema limits (at most :data:`latency_lab.scenario.schema.MAX_SEGMENTS` response segments).

:func:`run` puts every scenario through one :class:`~validation.sim.Simulator` and returns compact
records (no per-packet lists): per protocol, both page load times, both sides' counts, each
object's end difference (model - ns-3, ms) and the stall events' totals. :func:`summary` turns the records into the
figures the goals are stated in; :mod:`validation.report` writes them up.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from latency_lab.scenario.schema import MAX_SEGMENTS, Scenario
from validation.compare import COUNT_KEYS, compare
from validation.sim import GRID_PROTOCOLS, PACKET_OVERHEAD_BYTES, SimulationError, Simulator

#: The grid's random seed (the issue's number): change it and every figure in the report changes.
SEED = 3
#: Scenarios in the grid's plain-TCP part.
SIZE = 320
#: The TLS block's seed (issue 7) and size: scenarios ``t000``... after the 320.
TLS_SEED = 7
TLS_SIZE = 80
#: The TLS block's handshakes, one scenario each in turn: (version, resumption, 1.3 early data).
TLS_VARIANTS = (
    ("1.2", "none", False),
    ("1.3", "none", False),
    ("1.2", "after_first", False),
    ("1.3", "after_first", True),
    ("1.2", "all", False),
    ("1.3", "all", True),
    ("1.3", "after_first", False),
    ("1.3", "all", False),
)

#: The Fast Open block's seed (issue 7) and size: scenarios ``f000``... after the TLS block.
TFO_SEED = 11
TFO_SIZE = 60

#: The False Start block's seed (issue 16) and size: scenarios ``s000``... after the Fast Open block.
FS_SEED = 16
FS_SIZE = 32
#: The False Start block's handshakes, one scenario each in turn: (version, resumption), ``tls.false_start`` on in
#: all. False Start (RFC 7918) changes only full TLS 1.2 handshakes (:func:`latency_lab.mechanisms.tls.handshake`): 1.2
#: resumed on every connection and 1.3 are in the block to check that it changes nothing there.
FS_VARIANTS = (
    ("1.2", "none"),
    ("1.2", "after_first"),
    ("1.2", "all"),
    ("1.3", "none"),
)

#: The goals of issue 3 (fractions).
GOALS = {
    "median_abs_error": 0.02,
    "p95_abs_error": 0.08,
    "max_abs_error": 0.25,
    "stall_agreement": 0.95,
    "median_packet_error": 0.05,
}

BW_MIN, BW_MAX = 28_800.0, 100e6
RTT_MIN, RTT_MAX = 1.0, 700.0
SIZE_MIN, SIZE_MAX = 100, 100_000


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _strata(rng: random.Random, n: int) -> list[float]:
    """``n`` points in [0, 1), one in each of ``n`` equal strata, in random order (Latin hypercube)."""
    pts = [(i + rng.random()) / n for i in range(n)]
    rng.shuffle(pts)
    return pts


def _from_unit(u: float, lo: float, hi: float) -> float:
    """``u`` in [0, 1] mapped log-uniformly onto [lo, hi]."""
    return math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def _segments(doc: dict[str, Any]) -> int:
    mss = doc["tcp"]["mss_bytes"]
    header = doc["http"]["response_header_bytes"]
    sizes = [doc["page"]["html_bytes"], *doc["page"]["object_bytes"]]
    return sum(-(-(header + s) // mss) for s in sizes)


def _page(rng: random.Random) -> dict[str, Any]:
    n = max(1, min(50, round(_log_uniform(rng, 1, 50.49))))
    html = round(_log_uniform(rng, SIZE_MIN, SIZE_MAX))
    if rng.random() < 0.3:  # all objects the same size
        size = round(_log_uniform(rng, SIZE_MIN, SIZE_MAX))
        objects = [size] * n
    else:
        objects = [round(_log_uniform(rng, SIZE_MIN, SIZE_MAX)) for _ in range(n)]
    return {"html_bytes": html, "object_bytes": objects}


def tags(doc: dict[str, Any]) -> dict[str, str]:
    """The scenario's mechanism labels, the groups the report breaks the error down by."""
    net, tcp, http, page = doc["network"], doc["tcp"], doc["http"], doc["page"]
    up = net.get("uplink_delay_ms")
    down = net.get("downlink_delay_ms")
    rtt = up + down if up is not None else net["rtt_ms"]
    bw = net["bandwidth_bps"]
    n = len(page["object_bytes"])
    return {
        "nagle": "on" if tcp["nagle"] else "off",
        "header_flush": "on" if http["header_flush"] else "off",
        "delayed_ack": f"{tcp['delayed_ack_ms']:g} ms / {tcp['delayed_ack_segments']} seg",
        "delays": "asymmetric" if up is not None and up != down else "symmetric",
        "rates": "asymmetric" if net.get("uplink_bandwidth_bps", bw) != bw else "symmetric",
        "mss": str(tcp["mss_bytes"]),
        "initial_window": "1-2"
        if tcp["initial_window_segments"] <= 2
        else "3-5"
        if tcp["initial_window_segments"] <= 5
        else "6-10",
        "receive_window": "131072 (ns3)" if tcp["receive_window_bytes"] == 131072 else "smaller",
        "handshake": tcp["handshake"],
        "think_time": "yes"
        if http["server_think_ms"] or http["client_think_ms"] or http["connection_overhead_ms"]
        else "no",
        "rtt": "1-10 ms" if rtt < 10 else "10-100 ms" if rtt < 100 else "100-700 ms",
        "bandwidth": "< 1 Mb/s" if bw < 1e6 else "1-10 Mb/s" if bw < 10e6 else "10-100 Mb/s",
        "objects": "1-5" if n <= 5 else "6-20" if n <= 20 else "21-50",
        "tls": tls_tag(doc.get("tls")),
        "dns": doc.get("dns", {}).get("lookup", "cached"),
        "pipeline_writes": http.get("pipeline_writes", "each"),
    }


def tls_tag(t: dict[str, Any] | None) -> str:
    """``none``, or the version and which connections resume (``+ 0-RTT`` for 1.3 resumptions with early data,
    ``+ False Start`` for 1.2 with ``false_start`` and full handshakes, the only ones it changes)."""
    if not t or t.get("version", "none") == "none":
        return "none"
    resumption = t.get("resumption", "after_first")
    tag = f"{t['version']} resumed {resumption}" if resumption != "none" else f"{t['version']} full"
    if t["version"] == "1.3" and resumption != "none" and t.get("early_data", True):
        tag += " + 0-RTT"
    if t["version"] == "1.2" and resumption != "all" and t.get("false_start", False):
        tag += " + False Start"
    return tag


def scenarios(
    size: int = SIZE,
    seed: int = SEED,
    tls_size: int = TLS_SIZE,
    tls_seed: int = TLS_SEED,
    tfo_size: int = TFO_SIZE,
    tfo_seed: int = TFO_SEED,
    fs_size: int = FS_SIZE,
    fs_seed: int = FS_SEED,
) -> list[dict[str, Any]]:
    """The grid: ``size`` scenario documents (``{"id", "doc", "tags"}``), then :func:`tls_scenarios`'s
    ``tls_size``, :func:`tfo_scenarios`'s ``tfo_size`` and :func:`false_start_scenarios`'s ``fs_size``; the
    same for the same seeds."""
    rng = random.Random(seed)
    rtt_u, bw_u = _strata(rng, size), _strata(rng, size)
    # The corners of the path space are in the grid for sure: 1 and 700 ms, 28.8 kb/s and 100 Mb/s.
    corners = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]
    out = []
    for i in range(size):
        ru, bu = corners[i] if i < len(corners) else (rtt_u[i], bw_u[i])
        doc = _draw(rng, ru, bu)
        # issue 16: every other scenario's pipelined requests in one write (libwww's), without a draw, so the
        # rest of the grid stays what it was
        doc["http"]["pipeline_writes"] = "one" if i % 2 else "each"
        out.append({"id": f"g{i:03d}", "doc": doc, "tags": tags(doc)})
    return (
        out
        + tls_scenarios(tls_size, tls_seed)
        + tfo_scenarios(tfo_size, tfo_seed)
        + false_start_scenarios(fs_size, fs_seed)
    )


def tls_scenarios(size: int = TLS_SIZE, seed: int = TLS_SEED) -> list[dict[str, Any]]:
    """The grid's TLS block (issue 7): ``size`` scenarios drawn as the others (their own seed, ids ``t000``...)
    with TLS on every connection and a three-way handshake.

    The eight handshake variants of :data:`TLS_VARIANTS` in turn; ClientHello 512 bytes mostly, some 300 and some 1,800 (a post-quantum key
    share, two segments at MSS 1460); the server's first flight 1,000-12,000 bytes log-uniform (certificate
    chains); a DNS lookup (``dns.lookup`` resolver, 1-100 ms log-uniform) before the first connection in a
    quarter.
    """
    rng = random.Random(seed)
    rtt_u, bw_u = _strata(rng, size), _strata(rng, size)
    out = []
    for i in range(size):
        doc = _draw(rng, rtt_u[i], bw_u[i])
        doc["tcp"]["handshake"] = "three_way"
        doc["tls"] = _tls(rng, TLS_VARIANTS[i % len(TLS_VARIANTS)], [512, 512, 512, 300, 1800])
        _dns(rng, doc)
        Scenario.model_validate(doc)
        out.append({"id": f"t{i:03d}", "doc": doc, "tags": tags(doc)})
    return out


def _tls(rng: random.Random, variant: tuple[str, str, bool], hellos: list[int]) -> dict[str, Any]:
    """A scenario's ``tls`` part: the handshake ``variant`` (version, resumption, early data), a ClientHello
    size from ``hellos`` and a server flight of 1,000-12,000 bytes (log-uniform)."""
    version, resumption, early = variant
    return {
        "version": version,
        "resumption": resumption,
        "early_data": early,
        "client_hello_bytes": rng.choice(hellos),
        "server_flight_bytes": round(_log_uniform(rng, 1000, 12_000)),
    }


def _dns(rng: random.Random, doc: dict[str, Any]) -> None:
    """A DNS lookup (resolver 1-100 ms away, log-uniform) before the first connection, in a quarter of the draws."""
    if rng.random() < 0.25:
        doc["dns"] = {"lookup": "resolver", "resolver_rtt_ms": round(_log_uniform(rng, 1, 100), 3)}


def tfo_scenarios(size: int = TFO_SIZE, seed: int = TFO_SEED) -> list[dict[str, Any]]:
    """The grid's Fast Open block (issue 7): ``size`` scenarios drawn as the others (their own seed, ids
    ``f000``...) with TCP Fast Open (RFC 7413) on every connection.

    Every other scenario has TLS, the eight handshakes of :data:`TLS_VARIANTS` in turn (the SYN then carries
    the ClientHello, and with 0-RTT the request too); a third have a request of 1,500-4,000 bytes, more than
    the SYN takes (one MSS), so the rest follows the SYN-ACK; a DNS lookup in a quarter.
    """
    rng = random.Random(seed)
    rtt_u, bw_u = _strata(rng, size), _strata(rng, size)
    out = []
    for i in range(size):
        doc = _draw(rng, rtt_u[i], bw_u[i])
        doc["tcp"]["handshake"] = "fast_open"
        if i % 2:
            doc["tls"] = _tls(rng, TLS_VARIANTS[(i // 2) % len(TLS_VARIANTS)], [512, 512, 300, 1800])
        if rng.random() < 1 / 3:
            doc["http"]["request_bytes"] = rng.randint(1500, 4000)
        _dns(rng, doc)
        Scenario.model_validate(doc)
        out.append({"id": f"f{i:03d}", "doc": doc, "tags": tags(doc)})
    return out


def false_start_scenarios(size: int = FS_SIZE, seed: int = FS_SEED) -> list[dict[str, Any]]:
    """The grid's False Start block (issue 16): ``size`` scenarios drawn as the TLS block's (their own seed, ids
    ``s000``...) with a three-way handshake and TLS on every connection with ``tls.false_start`` (RFC 7918).

    The handshakes of :data:`FS_VARIANTS` in turn: full 1.2 on every connection, full on the first and resumed
    after it, resumed on every one (False Start changes nothing), 1.3 (nothing either); ClientHello and server
    flight as in the TLS block, a DNS lookup in a quarter.
    """
    rng = random.Random(seed)
    rtt_u, bw_u = _strata(rng, size), _strata(rng, size)
    out = []
    for i in range(size):
        doc = _draw(rng, rtt_u[i], bw_u[i])
        doc["tcp"]["handshake"] = "three_way"
        version, resumption = FS_VARIANTS[i % len(FS_VARIANTS)]
        doc["tls"] = {**_tls(rng, (version, resumption, False), [512, 512, 512, 300, 1800]), "false_start": True}
        _dns(rng, doc)
        Scenario.model_validate(doc)
        out.append({"id": f"s{i:03d}", "doc": doc, "tags": tags(doc)})
    return out


def _draw(rng: random.Random, ru: float, bu: float) -> dict[str, Any]:
    """One scenario of the grid at the path point ``(ru, bu)`` of the unit square; the rest drawn from ``rng``."""
    rtt = round(_from_unit(ru, RTT_MIN, RTT_MAX), 3)
    bw = round(_from_unit(bu, BW_MIN, BW_MAX))
    net: dict[str, Any] = {"bandwidth_bps": bw, "packet_overhead_bytes": PACKET_OVERHEAD_BYTES}
    if rng.random() < 0.35:  # asymmetric one-way delays
        up = round(rtt * rng.uniform(0.05, 0.95), 3)
        net["uplink_delay_ms"] = up
        net["downlink_delay_ms"] = round(rtt - up, 3)
    else:
        net["rtt_ms"] = rtt
    if rng.random() < 0.2:  # asymmetric rates: mostly a slower uplink, within the grid's range
        up_bw = round(min(BW_MAX, max(BW_MIN, bw * _log_uniform(rng, 1 / 20, 4))))
        if up_bw != bw:
            net["uplink_bandwidth_bps"] = up_bw
    mss = rng.choice([536, 1460])
    tcp: dict[str, Any] = {
        "profile": "ns3",
        "mss_bytes": mss,
        "initial_window_segments": rng.randint(1, 10),
        "nagle": rng.random() < 0.5,
        "delayed_ack_ms": rng.choice([40.0, 200.0]),
        "delayed_ack_segments": rng.choice([1, 2]),
        "receive_window_bytes": rng.choice([131072, 131072, 131072, 65535, 16384, 8 * mss]),
        "handshake": "none" if rng.random() < 0.1 else "three_way",
    }
    http: dict[str, Any] = {
        "request_bytes": rng.randint(100, 500),
        "response_header_bytes": rng.randint(100, 400),
        "header_flush": rng.random() < 0.5,
        "server_write_bytes": rng.choice([4096, 4096, 0, 1460, 8192]),
        "parallel_connections": rng.randint(2, 6),
        "server_think_ms": 0.0,
        "client_think_ms": 0.0,
        "connection_overhead_ms": 0.0,
    }
    if rng.random() < 0.2:  # host time
        http["server_think_ms"] = round(rng.uniform(0, 20), 3)
        http["client_think_ms"] = round(rng.uniform(0, 20), 3)
        http["connection_overhead_ms"] = round(rng.uniform(0, 10), 3)
    doc: dict[str, Any] = {"protocols": list(GRID_PROTOCOLS), "network": net, "tcp": tcp, "http": http}
    doc["page"] = _page(rng)
    while _segments(doc) > MAX_SEGMENTS:  # the model's cap: draw the page again
        doc["page"] = _page(rng)
    Scenario.model_validate(doc)  # within the schema's limits, or fail loudly here
    return doc


def _event_totals(events: Iterable[dict[str, Any]]) -> dict[str, dict[str, float]]:
    tot: dict[str, dict[str, float]] = {}
    for e in events:
        t = tot.setdefault(e["kind"], {"count": 0, "ms": 0.0})
        t["count"] += 1
        t["ms"] += e["duration_ms"]
    return tot


def record(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Compact per-protocol rows of one :func:`validation.compare.compare` result."""
    rows = []
    for r in result["rows"]:
        diffs = [o["model_end_ms"] - o["ns3_end_ms"] for o in r["objects"]]
        rows.append(
            {
                "protocol": r["protocol"],
                "model_ms": r["model_ms"],
                "ns3_ms": r["ns3_ms"],
                "error": r["error"],
                "model": {k: r["model"][k] for k in COUNT_KEYS},
                "ns3": {k: r["ns3"][k] for k in COUNT_KEYS},
                "object_end_diffs_ms": [round(x, 6) for x in diffs],
                "model_events": _event_totals(r["model_events"]),
                "ns3_events": _event_totals(r["ns3_events"]),
            }
        )
    return rows


def run(
    grid: Sequence[dict[str, Any]],
    sim: Simulator,
    *,
    progress: Callable[[int, dict[str, Any], float], None] | None = None,
) -> list[dict[str, Any]]:
    """Every scenario of ``grid`` through the model and ``sim``; one entry per scenario.

    A scenario ns-3 cannot run (:class:`SimulationError`) is kept with its ``error`` message and no
    rows, so the report can say so.
    """
    out = []
    for i, g in enumerate(grid):
        t = time.monotonic()
        entry: dict[str, Any] = {"id": g["id"], "doc": g["doc"], "tags": g["tags"]}
        try:
            entry["rows"] = record(compare(g["doc"], sim))
        except SimulationError as exc:
            entry["rows"] = []
            entry["error"] = str(exc)
        entry["wall_s"] = round(time.monotonic() - t, 3)
        out.append(entry)
        if progress is not None:
            progress(i, entry, entry["wall_s"])
    return out


# ---------------------------------------------------------------------------------------------- figures
def runs(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per scenario and protocol, with the scenario's id and tags."""
    return [{"id": e["id"], "tags": e["tags"], **r} for e in results for r in e["rows"]]


def quantile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (linear between order statistics, as numpy's default)."""
    s = sorted(xs)
    if not s:
        return math.nan
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def stalls_agree(r: dict[str, Any]) -> bool:
    """Both the delayed-ACK and the Nagle stall counts of one run are the same on both sides."""
    m, n = r["model"], r["ns3"]
    return bool(m["delayed_ack_stalls"] == n["delayed_ack_stalls"] and m["nagle_stalls"] == n["nagle_stalls"])


def packet_error(r: dict[str, Any]) -> float:
    n = r["ns3"]["packets"]
    return abs(r["model"]["packets"] - n) / n if n else 0.0


def stats(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The goal figures over ``rows`` (flat runs from :func:`runs`)."""
    errs = [abs(r["error"]) for r in rows]
    perr = [packet_error(r) for r in rows]
    n = len(rows)
    dack = sum(1 for r in rows if r["model"]["delayed_ack_stalls"] == r["ns3"]["delayed_ack_stalls"])
    nagle = sum(1 for r in rows if r["model"]["nagle_stalls"] == r["ns3"]["nagle_stalls"])
    return {
        "runs": n,
        "median_abs_error": quantile(errs, 0.5),
        "p95_abs_error": quantile(errs, 0.95),
        "max_abs_error": max(errs, default=math.nan),
        "mean_signed_error": statistics.fmean(r["error"] for r in rows) if rows else math.nan,
        "stall_agreement": sum(1 for r in rows if stalls_agree(r)) / n if n else math.nan,
        "delayed_ack_agreement": dack / n if n else math.nan,
        "nagle_agreement": nagle / n if n else math.nan,
        "median_packet_error": quantile(perr, 0.5),
        "p95_packet_error": quantile(perr, 0.95),
        "max_packet_error": max(perr, default=math.nan),
        "exact_packets": sum(1 for r in rows if r["model"]["packets"] == r["ns3"]["packets"]) / n if n else math.nan,
        "model_delayed_ack_stalls": sum(r["model"]["delayed_ack_stalls"] for r in rows),
        "ns3_delayed_ack_stalls": sum(r["ns3"]["delayed_ack_stalls"] for r in rows),
        "model_nagle_stalls": sum(r["model"]["nagle_stalls"] for r in rows),
        "ns3_nagle_stalls": sum(r["ns3"]["nagle_stalls"] for r in rows),
    }


def failures(s: dict[str, Any]) -> list[str]:
    """The goals :func:`stats` figures miss (empty: all met)."""
    out = []
    for key in ("median_abs_error", "p95_abs_error", "max_abs_error", "median_packet_error"):
        if not s[key] <= GOALS[key]:
            out.append(f"{key} {100 * s[key]:.2f}% > {100 * GOALS[key]:.0f}%")
    if not s["stall_agreement"] >= GOALS["stall_agreement"]:
        out.append(f"stall_agreement {100 * s['stall_agreement']:.1f}% < {100 * GOALS['stall_agreement']:.0f}%")
    return out


def by(rows: Sequence[dict[str, Any]], key: Callable[[dict[str, Any]], str]) -> dict[str, dict[str, Any]]:
    """:func:`stats` per group of ``rows``."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return {k: stats(v) for k, v in sorted(groups.items())}


#: The CI subset's cost cap: response segments per scenario (a few seconds of ns-3 for all six protocols).
CI_MAX_SEGMENTS = 1500
#: Scenarios in the CI subset (besides the Fast Open ones).
CI_SIZE = 80
#: Fast Open scenarios in the CI subset (an even spread of the block's).
CI_TFO = 12
#: False Start scenarios in the CI subset for each of :data:`FS_VARIANTS` (the cheapest eligible ones).
CI_FS = 2


def ci_subset(grid: Sequence[dict[str, Any]], size: int = CI_SIZE) -> list[dict[str, Any]]:
    """A fixed subset of ``grid`` for CI: every mechanism's values, at a bounded cost.

    Deterministic, from the scenarios alone (not their results): only scenarios of at most
    :data:`CI_MAX_SEGMENTS` response segments are eligible; a first pass takes, for each tag value
    (:func:`tags`) not yet covered, the eligible scenario having it with the fewest segments (id
    breaking ties); then every k-th eligible scenario in id order fills the subset up to ``size``. The Fast Open
    block (ids ``f``) is left out of that and adds :data:`CI_TFO` of its eligible scenarios, evenly spread; the
    False Start block (ids ``s``) too, adding the :data:`CI_FS` eligible scenarios of fewest segments (id breaking
    ties) of each of its handshake variants. Every scenario runs all six protocols.
    """
    tfo = [g for g in grid if g["id"].startswith("f") and _segments(g["doc"]) <= CI_MAX_SEGMENTS]
    fs = sorted(
        (g for g in grid if g["id"].startswith("s") and _segments(g["doc"]) <= CI_MAX_SEGMENTS),
        key=lambda g: (_segments(g["doc"]), g["id"]),
    )
    grid = [g for g in grid if not g["id"].startswith(("f", "s"))]
    eligible = [g for g in grid if _segments(g["doc"]) <= CI_MAX_SEGMENTS]
    ranked = sorted(eligible, key=lambda g: (_segments(g["doc"]), g["id"]))
    chosen: dict[str, dict[str, Any]] = {}
    for k, v in sorted({(k, v) for g in grid for k, v in g["tags"].items()}):
        if any(c["tags"][k] == v for c in chosen.values()):
            continue
        g = next((g for g in ranked if g["tags"][k] == v), None)
        if g is not None:
            chosen[g["id"]] = g
    rest = [g for g in eligible if g["id"] not in chosen]
    need = max(0, size - len(chosen))
    if need and rest:
        step = len(rest) / need
        for j in range(min(need, len(rest))):
            g = rest[int(j * step)]
            chosen[g["id"]] = g
    k = min(CI_TFO, len(tfo))
    for j in range(k):
        g = tfo[int(j * len(tfo) / k)]
        chosen[g["id"]] = g
    for variant in FS_VARIANTS:
        for g in [g for g in fs if (g["doc"]["tls"]["version"], g["doc"]["tls"]["resumption"]) == variant][:CI_FS]:
            chosen[g["id"]] = g
    return sorted(chosen.values(), key=lambda g: str(g["id"]))
