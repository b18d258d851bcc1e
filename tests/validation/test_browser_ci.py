"""The browser guard (issue 28): a few page loads by real headless Chromium against the model.

Each run of :data:`validation.realstack.browser.CI_RUNS` loads its page (an HTML naming PNG images) in a fresh Debian
Chromium (Playwright, ``/usr/bin/chromium``) inside the real-stack bench's client namespace, from nginx over TLS 1.3
(HTTP/1.1 on one port, h2 by ALPN on another), with the relay's path and a capture, :data:`REPEATS` times; the
median load is compared with the model's ``persistent_parallel`` (6 connections) or ``h2`` on the bytes the load
wrote (``validation/realstack/browser.py``). Like the real-stack guard it needs root, ``/dev/net/tun``, ``ip netns``,
gcc, nginx, tcpdump and openssl, and here Chromium and Playwright: when one is missing the tests FAIL naming it
(scripts/test.sh installs them as root, as CI runs); the bench's machine-wide lock makes another bench wait.

What is judged:

- the model plus Chromium's own measured time (the renderer's discovery of the images after the HTML's end and the
  lag from the last image's end to the load event: the model has neither) against the load event, within
  :data:`TOLERANCE` or :data:`FLOOR_MS`, whichever is larger; a load during which the machine did not keep time
  (bench.noise) is loaded again;
- the model as it is falls short of the load event (it has no renderer: when the model gains a browser's processing
  time this test says so), and Chromium's own time is within :data:`OWN_MS`;
- the connections: Chromium opens as many as the model (min(6, images) for HTTP/1.1 - the HTML's connection
  takes the first image - and one for h2), seen in the capture, and uses at most that many;
- each resource's end against the model's: the HTML's last byte on the wire (the capture; the browser's ``responseEnd``
  for it lags by the renderer's commit), each image's Resource Timing ``responseEnd`` (sorted) less the discovery time;
- the whole guard within :data:`BUDGET_S`.
"""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from validation.realstack import browser, browser_report
from validation.realstack.stack import Stack, Unavailable, check

pytestmark = [pytest.mark.validation]

REPEATS = 3
#: img4-h1 is the nearest to it: +3.5 to +4.2 % in the guard's four runs on 2026-11-29 (load 18-21; Chromium's late
#: binding, docs/measurements.md); a model a round trip off (8 % on img4-h1's 20 ms path) is still refused
TOLERANCE = 0.07
FLOOR_MS = 5.0
#: a resource's end: the tolerance of the page's time, at least this much (one image's decode and the IPC to the
#: renderer are not in the model)
RESOURCE_FLOOR_MS = 8.0
#: Chromium's own time per load (ms): 26-75 ms from the HTML's end to the first image request, 1-21 ms from the last
#: image to the load event, on 2026-11-29 at load 3-19
OWN_MS = (5.0, 150.0)
BUDGET_S = 180.0


def within(model_ms: float, real_ms: float, floor_ms: float = FLOOR_MS) -> bool:
    return abs(model_ms - real_ms) <= max(TOLERANCE * real_ms, floor_ms)


def _missing() -> str | None:
    try:
        check()
    except Unavailable as e:
        return str(e)
    if shutil.which(browser.CHROMIUM) is None:
        return f"{browser.CHROMIUM} is missing: apt-get install chromium (scripts/test.sh installs it as root)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is missing: pip install -r requirements-dev.txt"
    return None


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    why = _missing()
    if why is not None:
        pytest.fail(f"the browser guard cannot run on this machine: {why}")
    with Stack() as s:
        yield s


@pytest.fixture(scope="module")
def results(stack: Stack) -> dict[str, Any]:
    t = time.monotonic()
    rows = [browser.run(stack, spec, repeats=REPEATS) for spec in browser.ci_runs()]
    return {"rows": rows, "seconds": time.monotonic() - t}


def _show(rows: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{r['id']} load {r['real_ms']:.1f} (all {[round(x, 1) for x in r['load_ms_all']]}) model {r['model_ms']:.1f} "
        f"error {100 * r['error']:+.1f}% model+own {r['accounted_ms']:.1f} ({100 * r['accounted_error']:+.1f}%; "
        f"discovery {r['real']['discovery_ms']:.1f}, lag {r['real']['load_lag_ms']:.1f}) connections "
        f"{r['real']['connections']}/{r['model_connections']} ends {r['resource_end_diff_ms']}"
        + (f" NOISE {r['noise']}" if r["noise"] else "")
        for r in rows
    )


