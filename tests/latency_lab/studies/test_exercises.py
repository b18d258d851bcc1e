"""The exercise templates (latency_lab.studies.exercises): every template's worked solution equals the model, the
answer check accepts the answer within its tolerance and rejects a wrong one, and Kurose & Ross's published
answers to the problems the templates cover come out exactly."""

from __future__ import annotations

import pytest

from latency_lab.studies import exercises as ex

SEEDS = [str(i) for i in range(12)] + ["alice", "s1234567"]


@pytest.mark.parametrize("template", list(ex.TEMPLATES))
@pytest.mark.parametrize("seed", SEEDS)
def test_substituted_formula_equals_the_model(template: str, seed: str) -> None:
    v = ex.variant(template, seed)
    # the textbook's formula with the variant's numbers is the model's prediction for the scenario it runs
    assert v.model_value == pytest.approx(v.formula_value, rel=1e-3, abs=0.5)
    assert v.unit in v.question or v.unit == "segments"
    assert v.assumptions and v.steps and v.citation


@pytest.mark.parametrize("template", list(ex.TEMPLATES))
def test_the_check_accepts_within_tolerance_and_rejects_outside(template: str) -> None:
    for seed in SEEDS[:5]:
        v = ex.variant(template, seed)
        assert ex.check(v, v.answer).correct
        if v.tolerance:
            assert ex.check(v, v.answer + 0.9 * v.tolerance).correct
            assert ex.check(v, v.formula_value).correct  # the worked solution's number is an accepted answer
            assert not ex.check(v, v.answer + 1.5 * v.tolerance).correct
            assert not ex.check(v, v.answer * 0.5).correct
        else:
            assert not ex.check(v, v.answer + 1).correct


def test_seeds_draw_the_same_numbers_and_different_seeds_differ() -> None:
    a, b = ex.variant("slow_start", "alice"), ex.variant("slow_start", "alice")
    assert a == b
    questions = {ex.variant("slow_start", s).question for s in SEEDS}
    assert len(questions) > len(SEEDS) // 2


def test_the_initial_window_answer_is_the_smallest_window_with_that_time() -> None:
    for seed in SEEDS:
        v = ex.variant("initial_window", seed)
        g = {x.symbol: x.value for x in v.given}
        w = int(v.answer)
        t = ex.slow_start_latency_ms(int(g["O"]), int(g["S"]), g["R"] * 1e6, g["RTT"], w)["total"]
        assert t == pytest.approx(g["T"], abs=0.5)  # the stated time is the model's, to 0.1 ms
        for smaller in range(1, w):
            other = ex.slow_start_latency_ms(int(g["O"]), int(g["S"]), g["R"] * 1e6, g["RTT"], smaller)["total"]
            assert abs(other - t) > 1e-6


def test_the_stalls_are_the_ones_named() -> None:
    kinds = set()
    for seed in SEEDS:
        v = ex.variant("stalls", seed)
        from latency_lab import predict

        r = predict(v.scenario)["results"][0]
        d = next(g.value for g in v.given if g.symbol == "d")
        rtt = next(g.value for g in v.given if g.symbol == "RTT")
        if v.protocol == "http10":
            kinds.add("delayed_ack")
            assert r["breakdown_ms"]["delayed_ack_stall"] == pytest.approx(d)
        else:
            kinds.add("nagle")
            assert r["counts"]["nagle_stalls"] == 1
            assert r["events"][0]["duration_ms"] == pytest.approx(rtt + d, abs=0.01)
    assert kinds == {"delayed_ack", "nagle"}


def test_which_stall_answers_the_kind_it_was_drawn_as() -> None:
    codes = {"none": 1.0, "delayed_ack": 2.0, "nagle": 3.0}
    seen = set()
    for seed in SEEDS + [str(i) for i in range(12, 30)]:
        kind = ex.TEMPLATES["which_stall"].draw(ex.rng_for("which_stall", seed))["kind"]
        assert ex.variant("which_stall", seed).answer == codes[kind]
        seen.add(kind)
    assert seen == set(codes)


