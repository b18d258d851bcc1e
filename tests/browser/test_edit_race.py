"""Edits faster than the server answers (issue 15): the answer to an earlier edit must never undo a later one.

The calculator's forms swap the whole calculator (``#calc``) with each answer. Two races, each driven here by
holding the first answer in the browser (Playwright's request routing) until the second edit is made:

- a second edit left (change event) while the first is in flight: ``hx-sync="#calc:replace"`` (htmx 4's
  synchronisation, on both forms) aborts the first request, so only the newer answer is swapped in;
- a second field still being typed in when the first answer arrives: the answer was rendered before the new
  text, and swapping it in used to wipe that text, so leaving the field sent nothing and the edit was lost
  (``latency_lab_web/static/app.js`` now keeps the typed text and sends it on leaving).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, Route, expect

from tests.browser.form import change, field
from tests.browser.windows import PLOTS_DRAWN


class HoldFirst:
    """Holds the calculator's first htmx request until :meth:`release`; lets every other request through."""

    def __init__(self, page: Page) -> None:
        self.held: list[Route] = []
        self.urls: list[str] = []
        page.route(re.compile(r"/\?"), self._handle)

    def _handle(self, route: Route) -> None:
        if route.request.headers.get("hx-request") != "true":
            route.continue_()
            return
        self.urls.append(route.request.url)
        if len(self.urls) == 1:
            self.held.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        for route in self.held:
            route.continue_()


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def rtt_cell(page: Page) -> str:
    return page.locator("#results").inner_text()


def test_a_second_edit_replaces_the_first_request(page: Page) -> None:
    page.goto("/?preset=n97-lan")
    page.wait_for_function(PLOTS_DRAWN)
    hold = HoldFirst(page)
    change(page, "network.rtt_ms", "50")
    change(page, "network.bandwidth_bps", "2000000")
    expect(page).to_have_url(re.compile(r"network\.bandwidth_bps=2000000"))
    hold.release()  # the first request was aborted: its answer, if any, must not be swapped in
    page.wait_for_timeout(500)
    page.wait_for_function(PLOTS_DRAWN)
    q = query(page)
    assert q.get("network.rtt_ms") == ["50"] and q.get("network.bandwidth_bps") == ["2000000"], page.url
    expect(field(page, "network.bandwidth_bps")).to_have_value("2000000")
    expect(field(page, "network.rtt_ms")).to_have_value("50")


def test_text_typed_while_an_earlier_answer_arrives_is_kept_and_sent(page: Page) -> None:
    page.goto("/?preset=n97-lan")
    page.wait_for_function(PLOTS_DRAWN)
    hold = HoldFirst(page)
    change(page, "network.rtt_ms", "50")  # sent, answer held
    bandwidth = field(page, "network.bandwidth_bps")
    bandwidth.fill("2000000")  # typed, not yet left
    hold.release()
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=50"))  # the first answer is in
    page.wait_for_function(PLOTS_DRAWN)
    expect(bandwidth).to_have_value("2000000")  # what was typed is still there
    expect(bandwidth).to_be_focused()
    bandwidth.press("Tab")  # leaving the field sends it
    expect(page).to_have_url(re.compile(r"network\.bandwidth_bps=2000000"))
    page.wait_for_function(PLOTS_DRAWN)
    q = query(page)
    assert q.get("network.rtt_ms") == ["50"] and q.get("network.bandwidth_bps") == ["2000000"], page.url
    assert len(hold.urls) == 2, hold.urls
