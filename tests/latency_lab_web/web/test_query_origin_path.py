"""An origin's own path (issue 28) in the calculator's form and the API's query: ``page.origins.rtt_ms`` and
``page.origins.bandwidth_bps``, one value per origin as the origins' other fields, an empty value for an origin on the
network's path: read, refused beside the field (form) or as a problem document naming it (API), an address that reads
back the same, and the results page saying which path each origin's connections cross."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from latency_lab.scenario.schema import MAX_DELAY_MS, MAX_ORIGINS
from latency_lab_web import create_app
from latency_lab_web.web.form import FIELD_BY_PARAM, read
from latency_lab_web.web.query import SCENARIO_PARAMS, scenario_document
from tests.latency_lab_web.web.address import api_refuses, query_predicts_as_body, reads_back_the_same

RTT, RATE = "page.origins.rtt_ms", "page.origins.bandwidth_bps"
CO, AT = "page.origins.coalesce_with_html", "page.object_origins"


def test_the_fields_are_parameters_with_labels_and_ranges() -> None:
    rtt, rate = SCENARIO_PARAMS[RTT], SCENARIO_PARAMS[RATE]
    assert rtt.kind == rate.kind == "array" and rtt.max_items == MAX_ORIGINS
    assert rtt.item is not None and (rtt.item.low, rtt.item.high, rtt.item.nullable) == (0, MAX_DELAY_MS, True)
    assert rate.item is not None and (rate.item.low, rate.item.high) == (1_000, 100e9) and rate.unit == "bit/s"
    assert FIELD_BY_PARAM[RTT].label == "Origins' own RTTs"
    assert FIELD_BY_PARAM[RATE].label == "Origins' own bottleneck rates"


def test_an_empty_value_is_an_origin_on_the_networks_path() -> None:
    doc, found = scenario_document(MultiDict([(RTT, "20,"), (RATE, ",1e6"), (AT, "1,2")]), ())
    assert found == []
    assert doc == {
        "page": {
            "origins": [{"rtt_ms": 20.0, "bandwidth_bps": None}, {"rtt_ms": None, "bandwidth_bps": 1e6}],
            "object_origins": [1, 2],
        }
    }


@pytest.mark.parametrize(
    ("pairs", "fields", "words"),
    [
        ([(RTT, "-5")], [RTT], "value 1 must be a number between 0 and 10,000 ms; you gave -5"),
        ([(RTT, "20,x")], [RTT], "value 2 must be a number between 0 and 10,000 ms; you gave x"),
        ([(RATE, "5")], [RATE], "between 1,000 and 100,000,000,000 bit/s"),
        ([(RTT, "20"), (CO, "true")], [CO, RTT], "cannot have coalesce_with_html true"),
        ([(RTT, "20"), ("network.loss_rate", "0.01")], ["network.loss_rate"], "cannot be above 0 with page.origins"),
        ([(RTT, "20,5"), (CO, "false")], [CO], "different numbers of values"),
    ],
)
def test_a_bad_value_is_said_beside_its_field(pairs: list[tuple[str, str]], fields: list[str], words: str) -> None:
    state = read(MultiDict(pairs))
    assert state.scenario is None
    assert sorted(state.errors) == sorted(fields)
    assert all(words in state.errors[field][0] for field in fields)


@pytest.mark.parametrize(
    "pairs",
    [
        [(RTT, "20,"), (AT, "1,2,0")],
        [(RTT, ",600"), (RATE, "1e8,"), (AT, "1,2,2"), ("protocols", "h2,h3")],
        [(RATE, "2000000")],
    ],
)
def test_the_address_reads_back_the_same(pairs: list[tuple[str, str]]) -> None:
    reads_back_the_same(pairs)


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def test_the_api_query_predicts_what_the_json_body_does_and_a_cdn_nearby_helps(client: FlaskClient) -> None:
    body = {
        "protocols": ["h2"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 1e9},
        "tcp": {"profile": "rfc5681", "initial_window_segments": 10, "nagle": False},
        "page": {"object_bytes": [10_000], "origins": [{"rtt_ms": 20}], "object_origins": [1]},
    }
    tcp = "tcp.profile=rfc5681&tcp.initial_window_segments=10&tcp.nagle=false"
    q = f"protocols=h2&network.rtt_ms=100&network.bandwidth_bps=1e9&{tcp}&page.object_bytes=10000&{AT}=1"
    got = query_predicts_as_body(client, f"{q}&{RTT}=20", body)
    shared = client.get(f"/api/v1/predict?{q}&page.origins.dns_ms=0")
    assert shared.status_code == 200
    # the image's handshake and request (its 10 KB within the initial window): 2 x 20 ms on its own path against
    # 2 x 100 ms on the network's (tests/latency_lab/protocols/test_origin_path.py's hand-computed case)
    diff = shared.json["results"][0]["page_load_ms"] - got.json["results"][0]["page_load_ms"]
    assert diff == pytest.approx(160.0, abs=1e-9)


@pytest.mark.parametrize(
    ("query", "path", "words"),
    [
        (f"{RTT}=-1", "page.origins[0].rtt_ms", "0 to 10,000 ms"),
        (f"{RTT}=20&{CO}=true", "page.origins[0]", "cannot have coalesce_with_html true"),
        (f"{RATE}=1e6&network.loss_rate=0.01", "", "network.loss_rate (0.01) cannot be above 0"),
    ],
)
def test_the_api_refuses_with_a_problem_naming_the_field(
    client: FlaskClient, query: str, path: str, words: str
) -> None:
    api_refuses(client, query, path, words)


def test_the_results_page_names_each_origins_path(client: FlaskClient) -> None:
    q = urlencode([("protocols", "h2"), (RTT, "20,"), (RATE, "5e6,"), (AT, "1,2,0")])
    r = client.get(f"/?{q}", follow_redirects=True)
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "its own: RTT 20 ms, 5 Mbit/s" in html
    assert html.count("the network&#39;s</td>") == 2  # the HTML's origin and origin 2
