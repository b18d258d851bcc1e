"""Lecture mode of a comparison (/compare?...&lecture=1, issue 27) in headless Chromium: one comparison full screen for a
projector, stepped one scenario's protocol at a time with the arrow keys anywhere on the page, the step's bar drawn in
full on the chart and the others dimmed; the list, the buttons, the filters and the chart's bars by keyboard and mouse;
at 390, 1366 and 1920 px, never scrolling sideways, axe clean."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.windows import WINDOW_IDS, WINDOWS, axe_violations, horizontal_overflow, use_window

#: Two lossy scenarios of three protocols each: six steps, A's three then B's three.
LOSSY = "/compare?preset=p98-satellite&protocols=pipelined,h2,h3&a.network.loss_rate=0.01&b.network.loss_rate=0.03"

READY = """() => {
  const p = document.getElementById("plot-compare");
  const s = document.getElementById("compare-stepper");
  return p && p.dataset.rendered === "true" && s && s._stepper && p._ladderStepper === s._stepper;
}"""

#: The selected step as the list, the stepper and the chart say it.
STATE = """() => {
  const s = document.getElementById("compare-stepper");
  const gd = document.getElementById("plot-compare");
  const i = Number(s.getAttribute("data-selected"));
  const step = s._stepper.steps[i] || null;
  const bars = gd.data.filter((t) => t.type === "bar");
  const opacity = {};
  bars[0].y.forEach((y, k) => { opacity[y] = bars.map((t) => (Array.isArray(t.marker.opacity) ? t.marker.opacity[k] : 1)); });
  return {
    index: i, step: step,
    selected: Array.from(document.querySelectorAll("#compare-steps-list li[aria-selected='true']")).map((li) => Number(li.dataset.step)),
    active: document.getElementById("compare-steps-list").getAttribute("aria-activedescendant"),
    bar: gd.getAttribute("data-selected-bar"),
    opacity: opacity,
    now: document.querySelector("#compare-stepper .stepper-now").textContent,
    fields: Array.from(document.querySelectorAll("#compare-stepper .packet-fields dt")).map((dt) => dt.textContent),
    hidden: Array.from(document.querySelectorAll("#compare-steps-list li")).filter((li) => li.hidden).map((li) => Number(li.dataset.step)),
  };
}"""


def state(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(STATE)
    return found


def assert_at(s: dict[str, Any], i: int) -> None:
    """Step ``i`` is selected everywhere: the list, the stepper's line, the fields and the chart's bars."""
    step = s["step"]
    assert s["index"] == i and s["selected"] == [i] and s["active"] == f"compare-step-{i}", s
    assert s["now"] == f"Step {i + 1} of 6: {step['text']}"
    assert s["fields"][:2] == ["scenario", "protocol"] and "round trips" in s["fields"] and s["fields"][-1] == "why"
    assert s["bar"] == step["bar"]
    for bar, parts in s["opacity"].items():
        assert all(o == 1 for o in parts) if bar == step["bar"] else all(o < 1 for o in parts), (bar, parts)


def _open(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto(LOSSY + "&lecture=1")
    page.wait_for_function(READY)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_lecture_mode_shows_one_comparison_and_steps_with_the_arrow_keys(page: Page, window: tuple[int, int]) -> None:
    _open(page, window)
    expect(page.locator("header.site")).to_be_hidden()
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 24
    assert state(page)["selected"] == []  # nothing selected yet: every bar drawn in full
    # the arrow keys step anywhere on the page (focus on the heading, not in the list)
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    assert_at(state(page), 0)
    assert re.match(
        r"Step 1 of 6: A, pipelined HTTP/1\.1: [\d,.]+ ms expected with 1% loss \([\d,.]+ ms without\)",
        state(page)["now"],
    )
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert_at(state(page), 3)
    assert state(page)["step"]["group"] == "B" and "vs A, pipelined HTTP/1.1" in state(page)["now"]
    page.keyboard.press("ArrowLeft")
    assert_at(state(page), 2)
    page.keyboard.press("End")
    assert_at(state(page), 5)
    page.keyboard.press("Home")
    assert_at(state(page), 0)
    assert horizontal_overflow(page)["sticking_out"] == []
    # the window's width changes (a projector going full screen): the chart is drawn again, the step's bar with it
    page.keyboard.press("ArrowRight")
    page.evaluate("() => { document.getElementById('plot-compare').data[0].drawnBefore = true; }")
    use_window(page, (window[0] - 40, window[1]))
    page.wait_for_function(
        "() => { const p = document.getElementById('plot-compare'); return !p.data[0].drawnBefore && "
        "p.dataset.rendered === 'true' && p.data.some((t) => Array.isArray(t.marker.opacity)); }"
    )
    assert_at(state(page), 1)
    assert axe_violations(page) == []
    page.get_by_role("link", name="Leave lecture mode").click()
    expect(page.locator("header.site")).to_be_visible()
    assert page.url.endswith(LOSSY)


def test_lecture_mode_by_mouse_and_by_its_buttons_filters_and_play(page: Page) -> None:
    """From the comparison's link (by keyboard), then the mouse on the list and on a bar, a scenario hidden by its
    filter and skipped by the steps, the buttons by keyboard, and play advancing."""
    use_window(page, (1366, 768))
    page.goto(LOSSY)
    page.get_by_role("link", name="this comparison in lecture mode").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(READY)
    assert page.url.endswith(LOSSY + "&lecture=1")
    # the mouse: a step of the list, then a bar of the chart
    page.locator("#compare-step-4").click()
    assert_at(state(page), 4)
    page.locator("#plot-compare").scroll_into_view_if_needed()
    target = page.evaluate(
        """(label) => {
          const gd = document.getElementById("plot-compare"), ya = gd._fullLayout.yaxis, xa = gd._fullLayout.xaxis;
          const box = gd.getBoundingClientRect();
          return {x: box.left + xa._offset + xa.l2p(50), y: box.top + ya._offset + ya.d2p(label)};
        }""",
        "A: HTTP/3",
    )
    page.mouse.move(target["x"], target["y"])
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function("() => document.getElementById('compare-stepper').getAttribute('data-selected') === '2'")
    assert_at(state(page), 2)
    # scenario B hidden: its steps leave the list, End stops at A's last, B's bars fainter than A's dimmed ones
    page.get_by_role("checkbox", name="B").uncheck()
    s = state(page)
    assert s["hidden"] == [3, 4, 5]
    assert all(o < 0.4 for o in s["opacity"]["B: HTTP/2"])
    page.locator("h1").click()
    page.keyboard.press("End")
    assert_at(state(page), 2)
    page.get_by_role("checkbox", name="B").check()
    # the buttons, by keyboard
    page.get_by_role("button", name="Forward").focus()
    page.keyboard.press("Enter")
    assert_at(state(page), 3)
    page.get_by_role("button", name="First").focus()
    page.keyboard.press("Enter")
    assert_at(state(page), 0)
    # play: the fastest speed advances a step every 1.5 s; pause stops it
    page.get_by_label("Speed").select_option("1500")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function(
        "() => Number(document.getElementById('compare-stepper').getAttribute('data-selected')) >= 2"
    )
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("button", name="Play")).to_have_attribute("aria-pressed", "false")
    assert axe_violations(page) == []
