"""The experiments gallery in headless Chromium: every seed study's page draws its plots.

Issue 5: "open each gallery page and find its plots rendered"; plots can be saved as PNG and their data
as CSV.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from latency_lab_web.gallery.views import SLUGS
from tests.browser.windows import PLOTS_DRAWN

#: Per plot: how many traces plotly.js drew and how many points they hold.
DRAWN = """() => [...document.querySelectorAll(".plot[data-figure]")].map((p) => ({
  id: p.dataset.figure,
  traces: p.querySelectorAll(".main-svg .trace").length,
  points: (p.data || []).reduce((n, t) => n + ((t.y || t.x || []).length || 0), 0),
}))"""


def test_index_links_every_experiment(page: Page) -> None:
    page.goto("/experiments/")
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Experiments"))
    table = page.get_by_role("table", name=re.compile("seed studies", re.I))
    hrefs = table.get_by_role("link").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    slugs = {href.rstrip("/").rsplit("/", 1)[-1] for href in hrefs}
    assert slugs == set(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_experiment_page_draws_its_plots(page: Page, slug: str) -> None:
    page.goto("/experiments/")
    page.get_by_role("table", name=re.compile("seed studies", re.I)).locator(f"a[href$='/{slug}']").click()
    expect(page).to_have_url(re.compile(rf"/experiments/{re.escape(slug)}$"))
    page.wait_for_function(PLOTS_DRAWN)
    plots = page.evaluate(DRAWN)
    assert plots, f"{slug}: no plots"
    assert len(plots) == page.locator("figure .plot[data-figure]").count()
    for plot in plots:
        assert plot["traces"] >= 1 and plot["points"] >= 1, f"{slug}: empty plot {plot}"
    # Beside the plots: the published numbers against the model's.
    comparisons = page.locator("table.comparisons tbody tr")
    assert comparisons.count() >= 1
    expect(comparisons.first).to_contain_text(re.compile(r"\d"))


def test_plot_saves_as_png_and_data_as_csv(page: Page) -> None:
    slug = SLUGS[0]
    page.goto(f"/experiments/{slug}")
    page.wait_for_function(PLOTS_DRAWN)

    with page.expect_download() as csv_download:
        page.get_by_role("link", name=re.compile("one CSV file", re.I)).click()
    path = csv_download.value.path()
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert "," in header and csv_download.value.suggested_filename.endswith(".csv")

    plot = page.locator(".plot[data-figure]").first
    plot.hover()
    with page.expect_download() as png_download:
        plot.locator(".modebar-btn[data-title*='png' i]").click()
    assert png_download.value.suggested_filename.endswith(".png")
    assert png_download.value.path().read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
