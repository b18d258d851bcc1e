"""The results page's waterfalls: at most ``WATERFALL_ROWS`` objects drawn and listed per protocol (the first to
start), every object in the waterfall's CSV, through the Flask test client."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from flask.testing import FlaskClient

from latency_lab import predict
from latency_lab_web import create_app
from latency_lab_web.figures import compare as charts

#: 40 objects loaded 6 times (session.pages): 246 objects per protocol, more than the waterfall shows
BIG = "/?protocols=pipelined,h2&page.object_count=40&page.object_size_bytes=2000&session.pages=6"
SMALL = "/?protocols=pipelined,h2&page.object_count=3&page.object_size_bytes=2000"
CAPTION = re.compile(r"<figcaption><strong>(\w+)</strong>:(.*?)</figcaption>", re.S)


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def page(client: FlaskClient, url: str) -> str:
    r = client.get(url, follow_redirects=True)
    assert r.status_code == 200
    return r.get_data(as_text=True)


def figure_rows(html: str, protocol: str) -> int:
    m = re.search(rf'<script type="application/json" id="fig-waterfall-{protocol}">(.*?)</script>', html, re.S)
    assert m is not None
    (trace,) = json.loads(m.group(1))["data"]
    return len(trace["y"])


def table_rows(html: str, protocol: str) -> int:
    start = html.index(f'aria-label="Waterfall data of {protocol}"')
    return html[start : html.index("</table>", start)].count("<tr>") - 1  # less the header's


def test_rows_are_the_first_to_start_by_connection() -> None:
    objects = [
        {"connection": c, "name": f"o{i}", "bytes": 1, "start_ms": float(s), "end_ms": float(s + 5)}
        for i, (c, s) in enumerate([(2, 30), (1, 10), (2, 0), (1, 50), (3, 20)])
    ]
    rows = charts.waterfall_rows(objects, 3)
    assert [o["name"] for o in rows] == ["o1", "o2", "o4"]  # starts 0, 10, 20: by connection, then start
    assert [o["name"] for o in charts.waterfall_rows(objects, None)] == ["o1", "o3", "o2", "o0", "o4"]
    assert charts.waterfall_rows(objects) == charts.waterfall_rows(objects, None)  # under the cap: all


def test_a_big_page_draws_and_lists_the_cap_and_says_so(client: FlaskClient) -> None:
    html = page(client, BIG)
    captions = dict(CAPTION.findall(html))
    for protocol in ("pipelined", "h2"):
        assert figure_rows(html, protocol) == table_rows(html, protocol) == charts.WATERFALL_ROWS
        text = re.sub(r"\s+", " ", captions[protocol])
        assert text.startswith(" 246 objects on 1 connection(s); the first 200 to start are drawn and listed"), text
        assert 'href="/waterfall.csv?' in captions[protocol]


def test_a_small_page_draws_every_object_without_the_note(client: FlaskClient) -> None:
    html = page(client, SMALL)
    captions = dict(CAPTION.findall(html))
    assert figure_rows(html, "h2") == table_rows(html, "h2") == 4
    assert "drawn and listed" not in captions["h2"]


def test_the_csv_has_every_object_as_predicted(client: FlaskClient) -> None:
    query = BIG.split("?", 1)[1]
    r = client.get("/waterfall.csv?" + query)
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True))))
    assert rows[0] == ["protocol", "connection", "object", "bytes", "start_ms", "end_ms"]
    expect = predict(
        {
            "protocols": ["pipelined", "h2"],
            "page": {"object_count": 40, "object_size_bytes": 2000},
            "session": {"pages": 6},
        }
    )["results"]
    for res in expect:
        mine = [x for x in rows[1:] if x[0] == res["protocol"]]
        assert len(mine) == len(res["objects"]) == 246
        assert sorted(float(x[5]) for x in mine) == sorted(float(o["end_ms"]) for o in res["objects"])
    assert max(float(x[5]) for x in rows[1:]) == pytest.approx(max(r["page_load_ms"] for r in expect))


def test_the_csv_refuses_a_bad_query_naming_the_field(client: FlaskClient) -> None:
    r = client.get("/waterfall.csv?network.rtt_ms=-1")
    assert r.status_code == 400 and "network.rtt_ms" in r.get_data(as_text=True)
