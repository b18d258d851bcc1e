"""The side-by-side comparison (/compare): one overlay, one query syntax, bad input named (never a 500)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from latency_lab import predict
from latency_lab_web.web.form import read


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
            # (latency_lab.scenario.limits.RUN_COSTS prices a lossy run), naming the limit, its maximum and the costly fields
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


# --- lecture mode (issue 27): one comparison for a projector ---------------------------------------------------------

LOSSY = "preset=p98-satellite&protocols=pipelined,h2,h3&a.network.loss_rate=0.01&b.network.loss_rate=0.03"


def _json_script(html: str, ident: str) -> object:
    m = re.search(rf'<script type="application/json" id="{ident}">(.*?)</script>', html, re.S)
    assert m, ident
    return json.loads(m.group(1))


def test_the_comparison_links_its_lecture_mode_and_lecture_mode_links_back(client: FlaskClient) -> None:
    page = client.get("/compare?" + LOSSY).get_data(as_text=True)
    link = re.search(r'<a href="([^"]+)" class="compare-lecture-link">', page)
    assert link and unescape(link.group(1)) == "/compare?" + LOSSY + "&lecture=1"
    r = client.get(unescape(link.group(1)))
    assert r.status_code == 200
    lecture = r.get_data(as_text=True)
    assert (
        "lecture.css" in lecture and 'class="compare-lecture lecture"' in lecture and 'data-lecture="true"' in lecture
    )
    assert "ladder-step.js" in lecture  # the teaching panel's stepper, not a second copy
    back = re.search(r'<a href="([^"]+)">Leave lecture mode</a>', lecture)
    assert back and unescape(back.group(1)) == "/compare?" + LOSSY
    # a projector's page: no cards, pickers, toggles or share box
    for gone in ("compare-lecture-link", 'id="edit-b-field"', "data-toggle=", "Share this comparison"):
        assert gone not in lecture, gone
    assert client.get("/compare?" + LOSSY + "&lecture=0").get_data(as_text=True).count("compare-lecture-link") == 1


def test_lecture_steps_are_the_tables_rows_with_the_expected_time_leading(client: FlaskClient) -> None:
    """One step a row, scenario by scenario: its time (with loss the expected one, the lossless one beside it), its
    round trips and its difference from A, the model's own numbers; its bar on the chart is the row's."""
    cells = _cells(client.get("/compare?" + LOSSY).get_data(as_text=True))
    lecture = client.get("/compare?" + LOSSY + "&lecture=1").get_data(as_text=True)
    steps = _json_script(lecture, "compare-steps")
    figure = _json_script(lecture, "fig-compare")
    assert isinstance(steps, list) and isinstance(figure, dict)
    assert len(steps) == len(cells) == 6
    results = {}
    for side, rate in (("A", "0.01"), ("B", "0.03")):
        state = read(
            MultiDict([("preset", "p98-satellite"), ("protocols", "pipelined,h2,h3"), ("network.loss_rate", rate)])
        )
        assert state.scenario is not None
        results[side] = predict(state.scenario)["results"]
    for step, row in zip(steps, cells, strict=True):
        side, protocol = row[0][0], " ".join(row[1])
        assert step["group"] == side and step["fields"]["protocol"] == protocol
        assert step["bar"] == f"{side}: {protocol}"
        rate = "1%" if side == "A" else "3%"
        times = [k for k in step["fields"] if "time" in k]
        assert times == [f"expected time with {rate} loss", "time without loss"]  # the expected time leads
        assert step["fields"][times[0]] == row[2][0] + " ms" and step["fields"][times[1]] == row[3][0] + " ms"
        assert step["text"].startswith(f"{side}, {protocol}: {row[2][0]} ms expected with {rate} loss")
        assert (step["fields"]["difference from A"] == "the baseline") == (row[4] == ["baseline"])
        assert step["why"] and step["why"][0] in unescape(lecture)
    for side, rs in results.items():
        mine = [s for s in steps if s["group"] == side]
        assert [int(s["fields"]["round trips"].split()[0]) for s in mine] == [r["counts"]["round_trips"] for r in rs]
    # the chart: the same bars, in the same order, larger type than the page's
    assert all(t["y"] == [s["bar"] for s in steps] for t in figure["data"])
    assert figure["layout"]["font"]["size"] >= 20
    # the list a screen reader and a browser without JavaScript read: every step in order
    listed = re.findall(r'<li id="compare-step-(\d+)" data-step="\d+" data-group="([A-F])">(.*?)</li>', lecture, re.S)
    assert [(int(i), g, unescape(t).strip()) for i, g, t in listed] == [
        (i, s["group"], s["text"]) for i, s in enumerate(steps)
    ]


def test_a_lossless_lecture_step_has_one_time(client: FlaskClient) -> None:
    lecture = client.get("/compare?preset=h96-lan&b.tcp.nagle=false&lecture=1").get_data(as_text=True)
    steps = _json_script(lecture, "compare-steps")
    assert isinstance(steps, list) and steps
    for step in steps:
        assert [k for k in step["fields"] if "time" in k] == ["page load time"]
        assert "loss" not in step["text"]
    assert "No random loss." in lecture


@pytest.mark.parametrize("bad", ["2", "yes", "%00"])
def test_a_bad_lecture_flag_is_a_400_naming_it(client: FlaskClient, bad: str) -> None:
    r = client.get(f"/compare?preset=h96-lan&lecture={bad}")
    assert r.status_code == 400
    assert "lecture (lecture mode) is 1 (on) or 0 (off)" in unescape(r.get_data(as_text=True))


def test_a_bad_scenario_in_lecture_mode_is_named_there(client: FlaskClient) -> None:
    r = client.get("/compare?preset=h96-lan&b.network.rtt_ms=-5&lecture=1")
    assert r.status_code == 400
    page = unescape(r.get_data(as_text=True))
    assert "This comparison cannot be shown" in page and "Scenario B: RTT must be a number" in page
    assert "Leave lecture mode" in page and 'id="compare-steps"' not in page
