"""The ladder (sequence) diagram of one protocol's packets: the teaching panel's figure.

The client's column is on the left, the server's on the right, time runs down. Each packet is a
line from its sender's column at ``sent_ms`` to its receiver's at ``arrival_ms``, ending in an
arrow and labelled (SYN, SYN-ACK, ACK, FIN, a data segment's object and bytes). A delayed-ACK
timer that held an ACK is a thick bar on the receiver's side, from when the timer started to when
the ACK left; a segment Nagle's algorithm held is a dotted bar on the sender's side. Every mark
also differs by dash, marker and label, not only by colour.

Time is drawn either to scale (``scale="time"``) or, by default, in steps (``scale="steps"``):
every moment a packet leaves or arrives gets its own row, gaps between moments get space growing
with the logarithm of their length, and the axis ticks give the real times. A LAN page whose
packets take microseconds but whose delayed-ACK timer takes 200 ms stays readable that way.

A run of more than :data:`MAX_PACKETS` packets is drawn in pages of that many (by the time they leave):
``page`` chooses one and :class:`Ladder` says which packets and times it covers, so every packet of the run
can be read (each page draws in well under the request's second). The stalls on the critical path
(:func:`latency_lab.analysis.account.account`, the same walk as the breakdown and the stalls list) are shaded across
the diagram where they run, labelled with their kind and time. Labels that would overlap the one above them
on the same side are left to the packet's hover text.

Each page also carries its **steps** (:func:`steps`): the events the drawing shows, one at a time in time order (each
packet leaving, each delayed-ACK timer or Nagle hold starting), each with its place on the drawing's time axis, its
filter group (data, ACKs, handshake, timers), the packet's TCP fields (:func:`latency_lab_web.web.pcap.tcp_fields`, as the
run's pcap file carries them) and why it left when it did, read from the model's own rows and events. The
teaching panel's stepping ladder (``latency_lab_web/static/ladder-step.js``) plays them; it computes no time of its own.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import plotly.graph_objects as go

from latency_lab_web.figures import BASE_LAYOUT, PROTOCOL_COLOURS
from latency_lab_web.web.pcap import tcp_fields

#: Packets drawn on one page of the ladder; a run with more is drawn in pages.
MAX_PACKETS = 100
#: Most pages of the ladder (the engine's step budget keeps runs far below this many packets).
MAX_LADDER_PAGES = 100_000

Scale = Literal["steps", "time"]
SCALES: tuple[Scale, ...] = ("steps", "time")

CLIENT_X = 0.0
SERVER_X = 1.0
#: How far beside its column a timer or a Nagle hold is drawn.
BESIDE = 0.05
CONTROL_COLOUR = "#444444"
ACK_COLOUR = "#777777"
TIMER_COLOUR = "#CC79A7"  # Okabe-Ito reddish purple
NAGLE_COLOUR = "#8B5A00"
REQUEST_COLOUR = "#E69F00"  # Okabe-Ito orange: requests apart from the protocol's colour of the data
#: Shading and label colour of each stall part on the critical path.
STALL_STYLE: dict[str, tuple[str, str, str]] = {
    "slow_start_idle": ("rgba(0, 114, 178, 0.10)", "#005A8C", "slow-start wait"),
    "delayed_ack_stall": ("rgba(204, 121, 167, 0.16)", "#9E4F7C", "delayed-ACK stall"),
    "nagle_stall": ("rgba(139, 90, 0, 0.12)", "#8B5A00", "Nagle stall"),
}
#: Least vertical room between two labels on the same side (px).
LABEL_GAP_PX = 14
EPS = 1e-9
#: Where along a packet's line its label sits (0: at the sender, 1: at the receiver).
LABEL_AT = 0.3
#: The stepping ladder's filter group of each packet kind (timers are the fourth group).
GROUPS: dict[str, str] = {
    "data": "data",
    "request": "data",
    "ACK": "ack",
    "SYN": "handshake",
    "SYN-ACK": "handshake",
    "FIN": "handshake",
}
#: The filter groups in the order offered, with their labels.
GROUP_NAMES: dict[str, str] = {
    "data": "data and requests",
    "ack": "ACKs",
    "handshake": "handshake and close (SYN, SYN-ACK, FIN)",
    "timer": "timers (delayed ACK, Nagle)",
}


@dataclass(frozen=True, slots=True)
class Hold:
    """A wait drawn on one side: a delayed-ACK timer (receiver) or a Nagle hold (sender)."""

    kind: Literal["delayed_ack", "nagle"]
    side: Literal["client", "server"]
    start_ms: float
    end_ms: float
    connection: int
    packet: int  # the packet that left when the wait ended
    why: str = ""


@dataclass(slots=True)
class Ladder:
    """The figure and what it shows (for the text beside it)."""

    figure: go.Figure
    packets_total: int
    packets_shown: int
    holds: list[Hold]
    left_out: dict[str, int] = field(default_factory=dict)  # packet label kind -> count not drawn
    holds_left_out: dict[str, int] = field(default_factory=dict)  # hold kind -> count not drawn
    shown_until_ms: float = 0.0  # the last drawn packet's arrival
    connections_shown: int = 0
    connections_total: int = 0
    page: int = 1
    pages: int = 1
    first_shown: int = 0  # the first drawn packet's place in departure order (0-based)
    shown_from_ms: float = 0.0  # the first drawn packet's departure
    stalls_shown: int = 0  # stalls on the critical path shaded on this page
    steps: list[dict[str, Any]] = field(default_factory=list)  # the page's events in time order (:func:`steps`)

    @property
    def summarised(self) -> bool:
        return self.packets_shown < self.packets_total


def fmt_ms(x: float) -> str:
    """A time for people: ``0.1874 ms``, ``11.03 ms``, ``196.8 ms``, ``1,234 ms``."""
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f} ms"
    if a >= 100:
        return f"{x:.1f} ms"
    if a >= 1:
        return f"{x:.2f} ms"
    return f"{x:.4g} ms"


def kind_of(pkt: dict[str, Any]) -> str:
    """A packet's kind as the ladder names it: SYN, SYN-ACK, ACK, FIN, request, data."""
    kind = str(pkt["kind"])
    if kind == "SYNACK":
        return "SYN-ACK"
    if kind == "DATA":
        return "request" if pkt["direction"] == "up" else "data"
    return kind


