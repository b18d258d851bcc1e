"""Typing units into the calculator (issue 15): "10 Mbps" is read, the address keeps base units, the page reads back."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from playwright.sync_api import Page, expect

from tests.browser.form import change, field
from tests.browser.windows import PLOTS_DRAWN

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
