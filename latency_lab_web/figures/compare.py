"""The calculator's comparison charts: breakdown bars, the sweep's lines, each protocol's waterfall.

Each function takes the model's output (:func:`latency_lab.analysis.predict`'s results, :func:`latency_lab.analysis.sweep.sweep`'s
series) and returns a plotly figure; the page puts its data table beside it as the text
alternative. Protocols keep their colour (:data:`~latency_lab_web.figures.PROTOCOL_COLOURS`) and are always
named too (legend, axis labels), so colour is never the only signal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.io as pio

from latency_lab.analysis.leading import LOSS_PARTS, lossy, parts_ms
from latency_lab_web.figures import BASE_LAYOUT, PROTOCOL_COLOURS, log_ticks
from latency_lab_web.web.words import part_name

#: A figure as plotly.js takes it: ``{"data": [trace, ...], "layout": {...}}``. Built as plain data, not
#: ``plotly.graph_objects``: validating a figure and expanding its template costs tens of milliseconds,
#: more than the model's prediction (the page answers a change within 150 ms, bench/bench_ui.py).
Figure = dict[str, Any]

_TEMPLATE_PARTS = ("autotypenumbers", "colorway", "font", "hovermode", "hoverlabel", "paper_bgcolor", "plot_bgcolor")
#: :data:`BASE_LAYOUT`'s template, resolved once, with only the parts these 2-D charts use.
TEMPLATE: dict[str, Any] = {
    "layout": {
        **{
            k: v
            for k, v in pio.templates[str(BASE_LAYOUT["template"])].layout.to_plotly_json().items()
            if k in _TEMPLATE_PARTS
        },
        **{
            axis: pio.templates[str(BASE_LAYOUT["template"])].layout[axis].to_plotly_json()
            for axis in ("xaxis", "yaxis")
        },
    }
}


def to_json(fig: Figure) -> str:
    """A figure as JSON for the page, ``</`` escaped so it cannot close its script block (as :func:`latency_lab_web.figures.to_json`)."""
    return json.dumps(fig, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


#: Colours of the breakdown's categories (Okabe-Ito order, then greys), with patterns as a second cue.
CATEGORY_STYLE: dict[str, tuple[str, str]] = {
    "connection_setup": ("#0072B2", ""),
    "request": ("#56B4E9", "/"),
    "server": ("#999999", "."),
    "propagation": ("#009E73", ""),
    "serialization": ("#F0E442", "-"),
    "slow_start_idle": ("#E69F00", "x"),
    "delayed_ack_stall": ("#D55E00", "\\"),
    "nagle_stall": ("#CC79A7", "+"),
    # loss's own parts (latency_lab.analysis.leading.LOSS_PARTS): Paul Tol's muted colours, each with a pattern
    LOSS_PARTS["handshake"]: ("#332288", "-"),
    LOSS_PARTS["timeouts"]: ("#882255", "x"),
    LOSS_PARTS["fast_retransmit"]: ("#44AA99", "|"),
    LOSS_PARTS["slower_sending"]: ("#DDCC77", "."),
}

#: Connections' colours in a waterfall (cycled); the connection is in every row's label too.
CONNECTION_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def words(name: str) -> str:
    """``delayed_ack_stall`` -> ``delayed ACK stall``; ``loss_timeouts`` -> ``loss: timeouts`` (a part or count name
    for people: :func:`latency_lab_web.web.words.part_name`)."""
    return part_name(name)


def _layout(**extra: Any) -> dict[str, Any]:
    return {**BASE_LAYOUT, "template": TEMPLATE, **extra}


def _current_line(x: float) -> dict[str, Any]:
    """The dotted vertical line at the scenario's own value of a swept field (x in the axis' units)."""
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"dash": "dot", "color": "#333333", "width": 1},
    }


def breakdown_bar(results: Sequence[Mapping[str, Any]]) -> Figure:
    """Each protocol's time that leads (:func:`latency_lab.analysis.leading.leading_ms`: with loss, the expected time) as
    a stacked bar of its parts (:func:`latency_lab.analysis.leading.parts_ms`: the breakdown's, then loss's own; ms)."""
    protocols = [r["protocol"] for r in results]
    parts = [parts_ms(r) for r in results]
    categories = list(dict.fromkeys(k for p in parts for k in p))
    traces = []
    for cat in categories:
        values = [p.get(cat, 0.0) for p in parts]
        if not any(values):
            continue
        colour, pattern = CATEGORY_STYLE.get(cat, ("#777777", ""))
        traces.append(
            {
                "type": "bar",
                "name": words(cat),
                "x": values,
                "y": protocols,
                "orientation": "h",
                "marker": {"color": colour, "pattern": {"shape": pattern}},
                "hovertemplate": "%{y}: %{x:,.1f} ms " + words(cat) + "<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            barmode="stack",
            height=120 + 45 * len(protocols),
            xaxis={
                "title": {
                    "text": "expected time with loss: the critical path's parts, then loss's (ms)"
                    if any(lossy(r) for r in results)
                    else "time on the critical path (ms)"
                },
                "rangemode": "tozero",
            },
            yaxis={"autorange": "reversed", "automargin": True},
            # below the axis title, whatever the bar count: at a fraction of the plot height it ran over the title
            legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yanchor": "bottom", "yref": "container"},
            margin={"l": 20, "r": 20, "t": 20, "b": 60},
        ),
    }


#: The sweep's time axis is logarithmic where its times span this factor or more (a decade): on a linear axis
#: the short times of a sweep over round-trip time or bandwidth sit flat on the floor.
LOG_Y_SPAN = 10.0


def sweep_times(out: Mapping[str, Any]) -> list[float]:
    """Every time the sweep plot draws (ms): each protocol's, and its expected value with loss."""
    times: list[float] = []
    for series in out["series"]:
        times += [t for t in series["page_load_ms"] if t is not None]
        times += [t for t in series.get("expected_with_loss_ms") or [] if t is not None]
    return times