def label(pkt: dict[str, Any], connections: int) -> str:
    """The text on a packet's line: ``SYN``, ``ACK``, ``html 1460 B``, ``GET obj1``, ``+FIN``."""
    kind = kind_of(pkt)
    if kind == "request":
        text = f"GET {pkt['object']}" if pkt["object"] else f"request {pkt['bytes']} B"
    elif kind == "data":
        text = f"{pkt['object'] or 'data'} {pkt['bytes']} B"
    else:
        text = kind
    if pkt["fin"] and kind != "FIN":
        text += " +FIN"
    if connections > 1:
        text = f"c{pkt['connection']} {text}"
    return text


def _hover(pkt: dict[str, Any]) -> str:
    up = pkt["direction"] == "up"
    route = "client → server" if up else "server → client"
    parts = [f"#{pkt['n']} {kind_of(pkt)}: {route}, connection {pkt['connection']}"]
    if pkt["object"]:
        parts.append(f"object {pkt['object']}")
    parts.append(
        f"{pkt['bytes']:,} bytes of payload, {pkt['wire_bytes']:,} on the wire" + (", FIN" if pkt["fin"] else "")
    )
    if pkt["queued_ms"] < pkt["sent_ms"] - EPS:
        parts.append(f"queued {fmt_ms(pkt['queued_ms'])}")
    parts.append(f"sent {fmt_ms(pkt['sent_ms'])}, arrives {fmt_ms(pkt['arrival_ms'])}")
    if pkt["ack_held_ms"] > EPS:
        parts.append(f"held {fmt_ms(pkt['ack_held_ms'])} by the delayed-ACK timer")
    return "<br>".join(parts)


def holds(packets: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]]) -> list[Hold]:
    """The delayed-ACK timers and Nagle holds of a schedule.

    A delayed-ACK timer is read from the packet it held (``ack_held_ms``: it ran until the packet
    left). A Nagle hold is read from a ``nagle_stall`` event (the model reports the holds that lay
    on the critical path), matched to the segment that left when it ended.
    """
    out: list[Hold] = []
    for pkt in packets:
        if pkt["ack_held_ms"] > EPS:
            side: Literal["client", "server"] = "client" if pkt["direction"] == "up" else "server"
            out.append(
                Hold(
                    "delayed_ack",
                    side,
                    pkt["sent_ms"] - pkt["ack_held_ms"],
                    pkt["sent_ms"],
                    pkt["connection"],
                    pkt["n"],
                )
            )
    # each connection's and object's data segments by departure (with their place in the schedule), so a stall
    # finds its segment by bisection: scanning every packet for every stall was quadratic (a 1,000-object page
    # with hundreds of stalls took seconds)
    departures: dict[tuple[Any, Any], list[tuple[float, int]]] = {}
    for i, pkt in enumerate(packets):
        if pkt["kind"] == "DATA":
            departures.setdefault((pkt["connection"], pkt["object"]), []).append((pkt["sent_ms"], i))
    for group in departures.values():
        group.sort()
    for e in events:
        if e["kind"] != "nagle_stall":
            continue
        end = e["start_ms"] + e["duration_ms"]
        tolerance = 1e-6 * max(1.0, end)
        group = departures.get((e["connection"], e["object"]), [])
        j = bisect.bisect_left(group, (end - tolerance, -1))
        found: int | None = None
        while j < len(group) and group[j][0] <= end + tolerance:
            found = group[j][1] if found is None else min(found, group[j][1])  # the first in the schedule
            j += 1
        if found is not None:
            pkt = packets[found]
            sender: Literal["client", "server"] = "client" if pkt["direction"] == "up" else "server"
            out.append(Hold("nagle", sender, e["start_ms"], pkt["sent_ms"], pkt["connection"], pkt["n"], e["why"]))
    return out


