"""The teaching panel (latency_lab_web/teaching/views.py, latency_lab_web/figures/ladder.py): ladder, formula, stalls, chooser, errors."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest
from flask.testing import FlaskClient

from latency_lab import ALL_PROTOCOLS, PRESETS, Scenario, predict
from latency_lab_web.figures.ladder import MAX_PACKETS, TimeAxis, ladder

HX = {"HX-Request": "true"}
X = "\u00d7"  # the multiplication sign the page writes


def figure(html: str) -> dict[str, Any]:
    """The ladder's figure JSON from the panel's HTML."""
    m = re.search(r'<script type="application/json" id="explain-ladder-figure">(.*?)</script>', html, re.S)
    assert m, "no ladder figure block"
    doc: dict[str, Any] = json.loads(m.group(1))
    return doc


def traces(fig: dict[str, Any], role: str) -> list[dict[str, Any]]:
    return [t for t in fig["data"] if (t.get("meta") or {}).get("role") == role]


def result_of(query: dict[str, Any], protocol: str) -> dict[str, Any]:
    out: dict[str, Any] = predict({**query, "protocols": [protocol]}, packets=True)["results"][0]
    return out


def get(client: FlaskClient, query: str, partial: bool = True) -> tuple[int, str]:
    r = client.get("/explain?" + query, headers=HX if partial else {})
    return r.status_code, r.get_data(as_text=True)


# --- the ladder -------------------------------------------------------------------------------------


def test_one_trace_per_packet_for_a_small_page(client: FlaskClient) -> None:
    status, html = get(client, "preset=h96-lan&protocol=persistent")
    assert status == 200
    fig = figure(html)
    expected = result_of(PRESETS["h96-lan"].document, "persistent")
    packets = traces(fig, "packet")
    assert len(packets) == len(expected["packets"]) == 25
    assert sorted(t["meta"]["n"] for t in packets) == [p["n"] for p in expected["packets"]]
    by_n = {t["meta"]["n"]: t for t in packets}
    for p in expected["packets"]:
        t = by_n[p["n"]]
        # client on the left (x=0), server on the right (x=1); the line runs sender -> receiver
        assert t["x"][0] == (0.0 if p["direction"] == "up" else 1.0)
        assert t["x"][-1] == (1.0 if p["direction"] == "up" else 0.0)
        assert t["y"][0] <= t["y"][-1]  # time goes down (the axis is reversed) and a packet arrives after it leaves
        assert t["marker"]["symbol"][-1] == "arrow"  # direction shown by an arrow, not by colour
        assert str(p["n"]) in t["hovertext"][0]
    labels = [t["text"][1] for t in packets]
    assert labels[:3] == ["SYN", "SYN-ACK", "ACK"]
    assert "html 1460 B" in labels
    assert fig["layout"]["yaxis"]["autorange"] == "reversed"
    # the figure is valid plotly (the app skips validation for speed; this checks what it skips)
    go.Figure(fig)


def test_kinds_differ_by_dash_not_only_colour(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    packets = traces(figure(html), "packet")
    dash = {t["meta"]["kind"]: t["line"]["dash"] for t in packets}
    assert dash["data"] == "solid" and dash["ACK"] == "dot" and dash["SYN"] == "dash"


def test_delayed_ack_timer_drawn_where_the_model_reports_a_stall(client: FlaskClient) -> None:
    expected = result_of(PRESETS["h96-lan"].document, "persistent")
    assert expected["counts"]["delayed_ack_stalls"] >= 1
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    fig = figure(html)
    timers = traces(fig, "delayed_ack")
    held = [p for p in expected["packets"] if p["ack_held_ms"] > 0]
    assert len(timers) == len(held) >= 1
    stall = next(e for e in expected["events"] if e["kind"] == "delayed_ack_stall")
    # the stall's timer: on the client (receiver) side, a vertical bar ending when the held ACK left;
    # the stall (the sender's wait) ends when that ACK arrives
    stall_end = stall["start_ms"] + stall["duration_ms"]
    ack = next(p for p in held if abs(p["arrival_ms"] - stall_end) < 1e-6)
    bar = next(t for t in timers if t["meta"]["packet"] == ack["n"])
    assert len(set(bar["x"])) == 1 and bar["x"][0] < 0  # beside the client's column, outside it
    assert bar["y"][0] < bar["y"][-1]
    packet_y = {t["meta"]["n"]: t["y"] for t in traces(fig, "packet")}
    assert bar["y"][-1] == pytest.approx(packet_y[ack["n"]][0])  # ends where the ACK leaves
    assert "delayed-ACK timer" in bar["text"][1]


def test_no_timer_without_a_held_ack(client: FlaskClient) -> None:
    doc = PRESETS["h96-lan"].document
    expected = result_of({**doc, "tcp": {**doc.get("tcp", {}), "delayed_ack_ms": 0}}, "persistent")
    assert not any(p["ack_held_ms"] > 0 for p in expected["packets"])
    _, html = get(client, "preset=h96-lan&protocol=persistent&tcp.delayed_ack_ms=0")
    assert traces(figure(html), "delayed_ack") == []


def test_nagle_hold_drawn_on_the_sender_side(client: FlaskClient) -> None:
    doc = PRESETS["m98-tt"].document
    expected = result_of({**doc, "tcp": {**doc["tcp"], "nagle": True}}, "persistent")
    nagle = [e for e in expected["events"] if e["kind"] == "nagle_stall"]
    assert nagle, "m98-tt persistent with Nagle on has a Nagle stall"
    _, html = get(client, "preset=m98-tt&protocol=persistent&tcp.nagle=true")
    holds = traces(figure(html), "nagle")
    assert len(holds) == len(nagle)
    e = nagle[0]
    seg = next(
        p
        for p in expected["packets"]
        if p["kind"] == "DATA" and abs(p["sent_ms"] - e["start_ms"] - e["duration_ms"]) < 1e-6
    )
    hold = next(t for t in holds if t["meta"]["packet"] == seg["n"])
    side = 1.0 if seg["direction"] == "down" else 0.0
    assert abs(hold["x"][0] - side) < 0.1 and hold["x"][0] != side
    assert hold["line"]["dash"] == "dot"
    assert "Nagle hold" in hold["text"][1]
    # turning Nagle off takes the hold away
    _, html = get(client, "preset=m98-tt&protocol=persistent&tcp.nagle=false")
    assert traces(figure(html), "nagle") == []


def test_large_page_is_drawn_in_pages_every_packet_on_one(client: FlaskClient) -> None:
    """Issue 25: the ladder stopped at 100 packets (the rest of the run, and its last stalls, never drawn); now it is
    drawn in pages of MAX_PACKETS, every packet on exactly one, each page a link that keeps the scenario."""
    expected = result_of(PRESETS["n97-ppp"].document, "http10")
    total = len(expected["packets"])
    assert total > 2 * MAX_PACKETS
    pages = -(-total // MAX_PACKETS)
    status, html = get(client, "preset=n97-ppp&protocol=http10")
    assert status == 200
    fig = figure(html)
    assert len(traces(fig, "packet")) == MAX_PACKETS
    ordered = sorted(expected["packets"], key=lambda p: (p["sent_ms"], p["n"]))
    assert {t["meta"]["n"] for t in traces(fig, "packet")} == {p["n"] for p in ordered[:MAX_PACKETS]}
    text = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))
    assert f"This run has {total:,} packets, drawn {MAX_PACKETS} a page: page 1 of {pages}" in re.sub(r"\s+", " ", text)
    seen: list[int] = []
    for k in range(1, pages + 1):
        status, page = get(client, f"preset=n97-ppp&protocol=http10&ladder_page={k}")
        assert status == 200
        drawn = [t["meta"]["n"] for t in traces(figure(page), "packet")]
        assert drawn == [p["n"] for p in ordered[(k - 1) * MAX_PACKETS : k * MAX_PACKETS]]
        seen += drawn
        if k < pages:
            assert f"ladder_page={k + 1}" in page and 'rel="next"' in page
    assert sorted(seen) == sorted(p["n"] for p in expected["packets"])
    # the last page draws the end of the page load
    assert any("page loaded" in a["text"] for a in figure(page)["layout"]["annotations"])
    # a page past the end is a 400 naming the parameter, never a 500
    status, bad = get(client, "preset=n97-ppp&protocol=http10&ladder_page=0")
    assert status == 400 and "ladder_page" in bad


def test_ladder_function_summary_and_scales() -> None:
    r = result_of(PRESETS["n97-wan"].document, "persistent")
    small = ladder(r, max_packets=10)
    assert small.summarised and small.packets_shown == 10 and small.packets_total == len(r["packets"])
    assert small.pages == -(-len(r["packets"]) // 10) and small.page == 1
    assert sum(small.left_out.values()) == len(r["packets"]) - 10
    whole = ladder(r, max_packets=10_000, scale="time")
    assert not whole.summarised
    # to scale, y is the time itself
    pk = next(t for t in whole.figure.to_dict()["data"] if (t.get("meta") or {}).get("role") == "packet")
    first = min(r["packets"], key=lambda p: (p["sent_ms"], p["n"]))
    assert pk["y"][0] == first["sent_ms"] and pk["y"][-1] == first["arrival_ms"]


def test_time_axis_in_steps_keeps_order_and_shortens_long_gaps() -> None:
    times = [0.0, 0.1, 0.2, 0.3, 200.0, 200.1]
    axis = TimeAxis(times, "steps")
    ys = [axis(t) for t in times]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)
    assert ys[4] - ys[3] < 20 * (ys[1] - ys[0])  # 2000x longer, drawn well under 20x taller
    assert axis.shortened == [(0.3, 200.0)]
    vals, text = axis.ticks()
    assert text[0] == "0 ms" and vals == sorted(vals)


# --- the formula -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "protocol"),
    [("h96-lan", "persistent"), ("h96-lan", "http10"), ("pm94-remote", "pipelined"), ("m98-ss", "getall")],
)
def test_terms_add_up_to_the_page_load_time(client: FlaskClient, preset: str, protocol: str) -> None:
    status, html = get(client, f"preset={preset}&protocol={protocol}")
    assert status == 200
    body = html.split('<table class="explain-terms">', 1)[1].split("</table>", 1)[0]
    rows, foot = body.split("<tfoot>", 1)
    terms = [float(x) for x in re.findall(r'data-ms="([^"]+)"', rows)]
    total = float(re.findall(r'data-ms="([^"]+)"', foot)[0])
    expected = result_of(PRESETS[preset].document, protocol)["page_load_ms"]
    assert len(terms) >= 2
    assert sum(terms) == pytest.approx(expected, abs=1e-6)
    assert total == pytest.approx(expected, abs=1e-6)


def test_formula_panel_has_mathml_latex_to_copy_and_glossary(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    block = re.search(r'<math display="block">(.*?)</math>', html, re.S)
    assert block and "<mrow>" in block.group(1) and "<mi>RTT</mi>" in block.group(1)
    latex = re.search(r'<code id="explain-latex-code">(.*?)</code>', html, re.S)
    assert latex and "RTT" in latex.group(1) and "T_{d}" in unescape(latex.group(1))
    assert 'data-copy="explain-latex-code"' in html
    # glossary: every symbol of the formula, with its unit and the scenario's value
    assert "delayed-ACK timer" in html and "187 ms" in html and "tcp.delayed_ack_ms" in html
    text = unescape(re.sub(r"<[^>]+>", "", html))
    # the terms by part of the breakdown: the Nagle stalls' two timers, the delayed-ACK stall's one
    assert f"2 {X} Td = 2 {X} 187 ms = 374 ms" in text and "Td = 187 ms" in text
    assert f"3/2 {X} RTT = 3/2 {X} 0.25 ms = 0.375 ms" in text


def test_formula_numbers_follow_the_query(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&protocol=persistent&tcp.delayed_ack_ms=100")
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert f"2 {X} Td = 2 {X} 100 ms = 200 ms" in text


# --- stalls and counts ----------------------------------------------------------------------------


def test_every_stall_explained(client: FlaskClient) -> None:
    expected = result_of(PRESETS["h96-lan"].document, "persistent")
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    text = unescape(html)
    for e in expected["events"]:
        assert e["why"] in text
    for key in ("round_trips", "delayed_ack_stalls", "nagle_stalls", "slow_start_rounds"):
        assert f"<td>{expected['counts'][key]}</td>" in html
    assert '<section class="explain-stalls" data-kind="delayed_ack_stall"' in html


def _stall_sections(html: str) -> dict[str, str]:
    return dict(re.findall(r'<section class="explain-stalls[^"]*" data-kind="([^"]+)".*?>(.*?)</section>', html, re.S))


@pytest.mark.parametrize(
    ("query", "protocol"),
    [
        ("preset=n97-wan", "persistent"),  # issue 25: slow start 451.0 in the breakdown against 342.2 in the list
        ("preset=n97-wan", "pipelined"),  # a stall off the critical path
        ("preset=h96-lan", "persistent"),  # Nagle stalls ended by delayed ACKs
        ("preset=p98-satellite", "http10"),  # many stalls
        ("preset=m98-tt&tcp.nagle=true", "pipelined"),
        ("preset=n97-lan", "http10_parallel"),  # stalls on connections the last byte did not wait for
    ],
)
def test_stalls_list_is_the_breakdown(client: FlaskClient, query: str, protocol: str) -> None:
    """Issue 25: "where the time goes" and the list of stalls gave different totals for the same kind of stall, the
    list said "5 times" under a heading of 6, listed the first stall last and showed unlabelled pairs of numbers.
    Now each kind's heading total is the breakdown's part of that name, its count is the number of stalls listed
    under it, they are in time order and each says when it began and how long the page waited."""
    status, html = get(client, f"{query}&protocol={protocol}")
    assert status == 200
    breakdown = {
        k: float(v) for k, v in re.findall(r'<tr data-part="([^"]+)"><th[^>]*>[^<]*</th><td data-ms="([^"]+)"', html)
    }
    sections = _stall_sections(html)
    for kind in ("slow_start_idle", "delayed_ack_stall", "nagle_stall"):
        if breakdown.get(kind, 0.0) == 0.0:
            assert kind not in sections
            continue
        body = sections[kind]
        heading = re.search(r"<h4>[^<]*: (\d+) \(<span data-ms=\"([^\"]+)\">", body)
        assert heading, body[:300]
        assert float(heading.group(2)) == pytest.approx(breakdown[kind], abs=1e-9 * max(1.0, breakdown[kind]))
        items = re.findall(
            r'<li class="stall" data-start-ms="([^"]+)" data-ms="([^"]+)">\s*<p><strong>from [^<]+, waited [^<]+</strong>',
            body,
        )
        assert len(items) == int(heading.group(1))
        starts = [float(a) for a, _ in items]
        assert starts == sorted(starts)
        assert sum(float(b) for _, b in items) == pytest.approx(breakdown[kind], abs=1e-9 * max(1.0, breakdown[kind]))
    # no number pair without words: every stall line says "from ..., waited ..."
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert not re.search(r"\d ms, \d[\d.,]* ms \(connection", text)
    # stall events the last byte did not wait for are listed apart and said to be off the path
    acct_events = result_of(parse_qs_doc(query), protocol)["events"]
    for e in acct_events:
        assert e["why"] in unescape(html)
    if "off_path" in sections:
        assert "not in the totals above" in sections["off_path"]


def parse_qs_doc(query: str) -> dict[str, Any]:
    """The scenario document of a panel query (a preset and dotted fields)."""
    from latency_lab.scenario.overlay import overlay

    args = {k: v[0] for k, v in parse_qs(query).items()}
    name = args.pop("preset")
    doc = PRESETS[name].document
    fields: dict[str, Any] = {}
    for k, v in args.items():
        *outer, last = k.split(".")
        at = fields
        for key in outer:
            at = at.setdefault(key, {})
        at[last] = {"true": True, "false": False}.get(v, v)
    out: dict[str, Any] = overlay(doc, fields) if fields else doc
    return out


def test_formula_terms_add_up_to_each_part_of_the_breakdown(client: FlaskClient) -> None:
    """Issue 25: the formula's terms are grouped by the part of the breakdown they belong to, each group adding up to
    that part as "where the time goes" shows it."""
    for query in ("preset=n97-wan&protocol=persistent", "preset=h96-lan&protocol=persistent"):
        _, html = get(client, query)
        breakdown = {
            k: float(v)
            for k, v in re.findall(r'<tr data-part="([^"]+)"><th[^>]*>[^<]*</th><td data-ms="([^"]+)"', html)
        }
        groups = re.findall(r'<tbody data-part="([^"]+)">(.*?)</tbody>', html, re.S)
        assert {k for k, _ in groups} == set(breakdown)
        for part, body in groups:
            total = float(re.search(r'data-part-ms="([^"]+)"', body).group(1))  # type: ignore[union-attr]
            terms = [float(x) for x in re.findall(r' data-ms="([^"]+)"', body)]
            assert total == pytest.approx(breakdown[part], abs=1e-6)
            assert sum(terms) == pytest.approx(total, abs=1e-9)


def test_no_stalls_said_plainly(client: FlaskClient) -> None:
    expected = result_of(PRESETS["pm94-local"].document, "persistent")
    assert expected["events"] == []
    _, html = get(client, "preset=pm94-local&protocol=persistent")
    assert "never waited" in html


# --- chooser, partial and page -----------------------------------------------------------------------


def test_chooser_links_every_protocol_keeping_the_scenario(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&network.rtt_ms=70&protocols=http10,pipelined&protocol=pipelined")
    nav = html.split('<nav class="explain-chooser"', 1)[1].split("</nav>", 1)[0]
    links = re.findall(r'<a href="([^"]+)" hx-get="([^"]+)" hx-target="#explain" hx-swap="outerHTML"', nav)
    assert len(links) == len(ALL_PROTOCOLS)
    chosen = []
    for href, hx in links:
        assert href == hx
        q = parse_qs(urlsplit(unescape(href)).query)
        assert q["preset"] == ["h96-lan"] and q["network.rtt_ms"] == ["70"]
        assert q["protocols"] == ["http10,pipelined"]
        chosen.append(q["protocol"][0])
    assert chosen[:2] == ["http10", "pipelined"]  # the scenario's first
    assert sorted(chosen) == sorted(ALL_PROTOCOLS)
    assert re.search(r'data-protocol="pipelined" aria-current="true"', nav)
    # each link answers: the panel for that protocol
    status, other = get(client, unescape(links[0][0]).split("?", 1)[1])
    assert status == 200 and "Why HTTP/1.0 takes" in other


def test_default_protocol_is_the_scenarios_first(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&protocols=getall,http10")
    assert "Why GETALL takes" in html


def test_partial_for_htmx_full_page_otherwise(client: FlaskClient) -> None:
    status, partial = get(client, "preset=h96-lan", partial=True)
    assert status == 200
    assert partial.lstrip().startswith("{#") is False
    assert "<html" not in partial and '<section id="explain"' in partial
    status, page = get(client, "preset=h96-lan", partial=False)
    assert status == 200
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert '<section id="explain"' in page and "Back to the calculator" in page
    assert "plotly" in page  # the full page loads the scripts that draw the ladder


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("network.rtt_ms=-5", ["RTT (network.rtt_ms) must be a number between 0 and 10,000 ms; you gave -5."]),
        ("network.rtt_ms=fast", ["network.rtt_ms", "fast"]),
        ("protocol=http2", ["protocol", "http2", "http10, http10_parallel, persistent, pipelined, getall"]),
        ("protocol=persistant", ["protocol", "did you mean 'persistent'"]),
        ("scale=log", ["scale", "steps, time"]),
        ("preset=nope", ["preset", "h96-lan"]),
        ("network.rtt=70", ["network.rtt", "unknown"]),
        ("protocols=http10&protocols=getall", ["protocols", "given 2 times"]),
        ("page.object_count=100000", ["page"]),
    ],
)
@pytest.mark.parametrize("partial", [True, False])
def test_bad_query_is_a_400_naming_the_field(
    client: FlaskClient, query: str, expected: list[str], partial: bool
) -> None:
    status, html = get(client, query, partial=partial)
    assert status == 400
    text = unescape(html)
    assert 'role="alert"' in html
    for part in expected:
        assert part in text, (part, text[-2000:])


def test_over_the_work_limit_is_a_400(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # The panel's own limit, lowered to see the answer on a small page (a page over it for real: below).
    import latency_lab_web.teaching.views

    monkeypatch.setattr(latency_lab_web.teaching.views, "MAX_EXPLAIN_WORK_UNITS", 100)
    status, html = get(client, "preset=n97-lan&protocol=http10")
    assert status == 400
    assert "work units, at most 100 allowed (max_explain_work_units)" in unescape(html)


def test_formula_left_out_over_its_limit(client: FlaskClient) -> None:
    status, html = get(client, "protocols=http10&page.object_count=400&page.object_size_bytes=4000")
    assert status == 200
    assert "The formula is left out for a page this large" in html and "max_formula_work_units" in html
    assert '<math display="block">' not in html
    assert len(traces(figure(html), "packet")) == MAX_PACKETS


# --- every preset, every protocol (issue 15, defects 2 and 7) -----------------------------------------


def _runs(doc: dict[str, Any], protocol: str) -> bool:
    from latency_lab import Scenario

    try:
        Scenario.model_validate({**doc, "protocols": [protocol]})
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_presets_panel_opens_for_every_protocol(client: FlaskClient, name: str) -> None:
    """No 5xx anywhere: the split-proxy presets once answered 500 (KeyError 1/B_s in latency_lab.analysis.symbolic.terms).
    A protocol the scenario cannot run (HTTP/2 through split proxies) is a 400 page naming why, and the
    chooser does not offer it; every other one shows its panel with terms adding up to the prediction."""
    doc = PRESETS[name].document
    for protocol in ALL_PROTOCOLS:
        for partial in (True, False):
            status, html = get(client, f"preset={name}&protocol={protocol}", partial=partial)
            assert status < 500, (name, protocol, status)
        if not _runs(doc, protocol):
            assert status == 400 and 'role="alert"' in html and protocol in html, (name, protocol)
            continue
        assert status == 200, (name, protocol)
        nav = html.split('<nav class="explain-chooser"', 1)[1].split("</nav>", 1)[0]
        offered = re.findall(r'data-protocol="(\w+)"', nav)
        assert offered and all(_runs(doc, p) for p in offered), (name, offered)
        body = html.split('<table class="explain-terms">', 1)[1].split("</table>", 1)[0]
        rows = body.split("<tfoot>", 1)[0]
        terms = [float(x) for x in re.findall(r'data-ms="([^"]+)"', rows)]
        assert sum(terms) == pytest.approx(result_of(doc, protocol)["page_load_ms"], abs=1e-6), (name, protocol)
        assert "&amp;" not in body, (name, protocol)  # no entity escaped twice (the '&minus;' text of defect 7)


def test_negative_terms_show_a_minus_sign_not_an_entity(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert "&minus;" not in text and "\u22122.336 ms" in text
    assert f"\u22122 {X} M {X} 8000 / B = \u22122 {X} 1,460 bytes" in text


def test_term_table_mathml_keeps_8000_over_the_rate(client: FlaskClient) -> None:
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    block = re.search(r'<math display="block">(.*?)</math>', html, re.S)
    assert block and "<mn>8000</mn>" in block.group(1) and "99200000" not in block.group(1)
    body = html.split('<table class="explain-terms">', 1)[1].split("</table>", 1)[0]
    assert "99200000" not in body and "16000" not in body
    # every serialization term (M, h, o, q and the plain bytes, each over B, in each part of the breakdown)
    rows = re.findall(r"<tr><td><math>.*?</tr>", body, re.S)
    over_rate = [r for r in rows if f"{X} 8000 / B" in unescape(r)]
    assert len(over_rate) >= 5
    assert all("<mfrac><mrow><mn>8000</mn>" in r for r in over_rate)


def test_three_delayed_ack_timers_beside_one_stall_are_explained(client: FlaskClient) -> None:
    """Seed 000's P-HTTP: the formula has 3 T_d, the stalls list 1 delayed-ACK stall; the other two are
    Nagle stalls ended by a delayed ACK, and the panel says so beside the count and links it from T_d."""
    _, html = get(client, "preset=h96-lan&protocol=persistent")
    section = re.search(r'data-kind="delayed_ack_stall".*?</section>', html, re.S)
    assert section and "<h4>Delayed-ACK stalls on the critical path: 1 (" in section.group(0)
    note = re.search(r'<p class="explain-note" id="explain-dack-note" role="note">(.*?)</p>', section.group(0), re.S)
    assert note
    text = unescape(re.sub(r"<[^>]+>", "", note.group(1)))
    assert "Td appears 3 times" in text and "1 delayed-ACK stall is counted" in text
    assert "2 Nagle stalls waited for a delayed ACK" in text and "Nagle's algorithm keeps a short segment" in text
    assert 'delayed-ACK timer (<a href="#explain-dack-note">why 3 times in all</a>)' in html
    # with Nagle off the timers and the stall count agree again: no note
    _, plain = get(client, "preset=h96-lan&protocol=persistent&tcp.nagle=false")
    assert "explain-dack-note" not in plain


def _holds_by_scanning(packets: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The Nagle holds as ladder.holds found them before it indexed the segments: every packet scanned for every
    stall (quadratic), the first match in the schedule taken."""
    out = []
    for e in events:
        if e["kind"] != "nagle_stall":
            continue
        end = e["start_ms"] + e["duration_ms"]
        match = [
            p
            for p in packets
            if p["kind"] == "DATA"
            and p["connection"] == e["connection"]
            and p["object"] == e["object"]
            and abs(p["sent_ms"] - end) <= 1e-6 * max(1.0, end)
        ]
        if match:
            out.append((e["start_ms"], match[0]["sent_ms"], match[0]["connection"], match[0]["n"]))
    return out


