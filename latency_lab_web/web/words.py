"""Plain words for what the model computed: friendly protocol names, and why a protocol took the time it did.

:func:`why` reads one protocol's result (its breakdown along the critical path, its counts and its events, as
:func:`latency_lab.predict` returns them) with the scenario's resolved settings, and says in one sentence where the
largest avoidable share of the time went and which setting to try: "pipelined HTTP/1.1 lost 562 ms to Nagle's
algorithm (3 holds): try Nagle off". Every number in it is the result's; nothing is written per preset. With
random loss the sentence is about the time that leads (:mod:`latency_lab.analysis.leading`: the expected page load time)
and its parts include loss's own (:data:`LOSS_CAUSES`): "HTTP/2 lost 1.4 s (23%) to retransmission timeouts
(expected, at 1% loss): try ...".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from latency_lab import Scenario
from latency_lab.analysis.leading import LOSS_PARTS, head_of_line_ms, leading_ms, lossy, parts_ms
from latency_lab.scenario.params import resolve
from latency_lab_web.web.form import FIELDS

#: How each protocol is named on the pages.
PROTOCOL_NAMES: dict[str, str] = {
    "http10": "HTTP/1.0",
    "http10_parallel": "HTTP/1.0, parallel connections",
    "persistent": "persistent HTTP/1.1",
    "pipelined": "pipelined HTTP/1.1",
    "getall": "GETALL",
    "persistent_parallel": "persistent HTTP/1.1, parallel connections",
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
    "persistent_parallel": "HTTP/1.1 as browsers use it (several keep-alive connections at once)",
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

#: Loss's own parts of the time (:data:`latency_lab.analysis.leading.LOSS_PARTS`), as causes in words.
LOSS_CAUSES: dict[str, str] = {
    LOSS_PARTS["handshake"]: "lost handshake packets (SYN timeouts)",
    LOSS_PARTS["timeouts"]: "retransmission timeouts",
    LOSS_PARTS["fast_retransmit"]: "fast retransmits",
    LOSS_PARTS["slower_sending"]: "slower sending after losses, from a smaller window",
}
CAUSES.update(LOSS_CAUSES)

#: Short names of loss's parts, for table rows and chart legends.
LOSS_PART_NAMES: dict[str, str] = {
    LOSS_PARTS["handshake"]: "loss: handshake",
    LOSS_PARTS["timeouts"]: "loss: timeouts",
    LOSS_PARTS["fast_retransmit"]: "loss: fast retransmits",
    LOSS_PARTS["slower_sending"]: "loss: slower sending",
}

#: Categories a setting can remove (stalls and setup, and loss's own parts), in the order they are named when two
#: tie.
AVOIDABLE = (
    "nagle_stall",
    "delayed_ack_stall",
    "slow_start_idle",
    "connection_setup",
    "tls_setup",
    "dns",
    *LOSS_CAUSES,
)

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


def field_words(param: str) -> str:
    """A field as the form names it, for a sentence: ``tcp.initial_window_segments`` -> “Initial window” in TCP."""
    f = next(f for f in FIELDS if f.param == param)
    section = f.section.upper() if f.section in ("tcp", "tls", "dns", "quic") else f.section.capitalize()
    return f"“{f.label}” in {section}"


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
        return f"try a larger initial window ({field_words('tcp.initial_window_segments')})", None
    if cause == "tls_setup":
        if protocol == "h3":  # QUIC carries TLS 1.3 in its own handshake: there is no TLS to turn off
            return (
                "QUIC always carries TLS 1.3: try resuming the session with 0-RTT early data "
                f"({field_words('tls.resumption')})",
                None,
            )
        if p.tls == "1.2":
            return "try TLS 1.3 (a round trip fewer), or TLS off", "tls"
        return f"try resuming the session with 0-RTT early data ({field_words('tls.resumption')}), or TLS off", "tls"
    if cause == "request" and protocol == "persistent":
        return "try pipelining", "pipelining"
    if cause == "connection_setup" and protocol == "persistent_parallel" and not p.preconnect:
        return "try opening the connections at the click (http.preconnect), or HTTP/2 (one connection)", None
    if cause in (LOSS_PARTS["handshake"], LOSS_PARTS["timeouts"]) and protocol in ("http10", "http10_parallel"):
        return "try a persistent connection (fewer handshakes, longer windows to repair in)", None
    if cause == LOSS_PARTS["timeouts"] and protocol == "persistent":
        return "try pipelining (more segments follow a loss, so a fast retransmit repairs it before the timeout)", (
            "pipelining"
        )
    if cause == LOSS_PARTS["timeouts"] and protocol != "h3":
        return (
            f"try a larger initial window ({field_words('tcp.initial_window_segments')}: more segments follow a "
            "loss, so a fast retransmit repairs it before the timeout)",
            None,
        )
    return "", None


def _percent(rate: float) -> str:
    """A loss rate in words: 0.01 -> ``1%``, 0.005 -> ``0.5%``."""
    return f"{rate * 100:.3g}%"


def _head_of_line(result: Mapping[str, Any]) -> str:
    """HTTP/2's streams held behind a repair, against HTTP/3's per-stream loss ("" if none)."""
    hol = head_of_line_ms(result)
    if hol <= 0 or result.get("protocol") != "h2":
        return ""
    return (
        f"; its other streams waited {_ms(hol)} in all behind repairs (head-of-line blocking on one TCP connection; "
        "HTTP/3's streams wait only for their own losses)"
    )


def _loss_clause(result: Mapping[str, Any], parts: Mapping[str, float], cause: str) -> str:
    """With loss, when the sentence names another cause: loss's expected extra time and its largest part."""
    if not lossy(result) or cause in LOSS_CAUSES:
        return ""
    extra = sum(parts.get(k, 0.0) for k in LOSS_CAUSES)
    if extra <= 0:
        return ""
    largest = max(LOSS_CAUSES, key=lambda k: parts.get(k, 0.0))
    return f"; loss adds {_ms(extra)} (expected), most of it {CAUSES[largest]} ({_ms(parts[largest])})"


