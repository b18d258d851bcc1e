"""The three browser windows issue 15 was tried at, and what the browser tests check in each of them.

- :data:`WINDOWS`: a phone (390x844), a laptop (1366x768) and a projector or desktop (1920x1080); tests take
  them as ``@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)`` and call :func:`use_window`.
- :func:`horizontal_overflow`: what sticks out of the window sideways (nothing may: the page must not scroll
  sideways at any of the three widths).
- :func:`axe_violations`: axe-core (vendored in ``latency_lab_web/static/vendor/``, loaded from the app itself, so the
  Content-Security-Policy allows it) run on the page as it is; its serious and critical violations.
- :func:`settle` and :func:`read_state`: a page loaded and settled at a window, and every read-only measure that
  test_accessibility and test_fits_the_window take of it, from one load (the ``page_states`` fixture).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

WINDOWS: tuple[tuple[int, int], ...] = ((390, 844), (1366, 768), (1920, 1080))
WINDOW_IDS = tuple(f"{w}x{h}" for w, h in WINDOWS)
#: Below this width the calculator is one column (style.css: ``max-width: 60rem``).
ONE_COLUMN_BELOW = 960

#: Every plot is drawn from its current figure (see plots_drawn.js).
PLOTS_DRAWN = (Path(__file__).parent / "plots_drawn.js").read_text(encoding="utf-8")

#: The API docs page names no icon (its test keeps every address on the page local), so Chromium asks for
#: /favicon.ico and logs the 404: expected there, not an error of the page.
API_DOCS_FAVICON = r"status of 404 .*/favicon\.ico"

#: axe-core as vendored (latency_lab_web/static/vendor/axe.LICENSE holds its licence).
AXE_URL = "/static/vendor/axe-4.14.1.min.js"


def use_window(page: Page, window: tuple[int, int]) -> None:
    width, height = window
    page.set_viewport_size({"width": width, "height": height})


def horizontal_overflow(page: Page) -> dict[str, Any]:
    """The document's width against the window's, and the elements whose right edge passes the window."""
    found: dict[str, Any] = page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          const out = [];
          for (const el of document.querySelectorAll("body *")) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 || r.right <= width + 1) continue;
            // inside a scroll box of its own (a wide table in its wrapper): fine while the box fits
            let clipped = false;
            for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
              const s = getComputedStyle(p);
              if (/(auto|scroll|hidden|clip)/.test(s.overflowX) && p.getBoundingClientRect().right <= width + 1) {
                clipped = true;
                break;
              }
            }
            if (clipped || el.closest(".visually-hidden, .skip")) continue;
            out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
                     (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "") +
                     " right=" + Math.round(r.right));
          }
          return {window: width, document: document.documentElement.scrollWidth, sticking_out: out.slice(0, 12)};
        }"""
    )
    return found


def axe_violations(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict[str, Any]]:
    """axe-core's violations of the given impacts on the page as it is now: rule, impact and up to five nodes."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(url=AXE_URL)
    found: list[dict[str, Any]] = page.evaluate(
        """async (impacts) => {
          const r = await axe.run(document, {resultTypes: ["violations"]});
          return r.violations.filter((v) => impacts.includes(v.impact)).map((v) => ({
            rule: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")), count: v.nodes.length,
          }));
        }""",
        list(impacts),
    )
    return found


OPEN_EVERY_DETAILS = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
#: The calculator's teaching panel (loaded by htmx after the page) has drawn its ladder.
PANEL_DRAWN = """() => { const p = document.querySelector("#explain .plot.ladder[data-figure]");
                         return !!(p && p.dataset.rendered === "true"); }"""
#: The ids that more than one element has.
DUPLICATE_IDS = """() => { const seen = {}; for (const el of document.querySelectorAll("[id]")) seen[el.id] = (seen[el.id] || 0) + 1;
                           return Object.keys(seen).filter((id) => seen[id] > 1); }"""

#: Per chart: its title's and its toolbar's boxes, and the chart's own.
TITLES = """() => [...document.querySelectorAll(".plot[data-figure]")].map((p) => {
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
                        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  return {id: p.dataset.figure, plot: box(p), title: box(p.querySelector(".gtitle")),
          toolbar: box(p.querySelector(".modebar")), text: (p.querySelector(".gtitle") || {}).textContent};
})"""

#: Per chart: the axis titles, tick labels and chart title its legend runs over.
LEGEND_OVER = """() => [...document.querySelectorAll(".plot[data-figure]")].map((p) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const hit = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
  const legend = p.querySelector(".legend");
  if (!legend) return null;
  const under = [...p.querySelectorAll(".xtitle, .ytitle, .xtick text, .ytick text, .gtitle")]
    .filter((el) => hit(box(legend), box(el))).map((el) => el.textContent.slice(0, 30));
  return under.length ? {plot: p.dataset.figure, under} : null;
}).filter((x) => x)"""


def settle(page: Page, path: str) -> None:
    """Go to ``path`` and wait until the network is idle, every plot is drawn and, on the calculator, the teaching
    panel it loads after the page has drawn its ladder."""
    page.goto(path)
    page.wait_for_load_state("networkidle")
    if page.locator(".plot[data-figure]").count():
        page.wait_for_function(PLOTS_DRAWN)
    if page.locator("#explain[hx-trigger='load']").count():
        page.wait_for_function(PANEL_DRAWN)


def read_state(page: Page, path: str, window: tuple[int, int], *, axe: bool) -> dict[str, Any]:
    """Every read-only measure test_accessibility and test_fits_the_window take of ``path`` at ``window``, from one
    load, in the order the page's states come. As loaded and settled (:func:`settle`): the charts' titles and
    toolbars (:data:`TITLES`), their legends (:data:`LEGEND_OVER`), then axe-core's serious and critical violations
    (``axe_loaded``). Then with every ``<details>`` open: what passes the window's right edge (``overflow``, taken
    before axe runs again), axe-core's violations (``axe``), the number of ``<h1>`` and the duplicated ids. With
    ``axe`` False both axe entries are None (nothing else changes: axe only reads the page)."""
    use_window(page, window)
    settle(page, path)
    out: dict[str, Any] = {"titles": page.evaluate(TITLES), "legends": page.evaluate(LEGEND_OVER)}
    out["axe_loaded"] = axe_violations(page) if axe else None
    page.evaluate(OPEN_EVERY_DETAILS)
    page.wait_for_timeout(100)
    out["overflow"] = horizontal_overflow(page)
    out["axe"] = axe_violations(page) if axe else None
    out["h1"] = page.locator("h1").count()
    out["duplicate_ids"] = page.evaluate(DUPLICATE_IDS)
    return out
