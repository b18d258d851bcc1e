"""The experiments gallery: pages, figures' JSON, CSV files, 404s, and the seed tests' numbers on the pages."""

from __future__ import annotations

import csv
import html as html_lib
import io
import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from flask.testing import FlaskClient
from markupsafe import escape
from werkzeug.datastructures import MultiDict

from latency_lab import PRESETS, predict
from latency_lab.scenario.schema import Scenario
from latency_lab.studies import experiments as E
from latency_lab_web.gallery.views import COMPARISON_COLUMNS, CSV_COLUMNS, number
from latency_lab_web.web.query import scenario_document

_FIGURE = re.compile(r'<script type="application/json" id="figure-([\w-]+)">(.*?)</script>', re.S)


def figures_of(page: str) -> dict[str, dict[str, Any]]:
    """Every figure block of a page: id -> the plotly JSON."""
    return {fid: json.loads(body.replace("<\\/", "</")) for fid, body in _FIGURE.findall(page)}


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# --- pages --------------------------------------------------------------------------------------


def test_index_lists_every_experiment(client: FlaskClient) -> None:
    r = client.get("/experiments/")
    assert r.status_code == 200
    for slug in E.SLUGS:
        e = E.experiment(slug)
        assert f'href="/experiments/{slug}"' in r.text
        assert str(escape(e.title)) in r.text


@pytest.mark.parametrize("path", ["/experiments/", "/experiments/h96"])
def test_site_nav_links_to_the_gallery(client: FlaskClient, path: str) -> None:
    page = client.get(path).text
    nav = page[page.index('<nav aria-label="Site">') :]
    nav = nav[: nav.index("</nav>")]
    assert '<a href="/experiments/">Experiments</a>' in nav


@pytest.mark.parametrize("slug", E.SLUGS)
def test_page_has_its_figures_and_published_numbers(client: FlaskClient, slug: str) -> None:
    r = client.get(f"/experiments/{slug}")
    assert r.status_code == 200 and r.mimetype == "text/html"
    e = E.experiment(slug)
    figures = figures_of(r.text)
    assert list(figures) == [f.id for f in e.figures]
    published_drawn = False
    for f in e.figures:
        fig = figures[f.id]
        assert f'data-figure="figure-{f.id}"' in r.text
        assert fig["data"] and all(trace.get("x") for trace in fig["data"])
        assert fig["layout"]["title"]["text"] == f.title
        for s in f.series:
            if s.source != "published":
                continue
            published_drawn = True
            traces = [t for t in fig["data"] if t["name"] == s.name]
            drawn = [v for t in traces for v in t["y"]]
            for t in traces:  # a range bar: its low end, plus the error bar up to the high end
                if t.get("error_y", {}).get("array"):
                    drawn += [y + e for y, e in zip(t["y"], t["error_y"]["array"], strict=True)]
            for v in s.y or (*s.low, *s.high):
                assert v == pytest.approx(next(d for d in drawn if d == pytest.approx(v)))
    assert published_drawn
    text = html_lib.unescape(r.text)
    assert e.citation in text
    for c in e.comparisons:
        assert c.published_text in text and number(c.model, c.unit) in text
    for name in e.presets:
        p = PRESETS[name]
        assert p.assumptions in text
        for why in p.fitted.values():
            assert why in text


@pytest.mark.parametrize("slug", E.SLUGS)
def test_calculator_links_are_valid_scenarios(client: FlaskClient, slug: str) -> None:
    """Every calculator link names a preset and fields in the API's query syntax that make a valid scenario."""
    links = re.findall(r'href="(/\?[^"]*)"', client.get(f"/experiments/{slug}").text)
    assert links
    for link in links:
        query = dict(parse_qsl(urlsplit(html_lib.unescape(link)).query, keep_blank_values=True))
        name = query.pop("preset", None)
        doc, problems = scenario_document(MultiDict(query), ())
        assert not problems, (link, problems)
        base = PRESETS[name].document if name else {}
        merged = {**base, **{k: v for k, v in doc.items() if not isinstance(v, dict)}}
        for section, fields in doc.items():
            if isinstance(fields, dict):
                merged[section] = {**base.get(section, {}), **fields}
        Scenario.model_validate(merged)
        # and the calculator answers it (after its redirect to the shortest address)
        assert client.get(html_lib.unescape(link), follow_redirects=True).status_code == 200, link


