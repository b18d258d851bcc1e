"""The calculator page (latency_lab_web/calculator/views.py): form from the schema, presets, htmx fragment, canonical
addresses, inline errors (400, never 500), headers, compression and static caching."""

from __future__ import annotations

import gzip
import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from latency_lab import ALL_PROTOCOLS, PRESETS, SEED_PROTOCOLS, Scenario, predict, preset
from latency_lab.scenario.overlay import overlay
from latency_lab_web import SECURITY_HEADERS
from latency_lab_web.web.assets import IMMUTABLE
from latency_lab_web.web.form import DEFAULT_SWEEP, FIELDS, SWEEPS, must_be, read
from latency_lab_web.web.query import SCENARIO_PARAMS

HX = {"HX-Request": "true"}
ROOT = Path(__file__).resolve().parents[2]


def text(response) -> str:  # type: ignore[no-untyped-def]
    return response.get_data(as_text=True)


def field_block(page: str, param: str) -> str:
    """The HTML of one form field's block (label, input, help, error)."""
    dom = "f-" + param.replace(".", "-")
    start = page.index(f'id="{dom}-field"')
    return page[start : page.index("</div>", start)]  # a field's block holds no other <div>


# --- the form ----------------------------------------------------------------------------------------


def test_every_scenario_field_is_in_the_form_with_unit_range_and_description(client: FlaskClient) -> None:
    page = text(client.get("/"))
    assert {f.param for f in FIELDS} == set(SCENARIO_PARAMS)  # every field of the schema, nothing else
    for f in FIELDS:
        block = html.unescape(field_block(page, f.param))
        assert f'name="{f.param}"' in block, f.param
        assert f"Allowed: {f.allowed}." in block and f.allowed.startswith(must_be(f.spec)), f.param
        if f.spec.description:
            assert f.spec.description in block, f.param
        if f.spec.unit:
            assert f"({f.spec.unit})" in block, f.param
    assert 'aria-describedby="f-network-rtt_ms-help"' in page
    assert "Allowed: a number between 0 and 10,000 ms." in html.unescape(page)


def test_every_field_of_the_schema_has_a_description() -> None:
    missing = [f.param for f in FIELDS if not f.spec.description]
    assert missing == []


def test_protocol_checkboxes_and_sweep_choices(client: FlaskClient) -> None:
    page = text(client.get("/"))
    for p in ALL_PROTOCOLS:  # every protocol is offered; the seeds' five are checked by default
        box = re.search(rf'<input[^>]*type="checkbox" name="protocols" value="{p}"[^>]*>', page)
        assert box, p
        assert ("checked" in box.group(0)) == (p in SEED_PROTOCOLS), p
    for param in SWEEPS:
        assert f'<option value="{param}"' in page
    assert 'name="sweep"' in page


def test_every_preset_is_in_the_menu_with_its_citation(client: FlaskClient) -> None:
    page = html.unescape(text(client.get("/")))
    for name, p in PRESETS.items():
        assert f'<option value="{name}"' in page
        assert p.citation in page


def test_a_preset_applies_and_shows_its_source(client: FlaskClient) -> None:
    r = client.get("/?preset=n97-ppp")
    assert r.status_code == 200
    page = html.unescape(text(r))
    p = PRESETS["n97-ppp"]
    assert p.title in page and p.citation in page and p.assumptions in page
    assert '<option value="n97-ppp" selected>' in page
    # The table holds the preset's own prediction.
    expected = predict(preset("n97-ppp"))["results"]
    for res in expected:
        assert f"{res['page_load_ms']:,.1f}" in page
    # Only the preset's protocols are checked.
    for proto in ALL_PROTOCOLS:
        checked = bool(re.search(rf'value="{proto}"[^>]*checked', page))
        assert checked == (proto in preset("n97-ppp").protocols)
    # Blank fields show the preset's values as placeholders.
    assert 'placeholder="28800"' in field_block(text(r), "network.bandwidth_bps")