class TimeAxis:
    """Maps a time (ms) to the figure's y, and gives the axis' ticks."""

    def __init__(self, times: Sequence[float], scale: Scale) -> None:
        self.scale = scale
        moments = sorted(set(times))
        self.times: list[float] = []
        for t in moments:
            if not self.times or t - self.times[-1] > EPS:
                self.times.append(t)
        gaps = [b - a for a, b in zip(self.times, self.times[1:], strict=False)]
        self.reference = statistics.median(gaps) if gaps else 1.0
        self.pos: list[float] = [0.0]
        for g in gaps:
            self.pos.append(self.pos[-1] + self.step(g))
        #: gaps drawn much shorter than they last: (start ms, end ms)
        self.shortened: list[tuple[float, float]] = (
            [(a, b) for a, b in zip(self.times, self.times[1:], strict=False) if b - a > 20 * self.reference]
            if scale == "steps"
            else []
        )

    def step(self, gap: float) -> float:
        """The height of a gap between two moments, in steps."""
        return 1.0 + 2.0 * math.log10(1.0 + gap / self.reference)

    def __call__(self, t: float) -> float:
        if self.scale == "time" or not self.times:
            return t
        i = bisect.bisect_left(self.times, t - EPS)
        if i < len(self.times) and abs(self.times[i] - t) <= EPS:
            return self.pos[i]
        if i == 0:
            return self.pos[0] - (self.times[0] - t) / self.reference
        if i == len(self.times):
            return self.pos[-1] + (t - self.times[-1]) / self.reference
        a, b = self.times[i - 1], self.times[i]
        return self.pos[i - 1] + (t - a) / (b - a) * (self.pos[i] - self.pos[i - 1])

    @property
    def extent(self) -> float:
        """The height of the drawing (in y units)."""
        if not self.times:
            return 1.0
        return self(self.times[-1]) - self(self.times[0]) or 1.0

    def ticks(self, spacing: float = 2.5) -> tuple[list[float], list[str]]:
        """Tick positions and their real times, at least ``spacing`` steps apart (steps scale)."""
        vals: list[float] = []
        text: list[str] = []
        for t, y in zip(self.times, self.pos, strict=True):
            if not vals or y - vals[-1] >= spacing:
                vals.append(y)
                text.append(fmt_ms(t))
        return vals, text


def _packet_trace(
    pkt: dict[str, Any], y: Callable[[float], float], colour: str, connections: int, labelled: bool = True
) -> dict[str, Any]:
    up = pkt["direction"] == "up"
    x0, x1 = (CLIENT_X, SERVER_X) if up else (SERVER_X, CLIENT_X)
    y0, y1 = y(pkt["sent_ms"]), y(pkt["arrival_ms"])
    kind = kind_of(pkt)
    if kind == "data":
        line = {"color": colour, "width": 2.5, "dash": "solid"}
    elif kind == "request":
        line = {"color": REQUEST_COLOUR, "width": 2.5, "dash": "dashdot"}
    elif kind == "ACK":
        line = {"color": ACK_COLOUR, "width": 1.5, "dash": "dot"}
    else:
        line = {"color": CONTROL_COLOUR, "width": 1.5, "dash": "dash"}
    text = label(pkt, connections)
    hover = _hover(pkt)
    return dict(
        type="scatter",
        # the label sits a third of the way from the sender, so two packets crossing mid-way keep theirs apart
        x=[x0, x0 + LABEL_AT * (x1 - x0), x1],
        y=[y0, y0 + LABEL_AT * (y1 - y0), y1],
        mode="lines+markers+text",
        line=line,
        marker={
            "symbol": ["circle", "circle", "arrow"],
            "size": [5, 1, 12],
            "angleref": "previous",
            "color": line["color"],
        },
        text=["", text if labelled else "", ""],
        textposition="top center",
        # a white halo keeps a label readable where it crosses an arrow
        textfont={"size": 11, "color": "#222222", "shadow": "auto"},
        hovertext=[hover, hover, hover],
        hoverinfo="text",
        name=kind,
        legendgroup=kind,
        showlegend=False,
        meta={"role": "packet", "n": pkt["n"], "kind": kind, "group": GROUPS.get(kind, "handshake")},
    )


