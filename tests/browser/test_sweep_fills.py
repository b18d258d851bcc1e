"""Issue 25: a lossy page's sweep plot keeps all its points. The page's first answer draws the round-trip times that
fit its time budget (11 of 121 on n97-wan at 1 % loss); the plot then asks for the rest in follow-up requests
(``GET /sweep-points``, one slice each) and merges them in, until every value is drawn for each protocol, the data
table has a row for each in order, and the caption no longer says values were left out for the budget. axe-core finds
nothing serious once it is filled in. Without JavaScript the page shows what it shows without them.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from latency_lab_web.web.form import SWEEPS
from tests.browser.windows import PLOTS_DRAWN, axe_violations, use_window

LOSSY = "/?preset=n97-wan&network.loss_rate=0.01"
VALUES = list(SWEEPS["network.rtt_ms"].values)

#: Each trace of the sweep plot as drawn: its name and its x values.
TRACES = "() => document.getElementById('plot-sweep').data.map((t) => ({name: t.name, x: Array.from(t.x)}))"
#: True once every trace of the sweep plot holds every value (the fills are merged in).
FILLED = f"() => {{ const d = document.getElementById('plot-sweep').data; return !!d && d.length > 0 && d.every((t) => t.x.length === {len(VALUES)}); }}"


@pytest.mark.parametrize("window", [(1366, 768), (390, 844)], ids=["1366x768", "390x844"])
def test_the_lossy_sweep_plot_fills_in_every_value(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/sweep-points" in r.url else None)
    page.goto(LOSSY)
    caption = page.locator("#sweep-left-out")
    page.wait_for_function(FILLED, timeout=60_000)
    expect(caption).to_have_text("No value was left out for the time budget.")
    assert "over this page" not in (caption.text_content() or "")
    for trace in page.evaluate(TRACES):
        assert trace["x"] == VALUES, trace["name"]  # every value once, in order
    assert len(asked) >= 2 and all("chart=sweep" in u for u in asked)
    page.wait_for_function(PLOTS_DRAWN)
    rows = page.locator("#sweep-rows tr").evaluate_all("(rs) => rs.map((r) => parseFloat(r.dataset.value))")
    assert rows == VALUES
    found = axe_violations(page)
    assert not found, found


def test_without_javascript_the_page_shows_its_first_answer(nojs_page: Page) -> None:
    nojs_page.goto(LOSSY)
    caption = nojs_page.locator("#sweep-left-out").text_content() or ""
    assert re.match(r"Left out \(over this page's time budget\): 110 values from", caption), caption
    assert nojs_page.locator("#sweep-rows tr").count() == len(VALUES) - 110
