"""The JSON API: answers equal the model's, bad input is a 4xx problem document naming the field and its range.

The table :data:`BAD` lists bad inputs (negative, zero, NaN, infinity, huge, wrong types, strings,
missing nesting, extra fields, empty lists, over a limit, broken bodies, wrong media types): each
must get its 4xx as ``application/problem+json`` (RFC 9457) with an entry for the field's path and
what the field allows.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.test import TestResponse

from latency_lab import ALL_PROTOCOLS, PRESETS, SEED_PROTOCOLS, Scenario, predict, preset
from latency_lab.analysis.answer import listed
from latency_lab.analysis.sweep import SweepRequest, base_document, point, sweep, values
from latency_lab.api_schema import FormulaOutput, PredictOutput, PresetDetail, PresetList, ProblemDetails, SweepOutput
from latency_lab.scenario.limits import (
    MAX_FORMULA_WORK_UNITS,
    MAX_LISTED,
    MAX_PACKETS_WORK_UNITS,
    MAX_SWEEP_FIXED_UNITS,
    MAX_SWEEP_POINTS,
    MAX_WORK_UNITS,
    OBJECTS_PER_POINT_UNIT,
    RUN_FIXED_UNITS,
    SWEEP_POINT_UNITS,
    work_units,
)
from latency_lab.scenario.schema import MAX_OBJECTS, MAX_SEGMENTS
from latency_lab_web import SECURITY_HEADERS, create_app
from latency_lab_web.web.problems import KINDS, type_uri

TEN = {"page": {"object_count": 10, "object_size_bytes": 2544}}


def problem(response: TestResponse, status: int) -> dict[str, Any]:
    """The problem document of an error answer, checked for its shape."""
    assert response.status_code == status, response.get_data(as_text=True)[:2000]
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    ProblemDetails.model_validate(body)
    assert body["status"] == status
    assert body["type"] in {type_uri(k) for k in KINDS}
    assert body["title"] == KINDS[body["type"].rsplit("-", 0)[0].split("#problem-")[1]].title
    assert body["detail"]
    return dict(body)


def item(body: dict[str, Any], path: str) -> dict[str, Any]:
    """The entry of ``errors`` at ``path``."""
    found = [e for e in body["errors"] if e["path"] == path]
    assert found, f"no error at {path!r}: {[e['path'] for e in body['errors']]}"
    return dict(found[0])


# --- the table of bad inputs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Bad:
    """A bad request and what its answer must say."""

    id: str
    method: str
    url: str
    body: Any = None  # JSON-encoded unless raw is given
    raw: bytes | None = None
    content_type: str | None = "application/json"
    status: int = 422
    path: str | None = ""  # an errors[] entry at this path (None: no entry expected)
    allowed: str | None = None  # text in that entry's allowed
    suggestion: str | None = None
    limit: str | None = None  # the limit's name, for limit-exceeded
    headers: dict[str, str] = field(default_factory=dict)


P = "/api/v1/predict"
S = "/api/v1/sweep"
F = "/api/v1/formulas/persistent"

BAD: list[Bad] = [
    # negative
    Bad("negative rtt", "POST", P, {"network": {"rtt_ms": -5}}, path="network.rtt_ms", allowed="from 0 to 10,000 ms"),
    Bad("negative html", "POST", P, {"page": {"html_bytes": -1}}, path="page.html_bytes", allowed="bytes"),
    Bad("negative query", "GET", P + "?network.rtt_ms=-1", path="network.rtt_ms", allowed="from 0 to 10,000 ms"),
    Bad(
        "negative object size",
        "POST",
        P,
        {"page": {"object_bytes": [100, -3]}},
        path="page",
        allowed=None,
    ),
    # zero
    Bad("zero bandwidth", "POST", P, {"network": {"bandwidth_bps": 0}}, path="network.bandwidth_bps", allowed="1,000"),
    Bad(
        "zero window",
        "POST",
        P,
        {"tcp": {"initial_window_segments": 0}},
        path="tcp.initial_window_segments",
        allowed="from 1 to 100 segments",
    ),
    Bad(
        "zero connections",
        "GET",
        P + "?http.parallel_connections=0",
        path="http.parallel_connections",
        allowed="from 1 to 64",
    ),
    # NaN and infinity
    # NaN and Infinity are not JSON: a 400 naming the field (and what it allows)
    Bad(
        "NaN body",
        "POST",
        P,
        raw=b'{"network": {"rtt_ms": NaN}}',
        status=400,
        path="network.rtt_ms",
        allowed="from 0 to 10,000",
    ),
    Bad("NaN query", "GET", P + "?network.rtt_ms=nan", path="network.rtt_ms", allowed="from 0 to 10,000"),
    Bad("Infinity body", "POST", P, raw=b'{"network": {"rtt_ms": Infinity}}', status=400, path="network.rtt_ms"),
    Bad(
        "-Infinity body",
        "POST",
        P,
        raw=b'{"http": {"server_think_ms": -Infinity}}',
        status=400,
        path="http.server_think_ms",
    ),
    Bad("1e999 body", "POST", P, raw=b'{"network": {"bandwidth_bps": 1e999}}', path="network.bandwidth_bps"),
    Bad("1e999 query", "GET", P + "?network.bandwidth_bps=1e999", path="network.bandwidth_bps"),
    Bad(
        "NaN sweep value",
        "POST",
        S,
        raw=b'{"field": "network.rtt_ms", "values": [1, NaN]}',
        status=400,
        path="values[1]",
    ),
    Bad(
        "Infinity in a sweep's scenario",
        "POST",
        S,
        raw=b'{"field": "network.rtt_ms", "values": [1], "scenario": {"http": {"server_think_ms": Infinity}}}',
        status=400,
        path="scenario.http.server_think_ms",
        allowed="ms",
    ),
    # huge
    Bad("huge html", "POST", P, {"page": {"html_bytes": 10**30}}, path="page.html_bytes", allowed="100,000,000"),
    Bad("huge mss", "GET", P + "?tcp.mss_bytes=" + "9" * 50, path="tcp.mss_bytes", allowed="65,495"),
    # more digits than Python reads (json.loads raises ValueError): out of range, by name
    Bad(
        "huge integer digits",
        "POST",
        P,
        raw=b'{"page": {"html_bytes": ' + b"9" * 5000 + b"}}",
        path="page.html_bytes",
        allowed="from 0 to 100,000,000 bytes",
    ),
    Bad(
        "huge negative integer digits",
        "POST",
        P,
        raw=b'{"network": {"rtt_ms": -' + b"9" * 5000 + b"}}",
        path="network.rtt_ms",
        allowed="from 0 to 10,000 ms",
    ),
    Bad(
        "huge sweep value digits",
        "POST",
        S,
        raw=b'{"field": "network.rtt_ms", "values": [' + b"9" * 5000 + b"]}",
        path="values[0]",
    ),
    Bad(
        "huge integer digits with a preset",
        "POST",
        P + "?preset=h96-lan",
        raw=b'{"tcp": {"mss_bytes": ' + b"1" * 5000 + b"}}",
        path="tcp.mss_bytes",
        allowed="65,495",
    ),
    Bad("huge query digits", "GET", P + "?page.html_bytes=" + "9" * 4050, path="page.html_bytes"),
    Bad("huge rtt", "POST", P, {"network": {"rtt_ms": 1e300}}, path="network.rtt_ms"),
    # wrong types
    Bad("bool for number", "POST", P, {"network": {"rtt_ms": True}}, path="network.rtt_ms", allowed="a number"),
    Bad("float for integer", "POST", P, {"tcp": {"mss_bytes": 1460.5}}, path="tcp.mss_bytes", allowed="whole number"),
    Bad("number for bool", "POST", P, {"tcp": {"nagle": 1}}, path="tcp.nagle", allowed="true, false"),
    Bad("string for list", "POST", P, {"protocols": "http10"}, path="protocols", allowed="an array"),
    Bad("object for list", "POST", P, {"page": {"object_bytes": {"a": 1}}}, path="page.object_bytes"),
    Bad("list for object", "POST", P, {"network": [70]}, path="network", allowed="an object with the fields"),
    Bad("null section", "POST", P, {"tcp": None}, path="tcp", allowed="an object with the fields"),
    Bad("body is an array", "POST", P, [{"network": {}}], path=""),
    Bad("body is a number", "POST", P, 42, path=""),
    Bad("bad bool query", "GET", P + "?tcp.nagle=yes", path="tcp.nagle", allowed="true, false"),
    Bad("float for integer query", "GET", P + "?tcp.mss_bytes=1460.5", path="tcp.mss_bytes"),
    Bad("bad list item query", "GET", P + "?page.object_bytes=100,abc", path="page.object_bytes[1]"),
    Bad("wrong sweep value type", "POST", S, {"field": "network.rtt_ms", "values": ["fast"]}, path="values[0]"),
    # a range whose steps overflow to infinity on a whole-number field (was a 500: round(inf))
    Bad(
        "huge sweep range on an integer field",
        "POST",
        S,
        {"field": "session.pages", "start": 1, "stop": 1.5e308, "steps": 106},
        path="steps",
        allowed="whole number",
    ),
    Bad("unknown field: a leg object as a query parameter", "GET", P + "?proxy.client_leg=1", path="proxy.client_leg"),
    Bad(
        "wrong sweep steps type",
        "POST",
        S,
        {"field": "network.rtt_ms", "start": 1, "stop": 2, "steps": 2.5},
        path="steps",
    ),
    # strings
    Bad("numeric string", "POST", P, {"network": {"rtt_ms": "70"}}, path="network.rtt_ms", allowed="a number"),
    Bad("word for number", "GET", P + "?network.rtt_ms=fast", path="network.rtt_ms", allowed="from 0 to 10,000"),
    Bad("unknown profile", "POST", P, {"tcp": {"profile": "solaris"}}, path="tcp.profile", allowed="'bsd'"),
    Bad("unknown protocol", "GET", P + "?protocols=http10,http3", path="protocols[1]", allowed="'getall'"),
    Bad("unknown format", "GET", P + "?format=xml", path="format", allowed="'csv'"),
    Bad("bad packets flag", "GET", P + "?packets=maybe", path="packets", allowed="true or false"),
    Bad("unknown preset param", "GET", P + "?preset=h69-lan", path="preset", suggestion="h96-lan"),
    Bad(
        "unknown sweep field",
        "POST",
        S,
        {"field": "network.rtt", "values": [1]},
        path="field",
        allowed="network.rtt_ms",
    ),
    Bad("string body", "POST", P, raw=b'"network"', path=""),
    # missing nesting
    Bad(
        "missing nesting: field without section",
        "POST",
        P,
        {"rtt_ms": 70},
        path="rtt_ms",
        allowed="network",
        suggestion=None,
    ),
    Bad("field without section (query)", "GET", P + "?rtt_ms=70", path="rtt_ms", suggestion="network.rtt_ms"),
    Bad(
        "sweep scenario not nested",
        "POST",
        S,
        {"field": "network.rtt_ms", "values": [1], "network": {}},
        path="network",
    ),
    Bad("sweep field without section", "POST", S, {"field": "rtt_ms", "values": [1]}, path="field"),
    # extra fields
    Bad("unknown field", "POST", P, {"network": {"rtt": 70}}, path="network.rtt", suggestion="rtt_ms"),
    Bad("unknown top field", "POST", P, {"protocol": ["http10"]}, path="protocol", suggestion="protocols"),
    Bad("unknown query param", "GET", P + "?network.rtt=70", path="network.rtt", suggestion="network.rtt_ms"),
    Bad("scenario field in POST query", "POST", P + "?network.rtt_ms=70", {}, path="network.rtt_ms"),
    Bad("repeated query param", "GET", P + "?network.rtt_ms=1&network.rtt_ms=2", path="network.rtt_ms"),
    Bad(
        "unknown sweep field name",
        "POST",
        S,
        {"field": "network.rtt_ms", "value": [1]},
        path="value",
        suggestion="values",
    ),
    Bad(
        "unknown field in sweep scenario",
        "POST",
        S,
        {"field": "network.rtt_ms", "values": [1], "scenario": {"tcp": {"mss_byte": 1}}},
        path="scenario.tcp.mss_byte",
        suggestion="mss_bytes",
    ),
    Bad("unknown formula field", "POST", F, {"http": {"think_ms": 1}}, path="http.think_ms"),
    Bad("presets take no query", "GET", "/api/v1/presets?x=1", path="x"),
    # empty lists
    Bad("no protocols", "POST", P, {"protocols": []}, path="protocols", allowed="1 to 8 items"),
    Bad("no protocols (query)", "GET", P + "?protocols=", path="protocols", allowed="1 to 8 items"),
    Bad("no sweep values", "POST", S, {"field": "network.rtt_ms", "values": []}, path="values", allowed="1 to 1,000"),
    Bad("no sweep protocols", "POST", S, {"field": "network.rtt_ms", "values": [1], "protocols": []}, path="protocols"),
    # sweep semantics
    Bad("values and steps", "POST", S, {"field": "network.rtt_ms", "values": [1], "steps": 3}, path="values"),
    Bad("neither values nor steps", "POST", S, {"field": "network.rtt_ms"}, path="values"),
    Bad("start without stop", "POST", S, {"field": "network.rtt_ms", "start": 1, "steps": 3}, path="stop"),
    Bad("one step", "POST", S, {"field": "network.rtt_ms", "start": 1, "stop": 2, "steps": 1}, path="steps"),
    Bad(
        "log from zero",
        "POST",
        S,
        {"field": "network.rtt_ms", "start": 0, "stop": 100, "steps": 3, "spacing": "log"},
        path="start",
    ),
    Bad(
        "range of a boolean",
        "POST",
        S,
        {"field": "tcp.nagle", "start": 0, "stop": 1, "steps": 2},
        path="start",
        allowed="true",
    ),
    Bad("sweep value out of range", "POST", S, {"field": "network.rtt_ms", "values": [10, -1]}, path="values[1]"),
    Bad(
        "sweep stop out of range",
        "POST",
        S,
        {"field": "tcp.mss_bytes", "start": 536, "stop": 10**6, "steps": 3},
        path="stop",
    ),
    Bad("repeated protocols", "POST", P, {"protocols": ["http10", "http10"]}, path=""),
    # over a limit
    Bad(
        "too many objects",
        "POST",
        P,
        {"page": {"object_count": MAX_OBJECTS + 1, "object_size_bytes": 1}},
        path="page.object_count",
    ),
    Bad(
        "too many object sizes",
        "POST",
        P,
        {"page": {"object_bytes": [1] * (MAX_OBJECTS + 1)}},
        path="page.object_bytes",
    ),
    Bad(
        "too many segments",
        "POST",
        P,
        {"page": {"html_bytes": 1460 * (MAX_SEGMENTS + 1)}},
        path="",
    ),
    Bad(
        "over the packets limit",
        "GET",
        P + "?packets=true&page.object_count=600&page.object_size_bytes=10000",
        path="",
        limit="max_packets_work_units",
    ),
    Bad(
        "over the formula limit",
        "GET",
        F + "?page.object_count=900&page.object_size_bytes=3000",
        path="",
        limit="max_formula_work_units",
    ),
    Bad(
        "too many sweep values",
        "POST",
        S,
        {"field": "network.rtt_ms", "values": [1.0] * (MAX_SWEEP_POINTS + 1)},
        path="values",
        allowed="1 to 1,000 items",
    ),
    Bad(
        "too many sweep steps",
        "POST",
        S,
        {"field": "network.rtt_ms", "start": 1, "stop": 2, "steps": MAX_SWEEP_POINTS + 1},
        path="steps",
        allowed="1,000",
    ),
    Bad(
        "sweep over the work limit",
        "POST",
        S,
        {"field": "network.rtt_ms", "start": 1, "stop": 500, "steps": 400, "scenario": TEN},
        path="steps",
        limit="max_work_units",
    ),
    Bad(
        "body too large",
        "POST",
        P,
        raw=b'{"page": {"object_bytes": [' + b"1," * 40000 + b"1]}}",
        status=413,
        limit="max_body_bytes",
    ),
    Bad(
        "query too long",
        "GET",
        P + "?page.object_bytes=" + ",".join(["1000"] * 1000),
        status=414,
        limit="max_query_bytes",
    ),
    # broken bodies and media types
    Bad("invalid JSON", "POST", P, raw=b'{"network": {"rtt_ms": 70,}}', status=400),
    Bad("truncated JSON", "POST", P, raw=b'{"network": ', status=400),
    Bad("empty body", "POST", P, raw=b"", status=400),
    Bad("not UTF-8", "POST", P, raw=b'{"tcp": {"profile": "\xff"}}', status=400),
    # nested deeper than max_json_depth: refused from the text, before parsing, merging, validating or caching
    Bad("deeply nested", "POST", P, raw=b"[" * 30000 + b"]" * 30000, path="[0]" * 32, limit="max_json_depth"),
    Bad(
        "sweep values nested 300 deep",
        "POST",
        S,
        raw=b'{"field": "network.rtt_ms", "values": ' + b"[" * 300 + b"1" + b"]" * 300 + b"}",
        path="values" + "[0]" * 31,
        limit="max_json_depth",
    ),
    Bad(
        "field nested 500 deep over a preset",
        "POST",
        P + "?preset=h96-lan",
        raw=b'{"network": ' + b'{"a": ' * 500 + b"1" + b"}" * 500 + b"}",
        path="network" + ".a" * 31,
        limit="max_json_depth",
    ),
    Bad(
        "formula field nested 33 deep",
        "POST",
        F,
        raw=b'{"page": {"object_bytes": ' + b"[" * 31 + b"]" * 31 + b"}}",
        path="page.object_bytes" + "[0]" * 30,
        limit="max_json_depth",
    ),
    # repeated keys: the model would see only one of them
    Bad(
        "duplicate key",
        "POST",
        P,
        raw=b'{"network": {"rtt_ms": 1, "rtt_ms": 2}}',
        status=400,
        path="network.rtt_ms",
    ),
    Bad(
        "duplicate section with a preset",
        "POST",
        P + "?preset=h96-lan",
        raw=b'{"tcp": {"nagle": true}, "tcp": {"nagle": false}}',
        status=400,
        path="tcp",
    ),
    Bad(
        "duplicate key in a sweep",
        "POST",
        S,
        raw=b'{"field": "network.rtt_ms", "values": [1], "field": "tcp.nagle"}',
        status=400,
        path="field",
    ),
    Bad("text/plain", "POST", P, {}, content_type="text/plain", status=415, path="Content-Type"),
    Bad(
        "form body",
        "POST",
        P,
        raw=b"a=1",
        content_type="application/x-www-form-urlencoded",
        status=415,
        path="Content-Type",
    ),
    Bad("no content type", "POST", P, raw=b"{}", content_type=None, status=415, path="Content-Type"),
    Bad("latin-1", "POST", P, {}, content_type="application/json; charset=latin-1", status=415, path="Content-Type"),
    Bad(
        "sweep as text",
        "POST",
        S,
        {"field": "network.rtt_ms", "values": [1]},
        content_type="text/csv",
        status=415,
        path="Content-Type",
    ),
    # not found, wrong method
    Bad("unknown preset", "GET", "/api/v1/presets/h96", status=404, path="name", suggestion="h96-lan"),
    Bad("unknown formula protocol", "GET", "/api/v1/formulas/http2", status=404, path="protocol"),
    Bad("unknown endpoint", "GET", "/api/v1/nothing", status=404, path=None),
    Bad("unversioned", "GET", "/api/predict", status=404, path=None),
    Bad("sweep by GET", "GET", S, status=405, path=None),
    Bad("predict by DELETE", "DELETE", P, status=405, path=None),
]


@pytest.mark.parametrize("bad", BAD, ids=[b.id for b in BAD])
def test_bad_input_is_a_problem(client: FlaskClient, bad: Bad) -> None:
    data = bad.raw if bad.raw is not None else (json.dumps(bad.body).encode() if bad.body is not None else None)
    headers = {"Content-Type": bad.content_type} if bad.content_type and data is not None else {}
    response = client.open(bad.url, method=bad.method, data=data, headers={**headers, **bad.headers})
    body = problem(response, bad.status)
    assert body["instance"] == bad.url.split("?")[0]
    if bad.path is not None:
        entry = item(body, bad.path)
        assert entry["message"]
        assert entry["text"]
        if bad.allowed is not None:
            assert entry["allowed"] is not None and bad.allowed in entry["allowed"], entry
        if bad.suggestion is not None:
            assert entry["suggestion"] == bad.suggestion, entry
    if bad.limit is not None:
        assert body["limit"]["name"] == bad.limit
        assert body["limit"]["actual"] > body["limit"]["maximum"]
        assert bad.limit in body["detail"] or bad.status in (413,)
    if bad.status == 405:
        assert "Allow" in response.headers


def test_table_covers_every_kind_of_bad_input() -> None:
    ids = " ".join(b.id for b in BAD).lower()
    for kind in ("negative", "zero", "nan", "infinity", "huge", "string", "nesting", "unknown field", "no ", "over"):
        assert kind in ids, kind
    assert {b.status for b in BAD} >= {400, 404, 405, 413, 414, 415, 422}


def test_work_limit_of_a_large_page(client: FlaskClient) -> None:
    """A five-protocol prediction of a page at the segment cap with a thousand objects is over the work limit."""
    doc = {"page": {"object_count": 999, "object_size_bytes": 13800}}
    assert work_units(Scenario.model_validate(doc)) > MAX_WORK_UNITS
    body = problem(client.post(P, json=doc), 422)
    assert body["limit"]["name"] == "max_work_units"
    assert "max_work_units" in item(body, "")["message"]
    assert client.post(P, json={**doc, "protocols": ["http10", "getall"]}).status_code == 200


def test_work_limit_of_a_session(client: FlaskClient) -> None:
    """A prediction within the page's segment cap can still be over the work limit when a session loads it often."""
    if "session" not in Scenario.model_fields:
        pytest.skip("the scenario has no sessions")
    doc = {"session": {"pages": 13}, "page": {"object_count": 100, "object_size_bytes": 10000}}
    assert work_units(Scenario.model_validate(doc)) > MAX_WORK_UNITS
    body = problem(client.post(P, json=doc), 422)
    assert body["limit"]["name"] == "max_work_units"
    assert body["type"] == type_uri("limit-exceeded")