def _hold_trace(h: Hold, y: Callable[[float], float]) -> dict[str, Any]:
    column = CLIENT_X if h.side == "client" else SERVER_X
    outside = -BESIDE if h.side == "client" else BESIDE
    x = column + outside
    duration = h.end_ms - h.start_ms
    if h.kind == "delayed_ack":
        name = "delayed-ACK timer"
        text = f"delayed-ACK timer {fmt_ms(duration)}"
        hover = (
            f"delayed-ACK timer on the {h.side}, connection {h.connection}<br>"
            f"ran {fmt_ms(h.start_ms)} to {fmt_ms(h.end_ms)} ({fmt_ms(duration)}) before ACK #{h.packet} left"
        )
        line = {"color": TIMER_COLOUR, "width": 7, "dash": "solid"}
        marker = {"symbol": "hourglass", "size": 11, "color": TIMER_COLOUR}
    else:
        name = "Nagle hold"
        text = f"Nagle hold {fmt_ms(duration)}"
        hover = (
            f"Nagle hold on the {h.side}, connection {h.connection}<br>"
            f"segment #{h.packet} waited {fmt_ms(h.start_ms)} to {fmt_ms(h.end_ms)} ({fmt_ms(duration)})"
        )
        line = {"color": NAGLE_COLOUR, "width": 4, "dash": "dot"}
        marker = {"symbol": "square-open", "size": 10, "color": NAGLE_COLOUR}
    y0, y1 = y(h.start_ms), y(h.end_ms)
    return dict(
        type="scatter",
        x=[x, x, x],
        y=[y0, (y0 + y1) / 2, y1],
        mode="lines+markers+text",
        line=line,
        marker=marker,
        text=["", text, ""],
        textposition="middle left" if h.side == "client" else "middle right",
        textfont={"size": 11, "color": line["color"]},
        hovertext=[hover, hover, hover],
        hoverinfo="text",
        name=name,
        legendgroup=name,
        showlegend=False,
        meta={"role": h.kind, "packet": h.packet, "group": "timer"},
    )


def _legend_entries(colour: str, kinds: set[str], hold_kinds: set[str]) -> list[dict[str, Any]]:
    """One legend entry per kind of mark drawn (the marks themselves stay out of the legend)."""
    entries = [
        ("data", "data segment (server → client)", {"color": colour, "width": 2.5, "dash": "solid"}),
        ("request", "request (client → server)", {"color": REQUEST_COLOUR, "width": 2.5, "dash": "dashdot"}),
        ("SYN", "handshake and close: SYN / SYN-ACK / FIN", {"color": CONTROL_COLOUR, "width": 1.5, "dash": "dash"}),
        ("ACK", "ACK (no data)", {"color": ACK_COLOUR, "width": 1.5, "dash": "dot"}),
        ("delayed_ack", "delayed-ACK timer (receiver)", {"color": TIMER_COLOUR, "width": 7, "dash": "solid"}),
        ("nagle", "Nagle hold (sender)", {"color": NAGLE_COLOUR, "width": 4, "dash": "dot"}),
        *(
            (f"stall:{k}", f"{name} on the critical path (shaded)", {"color": ink, "width": 8, "dash": "solid"})
            for k, (_, ink, name) in STALL_STYLE.items()
        ),
    ]
    present = set(kinds) | set(hold_kinds)
    if present & {"SYN-ACK", "FIN"}:
        present.add("SYN")
    out = []
    for key, name, line in entries:
        if key not in present:
            continue
        out.append(
            dict(
                type="scatter",
                x=[None],
                y=[None],
                mode="lines",
                line=line,
                name=name,
                showlegend=True,
                hoverinfo="skip",
                meta={"role": "legend"},
            )
        )
    return out


