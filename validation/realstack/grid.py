"""The real-stack grid and the CI guard's scenarios (issue 18), and the figures the goals are stated in.

The grid is a fixed list, not a random draw: every path of RTT {10, 50, 100, 300} ms x rate {1, 10, 100}
Mb/s (the same both ways, split evenly) carries each of three pages, and the four combinations of Nagle and
header flush take turns, so each appears on nine of the 36 scenarios; every scenario runs the four
protocols the real software speaks here (http10, persistent, http10_parallel with 4 connections, h2).
TCP is the model's ``linux`` profile as the kernel is set up (MSS 1460, initial window 10, delayed ACK 40 ms
after 2 segments with 16 quick ACKs, a receive window of 4 MB: the namespaces' tcp_rmem default of 8 MB
gives an rcv_ssthresh of about 4 MB from the first ACK). Requests are 200 bytes.

:data:`CI` is the guard's set: 20 (scenario, protocol) runs on short paths that the guard repeats.
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
#: (nagle, header_flush) in turn
SETTINGS = ((False, False), (True, True), (True, False), (False, True))
PROTOCOLS = ("http10", "persistent", "http10_parallel", "h2")
RECEIVE_WINDOW = 4_194_304

#: The goals of issue 18 (fractions of page_load_ms; packets as a fraction of the count).
GOALS = {"median_abs_error": 0.02, "p95_abs_error": 0.05, "max_abs_error": 0.15, "median_packet_error": 0.05}


def doc(rtt_ms: float, rate: float, page: str, nagle: bool, header_flush: bool) -> dict[str, Any]:
    """The model's scenario document for one grid point."""
    return {
        "protocols": list(PROTOCOLS),
        "network": {"rtt_ms": rtt_ms, "bandwidth_bps": rate, "packet_overhead_bytes": 40},
        "tcp": {
            "profile": "linux",
            "mss_bytes": 1460,
            "initial_window_segments": 10,
            "receive_window_bytes": RECEIVE_WINDOW,
            "delayed_ack_ms": 40.0,
            "delayed_ack_segments": 2,
            "nagle": nagle,
        },
        "http": {
            "request_bytes": 200,
            "header_flush": header_flush,
            "server_write_bytes": 0,
            "parallel_connections": 4,
        },
        "page": dict(PAGES[page]),
    }


def tags(d: dict[str, Any]) -> dict[str, str]:
    n = d["page"]
    page = next(k for k, v in PAGES.items() if v == n)
    return {
        "rtt": f"{d['network']['rtt_ms']:g} ms",
        "rate": f"{d['network']['bandwidth_bps'] / 1e6:g} Mb/s",
        "page": page,
        "nagle": "on" if d["tcp"]["nagle"] else "off",
        "header_flush": "on" if d["http"]["header_flush"] else "off",
    }


def scenarios() -> list[dict[str, Any]]:
    """The grid: ``{"id", "doc", "tags"}`` for each of the 36 scenarios."""
    out = []
    k = 0
    for rtt in RTTS:
        for rate in RATES:
            for page in PAGES:
                nagle, flush = SETTINGS[k % len(SETTINGS)]
                d = doc(rtt, rate, page, nagle, flush)
                out.append({"id": f"r{k:03d}", "doc": d, "tags": tags(d)})
                k += 1
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


def ci_runs() -> list[dict[str, Any]]:
    out = []
    for i, (rtt, mbps, page, nagle, flush, proto) in enumerate(CI_RUNS):
        d = doc(rtt, mbps * 1e6, page, nagle, flush)
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
