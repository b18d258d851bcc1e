"""The scenario schema (latency_lab.scenario.schema, latency_lab.scenario.profiles) and the model's purity."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from latency_lab import PRESETS, Scenario, predict
from latency_lab.scenario.params import resolve

ROOT = Path(__file__).parents[3]


def test_defaults_and_profile_fill() -> None:
    s = Scenario()
    assert s.tcp.profile == "bsd" and s.tcp.mss_bytes == 1460 and s.tcp.nagle is True
    ns3 = Scenario.model_validate({"tcp": {"profile": "ns3"}})
    assert ns3.tcp.mss_bytes == 536 and ns3.tcp.initial_window_segments == 10 and ns3.tcp.nagle is False
    explicit = Scenario.model_validate({"tcp": {"profile": "ns3", "mss_bytes": 1460}})
    assert explicit.tcp.mss_bytes == 1460  # a field given explicitly overrides the profile


def test_one_way_delays() -> None:
    p = resolve(Scenario.model_validate({"network": {"rtt_ms": 100}}))
    assert (p.d_up, p.d_down) == (50, 50)
    s = Scenario.model_validate({"network": {"uplink_delay_ms": 35, "downlink_delay_ms": 300}})
    assert s.network.rtt_ms == 335
    p = resolve(Scenario.model_validate({"network": {"rtt_ms": 100, "downlink_delay_ms": 80}}))
    assert (p.d_up, p.d_down) == (20, 80)


@pytest.mark.parametrize(
    ("doc", "field", "words"),
    [
        ({"network": {"rtt_ms": -1}}, "network.rtt_ms", "greater than or equal to 0"),
        ({"network": {"bandwidth_bps": "fast"}}, "network.bandwidth_bps", "valid number"),
        ({"network": {"bandwidth_bps": float("inf")}}, "network.bandwidth_bps", "finite"),
        ({"tcp": {"mss_bytes": 50}}, "tcp.mss_bytes", "greater than or equal to 100"),
        ({"tcp": {"profile": "solaris"}}, "tcp.profile", "bsd"),
        ({"tcp": {"delayed_ack_ms": 900}}, "tcp.delayed_ack_ms", "less than or equal to 500"),
        ({"page": {"object_bytes": [1, -5]}}, "page", "object_bytes[1]"),
        ({"page": {"object_count": 3}}, "page", "go together"),
        ({"page": {"object_bytes": [1], "object_count": 1, "object_size_bytes": 1}}, "page", "not both"),
        ({"protocols": []}, "protocols", "at least 1"),
        ({"protocols": ["http10", "http10"]}, "", "must not repeat"),
        ({"protocols": ["http2"]}, "protocols.0", "http10"),
        ({"network": {"rtt": 5}}, "network.rtt", "Extra inputs"),
        ({"network": {"rtt_ms": 10, "uplink_delay_ms": 20}}, "network", "cannot exceed rtt_ms"),
        ({"page": {"html_bytes": 100_000_000, "object_count": 0, "object_size_bytes": 0}}, "", "segments"),
        ({"tcp": {"profile": "ns3", "mss_bytes": 1460, "receive_window_bytes": 1000}}, "", "at least tcp.mss_bytes"),
        ({"http": {"response_header_bytes": 0}, "page": {"html_bytes": 0}}, "", "at least one byte"),
    ],
)
def test_bad_input_names_the_field_and_range(doc: dict, field: str, words: str) -> None:
    with pytest.raises(ValidationError) as err:
        Scenario.model_validate(doc)
    e = err.value.errors()[0]
    assert ".".join(str(x) for x in e["loc"]) == field
    assert words in e["msg"]


def test_every_preset_runs_and_cites_its_seed() -> None:
    assert len(PRESETS) >= 11
    for p in PRESETS.values():
        assert p.citation and p.assumptions and p.title
        out = predict(p.scenario)
        assert all(r["page_load_ms"] > 0 for r in out["results"])


def test_model_imports_neither_flask_nor_plotly() -> None:
    code = "import sys, latency_lab, latency_lab.studies.presets, latency_lab.analysis.predict; bad = {'flask', 'plotly', 'latency_lab_web'} & set(sys.modules); print(sorted(bad)); sys.exit(1 if bad else 0)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_way_delays_keep_the_round_trip_in_range() -> None:
    """Both one-way delays set rtt_ms to their sum, which must stay within rtt_ms's own 10,000 ms."""
    ok = Scenario.model_validate({"network": {"uplink_delay_ms": 5000, "downlink_delay_ms": 5000}})
    assert ok.network.rtt_ms == 10_000
    with pytest.raises(ValidationError, match=r"uplink_delay_ms \+ downlink_delay_ms \(8791 \+ 9234\)"):
        Scenario.model_validate({"network": {"uplink_delay_ms": 8791, "downlink_delay_ms": 9234}})


