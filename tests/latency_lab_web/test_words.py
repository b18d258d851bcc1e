"""The plain-language why with loss (latency_lab_web/web/words.py, issue 25): the expected time, loss's parts named."""

from __future__ import annotations

import re
from typing import Any

import pytest

from latency_lab import Scenario, predict
from latency_lab.analysis.leading import LOSS_PARTS, leading_ms, parts_ms
from latency_lab_web.web.words import CAUSES, LOSS_CAUSES, part_name, plain, why


def _scenario(p: float, protocols: list[str], **page: Any) -> Scenario:
    return Scenario.model_validate(
        {
            "protocols": protocols,
            "network": {"loss_rate": p},
            "page": page or {"object_count": 20, "object_size_bytes": 10_000},
        }
    )


def _ms(text: str) -> float:
    return float(text.replace(",", ""))


def test_a_loss_part_as_the_cause_is_named_with_its_expected_time_and_a_suggestion() -> None:
    """Persistent HTTP/1.1 at 2 % loss on 20 objects of 1 KB: most of its time is retransmission timeouts (each
    response too short for three duplicate ACKs); the why says so with the result's own number, and pipelining."""
    scenario = _scenario(0.02, ["persistent"], object_count=20, object_size_bytes=1000)
    (r,) = predict(scenario)["results"]
    parts = parts_ms(r)
    w = why(r, scenario)
    assert w.cause == LOSS_PARTS["timeouts"] == max(parts, key=lambda k: parts[k])
    m = re.fullmatch(
        r"persistent HTTP/1\.1 lost ([\d,.]+) ms \((\d+)%\) to retransmission timeouts \(expected, at 2% loss\): "
        r"try pipelining .*",
        w.text,
    )
    assert m, w.text
    assert _ms(m.group(1)) == pytest.approx(r["expected_with_loss"]["by_cause_ms"]["timeouts"], abs=0.5)
    assert int(m.group(2)) == round(100 * parts[w.cause] / leading_ms(r))
    assert w.toggle == "pipelining"


def test_another_cause_with_loss_says_what_loss_adds() -> None:
    """When a lossless part leads the why, the sentence still gives loss's expected extra time and its largest part."""
    scenario = Scenario.model_validate({"protocols": ["http10"], "network": {"loss_rate": 0.005}})
    (r,) = predict(scenario)["results"]
    w = why(r, scenario)
    assert w.cause not in LOSS_CAUSES
    m = re.search(r"; loss adds ([\d,.]+) ms \(expected\), most of it ([a-z ,()]+) \(([\d,.]+) ms\)", w.text)
    assert m, w.text
    assert _ms(m.group(1)) == pytest.approx(r["expected_with_loss"]["extra_ms"], abs=0.5)
    largest = max(LOSS_CAUSES, key=lambda k: parts_ms(r)[k])
    assert m.group(2) == CAUSES[largest]
    # the share is of the expected time
    found = re.search(r"\((\d+)%\)|: (\d+)% of", w.text)
    assert found, w.text
    assert int(found.group(1) or found.group(2)) == round(100 * w.lost_ms / leading_ms(r))


def test_h2s_why_names_head_of_line_blocking_and_h3s_does_not() -> None:
    scenario = _scenario(0.02, ["h2", "h3"])
    h2, h3 = predict(scenario)["results"]
    w2, w3 = why(h2, scenario), why(h3, scenario)
    m = re.search(r"its other streams waited ([\d,.]+) ms in all behind repairs \(head-of-line blocking", w2.text)
    assert m, w2.text
    assert _ms(m.group(1)) == pytest.approx(h2["expected_with_loss"]["head_of_line_ms"], abs=0.5)
    assert "head-of-line" not in w3.text


def test_without_loss_the_why_does_not_mention_loss() -> None:
    scenario = Scenario()
    for r in predict(scenario)["results"]:
        assert "loss" not in why(r, scenario).text


def test_part_names() -> None:
    assert part_name("loss_timeouts") == "loss: timeouts"
    assert part_name("delayed_ack_stall") == "delayed ACK stall" == plain("delayed_ack_stall")
    assert part_name("some_new_part") == "some new part"  # a part the breakdown gains later reads as itself
    assert set(LOSS_CAUSES) == set(LOSS_PARTS.values())


@pytest.mark.parametrize(
    ("protocol", "version", "expect", "toggle"),
    [
        ("h3", "none", "QUIC always carries TLS 1.3: try resuming the session", None),
        ("http10", "1.2", "try TLS 1.3 (a round trip fewer), or TLS off", "tls"),
        ("http10", "1.3", "try resuming the session with 0-RTT early data (“Resumption” in TLS), or TLS off", "tls"),
    ],
)
def test_tls_suggestion_fits_the_protocol_and_version(
    protocol: str, version: str, expect: str, toggle: str | None
) -> None:
    """h3's TLS is QUIC's own (it cannot be turned off) and TLS 1.3 is not a suggestion where it already runs: on
    main before 2026-11-28 every TLS setup cause said "try TLS off, or TLS 1.3", for h3 and for TLS 1.3 too."""
    scenario = Scenario.model_validate(
        {
            "protocols": [protocol],
            "network": {"rtt_ms": 200, "bandwidth_bps": 100_000_000},
            "tls": {"version": version, "resumption": "none"},
            "page": {"html_bytes": 1000, "object_count": 1, "object_size_bytes": 1000},
        }
    )
    (r,) = predict(scenario)["results"]
    w = why(r, scenario)
    assert w.cause == "tls_setup", w.text
    assert expect in w.text
    assert w.toggle == toggle


#: A field's code name in a sentence: two or more dotted words with an underscore or a known section (tcp.nagle).
CODE_NAME = re.compile(r"\b(?:network|tcp|tls|http|page|session|server|client|dns|quic)\.[a-z_]+")


@pytest.mark.parametrize(
    "doc",
    [
        # slow-start waits lead: the initial window is the suggestion
        {"protocols": ["persistent"], "network": {"rtt_ms": 100, "bandwidth_bps": 1_000_000_000},
         "page": {"html_bytes": 200_000, "object_bytes": []}},
        # timeouts lead with loss on a persistent connection's bulk: the initial window again, for the fast retransmit
        {"protocols": ["pipelined", "h2"], "network": {"loss_rate": 0.05},
         "page": {"object_count": 2, "object_size_bytes": 3000}},
        # TLS 1.3 and h3: resumption is the suggestion
        {"protocols": ["http10", "h3"], "network": {"rtt_ms": 200, "bandwidth_bps": 100_000_000},
         "tls": {"version": "1.3", "resumption": "none"}, "page": {"html_bytes": 1000, "object_count": 1, "object_size_bytes": 1000}},
    ],
)  # fmt: skip
def test_the_why_names_fields_in_the_forms_words(doc: dict[str, Any]) -> None:
    """Issue 25: the why (the calculator's and simple mode's) named fields by their code names
    ("tcp.initial_window_segments", "tls.resumption") on main before 2026-11-28; now by the form's labels."""
    scenario = Scenario.model_validate(doc)
    texts = [why(r, scenario).text for r in predict(scenario)["results"]]
    assert any("“" in t for t in texts), texts  # the cases do name a field
    for t in texts:
        assert not CODE_NAME.search(t), t
