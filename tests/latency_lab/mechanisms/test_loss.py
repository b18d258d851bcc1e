"""Expected cost of random loss in closed form (latency_lab.mechanisms.loss): Cardwell et al. 2000, Padhye et al. 1998."""

from __future__ import annotations

import math

import pytest

from latency_lab.mechanisms import loss


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


def test_steady_window_and_throughput_by_hand() -> None:
    """Padhye et al. 1998: E[W] = (2+b)/(3b) + sqrt(8(1-p)/(3bp) + ((2+b)/(3b))^2); eq. (31)'s rate, worked by hand
    at p = 0.01, b = 2, RTT 100 ms, T_0 1 s, W_max 89.8 (the window is not capped)."""
    k = 4 / 6
    w = k + (8 * 0.99 / (6 * 0.01) + k * k) ** 0.5
    assert loss.steady_window(0.01, 2) == pytest.approx(w, rel=1e-12)
    assert w == pytest.approx(12.1751, abs=1e-4)
    a = 0.99
    q = (1 + a**3 * (1 - a ** (w - 3))) / ((1 - a**w) / (1 - a**3))
    f = 1 + 0.01 + 2e-4 + 4e-6 + 8e-8 + 16e-10 + 32e-12
    rate = (0.99 / 0.01 + w + q / 0.99) / (100 * (w + 1) + q * 1000 * f / 0.99)
    assert loss.steady_throughput(0.01, 100, 1000, 2, 89.8) == pytest.approx(rate, rel=1e-12)
    assert rate * 1000 == pytest.approx(69.5, abs=0.1)  # segments per second


def test_steady_throughput_limits() -> None:
    """At small p the rate tends to Padhye's (and Mathis') square-root law 1/(RTT sqrt(2bp/3)) (eq. (20)'s leading
    term); a receive window below E[W] caps it near W_max/RTT; more loss, less throughput."""
    law = 1 / (100 * (2 * 2 * 1e-5 / 3) ** 0.5)
    assert loss.steady_throughput(1e-5, 100, 1000, 2, 1e9) == pytest.approx(law, rel=0.02)
    assert loss.steady_throughput(1e-4, 100, 1000, 2, 8) <= 8 / 100
    assert loss.steady_throughput(1e-4, 100, 1000, 2, 8) == pytest.approx(8 / 100, rel=0.25)
    rates = [loss.steady_throughput(p, 100, 1000, 2, 89.8) for p in (0.005, 0.01, 0.03, 0.05, 0.2)]
    assert rates == sorted(rates, reverse=True)


def test_after_loss_tends_to_the_steady_rate() -> None:
    """after_loss_ms: with (almost) no loss a rest is sent growing 1/b a round from half the window,
    b (sqrt(s^2 + 2 rest/b) - s) rounds; a long rest goes on at eq. (31)'s rate (its slope); from a window far
    above the steady one the first periods go faster than that rate; from the steady window within 10 % of it."""
    p, rtt, t0, b, wmax = 0.01, 100.0, 1000.0, 2, 89.8
    s = 20 / 2
    assert loss.after_loss_ms(1e-9, 50, 20, rtt, t0, b, wmax) == pytest.approx(b * ((s * s + 50) ** 0.5 - s) * rtt)
    rate = loss.steady_throughput(p, rtt, t0, b, wmax)
    slope = loss.after_loss_ms(p, 200_000, 20, rtt, t0, b, wmax) - loss.after_loss_ms(p, 100_000, 20, rtt, t0, b, wmax)
    assert slope == pytest.approx(100_000 / rate, rel=1e-9)
    assert loss.after_loss_ms(p, 2000, 80, rtt, t0, b, wmax) < 0.9 * 2000 / rate
    w = loss.steady_window(p, b)
    assert loss.after_loss_ms(p, 2000, w, rtt, t0, b, wmax) == pytest.approx(2000 / rate, rel=0.1)
    times = [loss.after_loss_ms(x, 300, 20, rtt, t0, b, wmax) for x in (0.005, 0.01, 0.03, 0.05)]
    assert times == sorted(times)


def test_window_timeout_probability_independent_losses() -> None:
    """A loss in a window of w segments, losses independent: the w - 1 segments after it arrive, so it times out
    when fewer than three of them do or its retransmission is lost (``1 - (1 - Q_{w-1})(1 - p)``): always at
    w <= 3, about p from w = 6 on, well under Padhye's Q(p, w) (which loses the rest of the round)."""
    for p in (0.005, 0.01, 0.03, 0.05):
        assert loss.window_timeout_probability(p, 3.9) == 1.0
        assert loss.window_timeout_probability(p, 4) == pytest.approx(1 - (1 - p) ** 4)  # Q_3 = 1 - (1-p)^3
        assert loss.window_timeout_probability(p, 10) == pytest.approx(p, rel=1e-3)
        qs = [loss.window_timeout_probability(p, w) for w in range(4, 40)]
        assert qs == sorted(qs, reverse=True)
        for w in (4, 6, 10, 20):
            assert loss.window_timeout_probability(p, w) < loss.timeout_probability(p, w)


