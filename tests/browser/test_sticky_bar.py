"""The calculator's sticky action bar never hides the field being edited (a phone's leftover from issue 15).

On a narrow screen the form is one column and its action bar (Update, the fastest time, "See the results")
sticks to the window's bottom. A field that takes the keyboard focus near the bottom of the window used to
scroll only just into view, so the bar covered it: a student tabbing through the form typed into a field
they could not see. Every field and button of the form, reached with the Tab key, must show whole above the
bar, at every window the app is tried at.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.windows import WINDOW_IDS, WINDOWS, use_window

#: The focused element's box and the sticky bar's, in window coordinates; null when focus is elsewhere.
FOCUSED = """() => {
  const el = document.activeElement;
  const bar = document.querySelector("#calc .actions");
  if (!el || !bar || !el.closest("#calc form") || bar.contains(el)) return null;
  const r = el.getBoundingClientRect(), b = bar.getBoundingClientRect();
  return {name: el.name || el.id || el.tagName, top: r.top, bottom: r.bottom, bar_top: b.top,
          bar_bottom: b.bottom, height: window.innerHeight};
}"""

PAGES = ("/", "/?preset=pm94-remote", "/?mode=simple")


def _covered(box: dict[str, Any]) -> bool:
    """The bar overlaps the field while the bar is on screen."""
    on_screen = box["bar_top"] < box["height"] and box["bar_bottom"] > 0
    return bool(on_screen and box["bottom"] > box["bar_top"] + 0.5 and box["top"] < box["bar_bottom"])


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("path", PAGES)
def test_focused_field_is_not_under_the_bar(page: Page, path: str, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.locator("#calc form").first.locator("input, select, textarea").first.focus()
    seen, hidden = 0, []
    for _ in range(200):
        box = page.evaluate(FOCUSED)
        if box is not None:
            seen += 1
            if _covered(box):
                hidden.append(box)
        page.keyboard.press("Tab")
        if page.evaluate("() => !document.activeElement || !document.activeElement.closest('#calc form')"):
            break
    assert seen >= 8, f"only {seen} form fields were reached with Tab"
    assert not hidden, hidden[:5]
