"""h2's SETTINGS records (multiplex.server_settings_bytes, multiplex.settings_ack_bytes; issue 28), in both engines.

A capture of Chromium against nginx over TLS 1.3 (2026-11-30) showed the server's SETTINGS record (62 bytes) and its
SETTINGS ACK (31 bytes) leave as segments of their own after the two session tickets and before the HTML, in the
congestion window the HTML needs. The model writes them, once per connection, when the client's first bytes after
the handshake arrive (latency_lab/protocols/multiplex.py, latency_lab/engine/native/streams.cpp).
"""

from __future__ import annotations

from typing import Any

import pytest

import latency_lab
from latency_lab.analysis import native

RTT_MS = 100.0
#: 100 Gb/s (the schema's highest rate): a 1,500-byte packet takes 0.00012 ms on the wire, so the hand-computed times
#: hold within TOL_MS
TOL_MS = 0.01
IW = 10
MSS = 1460
HEADER = 50
SETTINGS = 62
SETTINGS_ACK = 31


def _doc(
    html: int, settings: tuple[int, int], tls: str = "none", protocols: tuple[str, ...] = ("h2",)
) -> dict[str, Any]:
    return {
        "protocols": list(protocols),
        "network": {"rtt_ms": RTT_MS, "bandwidth_bps": 100e9},
        "tcp": {"profile": "linux", "initial_window_segments": IW, "mss_bytes": MSS},
        "http": {"response_header_bytes": HEADER, "request_bytes": 300},
        "tls": {"version": tls},
        "page": {"html_bytes": html, "object_bytes": [1000]},
        "multiplex": {"server_settings_bytes": settings[0], "settings_ack_bytes": settings[1]},
    }


