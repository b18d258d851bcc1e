"""The charts' toolbars (issue 25): one tab stop per toolbar (the arrow keys move inside it), no "Share chart" upload
button on an offline app, and a saved PNG that carries the chart's title, its scenario and its loss rate."""

from __future__ import annotations

import re
import struct

import pytest
from playwright.sync_api import Page, expect

from tests.browser.windows import PLOTS_DRAWN, WINDOW_IDS, WINDOWS, use_window

#: Per drawn chart toolbar: how many of its buttons the Tab key stops at, and its buttons' titles.
TOOLBARS = """() => [...document.querySelectorAll(".plot[data-rendered='true'] .modebar")].map((bar) => ({
  stops: [...bar.querySelectorAll("button, a[href], [tabindex]")].filter((b) => b.tabIndex >= 0).length,
  titles: [...bar.querySelectorAll(".modebar-btn")].map((b) => b.getAttribute("data-title") || ""),
  role: bar.getAttribute("role"),
}))"""

#: Records what the PNG button asks plotly.js to save (then lets it save it).
SPY = """() => {
  window.__saved = [];
  const save = Plotly.downloadImage;
  Plotly.downloadImage = function (figure, options) {
    window.__saved.push({title: figure.layout.title.text, width: options.width, height: options.height,
                         filename: options.filename});
    return save.apply(this, arguments);
  };
}"""

LOSSY = "/?preset=p98-satellite&network.loss_rate=0.01&network.rtt_ms=600"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_each_toolbar_is_one_tab_stop_without_a_cloud_button(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    bars = page.evaluate(TOOLBARS)
    assert len(bars) >= 5, bars  # breakdown, sweep and a waterfall per protocol
    assert all(b["stops"] == 1 for b in bars), [b["stops"] for b in bars]
    assert all(b["role"] == "toolbar" for b in bars)
    titles = [t for b in bars for t in b["titles"]]
    assert not [t for t in titles if re.search(r"share|cloud|json", t, re.I)], titles
    assert any(re.search(r"png", t, re.I) for t in titles), titles


def test_the_arrow_keys_move_inside_a_toolbar_and_tab_leaves_it(page: Page) -> None:
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    first = page.locator("#plot-breakdown .modebar-btn").first
    first.focus()
    titles = page.locator("#plot-breakdown .modebar-btn")
    page.keyboard.press("ArrowRight")
    second = page.evaluate("() => document.activeElement.getAttribute('data-title')")
    assert second == titles.nth(1).get_attribute("data-title")
    page.keyboard.press("End")
    assert page.evaluate("() => document.activeElement.getAttribute('data-title')") == titles.last.get_attribute(
        "data-title"
    )
    # the button reached is the toolbar's one stop now; Tab goes on to the next chart's toolbar or beyond
    assert page.evaluate("() => document.activeElement.tabIndex") == 0
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('#plot-breakdown')")


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_a_saved_png_has_title_scenario_and_loss(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto(LOSSY)
    page.wait_for_function(PLOTS_DRAWN)
    page.evaluate(SPY)
    plot = page.locator("#plot-breakdown")
    plot.scroll_into_view_if_needed()
    plot.hover()
    with page.expect_download() as download:
        plot.locator(".modebar-btn[data-title*='png' i]").click()
    assert download.value.suggested_filename == "latency-lab-p98-satellite-breakdown.png"
    width, height = _png_size(download.value.path().read_bytes())
    saved = page.evaluate("() => window.__saved")
    assert len(saved) == 1, saved
    title = saved[0]["title"].replace("<br>", " ")
    assert "Where the time goes" in title
    assert "preset p98-satellite" in title and "Loss rate 0.01" in title and "RTT 600 ms" in title
    assert "loss rate 0.01 (1 %) per packet" in title
    assert (width, height) == (2 * saved[0]["width"], 2 * saved[0]["height"])  # scale 2


def test_the_comparisons_png_names_each_scenario(page: Page) -> None:
    page.goto("/compare?preset=h96-lan&b.tcp.nagle=false&b.network.loss_rate=0.02")
    page.wait_for_function(PLOTS_DRAWN)
    page.evaluate(SPY)
    plot = page.locator("#plot-compare")
    plot.scroll_into_view_if_needed()
    plot.hover()
    with page.expect_download() as download:
        plot.locator(".modebar-btn[data-title*='png' i]").click()
    _png_size(download.value.path().read_bytes())
    title = page.evaluate("() => window.__saved[0].title").replace("<br>", " ")
    assert "preset h96-lan" in title and "B: Nagle off, Loss rate 0.02" in title
    assert "A: no random loss" in title and "B: loss rate 0.02 (2 %) per packet" in title
    expect(page.locator(".comparison-results")).to_have_attribute("data-loss", re.compile("B: loss rate 0.02"))
