"""The query syntax of a page's origins (issue 28): ``page.origins.dns_ms``, ``page.origins.preconnected`` and
``page.origins.coalesce_with_html``, each a comma-separated list with one value per origin
(:mod:`latency_lab_web.web.query`), in the API's query and its OpenAPI document."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from pydantic import ValidationError
from werkzeug.datastructures import MultiDict

from latency_lab.scenario.errors import problems, validate_scenario
from latency_lab.scenario.schema import MAX_DNS_MS, MAX_ORIGINS
from latency_lab_web import create_app
from latency_lab_web.api.openapi import CROSS_FIELD_RULES, document
from latency_lab_web.web.form import query_text
from latency_lab_web.web.query import (
    LIST_LENGTHS,
    SCENARIO_PARAMS,
    object_list_pairs,
    scenario_document,
)
from tests.latency_lab_web.web.address import query_predicts_as_body

DNS, PRE, CO = "page.origins.dns_ms", "page.origins.preconnected", "page.origins.coalesce_with_html"
RTT, RATE = "page.origins.rtt_ms", "page.origins.bandwidth_bps"


def doc_of(**params: str) -> tuple[dict[str, Any], list[Any]]:
    return scenario_document(MultiDict([(k.replace("__", "."), v) for k, v in params.items()]), ())


def query(pairs: list[tuple[str, str]]) -> MultiDict[str, str]:
    return MultiDict(pairs)


def test_each_field_of_an_origin_is_one_list_parameter() -> None:
    origin_params = [p for p in SCENARIO_PARAMS if p.startswith("page.origins")]
    # the Origin model's fields, in its order; page.origins itself is none
    assert origin_params == [DNS, PRE, CO, "page.origins.early_hint_preconnect", RTT, RATE]
    dns = SCENARIO_PARAMS[DNS]
    assert dns.kind == "array" and dns.max_items == MAX_ORIGINS and dns.unit == "ms"
    assert dns.item is not None and (dns.item.low, dns.item.high) == (0, MAX_DNS_MS)
    assert SCENARIO_PARAMS[PRE].item is not None and SCENARIO_PARAMS[PRE].item.kind == "boolean"
    # between the dependencies and each object's origin, as in the schema
    names = list(SCENARIO_PARAMS)
    assert names.index("page.object_parents") < names.index(DNS) < names.index(CO) < names.index("page.object_origins")


def test_the_lists_are_zipped_into_origins_fields_left_out_default() -> None:
    doc, found = scenario_document(query([(DNS, "50,0"), (PRE, "false,true"), ("page.object_origins", "1,2,0")]), ())
    assert found == []
    assert doc == {
        "page": {
            "origins": [{"dns_ms": 50.0, "preconnected": False}, {"dns_ms": 0.0, "preconnected": True}],
            "object_origins": [1, 2, 0],
        }
    }
    s = validate_scenario(doc)
    assert [o.coalesce_with_html for o in s.page.origins] == [False, False]  # left out: the default
    assert s.page.origins_of() == (1, 2, 0)
    # one parameter alone gives the origins; an empty value gives none
    doc, _ = scenario_document(query([(CO, "true")]), ())
    assert doc == {"page": {"origins": [{"coalesce_with_html": True}]}}
    doc, _ = scenario_document(query([(DNS, "")]), ())
    assert doc == {"page": {"origins": []}}


def test_lists_of_different_lengths_are_refused_naming_both() -> None:
    doc, found = scenario_document(query([(DNS, "50,0,10"), (PRE, "true"), (CO, "false,false,true")]), ())
    assert "origins" not in doc.get("page", {})
    assert len(found) == 1
    p = found[0]
    assert p.type == LIST_LENGTHS and p.path == PRE
    assert p.text == (
        f"{PRE}: gives 1 value and {DNS} gives 3: each page.origins parameter gives one value per origin, in the "
        f"same order; allowed: 3 comma-separated values, as {DNS} gives"
    )


@pytest.mark.parametrize(
    ("pairs", "path", "allowed"),
    [
        ([(DNS, "50,-1")], "page.origins[1].dns_ms", "a number from 0 to 10,000 ms"),
        ([(DNS, "50,10001")], "page.origins[1].dns_ms", "a number from 0 to 10,000 ms"),
        ([(DNS, "fast")], "page.origins[0].dns_ms", "a number from 0 to 10,000 ms"),
        ([(PRE, "true,yes")], "page.origins[1].preconnected", "true or false"),
        ([(DNS, "__import__('os').getcwd()")], "page.origins[0].dns_ms", "a number from 0 to 10,000 ms"),
        ([(DNS, ",".join(["0"] * (MAX_ORIGINS + 1)))], "page.origins", "at most 50 items"),
    ],
)
def test_bad_values_are_refused_by_the_schema_naming_the_origin_and_range(
    pairs: list[tuple[str, str]], path: str, allowed: str
) -> None:
    """A value that does not read as its type stays text (never evaluated), so the scenario's own validation
    refuses it at the origin's path with the allowed range."""
    doc, found = scenario_document(query(pairs), ())
    assert found == []
    with pytest.raises(ValidationError) as exc:
        validate_scenario(doc)
    (p,) = problems(exc.value)
    assert p.path == path and allowed in (p.allowed or "")


