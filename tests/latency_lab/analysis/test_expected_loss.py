"""Random loss wired into the results (latency_lab.analysis.expected_loss): expected_with_loss beside the lossless schedule."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
import sympy
from pydantic import ValidationError

from latency_lab import PRESETS
from latency_lab.analysis import expected_loss, loss_expression, native
from latency_lab.analysis.predict import predict, simulate
from latency_lab.analysis.tables import csv_rows
from latency_lab.mechanisms import loss, loss_recovery, rto
from latency_lab.scenario.errors import problems
from latency_lab.scenario.params import resolve
from latency_lab.scenario.profiles import PROFILES
from latency_lab.scenario.schema import ALL_PROTOCOLS, Scenario
from tests.latency_lab import scenarios

#: A multi-object page (the default network, 20 objects of 10 KB).
PAGE: dict[str, Any] = {"page": {"object_count": 20, "object_size_bytes": 10_000}}


def _doc(p: float, protocols: tuple[str, ...] = ALL_PROTOCOLS, **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"protocols": list(protocols), "network": {"loss_rate": p}, **PAGE}
    for key, value in extra.items():
        doc[key] = {**doc.get(key, {}), **value}
    return doc


def _by_protocol(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["protocol"]: r for r in predict(doc)["results"]}


def test_no_loss_adds_nothing_and_the_schedule_stays() -> None:
    lossless = _by_protocol({"protocols": list(ALL_PROTOCOLS), **PAGE})
    for name, r in _by_protocol(_doc(0.0)).items():
        e = r["expected_with_loss"]
        assert e["loss_rate"] == 0
        assert e["extra_ms"] == 0 and e["head_of_line_ms"] == 0
        assert set(e["by_cause_ms"].values()) == {0.0}
        assert e["page_load_ms"] == r["page_load_ms"] == lossless[name]["page_load_ms"]
        assert e["segments"] > 0 and e["connections"]
    # a loss rate does not touch the deterministic result either
    for name, r in _by_protocol(_doc(0.05)).items():
        assert r["page_load_ms"] == lossless[name]["page_load_ms"]
        assert r["breakdown_ms"] == lossless[name]["breakdown_ms"]


def test_the_parts_add_up() -> None:
    for r in predict(_doc(0.03))["results"]:
        e = r["expected_with_loss"]
        assert sum(e["by_cause_ms"].values()) == pytest.approx(e["extra_ms"])
        assert e["page_load_ms"] == pytest.approx(r["page_load_ms"] + e["extra_ms"])
        assert e["extra_ms"] > 0


def test_monotonic_in_the_loss_rate() -> None:
    rates = (0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
    series: dict[str, list[float]] = {name: [] for name in ALL_PROTOCOLS}
    for rate in rates:
        for name, r in _by_protocol(_doc(rate, tls={"version": "1.3"})).items():
            series[name].append(r["expected_with_loss"]["extra_ms"])
    for name, xs in series.items():
        assert all(a < b for a, b in itertools.pairwise(xs)), (name, xs)


@pytest.mark.parametrize("tls", ["none", "1.3"])
@pytest.mark.parametrize("rate", [0.005, 0.02, 0.1])
def test_h3_pays_less_than_h2_on_a_multi_object_page(tls: str, rate: float) -> None:
    """TCP's loss stalls every stream of h2's connection; QUIC's stalls only its own (RFC 9000 2.2)."""
    r = _by_protocol(_doc(rate, ("h2", "h3"), tls={"version": tls}))
    h2, h3 = r["h2"]["expected_with_loss"], r["h3"]["expected_with_loss"]
    assert h3["extra_ms"] <= h2["extra_ms"]
    assert h2["head_of_line_ms"] > 0 and h3["head_of_line_ms"] == 0


def _replayed_rto(pf: Any, rto_min: float, initial: float, samples: list[tuple[float, float]]) -> Any:
    """RFC 6298 replayed by hand (``latency_lab.mechanisms.rto``) over ``(sent, acknowledged)`` round trips: a function of
    the time giving the timeout a sender had then (``initial`` before the first sample)."""
    log: list[tuple[float, float]] = []
    srtt = rttvar = -1.0
    for sent, acked in samples:
        r = acked - sent
        srtt, rttvar = rto.first_sample(r) if srtt < 0 else rto.update(srtt, rttvar, r)
        log.append((acked, rto.timeout_ms(srtt, rttvar, pf.rto_granularity_ms, rto_min, pf.rto_max_ms,
                                          pf.rto_min_on_variation)))  # fmt: skip
    return lambda t: ([v for when, v in log if when <= t] or [initial])[-1]