def test_errors_list_every_problem(client: FlaskClient) -> None:
    body = problem(
        client.post(P, json={"network": {"rtt_ms": -1, "bandwidth_bps": "fast"}, "tcp": {"nagle": "no"}}), 422
    )
    assert {e["path"] for e in body["errors"]} == {"network.rtt_ms", "network.bandwidth_bps", "tcp.nagle"}
    assert body["detail"].startswith("3 problems: ")
    assert item(body, "network.rtt_ms")["value"] == -1


def test_limits_are_the_documented_ones(client: FlaskClient) -> None:
    """A request just at a limit is accepted; one past it is refused naming the limit."""
    at = {  # 5,990 units: its segments, in one window (no window rounds: limits.window_rounds)
        "protocols": ["getall"],
        "page": {"html_bytes": 1460 * 5990 - 200, "object_bytes": []},
        "tcp": {"receive_window_bytes": 16_000_000},
    }
    assert work_units(Scenario.model_validate(at)) <= MAX_PACKETS_WORK_UNITS
    assert client.post(P, json=at).status_code == 200
    body = problem(client.post(P + "?packets=true", json={**at, "protocols": ["getall", "pipelined"]}), 422)
    assert body["limit"] == {"name": "max_packets_work_units", "maximum": MAX_PACKETS_WORK_UNITS, "actual": 5990 + 5991}
    assert MAX_FORMULA_WORK_UNITS < MAX_PACKETS_WORK_UNITS < MAX_WORK_UNITS


