"""HTML parsed as it streams (issue 28) in the calculator's form and the API's query: ``page.object_named_at_bytes``
(one offset per object): read, refused beside the field (form) or as a problem document naming it (API), and an
address that reads back the same."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from latency_lab_web import create_app
from latency_lab_web.web.form import FIELD_BY_PARAM, read
from latency_lab_web.web.query import SCENARIO_PARAMS, scenario_document
from tests.latency_lab_web.web.address import api_refuses, query_predicts_as_body, reads_back_the_same

AT = "page.object_named_at_bytes"


def test_the_field_is_a_parameter_with_a_label() -> None:
    assert SCENARIO_PARAMS[AT].kind == "array" and SCENARIO_PARAMS[AT].item is not None
    assert SCENARIO_PARAMS[AT].item.kind == "integer"
    assert FIELD_BY_PARAM[AT].label == "Where its parent names each object"
    assert FIELD_BY_PARAM[AT].section == "page"


def test_the_query_gives_the_scenario() -> None:
    doc, found = scenario_document(MultiDict([(AT, "1000,0,6000"), ("page.object_parents", "0,1,0")]), ())
    assert found == []
    assert doc == {"page": {"object_named_at_bytes": [1000, 0, 6000], "object_parents": [0, 1, 0]}}


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        ([(AT, "10,x")], "value 2 must be a whole number of bytes; you gave x"),
        ([(AT, "10")], "3 objects, 1 offsets"),
        ([(AT, "1000,0,6001")], "(6001) must be between 0 and 6000"),
    ],
)
def test_a_bad_value_is_said_beside_its_field(pairs: list[tuple[str, str]], words: str) -> None:
    state = read(MultiDict(pairs))
    assert state.scenario is None
    assert list(state.errors) == [AT]
    assert words in state.errors[AT][0]


def test_the_address_reads_back_the_same() -> None:
    reads_back_the_same([(AT, "1000,0,6000"), ("protocols", "h2,h3")])


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def test_the_api_query_predicts_what_the_json_body_does_and_streaming_helps_h2(client: FlaskClient) -> None:
    body = {
        "protocols": ["h2"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 1_000_000},
        "page": {"html_bytes": 100_000, "object_bytes": [10_000], "object_named_at_bytes": [1000]},
    }
    q = "protocols=h2&network.rtt_ms=100&network.bandwidth_bps=1000000&page.html_bytes=100000&page.object_bytes=10000"
    got = query_predicts_as_body(client, f"{q}&{AT}=1000", body)
    plain = client.get(f"/api/v1/predict?{q}")
    assert got.json["results"][0]["page_load_ms"] < plain.json["results"][0]["page_load_ms"] - 100


def test_the_api_refuses_with_a_problem_naming_the_field(client: FlaskClient) -> None:
    api_refuses(client, f"page.html_bytes=500&{AT}=0,0,501", AT, "must be between 0 and 500")


def test_the_calculator_shows_the_field(client: FlaskClient) -> None:
    r = client.get(f"/?protocols=h2&{AT}=10,20,30")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "field-error" not in html
    assert "Where its parent names each object" in html and "10,20,30" in html
