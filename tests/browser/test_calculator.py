"""The calculator page in headless Chromium, as issue 5's "Done when" lists it.

Open the page, pick a preset, change a field and see the table, the plots and the address bar change;
reload the copied address and get the same numbers; back and forward walk through the changes; a bad value
gets a message beside its field; the form works with JavaScript disabled.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Locator, Page, expect

from tests.browser.form import change, field
from tests.browser.windows import PLOTS_DRAWN

if TYPE_CHECKING:
    from conftest import BrowserLog


#: What plotly.js drew, per plot: each trace's name, x and y (read from the plot's own div).
#: The teaching panel's ladder is left out: it loads on its own, after the results.
DRAWN_DATA = """() => [...document.querySelectorAll(".plot[data-figure]")].filter((p) => !p.closest("#explain")).map((p) => ({
  id: p.dataset.figure,
  traces: (p.data || []).map((t) => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || [])})),
}))"""


LADDER_DRAWN = """() => {
  const p = document.querySelector("#explain .plot.ladder[data-figure]");
  return p && p.dataset.rendered === "true" && p.querySelector(".main-svg .trace");
}"""


#: The comparison table's cells, row by row (whitespace collapsed): the numbers compared between views.
TABLE_CELLS = """() => {
  const table = [...document.querySelectorAll("table")].find((t) => t.caption &&
      t.caption.textContent.includes("Page load time per protocol"));
  return table ? [...table.rows].map((r) => [...r.cells].map((c) => c.textContent.replace(/\\s+/g, " ").trim())) : null;
}"""


def cells(page: Page) -> list[list[str]]:
    """The comparison table now."""
    found = page.evaluate(TABLE_CELLS)
    assert found, "no comparison table"
    return found


def wait_cells(page: Page, want: list[list[str]], *, equal: bool = True) -> None:
    """Wait until the comparison table holds (or, with ``equal=False``, no longer holds) ``want``."""
    op = "===" if equal else "!=="
    page.wait_for_function(f"(want) => JSON.stringify(({TABLE_CELLS})()) {op} JSON.stringify(want)", arg=want)


#: The sweep plot's x axis as plotly.js laid it out (range in log10 units on a log axis) and the swept values.
SWEEP_AXIS = """() => {
  const gd = document.querySelector(".plot[data-figure='fig-sweep']");
  const axis = gd._fullLayout.xaxis;
  const xs = gd.data.flatMap((t) => Array.from(t.x || []));
  return {type: axis.type, range: axis.range, min: Math.min(...xs), max: Math.max(...xs)};
}"""


def query(page: Page) -> dict[str, list[str]]:
    """The address bar's query, parsed."""
    return parse_qs(urlsplit(page.url).query)


def wait_drawn(page: Page) -> None:
    page.wait_for_function(PLOTS_DRAWN)


def drawn(page: Page) -> str:
    return json.dumps(page.evaluate(DRAWN_DATA), sort_keys=True)


def comparison_table(page: Page) -> Locator:
    """The comparison table (load time, ratio, breakdown, counts per protocol), found by its caption."""
    return page.get_by_role("table", name=re.compile("Page load time per protocol"))


def preset_menu(page: Page) -> Locator:
    return page.get_by_label("Start from")


