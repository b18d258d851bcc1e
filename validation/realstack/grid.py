"""The real-stack grid and the CI guard's scenarios (issue 18), and the figures the goals are stated in.

The grid is a fixed list, not a random draw: every path of RTT {10, 50, 100, 300} ms x rate {1, 10, 100}
Mb/s (the same both ways, split evenly) carries each of three pages, and the four combinations of Nagle and
header flush take turns, so each appears on nine of the 36 scenarios; every scenario runs the four
protocols the real software speaks here (http10, persistent, http10_parallel with 4 connections, h2).
TCP is the model's ``linux`` profile as the kernel is set up (MSS 1460, initial window 10, delayed ACK 40 ms
after 2 segments with 16 quick ACKs, a receive window of 4 MB: the namespaces' tcp_rmem default of 8 MB
gives an rcv_ssthresh of about 4 MB from the first ACK). Requests are 200 bytes.

:data:`CI_RUNS` and :data:`CI_BLOCK_RUNS` are the guard's set: 24 (scenario, protocol) runs on short paths that the
guard repeats (4 of them TLS 1.3, TLS 1.2, Fast Open and a slow uplink).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from validation.grid import quantile as quantile  # the ns-3 grid's (linear, as numpy's default)

RTTS = (10.0, 50.0, 100.0, 300.0)
RATES = (1e6, 10e6, 100e6)
PAGES: dict[str, dict[str, Any]] = {
    "single": {"html_bytes": 3000, "object_bytes": [60000]},
    "mixed5": {"html_bytes": 6000, "object_bytes": [2000, 15000, 40000, 8000, 300000]},
    "many20": {"html_bytes": 10000, "object_bytes": [round(300 * 100 ** (i / 19)) for i in range(20)]},
}
#: Pages of the "sizes" block only (issue 18's span: pages of 1-50 objects of 100 B-1 MB): fifty objects of
#: 100 B to 20 KB, log-spaced, and one object of 1 MB.
SIZE_PAGES: dict[str, dict[str, Any]] = {
    "many50": {"html_bytes": 10000, "object_bytes": [round(100 * 200 ** (i / 49)) for i in range(50)]},
    "large1m": {"html_bytes": 3000, "object_bytes": [1_000_000]},
}
ALL_PAGES = {**PAGES, **SIZE_PAGES}
#: (nagle, header_flush) in turn
SETTINGS = ((False, False), (True, True), (True, False), (False, True))
PROTOCOLS = ("http10", "persistent", "http10_parallel", "h2")
RECEIVE_WINDOW = 4_194_304

#: The goals of issue 18 (fractions of page_load_ms; packets as a fraction of the count).
GOALS = {"median_abs_error": 0.02, "p95_abs_error": 0.05, "max_abs_error": 0.15, "median_packet_error": 0.05}


def kernel_tcp(nagle: bool) -> dict[str, Any]:
    """The model's ``tcp`` section for the kernel's TCP as :mod:`validation.realstack.stack` sets up both namespaces
    (Linux's rules, MSS 1460, IW 10, a fixed receive window, delayed ACKs of 40 ms or every second segment): one
    declaration for the grid and the browser comparison (:mod:`validation.realstack.browser`)."""
    return {
        "profile": "linux",
        "mss_bytes": 1460,
        "initial_window_segments": 10,
        "receive_window_bytes": RECEIVE_WINDOW,
        "delayed_ack_ms": 40.0,
        "delayed_ack_segments": 2,
        "nagle": nagle,
    }


def doc(
    rtt_ms: float,
    rate: float,
    page: str,
    nagle: bool,
    header_flush: bool,
    uplink_rate: float | None = None,
    tls: str = "none",
    handshake: str = "three_way",
) -> dict[str, Any]:
    """The model's scenario document for one grid point (``uplink_rate``: the client's rate when it differs
    from the server's; ``tls``: every connection makes a full handshake of that version, the real client
    reusing no session; ``handshake`` "fast_open": every connection carries its request on the SYN)."""
    d: dict[str, Any] = {
        "protocols": list(PROTOCOLS),
        "network": {"rtt_ms": rtt_ms, "bandwidth_bps": rate, "packet_overhead_bytes": 40},
        "tcp": kernel_tcp(nagle),
        "http": {
            "request_bytes": 200,
            "header_flush": header_flush,
            "server_write_bytes": 0,
            "parallel_connections": 4,
        },
        "page": dict(ALL_PAGES[page]),
    }
    if uplink_rate is not None:
        d["network"]["uplink_bandwidth_bps"] = uplink_rate
    if tls != "none":
        d["tls"] = {"version": tls, "resumption": "none"}
        d["protocols"] = list(H1)
    if handshake != "three_way":
        d["tcp"]["handshake"] = handshake
        d["protocols"] = list(H1)
    return d


def tags(d: dict[str, Any]) -> dict[str, str]:
    n = d["page"]
    page = next(k for k, v in ALL_PAGES.items() if v == n)
    net = d["network"]
    rate = f"{net['bandwidth_bps'] / 1e6:g} Mb/s"
    if net.get("uplink_bandwidth_bps") is not None:
        rate = f"{net['bandwidth_bps'] / 1e6:g}/{net['uplink_bandwidth_bps'] / 1e6:g} Mb/s"
    tls = d.get("tls", {}).get("version", "none")
    handshake = d["tcp"].get("handshake", "three_way")
    block = f"tls{tls}" if tls != "none" else "fast_open" if handshake == "fast_open" else "base"
    if block == "base" and net.get("uplink_bandwidth_bps") is not None:
        block = "asymmetric"
    if block == "base" and page in SIZE_PAGES:
        block = "sizes"
    return {
        "rtt": f"{net['rtt_ms']:g} ms",
        "rate": rate,
        "page": page,
        "nagle": "on" if d["tcp"]["nagle"] else "off",
        "header_flush": "on" if d["http"]["header_flush"] else "off",
        "block": block,
    }


#: HTTP/1.x protocols: the ones the TLS and Fast Open blocks run (the bench's h2 is h2c, prior knowledge)
H1 = ("http10", "persistent", "http10_parallel")
#: The blocks after the base grid: (block, id prefix, [(rtt ms, down Mb/s, up Mb/s or None, page)], settings).
#: TLS: Nagle off (nginx sets TCP_NODELAY on TLS connections, as browsers do) and no header flush (nginx copies a
#: response's header and body into one 16 KB TLS buffer whether it would use sendfile or not). Fast Open: the
#: four Nagle and flush settings in turn. Asymmetric: the client's uplink slower than the server's downlink
#: (ADSL/cable-like ratios, the slowest making the ACKs' own serialization felt), all four protocols.
Path = tuple[float, float, float | None, str]
EXTRA_PATHS: list[Path] = [
    (10, 10, None, "single"),
    (10, 100, None, "many20"),
    (50, 10, None, "mixed5"),
    (50, 100, None, "single"),
    (100, 1, None, "single"),
    (100, 10, None, "many20"),
]
ASYM_PATHS: list[Path] = [
    (10, 10, 1, "mixed5"),
    (50, 100, 10, "single"),
    (100, 10, 1, "many20"),
    (10, 100, 1, "mixed5"),
    (50, 1, 0.25, "single"),
    (300, 10, 1, "mixed5"),
]
#: The sizes block: fifty objects and one of 1 MB (the base grid's pages reach twenty objects and 300 KB).
SIZE_PATHS: list[Path] = [
    (10, 100, None, "many50"),
    (50, 10, None, "many50"),
    (10, 10, None, "large1m"),
    (100, 100, None, "large1m"),
]
BLOCKS: tuple[tuple[str, str, list[Path], dict[str, Any]], ...] = (
    ("tls1.3", "t3", EXTRA_PATHS, {"tls": "1.3", "settings": ((False, False),)}),
    ("tls1.2", "t2", EXTRA_PATHS, {"tls": "1.2", "settings": ((False, False),)}),
    ("fast_open", "f", EXTRA_PATHS, {"handshake": "fast_open", "settings": SETTINGS}),
    ("asymmetric", "a", ASYM_PATHS, {"settings": SETTINGS}),
    ("sizes", "s", SIZE_PATHS, {"settings": SETTINGS}),
)


def scenarios() -> list[dict[str, Any]]:
    """The grid: ``{"id", "doc", "tags", "protocols"}`` for each scenario: the 36 of the base grid (all four
    protocols), then the blocks of :data:`BLOCKS`."""
    out = []
    k = 0
    for rtt in RTTS:
        for rate in RATES:
            for page in PAGES:
                nagle, flush = SETTINGS[k % len(SETTINGS)]
                d = doc(rtt, rate, page, nagle, flush)
                out.append({"id": f"r{k:03d}", "doc": d, "tags": tags(d), "protocols": list(PROTOCOLS)})
                k += 1
    for _block, prefix, paths, opts in BLOCKS:
        for i, (rtt, down, up, page) in enumerate(paths):
            nagle, flush = opts["settings"][i % len(opts["settings"])]
            d = doc(
                rtt,
                down * 1e6,
                page,
                nagle,
                flush,
                uplink_rate=None if up is None else up * 1e6,
                tls=opts.get("tls", "none"),
                handshake=opts.get("handshake", "three_way"),
            )
            out.append({"id": f"{prefix}{i:02d}", "doc": d, "tags": tags(d), "protocols": list(d["protocols"])})
    return out


def doc_of(sid: str) -> dict[str, Any] | None:
    """The grid scenario ``sid``'s document (None if the grid has no such scenario)."""
    return next((s["doc"] for s in scenarios() if s["id"] == sid), None)