def test_results_table_marks_the_fastest_and_gives_ratios(client: FlaskClient) -> None:
    page = text(client.get("/")).replace("<wbr>", "")  # a long protocol name may break after its underscore
    results = predict(Scenario())["results"]
    fastest = min(results, key=lambda r: r["page_load_ms"])
    row = re.search(r'<tr class="fastest">(.*?)</tr>', page, re.S)
    assert row is not None and fastest["protocol"] in row.group(1) and "★ fastest" in row.group(1)
    http10 = next(r for r in results if r["protocol"] == "http10")
    assert f"{fastest['page_load_ms'] / http10['page_load_ms']:.2f}" in row.group(1)
    assert page.count('<tr class="fastest">') == 1


def test_with_loss_the_expected_time_leads_the_table_with_the_lossless_time_beside_it(client: FlaskClient) -> None:
    """With loss_rate > 0 the table's time is the expected one with loss, noted as an expected value, the lossless
    time beside it (issue 25); without loss, one time column."""
    plain = text(client.get("/"))
    assert "with loss (ms)" not in plain and "without loss (ms)" not in plain
    page = text(client.get("/?network.loss_rate=0.02"))
    table = re.search(r'<table class="compare results-table lossy">(.*?)</table>', page, re.S)
    assert table is not None
    assert re.search(
        r'<th scope="col" class="lead">with loss \(ms\)</th><th scope="col">without loss \(ms\)</th>', table.group(1)
    )
    assert "is an expected" in table.group(1) and "value, not a schedule" in table.group(1)
    results = predict(Scenario.model_validate({"network": {"loss_rate": 0.02}}))["results"]
    leading = re.findall(r'<td class="num total">([^<]+)</td>', table.group(1))
    lossless = re.findall(r'<td class="num lossless">([^<]+)</td>', table.group(1))
    assert len(leading) == len(lossless) == len(results)
    for lead, plain_ms, r in zip(leading, lossless, results, strict=True):
        e = r["expected_with_loss"]
        assert e["page_load_ms"] > r["page_load_ms"]
        assert float(lead.replace(",", "")) == pytest.approx(e["page_load_ms"], abs=0.06)
        assert float(plain_ms.replace(",", "")) == pytest.approx(r["page_load_ms"], abs=0.06)


def test_the_parts_table_folds_zero_parts_and_adds_loss_parts(client: FlaskClient) -> None:
    """Where the time goes: one column per protocol, parts zero for every protocol named in the caption instead of
    a row, loss's parts in a group of their own adding up to the expected time."""
    page = text(client.get("/?preset=p98-satellite&network.loss_rate=0.01"))
    table = re.search(r'<table class="parts-table">(.*?)</table>', page, re.S)
    assert table is not None
    body = html.unescape(re.sub(r"\s+", " ", table.group(1)))
    satellite = preset("p98-satellite")
    lossy = satellite.model_copy(update={"network": satellite.network.model_copy(update={"loss_rate": 0.01})})
    results = predict(lossy)["results"]
    zero = [k for k in results[0]["breakdown_ms"] if not any(r["breakdown_ms"][k] for r in results)]
    assert zero and "Zero for every protocol (not shown)" in body
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th>', body)
    for name in ("loss: handshake", "loss: timeouts", "loss: fast retransmits", "loss: slower sending"):
        assert name in rows
    assert len(rows) == len(results[0]["breakdown_ms"]) - len(zero) + 4
    assert "Loss's expected extra time" in body


def test_charts_have_data_tables_filenames_and_csv_links(client: FlaskClient) -> None:
    page = text(client.get("/?preset=p98-satellite"))
    for fig in ("fig-breakdown", "fig-sweep", *(f"fig-waterfall-{p}" for p in preset("p98-satellite").protocols)):
        m = re.search(rf'<script type="application/json" id="{fig}">(.*?)</script>', page, re.S)
        assert m is not None, fig
        figure = json.loads(m.group(1))
        assert figure["data"] and "layout" in figure
        assert f'data-figure="{fig}"' in page
    assert page.count("<summary>Data table") >= 1 + len(preset("p98-satellite").protocols)
    assert 'data-filename="latency-lab-p98-satellite-breakdown"' in page
    csv_link = re.search(r'href="(/api/v1/predict\?[^"]*format=csv)"', page)
    assert csv_link is not None
    r = client.get(html.unescape(csv_link.group(1)))
    assert r.status_code == 200 and r.mimetype == "text/csv"
    sweep_link = re.search(r'href="(/sweep\.csv[^"]*)"', page)
    assert sweep_link is not None
    r = client.get(html.unescape(sweep_link.group(1)))
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert text(r).splitlines()[0].startswith("network.rtt_ms,protocol,page_load_ms")


