"""Teaching-panel links clicked faster than the server answers: the last one clicked is the panel shown.

The calculator's results load the panel (``#explain``) by itself once they are in (``hx-trigger="load"``), and
every protocol and scale link swaps the panel for another (``outerHTML``). A fresh-clone CI run on 2026-11-27
(2 busy cores) failed on the race: a protocol chosen above the panel and, before its answer came, HTTP/1.0
chosen inside the panel; the first answer replaced the panel, and HTTP/1.0's answer, meant for the panel it was
asked from, had nowhere to go, so the panel stayed on the earlier protocol. Every request for the panel now
synchronises on the page's ``<main>``, which no swap replaces (``hx-sync="closest main:replace"``): a newer one
aborts the one in flight, so only the newest answer is swapped in. Driven here by holding the answers in the
browser (Playwright's request routing) and letting them go in the bad order; the last test failed before.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Error, Page, Route, expect

from tests.browser.windows import PLOTS_DRAWN


class Held:
    """Holds every htmx request for the panel (``/explain``) until released, in the order they were made."""

    def __init__(self, page: Page) -> None:
        self.routes: list[Route] = []
        page.route(re.compile(r"/explain\?"), self._handle)

    def _handle(self, route: Route) -> None:
        if route.request.headers.get("hx-request") != "true":
            route.continue_()
            return
        self.routes.append(route)

    def release(self, i: int) -> None:
        try:
            self.routes[i].continue_()
        except Error:  # aborted by the page meanwhile: nothing to answer
            pass


def wait_for_requests(page: Page, held: Held, n: int) -> None:
    """Lets the page run until ``n`` panel requests have been made (10 s at most)."""
    for _ in range(200):
        if len(held.routes) >= n:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{len(held.routes)} panel requests made, expected {n}")


def heading(page: Page) -> str:
    return page.locator("#explain").get_by_role("heading", level=2).inner_text()


@pytest.mark.parametrize("first", [0, 1], ids=["own-request-first", "click-first"])
def test_a_click_before_the_panel_is_in(page: Page, first: int) -> None:
    """The panel's own request (0) in flight and its protocol chosen above it (1); the answers come back in
    either order (the first may have been aborted): one panel, and HTTP/1.0 chosen in it (2) is shown."""
    held = Held(page)
    page.goto("/?preset=h96-lan")
    page.wait_for_function(PLOTS_DRAWN)
    wait_for_requests(page, held, 1)  # the panel's own first request, held
    page.get_by_role("navigation", name="Explain a protocol").get_by_role("link", name="persistent", exact=True).click()
    wait_for_requests(page, held, 2)  # the click's request, held
    held.release(first)
    page.wait_for_timeout(300)
    held.release(1 - first)
    expect(page.locator("#explain").get_by_role("heading", level=2)).to_contain_text("persistent")
    page.wait_for_timeout(300)
    link = page.get_by_role("navigation", name="Protocol to explain").get_by_role("link", name="HTTP/1.0", exact=True)
    expect(link).to_have_attribute("data-htmx-powered", re.compile(".*"))
    link.click()
    wait_for_requests(page, held, 3)
    held.release(2)
    expect(page.locator("#explain").get_by_role("heading", level=2)).to_contain_text("HTTP/1.0")
    assert page.locator("section#explain, div#explain").count() == 1


def test_a_panel_link_clicked_while_another_is_answered_wins(page: Page) -> None:
    """The panel in; a protocol chosen above it (1) and, before its answer, HTTP/1.0 chosen in the panel (2): the
    first answer comes, then HTTP/1.0's, which must not be lost with the panel it was asked from."""
    held = Held(page)
    page.goto("/?preset=h96-lan")
    page.wait_for_function(PLOTS_DRAWN)
    wait_for_requests(page, held, 1)
    held.release(0)
    expect(page.locator("#explain").get_by_role("heading", level=2)).to_contain_text("persistent")
    link = page.get_by_role("navigation", name="Protocol to explain").get_by_role("link", name="HTTP/1.0", exact=True)
    expect(link).to_have_attribute("data-htmx-powered", re.compile(".*"))
    page.get_by_role("navigation", name="Explain a protocol").get_by_role("link", name="persistent", exact=True).click()
    wait_for_requests(page, held, 2)
    link.click()
    wait_for_requests(page, held, 3)
    held.release(1)
    page.wait_for_timeout(300)
    held.release(2)
    expect(page.locator("#explain").get_by_role("heading", level=2)).to_contain_text("HTTP/1.0")
    page.wait_for_timeout(300)
    assert "HTTP/1.0" in heading(page)
    assert page.locator("section#explain, div#explain").count() == 1
