"""Editing the calculator's fields as people do, in headless Chromium (issue 15, defects 4 and 10).

Defect 4: typing an object count on the landing page, on h96-lan or on any n97 preset answered 400
("object_count and object_size_bytes go together") and every result disappeared. The size now comes from
the page (its one size, or the objects' mean size, said beside the fields).

Defect 10: error messages read like pydantic ("Input should be greater than or equal to 1000 (got 0.0)"),
any error emptied the results column, and without JavaScript the chart areas stayed blank.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.form import change, field
from tests.browser.windows import PLOTS_DRAWN

if TYPE_CHECKING:
    from conftest import BrowserLog


def comparison_table(page: Page) -> Locator:
    return page.get_by_role("table", name=re.compile("Page load time per protocol"))


@pytest.mark.parametrize("preset", ["", "h96-lan", "n97-lan", "n97-wan", "n97-ppp"])
def test_object_count_alone_gives_results(page: Page, preset: str) -> None:
    page.goto(f"/?preset={preset}" if preset else "/")
    page.wait_for_function(PLOTS_DRAWN)
    expect(comparison_table(page)).to_be_visible()
    change(page, "page.object_count", "5")
    expect(page).to_have_url(re.compile(r"page\.object_count=5\b"))
    expect(page.locator(".field-error")).to_have_count(0)
    expect(page.get_by_text("go together")).to_have_count(0)
    expect(comparison_table(page)).to_be_visible()
    # the results are those of a page of five objects: the waterfall lists html and obj1..obj5
    expect(page.locator("#results")).to_contain_text("obj5")
    expect(page.locator("#results")).not_to_contain_text("obj6")
    size = field(page, "page.object_size_bytes")
    placeholder = size.get_attribute("placeholder") or ""
    assert re.fullmatch(r"\d+", placeholder), placeholder  # the size used is shown in the size field
    q = parse_qs(urlsplit(page.url).query)
    assert "page.object_size_bytes" not in q  # the address holds what was typed, nothing more
    page.wait_for_function(PLOTS_DRAWN)


def test_differing_sizes_become_their_mean_and_the_page_says_so(page: Page) -> None:
    page.goto("/?preset=h96-lan")
    page.wait_for_function(PLOTS_DRAWN)
    change(page, "page.object_count", "4")
    note = page.locator("#s-page .section-note")
    expect(note).to_contain_text("mean size, 2,874 bytes")  # (3,883 + 1,866) / 2
    expect(field(page, "page.object_size_bytes")).to_have_attribute("placeholder", "2874")
    # giving the size too replaces the mean, and the note goes
    change(page, "page.object_size_bytes", "1000")
    expect(page).to_have_url(re.compile(r"page\.object_size_bytes=1000\b"))
    expect(note).to_have_count(0)
    expect(comparison_table(page)).to_be_visible()


def test_object_size_alone_keeps_the_count(page: Page) -> None:
    page.goto("/?preset=n97-lan")
    page.wait_for_function(PLOTS_DRAWN)
    change(page, "page.object_size_bytes", "1000")
    expect(page).to_have_url(re.compile(r"page\.object_size_bytes=1000\b"))
    expect(page.locator(".field-error")).to_have_count(0)
    expect(field(page, "page.object_count")).to_have_attribute("placeholder", "42")
    expect(page.locator("#results")).to_contain_text("obj42")


#: The comparison table's cells, row by row (whitespace collapsed).
TABLE_CELLS = """() => {
  const table = [...document.querySelectorAll("table")].find((t) => t.caption &&
      t.caption.textContent.includes("Page load time per protocol"));
  return table ? [...table.rows].map((r) => [...r.cells].map((c) => c.textContent.replace(/\\s+/g, " ").trim())) : null;
}"""


def test_error_speaks_plainly_and_keeps_the_last_results(page: Page, browser_log: BrowserLog) -> None:
    browser_log.allow(r"status of 400")  # an invalid scenario is answered 400, which Chromium logs
    page.goto("/?preset=h96-lan")
    page.wait_for_function(PLOTS_DRAWN)
    before = page.evaluate(TABLE_CELLS)
    change(page, "network.bandwidth_bps", "0")
    message = page.locator("#f-network-bandwidth_bps-error")
    expect(message).to_have_text("Bandwidth must be a number between 1,000 and 100,000,000,000 bit/s; you gave 0.")
    stale = page.get_by_role("note").filter(has_text="Results of the last valid scenario")
    expect(stale).to_be_visible()
    expect(comparison_table(page)).to_be_visible()
    assert page.evaluate(TABLE_CELLS) == before  # the last good results, unchanged
    expect(page.locator("#results")).not_to_contain_text("No results")
    # a second mistake keeps the same results; correcting every field brings fresh ones
    change(page, "network.rtt_ms", "-5")
    expect(page.locator("#f-network-rtt_ms-error")).to_have_text(
        "RTT must be a number between 0 and 10,000 ms; you gave -5."
    )
    expect(stale).to_be_visible()
    assert page.evaluate(TABLE_CELLS) == before
    change(page, "network.bandwidth_bps", "")
    # one edit's answer in before the next edit (two requests in flight may be answered in either order)
    expect(page.locator("#f-network-bandwidth_bps-error")).to_have_count(0)
    change(page, "network.rtt_ms", "2")
    expect(page.locator(".field-error")).to_have_count(0)
    expect(stale).to_have_count(0)
    page.wait_for_function(f"(before) => JSON.stringify(({TABLE_CELLS})()) !== JSON.stringify(before)", arg=before)
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=2\b"))
    assert "last=" not in page.url


def test_without_javascript_an_error_keeps_the_results_and_charts_say_why(
    nojs_page: Page, browser_log: BrowserLog
) -> None:
    browser_log.allow(r"status of 400")
    page = nojs_page
    page.goto("/?preset=h96-lan")
    notices = page.locator(".plot .chart-noscript")
    assert notices.count() == page.locator(".plot[data-figure]").count() >= 3
    expect(notices.first).to_be_visible()
    expect(notices.first).to_contain_text("JavaScript")
    field(page, "network.rtt_ms").fill("-5")
    page.get_by_role("button", name="Compute").click()
    expect(page.locator("#f-network-rtt_ms-error")).to_contain_text("RTT must be a number between 0 and 10,000 ms")
    expect(page.get_by_role("note").filter(has_text="Results of the last valid scenario")).to_be_visible()
    expect(comparison_table(page)).to_be_visible()