def test_model_with_chromiums_own_time_meets_the_load_event(results: dict[str, Any]) -> None:
    rows = results["rows"]
    print(f"\nbrowser guard, {results['seconds']:.0f} s:\n{_show(rows)}")  # shown with pytest -s
    bad = [r for r in rows if not within(r["accounted_ms"], r["real_ms"])]
    assert not bad, _show(bad)
    assert results["seconds"] <= BUDGET_S, f"the guard took {results['seconds']:.0f} s"


def test_model_falls_short_by_chromiums_own_time(results: dict[str, Any]) -> None:
    """The model as it is ends before the load event (it has no renderer), and Chromium's own time is a renderer's:
    the images' first request on the wire OWN_MS[0]-OWN_MS[1] ms after the HTML's end (the browser's clock aligned
    on the capture's first SYN: a misalignment shows here), the load event at most OWN_MS[1] after the last image."""
    lo, hi = OWN_MS
    for r in results["rows"]:
        x = r["real"]
        assert r["error"] < 0, _show([r])
        assert lo <= x["discovery_ms"] <= hi, _show([r])
        assert 0 <= x["load_lag_ms"] <= hi, _show([r])
        assert x["html_end_ms"] < x["first_fetch_ms"] <= x["html_end_ms"] + x["discovery_ms"], _show([r])


def test_connections_as_the_model_opens_them(results: dict[str, Any]) -> None:
    """Chromium opens as many connections as the model; it may use fewer (late binding: a request goes to the first
    connection free, and the HTML's connection can finish a small image before a new connection is ready)."""
    for r in results["rows"]:
        n = len(browser.PAGES[r["page"]]["object_bytes"])
        expect = 1 if r["protocol"] == "h2" else min(browser.CHROME_CONNECTIONS, n)
        assert r["real"]["connections_opened"] == expect == r["model_connections"], _show([r])
        assert 1 <= r["real"]["connections"] <= expect, _show([r])
        assert r["real"]["protocol_seen"] == ("h2" if r["protocol"] == "h2" else "http/1.1")


def test_each_resource_ends_as_modelled(results: dict[str, Any]) -> None:
    for r in results["rows"]:
        disc = r["real"]["discovery_ms"]
        diffs = r["resource_end_diff_ms"]
        assert len(diffs) == 1 + len(browser.PAGES[r["page"]]["object_bytes"])
        # the HTML's end (its last byte on the wire: the browser's responseEnd for it lags by the renderer's commit,
        # 22 ms in a CI run on 2026-11-30) has no discovery before it; the images' ends follow it by the discovery
        tol = max(TOLERANCE * r["real_ms"], RESOURCE_FLOOR_MS)
        assert abs(diffs[0]) <= tol, _show([r])
        late = [d + disc for d in diffs[1:]]
        assert statistics.median(abs(x) for x in late) <= tol, _show([r])


def test_png_is_exact_and_valid() -> None:
    """No root needed: the images are PNGs of exactly the size asked for, chunks with valid CRCs."""
    import struct
    import zlib

    for size in (120, 2000, 60000):
        data = browser.png(size)
        assert len(data) == size and data[:8] == b"\x89PNG\r\n\x1a\n"
        pos, kinds = 8, []
        while pos < len(data):
            (n,) = struct.unpack("!I", data[pos : pos + 4])
            kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
            assert struct.unpack("!I", data[pos + 8 + n : pos + 12 + n])[0] == zlib.crc32(kind + body)
            kinds.append(kind)
            pos += 12 + n
        assert kinds == [b"IHDR", b"IDAT", b"paDd", b"IEND"]
    with pytest.raises(ValueError, match="smallest PNG"):
        browser.png(40)


def test_lantern_figures() -> None:
    """No root needed: Spearman's rho (ties share a rank) and the error figures on hand-checked rows."""
    assert browser_report.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert browser_report.spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert browser_report.ranks([5, 1, 5, 2]) == [3.5, 1.0, 3.5, 2.0]
    # rho of (1,2,3,4) against (1,3,2,4): 1 - 6 * (0 + 1 + 1 + 0) / (4 * 15) = 0.8
    assert browser_report.spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    rows = [
        {"error": -0.1, "model_ms": 90.0, "real_ms": 100.0},
        {"error": 0.2, "model_ms": 240.0, "real_ms": 200.0},
        {"error": 0.0, "model_ms": 300.0, "real_ms": 300.0},
    ]
    s = browser_report.stats(rows)
    assert s["median_abs_error"] == pytest.approx(0.1)
    assert s["mean_abs_error"] == pytest.approx(0.1)
    assert s["mean_error"] == pytest.approx(0.1 / 3)
    assert s["spearman_rho"] == pytest.approx(1.0)


