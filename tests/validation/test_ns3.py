"""Scenarios run through ns-3 and compared with the model (ns3 TCP profile).

These need the ``ns3`` package and skip without it. The model's ns3 profile follows ns-3's own rules
(byte-counted slow start, the server's immediate ACK of the first request, a FIN on data ACKed alone),
so ns-3 runs as it is and the cases below agree packet for packet.
"""

from __future__ import annotations

from typing import Any

import pytest

from validation.compare import compare

pytestmark = [pytest.mark.validation, pytest.mark.ns3]

NS3 = {"profile": "ns3"}
LINK = {"rtt_ms": 70, "bandwidth_bps": 1_544_000}


def _rows(sim: Any, doc: dict[str, Any], quickack: bool = True) -> dict[str, dict[str, Any]]:
    return {r["protocol"]: r for r in compare(doc, sim, quickack=quickack)["rows"]}


def test_one_object_http10_agrees(ns3_sim: Any) -> None:
    rows = _rows(ns3_sim, {"protocols": ["http10"], "network": LINK, "tcp": NS3, "page": {"object_bytes": []}})
    r = rows["http10"]
    assert abs(r["error"]) < 0.001
    assert r["ns3"]["packets"] == r["model"]["packets"]
    assert r["ns3"]["data_packets"] == r["model"]["data_packets"]


def test_persistent_few_objects_agree(ns3_sim: Any) -> None:
    doc = {"protocols": ["persistent", "pipelined", "getall"], "network": LINK, "tcp": NS3}
    for r in _rows(ns3_sim, doc).values():
        assert abs(r["error"]) < 0.001, r["protocol"]
        assert r["ns3"]["packets"] == r["model"]["packets"], r["protocol"]
        for o in r["objects"]:
            assert o["ns3_end_ms"] == pytest.approx(o["model_end_ms"], abs=0.1)


def test_nagle_stalls_agree(ns3_sim: Any) -> None:
    doc = {
        "protocols": ["persistent", "pipelined"],
        "network": LINK,
        "tcp": {"profile": "ns3", "nagle": True, "mss_bytes": 1460, "initial_window_segments": 2},
    }
    for r in _rows(ns3_sim, doc).values():
        assert r["ns3"]["nagle_stalls"] == r["model"]["nagle_stalls"] > 0, r["protocol"]
        assert abs(r["error"]) < 0.001, r["protocol"]


def test_close_sends_what_nagle_holds(ns3_sim: Any) -> None:
    """HTTP/1.0 with Nagle on: the short tail leaves with the FIN, not an ACK later (seed 000, 2.3)."""
    doc = {
        "protocols": ["http10"],
        "network": LINK,
        "tcp": {"profile": "ns3", "nagle": True, "mss_bytes": 1460, "initial_window_segments": 10},
        "page": {"html_bytes": 2800, "object_bytes": []},
    }
    r = _rows(ns3_sim, doc)["http10"]
    assert r["ns3"]["nagle_stalls"] == 0
    assert abs(r["error"]) < 0.001


def test_handshake_none_and_asymmetric_path(ns3_sim: Any) -> None:
    doc = {
        "protocols": ["http10_parallel", "persistent"],
        "network": {"uplink_delay_ms": 10, "downlink_delay_ms": 40, "bandwidth_bps": 10e6, "uplink_bandwidth_bps": 1e6},
        "tcp": {"profile": "ns3", "handshake": "none"},
    }
    rows = _rows(ns3_sim, doc)
    for r in rows.values():
        assert r["ns3"]["control_packets"] == r["model"]["control_packets"], r["protocol"]  # FINs only
    assert abs(rows["persistent"]["error"]) < 0.0005
    assert abs(rows["http10_parallel"]["error"]) < 0.0005


def test_quickack_costs_one_ack_per_connection(ns3_sim: Any) -> None:
    """ns-3 as it is: the request of every new connection is ACKed at once by a pure ACK."""
    doc = {"protocols": ["http10"], "network": LINK, "tcp": NS3}
    stock = _rows(ns3_sim, doc, quickack=True)["http10"]
    plain = _rows(ns3_sim, doc, quickack=False)["http10"]
    assert stock["ns3"]["ack_packets"] - plain["ns3"]["ack_packets"] == stock["ns3"]["connections"]
