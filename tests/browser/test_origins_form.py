"""A page's origins in the calculator, in headless Chromium (issue 28): the origins' fields edited as people do
(htmx swaps the form and results in place, the address follows), and axe-core finding nothing serious with them
given, wrong and open."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from playwright.sync_api import Page, expect

from tests.browser.form import change, field
from tests.browser.windows import PLOTS_DRAWN, axe_violations

if TYPE_CHECKING:
    from conftest import BrowserLog

START = "/?protocols=h2&page.origins.dns_ms=50&page.object_origins=1,0,1"
OPEN_EVERY_DETAILS = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"


def effect_rows(page: Page) -> list[list[str]]:
    """The origins' effect table's rows: protocol, this page, one origin, the difference (ms, as shown)."""
    return page.eval_on_selector_all(
        "table.origins-effect tbody tr", "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim()))"
    )


def ms(text: str) -> float:
    return float(text.replace(",", ""))


def test_editing_the_origins_updates_results_and_address(page: Page, browser_log: BrowserLog) -> None:
    browser_log.allow(r"status of 400")  # the last edit is invalid: answered 400
    page.goto(START)
    page.wait_for_function(PLOTS_DRAWN)
    expect(page.get_by_role("heading", name="The page's origins")).to_be_visible()
    (before,) = effect_rows(page)
    assert before[0] == "h2"
    assert abs(ms(before[3]) - (ms(before[1]) - ms(before[2]))) <= 0.11  # the difference, each rounded to 0.1
    page.evaluate(OPEN_EVERY_DETAILS)
    change(page, "page.origins.preconnected", "yes")
    expect(page).to_have_url(re.compile(r"page\.origins\.preconnected=true\b"))
    expect(page.locator("table.origins-table")).to_contain_text("yes")
    page.wait_for_function(PLOTS_DRAWN)
    (after,) = effect_rows(page)
    # preconnected, origin 1's lookup and handshake run from the click: the page is faster, the one-origin page the same
    assert after[2] == before[2] and ms(after[1]) < ms(before[1])
    # two values where one origin is given: said beside the field, the last results kept
    page.evaluate(OPEN_EVERY_DETAILS)
    change(page, "page.origins.coalesce_with_html", "no,no")
    error = page.locator("#f-page-origins-coalesce_with_html-error")
    expect(error).to_contain_text("different numbers of values")
    expect(field(page, "page.origins.coalesce_with_html")).to_have_attribute("aria-invalid", "true")


def test_no_serious_accessibility_violation_with_origins(page: Page, browser_log: BrowserLog) -> None:
    browser_log.allow(r"status of 400")  # the second page is invalid: answered 400, which Chromium logs
    for path in (START, "/?page.origins.dns_ms=50,-5&page.origins.preconnected=yes"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
        if page.locator(".plot[data-figure]").count():
            page.wait_for_function(PLOTS_DRAWN)
        page.evaluate(OPEN_EVERY_DETAILS)
        found = axe_violations(page)
        assert found == [], found
