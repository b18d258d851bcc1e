"""The teaching panel (GET /explain) in headless Chromium: ladder diagram, MathML formula, stalls.

Issue 5, "For teaching": a ladder diagram of a chosen protocol's packets, the formula panel (MathML from
sympy, its LaTeX to copy, the formula with the scenario's numbers) and an explanation beside every stall.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

LADDER_DRAWN = """() => {
  const p = document.querySelector(".plot.ladder[data-figure]");
  return p && p.dataset.rendered === "true" && p.querySelector(".main-svg .trace");
}"""

#: Seed 000's LAN with P-HTTP: the header and one segment fill the window and the client holds its ACK.
STALLING = "/explain?preset=h96-lan&protocol=persistent"


def test_panel_shows_ladder_formula_and_stalls(page: Page) -> None:
    page.goto(STALLING)
    panel = page.locator("#explain")
    expect(panel.get_by_role("heading", level=2)).to_contain_text("persistent")
    page.wait_for_function(LADDER_DRAWN)
    expect(panel.locator(".plot.ladder .main-svg").first).to_be_visible()

    formula = panel.locator("math").first
    expect(formula).to_be_visible()
    assert page.evaluate("document.querySelector('#explain math').namespaceURI") == "http://www.w3.org/1998/Math/MathML"
    box = formula.bounding_box()
    assert box is not None and box["width"] > 50 and box["height"] > 5  # Chromium lays MathML out

    stalls = panel.locator("section.explain-stalls")
    assert stalls.count() >= 1
    expect(stalls.first.locator("li.stall").first).to_contain_text(re.compile(r"\w+ \w+ \w+"))


def test_choosing_another_protocol_redraws_the_panel(page: Page) -> None:
    page.goto(STALLING)
    page.wait_for_function(LADDER_DRAWN)
    heading = page.locator("#explain").get_by_role("heading", level=2)
    before = heading.inner_text()
    page.get_by_role("navigation", name="Protocol to explain").get_by_role("link", name="HTTP/1.0", exact=True).click()
    expect(heading).not_to_have_text(before)
    expect(heading).to_contain_text("HTTP/1.0")
    page.wait_for_function(LADDER_DRAWN)


def test_latex_is_there_to_copy(page: Page) -> None:
    page.goto(STALLING)
    latex = page.locator("#explain-latex-code")
    page.locator("details.explain-latex summary").click()
    expect(latex).to_be_visible()
    assert re.search(r"\\|RTT|\+", latex.inner_text())
