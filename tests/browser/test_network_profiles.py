"""Issue 15, "network profiles people know": pick DevTools' Slow 4G in the calculator's preset menu and see its
results, its source and its assumptions; axe-core stays clean on the page it gives."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from latency_lab import PRESETS, predict
from tests.browser.test_calculator import cells, comparison_table, preset_menu, wait_cells, wait_drawn
from tests.browser.windows import axe_violations


def test_pick_a_network_profile_and_see_results(page: Page) -> None:
    page.goto("/")
    wait_drawn(page)
    before = cells(page)

    preset_menu(page).select_option("devtools-slow-4g")
    expect(page).to_have_url(re.compile(r"preset=devtools-slow-4g"))
    wait_cells(page, before, equal=False)
    wait_drawn(page)
    expect(comparison_table(page)).to_be_visible()

    p = PRESETS["devtools-slow-4g"]
    expect(page.locator(".preset-info")).to_contain_text(p.citation)
    rows = {row[0].split()[-1]: row[1] for row in cells(page)[1:]}  # "★ fastest h2": the protocol comes last
    assert rows == {r["protocol"]: f"{r['page_load_ms']:,.1f}" for r in predict(p.document)["results"]}
    page.wait_for_load_state("networkidle")
    assert axe_violations(page) == []