def test_sweep_follows_the_chosen_field_with_one_line_per_protocol(client: FlaskClient) -> None:
    for param, choice in SWEEPS.items():
        page = text(client.get(f"/?preset=p98-terrestrial&sweep={param}", follow_redirects=True))
        m = re.search(r'<script type="application/json" id="fig-sweep">(.*?)</script>', page, re.S)
        assert m is not None, param
        figure = json.loads(m.group(1))
        protocols = list(preset("p98-terrestrial").protocols)
        lossy = [f"{p}, expected with loss" for p in protocols] if param == "network.loss_rate" else []
        assert [t["name"] for t in figure["data"]] == protocols + lossy
        assert figure["layout"]["xaxis"]["type"] == ("log" if choice.log else "linear")
        assert len(figure["data"][0]["x"]) >= 2
        if lossy:  # sweeping the loss rate: dashed expected values that grow with it; the schedule stays flat
            expected = figure["data"][len(protocols)]
            assert expected["line"]["dash"] == "dash" and "expected" in figure["layout"]["yaxis"]["title"]["text"]
            assert expected["y"][-1] > expected["y"][0] == figure["data"][0]["y"][0]
            assert len(set(figure["data"][0]["y"])) == 1


def test_sweep_point_equals_a_direct_prediction(client: FlaskClient) -> None:
    page = text(client.get("/?preset=p98-terrestrial"))
    figure = json.loads(re.search(r'id="fig-sweep">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    x = figure["data"][0]["x"][2]
    doc = overlay(PRESETS["p98-terrestrial"].document, {"network": {"rtt_ms": x}})
    direct = predict(Scenario.model_validate(doc))["results"]
    assert figure["data"][0]["y"][2] == pytest.approx(direct[0]["page_load_ms"])


def test_teaching_panel_is_loaded_lazily_with_a_link(client: FlaskClient) -> None:
    page = text(client.get("/?preset=h96-lan"))
    m = re.search(r'<div id="explain" hx-get="([^"]+)" hx-trigger="load"', page)
    assert m is not None
    url = html.unescape(m.group(1))
    assert url.startswith("/explain?") and "protocol=" in url
    assert f'href="{m.group(1)}"' in page  # the plain link
    assert client.get(url).status_code == 200


# --- htmx fragment and full page ------------------------------------------------------------------------


def test_htmx_request_gets_the_fragment_and_the_address(client: FlaskClient) -> None:
    full = client.get("/?preset=h96-lan&network.rtt_ms=80")
    frag = client.get("/?preset=h96-lan&network.rtt_ms=80", headers=HX)
    assert full.status_code == frag.status_code == 200
    assert "<html" in text(full) and "<html" not in text(frag)
    assert text(frag).lstrip().startswith("{#") is False and '<div id="calc"' in text(frag)
    assert frag.headers["HX-Push-Url"] == "/?preset=h96-lan&network.rtt_ms=80"
    assert "HX-Request" in frag.headers["Vary"] and "HX-Request" in full.headers["Vary"]
    # A history restore (htmx asks for the whole page) gets the whole page.
    restore = client.get("/?preset=h96-lan", headers={**HX, "HX-History-Restore-Request": "true"})
    assert "<html" in text(restore)


def test_htmx_request_with_every_blank_field_is_answered_with_the_canonical_address(client: FlaskClient) -> None:
    args = [("preset", "n97-ppp"), ("protocols", "")]
    args += [("protocols", p) for p in preset("n97-ppp").protocols]
    args += [(f.param, "") for f in FIELDS if f.param != "protocols"]
    args += [("network.rtt_ms", "300"), ("sweep", DEFAULT_SWEEP)]
    args = [(k, v) for k, v in args if not (k == "network.rtt_ms" and v == "")]
    r = client.get("/", query_string=args, headers=HX)
    assert r.status_code == 200
    assert r.headers["HX-Push-Url"] == "/?preset=n97-ppp&network.rtt_ms=300"


# --- canonical addresses ------------------------------------------------------------------------------


def test_plain_submission_is_redirected_to_the_canonical_query(client: FlaskClient) -> None:
    args = [("preset", "h96-lan"), ("network.rtt_ms", "0.25"), ("tcp.mss_bytes", ""), ("page.html_bytes", "9000")]
    args += [("protocols", ""), *[("protocols", p) for p in preset("h96-lan").protocols]]
    r = client.get("/", query_string=args)
    assert r.status_code == 303
    assert r.headers["Location"] == "/?preset=h96-lan&page.html_bytes=9000"  # rtt_ms is the preset's own
    again = client.get(r.headers["Location"])
    assert again.status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "",
        "preset=n97-ppp",
        "preset=h96-lan&tcp.nagle=false&http.header_flush=false",
        "network.rtt_ms=150&protocols=http10,getall",
        "page.object_bytes=100,2000,30000",
        "preset=n97-ppp&page.object_count=5&page.object_size_bytes=1000",
        "preset=p98-satellite&tcp.profile=ns3&sweep=tcp.mss_bytes",
    ],
)
def test_canonical_query_round_trips(client: FlaskClient, query: str) -> None:
    state = read(MultiDict(parse_qsl(query, keep_blank_values=True)))
    assert state.scenario is not None, state.errors
    # Canonical is stable and gives the same scenario.
    again = read(MultiDict(parse_qsl(state.query, keep_blank_values=True)))
    assert again.query == state.query
    assert again.scenario is not None
    assert again.scenario.model_dump() == state.scenario.model_dump()
    r = client.get("/?" + state.query if state.query else "/")
    assert r.status_code == 200


