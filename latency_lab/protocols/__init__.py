"""Layer 4, the protocols: each protocol's schedule, which connections open, which requests leave and when.

One module per protocol, each with ``run(session, names, start)`` loading one page's objects from
``start``; :data:`SCHEDULES` names them. Beside them the session they drive (:mod:`~latency_lab.protocols.base`)
and what several protocols share: streams multiplexed on one connection (:mod:`~latency_lab.protocols.multiplex`),
TLS and QUIC handshakes as packets (:mod:`~latency_lab.protocols.secure_setup`) and split proxies
(:mod:`~latency_lab.protocols.proxy`). Imports only the layers below (scenario, mechanisms, engine).
"""

from __future__ import annotations

from latency_lab.protocols import getall, h2, h3, http10, http10_parallel, persistent, persistent_parallel, pipelined
from latency_lab.protocols.base import Driver

SCHEDULES: dict[str, Driver] = {
    "http10": http10.run,
    "http10_parallel": http10_parallel.run,
    "persistent": persistent.run,
    "pipelined": pipelined.run,
    "getall": getall.run,
    "persistent_parallel": persistent_parallel.run,
    "h2": h2.run,
    "h3": h3.run,
}