# --- Kurose & Ross's published answers ------------------------------------------------------------------------
# Kurose & Ross, Computer Networking: A Top-Down Approach (6th-8th eds.), chapter 2, problems P7 and P8, and the
# solutions manual's answers: P7, DNS visits RTT1..RTTn then one small object: RTT1 + ... + RTTn + 2 RTT0.
# P8, eight very small objects: (a) non-persistent, no parallel connections: RTT1 + ... + RTTn + 2 RTT0 + 8 * 2 RTT0
# = 18 RTT0 + sum; (b) non-persistent with 5 parallel connections: + 2 * 2 RTT0 = 6 RTT0 + sum; (c) persistent:
# with pipelining 2 RTT0 + RTT0 = 3 RTT0 + sum, without pipelining 2 RTT0 + 8 RTT0 = 10 RTT0 + sum.

RTT0 = 100.0
VISITS = [12.0, 30.0, 48.0]  # three DNS servers visited: RTT1 + RTT2 + RTT3 = 90 ms


@pytest.mark.parametrize(
    ("problem", "protocol", "objects", "rtt0s"),
    [
        ("P7", "http10", 0, 2),
        ("P8a", "http10", 8, 18),
        ("P8b", "http10_parallel", 8, 6),
        ("P8c pipelined", "pipelined", 8, 3),
        ("P8c not pipelined", "persistent", 8, 10),
    ],
)
def test_kurose_ross_chapter_2_p7_p8(problem: str, protocol: str, objects: int, rtt0s: int) -> None:
    v = ex.build_dns_http(problem, protocol=protocol, rtt0_ms=RTT0, dns_rtts_ms=VISITS, objects=objects, connections=5)
    published = sum(VISITS) + rtt0s * RTT0
    assert v.formula_value == published
    assert v.model_value == pytest.approx(published, abs=0.01)
    assert ex.check(v, published).correct


def test_kurose_ross_slow_start_terms() -> None:
    # K&R 2nd-4th ed., 3.7: for an object of 15 segments (K = 4 windows of 1, 2, 4, 8) and RTT long enough that
    # every window stalls (Q >= 4), P = min(Q, K - 1) = 3: latency 2 RTT + O/R + 3 (RTT + S/R) - 7 S/R.
    s, r, rtt = 1000, 1e6, 100.0
    t = ex.slow_start_latency_ms(15 * s, s, r, rtt)
    sr = 8.0
    assert (t["K"], t["P"]) == (4, 3)
    assert t["total"] == pytest.approx(2 * rtt + 15 * sr + 3 * (rtt + sr) - 7 * sr)
    v = ex.build_slow_start("kr", o_bytes=15 * s, s_bytes=s, r_bps=r, rtt_ms=rtt)
    assert v.model_value == pytest.approx(t["total"], abs=0.1)


def test_bad_input_names_the_field() -> None:
    with pytest.raises(ex.ExerciseError, match="template"):
        ex.variant("nope", "1")
    with pytest.raises(ex.ExerciseError, match="seed"):
        ex.variant("loss", "a b<")
    with pytest.raises(ex.ExerciseError, match="seeds"):
        ex.parse_seeds("1-500")
    with pytest.raises(ex.ExerciseError, match="seeds"):
        ex.problem_set(list(ex.TEMPLATES), [str(i) for i in range(60)])
    with pytest.raises(ex.ExerciseError, match="answer"):
        ex.check(ex.variant("loss", "1"), float("nan"))


def test_problem_set_orders_by_seed() -> None:
    vs = ex.problem_set(["loss", "parallel"], ex.parse_seeds("3-4,bob"))
    assert [(v.seed, v.template) for v in vs] == [
        ("3", "loss"),
        ("3", "parallel"),
        ("4", "loss"),
        ("4", "parallel"),
        ("bob", "loss"),
        ("bob", "parallel"),
    ]
