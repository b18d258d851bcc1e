"""The comparison's and the gallery's tables on a phone (issue 25): they stack (a row a block, each cell under its
column's name) instead of scrolling sideways with "published" and "why" off-screen; at 1366 and 1920 px they stay
tables. axe-core stays clean."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from tests.browser.windows import PLOTS_DRAWN, WINDOW_IDS, WINDOWS, axe_violations, use_window

#: Each table's box: whether it scrolls sideways, and the right edge of its widest cell against the window.
TABLES = """(selector) => [...document.querySelectorAll(selector)].map((t) => {
  const box = t.closest(".table-wrap") || t.parentElement;
  const cells = [...t.querySelectorAll("tbody td, tbody th")];
  return {
    scrolls: box.scrollWidth > box.clientWidth + 1,
    right: Math.max(...cells.map((c) => c.getBoundingClientRect().right)),
    window: document.documentElement.clientWidth,
    display: getComputedStyle(t.querySelector("tbody tr")).display,
    labels: cells.filter((c) => c.tagName === "TD").map((c) => c.getAttribute("data-label")),
  };
})"""


def _table1(page: Page) -> None:
    page.goto("/compare")
    url = page.get_by_role("link", name=re.compile("Seed 000's table 1")).get_attribute("href")
    assert url is not None
    page.goto(url)
    page.wait_for_function(PLOTS_DRAWN)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_the_comparison_table_fits_with_published_and_why(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    _table1(page)
    (table,) = page.evaluate(TABLES, "table.side-by-side")
    assert not table["scrolls"], table
    assert table["right"] <= table["window"] + 1, table
    why = page.locator("table.side-by-side tbody tr").nth(1).locator("td.why")
    published = page.locator("table.side-by-side tbody tr").nth(1).locator("td").nth(4)
    for cell in (why, published):
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= window[0] + 1, box
    if window[0] < 640:
        assert table["display"] == "block"
        assert "published (ms)" in table["labels"] and "why" in table["labels"]
    else:
        assert table["display"] == "table-row"
    assert not axe_violations(page)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", ["/experiments/", "/experiments/h96"])
def test_the_gallery_tables_fit(page: Page, window: tuple[int, int], path: str) -> None:
    use_window(page, window)
    page.goto(path)
    if path != "/experiments/":  # the index draws no chart
        page.wait_for_function(PLOTS_DRAWN)
    tables = page.evaluate(TABLES, "table.gallery-index, table.comparisons")
    assert tables
    for table in tables:
        if window[0] < 640:
            assert not table["scrolls"] and table["right"] <= table["window"] + 1, table
            assert all(table["labels"]), table
    assert not axe_violations(page)
