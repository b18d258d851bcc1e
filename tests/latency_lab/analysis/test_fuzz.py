"""Any valid scenario completes: every object arrives, the parts add up (hypothesis over the schema)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from latency_lab import Scenario, predict
from latency_lab.scenario.limits import WorkLimitExceeded

finite = {"allow_nan": False, "allow_infinity": False}

scenario_docs = st.fixed_dictionaries(
    {
        "network": st.fixed_dictionaries(
            {
                "rtt_ms": st.floats(0, 2000, **finite),
                "bandwidth_bps": st.floats(1_000, 1e10, **finite),
                "packet_overhead_bytes": st.integers(0, 1000),
            },
            optional={
                "uplink_delay_ms": st.floats(0, 1000, **finite),
                "downlink_delay_ms": st.floats(0, 1000, **finite),
                "uplink_bandwidth_bps": st.floats(1_000, 1e10, **finite),
            },
        ),
        "tcp": st.fixed_dictionaries(
            {"profile": st.sampled_from(["bsd", "ns3", "rfc5681", "linux"])},
            optional={
                "mss_bytes": st.integers(100, 9000),
                "initial_window_segments": st.integers(1, 100),
                "receive_window_bytes": st.integers(1_000, 1 << 20),
                "delayed_ack_ms": st.floats(0, 500, **finite),
                "delayed_ack_segments": st.integers(1, 16),
                "nagle": st.booleans(),
                "handshake": st.sampled_from(["three_way", "none", "ttcp"]),
                "idle_restart": st.sampled_from(["slow_start", "keep", "fast_start", "paced"]),
                "rto_min_ms": st.floats(1, 3000, **finite),
            },
        ),
        "http": st.fixed_dictionaries(
            {},
            optional={
                "request_bytes": st.integers(1, 20_000),
                "response_header_bytes": st.integers(0, 5_000),
                "header_flush": st.booleans(),
                "server_write_bytes": st.integers(0, 100_000),
                "server_think_ms": st.floats(0, 1000, **finite),
                "client_think_ms": st.floats(0, 1000, **finite),
                "connection_overhead_ms": st.floats(0, 100, **finite),
                "parallel_connections": st.integers(1, 64),
            },
        ),
        "page": st.fixed_dictionaries(
            {"html_bytes": st.integers(0, 200_000), "object_bytes": st.lists(st.integers(0, 100_000), max_size=12)}
        ),
        "session": st.fixed_dictionaries(
            {},
            optional={
                "pages": st.integers(1, 4),
                "think_time_ms": st.floats(0, 20_000, **finite),
                "server_idle_timeout_ms": st.floats(0, 20_000, **finite),
            },
        ),
    }
)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(scenario_docs)
def test_every_valid_scenario_completes(doc: dict[str, Any]) -> None:
    try:
        s = Scenario.model_validate(doc)
    except ValidationError:
        return  # the schema said no, by name (tests/latency_lab/scenario/test_scenario.py checks how)
    try:
        out = predict(s)
    except WorkLimitExceeded as exc:
        # valid but past one request's step budget (e.g. a 200 KB page in one-byte writes): refused by name
        assert exc.limit.name == "max_engine_steps" and exc.limit.actual > exc.limit.maximum
        return
    except AssertionError as err:  # name the scenario that broke the model
        raise AssertionError(f"{err} for {json.dumps(doc)}") from err
    for r in out["results"]:
        assert r["page_load_ms"] > 0 or s.network.rtt_ms == 0
        assert sum(r["breakdown_ms"].values()) == pytest.approx(r["page_load_ms"], rel=1e-9, abs=1e-9)
        last_byte = r["pages"][-1]["end_ms"] if "pages" in r else r["page_load_ms"]  # sessions add think time
        assert all(o["end_ms"] is not None and o["end_ms"] <= last_byte + 1e-9 for o in r["objects"])
        if "pages" in r:
            assert sum(p["page_load_ms"] for p in r["pages"]) == pytest.approx(r["page_load_ms"], rel=1e-9)
