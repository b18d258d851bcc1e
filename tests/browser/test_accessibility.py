"""Issue 15, defect 9: accessibility, checked by axe-core in Chromium on every page at the three window sizes.

axe-core 4.14.1 is vendored in ``latency_lab_web/static/vendor/`` (MPL-2.0, its licence beside it) and loaded from the app
itself. No page may have a serious or critical violation, as loaded and with every ``<details>`` open. Before
the fix axe found ``nested-interactive`` (serious) on every plotly chart (a ``role="img"`` holding plotly's
toolbar buttons) and ``scrollable-region-focusable`` (serious) on the comparison table's wrapper. What axe does
not judge as serious is checked here directly: one ``<h1>`` per page (``/explain`` had none), one element per
id (the calculator had two ``id="explain"``), the keyboard reaching Compute in a few dozen stops (about 70
before) with a skip link to the results, and a visible focus on plotly's toolbar buttons (hidden until hover).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from latency_lab_web.gallery.views import SLUGS
from tests.browser.windows import (
    API_DOCS_FAVICON,
    DUPLICATE_IDS,
    PANEL_DRAWN,
    WINDOW_IDS,
    WINDOWS,
    settle,
    use_window,
)

if TYPE_CHECKING:
    from conftest import Measured

PAGES = (
    "/",
    "/?preset=pm94-remote",
    "/?preset=devtools-slow-4g",  # a network profile (Chrome DevTools), issue 15
    "/?preset=n97-wan&sweep=page.object_count&network.loss_rate=0.01",
    "/?network.rtt_ms=-5",  # an invalid field: its message beside it, no results
    "/explain?preset=pm94-remote&protocol=persistent",
    "/experiments/",
    *(f"/experiments/{slug}" for slug in SLUGS),
    "/api/docs",
)

#: Up to this many Tab presses from the top of the calculator to its Compute button (about 70 before the fix).
TAB_STOPS_TO_COMPUTE = 40


def _report(found: list[dict[str, object]]) -> str:
    return "\n".join(f"  {v['rule']} ({v['impact']}, {v['count']}x): {v['help']}: {v['nodes']}" for v in found)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", PAGES)
def test_no_serious_or_critical_axe_violation(
    page_states: Callable[..., Measured], path: str, window: tuple[int, int]
) -> None:
    """axe as loaded and with every ``<details>`` open, one ``<h1>``, one element per id: read from the page state
    test_fits_the_window's overflow check reads too (the ``page_states`` fixture: one load for both)."""
    m = page_states(path, window, axe=True)
    m.assert_clean(allow=(API_DOCS_FAVICON, *((r"status of 400",) if "rtt_ms=-5" in path else ())))
    found = m.value["axe_loaded"]
    assert not found, f"axe-core on {path} as loaded:\n{_report(found)}"
    found = m.value["axe"]
    assert not found, f"axe-core on {path} with every <details> open:\n{_report(found)}"
    assert m.value["h1"] == 1, f"{path} has {m.value['h1']} <h1>"
    assert m.value["duplicate_ids"] == []


def test_one_element_per_id_while_the_teaching_panel_changes(page: Page) -> None:
    settle(page, "/?preset=h96-lan")
    assert page.evaluate(DUPLICATE_IDS) == []
    page.get_by_role("navigation", name="Explain a protocol").get_by_role("link", name="persistent", exact=True).click()
    expect(page.locator("#explain").get_by_role("heading", level=2)).to_contain_text("persistent")
    page.wait_for_function(PANEL_DRAWN)
    assert page.evaluate(DUPLICATE_IDS) == []
    chooser = page.get_by_role("navigation", name="Protocol to explain")
    link = chooser.get_by_role("link", name="HTTP/1.0", exact=True)
    expect(link).to_have_attribute("data-htmx-powered", re.compile(".*"))  # htmx has taken the new panel's links
    link.click()
    expect(page.locator("#explain").get_by_role("heading", level=2)).to_contain_text("HTTP/1.0")
    assert page.evaluate(DUPLICATE_IDS) == []


def _tabs_until(page: Page, selector: str, limit: int) -> int | None:
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return n
    return None


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", ["/", "/?preset=pm94-remote"])
def test_keyboard_reaches_compute_in_a_few_dozen_stops(page: Page, path: str, window: tuple[int, int]) -> None:
    use_window(page, window)
    settle(page, path)
    stops = _tabs_until(page, "#scenario button[type=submit]", TAB_STOPS_TO_COMPUTE)
    assert stops is not None, f"Compute not reached in {TAB_STOPS_TO_COMPUTE} Tab presses"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_skip_link_to_the_results(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    settle(page, "/?preset=pm94-remote")
    assert _tabs_until(page, "a.skip[href='#results']", 2) is not None, "no 'Skip to the results' link"
    page.keyboard.press("Enter")
    # The next Tab goes into the results (their first link), not back into the form.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#results') !== null"), page.evaluate(
        "document.activeElement.outerHTML.slice(0, 200)"
    )


#: The focused toolbar button: its toolbar's opacity, its outline and its icon's colour.
FOCUSED_BUTTON = """() => {
  const b = document.activeElement;
  if (!b || !b.classList.contains("modebar-btn")) return null;
  let opacity = 1;
  for (let el = b; el && el !== document.body; el = el.parentElement) opacity *= parseFloat(getComputedStyle(el).opacity);
  const s = getComputedStyle(b);
  const path = b.querySelector("path");
  return {opacity, outlineStyle: s.outlineStyle, outlineWidth: parseFloat(s.outlineWidth), boxShadow: s.boxShadow,
          focusVisible: b.matches(":focus-visible"), fill: path ? getComputedStyle(path).fill : ""};
}"""


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", ["/?preset=pm94-remote", "/experiments/h96"])
def test_plot_toolbar_buttons_show_their_focus(page: Page, path: str, window: tuple[int, int]) -> None:
    use_window(page, window)
    settle(page, path)
    page.mouse.move(0, 0)  # no hover anywhere: only the keyboard focus may show the toolbar
    first_plot = page.locator(".plot[data-figure]").first
    first_plot.scroll_into_view_if_needed()
    # Focus the element before the first plot's toolbar, then Tab into the toolbar, as a keyboard user would.
    page.evaluate(
        """(plot) => {
          const all = [...document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]")]
            .filter((el) => el.tabIndex >= 0 && !el.disabled && el.getClientRects().length);
          const first = plot.querySelector(".modebar-btn");
          all[all.indexOf(first) - 1].focus();
        }""",
        first_plot.element_handle(),
    )
    page.keyboard.press("Tab")
    focused = page.evaluate(FOCUSED_BUTTON)
    assert focused is not None, "Tab did not reach the toolbar's first button"
    assert focused["focusVisible"]
    assert focused["opacity"] > 0.99, f"the focused toolbar button is see-through: {focused}"
    assert focused["outlineStyle"] != "none" and focused["outlineWidth"] >= 2, f"no focus ring: {focused}"
    assert focused["fill"].startswith("rgb(") and "0.3" not in focused["fill"], f"a faint icon: {focused}"