def test_one_short_transfer_matches_cardwell_by_hand() -> None:
    """HTTP/1.0, one 5,000-byte HTML and no objects, Linux TCP (IW 10, RTT 70 ms): one SYN
    exchange, a one-segment request and a 4-segment response sent in one round.

    Cardwell, Savage & Anderson 2000: E[T_hs] - RTT = T_s q / (1 - 2q) with q = 1 - (1 - p)^2 the chance
    that an attempt loses its SYN or SYN-ACK (3.1); each data segment is lost with probability p (3.4's
    count of losses) and a loss costs q E[Z_TO] + (1 - q) RTT (3.3) with q = 1 - (1 - Q_m)(1 - p): fewer
    than three of the m segments after it arrive (Q_m, Padhye et al. 1998's case analysis) or the fast
    retransmission is lost too (p; without SACK only the timer finds it, RFC 6582). The response's first
    segment has m = 3 after it, the others and the request fewer (always a timeout). One round: no slower
    sending. ``T_0`` is each segment's sender's RTO when it left, RFC 6298 on that sender's own round trips in
    the schedule (the handshake's, then the oldest segment each ACK newly acknowledges, Linux's rule) with
    Linux's floor on the variation, ``SRTT + max(4 RTTVAR, 200 ms)``: 270-278 ms here, not the fixed
    ``max(rto_min, 3 RTT)`` = 210 ms the analysis used before.
    """
    p, rtt, d = 0.02, 70.0, 4
    doc = {
        "protocols": ["http10"],
        "network": {"loss_rate": p},
        "tcp": {"profile": "linux"},
        "page": {"html_bytes": 5000, "object_bytes": []},
    }
    e = predict(doc)["results"][0]["expected_with_loss"]
    params = resolve(Scenario.model_validate(doc))
    pkts = simulate(params, "http10").eng.packets
    kinds = [(pk.kind, pk.dir) for pk in pkts]
    syn, synack = pkts[kinds.index(("SYN", 0))], pkts[kinds.index(("SYNACK", 1))]
    hs_ack = next(pk for pk in pkts if pk.kind == "ACK" and pk.dir == 0)
    request = [pk for pk in pkts if pk.kind == "DATA" and pk.dir == 0 and pk.n > 0]
    response = [pk for pk in pkts if pk.kind == "DATA" and pk.dir == 1 and pk.n > 0]
    acks = [pk for pk in pkts if pk.kind == "ACK" and pk.dir == 0 and pk.t_q > hs_ack.t_q]
    # the server's samples: the handshake, then per ACK of the response the oldest segment it newly acknowledges
    server = [(float(synack.t_q), float(hs_ack.t_a))]
    acked = 0
    for ack in acks:
        newly = [pk for pk in response if acked < pk.seq_end <= ack.ack]
        if newly:
            server.append((float(newly[0].t_q), float(ack.t_a)))
            acked = max(pk.seq_end for pk in newly)
    rto_c = _replayed_rto(params.profile, params.rto_min_ms, params.rto_ms, [(float(syn.t_q), float(synack.t_a))])
    rto_s = _replayed_rto(params.profile, params.rto_min_ms, params.rto_ms, server)
    a = 1 - p
    q_syn = 1 - a**2
    handshake = 1000 * q_syn / (1 - 2 * q_syn)

    def z_to(t0: float) -> float:
        return t0 * (1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6) / (1 - p)

    q3 = p**3 + 3 * a * p**2 + 3 * a**2 * p
    q = 1 - (1 - q3) * (1 - p)
    t0s = [rto_s(float(pk.t_q)) for pk in response]
    assert len(response) == d and all(270 < t0 < 280 for t0 in t0s) and params.rto_ms == 210.0
    by_hand = p * (q * z_to(t0s[0]) + (1 - q) * rtt) + sum(p * z_to(t0) for t0 in t0s[1:])
    by_hand += p * z_to(rto_c(float(request[0].t_q)))
    assert e["segments"] == 1 + d
    assert e["by_cause_ms"]["handshake"] == pytest.approx(handshake)
    assert e["by_cause_ms"]["slower_sending"] == 0
    assert e["extra_ms"] == pytest.approx(handshake + by_hand, rel=1e-12)
    assert q3 == pytest.approx(loss.position_timeout_probability(p, 3), rel=1e-12)
    assert q == pytest.approx(expected_loss.repair_timeout_probability(p, 3), rel=1e-12)


def test_slower_sending_after_a_loss_on_a_persistent_connection() -> None:
    """A loss halves the window (after a timeout: one segment, slow start to half), so the later responses
    of a persistent connection take more rounds: the page pays more than the repair alone, and an earlier
    response's loss costs more than the last one's (Cardwell et al. 2000, 3.4)."""
    doc = _doc(0.01, ("persistent",), tcp={"profile": "ns3"})
    s = Scenario.model_validate(doc)
    st = expected_loss.structure(simulate(resolve(s), "persistent"), "persistent")
    slowed = [r for r in st.runs if r.to_rounds > 0]
    assert slowed and all(r.to_rounds >= r.fr_rounds for r in st.runs)
    assert st.runs[-1].to_rounds == st.runs[-1].fr_rounds == 0
    e = predict(doc)["results"][0]["expected_with_loss"]
    assert e["by_cause_ms"]["slower_sending"] > 0.1 * e["extra_ms"]


def _many_responses(objects: int, rate: float) -> dict[str, tuple[float, float]]:
    """The loss grid's many-responses scenario (validation/loss.py): 6,000-byte HTML and ``objects`` objects of
    10 KB, RTT 100 ms, 10 Mb/s, ns3 profile, IW 10: per protocol (lossless, expected with loss), ms."""
    doc = {
        "protocols": ["persistent", "http10"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 10_000_000, "packet_overhead_bytes": 42, "loss_rate": rate},
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 10},
        "page": {"object_count": objects, "object_size_bytes": 10_000},
    }
    return {
        r["protocol"]: (r["page_load_ms"], r["expected_with_loss"]["page_load_ms"]) for r in predict(doc)["results"]
    }