#: The CI guard: (rtt ms, Mb/s, page, nagle, header flush, protocol), 20 runs of at most a second or so.
CI_RUNS: tuple[tuple[float, float, str, bool, bool, str], ...] = (
    (10, 100, "single", False, False, "http10"),
    (10, 100, "single", False, False, "persistent"),
    (10, 100, "single", False, False, "http10_parallel"),
    (10, 100, "single", False, False, "h2"),
    (50, 10, "single", False, False, "http10"),
    (50, 10, "single", True, False, "http10"),
    (50, 10, "single", True, True, "http10"),
    (50, 10, "single", False, True, "http10"),
    (50, 10, "single", False, False, "h2"),
    (10, 10, "mixed5", False, False, "http10"),
    (10, 10, "mixed5", False, False, "persistent"),
    (10, 10, "mixed5", True, True, "persistent"),
    (10, 10, "mixed5", False, False, "http10_parallel"),
    (10, 10, "mixed5", False, False, "h2"),
    (30, 1, "single", False, False, "http10"),
    (30, 1, "single", False, False, "persistent"),
    (20, 10, "many20", False, False, "http10"),
    (20, 10, "many20", False, False, "persistent"),
    (20, 10, "many20", False, False, "http10_parallel"),
    (100, 100, "single", False, False, "http10"),
)