def test_tolerance_refuses_a_round_trip() -> None:
    """No root needed: img4-h1 on its 20 ms path (about 235 ms) passes at +4.2 % and is refused a round trip off;
    on a short load the floor holds."""
    assert within(245.0, 235.0) and not within(235.0 + 20.0, 235.0) and not within(235.0 - 20.0, 235.0)
    assert within(64.9, 60.0) and not within(65.1, 60.0)


def test_stored_comparison_meets_the_goals_with_chromiums_own_time() -> None:
    """No root needed: the stored 40 runs (validation/realstack/browser_results.json) are the runs as defined now, and
    the model as it is now, on each run's stored median load, meets the issue's goals (median |error| <= 5 %, p95 <=
    15 %) against the load event once Chromium's measured own time is added; alone it is short of the load event on
    most runs (it has no renderer)."""
    import json

    data = json.loads(browser_report.RESULTS.read_text())
    assert [(r["id"], r["doc"]) for r in data["runs"]] == [(s["id"], s["doc"]) for s in browser.runs()]
    # measured as defined now: the HTML's end on the wire, the browser's responseEnd for it beside it
    assert all(
        r["real"]["html_end_ms"] <= r["real"]["html_end_browser_ms"] + browser.CLOCK_SLACK_MS for r in data["runs"]
    )
    assert len(data["runs"]) >= 40
    rows = [{**r, **browser.compare(r)} for r in data["runs"]]
    acc = browser_report.stats(rows, "accounted_error", "accounted_ms")
    raw = browser_report.stats(rows)
    assert acc["median_abs_error"] <= 0.05 and acc["p95_abs_error"] <= 0.15, acc
    assert acc["spearman_rho"] >= 0.95 and raw["spearman_rho"] >= 0.95, (acc, raw)
    assert raw["mean_error"] < -0.03, raw
    assert "Spearman's rho | 0.81 |" in browser_report.summary({"runs": rows})


def test_h2_settings_are_read_from_the_capture() -> None:
    """No root needed: nginx's SETTINGS records on the navigation's connection, read as :func:`browser._h2_settings`
    reads a load, from the packets of the load of img12-h2-100ms-5M quoted in issue 28 (ms from the first SYN,
    payload bytes): after the client's Finished the two tickets, SETTINGS + WINDOW_UPDATE (62), the client's SETTINGS
    ACK (31, up), nginx's SETTINGS ACK (31), then the HTML. A connection whose HTML follows the tickets has none."""
    from validation.realstack import pcap

    def conn(seq: list[tuple[float, bool, int]]) -> pcap.Connection:
        return pcap.Connection(1, [pcap.Packet(t / 1000.0, up, 1, n + 52, n, 0, 0x18) for t, up, n in seq])

    finished = (257.1, True, 64)
    tickets = [(307.47, False, 79), (307.65, False, 79)]
    html = [(311.47, False, 1460), (313.87, False, 1460)]
    load = conn([finished, *tickets, (307.82, False, 62), (308.07, True, 31), (308.22, False, 31), *html])
    assert browser._h2_settings(load, 0.2571) == [62, 31] == list(browser.H2_SETTINGS_CAPTURED)
    assert browser._h2_settings(conn([finished, *tickets, *html]), 0.2571) is None
    # the model's document for an h2 run takes them (the stored loads predate the measurement: the capture's)
    run = next(r for r in browser_report_runs() if r["protocol"] == "h2")
    doc = browser.model_doc(run["doc"], "h2", run["real"])
    assert (doc["multiplex"]["server_settings_bytes"], doc["multiplex"]["settings_ack_bytes"]) == (62, 31)
    # Linux's window of packets, and the HTML's HEADERS with its DATA (the capture's first HTML segment is full)
    assert doc["tcp"]["window_counts_packets"] is True and doc["multiplex"]["headers_alone"] is False
    assert (
        browser.model_doc(run["doc"], "h2", {**run["real"], "h2_settings": [70, 40]})["multiplex"]["settings_ack_bytes"]
        == 40
    )


def browser_report_runs() -> list[dict[str, Any]]:
    import json

    return list(json.loads(browser_report.RESULTS.read_text())["runs"])