def test_a_field_set_to_the_presets_value_leaves_the_address() -> None:
    state = read(MultiDict([("preset", "n97-ppp"), ("network.bandwidth_bps", "28800"), ("network.rtt_ms", "5")]))
    assert state.query == "preset=n97-ppp&network.rtt_ms=5"


def test_count_and_size_replace_a_presets_list_of_sizes() -> None:
    state = read(MultiDict([("preset", "n97-ppp"), ("page.object_count", "5"), ("page.object_size_bytes", "1000")]))
    assert state.scenario is not None
    assert state.scenario.page.sizes() == [1000] * 5


def test_copied_address_gives_the_same_numbers(client: FlaskClient) -> None:
    frag = client.get("/?preset=pm94-remote&network.rtt_ms=120&tcp.nagle=true", headers=HX)
    address = frag.headers["HX-Push-Url"]
    full = text(client.get(address))
    numbers = re.findall(r'<td class="num total">([^<]+)</td>', text(frag))
    assert numbers and numbers == re.findall(r'<td class="num total">([^<]+)</td>', full)


# --- invalid input ---------------------------------------------------------------------------------------


GARBAGE = ("fast", "-1", "1e999", "", "NaN", "true", "1,2", "99999999999999999999999", "<b>x</b>", "0x10")


@pytest.mark.parametrize("f", FIELDS, ids=lambda f: f.param)
def test_garbage_in_every_field_gives_400_with_a_message_beside_it(client: FlaskClient, f) -> None:  # type: ignore[no-untyped-def]
    for value in GARBAGE:
        for headers in ({}, HX):
            r = client.get("/", query_string={f.param: value}, headers=headers)
            assert r.status_code in (200, 303, 400), (f.param, value)
            if r.status_code != 400:
                continue
            page = text(r)
            assert "<b>x</b>" not in page  # escaped
            dom = "f-" + f.param.replace(".", "-")
            beside = re.search(rf'id="{dom}-error">([^<]+)<', page)
            assert beside is not None, (f.param, value)
            message = html.unescape(beside.group(1))
            # plain words (issue 15, defect 10): the field's label, what it takes, never pydantic's phrasing
            assert f.label in message, message
            assert "must" in message or "give" in message.lower(), message
            assert "Input should" not in message and "List should" not in message, message
            assert re.search(rf'id="{dom}"[^>]*aria-invalid="true"', page) or (
                f.param == "protocols" and 'aria-invalid="true"' in field_block(page, f.param)
            )


def test_out_of_range_value_names_field_and_range(client: FlaskClient) -> None:
    for headers in ({}, HX):
        r = client.get("/?network.rtt_ms=-5", headers=headers)
        assert r.status_code == 400
        message = html.unescape(re.search(r'id="f-network-rtt_ms-error">([^<]+)<', text(r)).group(1))  # type: ignore[union-attr]
        assert message == "RTT must be a number between 0 and 10,000 ms; you gave -5."
    frag = client.get("/?network.rtt_ms=-5", headers=HX)
    assert frag.headers["HX-Push-Url"] == "/?network.rtt_ms=-5"