# --- answers ------------------------------------------------------------------------------------------


def test_get_and_post_equal_the_model(client: FlaskClient) -> None:
    doc = {"network": {"rtt_ms": 100.0}, "tcp": {"nagle": False}, **TEN, "protocols": ["http10", "pipelined"]}
    expected = listed(predict(Scenario.model_validate(doc)))
    posted = client.post(P, json=doc)
    query = "network.rtt_ms=100&tcp.nagle=false&page.object_count=10&page.object_size_bytes=2544"
    got = client.get(f"{P}?{query}&protocols=http10,pipelined")
    assert posted.status_code == got.status_code == 200
    assert posted.json == got.json == json.loads(json.dumps(expected))
    PredictOutput.model_validate(posted.json)
    assert posted.mimetype == "application/json"


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_predicts_to_the_schema(client: FlaskClient, name: str) -> None:
    response = client.get(f"{P}?preset={name}")
    assert response.status_code == 200
    PredictOutput.model_validate(response.json)
    assert response.json == json.loads(json.dumps(listed(predict(preset(name)))))


def test_preset_merges_under_given_fields(client: FlaskClient) -> None:
    response = client.post(f"{P}?preset=h96-lan", json={"network": {"rtt_ms": 5}})
    assert response.status_code == 200
    expected = dict(PRESETS["h96-lan"].document)
    expected["network"] = {**expected.get("network", {}), "rtt_ms": 5}
    assert response.json == json.loads(json.dumps(listed(predict(Scenario.model_validate(expected)))))


def test_a_long_answer_lists_at_most_max_listed_events_and_path_stalls_with_their_totals(client: FlaskClient) -> None:
    """One segment a round over a 1.5 MB style sheet: about 2,000 events and 1,000 path stalls a protocol. The answer
    lists the first max_listed of each, says how many there are in all, and keeps the times and counts of all of them
    (issue 26: a 9.67 MB style sheet of 8 protocols answered 56.7 MB of JSON, 1.6 s of CPU to write)."""
    doc = {"protocols": ["persistent", "h2"], "page": {"css_bytes": 1_500_000}, "tcp": {"receive_window_bytes": 1994}}
    body = client.post(P, json=doc).get_json()
    PredictOutput.model_validate(body)
    full = predict(Scenario.model_validate(doc))
    for r, f in zip(body["results"], full["results"], strict=True):
        assert len(r["events"]) == len(r["path_stalls"]) == MAX_LISTED
        assert r["events_total"] == len(f["events"]) > MAX_LISTED
        assert r["path_stalls_total"] == len(f["path_stalls"]) > MAX_LISTED
        assert r["events"] == json.loads(json.dumps(f["events"][:MAX_LISTED]))
        assert (r["page_load_ms"], r["breakdown_ms"], r["counts"]) == (
            f["page_load_ms"],
            f["breakdown_ms"],
            f["counts"],
        )
    assert (
        "events_total"
        in client.get("/api/openapi.json").get_json()["components"]["schemas"]["ProtocolResult"]["properties"]
    )


def test_empty_list_and_packets(client: FlaskClient) -> None:
    response = client.get(f"{P}?page.object_bytes=&packets=true&protocols=getall")
    assert response.status_code == 200
    (result,) = response.json["results"]
    assert [o["name"] for o in result["objects"]] == ["html"]
    assert result["packets"] and result["counts"]["packets"] == len(result["packets"])
    PredictOutput.model_validate(response.json)