ORIGINS = [
    [],
    [{}],
    [{"dns_ms": 12.5}, {"dns_ms": 0.0, "coalesce_with_html": True}],
    [{"preconnected": True}, {}, {"dns_ms": 10_000.0, "preconnected": True, "coalesce_with_html": True}],
    [{"dns_ms": 0.013}] * MAX_ORIGINS,
]


@pytest.mark.parametrize("origins", ORIGINS)
def test_origins_written_as_parameters_read_back_the_same(origins: list[dict[str, Any]]) -> None:
    """object_list_pairs writes the fields some origin sets (the first alone when none does: the number of origins);
    read back, they give the same origins."""
    pairs = [(name, query_text(values)) for name, values in object_list_pairs("page.origins", origins)]
    assert len(pairs) <= 4
    doc, found = scenario_document(query(pairs), ())
    assert found == []
    want = validate_scenario({"page": {"origins": origins}}).page.origins
    assert validate_scenario(doc).page.origins == want
    if not origins:
        assert pairs == []


def test_the_openapi_document_describes_the_origin_parameters() -> None:
    params = {p["name"]: p for p in document()["paths"]["/api/v1/predict"]["get"]["parameters"]}
    assert "page.origins" not in params
    dns = params[DNS]
    assert dns["style"] == "form" and dns["explode"] is False
    assert dns["schema"] == {
        "type": "array",
        "items": {"type": "number", "minimum": 0, "maximum": MAX_DNS_MS},
        "maxItems": MAX_ORIGINS,
    }
    assert params[PRE]["schema"]["items"] == {"type": "boolean"}
    assert "One value per origin" in dns["description"]
    assert LIST_LENGTHS in {r.get("type") for r in CROSS_FIELD_RULES}
    # the formulas endpoint reads the same query
    formulas = {p["name"] for p in document()["paths"]["/api/v1/formulas/{protocol}"]["get"]["parameters"]}
    assert {DNS, PRE, CO} <= formulas


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def test_the_api_query_predicts_what_the_json_body_does(client: FlaskClient) -> None:
    body = {
        "protocols": ["h2", "persistent_parallel"],
        "network": {"rtt_ms": 80},
        "page": {
            "object_bytes": [2000, 3000, 4000, 5000],
            "origins": [{"dns_ms": 40}, {"preconnected": True}],
            "object_origins": [1, 2, 2, 0],
        },
    }
    q = (
        "protocols=h2,persistent_parallel&network.rtt_ms=80&page.object_bytes=2000,3000,4000,5000"
        f"&{DNS}=40,0&{PRE}=false,true&page.object_origins=1,2,2,0"
    )
    got = query_predicts_as_body(client, q, body)
    flat = client.get("/api/v1/predict?" + q.split(f"&{DNS}")[0])
    # another origin's own lookup and handshake cost h2 time here (origin 1's 40 ms lookup is on the path)
    assert got.json["results"][0]["page_load_ms"] > flat.json["results"][0]["page_load_ms"] + 40


def test_the_api_refuses_lists_of_different_lengths_as_a_cross_field_rule(client: FlaskClient) -> None:
    r = client.get(f"/api/v1/predict?{DNS}=10,20&{CO}=true")
    assert r.status_code == 422
    (item,) = r.json["errors"]
    assert item["type"] == LIST_LENGTHS and item["path"] == CO
    r = client.get(f"/api/v1/predict?{DNS}=10,-20")
    assert r.status_code == 422 and r.json["errors"][0]["path"] == "page.origins[1].dns_ms"
    r = client.post(f"/api/v1/predict?{DNS}=10", json={})  # a POST's scenario is in its body
    assert r.status_code == 422 and "JSON body" in r.json["errors"][0]["message"]
