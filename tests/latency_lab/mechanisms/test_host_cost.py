"""latency_lab.mechanisms.host_cost: a short connection's share of capacity and the host cost per connection it implies."""

from __future__ import annotations

import pytest

from latency_lab import predict
from latency_lab.mechanisms import host_cost


def _transfer_ms(size: int, overhead_ms: float) -> float:
    """One connection carrying ``size`` bytes on a 10 Mb/s, 0.5 ms path (seed 002, 3.2's local setup)."""
    doc = {
        "protocols": ["http10"],
        "network": {"rtt_ms": 0.5, "bandwidth_bps": 10e6},
        "tcp": {"initial_window_segments": 12, "receive_window_bytes": 16384},
        "http": {"request_bytes": 16, "response_header_bytes": 0, "connection_overhead_ms": overhead_ms},
        "page": {"html_bytes": size, "object_bytes": []},
    }
    return float(predict(doc)["results"][0]["page_load_ms"])


def test_throughput_and_share() -> None:
    """8000 S / t: 2,048 bytes in 6.5536 ms is 2.5 Mb/s, a quarter of 10 Mb/s."""
    assert host_cost.throughput_bps(2048, 6.5536) == pytest.approx(2.5e6)
    assert host_cost.share_of_capacity(2048, 6.5536, 10e6) == pytest.approx(0.25)


def test_cost_from_share_round_trips_through_the_model() -> None:
    """The cost derived from a share, put back into the model as http.connection_overhead_ms, gives that share:
    the engine adds it once per connection, so t(S) = t_o + t_net(S)."""
    net = _transfer_ms(2048, 0.0)
    cost = host_cost.per_connection_cost_ms(2048, 0.25, 10e6, net)
    assert cost > 0
    with_cost = _transfer_ms(2048, cost)
    assert with_cost == pytest.approx(net + cost, rel=1e-9)
    assert host_cost.share_of_capacity(2048, with_cost, 10e6) == pytest.approx(0.25, rel=1e-9)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((2048, 0.0, 10e6, 1.0), "share must be in"),
        ((2048, 1.5, 10e6, 1.0), "share must be in"),
        ((2048, 0.25, 0.0, 1.0), "capacity_bps must be positive"),
        ((2048, 0.25, 10e6, 100.0), "faster than the network"),
    ],
)
def test_bad_input_is_named(args: tuple[float, float, float, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        host_cost.per_connection_cost_ms(*args)
    if match == "capacity_bps must be positive":
        with pytest.raises(ValueError, match=match):
            host_cost.share_of_capacity(2048, 1.0, 0.0)


def test_elapsed_must_be_positive() -> None:
    with pytest.raises(ValueError, match="elapsed_ms must be positive"):
        host_cost.throughput_bps(2048, 0.0)
