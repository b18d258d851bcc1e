"""103 Early Hints (RFC 8297; issue 28): ``page.object_early_hint``, ``page.origins[].early_hint_preconnect`` and
``http.early_hints_bytes`` on h2 and h3 (:mod:`latency_lab.protocols.multiplex`, :mod:`latency_lab.protocols.h2`).

The server answers the HTML's request with a 103 at once; the browser requests the objects it names when it arrives,
one downlink trip after the HTML's request reached the server, before the server's think time and the HTML. These
tests run whichever engine is built (the native one where it is: the two are held equal by
``tests/latency_lab/engine/test_engine_backends.py``, whose every-feature draw gives hints too)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

import latency_lab
from latency_lab.scenario.errors import problems
from latency_lab.scenario.schema import ALL_PROTOCOLS, Scenario
from tests.latency_lab.scenarios import every_feature

RTT, THINK = 100.0, 500.0
#: The manual's hand-computed case: h2 at 100 ms RTT and 1 Gb/s, 500 ms of server think time, Nagle off and an
#: initial window of 10 segments, a 6,000-byte HTML and one 10,000-byte style sheet.
CASE: dict[str, Any] = {
    "protocols": ["h2", "h3"],
    "network": {"rtt_ms": RTT, "bandwidth_bps": 1e9},
    "tcp": {"nagle": False, "initial_window_segments": 10},
    "http": {"server_think_ms": THINK},
    "page": {"html_bytes": 6000, "object_bytes": [10_000]},
}
#: Serialization at 1 Gb/s: 0.012 ms a full packet; a few of them on the path, and the 103's 200 bytes.
TOL_MS = 0.5
HTTP1 = [p for p in ALL_PROTOCOLS if p not in ("h2", "h3")]


def results(doc: dict[str, Any]) -> dict[str, Any]:
    return {r["protocol"]: r for r in latency_lab.predict(doc)["results"]}


def ends(result: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return {o["name"]: (o["start_ms"], o["end_ms"]) for o in result["objects"]}


def with_hints(doc: dict[str, Any], **page: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["page"].update(page)
    return out


def test_the_hand_computed_case_the_css_ends_server_think_earlier() -> None:
    """Without the hint: handshake (1 RTT), HTML request and think (1 RTT + 500), CSS request and think (1 RTT + 500):
    the CSS ends at 3 RTT + 2 think = 1,300 ms. With it: the 103 leaves as the HTML's request arrives (1.5 RTT) and
    arrives at 2 RTT = 200 ms; the CSS request reaches the server at 250 ms, its think time runs beside the HTML's
    (which is written at 650 ms) and it is written at 750 ms, after the HTML: it ends at 3 RTT + think = 800 ms, one
    server think time earlier, the HTML unchanged (700 ms)."""
    plain = results(CASE)["h2"]
    hinted = results(with_hints(CASE, object_early_hint=[True]))["h2"]
    assert ends(plain)["obj1"][1] == pytest.approx(3 * RTT + 2 * THINK, abs=TOL_MS)
    assert ends(hinted)["obj1"][0] == pytest.approx(2 * RTT, abs=TOL_MS)  # asked for when the 103 arrives
    assert ends(hinted)["obj1"][1] == pytest.approx(3 * RTT + THINK, abs=TOL_MS)
    assert ends(hinted)["html"][1] == pytest.approx(ends(plain)["html"][1], abs=1e-9)
    assert ends(plain)["obj1"][1] - ends(hinted)["obj1"][1] == pytest.approx(THINK, abs=TOL_MS)
    assert hinted["page_load_ms"] == pytest.approx(800.0, abs=TOL_MS)
    # the 103's bytes on the wire: http.early_hints_bytes (200 by default), and no packet more (it carries the ACK
    # of the HTML's request that the delayed-ACK timer would have sent alone)
    assert hinted["counts"]["bytes_on_wire"] - plain["counts"]["bytes_on_wire"] == 200


def test_h3_gains_the_same_think_time() -> None:
    plain = results(CASE)["h3"]
    hinted = results(with_hints(CASE, object_early_hint=[True]))["h3"]
    assert ends(plain)["obj1"][1] - ends(hinted)["obj1"][1] == pytest.approx(THINK, abs=TOL_MS)


def test_the_103s_size_is_its_bytes_on_the_wire() -> None:
    small = results(with_hints(CASE, object_early_hint=[True]))["h2"]
    doc = with_hints(CASE, object_early_hint=[True])
    doc["http"]["early_hints_bytes"] = 1000
    big = results(doc)["h2"]
    assert big["counts"]["bytes_on_wire"] - small["counts"]["bytes_on_wire"] == 800


def test_no_hint_changes_no_prediction() -> None:
    """No object hinted and no origin to preconnect: no 103, every protocol's result as without the fields."""
    doc = copy.deepcopy(CASE)
    doc["protocols"] = list(ALL_PROTOCOLS)
    doc["page"].update(object_bytes=[10_000, 3000], origins=[{"dns_ms": 30}], object_origins=[0, 1])
    plain = latency_lab.predict(doc)
    off = with_hints(doc, object_early_hint=[False, False])
    off["http"]["early_hints_bytes"] = 5000
    off["page"]["origins"][0]["early_hint_preconnect"] = False
    got = latency_lab.predict(off)
    assert got["results"] == plain["results"]


