"""The schedule engine: composes the mechanisms' closed forms packet by packet.

Every time the model computes is a closed form of the scenario's inputs: a sum of one-way delays,
serialization times ``8000 (bytes + o) / B``, think times and timers, with ``max`` choosing the
bound that binds (link busy, window closed, data not yet written). The engine evaluates those
sums in the order their packets would leave, for the links of :mod:`latency_lab.mechanisms.link`, the windows of
:mod:`latency_lab.mechanisms.slow_start`, the ACK rule of :mod:`latency_lab.mechanisms.delayed_ack` and the send rule of
:mod:`latency_lab.mechanisms.nagle`; a protocol module (``latency_lab.protocols``) says what the applications write and
when. There is no randomness, no loss and no queue limit: the same scenario always gives the same
schedule, and with :class:`Traced` quantities every time carries its linear form (:mod:`latency_lab.engine.lin`).
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any

from latency_lab.engine.lin import Lin
from latency_lab.scenario import limits
from latency_lab.scenario.params import Params

UP, DOWN = 0, 1  # client -> server, server -> client

#: The legs of a path, each a pair of links (up ``2 leg``, down ``2 leg + 1``; odd links carry data toward
#: the client). ``PATH`` is the network of a direct path, the long-haul link of a split-proxy path
#: (seed 003); ``CLIENT_LEG`` (client - local proxy) and ``SERVER_LEG`` (remote proxy - server) exist
#: only on a split-proxy path (:mod:`latency_lab.protocols.proxy`).
PATH, CLIENT_LEG, SERVER_LEG = 0, 1, 2
#: The legs by index, as the packets of the output document name them.
LEG_NAMES = ("long_haul", "client", "server")
#: The first leg of the other origins' own paths (page.origins' rtt_ms, bandwidth_bps; issue 28): origin ``k``'s is leg
#: ``ORIGIN_LEG + k - 1`` (links ``2 leg`` up and ``2 leg + 1`` down), each a path of its own, FIFO links no other
#: origin's connections share.
ORIGIN_LEG = 3


def origin_leg(p: Params, o: int) -> int | None:
    """The leg of origin ``o``'s own path (``o`` >= 1), or None if it shares the network's."""
    return ORIGIN_LEG + o - 1 if p.origin_path and p.origin_path[o - 1] else None


#: The rate symbol of each link in the linear forms (:mod:`latency_lab.analysis.symbolic`).
LINK_RATE = ("B_u", "B_d", "B_c", "B_c", "B_s", "B_s")


class Quantities:
    """The scenario's primitive quantities as floats (fast path): ms and bytes."""

    traced = False

    def __init__(self, p: Params) -> None:
        self.p = p
        self.zero: Any = 0.0
        x = p.proxy
        dc, kc, ds, ks = (x.d_c, x.k_c, x.d_s, x.k_s) if x is not None else (0.0, 0.0, 0.0, 0.0)
        self.d: tuple[Any, ...] = (p.d_up, p.d_down, dc, dc, ds, ds)  # one-way delay of each link (ms)
        self.k: tuple[float, ...] = (p.k_up, p.k_down, kc, kc, ks, ks)  # ms per wire byte of each link
        if p.origin_path:  # the other origins' own paths, two links each (ORIGIN_LEG on)
            self.d = (*self.d, *(x for pair in zip(p.origin_d_up, p.origin_d_down, strict=True) for x in pair))
            self.k = (*self.k, *(x for pair in zip(p.origin_k_up, p.origin_k_down, strict=True) for x in pair))
        self.o = p.overhead
        self.server_think: Any = p.server_think
        self.client_think: Any = p.client_think
        self.dack: Any = p.dack_ms
        self.conn_overhead: Any = p.conn_overhead
        self.mss: Any = p.mss
        self.header: Any = p.header
        self.request: Any = p.request
        self.rwnd: Any = p.rwnd
        # each leg's receive window (bytes), as a number and as used in the forms
        self.rwnd_n: tuple[int, ...] = (p.rwnd, p.rwnd, p.rwnd)
        self.mux: Any = 0  # bytes of multiplexing overhead per relayed segment (split proxy)
        if x is not None:
            self.rwnd_n = (x.rwnd_x or p.rwnd, x.rwnd_c or p.rwnd, x.rwnd_s or p.rwnd)
            self.mux = x.mux
        self.rwnds: tuple[Any, ...] = self.rwnd_n
        if p.origin_path:  # each origin's own path: the scenario's receive window
            self.rwnd_n = (*self.rwnd_n, *(p.rwnd,) * len(p.origin_path))
            self.rwnds = self.rwnd_n
        self.dns: Any = p.dns_ms

    def size(self, n: int) -> Any:
        """A byte count that is a plain number in the scenario (an object size, a write size)."""
        return n

    def tx(self, direction: int, payload: Any) -> Any:
        """Serialization time of a packet (ms): ``8000 (payload + o) / B`` (:func:`latency_lab.mechanisms.link.serialization_ms`)."""
        return (payload + self.o) * self.k[direction]


