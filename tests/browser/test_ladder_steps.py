"""The stepping ladder of the teaching panel and its lecture mode in headless Chromium (issue 27): step forward and
back with the keyboard and the mouse, the event list and the drawing selecting together, play advancing, filters
hiding kinds, the selected packet's fields and the running timers shown; at 390, 1366 and 1920 px, axe clean."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.windows import WINDOW_IDS, WINDOWS, axe_violations, horizontal_overflow, use_window

#: Seed 000's LAN with P-HTTP: handshake, data, ACKs held by the delayed-ACK timer.
LAN = "/explain?preset=h96-lan&protocol=persistent"

READY = """() => {
  const p = document.querySelector(".plot.ladder[data-figure]");
  const s = document.querySelector(".ladder-stepper");
  return p && p.dataset.rendered === "true" && s && s._stepper && p._ladderStepper === s._stepper;
}"""

#: The selected event as the list, the stepper and the drawing say it.
STATE = """() => {
  const s = document.querySelector(".ladder-stepper");
  const gd = document.querySelector(".plot.ladder[data-figure]");
  const sel = Array.from(document.querySelectorAll(".ladder-events li[aria-selected='true']")).map((li) => Number(li.dataset.step));
  const trace = Number(gd.getAttribute("data-selected-trace"));
  const steps = s._stepper.steps;
  const i = Number(s.getAttribute("data-selected"));
  const t = trace >= 0 ? gd.data[trace] : null;
  const base = gd._ladderWidths;
  const thick = gd.data.map((d, k) => k).filter((k) => gd.data[k].meta && gd.data[k].meta.group && gd.data[k].line.width !== base[k]);
  const now = (gd.layout.shapes || []).filter((sh) => sh && sh.name === "now");
  return {
    selected: sel, index: i, step: steps[i] || null,
    trace_meta: t ? t.meta : null, trace_width: t ? t.line.width : null, base_width: t ? base[trace] : null,
    thick: thick, trace: trace,
    now_y: now.length ? now[0].y0 : null,
    active: document.querySelector(".ladder-events").getAttribute("aria-activedescendant"),
    hidden_traces: gd.data.filter((d) => d.meta && d.meta.group && d.visible === false).map((d) => d.meta.group),
  };
}"""


def state(page: Page) -> dict:
    out: dict = page.evaluate(STATE)
    return out


def assert_in_step(st: dict, index: int) -> None:
    """The list, the stepper and the drawing all select event ``index``."""
    assert st["selected"] == [index] and st["index"] == index
    assert st["active"] == f"ladder-event-{index}"
    step = st["step"]
    meta = st["trace_meta"]
    if "hold" in step:
        assert meta["role"] == step["hold"] and meta["packet"] == step["packet"]
    else:
        assert meta["role"] == "packet" and meta["n"] == step["packet"]
    # the selected mark alone is drawn thicker
    assert st["thick"] == [st["trace"]] and st["trace_width"] > st["base_width"]
    assert st["now_y"] == pytest.approx(step["y"])  # the line across the drawing at the event's moment


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_step_with_the_keyboard_and_the_mouse(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto(LAN)
    page.wait_for_function(READY)
    forward = page.get_by_role("button", name="Forward")
    back = page.get_by_role("button", name="Back")

    # the keyboard: Tab to the Forward button, Enter steps; arrow keys in the event list step both ways
    forward.focus()
    page.keyboard.press("Enter")
    assert_in_step(state(page), 0)
    page.keyboard.press("Enter")
    assert_in_step(state(page), 1)
    listbox = page.get_by_role("listbox", name="Events of the ladder, in time order")
    listbox.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert_in_step(state(page), 3)
    page.keyboard.press("ArrowLeft")
    assert_in_step(state(page), 2)
    page.keyboard.press("End")
    last = state(page)
    assert_in_step(last, len(page.evaluate("document.querySelector('.ladder-stepper')._stepper.steps")) - 1)
    page.keyboard.press("Home")
    assert_in_step(state(page), 0)
    # focus is visible on the list and the buttons
    assert page.evaluate("getComputedStyle(document.activeElement, ':focus-visible').outlineStyle") != "none"

    # the mouse: the buttons, then an event in the list
    forward.click()
    assert_in_step(state(page), 1)
    back.click()
    assert_in_step(state(page), 0)
    page.locator(".ladder-events li[data-step='4']").click()
    assert_in_step(state(page), 4)

    # the selected event's fields: the packet's TCP header and why it left then
    fields = page.locator(".packet-fields")
    expect(fields).to_be_visible()
    expect(fields).to_contain_text("sequence")
    expect(fields).to_contain_text("acknowledgement")
    expect(fields).to_contain_text("window")
    expect(fields).to_contain_text("why it left then")
    expect(page.locator(".stepper-now")).to_contain_text("Event 5 of")

    assert horizontal_overflow(page)["sticking_out"] == []
    assert axe_violations(page) == []


def test_clicking_the_drawing_selects_the_event(page: Page) -> None:
    use_window(page, (1366, 768))
    page.goto(LAN)
    page.wait_for_function(READY)
    # the label point of the first data segment's line (a third of the way from the sender), clicked on screen
    target = page.evaluate(
        """() => {
          const gd = document.querySelector(".plot.ladder[data-figure]");
          const i = gd.data.findIndex((d) => d.meta && d.meta.role === "packet" && d.meta.kind === "data");
          const pt = gd.querySelectorAll(".scatterlayer .trace")[i].querySelectorAll(".point")[1];
          pt.scrollIntoView({block: "center"});
          const r = pt.getBoundingClientRect();
          return {x: r.left + r.width / 2, y: r.top + r.height / 2, n: gd.data[i].meta.n};
        }"""
    )
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function("() => document.querySelector('.ladder-stepper').hasAttribute('data-selected')")
    st = state(page)
    assert st["step"]["packet"] == target["n"] and "hold" not in st["step"]
    assert_in_step(st, st["index"])


def test_play_advances_and_pause_stops(page: Page) -> None:
    page.goto(LAN)
    page.wait_for_function(READY)
    page.get_by_label("Speed").select_option("150")
    play = page.get_by_role("button", name="Play")
    play.click()
    expect(page.get_by_role("button", name="Pause")).to_have_attribute("aria-pressed", "true")
    page.wait_for_function("() => Number(document.querySelector('.ladder-stepper').getAttribute('data-selected')) >= 3")
    page.get_by_role("button", name="Pause").click()
    stopped = state(page)["index"]
    page.wait_for_timeout(500)
    assert state(page)["index"] == stopped
    assert_in_step(state(page), stopped)


def test_filters_hide_kinds_in_the_list_and_the_drawing(page: Page) -> None:
    page.goto(LAN)
    page.wait_for_function(READY)
    page.get_by_label("ACKs").uncheck()
    expect(page.locator(".ladder-events li[data-group='ack']").first).to_be_hidden()
    st = state(page)
    assert set(st["hidden_traces"]) == {"ack"}
    # stepping skips what is hidden
    seen = []
    for _ in range(8):
        page.get_by_role("button", name="Forward").click()
        seen.append(state(page)["step"]["group"])
    assert "ack" not in seen
    page.get_by_label("handshake and close").uncheck()
    assert set(state(page)["hidden_traces"]) == {"ack", "handshake"}
    assert state(page)["step"]["group"] not in ("ack", "handshake")
    page.get_by_label("ACKs").check()
    assert set(state(page)["hidden_traces"]) == {"handshake"}
    expect(page.locator(".ladder-events li[data-group='ack']").first).to_be_visible()


def test_timers_are_shown_running(page: Page) -> None:
    page.goto(LAN)
    page.wait_for_function(READY)
    i = page.evaluate(
        "document.querySelector('.ladder-stepper')._stepper.steps.findIndex((s) => s.hold === 'delayed_ack')"
    )
    assert i >= 0
    page.locator(f".ladder-events li[data-step='{i}']").click()
    expect(page.locator(".stepper-timers")).to_contain_text("Timers running: delayed-ACK timer")
    assert_in_step(state(page), i)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_lecture_mode_loads_and_steps_with_the_arrow_keys(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto(LAN + "&lecture=1")
    page.wait_for_function(READY)
    expect(page.locator("header.site")).to_be_hidden()
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 24
    # the arrow keys step anywhere on the page
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert_in_step(state(page), 1)
    page.keyboard.press("ArrowLeft")
    assert_in_step(state(page), 0)
    assert horizontal_overflow(page)["sticking_out"] == []
    assert axe_violations(page) == []
    page.get_by_role("link", name="Leave lecture mode").click()
    expect(page.locator("header.site")).to_be_visible()
