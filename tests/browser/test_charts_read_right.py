"""Issue 15, defect 8: the charts say what they mean, read from what plotly.js drew in Chromium.

Before the fix: the gallery's log axes labelled bare digits ("2 3 4 ... 8", each meaning a multiple of a power
of ten not shown), M98 figure 4's published diamonds sat at the centre of each group of four bars instead of
over the bar they belong to (direct HTTP/1.0), P98's three published factors at 10 images lay on top of one
another, and the calculator's sweep drew times spanning decades on a linear axis (the short ones flat on the
floor). The sweep's point count is the page's work budget's (latency_lab_web/calculator/views.py), not the chart's.
"""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import Page

from latency_lab.studies.experiments import experiment
from latency_lab_web.gallery.views import SLUGS
from tests.browser.windows import PLOTS_DRAWN, WINDOW_IDS, WINDOWS, use_window

#: Per plot with a log axis: each drawn tick's position (log10 of its value) and its label.
LOG_TICKS = """() => [...document.querySelectorAll(".plot[data-figure]")].flatMap((gd) =>
  ["xaxis", "yaxis"].filter((a) => gd._fullLayout[a] && gd._fullLayout[a].type === "log").map((a) => ({
    plot: gd.dataset.figure, axis: a, ticks: gd._fullLayout[a]._vals.map((v) => [v.x, v.text]),
  })))"""

#: Centres (page pixels) of the points of every trace of one plot, by trace name, in category order.
CENTRES = """(id) => {
  const gd = document.querySelector(`.plot[data-figure='${id}']`);
  const out = {};
  gd.querySelectorAll(".trace").forEach((g) => {
    const trace = g.__data__ && g.__data__[0] && g.__data__[0].trace;
    if (!trace) return;
    const paths = [...g.querySelectorAll(".point, .points path")].filter((p) => p.getAttribute("d"));
    out[trace.name] = paths.map((p) => { const r = p.getBoundingClientRect();
                                         return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width}; });
  });
  return out;
}"""


def _open(page: Page, path: str, window: tuple[int, int]) -> None:
    use_window(page, window)
    page.goto(path)
    page.wait_for_function(PLOTS_DRAWN)


def _check_log_ticks(found: list[dict[str, object]], where: str) -> None:
    for axis in found:
        ticks = axis["ticks"]
        assert isinstance(ticks, list) and len(ticks) >= 3, f"{where} {axis['plot']} {axis['axis']}: {ticks}"
        for position, text in ticks:
            value = float(str(text).replace(",", ""))
            # the label is the value at its place on the axis, not a bare digit of a multiple
            assert math.isclose(value, 10**position, rel_tol=1e-6), (
                f"{where} {axis['plot']}: {text!r} at {10**position:g}"
            )


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("slug", [s for s in SLUGS if any(f.y_log for f in experiment(s).figures)])
def test_gallery_log_axes_label_their_values(page: Page, slug: str, window: tuple[int, int]) -> None:
    _open(page, f"/experiments/{slug}", window)
    found = page.evaluate(LOG_TICKS)
    assert found, "no log axis drawn"
    _check_log_ticks(found, slug)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_m98_published_points_sit_over_their_bar(page: Page, window: tuple[int, int]) -> None:
    _open(page, "/experiments/m98", window)
    fig4 = next(f for f in experiment("m98").figures if f.id == "fig4")
    published = next(s for s in fig4.series if s.source == "published")
    assert "direct HTTP/1.0" in published.name  # the seed's means are for direct HTTP/1.0
    bars = [s.name for s in fig4.series if s.style == "bar"]
    centres = page.evaluate(CENTRES, "figure-fig4")
    own = centres["model, direct, HTTP/1.0"]
    points = centres[published.name]
    assert len(points) == len(own) == len(published.x)
    for category, point, bar in zip(published.x, points, own, strict=True):
        group = [centres[name][published.x.index(category)]["x"] for name in bars]
        middle = (min(group) + max(group)) / 2
        assert abs(point["x"] - bar["x"]) <= 2, (
            f"{category}: the diamond at x={point['x']:.0f}, its bar at {bar['x']:.0f}"
        )
        assert abs(point["x"] - middle) > bar["w"] / 2, f"{category}: the diamond sits at the group's centre"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_p98_published_factors_do_not_overlap(page: Page, window: tuple[int, int]) -> None:
    _open(page, "/experiments/p98", window)
    speedup = next(f for f in experiment("p98").figures if f.id == "speedup")
    names = [s.name for s in speedup.series if s.source == "published"]
    assert len(names) == 3, names  # one series a size, each named
    centres = page.evaluate(CENTRES, "figure-speedup")
    points = [centres[name][0] for name in names]
    for i, a in enumerate(points):
        for b in points[i + 1 :]:
            apart = math.hypot(a["x"] - b["x"], a["y"] - b["y"])
            assert apart >= min(a["w"], b["w"]), f"published points {a} and {b} overlap"
    # each sits within a marker's width of x = 10 images, where its hover text puts it
    axis = page.evaluate(
        """() => { const gd = document.querySelector(".plot[data-figure='figure-speedup']");
                   const xa = gd._fullLayout.xaxis; const box = gd.querySelector(".xy .bglayer rect, .nsewdrag");
                   const r = box.getBoundingClientRect();
                   return {left: r.left, px: xa._length / (xa.range[1] - xa.range[0]), x0: xa.range[0]}; }"""
    )
    for p in points:
        x = axis["x0"] + (p["x"] - axis["left"]) / axis["px"]
        assert abs(x - 10) < 0.25, f"a published point drawn at {x:.2f} images"


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_sweep_over_decades_of_time_has_a_log_axis(page: Page, window: tuple[int, int]) -> None:
    _open(page, "/?preset=pm94-remote", window)  # round-trip time 1 to 1,000 ms: times from ~0.2 s to ~9 s
    axis = page.evaluate(
        """() => { const gd = document.querySelector(".plot[data-figure='fig-sweep']");
                   const ys = gd.data.flatMap((t) => Array.from(t.y)).filter((y) => y > 0);
                   return {type: gd._fullLayout.yaxis.type, low: Math.min(...ys), high: Math.max(...ys)}; }"""
    )
    assert axis["high"] / axis["low"] >= 10, axis
    assert axis["type"] == "log", f"times from {axis['low']:.0f} to {axis['high']:.0f} ms on a {axis['type']} axis"
    found = [a for a in page.evaluate(LOG_TICKS) if a["plot"] == "fig-sweep" and a["axis"] == "yaxis"]
    _check_log_ticks(found, "sweep")


def test_sweep_over_a_narrow_range_keeps_a_linear_axis(page: Page) -> None:
    _open(page, "/?sweep=tcp.delayed_ack_ms", (1366, 768))  # the defaults: about 0.4 s to 1 s
    axis = page.evaluate(
        """() => { const gd = document.querySelector(".plot[data-figure='fig-sweep']");
                   const ys = gd.data.flatMap((t) => Array.from(t.y)).filter((y) => y > 0);
                   return {type: gd._fullLayout.yaxis.type, low: Math.min(...ys), high: Math.max(...ys)}; }"""
    )
    assert axis["high"] / axis["low"] < 10, axis
    assert axis["type"] == "linear", axis