def sweep_lines(
    out: Mapping[str, Any], label: str, unit: str, log_x: bool, current: float | None, log_y: bool | None = None
) -> Figure:
    """Page load time against the swept field: one line (with markers of its own shape) per protocol.

    ``log_y``: a logarithmic time axis; ``None`` (the default): where the times span :data:`LOG_Y_SPAN` or more.

    Where a point has random loss (``network.loss_rate`` > 0), each protocol gets a second, dashed line: its
    expected page load time with loss (``expected_with_loss_ms``, an expected value, not a schedule)."""
    symbols = ("circle", "square", "diamond", "triangle-up", "x", "cross")
    traces = []
    dashed = []
    for i, series in enumerate(out["series"]):
        proto = series["protocol"]
        expected = series.get("expected_with_loss_ms")
        if expected is None or expected == series["page_load_ms"]:
            continue
        dashed.append(
            {
                "type": "scatter",
                "name": f"{proto}, expected with loss",
                "x": out["values"],
                "y": expected,
                "mode": "lines+markers",
                "line": {"color": PROTOCOL_COLOURS.get(proto, "#444444"), "width": 2, "dash": "dash"},
                "marker": {"symbol": symbols[i % len(symbols)] + "-open", "size": 7},
                "hovertemplate": proto
                + ", expected with loss: %{y:,.1f} ms at %{x:,}"
                + (f" {unit}" if unit else "")
                + "<extra></extra>",
            }
        )
    lossy = bool(dashed)
    for i, series in enumerate(out["series"]):
        proto = series["protocol"]
        traces.append(
            {
                "type": "scatter",
                "name": proto,
                "x": out["values"],
                "y": series["page_load_ms"],
                "mode": "lines+markers",
                "line": {"color": PROTOCOL_COLOURS.get(proto, "#444444"), "width": 2},
                "marker": {"symbol": symbols[i % len(symbols)], "size": 7},
                "hovertemplate": proto + ": %{y:,.1f} ms at %{x:,}" + (f" {unit}" if unit else "") + "<extra></extra>",
            }
        )
    traces += dashed
    times = sweep_times(out)
    if log_y is None:
        log_y = bool(times) and min(times) > 0 and max(times) / min(times) >= LOG_Y_SPAN
    shapes = []
    annotations = []
    if current is not None:
        shapes.append(_current_line(current))
        annotations.append(
            {
                # an annotation on a log axis is placed by the log of its value (a shape by the value)
                "x": math.log10(current) if log_x and current > 0 else current,
                "xref": "x",
                "y": 1,
                "yref": "paper",
                "text": "current",
                "showarrow": False,
                "yanchor": "bottom",
            }
        )
    title = label + (f" ({unit})" if unit else "")
    return {
        "data": traces,
        "layout": _layout(
            height=380,
            # Log axes: a tick at each power of ten, labelled without superscripts (plotly.js styles those
            # with style attributes, which the Content-Security-Policy blocks).
            xaxis={
                "title": {"text": title + (", log scale" if log_x else "")},
                "type": "log" if log_x else "linear",
                **({"dtick": 1, "exponentformat": "SI"} if log_x else {}),
            },
            yaxis={
                "title": {
                    "text": "page load time (ms)"
                    + ("; dashed: expected with loss" if lossy else "")
                    + (", log scale" if log_y else "")
                },
                "type": "log" if log_y else "linear",
                **(log_ticks(times) if log_y else {"rangemode": "tozero"}),
            },
            shapes=shapes,
            annotations=annotations,
            legend={"orientation": "h", "y": -0.25},
            margin={"l": 70, "r": 20, "t": 30, "b": 60},
        ),
    }


