"""Issue 15, defect 1: an edit made with the mouse or Enter leaves the page where it was, results on screen.

Before the fix every edit threw the page to its bottom (scrollY about 8,770 at 1366x768): htmx replaces the
whole calculator block by inserting the new block before removing the old one, and Chromium's scroll
anchoring kept a node of the old block in place. Now the page stays put, the edited field stays in view, and
the results stay on screen: pinned beside the form on wide windows (and keep their own scroll position), and
as the fastest time in the form's sticky bar on a phone.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.windows import ONE_COLUMN_BELOW, PLOTS_DRAWN, WINDOW_IDS, WINDOWS, use_window

ROWS = """() => [...document.querySelectorAll("table.compare tbody th")].map((th) => th.textContent.trim())"""


def in_view(page: Page, target: Locator) -> bool:
    box = target.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["height"] > 0


def results_on_screen(page: Page) -> None:
    size = page.viewport_size
    assert size is not None
    if size["width"] < ONE_COLUMN_BELOW:
        summary = page.locator(".actions .to-results")
        expect(summary).to_contain_text("Fastest:")
        assert in_view(page, summary), "the fastest time is not on screen"
    else:
        assert in_view(page, page.locator(".results .headline")), "the results headline left the screen"
        assert in_view(page, page.locator("table.compare caption")), "the comparison table left the screen"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_ticking_a_protocol_with_the_mouse_keeps_the_page_in_place(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto("/?preset=pm94-remote")
    page.wait_for_function(PLOTS_DRAWN)
    page.evaluate("window.scrollTo(0, 300)")
    box = page.locator("#f-protocols-h3")
    if not in_view(page, box):  # on a phone the protocols sit further down
        box.scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    rows = page.evaluate(ROWS)
    assert not any("h3" in r for r in rows)

    box.click()
    page.wait_for_function(f"() => ({ROWS})().some((r) => r.includes('h3'))")
    page.wait_for_function(PLOTS_DRAWN)

    after = page.evaluate("window.scrollY")
    assert abs(after - before) <= 2, f"the page moved from scrollY {before} to {after}"
    expect(page.locator("#f-protocols-h3")).to_be_focused()
    assert in_view(page, page.locator("#f-protocols-h3")), "the ticked box left the screen"
    results_on_screen(page)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_enter_in_a_field_keeps_the_page_in_place(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto("/?preset=pm94-remote")
    page.wait_for_function(PLOTS_DRAWN)
    rtt = page.locator("#f-network-rtt_ms")
    rtt.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 120)")  # not at the top: a jump to either end would show
    assert in_view(page, rtt)
    before = page.evaluate("window.scrollY")
    assert before > 0
    total = page.locator("table.compare td.total").first.inner_text()

    rtt.fill("250")
    rtt.press("Enter")
    expect(page.locator("table.compare td.total").first).not_to_have_text(total)
    page.wait_for_function(PLOTS_DRAWN)

    after = page.evaluate("window.scrollY")
    assert abs(after - before) <= 2, f"the page moved from scrollY {before} to {after}"
    assert in_view(page, page.locator("#f-network-rtt_ms")), "the edited field left the screen"
    results_on_screen(page)


@pytest.mark.parametrize("window", WINDOWS[1:], ids=WINDOW_IDS[1:])
def test_results_beside_the_form_keep_their_own_scroll_position(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto("/?preset=pm94-remote")
    page.wait_for_function(PLOTS_DRAWN)
    results = page.locator("#results")
    results.evaluate("(el) => { el.scrollTop = 500; }")
    kept = results.evaluate("(el) => el.scrollTop")
    assert kept == 500, "the results beside the form do not scroll on their own"

    page.locator("#f-protocols-h3").click()
    page.wait_for_function(f"() => ({ROWS})().some((r) => r.includes('h3'))")
    page.wait_for_function(PLOTS_DRAWN)
    assert abs(page.locator("#results").evaluate("(el) => el.scrollTop") - kept) <= 2