def test_http1_protocols_get_no_103() -> None:
    """RFC 9110 15.2: no 1xx to an HTTP/1.0 client; browsers act on a 103 only over h2 and h3: the HTTP/1.x schedules
    are those without hints, whatever is hinted."""
    doc = copy.deepcopy(CASE)
    doc["protocols"] = HTTP1
    doc["page"].update(object_bytes=[10_000, 3000], origins=[{"dns_ms": 30}], object_origins=[0, 1])
    hinted = with_hints(doc, object_early_hint=[True, True])
    hinted["page"]["origins"][0]["early_hint_preconnect"] = True
    assert latency_lab.predict(hinted)["results"] == latency_lab.predict(doc)["results"]


def test_a_hinted_object_named_by_a_style_sheet_is_asked_for_at_the_103() -> None:
    """A font named by the style sheet (page.object_parents) and hinted: asked for when the 103 arrives, not when the
    style sheet has arrived; the unhinted image the style sheet names still waits for it."""
    doc = with_hints(CASE, object_bytes=[10_000, 20_000, 5000], object_parents=[0, 1, 1])
    plain = ends(results(doc)["h2"])
    hinted = ends(results(with_hints(doc, object_early_hint=[False, True, False]))["h2"])
    assert plain["obj2"][0] == pytest.approx(plain["obj1"][1], abs=1e-9)  # revealed by the style sheet
    assert hinted["obj2"][0] == pytest.approx(2 * RTT, abs=TOL_MS)  # by the 103
    assert hinted["obj3"][0] == pytest.approx(hinted["obj1"][1], abs=1e-9)
    assert hinted["obj2"][1] < plain["obj2"][1] - THINK + TOL_MS


def test_early_hint_preconnect_opens_the_origins_connection_at_the_103() -> None:
    """An object of another origin (a 100 ms DNS lookup), not hinted: without the preconnect its lookup and
    handshake follow the HTML's arrival (700 ms); with it they start at the 103's arrival (200 ms) and are over
    (400 ms) when the HTML arrives, so its request leaves then."""
    doc = with_hints(CASE, object_bytes=[10_000], origins=[{"dns_ms": 100}], object_origins=[1])
    plain = ends(results(doc)["h2"])
    doc["page"]["origins"][0]["early_hint_preconnect"] = True
    early = ends(results(doc)["h2"])
    html_end = plain["html"][1]
    assert plain["obj1"][0] == pytest.approx(html_end + 100 + RTT, abs=TOL_MS)
    assert early["obj1"][0] == pytest.approx(html_end, abs=TOL_MS)


def test_a_coalesced_origins_lookup_starts_at_the_103() -> None:
    doc = with_hints(CASE, object_bytes=[10_000], origins=[{"dns_ms": 100, "coalesce_with_html": True}])
    doc["page"]["object_origins"] = [1]
    plain = ends(results(doc)["h2"])
    doc["page"]["origins"][0]["early_hint_preconnect"] = True
    early = ends(results(doc)["h2"])
    assert plain["obj1"][0] == pytest.approx(plain["html"][1] + 100, abs=TOL_MS)
    assert early["obj1"][0] == pytest.approx(early["html"][1], abs=TOL_MS)