def test_after_loss_from_a_high_window_times_out_less_than_padhyes_periods() -> None:
    """The periods after a loss late in slow start (IW 10 at 300 segments, p = 0.03: issue 16's misses): the windows
    after the halving are followed by enough segments for three duplicate ACKs, so the transient is faster than
    Padhye's periods with his Q(p, W) (each period ``b (W' - s) + 1`` rounds and ``Q(p, W') E[Z_TO]``)."""
    p, rtt, t0, b, wmax, rest, w0 = 0.03, 100.0, 1000.0, 2, 89.8, 276, 20
    padhye, w, left = 0.0, float(w0), float(rest)
    for _ in range(loss.TRANSIENT_PERIODS):
        s = max(w / 2, 1.0)
        end = min((s * s + 2 / (b * p)) ** 0.5, wmax)
        padhye += (b * (end - s) + 1) * rtt + loss.timeout_probability(p, end) * loss.timeout_ms(p, t0)
        left -= (1 - p) / p + end
        w = end
    padhye += left / loss.steady_throughput(p, rtt, t0, b, wmax)
    assert loss.after_loss_ms(p, rest, w0, rtt, t0, b, wmax) < 0.85 * padhye


def test_cardwell_latency_composes_its_parts() -> None:
    """Cardwell et al. 2000: E[T] = E[T_hs] + E[T_ss] + E[T_loss] + E[T_ca] + E[T_delack]; E[d_ss] = (1 - (1-p)^d)
    (1-p)/p + 1 (eq. (5)), slow start growing by gamma = 1.5 a round from w1 while under W_max."""
    p, d, rtt, t0, b, w1, wmax = 0.01, 3000, 100.0, 1000.0, 2, 10, 89.8
    d_ss = (1 - 0.99**3000) * 99 + 1
    assert loss.slow_start_segments(p, d) == pytest.approx(d_ss)
    assert loss.slow_start_segments(0.001, 5) == 5  # at most the transfer
    w_ss = d_ss / 3 + w1 / 1.5
    assert w_ss < wmax
    t_ss = rtt * math.log(d_ss * 0.5 / w1 + 1, 1.5)
    q = loss.timeout_probability(p, w_ss)
    t_loss = (1 - 0.99**3000) * (q * loss.timeout_ms(p, t0) + (1 - q) * rtt)
    t_ca = (d - d_ss) / loss.steady_throughput(p, rtt, t0, b, wmax)
    want = rtt + loss.handshake_extra_ms(p) + t_ss + t_loss + t_ca + 200
    assert loss.cardwell_latency_ms(p, d, rtt, t0, b, w1, wmax, 200) == pytest.approx(want, rel=1e-12)


def test_after_loss_shortcuts_follow_the_periods() -> None:
    """after_loss_ms's bounded cost: a rest above EXACT_REST is interpolated between grid rests, within 0.5 % of
    the periods evaluated for that rest (after_loss_periods_ms; 0.32 % at most over rests 5 apart, p 0.005-0.05,
    windows 2-89, 2026-11-27); a rest beyond twice the periods' reach (no branch ends within them) is their
    constant plus the remainder at the steady rate, equal to the periods evaluated for it."""
    rtt, t0, b, wmax = 100.0, 1000.0, 2, 89.8
    for p in (0.005, 0.03, 0.05):
        for w0 in (4, 20, 60):
            for rest in (300, 441, 700, 1500, 2500):
                exact = loss.after_loss_periods_ms(p, rest, w0, rtt, t0, b, wmax)
                assert loss.after_loss_ms(p, rest, w0, rtt, t0, b, wmax) == pytest.approx(exact, rel=5e-3)
            h = loss._key(max(w0 / 2, loss.MIN_SSTHRESH))
            far = int(2 * loss._after_loss_open(p, h, b, wmax)[4]) + 777
            exact = loss.after_loss_periods_ms(p, far, w0, rtt, t0, b, wmax)
            assert loss.after_loss_ms(p, far, w0, rtt, t0, b, wmax) == pytest.approx(exact, rel=1e-9)


def test_the_periods_after_a_loss_are_shared_by_every_round_trip_time_and_timeout() -> None:
    """A branch's time after a loss is its rounds times the RTT plus its timeouts times their cost: the periods are
    evaluated once for a loss rate, window and rest, and each RTT or RTO prices them. A sweep of the round-trip time
    with loss evaluated every tree again at each point until 2026-11-28 (n97-wan at 1 %: 11.5 ms a point against
    7.8 ms at a repeated RTT). The time is the periods' rounds at the RTT and timeouts at their cost."""
    loss.after_loss_ms.cache_clear()
    loss._after_loss_cached.cache_clear()
    loss._after_loss_open.cache_clear()
    p, w0, b, wmax = 0.02, 20, 2, 89.8
    times: dict[tuple[float, float], list[float]] = {}
    runs = []
    for rtt in (10.0, 57.3, 100.0, 333.0):
        for rto in (200.0, 1000.0):
            times[rtt, rto] = [loss.after_loss_ms(p, rest, w0, rtt, rto, b, wmax) for rest in (40, 700, 90_000)]
            runs.append(loss._after_loss_open.cache_info().misses + loss._after_loss_cached.cache_info().misses)
    # the first RTT's asks run the trees (the open one, rest 40, and the two grid rests around 700); the others none
    assert loss.after_loss_ms.cache_info().misses == 24 and runs == [4] * 8
    h = loss._key(max(w0 / 2, loss.MIN_SSTHRESH))
    rounds, timeouts, used, sending, _ = loss._after_loss_tree(p, 40.0, h, b, wmax)
    for (rtt, rto), (t40, _, _) in times.items():
        rate = loss.steady_throughput(p, rtt, rto, b, wmax)
        want = rounds * rtt + timeouts * loss.timeout_ms(p, rto) - used / rate + sending * 40 / rate
        assert t40 == pytest.approx(want, rel=1e-12)
    assert times[57.3, 200.0] != times[100.0, 200.0] != times[100.0, 1000.0]
