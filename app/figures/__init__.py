"""Every plotly figure the app shows is built in this package, and only here.

A figure goes to the page as JSON (:func:`to_json`) inside a ``<script type="application/json">``
block that ``static/app.js`` hands to plotly.js; the table beside each figure is its text alternative.
Modules: one per page area (comparison charts, teaching diagrams, gallery experiments).
"""

from __future__ import annotations

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
}

#: Shared layout for every figure (fonts, margins, white background).
BASE_LAYOUT: dict[str, object] = {
    "template": "plotly_white",
    "font": {"family": "system-ui, sans-serif", "size": 13},
    "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
}


def to_json(fig: go.Figure) -> str:
    """The figure as JSON for the page, with ``</`` escaped so it cannot close its script block."""
    return str(pio.to_json(fig, validate=False, pretty=False)).replace("</", "<\\/")
