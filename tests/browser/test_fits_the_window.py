"""Issue 15, defect 3: every page fits a phone, a laptop and a projector without scrolling sideways.

Before the fix the calculator at 390 px was 1,795 px wide (the preset list's longest option set the form's
minimum width), and the gallery, the teaching panel's page and the experiments index overflowed too. A wide
table now scrolls in its own box; nothing else may pass the window's right edge, with every ``<details>``
open. On the gallery, each chart's title stays clear of plotly's toolbar and inside the chart.

Each page is loaded once at each window for all the read-only checks here and test_accessibility's (the
``page_states`` fixture of tests/browser/conftest.py, :func:`tests.browser.windows.read_state`): titles and legends as
loaded, then the overflow with every ``<details>`` open; each test still judges its own measure and the page's
browser log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Page

from latency_lab_web.gallery.views import SLUGS
from tests.browser.windows import API_DOCS_FAVICON, PLOTS_DRAWN, TITLES, WINDOW_IDS, WINDOWS, settle, use_window

if TYPE_CHECKING:
    from conftest import Measured

PAGES = (
    "/",
    "/?preset=pm94-remote",
    "/?preset=n97-wan&sweep=page.object_count",
    "/explain?preset=pm94-remote&protocol=persistent",
    "/experiments/",
    *(f"/experiments/{slug}" for slug in SLUGS),
    "/api/docs",
)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", PAGES)
def test_page_does_not_scroll_sideways(
    page_states: Callable[..., Measured], path: str, window: tuple[int, int]
) -> None:
    m = page_states(path, window)
    m.assert_clean(allow=(API_DOCS_FAVICON,))
    found = m.value["overflow"]
    assert found["document"] <= found["window"] and not found["sticking_out"], found


def _titles_clear(charts: list[dict[str, Any]]) -> None:
    assert charts
    for c in charts:
        title, bar, plot = c["title"], c["toolbar"], c["plot"]
        assert title is not None and bar is not None, c
        overlap = (
            title["left"] < bar["right"]
            and bar["left"] < title["right"]
            and title["top"] < bar["bottom"]
            and bar["top"] < title["bottom"]
        )
        assert not overlap, f"{c['id']}: the title overlaps the toolbar: {c}"
        assert plot["left"] - 1 <= title["left"] and title["right"] <= plot["right"] + 1, f"{c['id']} cut off: {c}"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("slug", SLUGS)
def test_gallery_titles_clear_the_toolbar(
    page_states: Callable[..., Measured], slug: str, window: tuple[int, int]
) -> None:
    m = page_states(f"/experiments/{slug}", window)
    m.assert_clean()
    _titles_clear(m.value["titles"])


def test_gallery_titles_are_fitted_again_when_the_window_narrows(page: Page) -> None:
    use_window(page, WINDOWS[1])
    settle(page, "/experiments/m98")
    use_window(page, WINDOWS[0])  # a laptop's page opened, then the window made phone-sized
    page.wait_for_function(
        "(w) => [...document.querySelectorAll('.plot[data-figure]')].every((p) => p._latencyLabWidth === p.clientWidth"
        " && p.clientWidth < w && p.dataset.rendered === 'true')",
        arg=WINDOWS[0][0],
    )
    page.wait_for_function(PLOTS_DRAWN)
    _titles_clear(page.evaluate(TITLES))


CHART_PAGES = (
    "/?preset=pm94-remote",
    "/?preset=n97-wan&network.loss_rate=0.01",
    *(f"/experiments/{slug}" for slug in SLUGS),
)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", CHART_PAGES)
def test_chart_legends_clear_the_axis_labels(
    page_states: Callable[..., Measured], path: str, window: tuple[int, int]
) -> None:
    m = page_states(path, window)
    m.assert_clean()
    assert m.value["legends"] == []
