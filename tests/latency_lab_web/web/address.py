"""What the tests of the query's fields share: an address read back, the API's query against its JSON body, and the
API's refusal of a query naming the field."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict
from werkzeug.test import TestResponse

from latency_lab_web.web.form import State, read


def reads_back_the_same(pairs: list[tuple[str, str]]) -> State:
    """The form's reading of ``pairs``, valid; its canonical address read again gives the same scenario and address."""
    first = read(MultiDict(pairs))
    assert first.errors == {} and first.scenario is not None
    again = read(MultiDict(parse_qsl(first.query, keep_blank_values=True)))
    assert again.errors == {} and again.scenario == first.scenario and again.query == first.query
    return first


def query_predicts_as_body(client: FlaskClient, query: str, body: dict[str, Any]) -> TestResponse:
    """``GET /api/v1/predict?query`` answers what ``POST /api/v1/predict`` of ``body`` does; the GET's answer."""
    got = client.get("/api/v1/predict?" + query)
    want = client.post("/api/v1/predict", json=body)
    assert got.status_code == 200 and want.status_code == 200
    assert got.json == want.json
    return got


def api_refuses(client: FlaskClient, query: str, path: str, words: str) -> None:
    """``GET /api/v1/predict?query`` is refused with a problem document of one error at ``path`` whose message (or
    allowed range) says ``words``."""
    r = client.get("/api/v1/predict?" + query)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    (item,) = r.json["errors"]
    assert item["path"] == path
    assert words in item["message"] + " " + (item.get("allowed") or "")