@pytest.mark.parametrize("protocol", ["persistent", "pipelined", "h2"])
def test_nagle_holds_found_by_bisection_are_the_scanned_ones(protocol: str) -> None:
    """ladder.holds finds each stall's segment by bisection in the segments of its connection and object; on pages
    full of Nagle stalls it finds exactly the segments a scan of every packet finds."""
    from latency_lab import Scenario
    from latency_lab_web.figures.ladder import holds

    doc = {
        "protocols": [protocol],
        "network": {"rtt_ms": 40, "bandwidth_bps": 10e6},
        "tcp": {"nagle": True, "mss_bytes": 536, "delayed_ack_ms": 200},
        "http": {"server_write_bytes": 700, "header_flush": True},
        "page": {"object_count": 60, "object_size_bytes": 1500},
    }
    r = predict(Scenario.model_validate(doc), packets=True)["results"][0]
    expected = _holds_by_scanning(r["packets"], r["events"])
    got = [
        (h.start_ms, h.end_ms, h.connection, h.packet) for h in holds(r["packets"], r["events"]) if h.kind == "nagle"
    ]
    assert got == expected
    assert len(expected) >= 3, "the page has Nagle stalls to find (persistent: 61)"


@pytest.mark.parametrize("protocol", ["http10", "http10_parallel", "persistent", "pipelined", "getall"])
def test_split_proxy_panel_shows_each_leg_rate(client: FlaskClient, protocol: str) -> None:
    """On a split-proxy path the formula has serialization terms over the legs' rates B_c and B_s; the panel splits
    them like B's (a KeyError, a 500, for every split-proxy panel before), and the terms add up to the load time."""
    from latency_lab import Scenario
    from latency_lab.analysis import symbolic
    from latency_lab.analysis.predict import expression
    from latency_lab.scenario.params import resolve

    query = f"protocol={protocol}&protocols={protocol}&proxy.architecture=split_proxy&page.object_count=5"
    status, html = get(client, query + "&page.object_size_bytes=3000")
    assert status == 200, html[:500]
    assert "B<sub>c</sub>" in html and "B<sub>s</sub>" in html
    doc = {"protocols": [protocol], "proxy": {"architecture": "split_proxy"}}
    s = Scenario.model_validate({**doc, "page": {"object_count": 5, "object_size_bytes": 3000}})
    parts = symbolic.terms(expression(s, protocol)["page_load_ms"], resolve(s))
    assert {t["rate"] for t in parts} >= {"B_c", "B_s"}
    assert sum(t["ms"] for t in parts) == pytest.approx(predict(s)["results"][0]["page_load_ms"], rel=1e-9)