@pytest.mark.parametrize(
    ("extra", "named"),
    [({"tls": {"version": "1.3"}}, "tls.version"), ({"protocols": ["persistent", "h2"]}, "protocols h2")],
)
def test_split_proxies_relay_plain_http_only(extra: dict[str, object], named: str) -> None:
    """Seed 003's proxies relay HTTP/1.x: TLS end to end, h2 and h3 over them are refused by name."""
    doc = {"proxy": {"architecture": "split_proxy"}, **extra}
    with pytest.raises(ValidationError, match=named):
        Scenario.model_validate(doc)


def test_h3_needs_a_window_of_one_quic_packet() -> None:
    """A window below one QUIC packet's data stalled h3 for ever (an AssertionError, a 500 in the API); found
    by the differential test's random scenarios. The smallest window that works is accepted."""
    with pytest.raises(ValidationError, match=r"quic\.max_datagram_bytes less 30"):
        Scenario.model_validate(
            {"protocols": ["h3"], "tcp": {"receive_window_bytes": 8192}, "quic": {"max_datagram_bytes": 9000}}
        )
    doc = {"protocols": ["h3"], "tcp": {"receive_window_bytes": 8970}, "quic": {"max_datagram_bytes": 9000}}
    assert predict(doc)["results"][0]["page_load_ms"] > 0


def test_a_page_over_the_segment_cap_is_named_by_its_field_in_words() -> None:
    """Issue 25: the message names the field that makes the page too large and what the cap means in bytes."""
    with pytest.raises(ValidationError) as caught:
        Scenario.model_validate({"page": {"html_bytes": 100_000_000}})
    message = str(caught.value)
    assert "page.html_bytes makes the page too large to model" in message
    assert "segments (packets of at most 1,460 bytes, the maximum segment size)" in message
    assert "at most 10,000 are allowed: about 14,600,000 bytes of HTML and objects together" in message
    with pytest.raises(ValidationError) as caught:
        Scenario.model_validate({"page": {"object_count": 1000, "object_size_bytes": 100_000}})
    assert "page.object_size_bytes makes the page too large" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        Scenario.model_validate({"page": {"object_bytes": [10_000_000, 10_000_000]}})
    assert "page.object_bytes makes the page too large" in str(caught.value)


# ------------------------------------------------------------------ page.object_parents (issue 28)
@pytest.mark.parametrize(
    ("page", "message"),
    [
        ({"object_count": 3, "object_size_bytes": 10, "object_parents": [0, 0]}, "3 objects, 2 parents"),
        ({"object_bytes": [1, 2], "object_parents": [0, 0, 0]}, "2 objects, 3 parents"),
        (
            {"object_count": 3, "object_size_bytes": 10, "object_parents": [0, 2, 0]},
            "object_parents[1] (2) must be between 0 and 1",
        ),
        ({"object_parents": [1, 0, 0]}, "object_parents[0] (1) must be between 0 and 0"),
        ({"object_parents": [0, 0, -1]}, "object_parents[2] (-1) must be between 0 and 2"),
        ({"object_parents": [0, 0, 0], "css_bytes": 100}, "object_parents cannot be used with page.css_bytes above 0"),
        (
            {"object_parents": [0, 0, 0], "css_replaces_images": 1},
            "object_parents cannot be used with page.css_replaces_images above 0",
        ),
    ],
)
def test_object_parents_refused_with_the_allowed_range(page: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate({"page": page})
    assert message in str(info.value)


def test_object_parents_resolved_as_a_tuple() -> None:
    """Given: each object's parent, in Params as a tuple; left out: (), every object the HTML's (as all zeros)."""
    given = Scenario.model_validate({"page": {"object_bytes": [1, 2, 3, 4], "object_parents": [0, 1, 1, 0]}})
    assert resolve(given).object_parents == (0, 1, 1, 0)
    assert resolve(Scenario()).object_parents == ()
    assert resolve(Scenario.model_validate({"page": {"object_parents": [0, 0, 0]}})).object_parents == (0, 0, 0)
    assert (
        resolve(
            Scenario.model_validate({"page": {"object_count": 0, "object_size_bytes": 1, "object_parents": []}})
        ).object_parents
        == ()
    )
