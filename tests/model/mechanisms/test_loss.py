"""Expected cost of random loss in closed form (model.mechanisms.loss): Cardwell et al. 2000, Padhye et al. 1998."""

from __future__ import annotations

import pytest

from model.mechanisms import loss


def test_handshake_extra() -> None:
    """Cardwell 3.1: E[T_hs] - RTT = T_s ((1-q)/(1-2q) - 1) = T_s q / (1 - 2q), q the chance an attempt fails:
    its SYN or its SYN-ACK lost, 1 - (1-p)^2 for p per packet."""
    assert loss.handshake_extra_ms(0.0) == 0
    q = 1 - 0.99**2
    assert loss.handshake_extra_ms(0.01) == pytest.approx(1000 * (((1 - q) / (1 - 2 * q)) - 1))
    q = 1 - 0.9**2
    assert loss.handshake_extra_ms(0.1, 3000) == pytest.approx(3000 * q / (1 - 2 * q))


def test_position_timeout_probability() -> None:
    """Fewer than three segments after the lost one: always a timeout; three: all three must arrive, so a
    timeout unless none of them is lost; many: almost never (Padhye 1998's three duplicate ACKs)."""
    for m in range(3):
        assert loss.position_timeout_probability(0.01, m) == 1.0
    assert loss.position_timeout_probability(0.01, 3) == pytest.approx(1 - 0.99**3)
    assert loss.position_timeout_probability(0.0, 5) == 0
    assert loss.position_timeout_probability(0.01, 10) < 1e-10
    assert loss.position_timeout_probability(0.01, 4) < loss.position_timeout_probability(0.02, 4)
    assert loss.expected_losses(0.01, 70) == pytest.approx(0.7)


def test_timeout_probability_and_duration() -> None:
    """Padhye 1998: a window of 3 or fewer always times out; Q falls toward 3/w for large windows and small p;
    the timeout sequence lasts T_0 f(p)/(1-p)."""
    assert loss.timeout_probability(0.01, 3) == 1.0
    assert loss.timeout_probability(0.001, 30) == pytest.approx(3 / 30, rel=0.05)
    assert 0 < loss.timeout_probability(0.05, 10) < 1
    assert loss.timeout_ms(0.0, 1000) == 1000
    assert loss.timeout_ms(0.1, 1000) == pytest.approx(
        1000 * (1 + 0.1 + 0.02 + 0.004 + 0.0008 + 0.00016 + 0.000032) / 0.9
    )


def test_data_extra_grows_with_the_flow_and_the_rate() -> None:
    """l = 1 - (1-p)^d: more segments, more likely a loss; the cost mixes a timeout and a fast retransmit."""
    assert loss.loss_probability(0.01, 1) == pytest.approx(0.01)
    assert loss.loss_probability(0.01, 100) == pytest.approx(1 - 0.99**100)
    small = loss.data_extra_ms(0.01, 10, 10, 100, 1000)
    big = loss.data_extra_ms(0.01, 100, 10, 100, 1000)
    assert 0 < small < big
    q = loss.timeout_probability(0.01, 10)
    assert big == pytest.approx((1 - 0.99**100) * (q * loss.timeout_ms(0.01, 1000) + (1 - q) * 100))


def test_quic_recovers_faster_and_without_head_of_line_blocking() -> None:
    """QUIC waits a PTO only for a tail loss; h2's other streams wait behind a lost TCP segment, h3's do not."""
    tcp = loss.data_extra_ms(0.02, 50, 10, 150, 1000)
    quic = loss.quic_data_extra_ms(0.02, 50, 10, 150, 25)
    assert quic < tcp
    assert loss.head_of_line_ms(100.0, 43, independent=False) == 4200
    assert loss.head_of_line_ms(100.0, 43, independent=True) == 0
