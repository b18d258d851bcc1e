"""Typing units into the calculator (issue 15): "10 Mbps" is read, the address keeps base units, the page reads back."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from tests.browser.form import change, field
from tests.browser.windows import PLOTS_DRAWN, WINDOW_IDS, WINDOWS, axe_violations, use_window

if TYPE_CHECKING:
    from conftest import BrowserLog


def test_typed_units_become_base_units_and_read_back(page: Page) -> None:
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    change(page, "network.bandwidth_bps", "10 Mbps")
    expect(page).to_have_url(re.compile(r"network\.bandwidth_bps=10000000\b"))
    expect(field(page, "network.bandwidth_bps")).to_have_value("10000000")
    expect(page.locator("#f-network-bandwidth_bps-readable")).to_have_text("= 10 Mbit/s")
    change(page, "network.rtt_ms", "0.08 s")
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=80\b"))
    expect(page.locator(".field-error")).to_have_count(0)


def test_an_unknown_unit_is_named_beside_the_field(page: Page, browser_log: BrowserLog) -> None:
    browser_log.allow("status of 400")
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    change(page, "page.html_bytes", "64 kb")
    error = page.locator("#f-page-html_bytes-error")
    expect(error).to_contain_text("HTML must be a whole number between")
    expect(error).to_contain_text("kb is bits: write KB for bytes")
    expect(field(page, "page.html_bytes")).to_have_value("64 kb")


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_percentages_and_grouped_digits_are_read(page: Page, window: tuple[int, int]) -> None:
    """Issue 25: the help writes "0.01 is 1 %" and the app prints "1,000": both are accepted as typed."""
    use_window(page, window)
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    expect(page.locator("#f-network-loss_rate-help")).to_contain_text("Units are fine: 1 %, 0.5%")
    change(page, "network.loss_rate", "1 %")
    expect(page).to_have_url(re.compile(r"network\.loss_rate=0\.01\b"))
    expect(field(page, "network.loss_rate")).to_have_value("0.01")
    change(page, "page.html_bytes", "1,000")
    expect(page).to_have_url(re.compile(r"page\.html_bytes=1000\b"))
    change(page, "network.loss_rate", "1%")
    expect(page.locator(".field-error")).to_have_count(0)
    expect(page.locator("#results")).to_have_attribute("data-loss", "loss rate 0.01 (1 %) per packet")


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_a_page_over_the_limit_is_marked_on_its_field_in_words(
    page: Page, browser_log: BrowserLog, window: tuple[int, int]
) -> None:
    """Issue 25: "responses take 72494 segments of mss_bytes" with no field marked became words on the HTML field,
    whose help states the real limit."""
    browser_log.allow("status of 400")
    use_window(page, window)
    page.goto("/?preset=n97-wan")
    page.wait_for_function(PLOTS_DRAWN)
    help_text = page.locator("#f-page-html_bytes-help")
    expect(help_text).to_contain_text("at most 10,000 packets: about 14.6 MB with 1,460-byte segments")
    change(page, "page.html_bytes", "100,000,000")
    error = page.locator("#f-page-html_bytes-error")
    expect(error).to_contain_text("“HTML” makes the page too large to model")
    expect(error).to_contain_text("about 14,600,000 bytes of HTML and objects together")
    expect(field(page, "page.html_bytes")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#errors")).to_have_count(0)
    assert not axe_violations(page)