def loss_lines(out: Mapping[str, Any], current: float) -> Figure:
    """What each protocol's time becomes as loss grows: its expected page load time with loss against the loss rate
    (a sweep over ``network.loss_rate``; log scale, so the lossless point, 0, is in the hover and the table, not on
    the axis), one line and marker shape per protocol, the scenario's own rate marked."""
    symbols = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star")
    values = list(out["values"])
    keep = [i for i, v in enumerate(values) if v > 0]
    traces = []
    for i, series in enumerate(out["series"]):
        proto = series["protocol"]
        lossless = next((series["page_load_ms"][j] for j, v in enumerate(values) if v == 0), None)
        traces.append(
            {
                "type": "scatter",
                "name": proto,
                "x": [values[j] for j in keep],
                "y": [series["expected_with_loss_ms"][j] for j in keep],
                "mode": "lines+markers",
                "line": {"color": PROTOCOL_COLOURS.get(proto, "#444444"), "width": 2},
                "marker": {"symbol": symbols[i % len(symbols)], "size": 7},
                "hovertemplate": proto
                + ": %{y:,.1f} ms expected at loss rate %{x}"
                + (f" ({lossless:,.1f} ms without loss)" if lossless is not None else "")
                + "<extra></extra>",
            }
        )
    times = [t for tr in traces for t in tr["y"] if t is not None]
    log_y = bool(times) and min(times) > 0 and max(times) / min(times) >= LOG_Y_SPAN
    return {
        "data": traces,
        "layout": _layout(
            height=380,
            xaxis={"title": {"text": "loss rate (per packet), log scale"}, "type": "log", "dtick": 1},
            yaxis={
                "title": {"text": "expected page load time with loss (ms)" + (", log scale" if log_y else "")},
                "type": "log" if log_y else "linear",
                **(log_ticks(times) if log_y else {"rangemode": "tozero"}),
            },
            shapes=[_current_line(current)],
            annotations=[
                {
                    "x": math.log10(current),
                    "xref": "x",
                    "y": 1,
                    "yref": "paper",
                    "text": "this scenario",
                    "showarrow": False,
                    "yanchor": "bottom",
                }
            ],
            legend={"orientation": "h", "y": -0.25},
            margin={"l": 70, "r": 20, "t": 30, "b": 60},
        ),
    }


#: At most this many objects in a waterfall (its chart and its data table): the first to start. A page of 159
#: objects loaded 14 times (``session.pages``) has 2,241 per protocol; drawn and listed for 8 protocols they made a
#: 5.2 MB results page, most of its 0.7-0.9 s spent rendering rows no one reads. Every object is in the waterfall's
#: CSV (``calculator.waterfall_csv``) and in the JSON (``results[].objects``).
WATERFALL_ROWS = 200


def waterfall_rows(objects: Sequence[Mapping[str, Any]], limit: int | None = WATERFALL_ROWS) -> list[Mapping[str, Any]]:
    """A waterfall's rows: the first ``limit`` objects to start (all with ``None``), by connection, then by start."""
    chosen = list(objects)
    if limit is not None and len(chosen) > limit:
        chosen = sorted(chosen, key=lambda o: (o["start_ms"], o["end_ms"]))[:limit]
    return sorted(chosen, key=lambda o: (o["connection"], o["start_ms"], o["end_ms"]))


def waterfall_csv_rows(results: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Every object of every protocol's waterfall, as CSV rows under a header: protocol, connection, object, bytes,
    start_ms, end_ms (ms since the page was requested), in the waterfall's order."""
    rows: list[list[Any]] = [["protocol", "connection", "object", "bytes", "start_ms", "end_ms"]]
    for r in results:
        rows += [
            [r["protocol"], o["connection"], o["name"], o["bytes"], o["start_ms"], o["end_ms"]]
            for o in waterfall_rows(r["objects"], None)
        ]
    return rows


def waterfall(result: Mapping[str, Any]) -> Figure:
    """One protocol's objects over time: a bar from each object's start to its end, one row each.

    Rows are grouped by connection (``c2 obj7``), and bars are coloured by connection (cycled).
    """
    rows = waterfall_rows(result["objects"])
    labels = [f"c{o['connection']} {o['name']}" for o in rows]
    colours = [CONNECTION_COLOURS[int(o["connection"]) % len(CONNECTION_COLOURS)] for o in rows]
    trace = {
        "type": "bar",
        "x": [o["end_ms"] - o["start_ms"] for o in rows],
        "base": [o["start_ms"] for o in rows],
        "y": labels,
        "orientation": "h",
        "marker": {"color": colours},
        "customdata": [[o["start_ms"], o["end_ms"], o["bytes"]] for o in rows],
        "hovertemplate": "%{y}: %{customdata[0]:,.1f} to %{customdata[1]:,.1f} ms, %{customdata[2]:,} bytes"
        "<extra></extra>",
        "showlegend": False,
    }
    return {
        "data": [trace],
        "layout": _layout(
            height=min(1400, 110 + 16 * len(rows)),
            bargap=0.15,
            xaxis={"title": {"text": "time since the page was requested (ms)"}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "type": "category", "automargin": True, "tickfont": {"size": 11}},
            margin={"l": 20, "r": 20, "t": 20, "b": 50},
        ),
    }