def test_many_responses_on_one_connection_cost_in_proportion() -> None:
    """A persistent connection's responses are bursts of their own, and the steady state after a loss (Padhye's
    periods, several losses) runs to the end of the response it hit: each response's own losses start its own.
    Before 2026-11-27 a burst's first loss slowed the whole rest of the connection, once per response, so the
    extra time grew with the square of the responses: 50 objects at p 0.02 took 23.1 s against ns-3's
    16.5 ± 0.5 s (200 seeds, validation/loss.py's 50-object page, run 2026-11-27 15:24 UTC), and persistent
    was slower than HTTP/1.0 under loss, which ns-3 does not show (http10 18.5 ± 0.4 s)."""
    half, full = _many_responses(25, 0.02), _many_responses(50, 0.02)
    extra = {n: out["persistent"][1] - out["persistent"][0] for n, out in ((25, half), (50, full))}
    assert 1.8 < extra[50] / extra[25] < 2.3  # in proportion to the responses, not their square (2.77 before)
    # ns-3: persistent 16.5, http10 18.5 s. Since the window a loss left carries over to the later responses
    # (loss.carried_ms, 2026-11-28) persistent is 18.2 s (+10 %) and http10 17.7 s (-4 %): both within the goal,
    # the order no longer as ns-3 has it
    assert full["persistent"][1] == pytest.approx(16_532, rel=0.15)  # ns-3's mean, the grid's goal
    assert full["http10"][1] == pytest.approx(18_500, rel=0.15)


def test_the_window_a_loss_left_carries_over_to_the_later_responses() -> None:
    """Issue 29: after a persistent connection's first loss its later responses go at the steady rate
    (loss.carried_ms): each run carries the later responses' segments, their lossless time and their count, and
    only the flow's first loss slows them; a page of several responses of tens of KB at RTT 200 ms and p 0.03
    costs within 10 % of ns-3's mean (8,466 ± 469 ms over 200 seeds, validation.loss.ACROSS_POINTS), 25 % under
    it before."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 200, "bandwidth_bps": 10_000_000, "packet_overhead_bytes": 42, "loss_rate": 0.03},
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 10},
        "page": {"object_count": 6, "object_size_bytes": 30_000},
    }
    s = Scenario.model_validate(doc)
    st = expected_loss.structure(simulate(resolve(s), "persistent"), "persistent")
    carried = [r for r in st.runs if r.carry > r.carry_n]
    assert carried and all(r.carry_ms > 0 and r.carry_n >= 1 for r in carried)
    assert max(r.carry_n for r in st.runs) == 6  # the HTML's runs carry the six responses after it
    assert st.runs[-1].carry == 0  # the last response carries nothing
    assert loss.carried_ms(0.03, 126, 1350.0, 6, 200.0, 1000.0, 2, 89.8) > 0
    assert loss.carried_ms(0.03, 6, 600.0, 6, 200.0, 1000.0, 2, 89.8) == 0  # one-segment requests
    e = predict(doc)["results"][0]["expected_with_loss"]
    assert e["page_load_ms"] == pytest.approx(8_466, rel=0.10)


def test_penalty_counts_extra_rounds() -> None:
    """From a window of 2 in congestion avoidance (one ACK per two segments, +1/2 a segment a round), two
    lossless one-round bursts of 4 segments take 2 rounds each; from 1 in slow start with one segment a
    round the first waits for the delayed-ACK timer."""
    g = expected_loss.Growth(ack_segments=2, abc_limit=1, quic=False)
    assert expected_loss.penalty([[4], [4]], 2.0, 2.0, g) == (2, 0)
    rounds, stalls = expected_loss.penalty([[4]], 1.0, 2.0, g)
    assert rounds >= 2 and stalls == 1
    assert expected_loss.penalty([[4]], 8.0, 8.0, g) == (0, 0)


def test_penalty_runs_until_the_later_bursts_fit() -> None:
    """A burst's small last round sent in time does not end the slower sending while the next bursts' rounds are larger
    than the window: from 7 segments (ssthresh 7, +1/2 a segment a round) a round of 2 goes in one round, but the next
    response's 14 segments take two, and the one after too; from 16 nothing is slower."""
    g = expected_loss.Growth(ack_segments=2, abc_limit=1, quic=False)
    assert expected_loss.penalty([[2]], 7.0, 7.0, g) == (0, 0)
    assert expected_loss.penalty([[2], [14], [14]], 7.0, 7.0, g) == (2, 0)
    assert expected_loss.penalty([[2], [14], [14]], 16.0, 16.0, g) == (0, 0)


