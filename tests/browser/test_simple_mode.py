"""The calculator's simple mode (issue 15): about eight fields in view, the expert ones folded away, friendly protocol
names, kept across edits and in the address; at the three window sizes, axe-core clean, never sideways scrolling."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.form import change
from tests.browser.windows import PLOTS_DRAWN, WINDOW_IDS, WINDOWS, axe_violations, horizontal_overflow, use_window

#: The scenario form's fields a reader sees without opening anything (labels of inputs and selects, and fieldsets).
VISIBLE_FIELDS = """() => [...document.querySelectorAll("#scenario .field")]
  .filter((f) => f.offsetParent !== null && !f.closest("details:not([open])") && !f.closest(".sweep-choice"))
  .map((f) => f.id)"""


def test_simple_mode_shows_eight_fields_with_plain_names(page: Page) -> None:
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    every = page.evaluate(VISIBLE_FIELDS)
    page.get_by_role("link", name="Simple mode").click()
    page.wait_for_function(PLOTS_DRAWN)
    expect(page).to_have_url(re.compile(r"\?preset=n97-wan&mode=simple$"))
    simple = page.evaluate(VISIBLE_FIELDS)
    # eight fields, and the parallel connections HTTP/1.0 with parallel connections needs (it is among the protocols)
    assert len(simple) == 9 and len(every) > len(simple), (simple, every)
    assert "f-http-parallel_connections-field" in simple
    expect(page.get_by_label("HTTP/1.1 pipelining (requests sent without waiting)")).to_be_visible()
    expect(page.locator("#more-fields summary")).to_contain_text("Expert settings")
    # an edit keeps the mode, and the results stay on screen
    change(page, "network.rtt_ms", "20")
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=20&mode=simple$"))
    page.wait_for_function(PLOTS_DRAWN)
    assert page.evaluate(VISIBLE_FIELDS) == simple
    expect(page.locator(".why-line").first).to_be_visible()
    page.get_by_role("link", name="Show every field").click()
    expect(page).to_have_url(re.compile(r"\?preset=n97-wan&network\.rtt_ms=20$"))


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_simple_mode_fits_and_is_axe_clean(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto("/?preset=pm94-remote&mode=simple")
    page.wait_for_function(PLOTS_DRAWN)
    overflow = horizontal_overflow(page)
    assert overflow["document"] <= window[0], overflow
    found = axe_violations(page)
    assert not found, found


#: The results' words a reader sees: headline, table and whys (the chart's own texts are hidden from them).
RESULT_WORDS = """() => [...document.querySelectorAll("#results .headline, #results table, #results .why-line")]
  .map((el) => el.innerText).join(" ")"""


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_simple_mode_results_are_in_plain_words(page: Page, window: tuple[int, int]) -> None:
    """Issue 25: no code names (http10_parallel) and not the full table; with loss the expected time leads."""
    use_window(page, window)
    page.goto("/?preset=p98-satellite&network.loss_rate=0.01&mode=simple")
    page.wait_for_function(PLOTS_DRAWN)
    words = page.evaluate(RESULT_WORDS)
    assert "HTTP/1.0 (a new connection per file)" in words
    assert not re.search(r"\b(http10_parallel|http10|getall)\b", words), words
    headers = page.locator("#results table thead th").all_inner_texts()
    assert headers == [
        "way of loading the page",
        "load time (ms)",
        "without loss (ms)",
        "compared with the fastest",
        "why",
    ], headers
    expect(page.locator("#results .headline")).to_contain_text("expected with 1 % of packets lost")
    expect(page.locator("#results table.compare tbody tr").first).to_have_class(re.compile("fastest"))
    expect(page.locator("#scenario code.param")).to_have_count(0)
    assert horizontal_overflow(page)["document"] <= window[0]
    assert not axe_violations(page)


def test_simple_mode_shows_parallel_connections_only_with_that_protocol(page: Page) -> None:
    page.goto("/?preset=n97-wan&protocols=persistent,pipelined&mode=simple")
    page.wait_for_function(PLOTS_DRAWN)
    assert "f-http-parallel_connections-field" not in page.evaluate(VISIBLE_FIELDS)
    page.get_by_label("HTTP/1.0, several connections at once").check()
    page.wait_for_function(PLOTS_DRAWN)
    expect(page).to_have_url(re.compile(r"mode=simple$"))
    # wait for what is asserted (the results' swap can land between a narrower wait and the check: a CI run of
    # 2026-11-28 saw the field visible, then not yet listed); a field that never shows still fails here by timeout
    page.wait_for_function(f"() => ({VISIBLE_FIELDS})().includes('f-http-parallel_connections-field')")
    assert "f-http-parallel_connections-field" in page.evaluate(VISIBLE_FIELDS)
    change(page, "http.parallel_connections", "2")
    expect(page).to_have_url(re.compile(r"http\.parallel_connections=2&mode=simple$"))
