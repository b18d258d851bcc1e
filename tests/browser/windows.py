"""The three browser windows issue 15 was tried at, and what the browser tests check in each of them.

- :data:`WINDOWS`: a phone (390x844), a laptop (1366x768) and a projector or desktop (1920x1080); tests take
  them as ``@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)`` and call :func:`use_window`.
- :func:`horizontal_overflow`: what sticks out of the window sideways (nothing may: the page must not scroll
  sideways at any of the three widths).
- :func:`axe_violations`: axe-core (vendored in ``latency_lab_web/static/vendor/``, loaded from the app itself, so the
  Content-Security-Policy allows it) run on the page as it is; its serious and critical violations.
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