def test_a_loss_near_a_responses_end_leaves_a_smaller_window() -> None:
    """The window a TCP loss leaves is half the data in flight when it is found (RFC 5681 (4)): the segment and those
    sent after it before its loss could be seen. On a persistent connection of 20 KB responses (one round each once the
    window has grown) a loss later in a response leaves less in flight, so the responses after it are slower for more
    rounds: a response's last fast-repaired segment costs the most extra rounds, 3 or more above its first (ns-3: a loss in the middle of
    one of ten responses at p 0.005 costs 1.0-1.6 s, one round to repair it and the rest in later responses)."""
    s = Scenario.model_validate(
        {
            "protocols": ["persistent"],
            "network": {"rtt_ms": 100, "bandwidth_bps": 10_000_000, "packet_overhead_bytes": 42, "loss_rate": 0.005},
            "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 10},
            "page": {"html_bytes": 6000, "object_count": 10, "object_size_bytes": 20_000},
        }
    )
    st = expected_loss.structure(simulate(resolve(s), "persistent"), "persistent")
    server = [r for r in st.runs if r.w > 1]  # the responses' segments (the requests go one at a time)
    checked = 0
    for carry in sorted({r.carry for r in server if r.carry}, reverse=True)[1:4]:  # three later responses
        runs = [r for r in server if r.carry == carry and r.follow >= 3]  # repaired fast: 3 duplicate ACKs
        rounds = [r.fr_rounds for r in sorted(runs, key=lambda r: r.before)]
        assert rounds[-1] == max(rounds) and rounds[-1] >= rounds[0] + 3, rounds
        checked += 1
    assert checked == 3


def test_windows_follow_slow_start() -> None:
    """BSD TCP from one segment: a 30-segment response leaves in rounds of growing windows."""
    s = Scenario.model_validate(
        {"protocols": ["http10"], "page": {"html_bytes": 40_000, "object_bytes": []}, "network": {"loss_rate": 0.01}}
    )
    st = expected_loss.structure(simulate(resolve(s), "http10"), "http10")
    response = [r for r in st.runs if r.before > 0 or r.w > 1]
    windows = [r.w for r in response]
    assert windows[0] <= 2 and max(windows) >= 8
    assert sum(r.count for r in st.runs) == st.segments


def test_parallel_connections_count_the_path_only() -> None:
    r = _by_protocol(_doc(0.02, ("http10", "http10_parallel")))
    serial, parallel = r["http10"], r["http10_parallel"]
    assert serial["expected_with_loss"]["connections"] == list(range(serial["counts"]["connections"]))
    on_path = parallel["expected_with_loss"]["connections"]
    assert 0 in on_path and 1 < len(on_path) < parallel["counts"]["connections"]
    # the last object's connection is on the path
    last = max(parallel["objects"], key=lambda o: o["end_ms"])
    assert last["connection"] in on_path


def test_split_proxy_counts_the_long_haul_connections_only() -> None:
    doc = _doc(0.02, ("persistent",), proxy={"architecture": "split_proxy"})
    result = predict(doc, packets=True)["results"][0]
    long_haul = {pk["connection"] for pk in result["packets"] if pk["leg"] == "long_haul"}
    e = result["expected_with_loss"]
    assert e["extra_ms"] > 0 and set(e["connections"]) <= long_haul


def _number(expr: sympy.Expr, values: dict[sympy.Symbol, float]) -> float:
    """The expression's value at ``values``: ``xreplace`` puts the numbers in and sympy evaluates as it rebuilds,
    without ``subs``'s rewriting at every node (http10_parallel at p = 0.2: 7 s against about 870 s with ``subs``,
    the same number to 15 digits; 2026-11-28)."""
    return float(expr.xreplace({k: sympy.Float(v) for k, v in values.items()}))


#: The sympy form of each structure built so far in this module, by the structure (a frozen dataclass). The loss rate
#: is a symbol of the form, not a part of the structure: the lossless schedule read at both of
#: test_symbolic_equals_numeric's rates is the same structure, so its form is built once and each rate's test
#: substitutes its own numbers and compares them with its own prediction (http10_parallel: 60-75 s of sympy a build
#: in a fresh process at load 10, less when sympy's own cache holds parts of it; 2026-11-29). A structure that
#: differs is built anew; a test run alone builds its own.
_EXPRESSIONS: dict[loss_recovery.Structure, sympy.Expr] = {}


def _expression(st: loss_recovery.Structure) -> sympy.Expr:
    """:func:`loss_expression.expression` of ``st``, built once per distinct structure in this module."""
    if st not in _EXPRESSIONS:
        _EXPRESSIONS[st] = loss_expression.expression(st)
    return _EXPRESSIONS[st]


#: Pages smaller than :data:`PAGE` for the symbolic test, by protocol: persistent_parallel's three chains of runs
#: on persistent connections take sympy over ten minutes to build into their latest-chain expectation on the
#: 20-object page (110 runs a chain), 6.5 s on 6 objects (47 runs a chain; 2026-11-28). http10_parallel's slots
#: share the objects (``slot_shares``): each job's slack holds the later jobs' delays, so its form grows about as the
#: cube of the objects (6 tests took 29 min on 20 objects under load, 2026-11-28).
SYMBOLIC_PAGE: dict[str, dict[str, Any]] = {
    "persistent_parallel": {"object_count": 6},
    "http10_parallel": {"object_count": 6},
}


