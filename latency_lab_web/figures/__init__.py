"""Every plotly figure the app shows is built in this package, and only here.

A figure goes to the page as JSON (:func:`to_json`) inside a ``<script type="application/json">``
block that ``latency_lab_web/static/app.js`` hands to plotly.js; the table beside each figure is its text alternative.
Modules: one per page area (comparison charts, teaching diagrams, gallery experiments).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

#: One colour per protocol, used by every chart so a protocol looks the same everywhere.
#: Okabe-Ito palette (distinguishable with colour-blindness); charts also label each trace.
PROTOCOL_COLOURS: dict[str, str] = {
    "http10": "#E69F00",
    "http10_parallel": "#56B4E9",
    "persistent": "#009E73",
    "pipelined": "#0072B2",
    "getall": "#D55E00",
    "persistent_parallel": "#000000",
}

#: Shared layout for every figure (fonts, margins, white background).
BASE_LAYOUT: dict[str, object] = {
    "template": "plotly_white",
    "font": {"family": "system-ui, sans-serif", "size": 13},
    "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
}


def to_json(fig: go.Figure) -> str:
    """The figure as JSON for the page, with ``</`` escaped so it cannot close its script block."""
    text: str = pio.to_json(fig, validate=False, pretty=False)
    return text.replace("</", "<\\/")


#: Mantissas of a log axis's ticks, sparse to dense: the first set giving at least :data:`LOG_TICKS_MIN` ticks.
LOG_TICK_MANTISSAS = (
    (1.0,),
    (1.0, 2.0, 5.0),
    (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
    (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0),
)
LOG_TICKS_MIN = 4


def _tick_text(value: float) -> str:
    """A tick label in full: ``2000`` -> ``2,000``, ``0.05`` -> ``0.05``, ``1.5`` -> ``1.5``."""
    if value >= 1 and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def log_ticks(values: Iterable[float]) -> dict[str, Any]:
    """A log axis's ticks over ``values`` (the data it shows), each labelled in full.

    plotly.js labels a log axis spanning less than a few decades with bare digits ("2 3 4 ... 8") and the
    powers of ten only, so a range inside one decade shows no magnitude at all. These ticks are 1, 2, 5 times
    a power of ten (denser where the range is narrow), within the data's range padded by 15 % either side.
    No ticks (plotly.js's own) where ``values`` holds no positive number.
    """
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if not positive:
        return {}
    lo, hi = min(positive) / 1.15, max(positive) * 1.15
    ticks: list[float] = []
    for mantissas in LOG_TICK_MANTISSAS:
        ticks = [
            round(m * 10.0**k, 12)
            for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
            for m in mantissas
            if lo <= m * 10.0**k <= hi
        ]
        if len(ticks) >= LOG_TICKS_MIN:
            break
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [_tick_text(t) for t in ticks]}