def _stall_marks(
    stalls: Sequence[Mapping[str, Any]], lo: float, hi: float, y: Callable[[float], float]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[str]]:
    """Shading and labels of the critical path's stalls that run between ``lo`` and ``hi`` (ms): one band for each
    part where it ran (``segments``)."""
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    kinds: set[str] = set()
    for st in stalls:
        for kind, start, ms in st["segments"]:
            fill, ink, name = STALL_STYLE.get(kind, ("rgba(0,0,0,0.08)", "#333333", kind))
            a, b = max(float(start), lo), min(float(start) + float(ms), hi)
            if b <= a:
                continue
            kinds.add(kind)
            y0, y1 = y(a), y(b)
            shapes.append(
                {
                    "type": "rect",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "y0": y0,
                    "y1": y1,
                    "fillcolor": fill,
                    "line": {"width": 0},
                    "layer": "below",
                    "name": f"stall:{kind}",
                }
            )
            notes.append(
                {
                    "x": 1.44,
                    "xanchor": "right",
                    "y": y0,
                    "yanchor": "top",
                    "xref": "x",
                    "text": f"{name} {fmt_ms(ms)}",
                    "showarrow": False,
                    "font": {"size": 11, "color": ink},
                    "bgcolor": "rgba(255,255,255,0.85)",
                    "name": f"stall:{kind}",
                }
            )
    return shapes, notes, kinds


def _labelled(shown: Sequence[dict[str, Any]], y: Callable[[float], float], gap: float) -> set[int]:
    """The packets whose label is drawn: on each side (labels sit a third of the way from the sender), no two labels
    closer than ``gap`` (y units); data, requests and the handshake are labelled before ACKs, each in time order. A
    packet left unlabelled keeps its hover text."""
    placed: dict[str, list[float]] = {}
    out: set[int] = set()

    def at(p: dict[str, Any]) -> float:
        return y(p["sent_ms"]) + LABEL_AT * (y(p["arrival_ms"]) - y(p["sent_ms"]))

    for p in sorted(shown, key=lambda p: (kind_of(p) == "ACK", p["sent_ms"], p["n"])):
        ys = placed.setdefault(str(p["direction"]), [])
        v = at(p)
        i = bisect.bisect_left(ys, v)
        if (i > 0 and v - ys[i - 1] < gap) or (i < len(ys) and ys[i] - v < gap):
            continue
        ys.insert(i, v)
        out.add(int(p["n"]))
    return out


def _route(pkt: Mapping[str, Any]) -> str:
    return "client → server" if pkt["direction"] == "up" else "server → client"


def _why_left(
    pkt: Mapping[str, Any], own_holds: Sequence[Hold], waits: Sequence[Mapping[str, Any]], protocol: str
) -> list[str]:
    """Why a packet left when it did, from the model's rows and events: the hold that ended with it (delayed-ACK
    timer, Nagle), the engine's waits that ended as it left (their sentences), the link it queued for."""
    out: list[str] = []
    for h in own_holds:
        if h.kind == "delayed_ack":
            out.append(
                f"the {h.side}'s delayed-ACK timer held this ACK {fmt_ms(h.end_ms - h.start_ms)} "
                f"(from {fmt_ms(h.start_ms)}): it left when the timer fired or more data arrived"
            )
        else:
            out.append(f"Nagle's algorithm held it {fmt_ms(h.end_ms - h.start_ms)}: {h.why}")
    out += [str(e["why"]) for e in waits]
    queued, sent = float(pkt["queued_ms"]), float(pkt["sent_ms"])
    if queued < sent - EPS:
        out.append(f"ready at {fmt_ms(queued)}, it waited {fmt_ms(sent - queued)} for the link (packets ahead of it)")
    if not out:
        kind = kind_of(dict(pkt))
        first = {
            "SYN": "the client opens the connection"
            + (" (QUIC's first flight)" if protocol == "h3" else ": the three-way handshake's first packet"),
            "SYN-ACK": "the server answers the client's SYN at once",
            "ACK": "the receiver acknowledges what arrived, at once (no timer held it)",
            "request": "the client's application wrote its request and the connection could send it at once",
            "data": "the server had the data and the sender's window let it go at once",
            "FIN": "the sender closes its side of the connection",
        }
        out.append(first.get(kind, "sent as soon as it was queued"))
    return out