def why(result: Mapping[str, Any], scenario: Scenario) -> Why:
    """Where ``result``'s time went, in one sentence: the largest avoidable cause over :data:`WORTH` of the load time,
    else the largest part of the time. With loss, the time is the expected one (:func:`latency_lab.analysis.leading.leading_ms`)
    and loss's parts are causes too."""
    protocol = str(result["protocol"])
    name = PROTOCOL_NAMES.get(protocol, protocol)
    total = leading_ms(result)
    breakdown = parts_ms(result)
    expected = (
        f" (expected, at {_percent(float(result['expected_with_loss']['loss_rate']))} loss)" if lossy(result) else ""
    )
    hol = _head_of_line(result)
    avoidable = [(float(breakdown.get(c, 0.0)), c) for c in AVOIDABLE]
    lost, cause = max(avoidable, key=lambda t: t[0])
    if total <= 0 or lost < WORTH * total:
        lost, cause = max((float(v), c) for c, v in breakdown.items())
        share = lost / total if total > 0 else 0.0
        text = f"{name}: {share:.0%} of its {_ms(total)}{expected} is {CAUSES.get(cause, cause)}"
        try_, toggle = _suggestion(cause, protocol, scenario)
        text += _loss_clause(result, breakdown, cause) + hol
        return Why(protocol, cause, lost, share, text + (f": {try_}" if try_ else ""), toggle, "")
    share = lost / total
    how_often = ""
    if cause in STALL_COUNTS:
        key, noun = STALL_COUNTS[cause]
        n = int(result["counts"].get(key, 0))
        if n:
            how_often = f" ({n} {noun}{'' if n == 1 else 's'})"
    try_, toggle = _suggestion(cause, protocol, scenario)
    if cause in LOSS_CAUSES:
        how_often = expected
    text = f"{name} lost {_ms(lost)} ({share:.0%}) to {CAUSES[cause]}{how_often}"
    events = [e for e in result.get("events", []) if e.get("kind") == cause]
    detail = max(events, key=lambda e: e.get("duration_ms", 0.0))["why"] if events else ""
    text += _loss_clause(result, breakdown, cause) + hol
    return Why(protocol, cause, lost, share, text + (f": {try_}" if try_ else ""), toggle, detail)


def plain(name: str) -> str:
    """``delayed_ack_stall`` -> ``delayed ACK stall`` (a category or count name for people)."""
    out = []
    for part in name.split("_"):
        out.append(part.upper() if part in ("ack", "rtt", "mss", "html", "css", "http", "tcp", "dns", "tls") else part)
    return " ".join(out)


def part_name(key: str) -> str:
    """A part of the time (:func:`latency_lab.analysis.leading.parts_ms`) for people: loss's parts named as such
    (``loss: timeouts``), the breakdown's by :func:`plain`, whatever keys it has."""
    return LOSS_PART_NAMES.get(key) or plain(key)