def test_page_opens_with_form_results_and_plots(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(preset_menu(page)).to_be_visible()
    expect(comparison_table(page)).to_be_visible()
    wait_drawn(page)
    assert page.locator(".plot[data-figure] .main-svg").count() >= 2


def test_every_field_has_a_label(page: Page) -> None:
    page.goto("/")
    controls = page.locator("form input:not([type=hidden]), form select, form textarea")
    assert controls.count() >= 10
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll("form input:not([type=hidden]), form select, form textarea")]
             .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")
                             && !el.getAttribute("aria-labelledby"))
             .map((el) => el.name || el.id)"""
    )
    assert unlabelled == []


def test_preset_then_field_change_updates_table_plots_and_address(page: Page) -> None:
    page.goto("/")
    wait_drawn(page)
    before_table = cells(page)
    before_plots = drawn(page)

    preset_menu(page).select_option("n97-wan")
    expect(page).to_have_url(re.compile(r"preset=n97-wan"))
    wait_cells(page, before_table, equal=False)
    wait_drawn(page)
    preset_table = cells(page)
    preset_plots = drawn(page)
    assert preset_plots != before_plots

    change(page, "network.rtt_ms", "250")
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=250"))
    wait_cells(page, preset_table, equal=False)
    wait_drawn(page)
    assert drawn(page) != preset_plots
    assert query(page)["preset"] == ["n97-wan"]

    # The sweep plot's x axis spans the swept values (nothing on it, such as the marker of the scenario's
    # own value, stretches it by orders of magnitude).
    axis = page.evaluate(SWEEP_AXIS)
    low, high = (
        (math.log10(axis["min"]), math.log10(axis["max"])) if axis["type"] == "log" else (axis["min"], axis["max"])
    )
    pad = 0.25 * (high - low)
    assert low - pad <= axis["range"][0] <= low and high <= axis["range"][1] <= high + pad, axis


def test_copied_address_gives_the_same_numbers(page: Page) -> None:
    page.goto("/")
    preset_menu(page).select_option("pm94-remote")
    expect(page).to_have_url(re.compile(r"preset=pm94-remote"))
    wait_drawn(page)
    preset_table = cells(page)
    change(page, "page.object_count", "7")
    expect(page).to_have_url(re.compile(r"page\.object_count=7"))
    wait_cells(page, preset_table, equal=False)
    wait_drawn(page)
    table = cells(page)
    plots = drawn(page)
    address = page.url

    fresh = page.context.new_page()
    fresh.goto(address)
    wait_drawn(fresh)
    assert cells(fresh) == table
    assert drawn(fresh) == plots
    expect(field(fresh, "page.object_count")).to_have_value("7")

    page.reload()
    wait_drawn(page)
    assert cells(page) == table


def test_back_and_forward_walk_through_the_changes(page: Page) -> None:
    page.goto("/?preset=h96-lan")
    wait_drawn(page)
    tables = [cells(page)]
    for rtt in ("50", "400"):
        change(page, "network.rtt_ms", rtt)
        expect(page).to_have_url(re.compile(rf"network\.rtt_ms={rtt}\b"))
        wait_cells(page, tables[-1], equal=False)
        tables.append(cells(page))

    page.go_back()
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=50\b"))
    wait_cells(page, tables[1])
    expect(field(page, "network.rtt_ms")).to_have_value("50")
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"network\.rtt_ms="))
    wait_cells(page, tables[0])
    page.go_forward()
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=50\b"))
    wait_cells(page, tables[1])
    expect(field(page, "network.rtt_ms")).to_have_value("50")
    wait_drawn(page)


def test_bad_value_shows_a_message_beside_the_field(page: Page, browser_log: BrowserLog) -> None:
    browser_log.allow(r"status of 4(00|22)")  # an invalid scenario is answered 4xx, which Chromium logs
    page.goto("/?preset=h96-lan")
    wait_drawn(page)
    change(page, "network.rtt_ms", "-5")
    box = field(page, "network.rtt_ms")
    expect(box).to_have_attribute("aria-invalid", "true")
    # The message sits in the field's own block, is tied to the input (aria-describedby), says what is
    # wrong and the allowed range.
    block = page.locator(".field", has=page.locator("[name='network.rtt_ms']"))
    message = block.locator(".field-error")
    expect(message).to_be_visible()
    expect(message).to_contain_text(re.compile(r"\d"))
    assert message.get_attribute("id") in (box.get_attribute("aria-describedby") or "").split()
    expect(block).to_contain_text(re.compile(r"Allowed: .*\d"))
    expect(box).to_have_value("-5")  # what was typed stays, to be corrected
    expect(page.get_by_text(re.compile("Internal Server Error"))).to_have_count(0)
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=-5\b"))

    change(page, "network.rtt_ms", "80")
    expect(box).not_to_have_attribute("aria-invalid", "true")
    expect(message).to_have_count(0)
    expect(comparison_table(page)).to_be_visible()


def test_results_open_the_teaching_panel(page: Page) -> None:
    page.goto("/?preset=h96-lan")
    wait_drawn(page)
    chooser = page.get_by_role("navigation", name="Explain a protocol")
    chooser.get_by_role("link", name="persistent", exact=True).click()
    panel = page.locator("#explain")
    expect(panel.get_by_role("heading", level=2)).to_contain_text("persistent")
    page.wait_for_function(LADDER_DRAWN)
    expect(panel.locator("math").first).to_be_visible()
    expect(panel.locator("li.stall").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"preset=h96-lan"))  # the panel does not change the address


def test_submitting_without_javascript_shows_results(nojs_page: Page) -> None:
    page = nojs_page
    page.goto("/")
    preset_menu(page).select_option("n97-lan")
    page.get_by_role("button", name="Load preset").click()
    expect(page).to_have_url(re.compile(r"preset=n97-lan"))
    expect(preset_menu(page)).to_have_value("n97-lan")
    wanted = cells(page)

    field(page, "network.rtt_ms").fill("20")
    page.get_by_role("button", name="Compute").click()
    expect(page).to_have_url(re.compile(r"preset=n97-lan"))
    expect(page).to_have_url(re.compile(r"network\.rtt_ms=20\b"))
    expect(comparison_table(page)).to_contain_text("pipelined")
    expect(field(page, "network.rtt_ms")).to_have_value("20")
    assert cells(page) != wanted
    # The plots need JavaScript; their numbers are in the tables, which are all there.
    assert page.locator(".plot[data-figure] .main-svg").count() == 0