def _csv(response: TestResponse) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def test_predict_csv(client: FlaskClient) -> None:
    by_param = _csv(client.get(f"{P}?format=csv&network.rtt_ms=20"))
    by_accept = _csv(client.get(f"{P}?network.rtt_ms=20", headers={"Accept": "text/csv"}))
    assert by_param == by_accept
    expected = predict(Scenario.model_validate({"network": {"rtt_ms": 20}}))
    assert [r["protocol"] for r in by_param] == list(SEED_PROTOCOLS)
    for row, result in zip(by_param, expected["results"], strict=True):
        assert float(row["page_load_ms"]) == pytest.approx(result["page_load_ms"])
        assert int(row["counts.round_trips"]) == result["counts"]["round_trips"]
    # JSON unless CSV is preferred
    assert client.get(P, headers={"Accept": "application/json, text/csv;q=0.5"}).mimetype == "application/json"
    assert client.get(P, headers={"Accept": "*/*"}).mimetype == "application/json"
    problem(client.get(f"{P}?format=csv&packets=true"), 422)


def test_loss_rate_gives_the_expected_value_block(client: FlaskClient) -> None:
    """network.loss_rate: each result's expected_with_loss, in the JSON (schema-checked) and the CSV."""
    query = f"{P}?protocols=h2,h3&network.loss_rate=0.02&page.object_count=20&page.object_size_bytes=10000"
    body = client.get(query).get_json()
    PredictOutput.model_validate(body)
    expected = listed(
        predict(
            Scenario.model_validate(
                {
                    "protocols": ["h2", "h3"],
                    "network": {"loss_rate": 0.02},
                    "page": {"object_count": 20, "object_size_bytes": 10000},
                }
            )
        )
    )
    assert body["results"] == expected["results"]
    h2, h3 = (r["expected_with_loss"] for r in body["results"])
    assert 0 < h3["extra_ms"] <= h2["extra_ms"] and h2["head_of_line_ms"] > 0 == h3["head_of_line_ms"]
    rows = _csv(client.get(query + "&format=csv"))
    for row, r in zip(rows, body["results"], strict=True):
        assert float(row["expected_with_loss.page_load_ms"]) == pytest.approx(r["expected_with_loss"]["page_load_ms"])
    posted = client.post(P, json={"network": {"loss_rate": 0.02}}).get_json()
    assert all(r["expected_with_loss"]["loss_rate"] == 0.02 for r in posted["results"])


@pytest.mark.parametrize("bad", ["0.5", "-0.01", "one"])
def test_a_bad_loss_rate_is_a_problem_naming_the_field_and_range(client: FlaskClient, bad: str) -> None:
    for response in (
        client.get(f"{P}?network.loss_rate={bad}"),
        client.post(P, json={"network": {"loss_rate": float(bad) if bad != "one" else bad}}),
    ):
        entry = item(problem(response, response.status_code), "network.loss_rate")
        assert 400 <= response.status_code < 500
        assert entry["allowed"] == "a number from 0 to 0.2 per packet"


def test_answers_are_cached_on_the_validated_scenario(app: Flask) -> None:
    client = app.test_client()
    first = client.get(f"{P}?network.rtt_ms=33")
    same = client.post(P, json={"network": {"rtt_ms": 33.0}, "tcp": {"profile": "bsd"}})  # validates the same
    other = client.get(f"{P}?network.rtt_ms=34")
    assert first.headers["Cache-Status"].startswith("latency-lab; fwd=miss")
    assert same.headers["Cache-Status"] == "latency-lab; hit"
    assert other.headers["Cache-Status"].startswith("latency-lab; fwd=miss")
    assert first.data == same.data != other.data
    assert client.get(f"{P}?network.rtt_ms=33&format=csv").headers["Cache-Status"].startswith("latency-lab; fwd=miss")


def test_cache_can_be_turned_off() -> None:
    client = create_app({"TESTING": True, "API_CACHE_BYTES": 0}).test_client()
    for _ in range(2):
        assert client.get(P).headers["Cache-Status"] == "latency-lab; fwd=miss"


def test_security_headers_on_the_api(client: FlaskClient) -> None:
    for response in (client.get(P), client.get("/api/v1/nothing"), client.get("/api/docs")):
        for name, value in SECURITY_HEADERS.items():
            assert response.headers[name] == value


# --- sweep ---------------------------------------------------------------------------------------------


def test_sweep_equals_a_prediction_per_value(client: FlaskClient) -> None:
    req = {"field": "network.rtt_ms", "values": [10, 100.5, 10], "protocols": ["persistent", "getall"], "scenario": TEN}
    response = client.post(S, json=req)
    assert response.status_code == 200, response.json
    out = response.json
    SweepOutput.model_validate(out)
    assert out["values"] == [10, 100.5, 10]
    assert [s["protocol"] for s in out["series"]] == ["persistent", "getall"]
    for i, v in enumerate(out["values"]):
        doc = {**TEN, "network": {"rtt_ms": v}, "protocols": ["persistent", "getall"]}
        expected = predict(Scenario.model_validate(doc))["results"]
        for series, result in zip(out["series"], expected, strict=True):
            assert series["page_load_ms"][i] == result["page_load_ms"]
            assert {k: c[i] for k, c in series["counts"].items()} == result["counts"]


def test_sweep_generates_values(client: FlaskClient) -> None:
    log = client.post(S, json={"field": "network.rtt_ms", "start": 1, "stop": 1000, "steps": 4, "spacing": "log"})
    assert log.status_code == 200
    assert log.json["values"] == pytest.approx([1, 10, 100, 1000])
    assert log.json["protocols"] == list(SEED_PROTOCOLS)
    ints = client.post(S, json={"field": "page.object_count", "start": 0, "stop": 3, "steps": 7})
    assert ints.json["values"] == [0, 1, 2, 3]  # rounded, repeats dropped
    sizes = client.post(S, json={"field": "page.object_size_bytes", "values": [100, 200]})
    counts = sizes.json["series"][0]["counts"]["connections"]
    assert counts == [4, 4]  # the default page's three objects and the HTML, one connection each (http10)
    flags = client.post(S, json={"field": "tcp.nagle", "values": [True, False], "protocols": ["persistent"]})
    assert flags.json["values"] == [True, False]


def test_sweep_follows_what_the_base_left_out(client: FlaskClient) -> None:
    """Sweeping the TCP profile changes the TCP fields the base scenario left to the profile."""
    out = client.post(S, json={"field": "tcp.profile", "values": ["bsd", "ns3"], "protocols": ["persistent"]}).json
    for i, name in enumerate(["bsd", "ns3"]):
        expected = predict(Scenario.model_validate({"tcp": {"profile": name}, "protocols": ["persistent"]}))
        assert out["series"][0]["page_load_ms"][i] == expected["results"][0]["page_load_ms"]


def test_sweep_csv(client: FlaskClient) -> None:
    req = {"field": "network.rtt_ms", "values": [10, 20], "protocols": ["http10", "getall"]}
    rows = _csv(client.post(S + "?format=csv", json=req))
    assert [(r["network.rtt_ms"], r["protocol"]) for r in rows] == [
        ("10", "http10"),
        ("10", "getall"),
        ("20", "http10"),
        ("20", "getall"),
    ]
    assert rows == _csv(client.post(S, json=req, headers={"Accept": "text/csv"}))


def test_benchmark_sweep_is_within_the_limits() -> None:
    """The issue's benchmark sweep (200 points, five protocols, a 10-object page) is allowed."""
    req = SweepRequest.model_validate(
        {"field": "network.rtt_ms", "start": 10, "stop": 1000, "steps": 200, "spacing": "log", "scenario": TEN}
    )
    from latency_lab.analysis.sweep import work

    assert work(req) <= MAX_WORK_UNITS
    assert len(sweep(SweepRequest.model_validate({**req.model_dump(), "steps": 2}))["values"]) == 2


#: The issue's benchmark sweep (bench/api_load.py's SWEEP_200).
SWEEP_200 = {"field": "network.rtt_ms", "start": 10, "stop": 1000, "steps": 200, "spacing": "log", "scenario": TEN}


def test_the_benchmark_sweep_takes_more_steps_than_the_python_engine_may() -> None:
    """125,680 engine steps: within the budget on the native engine, over it at the Python engine's price a step
    (limits.PYTHON_STEP_COST)."""
    from latency_lab.scenario import limits

    big = 10**9
    with limits.budget(big):
        out = sweep(SweepRequest.model_validate(SWEEP_200))
        steps = big - limits.allowance()
    assert len(out["values"]) == 200 and len(out["series"]) == 5
    assert steps <= limits.MAX_ENGINE_STEPS < steps * limits.PYTHON_STEP_COST


