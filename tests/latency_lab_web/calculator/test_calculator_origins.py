"""A page's origins in the calculator (issue 28): the form's origins fields, a HAR's origins kept by the upload, and
the results' origins and their effect, through the Flask test client."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from flask.testing import FlaskClient

from latency_lab.scenario.har import load_har, to_scenario
from latency_lab.studies.exercises import textbook_scenario
from latency_lab_web import create_app
from latency_lab_web.calculator.views import flatten

DATA = Path(__file__).parents[2] / "data" / "har"
DNS, PRE, CO = "page.origins.dns_ms", "page.origins.preconnected", "page.origins.coalesce_with_html"

#: The comparison table's rows: protocol (with the fastest's badge and <wbr>s) and its time (ms, one decimal).
ROW = re.compile(r'<tr(?: class="fastest")?>\s*<th scope="row">(.*?)</th>\s*<td class="num total">([^<]*)</td>', re.S)
#: The origins' effect table's rows: protocol, this page, one origin, what the origins add.
EFFECT = re.compile(
    r'<tr><th scope="row">(\w+)</th><td class="num">([^<]*)</td><td class="num">([^<]*)</td>\s*'
    r'<td class="num">([^<]*)</td></tr>'
)


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def times(html: str) -> dict[str, str]:
    """The comparison table's time of each protocol, as shown."""
    return {re.sub(r"<[^>]+>|★ fastest", "", name).strip(): ms for name, ms in ROW.findall(html)}


def effect(html: str) -> dict[str, tuple[str, str, str]]:
    section = html[html.index('<section class="origins"') :]
    section = section[: section.index("</section>")]
    return {p: (a, b, c) for p, a, b, c in EFFECT.findall(section)}


def upload(client: FlaskClient, data: bytes) -> Any:
    return client.post(
        "/har", data={"har": (io.BytesIO(data), "page.har")}, content_type="multipart/form-data", follow_redirects=True
    )


@pytest.mark.parametrize("name", ["webpagetest", "firefox"])
def test_a_hars_origins_predict_in_the_calculator_what_the_api_predicts(client: FlaskClient, name: str) -> None:
    """The WebPageTest fixture has two origins beside the document's (own lookups and connections), Firefox's two
    coalesced on the document's h2 connection: the upload keeps them, and the calculator's times are the API's."""
    data = (DATA / f"{name}.har").read_bytes()
    built = to_scenario(load_har(data))
    origins = built.document["page"]["origins"]
    assert len(origins) == 2
    r = upload(client, data)
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "field-error" not in html
    query = dict(parse_qsl(urlsplit(r.request.url).query))
    assert query["page.object_origins"] == ",".join(map(str, built.document["page"]["object_origins"]))
    assert query[DNS] == ",".join(format(o["dns_ms"], "g") for o in origins)
    api = client.post("/api/v1/har", data=data, content_type="application/json")
    assert api.status_code == 200
    want = {res["protocol"]: f"{res['page_load_ms']:,.1f}" for res in api.json["results"]}
    assert times(html) == want
    # the calculator's own address, given to the API's predict, is the same scenario as the HAR's
    predicted = client.get("/api/v1/predict?" + urlsplit(r.request.url).query)
    assert predicted.status_code == 200
    assert predicted.json["scenario"]["page"]["origins"] == api.json["scenario"]["page"]["origins"]
    assert {x["protocol"]: x["page_load_ms"] for x in predicted.json["results"]} == {
        x["protocol"]: x["page_load_ms"] for x in api.json["results"]
    }
    # the results say where the objects come from and what the origins cost
    assert "The page's origins" in html
    assert set(effect(html)) == set(want)


def test_the_results_show_the_origins_effect_worked_by_hand(client: FlaskClient) -> None:
    """tests/latency_lab/protocols/test_origins.py's case (RTT 100 ms, textbook assumptions, two images from origin 1
    with a 50 ms lookup): h2 300 -> 450 ms, the lookup and a handshake round trip; preconnected, 300 ms again."""
    base = flatten(textbook_scenario("h2", 100.0, objects=2))
    r = client.get("/?" + urlencode([*base, (DNS, "50"), ("page.object_origins", "1,1")]), follow_redirects=True)
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "field-error" not in html
    assert times(html) == {"h2": "450.0"}
    assert effect(html) == {"h2": ("450.0", "300.0", "150.0")}
    table = html[html.index('class="parts-table origins-table"') :]
    table = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", table[: table.index("</table>")]))
    # its lookup, no hints, the network's path, both images, their bytes
    assert "origin 1 50.0 no no no the network&#39;s 2: 1, 2 2,000" in table
    r = client.get(
        "/?" + urlencode([*base, (DNS, "50"), (PRE, "yes"), ("page.object_origins", "1,1")]), follow_redirects=True
    )
    html = r.get_data(as_text=True)
    assert effect(html) == {"h2": ("300.0", "300.0", "0.0")}
    # a page of one origin has no origins section
    assert "The page's origins" not in client.get("/?" + urlencode(base)).get_data(as_text=True)


def test_the_form_has_labelled_origins_fields_and_says_what_is_wrong(client: FlaskClient) -> None:
    html = client.get(f"/?{DNS}=50,-5").get_data(as_text=True)
    for param in (DNS, PRE, CO, "page.object_origins"):
        dom = "f-" + param.replace(".", "-")
        assert f'<label for="{dom}">' in html
        assert re.search(rf'<textarea id="{dom}" name="{re.escape(param)}"[^>]*aria-describedby="{dom}-help', html)
        assert f'id="{dom}-help"' in html
    assert 'aria-invalid="true"' in html[html.index(f'id="f-{DNS.replace(".", "-")}"') :][:400]
    assert "value 2 must be a number between 0 and 10,000 ms; you gave -5." in html
    assert 'id="origins-help"' in html
    # the htmx partial (the form and results, swapped in place) has them too
    fragment = client.get(f"/?{DNS}=50&page.object_origins=1,0,1", headers={"HX-Request": "true"})
    text = fragment.get_data(as_text=True)
    assert fragment.status_code == 200 and text.lstrip().startswith('<div id="calc"')
    assert f'name="{DNS}"' in text and "The page's origins" in text


def test_the_results_links_carry_the_origins(client: FlaskClient) -> None:
    """The results' JSON link is the API's answer for the same scenario, origins and all."""
    r = client.get(f"/?protocols=h2&{DNS}=40&{CO}=true&page.object_origins=1,1,0")
    html = r.get_data(as_text=True)
    link = re.search(r'<a href="(/api/v1/predict\?[^"]+)">as JSON</a>', html)
    assert link is not None
    answer = client.get(link.group(1).replace("&amp;", "&")).json
    assert answer["scenario"]["page"]["origins"] == [
        {
            "dns_ms": 40.0,
            "preconnected": False,
            "coalesce_with_html": True,
            "early_hint_preconnect": False,
            "rtt_ms": None,
            "bandwidth_bps": None,
        }
    ]
    assert json.dumps(answer["results"][0]["page_load_ms"])
    assert times(html) == {"h2": f"{answer['results'][0]['page_load_ms']:,.1f}"}
