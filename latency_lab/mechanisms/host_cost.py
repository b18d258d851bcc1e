"""Host costs per connection: what a short connection's measured throughput says about the hosts.

Seed 002, section 3.2: a client opens a connection, asks for a number of bytes, and reads them until the
server closes; the throughput of the whole exchange, ``8 S / t`` for ``S`` bytes in ``t`` seconds, falls
short of the link's capacity ``C`` for short transfers. On the local Ethernet (RTT under 1 ms, no slow start
on ULTRIX's local net) the network explains only part of the shortfall; the rest is what each connection
costs the two hosts (creating and tearing down the connection, starting the server's work), which the seed
calls per-connection overhead. With the network's own time ``t_net(S)`` for the exchange and one host cost
``t_o`` per connection (``http.connection_overhead_ms``):

    t(S) = t_o + t_net(S)        f(S) = 8000 S / (C t(S))        t_o = 8000 S / (f C) - t_net(S)

(``t`` in ms, ``S`` in bytes, ``C`` in bit/s, ``f`` the share of capacity, dimensionless). The model's
engine gives ``t_net``; these closed forms turn a published share into the host cost and back.
"""

from __future__ import annotations


def throughput_bps(transfer_bytes: float, elapsed_ms: float) -> float:
    """Throughput of a transfer (bit/s): ``8000 S / t`` for ``S`` bytes in ``t`` ms. Seed 002, 3.2."""
    if elapsed_ms <= 0:
        raise ValueError(f"elapsed_ms must be positive, got {elapsed_ms!r}")
    return 8000.0 * transfer_bytes / elapsed_ms


def share_of_capacity(transfer_bytes: float, elapsed_ms: float, capacity_bps: float) -> float:
    """The share of capacity ``C`` (bit/s) a transfer of ``S`` bytes in ``t`` ms reaches (dimensionless):
    ``f = 8000 S / (C t)``. Seed 002, 3.2."""
    if capacity_bps <= 0:
        raise ValueError(f"capacity_bps must be positive, got {capacity_bps!r}")
    return throughput_bps(transfer_bytes, elapsed_ms) / capacity_bps


def per_connection_cost_ms(transfer_bytes: float, share: float, capacity_bps: float, network_ms: float) -> float:
    """Host time per connection (ms) implied by a measured share of capacity, seed 002, 3.2.

    ``t_o = 8000 S / (f C) - t_net``: the exchange of ``S`` bytes reached the share ``f`` (0 < f <= 1) of
    capacity ``C`` (bit/s), so it took ``8000 S / (f C)`` ms, of which the network's schedule explains
    ``t_net`` ms (``network_ms``). A measurement faster than the network allows (``t_o < 0``) is an error.
    """
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    if capacity_bps <= 0:
        raise ValueError(f"capacity_bps must be positive, got {capacity_bps!r}")
    cost = 8000.0 * transfer_bytes / (share * capacity_bps) - network_ms
    if cost < 0:
        raise ValueError(
            f"a share of {share:g} over {transfer_bytes:g} bytes is faster than the network's {network_ms:g} ms"
        )
    return cost