@pytest.mark.parametrize("flag", ["1", "0"])
def test_the_benchmark_sweep_on_each_engine(client: FlaskClient, monkeypatch: pytest.MonkeyPatch, flag: str) -> None:
    """One step budget, counted by the engine that runs: the benchmark sweep is answered on the native engine and
    refused on the Python engine (``LATENCY_LAB_NATIVE=0``), as a 422 limit problem naming max_engine_steps and its
    size."""
    from latency_lab.analysis import native
    from latency_lab.scenario import limits

    monkeypatch.setenv(native.ENV, flag)
    response = client.post(S, json=SWEEP_200)
    if flag == "1":
        assert response.status_code == 200, response.get_data(as_text=True)[:500]
        assert len(response.get_json()["values"]) == 200
        return
    body = problem(response, 422)
    assert body["type"] == type_uri("limit-exceeded")
    assert body["limit"]["name"] == "max_engine_steps"
    assert body["limit"]["maximum"] == limits.MAX_ENGINE_STEPS < body["limit"]["actual"]
    assert f"{limits.MAX_ENGINE_STEPS:,} model steps" in body["errors"][0]["message"]


# --- presets, formulas, documents ---------------------------------------------------------------------


def test_presets(client: FlaskClient) -> None:
    listing = client.get("/api/v1/presets")
    assert listing.status_code == 200
    PresetList.model_validate(listing.json)
    assert [p["name"] for p in listing.json["presets"]] == list(PRESETS)
    for summary in listing.json["presets"]:
        detail = client.get(summary["url"])
        assert detail.status_code == 200
        PresetDetail.model_validate(detail.json)
        assert detail.json["document"] == PRESETS[summary["name"]].document
        assert detail.json["scenario"] == preset(summary["name"]).model_dump(mode="json")


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_formulas(client: FlaskClient, protocol: str) -> None:
    got = client.get(f"/api/v1/formulas/{protocol}?preset=h96-lan")
    posted = client.post(f"/api/v1/formulas/{protocol}", json={**PRESETS["h96-lan"].document, "protocols": ["getall"]})
    assert got.status_code == posted.status_code == 200
    assert got.json == posted.json
    FormulaOutput.model_validate(got.json)
    doc = {**PRESETS["h96-lan"].document, "protocols": [protocol]}
    expected = predict(Scenario.model_validate(doc), formulas=True)
    assert got.json["formula"] == expected["results"][0]["formula"]
    assert got.json["glossary"] == expected["glossary"]
    assert got.json["page_load_ms"] == expected["results"][0]["page_load_ms"]
    assert "<mrow>" in got.json["formula"]["page_load_ms"]["mathml"]


def test_openapi_document(client: FlaskClient) -> None:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    doc = response.json
    assert doc["openapi"] == "3.1.0"
    assert set(doc["paths"]) == {
        "/api/v1/predict",
        "/api/v1/sweep",
        "/api/v1/presets",
        "/api/v1/presets/{name}",
        "/api/v1/formulas/{protocol}",
        "/api/v1/har",
        "/api/v1/exercises",
        "/api/v1/exercises/{template}",
        "/api/v1/exercises/set",
    }
    schemas = doc["components"]["schemas"]
    for name in ("Scenario", "SweepRequest", "PredictOutput", "SweepOutput", "ProblemDetails", "FormulaOutput"):
        assert name in schemas
    assert schemas["Scenario"] == json.loads(json.dumps(schemas["Scenario"]))
    params = {p["name"] for p in doc["paths"]["/api/v1/predict"]["get"]["parameters"]}
    assert {"network.rtt_ms", "page.object_bytes", "protocols", "format", "packets", "preset"} <= params
    # every $ref resolves
    refs = re.findall(r'"\$ref": ?"#/components/schemas/([^"]+)"', json.dumps(doc))
    assert refs and set(refs) <= set(schemas)


def test_openapi_answers_are_the_output_types(client: FlaskClient) -> None:
    """The answers' schemas are made from the types the model returns (latency_lab.api_schema): each names the type's
    keys in its order, requires the ones the type requires, and has the words of api_schema.DESCRIPTIONS."""
    from typing import get_type_hints

    from latency_lab.analysis import result
    from latency_lab.analysis.sweep import SweepResult, SweepSeries
    from latency_lab.api_schema import API_NAMES, DESCRIPTIONS, FormulaAnswer

    schemas = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    types: list[Any] = [result.Prediction, result.ProtocolResult, result.PacketRow, result.ExpectedWithLoss]
    for td in [*types, result.PageResult, result.FormulaText, FormulaAnswer, SweepResult, SweepSeries]:
        name = td.__name__
        schema = schemas[API_NAMES.get(name, name)]
        assert list(schema["properties"]) == list(get_type_hints(td)), name
        assert set(schema["required"]) == td.__required_keys__, name
        assert schema["description"] == DESCRIPTIONS[name]
    assert schemas["ProtocolResult"]["properties"]["protocol"]["enum"] == list(ALL_PROTOCOLS)
    assert schemas["ProtocolResult"]["properties"]["breakdown_ms"] == {"$ref": "#/components/schemas/Breakdown"}
    assert "expected_with_loss_ms" in schemas["SweepSeries"]["required"]


def test_new_fields_reach_the_api_and_the_form(client: FlaskClient) -> None:
    """Issue 16's http.pipeline_writes goes through the one schema: the OpenAPI document lists it as a query
    parameter with its values, the calculator has it in the HTTP section, and a bad value is a 422 naming it."""
    from latency_lab_web.web.form import FIELD_BY_PARAM

    doc = client.get("/api/openapi.json").get_json()
    params = {p["name"]: p for p in doc["paths"]["/api/v1/predict"]["get"]["parameters"]}
    assert "http.pipeline_writes" in params and "one" in json.dumps(params["http.pipeline_writes"])
    assert FIELD_BY_PARAM["http.pipeline_writes"].section == "http"
    got = client.get(P + "?protocols=pipelined&http.pipeline_writes=one&tcp.nagle=true")
    assert got.status_code == 200 and got.json["scenario"]["http"]["pipeline_writes"] == "one"
    bad = client.get(P + "?http.pipeline_writes=two")
    assert bad.status_code == 422 and bad.json["errors"][0]["path"] == "http.pipeline_writes"
    page = client.get("/?preset=n97-lan")
    assert page.status_code == 200 and b'name="http.pipeline_writes"' in page.data


def test_docs_page_is_local(client: FlaskClient) -> None:
    response = client.get("/api/docs")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<script" not in html
    for url in re.findall(r'(?:href|src)="([^"]+)"', html):
        assert url.startswith(("/", "#")), url
    for kind in KINDS:
        assert f'id="problem-{kind}"' in html
    for name in ("max_work_units", "max_sweep_points", "max_body_bytes", "max_query_bytes"):
        assert name in html
    assert client.get("/static/api.css").status_code == 200


# --- never a 5xx ----------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
SECTIONS = {
    "network": ["rtt_ms", "bandwidth_bps", "uplink_delay_ms", "downlink_delay_ms"],
    "tcp": ["profile", "mss_bytes", "initial_window_segments", "nagle", "receive_window_bytes"],
    "http": ["request_bytes", "parallel_connections", "server_write_bytes"],
    "page": ["html_bytes", "object_bytes", "object_count", "object_size_bytes"],
}
SCENARIOS = st.fixed_dictionaries(
    {},
    optional={
        section: st.fixed_dictionaries({}, optional={name: JSON_VALUES for name in names})
        for section, names in SECTIONS.items()
    },
)


@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(body=SCENARIOS | JSON_VALUES, field=st.sampled_from(["network.rtt_ms", "page.object_count", "tcp.nagle", "x"]))
def test_arbitrary_json_is_never_a_server_error(body: Any, field: str) -> None:
    client = create_app({"TESTING": True}).test_client()
    for url, sent in ((P, body), (S, {"field": field, "values": [body], "scenario": body})):
        response = client.post(url, data=json.dumps(body if url == P else sent), content_type="application/json")
        assert response.status_code < 500
        if response.status_code >= 400:
            problem(response, response.status_code)


def test_a_sweep_far_over_the_limit_is_refused_quickly(client: FlaskClient) -> None:
    """A huge sweep is refused without validating every point: 1,000 points of a 1,000-object page from its counts
    (validating them would cost max_sweep_fixed_units over), and 290 of them, whose validation fits, from their
    objects' work units alone (limits.objects_floor), before any point is validated."""
    import time

    doc: dict[str, Any] = {
        "field": "network.rtt_ms",
        "values": [float(i) for i in range(MAX_SWEEP_POINTS)],
        "scenario": {"page": {"object_bytes": [1000] * MAX_OBJECTS}, "protocols": ["persistent"]},
    }
    t0 = time.perf_counter()
    body = problem(client.post(S, json=doc), 422)
    assert time.perf_counter() - t0 < 1.0
    assert body["limit"]["name"] == "max_sweep_fixed_units"
    assert item(body, "values")["type"] == "limit_exceeded"
    body = problem(client.post(S, json={**doc, "values": doc["values"][:290]}), 422)
    assert body["limit"]["name"] == "max_work_units"
    assert body["limit"]["actual"] == 290 * 2 * 1001 > 9 * MAX_WORK_UNITS  # its objects alone (limits.objects_floor)
    assert item(body, "values")["type"] == "limit_exceeded"


