"""The retransmission timer's closed forms (latency_lab.mechanisms.rto) and the slow-start counting rules
(latency_lab.mechanisms.slow_start) of issue 16, items 2 and 3."""

from __future__ import annotations

import pytest

from latency_lab.mechanisms import rto, slow_start


def test_first_sample_gives_three_round_trips() -> None:
    """RFC 6298, 2.2: SRTT = R, RTTVAR = R/2, so RTO = R + max(G, 2R) = 3R for a fine clock: the model's old
    fixed max(rto_min, 3 RTT) is the timeout after the handshake's one sample."""
    srtt, rttvar = rto.first_sample(100.0)
    assert (srtt, rttvar) == (100.0, 50.0)
    assert rto.timeout_ms(srtt, rttvar, 1.0, 1.0, 60_000.0) == 300.0
    assert rto.timeout_ms(srtt, rttvar, 1.0, 1000.0, 60_000.0) == 1000.0  # RFC 6298, 2.4: at least 1 s


def test_update_is_rfc_6298_2_3() -> None:
    """RTTVAR first, with the old SRTT: (3/4) 50 + (1/4) |100 - 200| = 62.5; SRTT (7/8) 100 + (1/8) 200 = 112.5."""
    assert rto.update(100.0, 50.0, 200.0) == (112.5, 62.5)
    srtt, rttvar = 100.0, 50.0
    for _ in range(200):  # steady samples: RTTVAR decays to 0, SRTT stays
        srtt, rttvar = rto.update(srtt, rttvar, 100.0)
    assert srtt == pytest.approx(100.0, abs=1e-12) and rttvar < 1e-12
    assert rto.timeout_ms(srtt, rttvar, 500.0, 1000.0, 64_000.0) == 1000.0  # bsd: the 1 s floor
    assert rto.timeout_ms(srtt + 1000, rttvar, 500.0, 1000.0, 64_000.0) == pytest.approx(1600.0)  # SRTT + G


def test_linux_floors_the_variation_not_the_sum() -> None:
    """Linux: RTO = SRTT + max(4 RTTVAR, RTO_min) (tcp_rtt_estimator, __tcp_set_rto): a steady 1 s round trip
    gives 1.2 s, where RFC 6298 gives 1 s + G; the cap is TCP_RTO_MAX."""
    assert rto.timeout_ms(1000.0, 0.0, 1.0, 200.0, 120_000.0, min_on_variation=True) == 1200.0
    assert rto.timeout_ms(1000.0, 0.0, 1.0, 200.0, 120_000.0) == 1001.0
    assert rto.timeout_ms(1000.0, 100.0, 1.0, 200.0, 120_000.0, min_on_variation=True) == 1400.0
    assert rto.timeout_ms(100_000.0, 10_000.0, 1.0, 200.0, 120_000.0, min_on_variation=True) == 120_000.0


@pytest.mark.parametrize(
    ("idle", "expected"),
    [(250.0, 40), (600.0, 20), (1000.0, 20), (1000.1, 10), (10_000.0, 10)],
)
def test_linux_restart_halves_per_idle_rto(idle: float, expected: int) -> None:
    """tcp_cwnd_restart: a window of 40 after ``idle`` ms with a 500 ms RTO is halved once per RTO beyond the
    first (ceil(idle / RTO) - 1 times) and never below min(IW, cwnd) = 10."""
    assert rto.restart_window(40, 10, idle, 500.0, halve=True) == expected


def test_rfc_5681_restart_is_the_initial_window() -> None:
    """RFC 5681, 4.1: min(IW, cwnd), however long the idle period."""
    assert rto.restart_window(40, 1, 1001.0, 1000.0, halve=False) == 1
    assert rto.restart_window(3, 10, 1001.0, 1000.0, halve=False) == 3


def test_slow_start_counting_rules() -> None:
    """Issue 16, item 3: an ACK of a 200-byte header segment and a full segment adds two segments by Linux's
    packet count (tcp_slow_start), one by byte counting (RFC 5681, 3.1, L = 1 and carry 200), one per ACK on BSD;
    an application-limited Linux sender (1 packet out under a window of 10) does not grow (tcp_is_cwnd_limited)."""
    assert slow_start.window_after_ack_packets(10, 2, 1000) == 12
    assert slow_start.window_after_ack_packets(10, 2, 11) == 11  # the receive window caps it
    assert slow_start.window_after_ack_bytes(10, 0, 1660, 1460) == (11, 200)
    assert slow_start.window_after_ack(10) == 11
    assert not slow_start.cwnd_limited(10, 1) and not slow_start.cwnd_limited(10, 5)
    assert slow_start.cwnd_limited(10, 6) and slow_start.cwnd_limited(10, 10)
