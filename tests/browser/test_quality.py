"""Real-world quality of the calculator in Chromium: offline, first-view weight, caching, keyboard use.

Issue 5, "Real-world quality": htmx and plotly come from ``latency_lab_web/static/`` (no CDN; the browser fixture resolves
no other host, and any request elsewhere fails the test), the first view transfers at most 1.5 MB
compressed, static files are cached, and the form can be used with the keyboard with a visible focus.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.windows import PLOTS_DRAWN

#: Issue 5: "First view transfers at most 1.5 MB compressed".
FIRST_VIEW_LIMIT_BYTES = 1_500_000


def _network_log(page: Page) -> dict[str, dict[str, Any]]:
    """Chromium's own account of each request (DevTools protocol): bytes on the wire, cache use."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    log: dict[str, dict[str, Any]] = {}

    def received(event: dict[str, Any]) -> None:
        response = event["response"]
        log.setdefault(event["requestId"], {}).update(
            url=response["url"],
            encoding=response["headers"].get("content-encoding") or response["headers"].get("Content-Encoding"),
            cached=bool(response.get("fromDiskCache") or response.get("fromMemoryCache")),
        )

    def served_from_cache(event: dict[str, Any]) -> None:
        log.setdefault(event["requestId"], {})["cached"] = True

    def finished(event: dict[str, Any]) -> None:
        log.setdefault(event["requestId"], {})["bytes"] = event["encodedDataLength"]

    cdp.on("Network.responseReceived", received)
    cdp.on("Network.requestServedFromCache", served_from_cache)
    cdp.on("Network.loadingFinished", finished)
    return log


def _summary(log: dict[str, dict[str, Any]]) -> str:
    return "\n".join(
        f"  {entry.get('bytes', 0):>9,} B {entry.get('encoding') or '-':>5} "
        f"{'cached' if entry.get('cached') else '':6} {entry.get('url', '?')}"
        for entry in log.values()
    )


def test_first_view_is_small_and_compressed_and_static_files_are_cached(page: Page, live_server: str) -> None:
    log = _network_log(page)
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    page.wait_for_load_state("networkidle")

    first = dict(log)
    total = sum(entry.get("bytes", 0) for entry in first.values())
    print(f"first view: {total:,} bytes in {len(first)} responses\n{_summary(first)}")
    assert total <= FIRST_VIEW_LIMIT_BYTES, f"first view transferred {total:,} bytes:\n{_summary(first)}"
    for entry in first.values():
        url = entry.get("url", "")
        if url.endswith(".js") or ".js?" in url or ".css" in url:
            assert entry.get("encoding") in {"gzip", "br", "zstd", "deflate"}, f"not compressed: {url}"

    # A second view (a new navigation, as from a link) takes the scripts and styles from the cache.
    log.clear()
    page.goto("/?preset=n97-lan")
    page.wait_for_function(PLOTS_DRAWN)
    page.wait_for_load_state("networkidle")
    static = [entry for entry in log.values() if "/static/" in entry.get("url", "")]
    assert static, f"no static file was used on the second view:\n{_summary(log)}"
    # From the memory or disk cache: nothing on the wire (a revalidation would cost a request and headers).
    refetched = [entry["url"] for entry in static if not entry.get("cached") and entry.get("bytes", 0) > 0]
    assert not refetched, f"static files fetched again instead of cached: {refetched}\n{_summary(log)}"


def test_works_offline_with_local_scripts_only(page: Page, live_server: str) -> None:
    """Every script and stylesheet comes from the app itself (the fixture fails any other request)."""
    page.goto("/?preset=h96-lan")
    page.wait_for_function(PLOTS_DRAWN)
    sources = page.eval_on_selector_all("script[src], link[rel=stylesheet]", "nodes => nodes.map(n => n.src || n.href)")
    assert sources
    assert all(src.startswith(live_server + "/static/") for src in sources), sources
    assert page.evaluate("typeof htmx") == "object"
    assert page.evaluate("typeof Plotly") == "object"


def _focus_ring(page: Page) -> dict[str, str]:
    return page.evaluate(
        """() => {
          const el = document.activeElement;
          const s = getComputedStyle(el);
          return {tag: el.tagName.toLowerCase(), id: el.id || "", name: el.getAttribute("name") || "",
                  outlineStyle: s.outlineStyle, outlineWidth: s.outlineWidth, boxShadow: s.boxShadow,
                  focusVisible: String(el.matches(":focus-visible"))};
        }"""
    )


def test_keyboard_reaches_the_form_fields_with_a_visible_focus(page: Page) -> None:
    page.goto("/")
    page.wait_for_load_state("load")
    reached: list[dict[str, str]] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        ring = _focus_ring(page)
        if ring["tag"] in {"input", "select", "textarea", "button"}:
            reached.append(ring)
    names = {ring["name"] or ring["id"] for ring in reached}
    for expected in ("preset", "rtt_ms", "bandwidth_bps"):
        assert any(expected in name for name in names), f"Tab never reached {expected}; reached {sorted(names)}"
    for ring in reached:
        visible = (ring["outlineStyle"] != "none" and ring["outlineWidth"] not in {"0px", ""}) or (
            ring["boxShadow"] not in {"none", ""}
        )
        assert ring["focusVisible"] == "true" and visible, f"no visible focus on {ring}"


def test_skip_link_is_the_first_stop_and_moves_to_the_content(page: Page) -> None:
    page.goto("/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#main$"))