@pytest.fixture
def validated_points(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The values of the sweep points validated while the test runs (``latency_lab.analysis.sweep.point`` counted)."""
    sweep_module = sys.modules[
        "latency_lab.analysis.sweep"
    ]  # (latency_lab.analysis.sweep the attribute is the function)
    validated: list[object] = []
    real_point = sweep_module.point

    def counting(*args: Any) -> Any:
        validated.append(args[-1])
        return real_point(*args)

    monkeypatch.setattr(sweep_module, "point", counting)
    return validated


def test_a_sweep_of_many_tiny_runs_is_refused_before_any_point_is_validated(
    client: FlaskClient, validated_points: list[object]
) -> None:
    """Runs cost a fixed part beside what they schedule, and a point its validation: 727 points of 7 protocols of a
    tiny page (5,089 runs of 12 units, 59,500 work units) were accepted and took 0.95-1.05 s of CPU, and a slightly
    larger one was refused only after its points were validated (0.13-0.23 s; bench/worst_case.py seed 25,
    2026-11-28). max_sweep_fixed_units refuses it from its counts alone; the issue's benchmark sweep (200 points, 5
    protocols, a 10-object page) is still answered."""
    seven = ["getall", "http10_parallel", "pipelined", "persistent", "h2", "h3", "persistent_parallel"]
    doc = {
        "field": "tcp.rto_min_ms",
        "start": 50_687.7,
        "stop": 26_693.2,
        "steps": 727,
        "spacing": "log",
        "scenario": {
            "page": {"css_replaces_images": 1000, "object_count": 559, "object_size_bytes": 9},
            "protocols": seven,
        },
    }
    body = problem(client.post(S, json=doc), 422)
    assert validated_points == []
    assert body["limit"]["name"] == "max_sweep_fixed_units"
    per_point = SWEEP_POINT_UNITS + 560 // OBJECTS_PER_POINT_UNIT + 7 * RUN_FIXED_UNITS  # 559 objects and the HTML
    assert body["limit"]["actual"] == 727 * per_point > MAX_SWEEP_FIXED_UNITS
    assert item(body, "steps")["type"] == "limit_exceeded"
    assert "727 points of 7 protocols" in item(body, "steps")["message"]
    # repeated values count once, as they run once
    doc = {"field": "network.rtt_ms", "values": [50.0] * 700, "scenario": {"protocols": seven}}
    assert client.post(S, json=doc).status_code == 200
    answer = client.post(S, json=SWEEP_200)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:500]
    assert len(answer.get_json()["values"]) == 200


def test_a_sweep_of_a_field_the_work_does_not_depend_on_is_decided_at_its_first_point(
    client: FlaskClient, validated_points: list[object]
) -> None:
    """Every point of a sweep of a field the work estimate does not read (limits.WORK_FREE_FIELDS: here the RTT)
    costs what its first costs: 500 points of a 400-object page are refused once one point is validated, not
    after the 148 whose units pass max_work_units (50-110 ms of CPU, about 1 ms a point of a large page: issue 26
    found 0.35 s)."""
    page = {"object_bytes": [100 + 7 * i for i in range(400)]}
    doc = {"field": "network.rtt_ms", "start": 10, "stop": 1000, "steps": 500, "scenario": {"page": page}}
    doc["protocols"] = ["getall"]
    body = problem(client.post(S, json=doc), 422)
    first = Scenario.model_validate({"page": page, "protocols": ["getall"], "network": {"rtt_ms": 10}})
    assert len(validated_points) == 1
    assert body["limit"]["name"] == "max_work_units"
    assert body["limit"]["actual"] == 500 * work_units(first) > MAX_WORK_UNITS
    assert "this sweep (500 points)" in item(body, "steps")["message"]


def test_a_sweep_prices_its_points_validation_by_the_pages_objects(
    client: FlaskClient, validated_points: list[object]
) -> None:
    """Validating a point of a large page takes about 1 µs an object (0.4-1.8 ms at 1,000 objects, 2026-11-28): a
    sweep's fixed units count OBJECTS_PER_POINT_UNIT objects a unit, so 1,000 points of a 400-object page of the
    image sizes (each point's work different) are refused from the counts, before any point is validated."""
    doc = {
        "field": "page.image_size_ratio",
        "start": 0.01,
        "stop": 4,
        "steps": 1000,
        "protocols": ["getall"],
        "scenario": {"page": {"object_count": 400, "object_size_bytes": 100}},
    }
    body = problem(client.post(S, json=doc), 422)
    assert validated_points == []
    assert body["limit"]["name"] == "max_sweep_fixed_units"
    per_point = SWEEP_POINT_UNITS + 401 // OBJECTS_PER_POINT_UNIT + RUN_FIXED_UNITS
    assert body["limit"]["actual"] == 1000 * per_point > MAX_SWEEP_FIXED_UNITS
    assert "of a 401-object page" in item(body, "steps")["message"]


def test_a_sweep_whose_objects_alone_pass_the_limit_is_refused_before_its_points_are_validated(
    client: FlaskClient, validated_points: list[object]
) -> None:
    """Every point costs at least its protocols' units per object times the objects it sends (limits.objects_floor):
    396 points of tcp.mss_bytes (each point's work different) of a 688-object page on pipelined are refused from the
    counts, not once about 90 of them are validated. (bench/worst_case.py seed 27, 2026-11-28, found such a sweep
    refused after 250 points, 0.16-0.29 s of CPU; its page's images all drawn by style sheet rules
    (css_replaces_images 944), it sends two objects and stays so: see docs/measurements.md.)"""
    doc = {
        "field": "tcp.mss_bytes",
        "start": 55_249,
        "stop": 842,
        "steps": 396,
        "protocols": ["pipelined"],
        "scenario": {"page": {"object_bytes": [1 + (37 * i) % 1400 for i in range(688)]}},
    }
    body = problem(client.post(S, json=doc), 422)
    assert validated_points == []
    assert body["limit"]["name"] == "max_work_units"
    assert body["limit"]["actual"] == 396 * 689 > MAX_WORK_UNITS
    assert "396 points, its objects alone" in item(body, "steps")["message"]


def test_a_sweep_of_segment_sizes_is_priced_from_its_values_before_its_points_are_validated(
    client: FlaskClient, validated_points: list[object]
) -> None:
    """A point costs at least what a larger tcp.mss_bytes costs (limits.MONOTONE_WORK_FIELDS: fewer pieces), so a
    sweep of it is priced from its values, before any point is validated: 396 points of a 688-object page whose
    images are all drawn by style sheet rules, on pipelined (its objects' units far under the limit), were refused
    once 109 points were validated, 111 ms of CPU (docs/measurements.md, issue 26: 0.15-0.29 s in the search of
    2026-11-28). A sweep of the same page within the limit is still answered, every point validated."""
    page = {"html_bytes": 2_000_000, "object_bytes": [1 + (37 * i) % 1400 for i in range(688)]}
    page["css_replaces_images"] = 944
    doc = {"field": "tcp.mss_bytes", "start": 55_249, "stop": 842, "steps": 396, "protocols": ["pipelined"]}
    body = problem(client.post(S, json={**doc, "scenario": {"page": page}}), 422)
    assert validated_points == []
    assert body["limit"]["name"] == "max_work_units"
    req = SweepRequest.model_validate({**doc, "scenario": {"page": page}})
    base = base_document(req)
    every = sum(work_units(point(req, base, v)) for v in set(values(req)))  # (the real point: not counted)
    assert MAX_WORK_UNITS < body["limit"]["actual"] <= every
    assert "396 points, each priced at the least its value of tcp.mss_bytes can cost" in item(body, "steps")["message"]
    small = {**doc, "steps": 12, "start": 9_000, "stop": 1_460, "scenario": {"page": page}}
    assert client.post(S, json=small).status_code == 200
    assert len(validated_points) == 12


def test_a_sweep_of_invalid_points_is_refused_after_the_first_problems(
    client: FlaskClient, validated_points: list[object]
) -> None:
    """A sweep whose every point is invalid is refused once the problems it lists are found, the rest of its points
    not validated: 519 points of a 1,000-object page over the segment cap took 0.24 s of CPU to refuse
    (bench/worst_case.py, 2026-11-28), validating each. (That sweep, of http.response_header_bytes, is now refused
    from its values' work before any point is validated: limits.MONOTONE_WORK_FIELDS. Segment sizes over the receive
    window, each point invalid and the sweep's work within the limit, still list their first problems.)"""
    doc = {
        "field": "http.response_header_bytes",
        "start": 40_000,
        "stop": 50_000,
        "steps": 300,  # 519 of persistent in the search: now refused from its counts (max_sweep_fixed_units and
        # its objects' units, limits.objects_floor); getall costs nothing an object
        "scenario": {"page": {"object_count": 900, "object_size_bytes": 1000}, "protocols": ["getall"]},
    }
    body = problem(client.post(S, json=doc), 422)
    assert validated_points == []
    assert body["limit"]["name"] == "max_work_units"
    doc = {
        "field": "tcp.mss_bytes",
        "start": 30_000,
        "stop": 60_000,
        "steps": 300,
        "scenario": {
            "page": {"object_count": 100, "object_size_bytes": 1000},
            "protocols": ["getall"],
            "tcp": {"receive_window_bytes": 20_000},
        },
    }
    body = problem(client.post(S, json=doc), 422)
    assert len(validated_points) == sys.modules["latency_lab.analysis.sweep"].MAX_POINT_PROBLEMS + 1
    first = body["errors"][0]  # before the points' own problems, so a listing of the first ten shows it
    assert first["type"] == "points" and "at least 11 of the 300 points are invalid" in first["message"]
    assert "289 after the 11th invalid one not checked" in first["message"]


def test_an_internal_error_is_a_problem_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug (never bad input) is a 500 problem document under /api/; the pages keep Flask's own handling."""
    import latency_lab_web.api.views
    import latency_lab_web.calculator.views

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(latency_lab_web.api.views, "predict", broken)
    client = create_app({"TESTING": True, "API_CACHE_BYTES": 0}).test_client()
    body = problem(client.get(P), 500)
    assert "boom" not in body["detail"]
    monkeypatch.setattr(latency_lab_web.calculator.views, "predict", broken)
    with pytest.raises(RuntimeError):
        client.get("/?network.rtt_ms=71")


def test_a_runaway_is_refused_before_it_runs(client: FlaskClient) -> None:
    """Issue 14's first critical reproduction: a small valid body whose 11 million one-byte writes held a worker
    for 30 s. The engine's step budget stopped it while running; the estimate now counts the server's writes where
    they are smaller than a segment and refuses it first (issue 26), as a limit problem naming max_work_units."""
    body = {"protocols": ["getall"], "page": {"html_bytes": 11_000_000, "object_bytes": []}}
    body["http"] = {"server_write_bytes": 1}
    r = client.post("/api/v1/predict", json=body)
    assert r.status_code == 422
    assert r.mimetype == "application/problem+json"
    doc = r.get_json()
    assert doc["limit"]["name"] == "max_work_units"
    assert "max_work_units" in doc["errors"][0]["message"]
    page = client.get("/?http.server_write_bytes=1&page.html_bytes=3000000")
    assert page.status_code == 400
    assert "max_work_units" in page.get_data(as_text=True)


# --- what the OpenAPI document says the server accepts ---------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("POST", P, {"protocols": ["persistent"], "tcp": {"mss_bytes": 1460.0}, "page": {"object_bytes": [1e3, 2.0]}}),
        ("POST", F, {"tcp": {"mss_bytes": 1460.0}, "page": {"object_bytes": [1e3, 2.0]}}),
        ("GET", P + "?protocols=persistent&tcp.mss_bytes=1460.0&page.object_bytes=1e3,2.0", None),
    ],
)
def test_whole_floats_are_integers(client: FlaskClient, method: str, url: str, body: Any) -> None:
    """JSON Schema's ``integer`` is any number without a fraction (1460.0 is one): the API reads it as 1460, the
    same answer as for 1460."""
    response = client.open(url, method=method, json=body)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    scenario = response.get_json()["scenario"]
    assert scenario["tcp"]["mss_bytes"] == 1460 and isinstance(scenario["tcp"]["mss_bytes"], int)
    assert scenario["page"]["object_bytes"] == [1000, 2]
    ints = client.open(
        url.replace("1460.0", "1460").replace("1e3,2.0", "1000,2"),
        method=method,
        json=None if body is None else {**body, "tcp": {"mss_bytes": 1460}, "page": {"object_bytes": [1000, 2]}},
    )
    assert ints.get_json() == response.get_json()