def test_every_garbage_at_once_and_unknown_parameters_never_500(client: FlaskClient) -> None:
    args = {f.param: "garbage" for f in FIELDS}
    args.update({"preset": "nope", "sweep": "page.nothing", "bogus": "1"})
    r = client.get("/", query_string=args)
    assert r.status_code == 400
    r = client.get("/", query_string={f.param: "garbage" for f in FIELDS})
    assert r.status_code == 400
    page = text(r)
    assert page.count('aria-invalid="true"') >= len(FIELDS) - 1
    for q in ("preset=nope", "sweep=page.nothing", "bogus=1", "network.rtt_ms=1&network.rtt_ms=2"):
        r = client.get("/?" + q)
        assert r.status_code == 400, q
        assert "field-error" in text(r) or 'class="errors"' in text(r)


def test_cross_field_problem_is_shown_beside_the_fields(client: FlaskClient) -> None:
    r = client.get("/?page.object_bytes=1000,2000&page.object_count=3")
    assert r.status_code == 400
    assert 'id="f-page-object_bytes-error"' in text(r) and 'id="f-page-object_count-error"' in text(r)
    r = client.get("/?tcp.receive_window_bytes=1000&tcp.mss_bytes=1460")
    assert r.status_code == 400
    assert 'id="f-tcp-receive_window_bytes-error"' in text(r)


def test_no_protocol_checked_is_an_error_beside_the_checkboxes(client: FlaskClient) -> None:
    r = client.get("/", query_string=[("protocols", "")])
    assert r.status_code == 400
    assert 'id="f-protocols-error"' in text(r)


# --- headers, compression, caching ------------------------------------------------------------------------


def test_security_headers_on_page_fragment_and_errors(client: FlaskClient) -> None:
    for r in (client.get("/"), client.get("/", headers=HX), client.get("/?network.rtt_ms=x")):
        for name, value in SECURITY_HEADERS.items():
            assert r.headers[name] == value
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert SECURITY_HEADERS["X-Content-Type-Options"] == "nosniff"


def test_page_has_no_inline_scripts_or_styles(client: FlaskClient) -> None:
    page = text(client.get("/?preset=n97-ppp"))
    for m in re.finditer(r"<script([^>]*)>", page):
        attrs = m.group(1)
        assert 'type="application/json"' in attrs or "src=" in attrs, attrs
    assert (
        "<style" not in page
        and " style=" not in page
        and " on" not in re.sub(r'"[^"]*"', "", page).lower().replace(" one", "").split("<body", 1)[0]
    )


def test_responses_are_gzip_compressed(client: FlaskClient) -> None:
    r = client.get("/?preset=n97-ppp", headers={"Accept-Encoding": "gzip"})
    assert r.headers["Content-Encoding"] == "gzip"
    assert "<html" in gzip.decompress(r.data).decode()
    assert "Accept-Encoding" in r.headers["Vary"]
    with client.application.test_request_context():
        from flask import url_for

        plotly = url_for("static", filename="vendor/plotly-basic-4.1.1.min.js")
    r = client.get(plotly, headers={"Accept-Encoding": "gzip"})
    assert r.headers["Content-Encoding"] == "gzip"
    assert len(r.data) < 600_000 < len(gzip.decompress(r.data))


def test_static_files_are_versioned_and_cached(client: FlaskClient) -> None:
    page = text(client.get("/"))
    urls = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
    assert any("app.js" in u for u in urls) and any("style.css" in u for u in urls)
    for url in urls:
        url = html.unescape(url)
        assert "?v=" in url, url
        r = client.get(url)
        assert r.status_code == 200
        assert r.headers["Cache-Control"] == IMMUTABLE
    unversioned = client.get("/static/app.js")
    assert "immutable" not in unversioned.headers["Cache-Control"]
    old = client.get("/static/app.js?v=000000000000")
    assert "immutable" not in old.headers["Cache-Control"]


