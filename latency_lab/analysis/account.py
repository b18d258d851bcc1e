"""One account of a protocol's time: the breakdown, the stalls on the path and the events off it, from one walk.

The teaching panel shows where the time goes (the breakdown), the stalls that held the page up, the formula's
terms and the ladder. They used to be read from two sources: the breakdown from the critical path
(:mod:`latency_lab.analysis.critical_path`) and the stalls from the engine's events, which measure something else (how
long a sender sat idle, on any connection, whether or not the last byte waited for it). On n97-wan with a persistent
connection the slow-start waits were 451.0 ms in the breakdown and 342.2 ms in the list of stalls: the critical path
waits from the segment that prompted the ACK (a round trip), while the sender was still sending the rest of its
window for part of it.

:func:`account` runs the schedule once (on the native engine where predict runs it) and walks its critical path once per page, keeping every amount the walk
files (:func:`latency_lab.analysis.critical_path.walk`'s ``steps``): the result's ``path_stalls`` are those amounts, so
their parts add up to the breakdown's by construction (and the result's stall counts count them). The engine's events are matched to the path stalls that they overlap on
the same connection (their sentences say why); stall events that overlap none are listed apart, as off the path.
Pure: numbers and dictionaries.
"""

from __future__ import annotations

import bisect
from itertools import accumulate

from latency_lab.analysis import native
from latency_lab.analysis.critical_path import STALL_PARTS
from latency_lab.analysis.predict import result, simulate
from latency_lab.analysis.result import Account, Event, PathStall
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario

#: The engine's event kinds that are waits (a restart is an event of no duration: its cost is in the waits).
STALL_EVENTS = STALL_PARTS

#: Slack when comparing an event's times with a path stall's (ms, relative to the time).
TOLERANCE = 1e-9


def _overlaps(e: Event, s: PathStall) -> bool:
    if e["connection"] != s["connection"]:
        return False
    a0, a1 = e["start_ms"], e["start_ms"] + e["duration_ms"]
    b0, b1 = s["start_ms"], s["start_ms"] + s["duration_ms"]
    slack = TOLERANCE * max(1.0, abs(a1), abs(b1))
    return a0 < b1 - slack and b0 < a1 - slack


def account(scenario: Scenario, protocol: str) -> Account:
    """The result of one protocol (with packets), its stalls on the critical path and its stall events off it."""
    p = resolve(scenario)
    if native.available():
        # the native engine, as predict runs it: its document (packets, events, path stalls) is the Python engine's
        # (tests/latency_lab/engine/test_engine_backends.py)
        out = native.run(native.Prepared(p), protocol, packets=True)
    else:
        s = simulate(p, protocol)
        out = result(s, protocol, packets=True)  # one walk: the breakdown and the path stalls
        s.release()
    path: list[PathStall] = [{**st, "events": []} for st in out["path_stalls"]]
    events = out["events"]
    matched: set[int] = set()
    # each connection's path stalls by start, with the latest end so far: an event can only overlap those that start
    # before it ends and from the first whose running latest end is after its start (bisected; not every pair, which
    # was 4 million comparisons on a lossy 893-object page, 3 s of CPU: bench/worst_case.py, 2026-11-28)
    by_connection: dict[int, list[PathStall]] = {}
    for ps in sorted(path, key=lambda st: st["start_ms"]):
        by_connection.setdefault(ps["connection"], []).append(ps)
    starts = {c: [st["start_ms"] for st in rows] for c, rows in by_connection.items()}
    latest_end = {
        c: list(accumulate((st["start_ms"] + st["duration_ms"] for st in rows), max))
        for c, rows in by_connection.items()
    }
    for i, e in enumerate(events):
        if e["kind"] not in STALL_EVENTS or e["connection"] not in by_connection:
            continue
        c = e["connection"]
        first = bisect.bisect_right(latest_end[c], e["start_ms"])  # those before end before the event starts
        last = bisect.bisect_left(starts[c], e["start_ms"] + e["duration_ms"])  # those after start after it ends
        for ps in by_connection[c][first:last]:
            if _overlaps(e, ps):
                ps["events"].append(i)
                matched.add(i)
    off = [i for i, e in enumerate(events) if e["kind"] in STALL_EVENTS and i not in matched]
    return {"result": out, "path_stalls": path, "off_path": off}