def test_whole_floats_in_a_sweep(client: FlaskClient) -> None:
    by_values = client.post(S, json={"field": "tcp.mss_bytes", "values": [536.0, 1460], "protocols": ["persistent"]})
    assert by_values.status_code == 200, by_values.get_data(as_text=True)[:500]
    assert by_values.get_json()["values"] == [536, 1460]
    by_range = client.post(
        S, json={"field": "tcp.mss_bytes", "start": 536, "stop": 1460, "steps": 3.0, "protocols": ["persistent"]}
    )
    assert by_range.status_code == 200, by_range.get_data(as_text=True)[:500]
    assert by_range.get_json()["values"] == [536, 998, 1460]


def test_whole_float_rules_leave_other_types_refused(client: FlaskClient) -> None:
    for bad in (1460.5, "1460", True, 1e300):
        body = problem(client.post(P, json={"tcp": {"mss_bytes": bad}}), 422)
        assert item(body, "tcp.mss_bytes")["allowed"].startswith("a whole number"), bad


def test_split_proxy_legs_are_query_parameters(client: FlaskClient) -> None:
    """The document lists each field of proxy.client_leg and proxy.server_leg as its own query parameter, and the
    query reads them (the GET answer equals the POST's)."""
    doc = client.get("/api/openapi.json").get_json()
    names = {p["name"] for p in doc["paths"]["/api/v1/predict"]["get"]["parameters"]}
    legs = {
        f"proxy.{leg}.{f}"
        for leg in ("client_leg", "server_leg")
        for f in ("delay_ms", "bandwidth_bps", "receive_window_bytes")
    }
    assert legs <= names and not {"proxy.client_leg", "proxy.server_leg"} & names
    query = (
        "?protocols=persistent&proxy.architecture=split_proxy&proxy.client_leg.delay_ms=5"
        "&proxy.client_leg.bandwidth_bps=2e6&proxy.server_leg.receive_window_bytes=20000"
    )
    got = client.get(P + query)
    assert got.status_code == 200, got.get_data(as_text=True)[:500]
    proxy = {
        "architecture": "split_proxy",
        "client_leg": {"delay_ms": 5, "bandwidth_bps": 2e6},
        "server_leg": {"receive_window_bytes": 20000},
    }
    posted = client.post(P, json={"protocols": ["persistent"], "proxy": proxy})
    assert got.get_json() == posted.get_json()
    assert got.get_json()["scenario"]["proxy"]["client_leg"]["delay_ms"] == 5.0
    bad = problem(client.get(P + "?proxy.client_leg.delay_ms=-1"), 422)
    assert item(bad, "proxy.client_leg.delay_ms")["allowed"] == "a number from 0 to 10,000 ms"


def test_sweep_rules_are_in_the_schema(client: FlaskClient) -> None:
    """The sweep's values-or-range rule, each value's type by the swept field, and log spacing above 0 are in the
    SweepRequest schema: requests it refuses are refused by the server, requests it allows are not refused for
    those rules."""
    import jsonschema_rs

    doc = client.get("/api/openapi.json").get_json()
    validator = jsonschema_rs.validator_for(
        {**doc["components"]["schemas"]["SweepRequest"], "components": doc["components"]}
    )
    base = {"field": "tcp.mss_bytes", "protocols": ["persistent"]}
    cases = [
        ({"values": [536, 1460]}, True),
        ({"start": 536, "stop": 1460, "steps": 3}, True),
        ({"values": [536], "start": 536, "stop": 1460, "steps": 3}, False),  # both
        ({}, False),  # neither
        ({"start": 536, "stop": 1460}, False),  # a range without steps
        ({"values": ["536"]}, False),  # a value of the wrong type for the field
        ({"values": [50]}, False),  # out of the field's range
        ({"start": 0, "stop": 1460, "steps": 3, "spacing": "log"}, False),
        ({"field": "tcp.nagle", "values": [True, False]}, True),
        ({"field": "tcp.nagle", "start": 0, "stop": 1, "steps": 2}, False),  # a range of a boolean
    ]
    for extra, valid in cases:
        request = {**base, **extra}
        assert validator.is_valid(request) is valid, request
        status = client.post(S, json=request).status_code
        assert (status == 200) is valid, (request, status)


def test_cross_field_rules_are_documented(client: FlaskClient) -> None:
    """Every 422 a schema-valid request can get is listed in x-cross-field-rules (tests/latency_lab_web/test_api_schemathesis.py
    checks the server against it), and the 422 answers point there."""
    doc = client.get("/api/openapi.json").get_json()
    rules = doc["x-cross-field-rules"]
    assert {r.get("type") for r in rules} >= {"value_error", "limit_exceeded"}
    for item_ in doc["paths"].values():
        for op in item_.values():
            assert "x-cross-field-rules" in op["responses"]["422"]["description"]
    # the one rule between two query parameters: packets only with JSON
    body = problem(client.get(P + "?format=csv&packets=true"), 422)
    assert [e["type"] for e in body["errors"]] == ["value_error"]