def _ended_at(
    waits: Sequence[tuple[float, int, Mapping[str, Any]]], ends: Sequence[float], sent: float
) -> list[Mapping[str, Any]]:
    """The waits (sorted by end, ``ends`` their ends) that ended when a packet left at ``sent``, within 1e-6 relative,
    in the events' order: bisected, not every wait of the connection for every packet (a lossy 893-object page had
    tens of thousands, 1.5 s of CPU for a page of the ladder; bench/worst_case.py, 2026-11-28)."""
    tol = 1e-6 * max(1.0, abs(sent))
    lo, hi = bisect.bisect_left(ends, sent - 2 * tol), bisect.bisect_right(ends, sent + 2 * tol)  # a margin: the test
    return [e for end, _, e in sorted(waits[lo:hi], key=lambda w: w[1]) if abs(end - sent) <= tol]  # is the old one


def steps(
    result: Mapping[str, Any],
    shown: Sequence[Mapping[str, Any]],
    drawn_holds: Sequence[Hold],
    y: Callable[[float], float],
    receive_window_bytes: int = 65535,
) -> list[dict[str, Any]]:
    """The stepping ladder's events for the packets and holds drawn on a page, in time order: each packet leaving and
    each timer or hold starting, with its time (``t_ms``, ``end_ms``), its place on the drawing's axis (``y``), its
    filter group, a line for the event list and the packet's fields. Every number is the model's (the packet rows,
    the events, :func:`latency_lab_web.web.pcap.tcp_fields`); the page computes none."""
    protocol = str(result["protocol"])
    tcp = protocol != "h3"
    # a packet's header fields depend only on its own connection's packets: those of the connections drawn, not all
    # (86,640 packets of a 20-page session for a page of 100 took 1 s of CPU; bench/worst_case.py, 2026-11-28)
    drawn = {int(p["connection"]) for p in shown}
    rows = [p for p in result["packets"] if int(p["connection"]) in drawn]
    fields = tcp_fields(rows, receive_window_bytes, only={int(p["n"]) for p in shown}) if tcp else {}
    holds_of: dict[int, list[Hold]] = {}
    for h in drawn_holds:
        holds_of.setdefault(h.packet, []).append(h)
    # the engine's waits (slow-start idle, delayed-ACK and Nagle stalls) by the connection and the moment they ended
    waits: dict[int, list[tuple[float, int, Mapping[str, Any]]]] = {}
    for k, e in enumerate(result["events"]):
        if float(e["duration_ms"]) > EPS and e["kind"] != "nagle_stall":  # Nagle's is its hold, said above
            waits.setdefault(int(e["connection"]), []).append((float(e["start_ms"]) + float(e["duration_ms"]), k, e))
    for rows in waits.values():
        rows.sort(key=lambda w: (w[0], w[1]))  # by the moment each ended (then the events' order), for bisecting
    wait_ends = {c: [end for end, _, _ in rows] for c, rows in waits.items()}
    connections = len({p["connection"] for p in result["packets"]})
    out: list[dict[str, Any]] = []
    for pkt in shown:
        kind = kind_of(dict(pkt))
        sent = float(pkt["sent_ms"])
        ended = _ended_at(waits.get(int(pkt["connection"]), []), wait_ends.get(int(pkt["connection"]), []), sent)
        f = fields.get(int(pkt["n"]))
        details: dict[str, str] = {
            "packet": f"#{pkt['n']} {kind}, {_route(pkt)}, connection {pkt['connection']}"
            + (f", object {pkt['object']}" if pkt["object"] else ""),
        }
        if f is not None:
            details["flags"] = f.flags
            details["sequence"] = f"{f.seq:,}"
            details["acknowledgement"] = f"{f.ack:,}" if f.ack is not None else "none (no ACK flag)"
            details["window"] = f"{f.window:,} bytes (the receiver's window)"
        else:
            details["transport"] = "QUIC in UDP datagrams: no TCP header"
        details["size"] = f"{int(pkt['bytes']):,} bytes of payload, {int(pkt['wire_bytes']):,} on the wire"
        details["sent"] = fmt_ms(sent)
        details["arrives"] = fmt_ms(float(pkt["arrival_ms"]))
        out.append(
            {
                "t_ms": sent,
                "end_ms": float(pkt["arrival_ms"]),
                "y": y(sent),
                "group": GROUPS.get(kind, "handshake"),
                "packet": int(pkt["n"]),
                "text": f"{fmt_ms(sent)}: {label(dict(pkt), connections)} ({_route(pkt)})",
                "fields": details,
                "why": _why_left(pkt, holds_of.get(int(pkt["n"]), []), ended, protocol),
            }
        )
    for h in drawn_holds:
        name = "delayed-ACK timer" if h.kind == "delayed_ack" else "Nagle hold"
        what = f"ACK #{h.packet}" if h.kind == "delayed_ack" else f"segment #{h.packet}"
        out.append(
            {
                "t_ms": h.start_ms,
                "end_ms": h.end_ms,
                "y": y(h.start_ms),
                "group": "timer",
                "hold": h.kind,
                "packet": h.packet,
                "side": h.side,
                "text": f"{fmt_ms(h.start_ms)}: {name} starts on the {h.side} (connection {h.connection})",
                "fields": {
                    "timer": f"{name} on the {h.side}, connection {h.connection}",
                    "runs": f"{fmt_ms(h.start_ms)} to {fmt_ms(h.end_ms)} ({fmt_ms(h.end_ms - h.start_ms)})",
                    "holds": what,
                },
                "why": [h.why]
                if h.why
                else ["the receiver delays its ACK, hoping to send it with data or a second one"],
            }
        )
    # a timer starts before the packet it holds leaves; at one moment, timers first, then packets as they left
    order = {id(d): i for i, d in enumerate(out)}
    out.sort(key=lambda d: (d["t_ms"], "hold" not in d, order[id(d)]))
    return out