def test_plotly_global_rules_are_all_in_the_static_stylesheet() -> None:
    bundle = (ROOT / "latency_lab_web/static/vendor/plotly-basic-4.1.1.min.js").read_text()
    css = (ROOT / "latency_lab_web/static/vendor/plotly-basic-4.1.1.css").read_text()
    start = bundle.index('pM={"X,X div"')
    rules = bundle[start : bundle.index("};for(Ng in pM)", start)]
    selectors = re.findall(r'"([^"]+)":', rules)
    assert len(selectors) > 50
    for sel in selectors:
        css_sel = sel.replace("X", ".js-plotly-plot .plotly").replace("Y", ".plotly-notifier")
        assert css_sel + "{" in css, sel


def test_first_view_is_under_one_and_a_half_megabytes_compressed(client: FlaskClient) -> None:
    r = client.get("/?preset=n97-ppp", headers={"Accept-Encoding": "gzip"})
    total = len(r.data)
    page = gzip.decompress(r.data).decode()
    for url in set(re.findall(r'(?:src|href)="(/static/[^"]+)"', page)):
        total += len(client.get(html.unescape(url), headers={"Accept-Encoding": "gzip"}).data)
    assert total < 1_500_000


def test_sweep_csv_rejects_bad_query(client: FlaskClient) -> None:
    r = client.get("/sweep.csv?network.rtt_ms=-1")
    assert r.status_code == 400 and "network.rtt_ms" in text(r)


def test_canonical_links_have_no_blank_parameters(client: FlaskClient) -> None:
    r = client.get("/?preset=h96-lan", headers=HX)
    assert "=&" not in urlsplit(r.headers["HX-Push-Url"]).query + "&"


# --- one of object count and size given (issue 15, defect 4) ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "count", "size", "note"),
    [
        ("", 5, 2544, ""),  # the model's default page: three objects of 2,544 bytes
        ("h96-lan", 5, 2874, "mean size, 2,874 bytes"),  # 3,883 and 1,866 bytes
        ("n97-lan", 5, 3048, "mean size, 3,048 bytes"),  # the Microscape page's 42 images, 125 KB
        ("pm94-remote", 6, 2544, ""),  # given as count and size already
    ],
)
def test_object_count_alone_takes_its_size_from_the_page(
    client: FlaskClient, name: str, count: int, size: int, note: str
) -> None:
    q = (f"preset={name}&" if name else "") + f"page.object_count={count}"
    r = client.get("/?" + q, headers=HX)
    assert r.status_code == 200, text(r)[-500:]
    state = read(MultiDict(parse_qsl(q)))
    assert state.scenario is not None and state.scenario.page.sizes() == [size] * count
    notes = state.notes.get("page", [])
    assert (note in notes[0]) if note else notes == []
    if note:
        assert html.unescape(note) in html.unescape(text(r))
    assert r.headers["HX-Push-Url"] == "/?" + q  # the address keeps what was typed


def test_object_size_alone_keeps_the_pages_count(client: FlaskClient) -> None:
    for name, count in (("", 3), ("h96-lan", 2), ("n97-ppp", 42), ("m98-ss", 4)):
        q = (f"preset={name}&" if name else "") + "page.object_size_bytes=1000"
        state = read(MultiDict(parse_qsl(q)))
        assert state.scenario is not None and state.scenario.page.sizes() == [1000] * count, name
        assert client.get("/?" + q, headers=HX).status_code == 200


def test_overlay_fills_the_companion_only_when_missing() -> None:
    base = PRESETS["h96-lan"].document
    both = overlay(base, {"page": {"object_count": 2, "object_size_bytes": 10}})
    assert both["page"]["object_count"] == 2 and both["page"]["object_size_bytes"] == 10
    assert "object_bytes" not in both["page"]
    notes: list[str] = []
    none = overlay(base, {"page": {"object_count": 0}}, notes)
    assert none["page"]["object_count"] == 0 and notes == []  # no objects: their size says nothing
    alone = overlay({"page": {"html_bytes": 12925, "object_bytes": []}}, {"page": {"object_count": 5}}, notes)
    assert alone["page"] == {"html_bytes": 12925, "object_count": 5, "object_size_bytes": 2544}
    assert notes == ["The page had no embedded objects: each of them is 2,544 bytes (the default size)."]
    listed = overlay(PRESETS["pm94-remote"].document, {"page": {"object_bytes": [1, 2]}})
    assert listed["page"] == {"html_bytes": 1000, "object_bytes": [1, 2]}