class Traced(Quantities):
    """The same quantities as :class:`~latency_lab.engine.lin.Lin` forms over the glossary's basis."""

    traced = True

    def __init__(self, p: Params) -> None:
        super().__init__(p)
        self.zero = Lin(0.0, {})
        self.d = (Lin(p.d_up, {"d_u": 1}), Lin(p.d_down, {"d_d": 1}))
        self.server_think = Lin(p.server_think, {"t_s": 1})
        self.client_think = Lin(p.client_think, {"t_c": 1})
        self.dack = Lin(p.dack_ms, {"T_d": 1})
        self.conn_overhead = Lin(p.conn_overhead, {"t_o": 1})
        self.mss = Lin(p.mss, {"M": 1})
        self.header = Lin(p.header, {"h": 1})
        self.request = Lin(p.request, {"q": 1})
        self.rwnd = Lin(p.rwnd, {"W_r": 1})
        x = p.proxy
        self.rwnds = (self.rwnd, self.rwnd, self.rwnd)
        if x is not None:
            self.d = (*self.d[:2], *[Lin(x.d_c, {"d_c": 1})] * 2, *[Lin(x.d_s, {"d_s": 1})] * 2)
            self.rwnds = tuple(
                Lin(n, {sym: 1}) if given is not None else self.rwnd
                for n, given, sym in zip(
                    self.rwnd_n, (x.rwnd_x, x.rwnd_c, x.rwnd_s), ("W_x", "W_c", "W_s"), strict=True
                )
            )
            self.mux = Lin(x.mux, {"m": 1})
        self.dns = Lin(p.dns_ms, {"T_dns": 1})
        if p.origin_path:
            # the other origins' own paths: their delays and serialization times enter the forms as numbers (ms), the
            # glossary having no symbol for them; the links before them keep theirs (a direct path has no legs 1, 2)
            legs = [*self.d, *[Lin.const(0.0)] * (2 * ORIGIN_LEG - len(self.d))]
            self.d = (*legs, *(Lin.const(x) for x in Quantities(p).d[2 * ORIGIN_LEG :]))
            self.rwnds = (*self.rwnds, *(self.rwnd,) * len(p.origin_path))

    def size(self, n: int) -> Any:
        return Lin.const(n)

    def tx(self, direction: int, payload: Any) -> Any:
        if direction >= 2 * ORIGIN_LEG:  # an origin's own path: a number (see __init__)
            return Lin.const((payload.v + self.o) * self.k[direction])
        link = LINK_RATE[direction]
        c: dict[object, float] = {(link, key): x for key, x in payload.c.items()}
        c[(link, "o")] = c.get((link, "o"), 0) + 1
        return Lin((payload.v + self.o) * self.k[direction], c)


class Packet:
    """One packet of the schedule. Times are floats or :class:`Lin` forms."""

    __slots__ = (
        "ack",
        "cause",
        "conn",
        "dir",
        "fin",
        "held",
        "kind",
        "n",
        "obj",
        "options",
        "payload",
        "prev",
        "seq_end",
        "t_a",
        "t_e",
        "t_q",
        "t_s",
        "tx",
        "wire",
    )

    t_q: Any
    t_s: Any
    tx: Any
    t_e: Any
    t_a: Any
    wire: int
    seq_end: Any
    ack: Any

    def __init__(self, conn: int, direction: int, kind: str, payload: Any, n: float, fin: bool = False) -> None:
        self.conn = conn
        self.dir = direction
        self.kind = kind  # SYN, SYNACK, ACK, DATA, FIN
        self.payload = payload
        self.n = n  # payload bytes as a number
        self.options = 0  # TCP option bytes beyond the fixed headers (the window-scale option on SYNs)
        self.fin = fin
        self.held: Any = None  # for ACKs held by the delayed-ACK timer: how long beyond the trigger
        self.obj: str | None = None
        self.cause: tuple[Any, ...] = ()
        self.prev: Packet | None = None