def test_the_loss_analysis_draws_from_the_step_budget(client: FlaskClient) -> None:
    """With network.loss_rate above 0 the expected cost of loss reads each run's schedule; that work is charged to
    the request's step budget (LOSS_STEP_COST per step) before it runs. A page the budget holds without loss is
    refused with it, and before anything runs: the work estimate prices a lossy run (RUN_COSTS["loss"]), so the 422
    names max_work_units (issue 26; it was the budget's max_engine_steps, after seconds of running)."""
    from latency_lab.scenario import limits

    page = {"protocols": list(SEED_PROTOCOLS), "page": {"object_count": 1000, "object_size_bytes": 2000}}
    lossless = client.post(P, json=page)
    assert lossless.status_code == 200, lossless.get_data(as_text=True)[:300]
    body = problem(client.post(P, json={**page, "network": {"loss_rate": 0.01}}), 422)
    assert body["limit"]["name"] == "max_work_units" and body["limit"]["maximum"] == limits.MAX_WORK_UNITS
    small = client.post(
        P, json={**page, "page": {"object_count": 100, "object_size_bytes": 2000}, "network": {"loss_rate": 0.01}}
    )
    assert small.status_code == 200 and small.get_json()["results"][0]["expected_with_loss"]["extra_ms"] > 0
    # the charge itself: taken before the work, all or nothing
    with limits.budget(100):
        limits.charge(60)
        assert limits.allowance() == 40
        with pytest.raises(limits.WorkLimitExceeded):
            limits.charge(41)
        assert limits.allowance() == 40


def test_packets_have_their_own_step_budget(client: FlaskClient) -> None:
    """A prediction listing every packet gets MAX_PACKETS_ENGINE_STEPS (its answer is about 500 bytes a packet):
    a page of large requests (50 KB each, 300 tiny objects, seven protocols) is refused with packets, by name, and
    answered without them. Before, it made about 87,000 packets, a 43 MB answer. The work estimate counts a request's
    segments past its first since issue 26, so it is refused before it runs (max_packets_work_units); the step
    budget stays the backstop."""
    from latency_lab.scenario import limits

    doc = {"protocols": list(ALL_PROTOCOLS), "http": {"request_bytes": 50_000}}
    doc["page"] = {"object_count": 300, "object_size_bytes": 5}
    body = problem(client.post(P + "?packets=true", json=doc), 422)
    assert body["limit"]["name"] == "max_packets_work_units"
    assert body["limit"]["maximum"] == limits.MAX_PACKETS_WORK_UNITS < body["limit"]["actual"]
    assert "max_packets_work_units" in body["detail"]
    with pytest.raises(limits.WorkLimitExceeded, match="max_packets_engine_steps"), limits.request_budget(packets=True):
        predict(doc, packets=True)  # the backstop, without the estimate
    # without packets, three of the protocols (all seven: 71,000 work units, over max_work_units)
    assert client.post(P, json={**doc, "protocols": ["http10", "persistent", "h2"]}).status_code == 200
    small = client.post(
        P + "?packets=true",
        json={**doc, "protocols": ["persistent"], "page": {"object_count": 20, "object_size_bytes": 5}},
    )
    assert small.status_code == 200 and small.get_json()["results"][0]["packets"]
    # the command line applies the same budget
    from latency_lab.cli import UserError, predict_document

    with pytest.raises(UserError, match="max_packets_work_units"):
        predict_document(doc, packets=True)


def test_object_parents_reach_the_api(client: FlaskClient) -> None:
    """Issue 28's page.object_parents goes through the one schema: a query parameter of the OpenAPI document, a
    comma-separated list in the query string that delays the font behind its style sheet, and a bad tree is a 422
    whose message names the field and its range."""
    doc = client.get("/api/openapi.json").get_json()
    params = {p["name"]: p for p in doc["paths"]["/api/v1/predict"]["get"]["parameters"]}
    assert "page.object_parents" in params
    query = P + "?protocols=h2&page.object_count=2&page.object_size_bytes=1000"
    flat = client.get(query)
    tree = client.get(query + "&page.object_parents=0,1")
    assert flat.status_code == tree.status_code == 200
    assert tree.json["scenario"]["page"]["object_parents"] == [0, 1]
    rtt = tree.json["scenario"]["network"]["rtt_ms"]
    later = tree.json["results"][0]["page_load_ms"] - flat.json["results"][0]["page_load_ms"]
    assert later >= rtt  # the font's request leaves after the style sheet's last byte: a round trip more at least
    bad = client.get(query + "&page.object_parents=0,2")
    assert bad.status_code == 422
    assert "object_parents[1] (2) must be between 0 and 1" in json.dumps(bad.json)


def test_origins_reach_the_api(client: FlaskClient) -> None:
    """Issue 28's page.origins and page.object_origins go through the one schema: a JSON body whose images come from
    another origin with a 50 ms lookup costs h2 that lookup and the origin's handshake (a round trip) more than the
    same page on the HTML's origin, preconnected nothing, and a bad origin index is a 422 naming the field and range."""
    page = {"object_count": 2, "object_size_bytes": 1000}
    doc: dict[str, Any] = {"protocols": ["h2"], "network": {"rtt_ms": 100}, "page": page}
    flat = client.post(P, json=doc)
    other = client.post(P, json={**doc, "page": {**page, "origins": [{"dns_ms": 50}], "object_origins": [1, 1]}})
    pre = client.post(
        P, json={**doc, "page": {**page, "origins": [{"dns_ms": 50, "preconnected": True}], "object_origins": [1, 1]}}
    )
    assert flat.status_code == other.status_code == pre.status_code == 200
    assert other.json["scenario"]["page"]["origins"] == [
        {
            "dns_ms": 50.0,
            "preconnected": False,
            "coalesce_with_html": False,
            "early_hint_preconnect": False,
            "rtt_ms": None,
            "bandwidth_bps": None,
        }
    ]
    load = [r.json["results"][0]["page_load_ms"] for r in (flat, other, pre)]
    # the lookup (50 ms) and the handshake (100 ms), and the handshake's packets' transmission at the default rate
    assert 150.0 < load[1] - load[0] < 155.0
    assert load[2] == pytest.approx(load[0], abs=2.0)
    assert other.json["results"][0]["counts"]["connections"] == 2
    bad = client.post(P, json={**doc, "page": {**page, "origins": [{"dns_ms": 50}], "object_origins": [1, 2]}})
    assert bad.status_code == 422
    assert "page.object_origins" in json.dumps(bad.json)
    assert "object_origins[1] (2) must be between 0 and 1" in json.dumps(bad.json)


def test_answers_are_utf8_json_with_the_model_writers_values() -> None:
    """``latency_lab_web.api.views._encode``: the same values as ``jsontext.dumps`` writes (floats bit for bit, ints
    as ints), non-ASCII text as UTF-8 rather than escaped, and a document with NaN or infinity refused as before."""
    from latency_lab.analysis.jsontext import dumps
    from latency_lab_web.api.views import _encode

    doc = {"ms": [0.1 + 0.2, 1e-7, 1.5e300, 2**53 + 1, -0.0], "text": "10 ms \u2014 \u00d72", "none": None, "ok": True}
    body = _encode(doc)
    assert json.loads(body.decode("utf-8")) == json.loads(dumps(doc)) == doc
    assert "\u2014".encode() in body and b"\\u2014" not in body
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError):
            _encode({"results": [{"page_load_ms": bad}]})
    assert json.loads(_encode({"lone": "\ud800"})) == {"lone": "\ud800"}  # written by json.dumps, as before


def test_a_list_of_objects_has_no_query_parameter(client: FlaskClient) -> None:
    """page.origins is a list of objects, which the query syntax cannot write: it is no query parameter (in the
    OpenAPI document or the query), so a query naming it is refused by name, and a JSON body carries it. Before, the
    document offered it as a comma-separated query list that every value of broke (schemathesis: schema-valid
    request rejected)."""
    names = {p["name"] for p in client.get("/api/openapi.json").json["paths"]["/api/v1/predict"]["get"]["parameters"]}
    assert "page.object_origins" in names and "page.origins" not in names
    r = client.get(P + "?page.origins=1")
    assert r.status_code == 422 and "page.origins: unknown field" in r.get_data(as_text=True)


def test_priorities_reach_the_api(client: FlaskClient) -> None:
    """Issue 28's RFC 9218 priorities (page.object_urgency, page.object_incremental) go through the one schema: query
    parameters of the OpenAPI document; an urgent small object after a large one on h2 ends sooner than in turns, the
    page as late; an urgency past 7 is a 422 naming the field and its range."""
    doc = client.get("/api/openapi.json").get_json()
    params = {p["name"]: p for p in doc["paths"]["/api/v1/predict"]["get"]["parameters"]}
    assert {"page.object_urgency", "page.object_incremental"} <= set(params)
    query = P + "?protocols=h2&network.bandwidth_bps=8e6&page.object_bytes=60000,60000,5000"
    turns = client.get(query)
    urgent = client.get(query + "&page.object_urgency=3,3,0&page.object_incremental=true,true,false")
    assert turns.status_code == urgent.status_code == 200
    assert urgent.json["scenario"]["page"]["object_urgency"] == [3, 3, 0]

    def ends(r: Any) -> dict[str, float]:
        return {o["name"]: o["end_ms"] for o in r.json["results"][0]["objects"]}

    assert ends(urgent)["obj3"] < ends(turns)["obj3"] - 10  # two 16 KB frames at 1 ms a KB no longer before it
    assert urgent.json["results"][0]["page_load_ms"] == pytest.approx(turns.json["results"][0]["page_load_ms"])
    bad = client.get(query + "&page.object_urgency=0,0,8")
    assert bad.status_code == 422
    assert "object_urgency[2] (8) must be between 0 (the most urgent) and 7" in json.dumps(bad.json)