def test_the_why_says_propagation_not_bandwidth_on_a_fast_link() -> None:
    """Issue 25: at 100 Gb/s with 100-byte objects the why said "46 % of its 1,200 ms is sending the bytes at the
    link's bandwidth" while serialization was 0.0001 ms: the time is the data's flight, and the why says so."""
    from latency_lab_web.web.words import why

    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 70, "bandwidth_bps": 100e9},
        "page": {"html_bytes": 100, "object_bytes": [100] * 10},
    }
    scenario = Scenario.model_validate(doc)
    r = predict(scenario)["results"][0]
    text = why(r, scenario).text
    assert "bandwidth" not in text and "trip to the" in text, text


def test_initial_window_and_the_textbook_form_in_the_panel(client: FlaskClient) -> None:
    """Issue 25: initial window 1 sends two segments on the default (bsd) profile, and the panel's glossary says so;
    the formula is also given in Kurose & Ross's form with the scenario's numbers where it applies."""
    _, html = get(client, "preset=pm94-remote&protocol=http10&tcp.initial_window_segments=1")
    text = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))
    assert "IW + 1 = 2 segments" in text and "tcp.initial_window_segments" in text
    assert "The textbook's form" in text and "2 RTT + O/R + P (RTT + S/R)" in text
    book = float(re.search(r'data-textbook-ms="([^"]+)"', html).group(1))  # type: ignore[union-attr]
    assert book > 0
    # on the textbook's profile there is no IW + 1
    _, plain = get(client, "preset=pm94-remote&protocol=http10&tcp.initial_window_segments=1&tcp.profile=rfc5681")
    assert "IW + 1 =" not in unescape(plain)