class Point:
    """A time made from an earlier packet arrival or point plus an increment of one category."""

    __slots__ = ("base", "cat", "extra", "t")

    def __init__(self, t: Any, base: Packet | Point | None, extra: Any, cat: str) -> None:
        self.t = t
        self.base = base
        self.extra = extra
        self.cat = cat


class Engine:
    """Event loop over FIFO links (two per leg); deterministic (ties go in scheduling order)."""

    def __init__(self, q: Quantities) -> None:
        self.q = q
        self.traced = q.traced
        self.heap: list[tuple[float, int, Callable[..., None], tuple[Any, ...]]] = []
        self.seq = 0
        self.link_free: list[Any] = [q.zero] * len(q.k)  # two a leg (and the other origins' own paths)
        self.link_last: list[Packet | None] = [None] * len(q.k)
        self.packets: list[Packet] = []
        self.wire_bytes = 0  # bytes of every packet on the wire, headers included
        # the request's step budget (latency_lab.scenario.limits): every scheduled packet, timer and write is a step
        self.cost = limits.python_step_cost(self.traced)
        self.start_allowance = limits.allowance()
        self.max_seq = self.start_allowance // self.cost

    def step(self, n: int = 1) -> None:
        """Count ``n`` steps of work (application writes) against the budget."""
        self.seq += n
        if self.seq > self.max_seq:
            raise self.over_budget()

    def ensure(self, n: int) -> None:
        """Refuse at once work of ``n`` steps that the budget cannot hold (before building it)."""
        if self.seq + n > self.max_seq:
            raise limits.exceeded(limits.MAX_ENGINE_STEPS - self.start_allowance + (self.seq + n) * self.cost)

    def over_budget(self) -> limits.WorkLimitExceeded:
        return limits.exceeded(limits.MAX_ENGINE_STEPS - self.start_allowance + self.seq * self.cost)

    def at(self, t: Any, fn: Callable[..., None], *args: Any) -> None:
        self.seq += 1
        if self.seq > self.max_seq:
            raise self.over_budget()
        heappush(self.heap, (t.v if self.traced else t, self.seq, fn, (t, *args)))

    def run(self) -> None:
        heap = self.heap
        pop = heappop
        while heap:
            _, _, fn, args = pop(heap)
            fn(*args)
        limits.spend(self.seq * self.cost)

    def transmit(self, pkt: Packet, t: Any, cause: tuple[Any, ...], deliver: Callable[..., None]) -> None:
        """Put ``pkt`` on its link at ``t``; ``deliver(arrival, pkt)`` runs when it arrives.

        Departure ``max(t, link free)``, arrival ``departure + 8000 (bytes + o)/B + d``
        (:mod:`latency_lab.mechanisms.link`), written out here because every packet passes through it.
        """
        d = pkt.dir
        q = self.q
        pkt.t_q = t
        pkt.cause = cause
        free = self.link_free[d]
        start = t if t >= free else free
        opt = pkt.options
        if self.traced:
            tx = q.tx(d, pkt.payload + q.size(opt) if opt else pkt.payload)
        else:
            tx = (pkt.n + opt + q.o) * q.k[d]
        end = start + tx
        arrival = end + q.d[d]
        pkt.t_s = start
        pkt.tx = tx
        pkt.t_e = end
        pkt.t_a = arrival
        pkt.wire = int(pkt.n) + opt + q.o
        self.wire_bytes += pkt.wire
        pkt.prev = self.link_last[d]
        self.link_last[d] = pkt
        self.link_free[d] = end
        self.packets.append(pkt)
        self.seq += 1
        if self.seq > self.max_seq:
            raise self.over_budget()
        heappush(self.heap, (arrival.v if self.traced else arrival, self.seq, deliver, (arrival, pkt)))
