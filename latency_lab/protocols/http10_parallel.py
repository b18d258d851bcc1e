"""HTTP/1.0 with parallel connections: the objects over up to N simultaneous connections.

Seed 004 (the HTTP/1.0 browsers it measures open several connections at once; seed 001, 5.5
notes Navigator's limit of 6). The HTML comes on its own connection; once it has arrived the client
opens ``parallel_connections`` connections, one object each, and opens the next as each finishes.
Live connections share the link first come, first served.
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    pending = list(names[1:])

    def launch(point: Point) -> None:
        name = pending.pop(0)
        s.fetch_on_new_connection([name], point, done)

    def done(name: str, t: Any, pkt: Packet) -> None:
        point = Point(t, pkt, None, "request")
        if name == names[0]:
            for _ in range(min(s.p.parallel, len(pending))):
                launch(point)
        elif pending:
            launch(point)

    s.fetch_on_new_connection([names[0]], start, done)