@pytest.mark.parametrize(("name", "protocol"), [("n97-wan", "persistent"), ("h96-lan", "persistent")])
def test_ladder_shades_the_breakdowns_stalls(name: str, protocol: str) -> None:
    """Issue 25: the ladder draws the stalls of the same account as the breakdown: drawn whole and to scale, its
    shading of each stall kind adds up to the breakdown's part of that name."""
    from latency_lab.analysis.account import account

    acct = account(Scenario.model_validate({**PRESETS[name].document, "protocols": [protocol]}), protocol)
    r = acct["result"]
    fig = ladder(r, scale="time", max_packets=10_000, path_stalls=acct["path_stalls"]).figure.to_dict()
    shaded: dict[str, float] = {}
    for s in fig["layout"]["shapes"]:
        if str(s.get("name", "")).startswith("stall:"):
            kind = s["name"].split(":", 1)[1]
            shaded[kind] = shaded.get(kind, 0.0) + (s["y1"] - s["y0"])
    stalls = {
        k: v for k, v in r["breakdown_ms"].items() if k in ("slow_start_idle", "delayed_ack_stall", "nagle_stall")
    }
    assert shaded == pytest.approx({k: v for k, v in stalls.items() if v > 0}, rel=1e-9)


def test_a_panel_over_its_work_limit_is_refused_before_it_runs(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel runs its protocol with every packet, walks its stalls and draws its ladder: more a unit than a
    prediction, so it has its own limit (max_explain_work_units). A 20-page HTTP/1.0 session of 54,720 units took 1.1 to
    1.7 s of CPU under max_work_units (bench/worst_case.py, 2026-11-28); it is refused in words, nothing run."""
    import latency_lab_web.teaching.views as views
    from latency_lab.scenario import limits

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the refusal is decided before anything runs")

    monkeypatch.setattr(views, "account", never)
    query = "protocol=http10&http.request_bytes=8833&page.object_count=227&page.object_size_bytes=205&session.pages=20"
    one = Scenario.model_validate(
        {
            "protocols": ["http10"],
            "http": {"request_bytes": 8833},
            "page": {"object_count": 227, "object_size_bytes": 205},
            "session": {"pages": 20},
        }
    )
    assert limits.MAX_EXPLAIN_WORK_UNITS < limits.work_units(one) <= limits.MAX_WORK_UNITS  # a prediction may run it
    status, html = get(client, query)
    assert status == 400
    assert "explaining this page is too much work" in html and "(max_explain_work_units)" in html


def test_events_that_added_no_time_to_a_stall_are_said_to_be_beside_it(client: FlaskClient) -> None:
    """On p98-satellite with HTTP/1.0 the counts say no delayed-ACK stall is on the critical path, while a
    delayed-ACK timer ran during some slow-start waits (its ACK not the one the window waited for: each wait is one
    round trip, 335 ms). Until 2026-11-28 the timer's sentence was printed among the wait's reasons as if it were
    one; it is now said to have added no time of its own. A stall's own reasons are events of its parts' kinds."""
    status, html = get(client, "preset=p98-satellite&protocol=http10")
    assert status == 200
    assert "<td>0</td>" in html.split("delayed-ACK stalls on the critical path", 1)[1][:200]
    section = _stall_sections(html)["slow_start_idle"]
    assert "delayed-ACK timer" in section
    for item in re.findall(r'<li class="stall".*?</li>', section, re.S):
        for why in re.findall(r'<p class="why">(.*?)</p>', item, re.S):
            assert "delayed-ACK timer" not in why, why
        for why in re.findall(r'<p class="why beside">(.*?)</p>', item, re.S):
            assert why.startswith("Meanwhile, adding no time of its own to this wait:")