@pytest.mark.slow  # sympy over every protocol: http10_parallel at 0.2 about 40 s, most of it building the expression
@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
@pytest.mark.parametrize("rate", [0.002, 0.2])
def test_symbolic_equals_numeric(protocol: str, rate: float) -> None:
    """The sympy form, with the scenario's numbers substituted, is the number in the result."""
    doc = _doc(rate, (protocol,), tls={"version": "1.3"}, session={"pages": 2}, page=SYMBOLIC_PAGE.get(protocol, {}))
    s = Scenario.model_validate(doc)
    st = expected_loss.structure(simulate(resolve(s), protocol), protocol)
    expr = _expression(st)
    assert {str(x) for x in expr.free_symbols} <= set(loss_expression.SYMBOLS)
    number = _number(expr, loss_expression.substitutions(st, rate))
    assert number == pytest.approx(predict(doc)["results"][0]["expected_with_loss"]["extra_ms"], rel=1e-9)


def test_quic_handshake_loss_waits_the_initial_probe_timeout() -> None:
    """Before an RTT sample QUIC's PTO is 999 ms (RFC 9002 6.2.2): the client's lone Initial is a tail."""
    s = Scenario.model_validate(_doc(0.01, ("h3",)))
    st = expected_loss.structure(simulate(resolve(s), "h3"), "h3")
    first = st.runs[0]
    assert first.quic and first.initial_pto and first.before == 0


@pytest.mark.parametrize("bad", [-0.01, 0.21, 1, "lots"])
def test_errors_name_the_field_and_its_range(bad: Any) -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate({"network": {"loss_rate": bad}})
    (problem,) = problems(info.value)
    assert problem.path == "network.loss_rate"
    assert problem.allowed == "a number from 0 to 0.2 per packet"
    assert "network.loss_rate" in problem.text and "0.2" in problem.text


def test_csv_has_the_expected_value_columns() -> None:
    doc = predict(_doc(0.02, ("h2", "h3")))
    header, *rows = csv_rows([doc], batch=False)
    col = {name: i for i, name in enumerate(header)}
    for row, r in zip(rows, doc["results"], strict=True):
        e = r["expected_with_loss"]
        assert row[col["expected_with_loss.loss_rate"]] == 0.02
        assert row[col["expected_with_loss.page_load_ms"]] == e["page_load_ms"]
        assert row[col["expected_with_loss.by_cause_ms.timeouts"]] == e["by_cause_ms"]["timeouts"]
        assert row[col["expected_with_loss.head_of_line_ms"]] == e["head_of_line_ms"]


# ------------------------------------------------------------- parallel connections off the page's path


def _ns3_page(rate: float, rtt: float = 20.0, objects: int = 10) -> dict[str, Any]:
    """bench/bench_loss_ns3.py's 10-object page: four parallel connections in three waves."""
    return {
        "protocols": ["http10_parallel"],
        "network": {"rtt_ms": rtt, "bandwidth_bps": 10_000_000, "packet_overhead_bytes": 42, "loss_rate": rate},
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 10},
        "page": {"object_count": objects, "object_size_bytes": 10_000},
    }


def _structure(doc: dict[str, Any]) -> expected_loss.Structure:
    protocol = doc["protocols"][0]
    return expected_loss.structure(simulate(resolve(Scenario.model_validate(doc)), protocol), protocol)


def test_the_latest_of_two_chains_by_hand() -> None:
    """The page's path and one other connection with 300 ms of slack. The path: a timeout (1,000 ms given
    one, chance 0.1) and short delays (20 ms given one, chance 0.5), independent; the other connection: a
    1,000 ms timeout with chance 0.05, 700 ms past the page's end. The page waits for the later:

    path >= 1,000 (0.1): the path's; else the other's 700 if it times out (0.05), else the path's 0 or 20.
    E = 0.05 * 1020 + 0.05 * 1000 + 0.45 * (0.05 * 700 + 0.95 * 20) + 0.45 * (0.05 * 700) = 141.05 ms:
    more than the path's 110 alone, less than adding the other's expected 35 ms past the end (145)."""
    path = expected_loss.chain_atoms(100.0, 0.1, 10.0, 0.5, 0.0)
    other = expected_loss.chain_atoms(50.0, 0.05, 0.0, 0.0, 300.0)
    shares = expected_loss.max_terms([(path, 1), (other, 1)])
    assert sum(shares) == pytest.approx(141.05, rel=1e-12)
    assert shares[1] == pytest.approx(0.9 * 0.05 * 700, rel=1e-12)
    # alone, a chain is its own expectation: the path's mean, the other's E[(X - s)^+]
    assert expected_loss.max_terms([(path, 1)]) == pytest.approx([110.0], rel=1e-12)
    assert expected_loss.max_terms([(other, 1)]) == pytest.approx([35.0], rel=1e-12)
    # slack longer than the delay hides it; no loss adds nothing
    hidden = expected_loss.chain_atoms(50.0, 0.05, 0.0, 0.0, 1500.0)
    assert sum(expected_loss.max_terms([(path, 1), (hidden, 1)])) == pytest.approx(110.0, rel=1e-12)
    none = expected_loss.chain_atoms(0.0, 0.0, 0.0, 0.0, 0.0)
    assert sum(expected_loss.max_terms([(none, 1), (none, 3)])) == 0
    # m identical chains: the same as listing them one by one
    two = expected_loss.max_terms([(path, 1), (other, 2)])
    each = expected_loss.max_terms([(path, 1), (other, 1), (other, 1)])
    assert sum(two) == pytest.approx(sum(each), rel=1e-12)
    assert two[1] == pytest.approx(each[1] + each[2], rel=1e-12)