def test_unknown_slug_is_404(client: FlaskClient) -> None:
    for path in ("/experiments/nope", "/experiments/nope.csv", "/experiments/nope/comparisons.csv"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "nope" in r.text


# --- CSV ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", E.SLUGS)
def test_csv_has_every_plotted_point(client: FlaskClient, slug: str) -> None:
    r = client.get(f"/experiments/{slug}.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert f'filename="latency-lab-{slug}.csv"' in r.headers["Content-Disposition"]
    assert r.text.splitlines()[0] == ",".join(CSV_COLUMNS)
    rows = _rows(r.text)
    e = E.experiment(slug)
    expected = [(f, s, i) for f in e.figures for s in f.series for i in range(len(s.x))]
    assert len(rows) == len(expected)
    for row, (f, s, i) in zip(rows, expected, strict=True):
        assert (row["figure"], row["series"], row["source"]) == (f.id, s.name, s.source)
        assert row["x"] == (s.x[i] if isinstance(s.x[i], str) else f"{float(s.x[i]):.10g}")
        for col, values in (("y", s.y), ("low", s.low), ("high", s.high)):
            assert (float(row[col]) == pytest.approx(values[i], rel=1e-9)) if values else row[col] == ""


@pytest.mark.parametrize("slug", E.SLUGS)
def test_csv_matches_the_figures_json(client: FlaskClient, slug: str) -> None:
    """The CSV's model points are the y values the page's figures draw."""
    figures = figures_of(client.get(f"/experiments/{slug}").text)
    for row in _rows(client.get(f"/experiments/{slug}.csv").text):
        if row["source"] != "model":
            continue
        trace = next(t for t in figures[row["figure"]]["data"] if t["name"] == row["series"])
        xs = [str(x) if isinstance(x, str) else f"{float(x):.10g}" for x in trace["x"]]
        assert float(row["y"]) == pytest.approx(trace["y"][xs.index(row["x"])], rel=1e-9)


@pytest.mark.parametrize("slug", E.SLUGS)
def test_comparisons_csv_matches_the_table(client: FlaskClient, slug: str) -> None:
    r = client.get(f"/experiments/{slug}/comparisons.csv")
    assert r.status_code == 200 and r.text.splitlines()[0] == ",".join(COMPARISON_COLUMNS)
    page = html_lib.unescape(client.get(f"/experiments/{slug}").text)
    rows = _rows(r.text)
    comparisons = E.experiment(slug).comparisons
    assert len(rows) == len(comparisons)
    for row, c in zip(rows, comparisons, strict=True):
        assert row["case"] == c.label and row["published"] == c.published_text
        assert float(row["model"]) == pytest.approx(c.model, rel=1e-9)
        assert number(float(row["model"]), c.unit) in page
        assert row["within"] == {None: "", True: "yes", False: "no"}[c.agrees]


# --- the numbers are the seed tests' ------------------------------------------------------------


def _cell_after(page: str, label: str) -> str:
    """The model cell of the comparison row whose case is ``label``."""
    at = page.index(f'<td data-label="Case">{escape(label)}')
    return re.search(r'<td class="num model" data-label="Model">([^<]*)</td>', page[at:]).group(1)  # type: ignore[union-attr]


def _doc(name: str, protocol: str, **fields: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(PRESETS[name].document))
    doc["protocols"] = [protocol]
    for path, v in fields.items():
        section, field = path.split(".")
        doc.setdefault(section, {})[field] = v
    return doc


def _ms(name: str, protocol: str, **fields: Any) -> float:
    return float(predict(_doc(name, protocol, **fields))["results"][0]["page_load_ms"])


def test_h96_page_shows_the_seed_tests_numbers(client: FlaskClient) -> None:
    """Seed 000, table 1, as tests/latency_lab/studies/test_seed_cases.py sets it up: each row within 15% of the published."""
    page = client.get("/experiments/h96").text
    times = {}
    for key, row in E.H96_ROWS.items():
        got = _ms("h96-lan", row.protocol, **{"http.header_flush": row.header_flush, "tcp.nagle": row.nagle})
        times[key] = got
        assert _cell_after(page, row.config) == number(got, "ms")
        assert got == pytest.approx(row.published_ms, rel=0.15)
    assert _cell_after(page, "unfixed P-HTTP over HTTP/1.0") == number(times["phttp"] / times["http"], "x")


def test_p98_page_shows_the_seed_tests_factors(client: FlaskClient) -> None:
    page = client.get("/experiments/p98").text
    for size, label in ((250, "250 B"), (5120, "5 KB"), (40960, "40 KB")):
        f = _ms("p98-terrestrial", "http10", **{"page.object_size_bytes": size}) / _ms(
            "p98-terrestrial", "pipelined", **{"page.object_size_bytes": size}
        )
        assert _cell_after(page, f"terrestrial, 10 images of {label}") == number(f, "x")
        assert f == pytest.approx(E.P98_FACTORS[size], rel=0.15)


def test_pm94_page_shows_the_seed_tests_statements(client: FlaskClient) -> None:
    page = client.get("/experiments/pm94").text
    small = {p: _ms("pm94-remote", p) for p in ("http10", "persistent", "pipelined")}
    cut = 100 * (1 - small["pipelined"] / small["http10"])
    share = 100 * (small["persistent"] - small["pipelined"]) / (small["http10"] - small["pipelined"])
    assert cut > 50 and share > 50
    assert _cell_after(page, "remote, 5 images of 2,544 bytes: persistent + pipelined") == number(cut, "%")
    assert _cell_after(page, "remote, 5 images of 2,544 bytes: pipelining's share of the gain") == number(share, "%")
    large = {p: _ms("pm94-remote", p, **{"page.object_size_bytes": 45566}) for p in ("http10", "pipelined")}
    improvement = 100 * (1 - large["pipelined"] / large["http10"])
    assert improvement == pytest.approx(22, rel=0.15)
    assert _cell_after(page, "remote, 5 images of 45,566 bytes: persistent + pipelined") == number(improvement, "%")
    local = {p: _ms("pm94-local", p) for p in ("http10", "persistent")}
    reduction = 100 * (1 - local["persistent"] / local["http10"])
    assert 5 <= reduction <= 15
    assert _cell_after(page, "local, 5 images of 2,544 bytes: persistent without pipelining") == number(reduction, "%")


def test_n97_page_shows_the_packet_factors_test_content_checks(client: FlaskClient) -> None:
    page = client.get("/experiments/n97").text
    for net in ("lan", "wan", "ppp"):
        out = {r["protocol"]: r for r in predict(PRESETS[f"n97-{net}"].document)["results"]}
        factor = out["http10_parallel"]["counts"]["packets"] / out["pipelined"]["counts"]["packets"]
        assert (1.9 if net == "ppp" else 2.0) <= factor <= 10
        assert _cell_after(page, f"{net.upper()}, first visit") == number(factor, "x")


def test_m98_page_shows_the_seed_tests_ratios(client: FlaskClient) -> None:
    """Seed 003's four figures as tests/latency_lab/studies/test_seed_cases_m98.py computes them (latency_lab.studies.experiments.m98_ratios),
    each within the seed test's range, on the six presets the tests use."""
    page = client.get("/experiments/m98").text
    r = E.m98_ratios()
    assert _cell_after(page, "SS over TT, direct HTTP/1.0") == number(r["ss_over_tt"], "x")
    assert _cell_after(page, "ST over SS, direct HTTP/1.0") == number(r["st_over_ss"], "x")
    assert _cell_after(page, "SS, proxies at both ends over direct, HTTP/1.0") == number(r["proxy_over_ss"], "x")
    assert _cell_after(page, "SS, HTTP/1.1 persistence against HTTP/1.0, direct") == number(
        100 * r["persistence_cut"], "%"
    )
    assert r["ss_over_tt"] == pytest.approx(2.07, rel=0.01)
    assert 0.75 * 0.8 <= r["st_over_ss"] <= 0.75 * 1.2 and 0.55 * 0.8 <= r["proxy_over_ss"] <= 0.55 * 1.2
    assert 0.18 <= r["persistence_cut"] <= 0.40
    assert page.count("✓ yes") == 4 and "✗ no" not in page
    for link in ("tt", "ss", "st"):
        for arch in ("direct", "proxy"):
            assert f"<code>m98-{link}-{arch}</code>" in page
    assert "<code>m98-ss</code>" not in page  # named by the full names (m98-ss is m98-ss-direct under a short one)
    figures = figures_of(page)
    assert {"ratios", "fig4", "sensitivity", "sensitivity-persistence"} <= set(figures)
    fig4 = figures["fig4"]
    bars = [t for t in fig4["data"] if t["type"] == "bar"]
    assert len(bars) == 4 and all(t["x"] == ["TT", "SS", "ST"] for t in bars)
    sens = figures["sensitivity"]
    assert sens["data"][0]["x"][0] == 0.8 and sens["data"][0]["x"][-1] == 1.6
    # the persistence range drawn as a range bar from 0.60 to 0.82 at its category
    band = next(t for t in figures["ratios"]["data"] if t["name"].startswith("published range"))
    assert band["y"] == [pytest.approx(0.60)] and band["error_y"]["array"] == [pytest.approx(0.22)]


def test_stacks_page_is_beyond_the_seeds(client: FlaskClient) -> None:
    page = client.get("/experiments/stacks").text
    assert "beyond the seeds" in page and "Beyond the seeds" in page
    index = client.get("/experiments/").text
    assert 'href="/experiments/stacks"' in index and '<td data-label="Seed">beyond the seeds</td>' in index
    # Lighthouse's time to first byte, as tests/latency_lab/studies/test_lighthouse.py sets it up
    got = float(predict(E.ttfb_document("lighthouse-mobile", "persistent"))["results"][0]["page_load_ms"])
    assert 450 < got < 510
    label = "Lighthouse mobile, TCP + TLS 1.3: cold time to first byte, the path's rates"
    assert _cell_after(page, label) == number(got, "ms")
    load = figures_of(page)["load"]
    assert [t["name"] for t in load["data"]] == [
        "HTTP/1.0, parallel connections",
        "persistent",
        "persistent + pipelined",
        "HTTP/2",
        "HTTP/3 (QUIC)",
    ]
    for t in load["data"]:
        assert t["x"] == ["Microscape WAN (n97-wan)", "Lighthouse mobile"]
    h3 = predict(E.stacks_document("lighthouse-mobile", "h3"))["results"][0]["page_load_ms"]
    assert load["data"][-1]["y"][1] == pytest.approx(h3 / 1000, rel=1e-12)


def test_h96_page_opens_table_1_side_by_side(client: FlaskClient) -> None:
    """Seed 000's page links its table 1 as the comparison of its four rows (the compare feature's one click);
    the comparison shows the published column and, per row, the time the gallery's table shows."""
    page = client.get("/experiments/h96").text
    found = re.search(r'<p class="one-click"><a href="([^"]+)">', page)
    assert found, "no link to the side-by-side table 1"
    href = html_lib.unescape(found.group(1))
    compared = client.get(href)
    assert compared.status_code == 200
    text = compared.get_data(as_text=True)
    assert "published (ms)" in text and "table 1" in text
    for row in E.H96_ROWS.values():
        got = _ms("h96-lan", row.protocol, **{"http.header_flush": row.header_flush, "tcp.nagle": row.nagle})
        assert f"{got:,.1f}" in text, (row.config, got)
    for slug in E.SLUGS:
        if slug != "h96":
            assert 'class="one-click"' not in client.get(f"/experiments/{slug}").text
