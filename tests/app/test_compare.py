"""The side-by-side comparison (/compare): one overlay, one query syntax, bad input named (never a 500)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from app.web.form import read
from model import predict


def _cells(html: str) -> list[list[str]]:
    body = html.split('<table class="compare side-by-side">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S)
    return [
        [unescape(re.sub(r"<[^>]+>", " ", c)).split() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)]
        for r in rows
    ]


def test_each_scenario_is_the_calculators_scenario(client: FlaskClient) -> None:
    """Shared fields under a scenario's own, on its preset: the same scenario the calculator reads (one overlay)."""
    r = client.get("/compare?preset=p98-satellite&network.rtt_ms=600&b.tcp.nagle=false&b.preset=n97-wan")
    assert r.status_code == 200
    cells = _cells(r.get_data(as_text=True))
    for side, args in (
        ("A", [("preset", "p98-satellite"), ("network.rtt_ms", "600")]),
        ("B", [("preset", "n97-wan"), ("network.rtt_ms", "600"), ("tcp.nagle", "false")]),
    ):
        state = read(MultiDict(args))
        assert state.scenario is not None
        want = [f"{x['page_load_ms']:,.1f}" for x in predict(state.scenario)["results"]]
        got = [c[2][0] for c in cells if c[0] == [side]]
        assert got == want, (side, got, want)


@pytest.mark.parametrize(
    ("query", "status", "says"),
    [
        ("n=1", 400, "from 2 to 6"),
        ("n=7", 400, "from 2 to 6"),
        ("n=%00", 400, "from 2 to 6"),
        ("g.network.rtt_ms=1", 400, "'g.network.rtt_ms'"),
        ("a.nosuch=1", 400, "'a.nosuch'"),
        ("preset=nope", 400, "no preset 'nope'"),
        ("b.preset=nope", 400, "no preset 'nope'"),
        ("b.network.rtt_ms=-5", 400, "RTT must be a number between 0 and 10,000 ms; you gave -5."),
        ("a.network.bandwidth_bps=10+parsecs", 400, "'parsecs' is not a unit of rate"),
        ("a.network.rtt_ms=1&a.network.rtt_ms=2", 400, "given 2 times"),
        ("a.page.object_count=1000&a.page.object_size_bytes=100000000", 400, "bytes"),
        ("b.protocols=", 400, "Protocols"),
        (  # each of six lossy scenarios past the calculator's limit alone: refused before any runs
            "page.object_count=1000&page.object_size_bytes=8000&protocols=http10,http10_parallel,persistent,"
            "pipelined,getall,h2,h3&network.loss_rate=0.01&n=6",
            400,
            "(max_work_units)",
        ),
        (  # six lossy scenarios each within the calculator's limit, together past it: refused before any runs
            # (model.scenario.limits.RUN_COSTS prices a lossy run), naming the limit, its maximum and the costly fields
            "page.object_count=100&network.loss_rate=0.02&n=6",
            422,
            "at most 60,000 allowed (max_work_units)",
        ),
    ],
)
def test_bad_input_is_named_never_a_500(client: FlaskClient, query: str, status: int, says: str) -> None:
    r = client.get("/compare?" + query)
    assert r.status_code == status, r.status_code
    assert says in unescape(r.get_data(as_text=True))


def test_the_calculators_link_opens_a_valid_comparison(client: FlaskClient) -> None:
    """The calculator's own options (sweep, mode) stay out of the comparison's and the API's addresses."""
    page = client.get("/?preset=h96-lan&network.rtt_ms=20&sweep=page.object_count&mode=simple").get_data(as_text=True)
    link = unescape(re.search(r'href="(/compare\?[^"]*)"', page).group(1))  # type: ignore[union-attr]
    assert link == "/compare?preset=h96-lan&network.rtt_ms=20"
    assert client.get(link).status_code == 200
    for api in re.findall(r'href="(/api/v1/predict[^"]*)"', page):
        assert client.get(unescape(api)).status_code == 200


def test_a_cards_picker_sets_one_field_of_one_scenario(client: FlaskClient) -> None:
    """Issue 25: opened from the calculator, B is a copy of A; its card's picker writes b.FIELD (no JavaScript)."""
    page = client.get("/compare?preset=h96-lan&network.rtt_ms=20").get_data(as_text=True)
    assert 'id="edit-b-field"' in page and 'id="edit-b-value"' in page and '<option value="tcp.nagle">' in page
    r = client.get("/compare?preset=h96-lan&network.rtt_ms=20&edit=b&field=network.rtt_ms&value=200 ms")
    assert r.status_code == 303
    assert r.headers["Location"] == "/compare?preset=h96-lan&network.rtt_ms=20&b.network.rtt_ms=200+ms"
    cells = _cells(client.get(r.headers["Location"]).get_data(as_text=True))
    a_ms = float(cells[0][2][0].replace(",", ""))
    b_ms = float(cells[len(cells) // 2][2][0].replace(",", ""))
    assert b_ms > a_ms + 180 * 2  # each protocol takes several round trips more
    # a blank value drops B's own setting again
    r = client.get("/compare?preset=h96-lan&b.network.rtt_ms=200&edit=b&field=network.rtt_ms&value=")
    assert r.status_code == 303 and r.headers["Location"] == "/compare?preset=h96-lan"


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("edit=z&field=network.rtt_ms&value=1", "edit must name one of the scenarios, a, b"),
        ("edit=b&field=network.speed&value=1", "field must be a scenario field (like network.rtt_ms) or preset"),
    ],
)
def test_a_bad_edit_is_named(client: FlaskClient, query: str, says: str) -> None:
    r = client.get("/compare?preset=h96-lan&" + query)
    assert r.status_code == 400
    assert says in unescape(r.get_data(as_text=True))


def test_a_scenario_can_be_removed_and_its_settings_dropped(client: FlaskClient) -> None:
    page = unescape(client.get("/compare?preset=h96-lan&b.tcp.nagle=false").get_data(as_text=True))
    # two scenarios: removing B leaves A, which the calculator shows alone
    assert '<a href="/?preset=h96-lan">Remove B (open A alone in the calculator)</a>' in page
    assert '<a href="/compare?preset=h96-lan">drop <span class="visually-hidden">B\'s </span>Nagle</a>' in page
    page = unescape(client.get("/compare?preset=h96-lan&b.tcp.nagle=false&n=3").get_data(as_text=True))
    assert '<a href="/compare?preset=h96-lan&b.tcp.nagle=false">Remove C</a>' in page


def test_no_tls_toggle_for_a_scenario_of_h3_only(client: FlaskClient) -> None:
    """Issue 25: h3's TLS is QUIC's own, so "TLS on (1.3)" changed nothing of an h3-only scenario; on main before
    2026-11-28 /compare offered it. A scenario with a TCP protocol beside h3 keeps the toggle."""
    h3 = client.get("/compare?preset=h96-lan&protocols=h3&tls.version=none").get_data(as_text=True)
    assert 'data-toggle="nagle"' in h3 and 'data-toggle="tls"' not in h3
    mixed = client.get("/compare?preset=h96-lan&protocols=h2,h3&tls.version=none").get_data(as_text=True)
    assert 'data-toggle="tls"' in mixed
