"""The calculator speaks to its users (issue 15, defect 10).

Form errors name the field by its label, say what it takes and what was typed (not pydantic's "Input
should be greater than or equal to 1000 (got 0.0)"); an error keeps the last valid results on screen,
marked as such; help texts do not send users to code modules or test files; a chart without JavaScript
says where its numbers are.
"""

from __future__ import annotations

import html
import re

import pytest
from flask.testing import FlaskClient

from latency_lab import PRESETS

HX = {"HX-Request": "true"}


def text_of(page: str) -> str:
    page = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def error_beside(client: FlaskClient, query: str, dom: str) -> str:
    r = client.get("/?" + query, headers=HX)
    assert r.status_code == 400
    m = re.search(rf'id="{dom}-error">([^<]+)<', r.get_data(as_text=True))
    assert m, query
    return html.unescape(m.group(1))


@pytest.mark.parametrize(
    ("query", "dom", "expected"),
    [
        (
            "network.bandwidth_bps=0",
            "f-network-bandwidth_bps",
            "Bandwidth must be a number between 1,000 and 100,000,000,000 bit/s; you gave 0.",
        ),
        ("network.rtt_ms=fast", "f-network-rtt_ms", "RTT must be a number between 0 and 10,000 ms; you gave fast."),
        (
            "tcp.mss_bytes=1.5",
            "f-tcp-mss_bytes",
            "MSS must be a whole number between 100 and 65,495 bytes; you gave 1.5.",
        ),
        ("tcp.nagle=maybe", "f-tcp-nagle", "Nagle must be yes or no; you gave maybe."),
        ("tcp.profile=bsdx", "f-tcp-profile", "Profile must be one of bsd, ns3, rfc5681, linux; you gave bsdx."),
        (
            "page.object_bytes=1,x",
            "f-page-object_bytes",
            "Object sizes: value 2 must be a whole number of bytes; you gave x.",
        ),
        ("network.rtt_ms=1&network.rtt_ms=2", "f-network-rtt_ms", "RTT was given 2 times; give it once."),
        (
            "page.object_bytes=1,2&page.object_count=3",
            "f-page-object_count",
            "Give either \u201cObject sizes\u201d or \u201cObject count\u201d with \u201cObject size\u201d, not both.",
        ),
    ],
)
def test_form_errors_are_plain(client: FlaskClient, query: str, dom: str, expected: str) -> None:
    assert error_beside(client, query, dom) == expected


def test_unknown_setting_in_the_address_is_plain(client: FlaskClient) -> None:
    r = client.get("/?network.rtt=5")
    assert r.status_code == 400
    assert "The address has a setting this calculator does not know: 'network.rtt'; did you mean 'network.rtt_ms'?" in (
        text_of(r.get_data(as_text=True))
    )


def test_an_error_keeps_the_last_valid_results_marked(client: FlaskClient) -> None:
    good = client.get("/?preset=h96-lan&network.rtt_ms=5", headers=HX)
    last = html.unescape(re.search(r'name="last" value="([^"]*)"', good.get_data(as_text=True)).group(1))  # type: ignore[union-attr]
    assert last == "/?preset=h96-lan&network.rtt_ms=5"
    table = re.findall(r'<td class="num total">([^<]+)</td>', good.get_data(as_text=True))
    bad = client.get("/", query_string={"preset": "h96-lan", "network.rtt_ms": "-5", "last": last}, headers=HX)
    page = bad.get_data(as_text=True)
    assert bad.status_code == 400
    assert bad.headers["HX-Push-Url"] == "/?preset=h96-lan&network.rtt_ms=-5"  # the address: what was typed
    assert "Results of the last valid scenario" in page and 'class="results stale"' in page
    assert re.findall(r'<td class="num total">([^<]+)</td>', page) == table
    assert 'href="/?preset=h96-lan&amp;network.rtt_ms=5">Go back to that scenario' in page
    assert re.search(r'name="last" value="/\?preset=h96-lan&amp;network.rtt_ms=5"', page)  # kept for the next edit
    # the model's defaults (the landing page) are a last valid scenario too
    landing = client.get("/", headers=HX).get_data(as_text=True)
    assert 'name="last" value="/"' in landing
    r = client.get("/", query_string={"network.rtt_ms": "-5", "last": "/"}, headers=HX)
    assert "Results of the last valid scenario" in r.get_data(as_text=True)
    # without a last valid scenario (or with a bad one) there is nothing to keep
    for last_given in ("", "/?network.rtt_ms=-1", "/?preset=nope", "preset=h96-lan"):
        r = client.get("/", query_string={"network.rtt_ms": "-5", "last": last_given}, headers=HX)
        assert r.status_code == 400 and "No results" in r.get_data(as_text=True), last_given
    # a valid scenario is redirected to its address without the hidden field
    r = client.get("/", query_string={"network.rtt_ms": "5", "last": last})
    assert r.status_code == 303 and r.headers["Location"] == "/?network.rtt_ms=5"


CODE = re.compile(r"\bmodel\.[a-z_]+\b|\b[\w/]+\.py\b|\btests/|MICROSCAPE_\w+")


@pytest.mark.parametrize("url", ["/", *(f"/?preset={name}" for name in PRESETS), "/explain?preset=h96-lan"])
def test_help_texts_speak_to_users_not_to_code(client: FlaskClient, url: str) -> None:
    page = text_of(client.get(url).get_data(as_text=True))
    assert not CODE.findall(page), CODE.findall(page)


@pytest.mark.parametrize("slug", ["", "h96", "p98", "pm94", "m98", "n97", "stacks"])
def test_experiment_pages_speak_to_users_not_to_code(client: FlaskClient, slug: str) -> None:
    r = client.get(f"/experiments/{slug}")
    assert r.status_code == 200
    page = text_of(r.get_data(as_text=True))
    assert not CODE.findall(page), CODE.findall(page)


@pytest.mark.parametrize("url", ["/?preset=h96-lan", "/explain?preset=h96-lan", "/experiments/h96"])
def test_every_chart_area_says_what_to_read_without_javascript(client: FlaskClient, url: str) -> None:
    page = client.get(url).get_data(as_text=True)
    plots = re.findall(r'<div class="plot[^"]*"[^>]*data-figure="[^"]+"[^>]*>(.*?)</div>', page, re.S)
    assert plots
    for inner in plots:
        assert re.search(r'<noscript><p class="chart-noscript">[^<]*JavaScript[^<]*</p></noscript>', inner), inner
