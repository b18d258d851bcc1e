"""The teaching panel (GET /explain) in headless Chromium: ladder diagram, MathML formula, stalls.

Issue 5, "For teaching": a ladder diagram of a chosen protocol's packets, the formula panel (MathML from
sympy, its LaTeX to copy, the formula with the scenario's numbers) and an explanation beside every stall.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.windows import WINDOW_IDS, WINDOWS, axe_violations, horizontal_overflow, use_window

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
    expect(section.get_by_role("heading", level=4)).to_contain_text("Delayed-ACK stalls on the critical path: 1")
    expect(section.get_by_role("note")).to_contain_text("Td appears 3 times")
    expect(section.get_by_role("note")).to_contain_text("2 Nagle stalls waited for a delayed ACK")


# --- issue 25: one account of the time, a ladder a student can read -----------------------------------------

#: A textbook slow-start page with more than one page of packets (n97-wan persistent: 236 packets, 5 slow-start waits).
SLOW_START = "/explain?preset=n97-wan&protocol=persistent"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_one_account_readable_terms_and_a_ladder_in_pages(page: Page, window: tuple[int, int]) -> None:
    """Issue 25 at 390, 1366 and 1920 px: the stalls' heading total is the breakdown's slow-start waits (451.0 ms,
    not the 342.2 ms of the sender's idle time); the formula's terms are drawn at a readable size (were about 7 px);
    the ladder is drawn in pages, the second page reachable by its link, every packet of the run on one page; its
    legend tells data, requests, ACKs and the handshake apart; nothing sticks out sideways and axe stays clean."""
    use_window(page, window)
    page.goto(SLOW_START)
    page.wait_for_function(LADDER_DRAWN)
    panel = page.locator("#explain")
    part = panel.locator('table.explain-breakdown tr[data-part="slow_start_idle"] td')
    expect(part).to_have_text("451.0 ms")
    heading = panel.locator('section.explain-stalls[data-kind="slow_start_idle"] h4')
    expect(heading).to_contain_text("on the critical path: 5 (451.0 ms in all)")
    items = panel.locator('section.explain-stalls[data-kind="slow_start_idle"] li.stall')
    expect(items).to_have_count(5)
    expect(items.first).to_contain_text(re.compile(r"from 152\.4 ms, waited 90\.21 ms"))
    # the terms' formulas at a readable size: the smallest glyph of a term's MathML
    smallest = page.evaluate(
        """() => Math.min(...[...document.querySelectorAll('table.explain-terms td math mn, table.explain-terms td math mi')]
             .map((e) => parseFloat(getComputedStyle(e).fontSize)))"""
    )
    assert smallest >= 12, smallest
    # the legend: data, requests, ACKs and the handshake each their own entry
    legend = page.evaluate(
        "() => [...document.querySelectorAll('.plot.ladder .legend .legendtext')].map((e) => e.textContent || '')"
    )
    for name in ("data segment", "request", "ACK", "SYN"):
        assert any(name in t for t in legend), legend
    assert any("slow-start wait on the critical path" in t for t in legend), legend
    # pages of the ladder: page 1 of 3, the next one a click away, keeping the scenario
    nav = panel.get_by_role("navigation", name="Pages of the ladder")
    expect(nav).to_contain_text("page 1 of 3")
    nav.get_by_role("link", name="next page").click()
    expect(panel.get_by_role("navigation", name="Pages of the ladder")).to_contain_text("page 2 of 3")
    page.wait_for_function(LADDER_DRAWN)
    link = panel.get_by_role("link", name="Link to this explanation")
    assert "ladder_page=2" in (link.get_attribute("href") or "")
    assert horizontal_overflow(page)["sticking_out"] == []
    assert axe_violations(page) == []


#: Issue 25's lossy example: p98-satellite at 1 % loss, HTTP/2.
LOSSY = "/explain?preset=p98-satellite&network.loss_rate=0.01&protocols=pipelined,h2&protocol=h2"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_with_loss_the_panel_leads_with_the_expected_time(page: Page, window: tuple[int, int]) -> None:
    """Issue 25 at 390, 1366 and 1920 px: with loss the panel's title and its "where the time goes" are the expected
    time (latency_lab.analysis.leading), loss's parts among the parts, the lossless time beside it, labelled. On main
    before 2026-11-28 the panel said "Why HTTP/2 takes" its lossless time and never mentioned loss."""
    from latency_lab import PRESETS, predict
    from latency_lab_web.figures.ladder import fmt_ms

    doc = {**PRESETS["p98-satellite"].document, "protocols": ["h2"]}
    doc["network"] = {**doc["network"], "loss_rate": 0.01}
    r = predict(doc)["results"][0]
    expected, lossless = r["expected_with_loss"]["page_load_ms"], r["page_load_ms"]
    assert expected > lossless
    use_window(page, window)
    page.goto(LOSSY)
    page.wait_for_function(LADDER_DRAWN)
    panel = page.locator("#explain")
    expect(panel.locator("h2#explain-title")).to_have_text(
        f"Why HTTP/2 takes {fmt_ms(expected)} (expected, at 1% loss)"
    )
    beside = panel.locator("p.explain-lossless")
    expect(beside).to_contain_text(f"Without loss: {fmt_ms(lossless)}")
    assert float(beside.get_attribute("data-lossless-ms") or "nan") == pytest.approx(lossless, rel=1e-12)
    caption = panel.locator("table.explain-breakdown caption")
    expect(caption).to_contain_text(f"Where the {fmt_ms(expected)} go (expected, at 1% loss; without loss")
    parts = page.evaluate(
        """() => [...document.querySelectorAll('table.explain-breakdown tr[data-part]')].map((tr) =>
             [tr.dataset.part, parseFloat(tr.querySelector('td').dataset.ms)])"""
    )
    assert any(k.startswith("loss_") for k, _ in parts), parts
    assert sum(ms for _, ms in parts) == pytest.approx(expected, rel=1e-9)
    assert horizontal_overflow(page)["sticking_out"] == []
    assert axe_violations(page) == []
