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


def test_split_proxy_panel_opens_in_the_calculator(page: Page) -> None:
    """Issue 15, defect 2: the calculator's "Why" panel on a split-proxy preset answered 500 ("Internal
    Server Error") for both protocols. The fixture's log fails the test on any 5xx response."""
    page.goto("/?preset=m98-ss-proxy")
    panel = page.locator("section:has(> #explain-title)")  # the panel as swapped into the results
    expect(panel.get_by_role("heading", name=re.compile(r"^Why HTTP\/1\.0 takes"))).to_be_visible()
    page.wait_for_function(LADDER_DRAWN)
    expect(panel.locator("table.explain-terms")).to_contain_text("8000 / Bs")
    page.get_by_role("navigation", name="Explain a protocol").get_by_role("link", name="persistent").click()
    expect(panel.get_by_role("heading", name=re.compile(r"^Why persistent HTTP\/1\.1 takes"))).to_be_visible()
    expect(panel).not_to_contain_text("Internal Server Error")
    # the chooser offers only what the split proxies relay: no HTTP/2 or HTTP/3 leading to an error page
    chooser = panel.get_by_role("navigation", name="Protocol to explain")
    expect(chooser.get_by_role("link", name="HTTP/2")).to_have_count(0)


def test_term_table_reads_as_numbers_and_8000_over_the_rate(page: Page) -> None:
    """Issue 15, defect 7: the term table showed the literal text '&minus;2.336 ms'; the formula showed
    '99200000/B' and '-16000 M' where the README writes 8000 (...)/B; the 3 T_d beside one delayed-ACK
    stall is explained beside that count."""
    page.goto(STALLING)
    table = page.locator("table.explain-terms")
    expect(table).not_to_contain_text("&minus;")
    expect(table).to_contain_text("\u22122.336 ms")
    formula = page.locator(".explain-formula math")
    expect(formula).to_contain_text("8000")
    shown = formula.text_content() or ""
    assert "99200000" not in shown and "16000" not in shown
    section = page.locator('section.explain-stalls[data-kind="delayed_ack_stall"]')
    expect(section.get_by_role("heading", level=4)).to_contain_text("Delayed-ACK stalls: 1")
    expect(section.get_by_role("note")).to_contain_text("Td appears 3 times")
    expect(section.get_by_role("note")).to_contain_text("2 Nagle stalls waited for a delayed ACK")
