"""A reproducible spread of scenarios for the consistency tests (not a test module)."""

from __future__ import annotations

import random
from typing import Any

from model.scenario import ALL_PROTOCOLS, SEED_PROTOCOLS


def spread(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` scenario documents across every mechanism's settings, the same for the same seed."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d: dict[str, Any] = {
            "protocols": list(ALL_PROTOCOLS),
            "network": {
                "rtt_ms": rng.choice([0.5, 10, 70, 300]),
                "bandwidth_bps": rng.choice([28_800, 1_544_000, 10e6, 100e6]),
                "packet_overhead_bytes": rng.choice([0, 40, 78]),
            },
            "tcp": {
                "profile": rng.choice(["bsd", "ns3", "rfc5681", "linux"]),
                "nagle": rng.choice([True, False]),
                "mss_bytes": rng.choice([536, 1460]),
                "initial_window_segments": rng.choice([1, 2, 4, 10]),
                "delayed_ack_ms": rng.choice([0, 40, 200]),
                "delayed_ack_segments": rng.choice([1, 2]),
                "receive_window_bytes": rng.choice([4096, 16384, 65535]),
                "handshake": rng.choice(["three_way", "none"]),
            },
            "http": {
                "header_flush": rng.choice([True, False]),
                "server_write_bytes": rng.choice([0, 4096, 1000]),
                "server_think_ms": rng.choice([0, 2]),
                "client_think_ms": rng.choice([0, 1]),
                "connection_overhead_ms": rng.choice([0, 3]),
                "parallel_connections": rng.choice([1, 2, 4, 6]),
            },
            "page": {
                "html_bytes": rng.randint(100, 20_000),
                "object_bytes": [rng.randint(50, 30_000) for _ in range(rng.randint(0, 6))],
            },
        }
        if rng.random() < 0.5:  # today's setups (issue 7): TLS, DNS, Fast Open
            d["tls"] = {
                "version": rng.choice(["1.2", "1.3"]),
                "resumption": rng.choice(["none", "after_first", "all"]),
                "early_data": rng.choice([True, False]),
                "server_flight_bytes": rng.choice([1000, 4000, 6000]),
            }
            d["dns"] = {"lookup": rng.choice(["cached", "resolver"]), "resolver_rtt_ms": rng.choice([0, 20])}
            d["tcp"]["handshake"] = rng.choice(["three_way", "none", "fast_open", "ttcp"])
        if rng.random() < 0.3:
            d["network"]["uplink_delay_ms"] = rng.choice([5, 35])
            d["network"]["downlink_delay_ms"] = rng.choice([5, 300])
            d["network"]["uplink_bandwidth_bps"] = rng.choice([64_000, 1e6])
        out.append(d)
    return out


def split_spread(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` split-proxy scenario documents (seed 003): the spread's settings with random legs, long-haul
    connections, windows and multiplexing overhead, handshakes, idle restarts and two-page sessions."""
    rng = random.Random(seed)
    out = []
    for d in spread(n, seed):
        d["proxy"] = {
            "architecture": "split_proxy",
            "client_leg": {
                "delay_ms": rng.choice([0, 0.5, 5]),
                "bandwidth_bps": rng.choice([1e6, 10e6, 100e6]),
                "receive_window_bytes": rng.choice([None, 8192]),
            },
            "server_leg": {
                "delay_ms": rng.choice([0, 1, 20]),
                "bandwidth_bps": rng.choice([1e6, 10e6, 100e6]),
                "receive_window_bytes": rng.choice([None, 16384]),
            },
            "long_haul_connections": rng.choice([1, 2, 4]),
            "long_haul_receive_window_bytes": rng.choice([None, 32767, 65535]),
            "mux_overhead_bytes": rng.choice([0, 20]),
        }
        d["tcp"]["handshake"] = rng.choice(["three_way", "none", "ttcp", "fast_open"])
        # the split proxies relay plain HTTP/1.x (model.scenario refuses TLS, h2 and h3 on them)
        d.pop("tls", None)
        d["protocols"] = [name for name in d.get("protocols", SEED_PROTOCOLS) if name not in ("h2", "h3")]
        d["tcp"]["idle_restart"] = rng.choice(["slow_start", "keep", "fast_start", "paced"])
        if rng.random() < 0.3:
            d["session"] = {
                "pages": 2,
                "think_time_ms": rng.choice([0, 2000]),
                "server_idle_timeout_ms": rng.choice([None, 1000]),
            }
        out.append(d)
    return out