def ladder(
    result: Mapping[str, Any],
    *,
    scale: Scale = "steps",
    max_packets: int = MAX_PACKETS,
    page: int = 1,
    path_stalls: Sequence[Mapping[str, Any]] = (),
    receive_window_bytes: int = 65535,
) -> Ladder:
    """The ladder diagram of one protocol's result (:func:`latency_lab.analysis.predict` with ``packets=True``): page
    ``page`` of its packets, ``max_packets`` a page, with ``path_stalls`` (:func:`latency_lab.analysis.account.account`)
    shaded where they run."""
    protocol = str(result["protocol"])
    colour = PROTOCOL_COLOURS.get(protocol, "#0072B2")
    packets = sorted(result["packets"], key=lambda p: (p["sent_ms"], p["n"]))
    pages = max(1, math.ceil(len(packets) / max_packets))
    page = min(max(1, page), pages)
    first = (page - 1) * max_packets
    shown = packets[first : first + max_packets]
    rest = packets[:first] + packets[first + max_packets :]
    all_holds = holds(result["packets"], result["events"])
    shown_ns = {p["n"] for p in shown}
    drawn_holds = [h for h in all_holds if h.packet in shown_ns]
    connections = len({p["connection"] for p in packets})

    times = [t for p in shown for t in (p["sent_ms"], p["arrival_ms"])]
    times += [h.start_ms for h in drawn_holds]
    page_end = result["page_load_ms"] if "pages" not in result else None
    last_page = page == pages
    if page_end is not None and (last_page or page_end <= max(times, default=0.0)):
        times.append(page_end)
    lo, hi = min(times, default=0.0), max(times, default=0.0)
    # a stall on this page's stretch of time: its ends are moments of the axis too
    for st in path_stalls:
        s0, s1 = float(st["start_ms"]), float(st["start_ms"]) + float(st["duration_ms"])
        if s1 >= lo - EPS and s0 <= hi + EPS:
            times += [max(s0, lo), min(s1, hi)]
    axis = TimeAxis(times or [0.0], scale)

    traces: list[dict[str, Any]] = []
    top, bottom = axis(min(times, default=0.0)), axis(max(times, default=1.0))
    for x, name in ((CLIENT_X, "client"), (SERVER_X, "server")):
        traces.append(
            dict(
                type="scatter",
                x=[x, x],
                y=[top, bottom],
                mode="lines",
                line={"color": "#BBBBBB", "width": 1},
                hoverinfo="skip",
                showlegend=False,
                name=name,
                meta={"role": "column"},
            )
        )
    steps_ = axis.extent if scale == "steps" else len(axis.times) * 1.5
    height = int(min(2600, max(480, 160 + 11 * steps_)))
    per_px = axis.extent / max(1.0, height - 80.0)  # y units per pixel of the plot
    labelled = _labelled(shown, axis, LABEL_GAP_PX * per_px)
    stall_shapes, stall_notes, stall_kinds = _stall_marks(path_stalls, lo, hi, axis)
    traces += [_hold_trace(h, axis) for h in drawn_holds]
    traces += [_packet_trace(p, axis, colour, connections, p["n"] in labelled) for p in shown]
    traces += _legend_entries(
        colour, {kind_of(p) for p in shown}, {h.kind for h in drawn_holds} | {f"stall:{k}" for k in stall_kinds}
    )

    shapes: list[dict[str, Any]] = list(stall_shapes)
    annotations: list[dict[str, Any]] = [
        {
            "x": CLIENT_X,
            "y": 1.0,
            "xref": "x",
            "yref": "paper",
            "yanchor": "bottom",
            "text": "client",
            "font": {"weight": "bold"},
        },
        {
            "x": SERVER_X,
            "y": 1.0,
            "xref": "x",
            "yref": "paper",
            "yanchor": "bottom",
            "text": "server",
            "font": {"weight": "bold"},
        },
    ]
    for a in annotations:
        a.update(showarrow=False, font={"size": 14})
    if page_end is not None and page_end <= max(times, default=0.0) + EPS:
        yl = axis(page_end)
        shapes.append(
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": yl,
                "y1": yl,
                "line": {"color": "#000000", "width": 1, "dash": "longdash"},
            }
        )
        annotations.append(
            {
                "x": -0.43,
                "xanchor": "left",
                "y": yl,
                "xref": "x",
                "text": f"page loaded: {fmt_ms(page_end)}",
                "showarrow": False,
                "yanchor": "bottom",
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
    for t0, t1 in axis.shortened:
        annotations.append(
            {
                "x": 0.5,
                "y": (axis(t0) + axis(t1)) / 2,
                "xref": "x",
                "text": f"⋮ {fmt_ms(t1 - t0)} pass (drawn shorter) ⋮",
                "showarrow": False,
                "font": {"size": 11, "color": "#555555"},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
    annotations += stall_notes
    if rest:
        annotations.append(
            {
                "x": 0.5,
                "y": 0.0,
                "xref": "x",
                "yref": "paper",
                "yanchor": "top",
                "text": f"page {page} of {pages}: packets {first + 1:,} to {first + len(shown):,} of {len(packets):,}",
                "showarrow": False,
                "font": {"size": 12},
            }
        )

    if scale == "steps":
        tickvals, ticktext = axis.ticks()
        yaxis: dict[str, Any] = {
            "title": {"text": "time (not to scale: ticks give the real time)"},
            "tickvals": tickvals,
            "ticktext": ticktext,
        }
    else:
        yaxis = {"title": {"text": "time (ms)"}, "ticksuffix": " ms"}
    yaxis.update(autorange="reversed", zeroline=False, showgrid=True)
    layout: dict[str, Any] = {
        **BASE_LAYOUT,
        "height": height,
        "margin": {"l": 90, "r": 20, "t": 40, "b": 40},
        "xaxis": {
            "range": [-0.45, 1.45],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
        "yaxis": yaxis,
        "shapes": shapes,
        "annotations": annotations,
        "hovermode": "closest",
        "legend": {"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0, "xanchor": "left"},
    }
    # Built from plain dicts (validated by the tests): plotly's validation costs ~2 ms a trace.
    fig = go.Figure(data=traces, layout=layout, _validate=False)

    left_out = Counter(kind_of(p) for p in rest)
    holds_left_out = Counter(str(h.kind) for h in all_holds if h.packet not in shown_ns)
    stalls_shown = sum(
        1
        for st in path_stalls
        if float(st["start_ms"]) + float(st["duration_ms"]) >= lo - EPS and float(st["start_ms"]) <= hi + EPS
    )
    return Ladder(
        figure=fig,
        packets_total=len(packets),
        packets_shown=len(shown),
        holds=drawn_holds,
        left_out=dict(left_out),
        holds_left_out=dict(holds_left_out),
        shown_until_ms=max((p["arrival_ms"] for p in shown), default=0.0),
        connections_shown=len({p["connection"] for p in shown}),
        connections_total=connections,
        page=page,
        pages=pages,
        first_shown=first,
        shown_from_ms=min((p["sent_ms"] for p in shown), default=0.0),
        stalls_shown=stalls_shown,
        steps=steps(result, shown, drawn_holds, axis, receive_window_bytes),
    )


#: How much larger the lecture mode draws the ladder's texts (a projector at the back of a room).
PROJECTOR_SCALE = 1.5


def projector(fig: go.Figure) -> None:
    """The ladder for a projector (the teaching panel's lecture mode): its texts and lines larger, in place."""
    layout = fig.layout
    layout.font = {**(layout.font.to_plotly_json() if layout.font else {}), "size": 18}
    for trace in fig.data:
        font = trace.textfont.to_plotly_json() if trace.textfont else {}
        trace.textfont = {**font, "size": round(float(font.get("size", 11)) * PROJECTOR_SCALE)}
        if trace.line and trace.line.width:
            trace.line.width = float(trace.line.width) * PROJECTOR_SCALE
    for a in layout.annotations:
        size = a.font.size if a.font and a.font.size else 12
        a.font.size = round(float(size) * PROJECTOR_SCALE)
    layout.height = int(float(layout.height or 600) * PROJECTOR_SCALE)
