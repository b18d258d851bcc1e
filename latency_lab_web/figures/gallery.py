"""The experiments gallery's figures: a :class:`latency_lab.studies.experiments.Figure` (numbers) drawn with plotly.

Model lines and bars take the protocol's colour where they have one (:data:`PROTOCOL_COLOURS`);
published numbers are black diamonds with their accepted range as error bars, or a grey band where
the paper gives only a range (on a categorical axis, a range bar from its low to its high end). Every trace is named, so the legend, not colour alone, tells them apart.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from latency_lab.studies.experiments import Figure, Series
from latency_lab_web.figures import BASE_LAYOUT, PROTOCOL_COLOURS, log_ticks

#: Colours for model series without a protocol (Okabe-Ito, after the protocol colours).
OTHER_COLOURS = ("#CC79A7", "#009E73", "#D55E00", "#0072B2", "#E69F00", "#56B4E9", "#999999")
#: Protocols without a colour in :data:`latency_lab_web.figures.PROTOCOL_COLOURS` (issue 7's h2 and h3).
MODERN_COLOURS = {"h2": "#CC79A7", "h3": "#882255"}
#: The breakdown parts of a stacked bar: stalls in strong colours, the rest muted.
PART_COLOURS = {
    "dns": "#DDDDDD",
    "connection setup": "#BBBBBB",
    "tls setup": "#AA9966",
    "request": "#999999",
    "server": "#777777",
    "propagation": "#56B4E9",
    "serialization": "#009E73",
    "slow start idle": "#0072B2",
    "delayed ack stall": "#D55E00",
    "nagle stall": "#CC79A7",
}
PUBLISHED_COLOUR = "#000000"
BAND_COLOUR = "rgba(0, 0, 0, 0.12)"


def _colour(s: Series, index: int) -> str:
    if s.style == "stack" and s.name in PART_COLOURS:
        return PART_COLOURS[s.name]
    if s.protocol is not None and not s.dash:
        colours = {**PROTOCOL_COLOURS, **MODERN_COLOURS}
        return colours.get(s.protocol, OTHER_COLOURS[index % len(OTHER_COLOURS)])
    return OTHER_COLOURS[index % len(OTHER_COLOURS)]


#: Published points of several series at the same x (a numeric axis) are spread sideways by this share of the
#: axis's span each, so no diamond hides another; their hover text gives the true x.
SPREAD_SHARE = 0.025
#: Marker shapes of published points that share an x: told apart by shape as well as by name.
SPREAD_SYMBOLS = ("diamond", "square", "triangle-up", "circle", "star", "hexagon")


def _spread(f: Figure) -> dict[int, tuple[float, str]]:
    """Per points series (by index) that shares its x values with another: its x offset and marker shape."""
    if f.x_categories:
        return {}
    groups: dict[tuple[float | str, ...], list[int]] = {}
    for i, s in enumerate(f.series):
        if s.style == "points":
            groups.setdefault(tuple(s.x), []).append(i)
    xs = [float(x) for s in f.series for x in s.x if not isinstance(x, str)]
    span = (max(xs) - min(xs)) if xs else 0.0
    out: dict[int, tuple[float, str]] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        for k, i in enumerate(members):
            offset = (k - (len(members) - 1) / 2) * SPREAD_SHARE * (span or 1.0)
            out[i] = (offset, SPREAD_SYMBOLS[k % len(SPREAD_SYMBOLS)])
    return out


def _traces(
    s: Series, index: int, categorical: bool = False, spread: tuple[float, str] | None = None
) -> list[go.BaseTraceType]:
    x = list(s.x)
    colour = _colour(s, index)
    if s.style in ("bar", "stack"):
        return [
            go.Bar(
                x=x,
                y=list(s.y),
                name=s.name,
                marker={"color": colour, "pattern": {"shape": "/" if s.dash else ""}},
                offsetgroup=s.name if s.style == "bar" else None,
            )
        ]
    if s.style == "line":
        return [
            go.Scatter(
                x=x,
                y=list(s.y),
                name=s.name,
                mode="lines+markers",
                line={"color": colour, "dash": "dash" if s.dash else "solid"},
                marker={"symbol": "circle-open" if s.dash else "circle"},
            )
        ]
    if s.style == "points":
        error: dict[str, Any] = {"visible": False}
        if s.low and s.high:
            error = {
                "type": "data",
                "array": [h - y for h, y in zip(s.high, s.y, strict=True)],
                "arrayminus": [y - lo for y, lo in zip(s.y, s.low, strict=True)],
                "color": PUBLISHED_COLOUR,
                "width": 6,
            }
        extra: dict[str, Any] = {}
        if s.over is not None:  # over its bar within the category's group (layout.scattermode "group")
            extra["offsetgroup"] = s.over
        symbol = "diamond"
        if spread is not None:
            offset, symbol = spread
            extra["customdata"] = x
            extra["hovertemplate"] = "%{fullData.name}: %{y:.4g} at %{customdata}<extra></extra>"
            x = [float(v) + offset for v in x]
        return [
            go.Scatter(
                x=x,
                y=list(s.y),
                name=s.name,
                mode="markers",
                marker={"symbol": symbol, "size": 11, "color": PUBLISHED_COLOUR},
                error_y=error,
                **extra,
            )
        ]
    if categorical:  # a band at a category: a range bar (a tick at the low end, an error bar up to the high)
        return [
            go.Scatter(
                x=x,
                y=list(s.low),
                name=s.name,
                mode="markers",
                marker={"symbol": "line-ew-open", "size": 14, "color": PUBLISHED_COLOUR, "line": {"width": 2}},
                error_y={
                    "type": "data",
                    "array": [h - lo for h, lo in zip(s.high, s.low, strict=True)],
                    "arrayminus": [0] * len(x),
                    "color": PUBLISHED_COLOUR,
                    "thickness": 2,
                    "width": 7,
                },
            )
        ]
    # band: the lower edge, then the upper edge filled down to it
    group = f"band{index}"
    return [
        go.Scatter(
            x=x,
            y=list(s.low),
            name=s.name,
            mode="lines",
            line={"color": PUBLISHED_COLOUR, "width": 1, "dash": "dot"},
            legendgroup=group,
            showlegend=False,
            hoverinfo="skip",
        ),
        go.Scatter(
            x=x,
            y=list(s.high),
            name=s.name,
            mode="lines",
            line={"color": PUBLISHED_COLOUR, "width": 1, "dash": "dot"},
            fill="tonexty",
            fillcolor=BAND_COLOUR,
            legendgroup=group,
        ),
    ]


def figure(f: Figure) -> go.Figure:
    """The plotly figure of an experiment's figure."""
    fig = go.Figure()
    spread = _spread(f)
    for i, s in enumerate(f.series):
        for trace in _traces(s, i, f.x_categories, spread.get(i)):
            fig.add_trace(trace)
    stacked = any(s.style == "stack" for s in f.series)
    yaxis: dict[str, Any] = {"title": {"text": f.y_title}, "type": "log" if f.y_log else "linear"}
    if f.y_log:
        yaxis.update(log_ticks(v for s in f.series for v in (*s.y, *s.low, *s.high)))
    fig.update_layout(
        **BASE_LAYOUT,
        title={"text": f.title},
        xaxis={"title": {"text": f.x_title}, "type": "category" if f.x_categories else "linear"},
        yaxis=yaxis,
        barmode="stack" if stacked else "group",
        legend={"orientation": "h", "y": -0.25},
        height=440,
    )
    if any(s.over is not None for s in f.series):  # points drawn over their own bar of each group
        fig.update_layout(scattermode="group")
    return fig
