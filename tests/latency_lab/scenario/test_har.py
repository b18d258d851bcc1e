"""The HAR import (latency_lab.scenario.har): real and hand-written HARs read into pages, and hostile ones refused.

The fixtures are in tests/data/har (its README says which were recorded with the real Chromium and which were
written by hand); the expected figures are read from the files themselves, not written here.
"""

from __future__ import annotations

import copy
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

import latency_lab
from latency_lab.scenario.errors import validate_scenario
from latency_lab.scenario.har import (
    HarError,
    WhatIf,
    har_page,
    http_version,
    load_har,
    origin_of,
    read_har,
    render_blocking,
    to_scenario,
    wire_bytes,
)
from latency_lab.scenario.limits import MAX_HAR_BYTES, MAX_HAR_CONTAINERS, MAX_HAR_DEPTH, MAX_HAR_ENTRIES

DATA = Path(__file__).parents[2] / "data" / "har"
FIXTURES = ("chromium-devtools", "chromium-playwright", "firefox", "webpagetest")
#: Every HAR, accepted or refused, is answered within this much CPU time (s): the issue's "under a second" (CPU
#: time, not wall time: the machine is shared).
SECOND = 1.0


def raw(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((DATA / f"{name}.har").read_text())
    return doc


def text(doc: Any) -> str:
    return json.dumps(doc)


def by_url(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["request"]["url"]: e for e in doc["log"]["entries"]}


# --- the recorded Chromium HAR: the real initiator tree ---------------------------------------------------


def test_devtools_har_reads_the_real_initiator_tree() -> None:
    doc = raw("chromium-devtools")
    page = load_har(text(doc))
    entries = by_url(doc)
    urls = [page.document.url, *(o.url for o in page.objects)]
    assert page.document.url.endswith("/index.html")
    # the favicon is asked for after onLoad: left out, and said so
    assert not any(u.endswith("favicon.ico") for u in urls)
    assert any("after onLoad" in n for n in page.notes)
    # the initiators as Chromium reported them, as parent indices (0 the HTML, k the k-th object)
    index = {u: k for k, u in enumerate(urls)}
    for k, o in enumerate(page.objects, start=1):
        assert 0 <= o.parent < k, "a parent comes before its child"
        init = entries[o.url]["_initiator"]
        if init.get("url"):
            assert urls[o.parent] == init["url"]
        elif init["type"] == "script":
            assert urls[o.parent] == init["stack"]["callFrames"][0]["url"]
    css = index[next(u for u in urls if u.endswith("style.css"))]
    js = index[next(u for u in urls if u.endswith("app.js"))]
    assert {urls[k].rsplit("/", 1)[1] for k, o in enumerate(page.objects, 1) if o.parent == css} == {
        "bg.png",
        "font.woff2",
    }
    assert [urls[k].rsplit("/", 1)[1] for k, o in enumerate(page.objects, 1) if o.parent == js] == ["data.json"]
    assert page.depth == 2
    # sizes on the wire: response.bodySize where Chromium gave the header's size, else _transferSize less it
    for o in page.objects:
        r = entries[o.url]["response"]
        if r["bodySize"] >= 0:
            assert (o.wire_bytes, o.size_field) == (r["bodySize"], "response.bodySize")
        else:
            assert o.wire_bytes == r["_transferSize"] and o.size_field.startswith("response._transferSize")
    # two origins: the site and the "third party" (the font and one image)
    assert len(page.origins) == 2
    third = page.origins[1]
    assert {u.rsplit("/", 1)[1] for u in urls if origin_of(u) == third.origin} == {"d.png", "font.woff2"}
    assert all(o.protocol == "h1" for o in page.origins)
    assert page.on_load_ms == doc["log"]["pages"][0]["pageTimings"]["onLoad"]
    assert page.wire_bytes == page.document.wire_bytes + sum(o.wire_bytes for o in page.objects)


def test_playwright_har_has_no_initiators_so_every_object_hangs_off_the_html() -> None:
    doc = raw("chromium-playwright")
    page = load_har(text(doc))
    assert page.objects and all(o.parent == 0 and o.initiator == "none" for o in page.objects)
    assert page.depth == 1
    assert page.creator.startswith("Playwright")


# --- Firefox and WebPageTest (hand-written in their export's form) ---------------------------------------


def test_firefox_har_protocols_failed_requests_and_sizes() -> None:
    doc = raw("firefox")
    page = load_har(text(doc))
    entries = by_url(doc)
    protocols = {o.origin: o.protocol for o in page.origins}
    assert protocols == {
        "https://shop.example:443": "h2",
        "https://img.shop-cdn.example:443": "h3",
        "https://tracker.example:443": "h1",
    }
    failed = [e for e in doc["log"]["entries"] if e["response"]["status"] == 0]
    assert len(page.objects) == len(doc["log"]["entries"]) - 1 - len(failed)
    assert any("status 0" in n for n in page.notes)
    for o in page.objects:  # Firefox's bodySize: the body as transferred (compressed), not content.size
        assert o.wire_bytes == entries[o.url]["response"]["bodySize"]
    home = page.origins[0]
    connects = [
        e["timings"]["connect"] - e["timings"]["ssl"]
        for e in doc["log"]["entries"]
        if origin_of(e["request"]["url"]) == home.origin and e["timings"]["connect"] > 0
    ]
    assert home.rtt_ms == pytest.approx(sorted(connects)[len(connects) // 2])


def test_webpagetest_har_protocol_and_initiator_urls() -> None:
    doc = raw("webpagetest")
    page = load_har(text(doc))
    urls = [page.document.url, *(o.url for o in page.objects)]
    entries = by_url(doc)
    for o in page.objects:
        assert urls[o.parent] == entries[o.url]["_initiator"]
        assert o.protocol == ("h3" if entries[o.url]["_protocol"] == "QUIC" else "h2")
    assert page.document.protocol == "h2"  # from _protocol: WebPageTest leaves httpVersion empty
    assert page.depth == 3  # HTML -> main.js -> ads tag.js -> its creative


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("HTTP/1.1", "h1"),
        ("http/1.0", "h1"),
        ("http/2.0", "h2"),
        ("h2", "h2"),
        ("HTTP/2", "h2"),
        ("h3", "h3"),
        ("HTTP/3", "h3"),
        ("h3-29", "h3"),
        ("QUIC", "h3"),
        ("", "h1"),
    ],
)
def test_http_version(given: str, expected: str) -> None:
    doc = raw("firefox")
    entry = doc["log"]["entries"][0]
    entry["response"]["httpVersion"] = given
    page = read_har(text(doc))
    assert http_version(page.log.entries[0]) == expected


def test_wire_bytes_falls_back_through_the_browsers_fields() -> None:
    doc = raw("firefox")
    r = doc["log"]["entries"][0]["response"]
    r.update(bodySize=-1, headersSize=300, _transferSize=5300)
    assert wire_bytes(read_har(text(doc)).log.entries[0]) == (5000, "response._transferSize - headersSize")
    del r["_transferSize"]
    doc["log"]["entries"][0]["_bytesIn"] = 4300
    assert wire_bytes(read_har(text(doc)).log.entries[0]) == (4000, "_bytesIn - headersSize")
    del doc["log"]["entries"][0]["_bytesIn"]
    assert wire_bytes(read_har(text(doc)).log.entries[0]) == (r["content"]["size"], "response.content.size")


def test_origin_writes_the_default_port() -> None:
    assert origin_of("https://a.example/x?y") == "https://a.example:443"
    assert origin_of("http://a.example:8080/") == "http://a.example:8080"
    assert origin_of("http://[::1]/") == "http://[::1]:80"


def test_entries_before_the_html_are_left_out_and_the_document_is_the_first_html() -> None:
    doc = raw("firefox")
    redirect = copy.deepcopy(doc["log"]["entries"][0])
    redirect["startedDateTime"] = "2026-11-29T08:59:59.900+00:00"
    redirect["request"]["url"] = "http://shop.example/"
    redirect["response"].update(status=301, content={"mimeType": "", "size": 0}, bodySize=0)
    doc["log"]["entries"].append(redirect)  # listed last, started first
    page = load_har(text(doc))
    assert page.document.url == "https://shop.example/"
    assert any("before the HTML" in n for n in page.notes)


# --- to_scenario: what-ifs -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_to_scenario_is_a_valid_scenario_of_the_page(name: str) -> None:
    page = load_har(text(raw(name)))
    built = to_scenario(page)
    scenario = validate_scenario(built.document)
    assert scenario.page.html_bytes == page.document.wire_bytes
    assert scenario.page.object_bytes == [o.wire_bytes for o in page.objects]
    # each origin beside the document's is one of page.origins, with its own lookup as the HAR shows it, and each
    # object names its origin; the initiator tree is the page's object_parents
    assert built.merged_origins == []
    others = [o.origin for o in page.origins[1:]]
    assert [o.dns_ms for o in scenario.page.origins] == [o.dns_ms or 0.0 for o in page.origins[1:]]
    assert list(scenario.page.object_origins or [0] * len(page.objects)) == [
        others.index(o.origin) + 1 if o.origin in others else 0 for o in page.objects
    ]
    assert built.parents == page.parents
    assert scenario.page.object_parents == page.parents
    assert scenario.tls.version == ("1.3" if page.document.url.startswith("https:") else "none")
    assert built.har_protocol == {"h1": "persistent_parallel", "h2": "h2", "h3": "h3"}[page.document.protocol]
    if page.origins[0].rtt_ms is not None:
        assert scenario.network.rtt_ms == page.origins[0].rtt_ms


def test_what_ifs_replace_what_the_har_shows() -> None:
    page = load_har(text(raw("firefox")))
    w = WhatIf(protocols=["h3", "http10"], rtt_ms=150, bandwidth_bps=10e6, loss_rate=0.01, preconnect=True)
    s = validate_scenario(to_scenario(page, w).document)
    assert s.protocols == ["h3", "http10"]
    assert (s.network.rtt_ms, s.network.bandwidth_bps, s.network.loss_rate) == (150, 10e6, 0.01)
    assert s.http.preconnect is True
    assert s.page.origins and all(o.preconnected for o in s.page.origins)  # preconnect hints for the other origins too


def test_the_early_hints_what_if_names_the_htmls_style_sheets_and_scripts() -> None:
    """A HAR records no 103: without the what-if no object is hinted; with it the style sheets and scripts the HTML
    names (render-blocking, what a server puts in a 103) are hinted and every other origin is preconnected by it, and
    h2 loads the page no later."""
    page = load_har(text(raw("webpagetest")))
    plain = validate_scenario(to_scenario(page, WhatIf(protocols=["h2"])).document)
    assert plain.page.early_hints() == () and not any(o.early_hint_preconnect for o in plain.page.origins)
    built = to_scenario(page, WhatIf(protocols=["h2"], early_hints=True))
    hinted = validate_scenario(built.document)
    kept = page.objects
    want = [o.parent == 0 and render_blocking(o.mime_type) for o in kept]
    assert hinted.page.object_early_hint == want and any(want) and not all(want)
    assert {o.mime_type.split(";")[0] for o, flag in zip(kept, want, strict=True) if flag} <= {
        "text/css",
        "application/javascript",
    }
    assert hinted.page.origins and all(o.early_hint_preconnect for o in hinted.page.origins)
    assert any("early hints: a 103 names" in note for note in built.notes)
    fast = latency_lab.predict(hinted)["results"][0]["page_load_ms"]
    slow = latency_lab.predict(plain)["results"][0]["page_load_ms"]
    assert fast <= slow


@pytest.mark.parametrize(
    ("mime", "expected"),
    [
        ("text/css", True),
        ("text/css; charset=utf-8", True),
        ("application/javascript", True),
        ("text/javascript", True),
        ("application/ecmascript", True),
        ("image/png", False),
        ("font/woff2", False),
        ("text/html", False),
    ],
)
def test_render_blocking(mime: str, expected: bool) -> None:
    assert render_blocking(mime) is expected


def test_an_origin_the_har_shows_on_the_documents_connection_is_coalesced() -> None:
    """RFC 9113 9.1.1: Chrome sent a request of another origin on the document's h2 connection (the same HAR
    ``connection`` id); that origin coalesces with the HTML's (page.origins[k].coalesce_with_html), the others do not."""
    doc = raw("webpagetest")
    entries = doc["log"]["entries"]
    for e in entries:
        e.pop("connection", None)
    cdn = next(e for e in entries if "cdn.news-static.example" in e["request"]["url"])
    entries[0]["connection"] = cdn["connection"] = "4242"
    page = load_har(text(doc))
    s = validate_scenario(to_scenario(page).document)
    names = [o.origin for o in page.origins[1:]]
    assert [o.coalesce_with_html for o in s.page.origins] == [n == "https://cdn.news-static.example:443" for n in names]
    assert [o.coalesced for o in page.origins] == [False, *(n == "https://cdn.news-static.example:443" for n in names)]


def test_removing_an_origin_drops_its_objects_and_what_they_initiated() -> None:
    page = load_har(text(raw("webpagetest")))
    ads = "https://ads.example:443"
    built = to_scenario(page, WhatIf(remove_origins=[ads]))
    kept = [o for o in page.objects if o.origin != ads]
    assert built.removed_objects == len(page.objects) - len(kept)
    assert built.document["page"]["object_bytes"] == [o.wire_bytes for o in kept]
    assert all(0 <= p <= k for k, p in enumerate(built.parents))
    assert ads not in built.merged_origins
    # a third party's child on another origin goes with it: WebPageTest's page has none, so make one
    doc = raw("webpagetest")
    doc["log"]["entries"][-1]["_initiator"] = "https://ads.example/tag.js"  # the CDN thumbnail, asked for by the ad
    page = load_har(text(doc))
    built = to_scenario(page, WhatIf(remove_origins=[ads]))
    assert built.removed_objects == 3
    expected = [o.wire_bytes for o in page.objects if o.origin != ads and not o.url.endswith("thumb1.jpg")]
    assert built.document["page"]["object_bytes"] == expected


def test_removing_an_unknown_origin_or_the_documents_is_refused_by_name() -> None:
    page = load_har(text(raw("webpagetest")))
    with pytest.raises(
        HarError,
        match=r"remove_origins\[0\]: the page has no origin 'https://ads.exampel:443'; "
        r"did you mean 'https://ads.example:443'\?",
    ):
        to_scenario(page, WhatIf(remove_origins=["https://ads.exampel:443"]))
    with pytest.raises(HarError, match="the document's own origin"):
        to_scenario(page, WhatIf(remove_origins=[page.document.origin]))


# --- hostile and malformed HARs: refused before any work, by name, fast ---------------------------------


def refused(data: str | bytes) -> HarError:
    start = time.process_time()
    with pytest.raises(HarError) as caught:
        load_har(data)
    assert time.process_time() - start < SECOND
    return caught.value


def test_not_json_not_utf8_and_not_a_har() -> None:
    assert refused("{'log': 1}").kind == "not_json"
    assert "not JSON" in refused("{'log': 1}").problems[0].message
    assert refused(b"\xff\xfe{}").kind == "not_json"
    assert refused('{"log": {"entries": [], "entries": []}}').kind == "not_json"  # a key twice
    assert refused('{"log": {"entries": [NaN]}}').kind == "not_json"
    assert refused("[1, 2]").problems[0].path == "log"
    assert refused('{"log": {"entries": 3}}').problems[0].path == "log.entries"


def test_too_large_is_refused_before_it_is_parsed() -> None:
    err = refused(b" " * (MAX_HAR_BYTES + 1))
    assert err.kind == "too_large" and err.limit is not None and err.limit.name == "max_har_bytes"
    assert f"{MAX_HAR_BYTES:,}" in str(err)


def test_too_many_entries() -> None:
    entry = raw("firefox")["log"]["entries"][1]
    err = refused(text({"log": {"entries": [entry] * (MAX_HAR_ENTRIES + 1)}}))
    assert err.kind == "limit" and err.limit is not None and err.limit.name == "max_har_entries"
    assert err.problems[0].path == "log.entries"


def test_too_many_objects_and_arrays_are_refused_before_parsing() -> None:
    err = refused('{"log": {"entries": [' + "{}," * (MAX_HAR_CONTAINERS + 1) + "{}]}}")
    assert err.kind == "limit" and err.limit is not None and err.limit.name == "max_har_containers"
    assert err.problems[0].text.startswith("HAR: the HAR holds")


def test_deep_nesting_is_refused_from_the_text() -> None:
    err = refused('{"log": {"entries": ' + "[" * 200_000 + "]" * 200_000 + "}}")
    assert err.kind == "limit" and err.limit is not None and err.limit.maximum == MAX_HAR_DEPTH
    assert err.limit.name == "max_har_depth" and "max_har_depth" in err.problems[0].text
    # a Chrome initiator's async stacks, nested past the limit
    doc = raw("chromium-devtools")
    stack: dict[str, Any] = {"callFrames": []}
    for _ in range(MAX_HAR_DEPTH):
        stack = {"callFrames": [], "parent": stack}
    doc["log"]["entries"][1]["_initiator"] = {"type": "script", "stack": stack}
    err = refused(text(doc))
    assert err.problems[0].path.startswith("log.entries[1]._initiator.stack.parent")


@pytest.mark.parametrize(
    ("field", "value", "path", "words"),
    [
        ("bodySize", -5, "log.entries[2].response.bodySize", "from -1 (not known) to 100,000,000"),
        ("bodySize", 10**12, "log.entries[2].response.bodySize", "bytes from -1"),
        ("headersSize", 1.5, "log.entries[2].response.headersSize", "a whole number of bytes"),
        ("headersSize", 300.0, None, None),  # a whole float is its integer, as JSON Schema's integer
        ("_transferSize", -2, "log.entries[2].response._transferSize", "bytes from -1"),
        ("status", 1000, "log.entries[2].response.status", "from 0 to 999"),
        ("status", "200", "log.entries[2].response.status", "from 0 to 999"),  # strict JSON types
    ],
)
def test_sizes_out_of_range_are_refused_by_path(field: str, value: Any, path: str | None, words: str | None) -> None:
    doc = raw("firefox")
    doc["log"]["entries"][2]["response"][field] = value
    if path is None:
        load_har(text(doc))
        return
    err = refused(text(doc))
    assert err.problems[0].path == path
    assert words in (err.problems[0].allowed or "")


def test_timings_out_of_range() -> None:
    doc = raw("firefox")
    doc["log"]["entries"][0]["timings"]["wait"] = -3
    assert refused(text(doc)).problems[0].path == "log.entries[0].timings.wait"
    doc = raw("firefox")
    doc["log"]["pages"][0]["pageTimings"]["onLoad"] = 1e300
    assert refused(text(doc)).problems[0].path == "log.pages[0].pageTimings.onLoad"


def test_no_page_entries_or_no_html() -> None:
    doc = raw("firefox")
    doc["log"]["pages"][0]["id"] = "another"
    assert "no entry belongs to the page" in str(refused(text(doc)))
    doc = raw("firefox")
    for e in doc["log"]["entries"]:
        e["response"]["content"]["mimeType"] = "image/png"
    assert "no HTML document" in str(refused(text(doc)))
    assert refused(text({"log": {"entries": []}})).problems[0].path == "log.entries"
    # without pages, every entry is the page's (no onLoad)
    doc = raw("firefox")
    del doc["log"]["pages"]
    page = load_har(text(doc))
    assert page.on_load_ms is None and page.objects


@pytest.mark.parametrize(
    "url",
    [
        "data:text/css,a{}",
        "ftp://files.example/a.css",
        "javascript:alert(1)",
        "http://",
        "http://a:x/",
        "http://a:99999/",
        "https://[::1/",
        "http://a:0/",
        "",
    ],
)
def test_non_http_urls_are_refused(url: str) -> None:
    doc = raw("firefox")
    doc["log"]["entries"][3]["request"]["url"] = url
    err = refused(text(doc))
    assert err.problems[0].path == "log.entries[3].request.url"
    assert "http" in (err.problems[0].allowed or "")


def test_a_bad_date_is_refused_by_path() -> None:
    doc = raw("firefox")
    doc["log"]["entries"][4]["startedDateTime"] = "yesterday"
    assert refused(text(doc)).problems[0].path == "log.entries[4].startedDateTime"


def _mutations(doc: Any, rng: random.Random) -> Any:
    """``doc`` with one value somewhere replaced by a hostile one."""
    out = copy.deepcopy(doc)
    hostile = [None, -1, -(10**20), 10**30, 1e308, "", "x" * 10_000, [], {}, [[[[]]]], True, "-1", 0.5, {"a": 1}]
    hostile += ["http://a:99999/", "https://[::1/", "text/html", "h3", "2026-13-45T99:00:00Z"]
    node = out
    path: list[Any] = []
    while isinstance(node, dict | list) and node and rng.random() < 0.85:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append(key)
        if not isinstance(node[key], dict | list):
            break
        node = node[key]
    if not path:
        return rng.choice(hostile)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = rng.choice(hostile)
    return out


@pytest.mark.parametrize("name", FIXTURES)
def test_mutated_hars_are_read_or_refused_never_crash(name: str) -> None:
    """Three hundred HARs with one value made hostile: each is read (and its scenario valid) or refused with a
    HarError, within a second; nothing else is raised."""
    rng = random.Random(28)
    doc = raw(name)
    outcomes = {"read": 0, "refused": 0}
    for _ in range(300):
        start = time.process_time()
        try:
            page = load_har(text(_mutations(doc, rng)))
            to_scenario(page)
            outcomes["read"] += 1
        except HarError as exc:
            assert exc.problems and all(p.text for p in exc.problems)
            outcomes["refused"] += 1
        assert time.process_time() - start < SECOND
    assert outcomes["read"] > 0 and outcomes["refused"] > 0


def test_har_page_of_a_parsed_document_is_the_same_as_load_har() -> None:
    data = (DATA / "webpagetest.har").read_bytes()
    assert har_page(read_har(data)) == load_har(data)