def _both(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The first result of ``doc`` (with its packets) from the native engine and from the Python one."""
    fast = latency_lab.predict(doc, packets=True)["results"][0]
    with monkeypatch.context() as m:
        m.setenv(native.ENV, "0")
        slow = latency_lab.predict(doc, packets=True)["results"][0]
    return [fast, slow]


def _html_end(r: dict[str, Any]) -> float:
    return float(next(o["end_ms"] for o in r["objects"] if o["name"] == "html"))


def test_settings_push_the_html_past_the_initial_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """h2c, the linux profile, IW 10 of 1,460 bytes, 100 ms RTT, the link's time negligible. The window the sender
    may fill is ``IW x MSS = 14,600`` bytes (latency_lab.mechanisms.slow_start.usable_window_bytes).

    The SYN leaves at 0, the SYN-ACK reaches the client at 100, its request (with the preface) the server at 150; the
    server answers at once (no think time).

    - Without the SETTINGS records: an HTML of 14,458 bytes and a 50-byte header is 14,508 bytes, within 14,600: all of
      it leaves at 150 and its last byte arrives at ``150 + RTT/2 = 200`` ms.
    - With them (62 + 31 = 93 bytes, written first): ``93 + 14,508 = 14,601`` bytes, one over. Eleven segments leave
      at 150 (the two records and 9 full HTML segments, 13,233 bytes); the window leaves 1,367 bytes for the last
      1,368, and a window-limited short segment with data behind it waits (seed 000, 2.3 (a)). The client
      acknowledges the first segments on arrival (Linux's quick ACKs at a connection's start), at 200; that ACK
      reaches the server at 250 and opens the window (slow start); the last 1,368 bytes arrive at ``250 + 50 = 300``:
      one round trip more, ``200 + RTT = 300`` ms.
    - One byte less of HTML (14,457: exactly 14,600 with the records) fits, and ends at 200 again.
    """
    for html, settings, end in (
        (14_458, (0, 0), 200.0),
        (14_458, (SETTINGS, SETTINGS_ACK), 200.0 + RTT_MS),
        (14_457, (SETTINGS, SETTINGS_ACK), 200.0),
    ):
        fast, slow = _both(_doc(html, settings), monkeypatch)
        assert _html_end(fast) == _html_end(slow)
        assert _html_end(fast) == pytest.approx(end, abs=TOL_MS), (html, settings)
        # the records: the server's first data segments, each on its own, not the HTML's
        down = [p for p in fast["packets"] if p["direction"] == "down" and p["bytes"] > 0]
        if settings[0]:
            assert [(p["bytes"], p["object"]) for p in down[:2]] == [
                (SETTINGS, "h2_settings"),
                (SETTINGS_ACK, "h2_settings"),
            ]
            assert sum(p["bytes"] for p in down if p["object"] == "h2_settings") == SETTINGS + SETTINGS_ACK
        else:
            assert all(p["object"] != "h2_settings" for p in down)


def test_after_the_tickets_and_once_per_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """TLS 1.3 with two 79-byte tickets: the server's data after its handshake flight is the two tickets, then the
    SETTINGS record and its ACK, then the HTML; the object's response (a second batch on the same connection) gets no
    SETTINGS again. Both engines write the same packets."""
    doc = _doc(3000, (SETTINGS, SETTINGS_ACK), tls="1.3")
    doc["tls"].update(session_tickets=2, session_ticket_bytes=79)
    fast, slow = _both(doc, monkeypatch)
    assert fast["packets"] == slow["packets"]
    down = [(p["bytes"], p["object"]) for p in fast["packets"] if p["direction"] == "down" and p["bytes"] > 0]
    tls_flight = [x for x in down[: down.index((79, "tls"))] if x[1] == "tls"]
    assert len(tls_flight) >= 1
    at = len(tls_flight)
    assert down[at : at + 4] == [(79, "tls"), (79, "tls"), (SETTINGS, "h2_settings"), (SETTINGS_ACK, "h2_settings")]
    assert down[at + 4][1] == "html"
    assert [x for x in down if x[1] == "h2_settings"] == [(SETTINGS, "h2_settings"), (SETTINGS_ACK, "h2_settings")]


@pytest.mark.parametrize("protocol", ["h3", "persistent"])
def test_ignored_off_h2(protocol: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """h3's SETTINGS ride on QUIC's control streams and HTTP/1.1 has none: the two fields change nothing there."""
    docs = [_doc(14_458, s, tls="1.3", protocols=(protocol,)) for s in ((0, 0), (SETTINGS, SETTINGS_ACK))]
    plain, with_settings = (_both(d, monkeypatch) for d in docs)
    assert plain[0]["page_load_ms"] == with_settings[0]["page_load_ms"] == with_settings[1]["page_load_ms"]
    assert plain[0]["packets"] == with_settings[0]["packets"]


def test_a_window_of_packets_gives_each_record_a_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same path with ``tcp.window_counts_packets`` (Linux's tcp_cwnd_test: at most IW = 10 packets in flight,
    short or full). An HTML of 11,631 bytes and its 50-byte header, 11,681 bytes, is 8 full segments and 1 byte.

    - Without the records: 9 packets, within 10: all leave at 150, the last byte arrives at 200 ms.
    - With them: the two records and 8 full HTML segments fill the 10 slots; the last byte waits for the client's
      ACK of the first packets (sent on arrival at 200, quick ACKs), which reaches the server at 250: it arrives at
      ``250 + 50 = 300`` ms, one round trip more.
    - With the records and a window of bytes (the default): ``93 + 11,681 = 11,774`` bytes are within
      ``10 x 1,460 = 14,600``: all leave at 150, 200 ms.
    """
    html = 8 * MSS + 1 - HEADER
    for settings, packets, end in (
        ((0, 0), True, 200.0),
        ((SETTINGS, SETTINGS_ACK), True, 200.0 + RTT_MS),
        ((SETTINGS, SETTINGS_ACK), False, 200.0),
    ):
        doc = _doc(html, settings)
        doc["tcp"]["window_counts_packets"] = packets
        fast, slow = _both(doc, monkeypatch)
        assert fast["packets"] == slow["packets"]
        assert _html_end(fast) == pytest.approx(end, abs=TOL_MS), (settings, packets)
        first_flight = [
            p for p in fast["packets"] if p["direction"] == "down" and p["bytes"] > 0 and p["sent_ms"] < 151
        ]
        assert len(first_flight) == (10 if settings[0] and packets else 9 + 2 * bool(settings[0]))