def test_slack_is_the_connections_total_float() -> None:
    """Four slots, ten objects: the connection of obj1 opens obj5's when it ends, which opens obj9's; its
    slack is how long before the page's end obj9 ended. The path's connections have none."""
    doc = _ns3_page(0.01)
    s = simulate(resolve(Scenario.model_validate(doc)), "http10_parallel")
    slack = expected_loss.slack_by_connection(s)
    end = float(s.page_end[0].t_a)
    obj = {name: r for name, r in s.objects.items()}
    assert slack[obj["obj1"].connection] == pytest.approx(end - float(obj["obj9"].end))
    assert slack[obj["obj3"].connection] == pytest.approx(end - float(obj["obj7"].end))
    assert slack[obj["obj1"].connection] == slack[obj["obj5"].connection] == slack[obj["obj9"].connection]
    st = expected_loss.structure(s, "http10_parallel")
    assert all(slack[c] == 0 for c in st.connections)
    assert {o.conn for o in st.others} | set(st.connections) == set(range(len(s.conns)))
    assert all(o.slack > 0 for o in st.others)


@pytest.mark.parametrize("rate", [0.005, 0.03])
def test_parallel_connections_share_their_delays_over_the_slots(rate: float) -> None:
    """http10_parallel's slots share the objects (issue 29): the page pays its HTML connection's delay in full, every
    other connection's over the four slots, and more for the latest job, never more than the sum of them all; with no
    loss, nothing."""
    doc = _ns3_page(rate)
    st = _structure(doc)
    assert st.slots == 4 and [c.conn for c in st.slot_chains] == list(range(11))
    assert [c.lead for c in st.slot_chains] == [True] + [False] * 10
    x = [sum(expected_loss._parts(st, c.syns, c.runs, rate)[0].values()) for c in st.slot_chains]
    extra = expected_loss.expected(st, rate, 0.0)["extra_ms"]
    assert x[0] + sum(x[1:]) / 4 < extra < sum(x)
    e = predict(doc)["results"][0]["expected_with_loss"]
    assert e["extra_ms"] == pytest.approx(extra)
    assert sum(e["by_cause_ms"].values()) == pytest.approx(extra)
    assert expected_loss.expected(st, 0.0, 0.0)["extra_ms"] == 0
    # one slot: the objects one after another, their delays added; the own floats left as they are count nothing then
    one = expected_loss.expected(dataclasses.replace(st, slots=1), rate, 0.0)["extra_ms"]
    assert one == pytest.approx(sum(x), rel=1e-12)


def test_the_slots_by_hand() -> None:
    """Two slots, an HTML connection and two jobs, each a lone timeout (no short delays): the lead 100 ms expected;
    job 1 1,000 ms with chance 0.1 (float 0), job 2 1,000 ms with chance 0.2 (float 300 ms). Shares: (100 + 200) / 2.
    Past their shares (scaled by 1 - 1/2): job 1 500 ms past its float 0 and job 2's share 100 ms, so 400 (0.1); job 2
    500 past 300, so 200 (0.2). E[max] = 0.1 * 400 + 0.9 * 0.2 * 200 = 76 ms; the page 100 + 150 + 76 = 326 ms."""
    from latency_lab.mechanisms.loss_recovery import slot_chains

    rows = [(100.0, 0.1, 0.0, 0.0, 0.0, 100.0), (200.0, 0.2, 0.0, 0.0, 300.0, 200.0)]
    chains = slot_chains(rows, 2, 0.5)
    assert chains[0][1][1] == (pytest.approx(400.0), pytest.approx(0.1))
    assert chains[1][1][1] == (pytest.approx(200.0), pytest.approx(0.2))
    assert sum(expected_loss.max_terms([(atoms, 1) for _, atoms in chains])) == pytest.approx(76.0)


@pytest.mark.slow  # sympy's Heaviside steps: about 50 s each
@pytest.mark.parametrize(("rate", "rtt", "objects"), [(0.005, 20.0, 10), (0.03, 300.0, 6)])
def test_symbolic_equals_numeric_on_parallel_connections(rate: float, rtt: float, objects: int) -> None:
    """The expectation of the latest chain, in sympy (Heaviside steps for the order), is the number."""
    st = _structure(_ns3_page(rate, rtt, objects))
    assert st.others
    expr = loss_expression.expression(st)
    assert {str(x) for x in expr.free_symbols} <= set(loss_expression.SYMBOLS)
    number = _number(expr, loss_expression.substitutions(st, rate))
    assert number == pytest.approx(expected_loss.expected(st, rate, 0.0)["extra_ms"], rel=1e-9)


