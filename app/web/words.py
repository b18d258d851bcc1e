"""Plain words for what the model computed: friendly protocol names, and why a protocol took the time it did.

:func:`why` reads one protocol's result (its breakdown along the critical path, its counts and its events, as
:func:`model.predict` returns them) with the scenario's resolved settings, and says in one sentence where the
largest avoidable share of the time went and which setting to try: "pipelined HTTP/1.1 lost 562 ms to Nagle's
algorithm (3 holds): try Nagle off". Every number in it is the result's; nothing is written per preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from model import Scenario
from model.scenario.params import resolve

#: How each protocol is named on the pages.
PROTOCOL_NAMES: dict[str, str] = {
    "http10": "HTTP/1.0",
    "http10_parallel": "HTTP/1.0, parallel connections",
    "persistent": "persistent HTTP/1.1",
    "pipelined": "pipelined HTTP/1.1",
    "getall": "GETALL",
    "h2": "HTTP/2",
    "h3": "HTTP/3",
}

#: The simple mode's names: what each protocol is to someone who has not read the papers.
FRIENDLY_NAMES: dict[str, str] = {
    "http10": "HTTP/1.0 (a new connection per file)",
    "http10_parallel": "HTTP/1.0, several connections at once",
    "persistent": "HTTP/1.1 keep-alive (one connection, one request at a time)",
    "pipelined": "HTTP/1.1 pipelining (requests sent without waiting)",
    "getall": "one request for the whole page (GETALL)",
    "h2": "HTTP/2 (streams on one connection)",
    "h3": "HTTP/3 (QUIC)",
}

#: A breakdown category as a cause, in words.
CAUSES: dict[str, str] = {
    "nagle_stall": "Nagle's algorithm",
    "delayed_ack_stall": "delayed ACKs",
    "slow_start_idle": "slow start (waiting for the congestion window to open)",
    "connection_setup": "opening connections",
    "tls_setup": "TLS handshakes",
    "dns": "DNS lookups",
    "request": "the requests' trip to the server",
    "server": "the server's own time",
    "propagation": "the data's trip to the client (the path's one-way delay)",
    "serialization": "sending the bytes at the link's bandwidth",
}

#: Categories a setting can remove (stalls and setup), in the order they are named when two tie.
AVOIDABLE = ("nagle_stall", "delayed_ack_stall", "slow_start_idle", "connection_setup", "tls_setup", "dns")

#: The count of each stall kind, to say how often it happened.
STALL_COUNTS = {"nagle_stall": ("nagle_stalls", "hold"), "delayed_ack_stall": ("delayed_ack_stalls", "stall")}

#: Below this share of the load time a cause is not worth a sentence.
WORTH = 0.10


@dataclass(frozen=True, slots=True)
class Why:
    """One protocol's time in a sentence; ``toggle`` names the setting to try (see :data:`TOGGLES`), if any."""

    protocol: str
    cause: str  # a breakdown category
    lost_ms: float
    share: float  # of the page load time
    text: str
    toggle: str | None
    detail: str  # the model's own sentence for the longest event of that kind ("" if none)


#: The one-click settings the comparison offers, with their names.
TOGGLES: dict[str, str] = {
    "nagle": "Nagle",
    "header_flush": "header flush",
    "delayed_ack": "delayed ACK",
    "pipelining": "pipelining",
    "tls": "TLS",
}


def _ms(x: float) -> str:
    return f"{x:,.0f} ms" if x >= 10 else f"{x:,.1f} ms"


def _suggestion(cause: str, protocol: str, scenario: Scenario) -> tuple[str, str | None]:
    """What to try against ``cause`` (words, and the toggle that does it), from the scenario's resolved settings."""
    p = resolve(scenario)
    if cause == "nagle_stall" and p.nagle:
        return "try Nagle off", "nagle"
    if cause == "delayed_ack_stall":
        if p.header_flush and protocol in ("persistent", "pipelined"):
            return "try sending the header with the data (header flush off)", "header_flush"
        if p.dack_ms > 0:
            return "try delayed ACK off", "delayed_ack"
    if cause in ("connection_setup", "slow_start_idle") and protocol in ("http10", "http10_parallel"):
        return "try a persistent connection", None
    if cause == "slow_start_idle":
        return "try a larger initial window (tcp.initial_window_segments)", None
    if cause == "tls_setup":
        return "try TLS off, or TLS 1.3", "tls"
    if cause == "request" and protocol == "persistent":
        return "try pipelining", "pipelining"
    return "", None


def why(result: Mapping[str, Any], scenario: Scenario) -> Why:
    """Where ``result``'s time went, in one sentence: the largest avoidable cause over :data:`WORTH` of the load time,
    else the largest part of the time."""
    protocol = str(result["protocol"])
    name = PROTOCOL_NAMES.get(protocol, protocol)
    total = float(result["page_load_ms"])
    breakdown: Mapping[str, float] = result["breakdown_ms"]
    avoidable = [(float(breakdown.get(c, 0.0)), c) for c in AVOIDABLE]
    lost, cause = max(avoidable, key=lambda t: t[0])
    if total <= 0 or lost < WORTH * total:
        lost, cause = max((float(v), c) for c, v in breakdown.items())
        share = lost / total if total > 0 else 0.0
        text = f"{name}: {share:.0%} of its {_ms(total)} is {CAUSES.get(cause, cause)}"
        try_, toggle = _suggestion(cause, protocol, scenario)
        return Why(protocol, cause, lost, share, text + (f": {try_}" if try_ else ""), toggle, "")
    share = lost / total
    how_often = ""
    if cause in STALL_COUNTS:
        key, noun = STALL_COUNTS[cause]
        n = int(result["counts"].get(key, 0))
        if n:
            how_often = f" ({n} {noun}{'' if n == 1 else 's'})"
    try_, toggle = _suggestion(cause, protocol, scenario)
    text = f"{name} lost {_ms(lost)} ({share:.0%}) to {CAUSES[cause]}{how_often}"
    events = [e for e in result.get("events", []) if e.get("kind") == cause]
    detail = max(events, key=lambda e: e.get("duration_ms", 0.0))["why"] if events else ""
    return Why(protocol, cause, lost, share, text + (f": {try_}" if try_ else ""), toggle, detail)