def test_a_hinted_object_is_asked_for_no_later_than_its_parent_arrives() -> None:
    """On random pages of every feature (trees, origins, TLS, sessions, loss), each hinted object of the HTML's origin
    is asked for, on h2 and h3, no later than its parent (the HTML, or the style sheet that names it) has arrived:
    at the 103's arrival, which comes before the HTML on the same connection."""
    checked = 0
    for doc in every_feature(400, 2812):
        flags = doc["page"].get("object_early_hint")
        if not flags or not any(flags) or doc.get("proxy"):
            continue
        doc["protocols"] = ["h2", "h3"]
        parents = doc["page"].get("object_parents") or [0] * len(flags)
        origins = doc["page"].get("object_origins") or [0] * len(flags)
        for protocol, result in results(doc).items():
            got = ends(result)
            for k, flag in enumerate(flags, start=1):
                if flag and origins[k - 1] == 0:
                    parent = "html" if parents[k - 1] == 0 else f"obj{parents[k - 1]}"
                    checked += 1
                    think = doc["http"].get("client_think_ms", 0)  # before each request, the hinted ones too
                    assert got[f"obj{k}"][0] <= got[parent][1] + think + 1e-6, (doc, protocol, k)
    assert checked > 50


def test_a_large_103_on_a_slow_link_delays_the_html() -> None:
    """The 103 goes ahead of the HTML on its connection: where its serialization outlasts the server's think time the
    HTML waits for the rest (3,000 bytes in three packets of 40 bytes' overhead at 28.8 kb/s: 866.7 ms, 366.7 ms
    past the 500 ms think time; a 200-byte one is over long before)."""
    doc = with_hints(CASE, object_early_hint=[True])
    doc["network"]["bandwidth_bps"] = 28_800
    small = ends(results(doc)["h2"])["html"][1]
    doc["http"]["early_hints_bytes"] = 3000
    large = ends(results(doc)["h2"])["html"][1]
    assert large - small == pytest.approx((3000 + 3 * 40) * 8000 / 28_800 - THINK, abs=TOL_MS)


@pytest.mark.parametrize(
    ("page", "http", "path", "words"),
    [
        ({"object_bytes": [1, 2], "object_early_hint": [True]}, {}, "page.object_early_hint", "2 objects, 1 values"),
        (
            {"object_bytes": [1, 2], "css_bytes": 500, "object_early_hint": [True, False]},
            {},
            "page.object_early_hint",
            "page.css_bytes 0",
        ),
        ({}, {"early_hints_bytes": 0}, "http.early_hints_bytes", "from 1 to 65,536 bytes"),
        ({}, {"early_hints_bytes": 70_000}, "http.early_hints_bytes", "from 1 to 65,536 bytes"),
        (
            {"origins": [{"early_hint_preconnect": "soon"}]},
            {},
            "page.origins[0].early_hint_preconnect",
            "true or false",
        ),
    ],
)
def test_refusals_name_the_field_and_what_it_allows(
    page: dict[str, Any], http: dict[str, Any], path: str, words: str
) -> None:
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate({"page": page, "http": http})
    (p,) = problems(exc.value)
    assert p.path == path
    assert words in f"{p.message} {p.allowed or ''}"


def test_the_formula_counts_one_server_think_time_less() -> None:
    """The traced engine's formula of the hand-computed case: 3 RTT + 2 t_s without the hint, 3 RTT + t_s with it."""
    plain = latency_lab.expression(CASE, "h2")["page_load_ms"]
    hinted = latency_lab.expression(with_hints(CASE, object_early_hint=[True]), "h2")["page_load_ms"]
    rtt, think = latency_lab.symbol("RTT"), latency_lab.symbol("t_s")
    assert (plain.coeff(rtt), plain.coeff(think)) == (3, 2)
    assert (hinted.coeff(rtt), hinted.coeff(think)) == (3, 1)
