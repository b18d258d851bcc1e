"""Transmission on the path: serialization at the bottleneck rate and one-way propagation.

Seed 002, section 1 (20 KB over a T1 takes about 100 ms; the speed of light sets a floor on
each crossing) and section 3 (every packet of figure 3-1 crosses the path once). Each direction
is one first-in first-out link: a packet starts when the link is free, occupies it for its
serialization time, and arrives one propagation delay after its last bit left.
"""

from __future__ import annotations


def serialization_ms(payload_bytes: float, overhead_bytes: float, rate_bps: float) -> float:
    """Time a packet occupies the link (ms).

    ``t = 8000 (payload + o) / B`` with payload and per-packet overhead ``o`` in bytes and the
    link rate ``B`` in bit/s (8 bits a byte, 1000 ms a second). Seed 002, section 1.
    """
    return 8000.0 * (payload_bytes + overhead_bytes) / rate_bps


def ms_per_byte(rate_bps: float) -> float:
    """Serialization time of one wire byte (ms/byte): ``k = 8000 / B``. Seed 002, section 1."""
    return 8000.0 / rate_bps


def departure_ms(ready_ms: float, link_free_ms: float) -> float:
    """When a packet starts onto a FIFO link (ms): ``max(ready, link free)``. Seed 002, section 3."""
    return ready_ms if ready_ms >= link_free_ms else link_free_ms


def arrival_ms(departure: float, serialization: float, delay_ms: float) -> float:
    """When a packet's last bit reaches the far end (ms): ``departure + t + d``. Seed 002, section 3."""
    return departure + serialization + delay_ms


def wire_bytes(payload_bytes: int, overhead_bytes: int) -> int:
    """Bytes a packet puts on the wire: ``payload + o``. Seed 003, table 1 (per-packet costs)."""
    return payload_bytes + overhead_bytes
