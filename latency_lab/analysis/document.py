"""The output document of one protocol's run, assembled alike from either engine's numbers.

:func:`document` writes a protocol's entry of the output (page load time, breakdown, counts, objects, the stalls on
the critical path and the events); :func:`summarize` the part of it a sweep reads. Both engines call them: the Python
one through :func:`latency_lab.analysis.predict.result`, the native one through :func:`latency_lab.analysis.native.run` and
:func:`latency_lab.analysis.native.summary`, so that both answer in the same words. This module imports neither engine
(issue 29: ``predict`` and ``native`` imported each other), and an import contract keeps it so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from latency_lab.analysis.critical_path import CATEGORIES, path_stalls, stall_counts
from latency_lab.analysis.result import (
    Event,
    ExpectedWithLoss,
    ObjectTiming,
    ProtocolResult,
    ProtocolSummary,
    StallOnPath,
)
from latency_lab.engine.lin import value


def _restarts(events: list[dict[str, Any]]) -> int:
    return sum(1 for e in events if e["kind"] == "slow_start_restart")


def _counts(trips: int, stalls: dict[str, int], counts: dict[str, int]) -> dict[str, int]:
    """A result's ``counts``, in :data:`latency_lab.analysis.result.COUNT_NAMES`' order."""
    return {
        "round_trips": trips,
        "slow_start_rounds": stalls["slow_start_rounds"],
        "delayed_ack_stalls": stalls["delayed_ack_stalls"],
        "nagle_stalls": stalls["nagle_stalls"],
        "slow_start_restarts": stalls["slow_start_restarts"],
        "connections": counts["connections"],
        "tls_handshakes": counts["tls_handshakes"],
        "tls_bytes": counts["tls_bytes"],
        "dns_lookups": counts["dns_lookups"],
        "packets": counts["packets"],
        "bytes_on_wire": counts["bytes_on_wire"],
    }


def summarize(
    protocol: str,
    pages: list[tuple[float, int]],
    stalls: dict[str, int],
    counts: dict[str, int],
    loss: Callable[[float], ExpectedWithLoss],
) -> ProtocolSummary:
    """What :func:`document` gives of ``page_load_ms``, ``counts`` and ``expected_with_loss``, from each page's load
    time and round trips, the stall counts and the session's counts: the same sums in the same order."""
    total = pages[0][0]
    trips = pages[0][1]
    for load, n in pages[1:]:
        total = total + load
        trips += n
    page_load_ms = value(total)
    expected = loss(page_load_ms)
    return {
        "protocol": protocol,
        "page_load_ms": page_load_ms,
        "counts": _counts(trips, stalls, counts),
        "expected_with_loss": expected,
    }


def document(
    protocol: str,
    pages: list[tuple[Any, dict[str, Any], int]],
    bounds: list[tuple[float, float]],
    steps: list[list[Any]],
    raw_events: list[dict[str, Any]],
    counts: dict[str, int],
    objects: list[ObjectTiming],
    loss: Callable[[float], ExpectedWithLoss],
) -> ProtocolResult:
    """The output document's entry for one protocol, from either engine's numbers.

    ``pages``: each page's load time, breakdown and round trips; ``bounds``: when each page began and ended (ms);
    ``steps``: each page's walk of its critical path, step by step (the ``path_stalls`` and the stall counts are read
    off them, so they add up to the breakdown's stall parts); ``raw_events``: the events as recorded (``window_stall`` marks a slow-start round); ``counts``: the session's
    counts; ``loss(page_load_ms)``: the ``expected_with_loss`` block. For a session of several pages,
    ``page_load_ms``, ``breakdown_ms`` and ``round_trips`` add up the pages' load times (the user's think time between
    pages is not load time) and ``pages`` lists each page; the other counts, the objects and the events cover the
    whole session.
    """
    total = pages[0][0]
    acc = dict(pages[0][1])
    trips = pages[0][2]
    for load, part, n in pages[1:]:
        total = total + load
        acc = {c: acc[c] + part[c] for c in CATEGORIES}
        trips += n
    events = sorted(raw_events, key=lambda e: (e["start_ms"], e["connection"]))
    path = path_stalls(steps, [t1 for _, t1 in bounds])
    page_load_ms = value(total)
    expected = loss(page_load_ms)
    out: ProtocolResult = {
        "protocol": protocol,
        "page_load_ms": page_load_ms,
        "breakdown_ms": {c: value(acc[c]) for c in CATEGORIES},
        "counts": _counts(trips, stall_counts(path, _restarts(events)), counts),
        "objects": objects,
        "path_stalls": cast(list[StallOnPath], path),
        "events": [cast(Event, {k: v for k, v in e.items() if k != "window_stall"}) for e in events],
        "expected_with_loss": expected,
    }
    if len(pages) > 1:
        out["pages"] = []
        for k, ((load, part, n), (t0, t1)) in enumerate(zip(pages, bounds, strict=True)):
            inside = [e for e in events if t0 <= e["start_ms"] <= t1]
            out["pages"].append(
                {
                    "page": k + 1,
                    "start_ms": t0,
                    "end_ms": t1,
                    "page_load_ms": value(load),
                    "breakdown_ms": {c: value(part[c]) for c in CATEGORIES},
                    "counts": {
                        "round_trips": n,
                        **stall_counts([st for st in path if st["page"] == k + 1], _restarts(inside)),
                    },
                }
            )
    return out
