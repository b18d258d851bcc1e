"""103 Early Hints (issue 28) in the calculator's form and the API's query: ``page.object_early_hint`` (one flag per
object), ``page.origins.early_hint_preconnect`` (one per origin, as the origins' other fields) and
``http.early_hints_bytes``: read, refused beside the field (form) or as a problem document naming it (API), and an
address that reads back the same."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from latency_lab_web import create_app
from latency_lab_web.web.form import FIELD_BY_PARAM, read
from latency_lab_web.web.query import SCENARIO_PARAMS, scenario_document
from tests.latency_lab_web.web.address import api_refuses, query_predicts_as_body, reads_back_the_same

HINT, EARLY, SIZE = "page.object_early_hint", "page.origins.early_hint_preconnect", "http.early_hints_bytes"
DNS, AT = "page.origins.dns_ms", "page.object_origins"


def test_the_fields_are_parameters_with_labels_and_ranges() -> None:
    assert SCENARIO_PARAMS[HINT].kind == "array" and SCENARIO_PARAMS[HINT].item is not None
    assert SCENARIO_PARAMS[HINT].item.kind == "boolean"
    assert SCENARIO_PARAMS[EARLY].item is not None and SCENARIO_PARAMS[EARLY].item.kind == "boolean"
    assert (SCENARIO_PARAMS[SIZE].low, SCENARIO_PARAMS[SIZE].high) == (1, 65_536)
    assert FIELD_BY_PARAM[HINT].label == "Objects the 103 Early Hints names"
    assert FIELD_BY_PARAM[EARLY].label == "Origins the 103 Early Hints preconnects"
    assert FIELD_BY_PARAM[SIZE].section == "http" and FIELD_BY_PARAM[HINT].section == "page"


def test_the_query_gives_the_scenario() -> None:
    pairs = [(HINT, "true,false,true"), (DNS, "50"), (EARLY, "true"), (AT, "0,0,1"), (SIZE, "400")]
    doc, found = scenario_document(MultiDict(pairs), ())
    assert found == []
    assert doc == {
        "http": {"early_hints_bytes": 400},
        "page": {
            "object_early_hint": [True, False, True],
            "origins": [{"dns_ms": 50.0, "early_hint_preconnect": True}],
            "object_origins": [0, 0, 1],
        },
    }


@pytest.mark.parametrize(
    ("pairs", "field", "words"),
    [
        ([(HINT, "true,maybe")], HINT, "value 2 must be yes or no; you gave maybe"),
        ([(HINT, "true")], HINT, "3 objects, 1 values"),
        ([(SIZE, "0")], SIZE, "between 1 and 65,536 bytes"),
        ([(DNS, "5,5"), (EARLY, "yes")], EARLY, "different numbers of values"),
    ],
)
def test_a_bad_value_is_said_beside_its_field(pairs: list[tuple[str, str]], field: str, words: str) -> None:
    state = read(MultiDict(pairs))
    assert state.scenario is None
    assert list(state.errors) == [field]
    assert words in state.errors[field][0]


@pytest.mark.parametrize(
    "pairs",
    [
        [(HINT, "yes,no,yes"), ("protocols", "h2,h3")],
        [(DNS, "20,0"), (EARLY, "no,yes"), (AT, "1,2,0"), (SIZE, "1460")],
        [(HINT, "false,false,false")],
    ],
)
def test_the_address_reads_back_the_same(pairs: list[tuple[str, str]]) -> None:
    reads_back_the_same(pairs)


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def test_the_api_query_predicts_what_the_json_body_does_and_the_hint_helps_h2(client: FlaskClient) -> None:
    body = {
        "protocols": ["h2"],
        "network": {"rtt_ms": 100},
        "http": {"server_think_ms": 500},
        "page": {"object_bytes": [10_000], "object_early_hint": [True]},
    }
    q = "protocols=h2&network.rtt_ms=100&http.server_think_ms=500&page.object_bytes=10000"
    got = query_predicts_as_body(client, f"{q}&{HINT}=true", body)
    plain = client.get(f"/api/v1/predict?{q}")
    assert got.json["results"][0]["page_load_ms"] < plain.json["results"][0]["page_load_ms"] - 400


@pytest.mark.parametrize(
    ("query", "path", "words"),
    [
        (f"{SIZE}=0", SIZE, "1 to 65,536 bytes"),
        (f"{HINT}=true", HINT, "3 objects, 1 values"),
    ],
)
def test_the_api_refuses_with_a_problem_naming_the_field(
    client: FlaskClient, query: str, path: str, words: str
) -> None:
    api_refuses(client, query, path, words)


def test_the_calculators_origins_table_says_which_origins_the_103_preconnects(client: FlaskClient) -> None:
    r = client.get(f"/?protocols=h2&{DNS}=40,0&{EARLY}=true,false&{AT}=1,2,0&{HINT}=false,true,false")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "field-error" not in html
    table = html.split('class="parts-table origins-table"')[1].split("</table>")[0]
    assert "preconnected by the 103 Early Hints (h2, h3)" in table
    rows = table.split("<tbody>")[1].split("</tr>")
    # origin 1: not preconnected at the click, not coalesced, preconnected by the 103; origin 2: none of them
    assert "<td>no</td>\n        <td>no</td>\n        <td>yes</td>" in rows[1]
    assert "<td>no</td>\n        <td>no</td>\n        <td>no</td>" in rows[2]