#: The guard's runs of the later blocks: (rtt ms, Mb/s, page, nagle, header flush, protocol, what the block adds:
#: ``tls``, ``handshake``, ``uplink`` in Mb/s).
CI_BLOCK_RUNS: tuple[tuple[float, float, str, bool, bool, str, dict[str, Any]], ...] = (
    (10, 10, "single", False, False, "http10", {"tls": "1.3"}),
    (10, 10, "single", False, False, "persistent", {"tls": "1.2"}),
    (10, 10, "single", False, False, "http10", {"handshake": "fast_open"}),
    (10, 10, "mixed5", False, False, "persistent", {"uplink": 1}),
)


def ci_runs() -> list[dict[str, Any]]:
    out = []
    runs: list[tuple[float, float, str, bool, bool, str, dict[str, Any]]] = [(*r, {}) for r in CI_RUNS]
    runs += CI_BLOCK_RUNS
    for i, (rtt, mbps, page, nagle, flush, proto, extra) in enumerate(runs):
        up = extra.get("uplink")
        d = doc(
            rtt,
            mbps * 1e6,
            page,
            nagle,
            flush,
            uplink_rate=None if up is None else up * 1e6,
            tls=extra.get("tls", "none"),
            handshake=extra.get("handshake", "three_way"),
        )
        out.append({"id": f"c{i:02d}", "doc": d, "tags": tags(d), "protocol": proto})
    return out


def stats(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The goal figures over records of :func:`validation.realstack.bench.run`."""
    errs = [abs(r["error"]) for r in rows]
    perr = [abs(r["packet_error"]) for r in rows]
    return {
        "runs": len(rows),
        "median_abs_error": quantile(errs, 0.5),
        "p95_abs_error": quantile(errs, 0.95),
        "max_abs_error": max(errs, default=math.nan),
        "mean_signed_error": statistics.fmean(r["error"] for r in rows) if rows else math.nan,
        "median_packet_error": quantile(perr, 0.5),
    }


def failures(s: dict[str, Any]) -> list[str]:
    return [f"{k} {s[k]:.4f} > {v}" for k, v in GOALS.items() if not s[k] <= v]


def by(rows: Sequence[dict[str, Any]], key: Callable[[dict[str, Any]], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return {k: stats(v) for k, v in sorted(groups.items())}
