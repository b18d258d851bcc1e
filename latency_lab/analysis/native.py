"""Predictions on the native engine (:mod:`latency_lab.engine.native`): its numbers made into the output document.

The native engine is the Python engine written again in C++ for plain (untraced) runs. It covers every feature, split
proxies (seed 003) included: it runs every numeric prediction where it is built (``tests/latency_lab/engine/test_native.py``). With a loss rate above 0 it also reads
its schedule for the loss analysis (``latency_lab/engine/native/loss.cpp``, :func:`latency_lab.analysis.expected_loss.structure`
in C++) and costs it (``latency_lab/engine/native/loss_recovery.cpp``, :func:`latency_lab.mechanisms.loss_recovery.expected` in
C++; the Python costing of :func:`latency_lab.analysis.expected_loss.from_native`'s ``Structure`` is the reference). The sentences of the events are written
here from the numbers the engine recorded, by the functions the Python engine uses (:mod:`latency_lab.engine.words`), and
the document is assembled by :func:`latency_lab.analysis.document.document`, so both engines answer in the same words.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, cast

from latency_lab import _backend
from latency_lab.analysis import expected_loss
from latency_lab.analysis.critical_path import CATEGORIES, STALL_COUNT_NAMES
from latency_lab.analysis.document import document, summarize
from latency_lab.analysis.result import ExpectedWithLoss, ObjectTiming, ProtocolResult, ProtocolSummary
from latency_lab.engine import words
from latency_lab.engine.core import LEG_NAMES, ORIGIN_LEG
from latency_lab.engine.tcp import NAMES
from latency_lab.mechanisms import loss, quic
from latency_lab.mechanisms.loss_recovery import CAUSES, assemble, expected
from latency_lab.scenario import limits
from latency_lab.scenario.params import Params

_native: ModuleType | None
try:  # built by pip install -e . (setup.py); absent in a source-only checkout
    import latency_lab.engine.native._native as _native
except ImportError:  # pragma: no cover - the README's commands build it
    _native = None
if _native is not None and _backend.native_ok:  # the periods after a loss in C++ wherever the engine is built and fresh
    loss.use_periods(_native.periods)

#: The environment variable that turns the native engine off (``0``) in a running process: the Python engine runs.
ENV = "LATENCY_LAB_NATIVE"
SPECIAL_OBJECTS = {-1: None, -2: "tls", -3: "", -4: "h2_settings"}


def available() -> bool:
    """Whether the native engine is built and wanted in this process (``LATENCY_LAB_ENGINE=python`` or a build from
    other sources than the ones present turn it off, :mod:`latency_lab._backend`; so does ``LATENCY_LAB_NATIVE=0``)."""
    return _native is not None and _backend.native_ok and os.environ.get(ENV, "1") != "0"


class Prepared:
    """A resolved scenario ready for the native engine: its numbers in the engine's layout and its objects' names."""

    __slots__ = ("c", "names", "p", "sizes")

    def __init__(self, p: Params) -> None:
        assert _native is not None
        self.p = p
        self.c = _native.Prepared(p, quic.QUIC_PROFILE)
        sizes = [p.html, *p.objects]
        self.names: list[str] = []
        self.sizes: list[int] = []
        for k in range(p.pages):
            prefix = "" if k == 0 else f"p{k + 1}:"
            self.names += [f"{prefix}html"] + [f"{prefix}obj{i}" for i in range(1, len(p.objects) + 1)]
            self.sizes += sizes

    def name(self, obj: int) -> str | None:
        return self.names[obj] if obj >= 0 else SPECIAL_OBJECTS[obj]


def _schedule(prep: Prepared, protocol: str, packets: bool, summary: bool = False) -> Any:
    """Run ``protocol``'s schedule within the request's step budget (:class:`_native.Run`; with ``summary``, only what
    :func:`summary` reads)."""
    assert _native is not None
    start = limits.allowance()
    r = _native.run(prep.c, protocol, start, packets, cost_at=prep.p.loss, summary=summary)
    if r.status == 1:  # over the step budget (latency_lab.engine.core.Engine.over_budget)
        raise limits.exceeded(limits.MAX_ENGINE_STEPS - start + r.steps)
    if r.status == 2:  # pragma: no cover - every object completes (tests/latency_lab/analysis/test_fuzz.py)
        raise AssertionError(f"object {prep.names[r.incomplete_object]} never completed")
    limits.spend(r.steps)
    return r


def _loss(prep: Prepared, protocol: str, r: Any) -> Callable[[float], ExpectedWithLoss]:
    """The ``expected_with_loss`` block of a run: with loss as the engine costed what it read off its schedule
    (``latency_lab/engine/native/loss_recovery.cpp``: :func:`latency_lab.mechanisms.loss_recovery.expected` of
    :func:`latency_lab.analysis.expected_loss.from_native`'s structure, in C++), at a loss rate of 0 from its counts."""

    def loss(page_load_ms: float) -> ExpectedWithLoss:
        p = prep.p
        if p.loss > 0:
            # the loss analysis, charged to the request's step budget by what it costs on this engine: each step of
            # the run NATIVE_LOSS_STEP_COST in all (the engine spent its steps once) and NATIVE_LOSS_RUN_STEPS once
            # (limits.run_cost likewise)
            limits.charge_loss_analysis(r.steps, limits.NATIVE_LOSS_STEP_COST - 1, limits.NATIVE_LOSS_RUN_STEPS)
            # costed in C++ (loss_recovery.cpp: loss_recovery.expected of expected_loss.from_native's structure)
            causes, extra, hol, segments, connections = r.costed
            by = dict(zip(CAUSES, causes, strict=True))  # loss_recovery.cpp's Cause: CAUSES' order
            block = assemble(p.loss, page_load_ms, by, extra, hol, connections, segments, protocol == "h3")
            return cast(ExpectedWithLoss, block)
        structure = expected_loss.lossless_from_counts(
            p, protocol, r.on_path, r.conn_segments, r.conn_syns, r.conn_syn_t, [pg[3] for pg in r.pages]
        )
        return cast(ExpectedWithLoss, expected(structure, p.loss, page_load_ms))

    return loss


#: The stall counts :func:`_native.run` counts with ``summary`` (``Run.stall_counts``), in its order: those of
#: :func:`~latency_lab.analysis.critical_path.stall_counts`.
STALL_COUNTS = (*STALL_COUNT_NAMES.values(), "slow_start_restarts")

#: The kind of a session event meaning a slow-start restart after idle (session.hpp's ``EventKind``: ``E_IDLE``,
#: ``E_RESTART``; :mod:`tests.latency_lab.engine.test_native_layouts` holds them equal).
RESTART = 1


def _steps(prep: Prepared, r: Any) -> list[list[tuple[str, float, int, str | None]]]:
    """Each page's walk of its critical path as :func:`latency_lab.analysis.critical_path.walk`'s ``steps``."""
    return [[(CATEGORIES[c], x, conn, prep.name(obj)) for c, x, conn, obj in page] for page in r.walk_steps]


def summary(prep: Prepared, protocol: str) -> ProtocolSummary:
    """What a sweep reads of one protocol's result (its page load time, counts and expected time with loss), the same
    numbers :func:`run` gives, without the objects, the events' sentences and the breakdown. The stall counts are
    counted in C++ off the walks (``api.hpp``'s ``count_stalls``: :func:`~latency_lab.analysis.critical_path.stall_counts`
    of :func:`~latency_lab.analysis.critical_path.path_stalls`, which :func:`run` calls on the same walks; equal,
    ``tests/latency_lab/analysis/test_native_summary.py``), so no step of the walk becomes a Python object."""
    r = _schedule(prep, protocol, False, summary=True)
    stalls = dict(zip(STALL_COUNTS, r.stall_counts, strict=True))
    return summarize(protocol, [(load, trips) for load, _, trips, _, _ in r.pages], stalls, r.counts,
                     _loss(prep, protocol, r))  # fmt: skip


def run(prep: Prepared, protocol: str, packets: bool = False) -> ProtocolResult:
    """One protocol's result on the native engine, as :func:`latency_lab.analysis.predict.result` gives it."""
    r = _schedule(prep, protocol, packets)
    p = prep.p
    events: list[dict[str, Any]] = []
    notes = r.notes
    # who the two ends of each connection are, for the sentences, by its leg (latency_lab.engine.tcp.leg_ends, written
    # out: no call into the Python engine's modules from the native path)
    by_leg = NAMES["direct" if p.proxy is None else "split_proxy"]
    ends = [NAMES["direct"][0] if leg >= ORIGIN_LEG else by_leg[leg] for leg in r.conn_legs]  # by connection

    for (
        kind,
        reason,
        conn,
        side,
        obj,
        t,
        gap,
        blen,
        bwin,
        rwnd_n,
        held,
        peer_dack,
        note,
        rto,
        before,
        after,
    ) in r.events:
        name = prep.name(obj)
        if kind == RESTART:  # a restart after idle (latency_lab.protocols.base.Session.record_restart)
            why = words.restart_why(ends[conn][side], gap, rto, before, after)  # the sender's name
            events.append(words.event("slow_start_restart", t, 0.0, conn, name, why))
            continue
        near, far = ends[conn][side], ends[conn][1 - side]
        text = ""
        if note >= 0:
            segs, nbytes, ep_segments = notes[note]
            text = words.held_note(p.profile.ack_counts_bytes, segs, nbytes, p.dack_segments, p.mss, ep_segments)
        words.idle_events(
            events, p.mss, near, far, reason, t, gap, held if held is not None else 0.0, conn,
            name, blen, bwin, rwnd_n, peer_dack, text,
        )  # fmt: skip
    pages = [(load, dict(zip(CATEGORIES, acc, strict=True)), trips) for load, acc, trips, _, _ in r.pages]
    sizes = prep.sizes
    objects: list[ObjectTiming] = [
        {"name": prep.names[i], "bytes": sizes[i], "connection": c, "start_ms": t0, "end_ms": t1}
        for i, (c, t0, t1) in enumerate(r.objects)
    ]

    out = document(
        protocol, pages, [(pg[3], pg[4]) for pg in r.pages], _steps(prep, r), events, r.counts, objects,
        _loss(prep, protocol, r),
    )  # fmt: skip
    if packets:
        out["packets"] = [
            {
                "n": i,
                "direction": "down" if d & 1 else "up",
                "connection": c,
                "kind": kind,
                "bytes": int(n),
                "wire_bytes": wire,
                "fin": fin,
                "object": prep.name(obj),
                "queued_ms": tq,
                "sent_ms": ts,
                "arrival_ms": ta,
                "ack_held_ms": held if held is not None else 0.0,
            }
            for i, (d, c, kind, n, wire, fin, obj, tq, ts, ta, held) in enumerate(r.packets)
        ]
        if p.proxy is not None:  # split proxies: which leg each packet crossed (as latency_lab.analysis.predict.result)
            for row, pk in zip(out["packets"], r.packets, strict=True):
                row["leg"] = LEG_NAMES[pk[0] >> 1]
    return out