def _lossless(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` at a loss rate of 0, with every protocol its path allows."""
    out = {**doc, "network": {**doc.get("network", {}), "loss_rate": 0.0}, "protocols": list(ALL_PROTOCOLS)}
    try:
        Scenario.model_validate(out)
    except ValidationError:
        out["protocols"] = [name for name in ALL_PROTOCOLS if name not in ("h2", "h3")]
    return out


#: At a loss rate of 0: the spreads, every preset and random scenarios of every feature.
LOSSLESS = [
    *scenarios.spread(40, seed=5),
    *scenarios.split_spread(15, seed=6),
    *(PRESETS[name].document for name in sorted(PRESETS)),
    *scenarios.every_feature(300, seed=2026),
]


@pytest.mark.parametrize("doc", [_lossless(d) for d in LOSSLESS])
def test_at_zero_loss_the_counted_structure_equals_the_read_one(doc: dict[str, Any]) -> None:
    """At a loss rate of 0 ``block`` builds its structure from the engine's counts (SYNs, data segments)
    instead of reading the packets: the same structure as :func:`expected_loss.structure` without its
    runs, and the same block as costing every run (at 0 every cost is 0)."""
    s = Scenario.model_validate(doc)
    p = resolve(s)
    assert p.loss == 0
    for protocol in s.protocols:
        try:
            sess = simulate(p, protocol)
        except AssertionError:  # h3 with a receive window below one QUIC packet never completes (scenarios.py)
            continue
        read = expected_loss.structure(sess, protocol, others=False, costed=False)
        assert expected_loss.lossless_structure(sess, protocol) == read
        full = expected_loss.expected(expected_loss.structure(sess, protocol, others=False), 0.0, 100.0)
        assert expected_loss.block(sess, protocol, 100.0) == full


def _bulk(segments: int, rate: float, iw: int = 10) -> dict[str, Any]:
    """One HTTP/1.0 response of ``segments`` full segments (the header included), the ns-3 bulk grid's setup."""
    return {
        "protocols": ["http10"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 10_000_000, "packet_overhead_bytes": 42, "loss_rate": rate},
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": iw},
        "page": {"html_bytes": segments * 1460 - 200, "object_bytes": []},
    }


def test_a_bulk_transfer_reaches_the_steady_rate() -> None:
    """Several losses per transfer (issue 16, item 1): each added segment of a long transfer costs the steady
    state's time per segment, 1/B(p) (Padhye et al. 1998, eq. (31)), within 2 %, so 2,000 more segments at
    p = 0.01 cost about 29 s more (the lossless schedule alone: 2.4 s); before, only the first loss of the
    burst slowed it and the expected time stayed 3-5 times below ns-3's (bench/bulk_loss_ns3_runs.json)."""
    p = 0.01
    small, big = (_by_protocol(_bulk(d, p))["http10"]["expected_with_loss"] for d in (1000, 3000))
    rate = loss.steady_throughput(p, 100.0, 1000.0, 2, 131072 / 1460)
    assert big["page_load_ms"] - small["page_load_ms"] == pytest.approx(2000 / rate, rel=0.02)
    assert big["by_cause_ms"]["slower_sending"] > 0.8 * big["extra_ms"]


def test_symbolic_equals_numeric_on_a_bulk_transfer() -> None:
    """The sympy form with the periods after a loss (loss.SlowerSending: the larger of them and one halving's regrowth)
    is the number, on a transfer long enough for both branches of the Max to be taken by some run."""
    rate = 0.03
    doc = _bulk(100, rate)
    st = expected_loss.structure(simulate(resolve(Scenario.model_validate(doc)), "http10"), "http10")
    regrowth = [sum(loss_recovery._penalty_parts(st, r, rate)) for r in st.runs]
    steady = [loss_recovery.steady_ms(st, r, rate) for r in st.runs]
    assert any(s > g for s, g in zip(steady, regrowth, strict=True))
    assert any(s < g for s, g in zip(steady, regrowth, strict=True))
    expr = loss_expression.expression(st)
    assert {str(x) for x in expr.free_symbols} <= set(loss_expression.SYMBOLS)
    number = _number(expr, loss_expression.substitutions(st, rate))
    assert number == pytest.approx(_by_protocol(doc)["http10"]["expected_with_loss"]["extra_ms"], rel=1e-9)


def test_the_restart_after_idle_is_the_engines() -> None:
    """A persistent connection (Linux TCP, RTT 70 ms) whose client thinks before its second request: where the
    engine's sender restarted its window after idling longer than its own RTO (RFC 6298 on its round trips, the
    test of latency_lab.mechanisms.rto.restart_window), a loss in the first response slows nothing of the second (both
    senders restart), so the first response's regrowth after a loss (its extra rounds, :func:`penalty`) covers
    only its own burst; without a restart it covers the second response too. At 200 ms of thinking the engine
    restarts (idle counted from its last data segment), where the analysis's former test (the ACK's arrival to
    the next segment, against the fixed max(rto_min, 3 RTT) = 210 ms) did not. (The steady state after a loss
    runs to the end of its response either way: ``rest`` is the first response's 12 segments after the round.)"""
    rounds = {}
    for think, restarted in ((100, False), (200, True)):
        doc = {
            "protocols": ["persistent"],
            "network": {"loss_rate": 0.01},
            "tcp": {"profile": "linux"},
            "http": {"client_think_ms": think},
            "page": {"html_bytes": 30_000, "object_bytes": [30_000]},
        }
        s = simulate(resolve(Scenario.model_validate(doc)), "persistent")
        assert bool(s.conns[0].server.restart_t) is restarted
        st = expected_loss.structure(s, "persistent")
        first = [r for r in st.runs if r.before == 0 and r.w > 1]  # the response's first segment
        assert len(first) == 1 and first[0].rest == 12
        rounds[think] = (first[0].to_rounds, first[0].fr_rounds)
    assert rounds[100][0] > rounds[200][0] and rounds[100][1] > rounds[200][1], rounds  # (6, 5) against (3, 2)


def test_slow_start_after_a_loss_counts_by_the_profiles_rule() -> None:
    """The window's growth after a loss counts what an ACK acknowledges as the profile's engine does
    (profiles.cwnd_counting): a delayed ACK of two segments adds one segment by ACKs (bsd) and by bytes with
    RFC 3465's L = 1 (ns3), two by packets (linux, tcp_slow_start's ``acked``); congestion avoidance is the same."""
    rules = {name: resolve(Scenario.model_validate({"tcp": {"profile": name}})).profile.cwnd_counting
             for name in ("bsd", "ns3", "linux")}  # fmt: skip
    assert rules == {"bsd": "acks", "ns3": "bytes", "linux": "packets"}
    for name in PROFILES:
        pf = resolve(Scenario.model_validate({"tcp": {"profile": name}})).profile
        assert expected_loss.counting_rule(pf) == pf.cwnd_counting, name  # what the analysis's Growth counts by
    grown = {}
    for rule in ("acks", "bytes", "packets"):
        g = loss_recovery.Growth(ack_segments=2, abc_limit=1, quic=False, counting=rule)
        grown[rule] = loss_recovery._grow(4.0, 16.0, 4, g)
        assert loss_recovery._grow(8.0, 4.0, 8, g) == pytest.approx(8.5)  # congestion avoidance: 4 ACKs of 1/8
    assert grown == {"acks": 6.0, "bytes": 6.0, "packets": 8.0}
    # the analysis takes the profile's rule: from one segment, linux regrows in fewer rounds than bsd
    rest = [[1, 2, 4, 8, 16]]
    slow = loss_recovery.penalty(rest, 1.0, 16.0, loss_recovery.Growth(2, 1, False, "acks"))
    fast = loss_recovery.penalty(rest, 1.0, 16.0, loss_recovery.Growth(2, 1, False, "packets"))
    assert fast[0] < slow[0]


def test_a_connection_of_many_rounds_runs_the_periods_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A persistent connection of 1,000 lossy 10 KB responses asks for the periods after a loss (after_loss_ms) for
    every round of every response, about 9,000 times; they run once per starting window and grid rest (332 times
    here, 2026-11-27), not once per ask (which took 9.8 s of CPU). The asks themselves are cached too (issue 29:
    after_loss_ms, by its arguments), so they are counted where they come in. On the Python costing (the native
    engine costs in C++, loss_recovery.cpp, with the same cache of the periods by their arguments)."""
    monkeypatch.setenv(native.ENV, "0")
    loss.after_loss_ms.cache_clear()
    loss._after_loss_cached.cache_clear()
    loss._after_loss_open.cache_clear()
    doc = {"protocols": ["persistent"], "network": {"loss_rate": 0.05}, "page": {"object_count": 1000, "object_size_bytes": 10_000}}  # fmt: skip
    predict(doc)
    asked = loss.after_loss_ms.cache_info()
    asks, runs = loss._after_loss_open.cache_info(), loss._after_loss_cached.cache_info()
    assert asked.hits + asked.misses > 5_000 and asks.misses + runs.misses < 600, (asked, asks, runs)


@pytest.mark.parametrize("rate", [5e-324, 1e-300, 3.344026339283976e-127, 1e-17, 1e-9])
def test_a_vanishing_loss_rate_adds_almost_nothing(rate: float) -> None:
    """A loss rate the schema accepts, however small, gives a finite expected load just above the lossless one.
    Schemathesis found a 500 at 3.3e-127 in a fresh-clone CI run (2026-11-27): ``1 - p`` is 1.0 in floats, so
    Padhye's Q was 0/0 and the mean place of a first loss divided by zero (now ``log1p``/``expm1``); at 5e-324
    the mean gap overflowed to infinity."""
    doc = {
        "protocols": list(ALL_PROTOCOLS),
        "network": {"loss_rate": rate},
        "page": {"html_bytes": 20_000, "object_bytes": [5_000, 30_000, 200_000]},
    }
    for r in predict(doc)["results"]:
        lossless, expected = r["page_load_ms"], r["expected_with_loss"]["page_load_ms"]
        assert lossless <= expected <= lossless * (1 + 1e-6), (r["protocol"], lossless, expected)


def test_padhye_q_for_tiny_rates_is_its_limit() -> None:
    """Q(p, w) -> 3 / w as p -> 0 (Padhye et al. 1998, eq. (25)); the form with log1p/expm1 equals the textbook
    form where that one is exact."""
    assert loss.timeout_probability(3.3e-127, 10) == pytest.approx(0.3, rel=1e-12)
    for p, w in itertools.product([1e-4, 0.005, 0.03, 0.1, 0.3], [3.5, 4, 10, 100, 1000]):
        a = 1 - p
        textbook = min(1.0, (1 + a**3 * (1 - a ** (w - 3))) / ((1 - a**w) / (1 - a**3)))
        assert loss.timeout_probability(p, w) == pytest.approx(textbook, rel=1e-9)
