"""Exercises: problem templates over the model, each variant's numbers drawn from a seed (issue 27).

A template states a textbook problem in words with units, draws its numbers from a seed (a student id or a
number; :func:`variant`), and carries its worked solution: the formula in the textbook's form, the same formula
with the numbers substituted (:attr:`Variant.substituted`, worth :attr:`Variant.formula_value`), and the model's
own prediction for the scenario the problem describes (:attr:`Variant.model_value`, from :func:`latency_lab.predict` on
:attr:`Variant.scenario`). Where the textbook's assumptions differ from the model's default stack (delayed ACKs,
the bsd profile's reply window of IW + 1, transmission times, TLS certificate sizes), the problem says which it
uses (:attr:`Variant.assumptions`) and the scenario runs with exactly those, so the two numbers agree (tested
per template: tests/latency_lab/studies/test_exercises.py). :func:`check` accepts an answer within the stated tolerance.

The textbook forms are Kurose & Ross's (*Computer Networking: A Top-Down Approach*, chapter 2's problems on
HTTP and DNS delays, P7 and P8 in the 6th to 8th editions; the slow-start latency of section 3.7 in the 2nd to
4th editions), Cardwell, Savage & Anderson 2000 (the handshake under loss) and Padhye et al. 1998 (a timeout's
expected length), and seed 000 (Heidemann 1996, 2.2 and 2.3) for the delayed-ACK and Nagle stalls.

Pure: the model only (no web, no plotting); the app and the command line render what is here.
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from latency_lab.analysis.predict import predict
from latency_lab.scenario.schema import MAX_RATE_BPS

#: A seed: a student id or a number, as written in an address.
SEED_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
SEED_ALLOWED = "1 to 40 characters: letters, digits, '_', '-' or '.'"
#: Largest problem set (templates x seeds): every variant runs the model once.
MAX_SET_VARIANTS = 120
#: Highest seed of a numeric seed range ("1-30").
MAX_SEED_RANGE = 60

#: The model's stack for the textbook's negligible transmission: a fast link and packets without header bytes.
FAST_LINK_BPS = MAX_RATE_BPS  # the fastest link the schema allows
SYN_TIMEOUT_MS = 1000.0  # the initial SYN timeout T_s (RFC 6298 5.7), as latency_lab.mechanisms.loss uses
INITIAL_RTO_MS = 1000.0  # T_0: the rfc5681 profile's RTO minimum, the RTO while the RTT stays under 1 s / 3


class ExerciseError(ValueError):
    """Bad exercise input: :attr:`field` names the parameter, the message says what it allows."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


@dataclass(frozen=True)
class Given:
    """One number of a problem: its symbol, what it is, its value and unit."""

    symbol: str
    name: str
    value: float
    unit: str

    def text(self) -> str:
        return f"{self.symbol} = {fmt(self.value)} {self.unit}".rstrip()


@dataclass(frozen=True)
class Variant:
    """One problem drawn from a template by a seed, with its answer and worked solution."""

    template: str
    seed: str
    title: str
    question: str  # the problem in words, with units
    assumptions: tuple[str, ...]  # where the textbook's assumptions differ from the model's default stack
    given: tuple[Given, ...]
    answer: float  # the expected answer, in ``unit``
    unit: str
    tolerance: float  # an answer within this (absolute, in ``unit``) is accepted
    formula: str  # the textbook's form
    substituted: str  # the same with the numbers in
    formula_value: float  # what the substituted formula is worth (ms)
    model_value: float  # the model's prediction for the scenario (ms)
    steps: tuple[str, ...]  # the worked solution, line by line
    citation: str
    scenario: dict[str, Any] = field(repr=False)  # the scenario document the model runs
    protocol: str = "http10"

    @property
    def tolerance_text(self) -> str:
        if self.tolerance == 0:
            return "exactly"
        return f"± {fmt(self.tolerance)} {self.unit}"

    def as_dict(self, answers: bool = True) -> dict[str, Any]:
        """The variant as JSON-ready data; ``answers=False`` leaves out the answer and the worked solution."""
        out: dict[str, Any] = {
            "template": self.template,
            "seed": self.seed,
            "title": self.title,
            "question": self.question,
            "assumptions": list(self.assumptions),
            "given": [{"symbol": g.symbol, "name": g.name, "value": g.value, "unit": g.unit} for g in self.given],
            "unit": self.unit,
            "tolerance": self.tolerance,
            "citation": self.citation,
            "scenario": self.scenario,
            "protocol": self.protocol,
        }
        if answers:
            out["answer"] = self.answer
            out["solution"] = {
                "formula": self.formula,
                "substituted": self.substituted,
                "formula_value_ms": self.formula_value,
                "model_value_ms": self.model_value,
                "steps": list(self.steps),
            }
        return out


@dataclass(frozen=True)
class Verdict:
    """An answer checked against a variant."""

    correct: bool
    given: float
    expected: float
    tolerance: float
    unit: str

    def text(self) -> str:
        tol = "exactly" if self.tolerance == 0 else f"within ± {fmt(self.tolerance)} {self.unit}"
        if self.correct:
            return f"Correct: {fmt(self.given)} {self.unit} is {tol} of {fmt(self.expected)} {self.unit}."
        return f"Not quite: {fmt(self.given)} {self.unit} is not {tol} of the answer."


@dataclass(frozen=True)
class Template:
    name: str
    title: str
    summary: str
    draw: Callable[[random.Random], dict[str, Any]]  # the seed's numbers
    build: Callable[..., Variant]  # from those numbers (keyword arguments) and the seed


def fmt(x: float) -> str:
    """A number as a problem writes it: integers plainly, others to at most 4 significant decimals."""
    if float(x).is_integer():
        return f"{int(x):,}".replace(",", " ") if abs(x) >= 10_000 else str(int(x))
    return f"{x:.4g}" if abs(x) < 1 else f"{x:.2f}".rstrip("0").rstrip(".")


def rng_for(template: str, seed: str) -> random.Random:
    """The seed's random numbers for a template: the same on every machine and Python (SHA-256, not hash())."""
    digest = hashlib.sha256(f"latency-lab exercises|{template}|{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def check_seed(seed: str) -> str:
    if not isinstance(seed, str) or not SEED_PATTERN.match(seed):
        raise ExerciseError("seed", f"must be {SEED_ALLOWED}")
    return seed


# --- the model's textbook stack ----------------------------------------------------------------------------


def textbook_scenario(
    protocol: str,
    rtt_ms: float,
    *,
    initial_window: int = 10,
    html_bytes: int = 1000,
    objects: int = 0,
    object_bytes: int = 1000,
    **sections: Mapping[str, Any],
) -> dict[str, Any]:
    """A scenario document under the textbook's assumptions: the ``rfc5681`` profile (no IW + 1 reply window),
    no delayed ACK, Nagle off, negligible transmission (100 Gbit/s, no header bytes), a receive window that never
    limits; ``sections`` update the document's sections (``tcp={"nagle": True}``)."""
    doc: dict[str, Any] = {
        "protocols": [protocol],
        "network": {"rtt_ms": rtt_ms, "bandwidth_bps": FAST_LINK_BPS, "packet_overhead_bytes": 0},
        "tcp": {
            "profile": "rfc5681",
            "initial_window_segments": initial_window,
            "delayed_ack_ms": 0.0,
            "nagle": False,
            "mss_bytes": 1460,
            "receive_window_bytes": 1_000_000_000,
        },
        "http": {"request_bytes": 100, "response_header_bytes": 100, "server_write_bytes": 0},
        "page": {"html_bytes": html_bytes, "object_count": objects, "object_size_bytes": object_bytes},
    }
    for name, values in sections.items():
        doc.setdefault(name, {}).update(values)
    return doc


NEGLIGIBLE = (
    "Transmission times are negligible: the model runs with a 100 Gbit/s link and packets without header bytes "
    "(network.packet_overhead_bytes 0)."
)
NO_DELAYED_ACK = "The receiver acknowledges every segment at once: no delayed ACK (tcp.delayed_ack_ms 0)."
BIG_WINDOW = (
    "The server's initial window (10 segments, the rfc5681 profile) holds every response, so TCP's congestion "
    "window holds nothing back; Nagle's algorithm is off."
)
IW_ONE = (
    "Slow start from an initial window of one segment, one more segment per ACK (the rfc5681 profile: the default "
    "bsd profile's reply window would start at IW + 1 segments)."
)


def _result(doc: dict[str, Any]) -> dict[str, Any]:
    return dict(predict(doc)["results"][0])


def model_ms(doc: dict[str, Any]) -> float:
    """The model's page load time (ms) for a one-protocol document."""
    return float(_result(doc)["page_load_ms"])


# --- HTTP round trips (Kurose & Ross, chapter 2) -----------------------------------------------------------

HTTP_MODES: dict[str, tuple[str, str]] = {
    "http10": ("non-persistent HTTP, one connection at a time", "2·RTT + n·2·RTT"),
    "persistent": ("persistent HTTP without pipelining", "2·RTT + n·RTT"),
    "pipelined": ("persistent HTTP with pipelining", "2·RTT + RTT"),
}


def _http_rounds(mode: str, n: int, m: int = 1) -> tuple[int, str]:
    """Round trips of a base page with ``n`` small objects, and the formula's substituted middle."""
    if n == 0:
        return 2, "2·RTT"
    if mode == "http10":
        return 2 + 2 * n, f"2·RTT + {n}·2·RTT"
    if mode == "http10_parallel":
        waves = -(-n // m)
        return 2 + 2 * waves, f"2·RTT + ⌈{n}/{m}⌉·2·RTT"
    if mode == "persistent":
        return 2 + n, f"2·RTT + {n}·RTT"
    if mode == "pipelined":
        return (3, "2·RTT + RTT") if n else (2, "2·RTT")
    raise ExerciseError("mode", f"unknown mode {mode!r}")


def build_http_rounds(seed: str, *, protocol: str, rtt_ms: float, objects: int) -> Variant:
    name, form = HTTP_MODES[protocol]
    form = form if objects else "2·RTT"
    rounds, middle = _http_rounds(protocol, objects)
    value = rounds * rtt_ms
    doc = textbook_scenario(protocol, rtt_ms, objects=objects)
    got = model_ms(doc)
    return Variant(
        template="http_rounds",
        seed=seed,
        title="HTTP/1.0, persistent or pipelined: counting round trips",
        question=(
            f"A Web page is a base HTML file that references {objects} very small objects on the same server. The "
            f"round-trip time between the client and the server is RTT = {fmt(rtt_ms)} ms, and the server's address "
            f"is already known. Using {name}, how long (in ms) after the click does the client have the whole page?"
        ),
        assumptions=(NEGLIGIBLE, BIG_WINDOW, NO_DELAYED_ACK),
        given=(Given("RTT", "round-trip time", rtt_ms, "ms"), Given("n", "embedded objects", objects, "")),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula=f"T = {form}",
        substituted=f"T = {middle.replace('RTT', fmt(rtt_ms) + ' ms')} = {rounds}·RTT = {fmt(value)} ms",
        formula_value=value,
        model_value=got,
        steps=(
            "One RTT opens the TCP connection (SYN, SYN-ACK); one more sends the request for the base file and "
            "brings it back: 2·RTT.",
            {
                "http10": f"Each of the {objects} objects then needs its own connection: 2·RTT each.",
                "persistent": f"On the open connection each of the {objects} objects takes one request-response: "
                "RTT each.",
                "pipelined": f"The client sends all {objects} requests back to back: all the objects arrive in one "
                "more RTT.",
            }[protocol],
            f"T = {middle} = {rounds}·RTT = {fmt(value)} ms; the model's schedule: {fmt(got)} ms.",
        ),
        citation="Kurose & Ross, Computer Networking, chapter 2 (HTTP response time; problems P7 and P8)",
        scenario=doc,
        protocol=protocol,
    )


def _draw_http_rounds(rng: random.Random) -> dict[str, Any]:
    return {
        "protocol": rng.choice(list(HTTP_MODES)),
        "rtt_ms": float(rng.randrange(20, 201, 10)),
        "objects": rng.randint(2, 10),
    }


def build_parallel(seed: str, *, rtt_ms: float, objects: int, connections: int) -> Variant:
    rounds, _ = _http_rounds("http10_parallel", objects, connections)
    value = rounds * rtt_ms
    doc = textbook_scenario("http10_parallel", rtt_ms, objects=objects, http={"parallel_connections": connections})
    got = model_ms(doc)
    waves = -(-objects // connections)
    return Variant(
        template="parallel",
        seed=seed,
        title="Non-persistent HTTP with parallel connections",
        question=(
            f"A base HTML file references {objects} very small objects on the same server; RTT = {fmt(rtt_ms)} ms. "
            f"The browser uses non-persistent HTTP with up to {connections} parallel TCP connections for the "
            "objects, once it has the base file. How long (in ms) until it has the whole page?"
        ),
        assumptions=(NEGLIGIBLE, BIG_WINDOW, NO_DELAYED_ACK),
        given=(
            Given("RTT", "round-trip time", rtt_ms, "ms"),
            Given("n", "embedded objects", objects, ""),
            Given("m", "parallel connections", connections, ""),
        ),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula="T = 2·RTT + ⌈n/m⌉·2·RTT",
        substituted=f"T = 2·{fmt(rtt_ms)} ms + ⌈{objects}/{connections}⌉·2·{fmt(rtt_ms)} ms = {fmt(value)} ms",
        formula_value=value,
        model_value=got,
        steps=(
            "The base file: one RTT to connect, one to request and receive it: 2·RTT.",
            f"The objects go in ⌈{objects}/{connections}⌉ = {waves} waves of up to {connections} connections at "
            "once, each wave a new connection (RTT) and a request-response (RTT): 2·RTT a wave.",
            f"T = {rounds}·RTT = {fmt(value)} ms; the model's schedule: {fmt(got)} ms.",
        ),
        citation="Kurose & Ross, Computer Networking, chapter 2 (problem P8 b: parallel connections)",
        scenario=doc,
        protocol="http10_parallel",
    )


def _draw_parallel(rng: random.Random) -> dict[str, Any]:
    return {
        "rtt_ms": float(rng.randrange(20, 201, 10)),
        "objects": rng.randint(3, 20),
        "connections": rng.randint(2, 6),
    }


DNS_MODES: dict[str, tuple[str, str]] = {
    "http10": ("non-persistent HTTP with no parallel TCP connections", "2·RTT0 + n·2·RTT0"),
    "http10_parallel": (
        "non-persistent HTTP with the browser configured for m parallel connections",
        "2·RTT0 + ⌈n/m⌉·2·RTT0",
    ),
    "persistent": ("persistent HTTP without pipelining", "2·RTT0 + n·RTT0"),
    "pipelined": ("persistent HTTP with pipelining", "2·RTT0 + RTT0"),
}


def build_dns_http(
    seed: str, *, protocol: str, rtt0_ms: float, dns_rtts_ms: Sequence[float], objects: int, connections: int = 5
) -> Variant:
    visits = [float(x) for x in dns_rtts_ms]
    dns = sum(visits)
    rounds, middle = _http_rounds(protocol, objects, connections)
    value = dns + rounds * rtt0_ms
    doc = textbook_scenario(
        protocol,
        rtt0_ms,
        objects=objects,
        http={"parallel_connections": connections},
        dns={"lookup": "resolver", "resolver_rtt_ms": dns},
    )
    got = model_ms(doc)
    name, form = DNS_MODES[protocol]
    form = form if objects else "2·RTT0"
    name = name.replace("m parallel", f"{connections} parallel")
    rtts = " + ".join(f"{fmt(x)}" for x in visits)
    sums = " + ".join(f"RTT{i + 1}" for i in range(len(visits)))
    obj_words = (
        "exactly one object, a small HTML file"
        if objects == 0
        else (f"a small HTML file that references {objects} very small objects on the same server")
    )
    return Variant(
        template="dns_http",
        seed=seed,
        title="DNS lookup plus HTTP",
        question=(
            f"A client clicks on a link. The server's IP address is not cached at the client, so a DNS lookup "
            f"visits {len(visits)} DNS server(s) in turn before the client has it, with round-trip times "
            f"{rtts} ms. The page is {obj_words}; the RTT between the client and the Web server is "
            f"RTT0 = {fmt(rtt0_ms)} ms. With {name}, how long (in ms) from the click until the client has the "
            "whole page?"
        ),
        assumptions=(
            NEGLIGIBLE,
            BIG_WINDOW,
            NO_DELAYED_ACK,
            "The model's DNS lookup is one wait of dns.resolver_rtt_ms before the first connection; it runs with "
            f"the visits' sum, {fmt(dns)} ms.",
        ),
        given=(
            *(Given(f"RTT{i + 1}", f"DNS visit {i + 1}", x, "ms") for i, x in enumerate(visits)),
            Given("RTT0", "client to Web server", rtt0_ms, "ms"),
            Given("n", "embedded objects", objects, ""),
            *((Given("m", "parallel connections", connections, ""),) if protocol == "http10_parallel" else ()),
        ),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula=f"T = {sums} + {form}",
        substituted=(
            f"T = {rtts} ms + {middle.replace('RTT', fmt(rtt0_ms) + ' ms')} = {fmt(dns)} ms + {rounds}·RTT0 "
            f"= {fmt(value)} ms"
        ),
        formula_value=value,
        model_value=got,
        steps=(
            f"The lookup: {sums} = {fmt(dns)} ms before the first SYN can leave.",
            "Then 2·RTT0 for the base file (connection, then request and response).",
            _object_step(protocol, objects, connections),
            f"T = {fmt(dns)} ms + {rounds}·{fmt(rtt0_ms)} ms = {fmt(value)} ms; the model: {fmt(got)} ms.",
        ),
        citation="Kurose & Ross, Computer Networking, chapter 2, problems P7 (DNS plus one object) and P8 "
        "(eight objects: non-persistent, 5 parallel connections, persistent)",
        scenario=doc,
        protocol=protocol,
    )


def _object_step(protocol: str, n: int, m: int) -> str:
    if n == 0:
        return "No embedded objects: nothing more."
    return {
        "http10": f"Each of the {n} objects needs a new connection: 2·RTT0 each, {2 * n}·RTT0.",
        "http10_parallel": f"⌈{n}/{m}⌉ = {-(-n // m)} waves of parallel connections, 2·RTT0 each.",
        "persistent": f"One request-response per object on the open connection: {n}·RTT0.",
        "pipelined": "All the requests at once on the open connection: one more RTT0.",
    }[protocol]


def _draw_dns_http(rng: random.Random) -> dict[str, Any]:
    return {
        "protocol": rng.choice(list(DNS_MODES)),
        "rtt0_ms": float(rng.randrange(20, 161, 10)),
        "dns_rtts_ms": [float(rng.randrange(2, 61, 2)) for _ in range(rng.randint(1, 4))],
        "objects": rng.choice([0, 8, rng.randint(2, 12)]),
        "connections": rng.randint(2, 6),
    }


# --- TCP slow start (Kurose & Ross, section 3.7 of the 2nd to 4th editions) ------------------------------


def slow_start_latency_ms(o_bytes: int, s_bytes: int, r_bps: float, rtt_ms: float, iw: int = 1) -> dict[str, float]:
    """Kurose & Ross's latency of one object over a new connection under slow start (ms), with its terms.

    ``2 RTT + O/R + P (RTT + S/R) - w (2^P - 1) S/R``: the windows are ``w, 2w, 4w, ...`` segments (``w`` the
    initial window, 1 in the book), ``K = ceil(log2(O/(wS) + 1))`` of them cover the object, and the server
    stalls after the first ``P = min(Q, K - 1)``, where ``Q`` is the number of windows that would stall for an
    object of unlimited size (those with ``w 2^(k-1) S/R < S/R + RTT``).
    """
    sr = s_bytes * 8 / r_bps * 1000
    o_r = o_bytes * 8 / r_bps * 1000
    k = max(1, math.ceil(math.log2(o_bytes / (iw * s_bytes) + 1) - 1e-12))
    q = 0
    while iw * 2**q * sr < sr + rtt_ms and q < 64:
        q += 1
    p = min(q, k - 1)
    total = 2 * rtt_ms + o_r + p * (rtt_ms + sr) - iw * (2**p - 1) * sr
    return {"total": total, "sr": sr, "or": o_r, "K": k, "Q": q, "P": p}


def slow_start_scenario(o_bytes: int, s_bytes: int, r_bps: float, rtt_ms: float, iw: int) -> dict[str, Any]:
    """The model's scenario for the book's slow start: one object of O bytes over a new connection, the request
    and headers one byte and none (the book neglects them), no header bytes on packets, no delayed ACK."""
    return {
        "protocols": ["http10"],
        "network": {"rtt_ms": rtt_ms, "bandwidth_bps": r_bps, "packet_overhead_bytes": 0},
        "tcp": {
            "profile": "rfc5681",
            "initial_window_segments": iw,
            "delayed_ack_ms": 0.0,
            "nagle": False,
            "mss_bytes": s_bytes,
            "receive_window_bytes": 1_000_000_000,
        },
        "http": {"request_bytes": 1, "response_header_bytes": 0, "server_write_bytes": 0},
        "page": {"html_bytes": o_bytes, "object_count": 0, "object_size_bytes": 0},
    }


SLOW_START_ASSUMPTIONS = (
    IW_ONE,
    NO_DELAYED_ACK,
    "The request and the headers are too small to count (the model sends a 1-byte request and no header bytes), "
    "the receive window never limits, and no packet is lost.",
)


def build_slow_start(seed: str, *, o_bytes: int, s_bytes: int, r_bps: float, rtt_ms: float) -> Variant:
    t = slow_start_latency_ms(o_bytes, s_bytes, r_bps, rtt_ms)
    doc = slow_start_scenario(o_bytes, s_bytes, r_bps, rtt_ms, 1)
    got = model_ms(doc)
    k, q, p = int(t["K"]), int(t["Q"]), int(t["P"])
    sr, o_r = t["sr"], t["or"]
    return Variant(
        template="slow_start",
        seed=seed,
        title="Slow-start latency (Kurose & Ross's formula)",
        question=(
            f"A client requests an object of O = {fmt(o_bytes)} bytes over a new TCP connection. The segment size "
            f"is S = {s_bytes} bytes, the link rate R = {fmt(r_bps / 1e6)} Mbit/s each way and RTT = "
            f"{fmt(rtt_ms)} ms. TCP slow start begins with a window of one segment. How long (in ms) from the "
            "client's SYN until it has the whole object?"
        ),
        assumptions=SLOW_START_ASSUMPTIONS,
        given=(
            Given("O", "object size", o_bytes, "bytes"),
            Given("S", "segment size", s_bytes, "bytes"),
            Given("R", "link rate", r_bps / 1e6, "Mbit/s"),
            Given("RTT", "round-trip time", rtt_ms, "ms"),
        ),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula="T = 2·RTT + O/R + P·(RTT + S/R) \u2212 (2^P \u2212 1)·S/R,  P = min(Q, K \u2212 1)",
        substituted=(
            f"T = 2·{fmt(rtt_ms)} + {fmt(o_r)} + {p}·({fmt(rtt_ms)} + {fmt(sr)}) \u2212 ({2**p} \u2212 1)·{fmt(sr)} "
            f"= {fmt(t['total'])} ms"
        ),
        formula_value=t["total"],
        model_value=got,
        steps=(
            f"S/R = {s_bytes}·8 bit / {fmt(r_bps / 1e6)} Mbit/s = {fmt(sr)} ms; O/R = {fmt(o_r)} ms.",
            f"K = ⌈log2(O/S + 1)⌉ = ⌈log2({fmt(o_bytes / s_bytes)} + 1)⌉ = {k} windows (1, 2, 4, ... segments) "
            "cover the object.",
            f"Q = ⌊log2(1 + RTT/(S/R))⌋ + 1 = {q}: the windows that would stall an endless object "
            "(the server waits while 2^(k\u22121)·S/R < S/R + RTT).",
            f"P = min(Q, K \u2212 1) = {p} stalls.",
            f"T = {fmt(t['total'])} ms; the model's schedule: {fmt(got)} ms (it also sends the 1-byte request and "
            "the SYN's option bytes).",
        ),
        citation="Kurose & Ross, Computer Networking, 2nd-4th ed., section 3.7 (modeling latency: dynamic "
        "congestion window)",
        scenario=doc,
    )


def _draw_slow_start(rng: random.Random) -> dict[str, Any]:
    s = rng.choice([536, 1000, 1460])
    return {
        "o_bytes": rng.choice([10, 20, 30, 50, 80, 100, 150, 200]) * 1000,
        "s_bytes": s,
        "r_bps": rng.choice([1e6, 1.5e6, 2e6, 5e6, 10e6, 45e6]),
        "rtt_ms": float(rng.randrange(20, 201, 10)),
    }


def build_initial_window(seed: str, *, o_bytes: int, s_bytes: int, r_bps: float, rtt_ms: float, iw: int) -> Variant:
    """What initial window gives this time? The smallest window whose slow-start latency is the target's."""
    target = slow_start_latency_ms(o_bytes, s_bytes, r_bps, rtt_ms, iw)["total"]
    table = [(w, slow_start_latency_ms(o_bytes, s_bytes, r_bps, rtt_ms, w)["total"]) for w in range(1, iw + 1)]
    smallest = next(w for w, t in table if abs(t - target) < 1e-6)
    doc = slow_start_scenario(o_bytes, s_bytes, r_bps, rtt_ms, smallest)
    got = model_ms(doc)
    t = slow_start_latency_ms(o_bytes, s_bytes, r_bps, rtt_ms, smallest)
    rows = "; ".join(f"w = {w}: {fmt(x)} ms" for w, x in table[: smallest + 1])
    return Variant(
        template="initial_window",
        seed=seed,
        title="What initial window gives this time?",
        question=(
            f"An object of O = {fmt(o_bytes)} bytes travels over a new TCP connection: S = {s_bytes} bytes, "
            f"R = {fmt(r_bps / 1e6)} Mbit/s, RTT = {fmt(rtt_ms)} ms. The client measures {fmt(round(got, 1))} ms "
            "from its SYN to the object's last byte. What is the smallest initial congestion window (in segments) "
            "that gives this time?"
        ),
        assumptions=(
            "Slow start from an initial window of w segments, one more segment per ACK (the rfc5681 profile).",
            *SLOW_START_ASSUMPTIONS[1:],
        ),
        given=(
            Given("O", "object size", o_bytes, "bytes"),
            Given("S", "segment size", s_bytes, "bytes"),
            Given("R", "link rate", r_bps / 1e6, "Mbit/s"),
            Given("RTT", "round-trip time", rtt_ms, "ms"),
            Given("T", "measured time", round(got, 1), "ms"),
        ),
        answer=float(smallest),
        unit="segments",
        tolerance=0.0,
        formula="T(w) = 2·RTT + O/R + P·(RTT + S/R) \u2212 w·(2^P \u2212 1)·S/R,  windows w, 2w, 4w, ...",
        substituted=(
            f"T({smallest}) = 2·{fmt(rtt_ms)} + {fmt(t['or'])} + {int(t['P'])}·({fmt(rtt_ms)} + {fmt(t['sr'])}) \u2212 "
            f"{smallest}·({2 ** int(t['P'])} \u2212 1)·{fmt(t['sr'])} = {fmt(t['total'])} ms"
        ),
        formula_value=t["total"],
        model_value=got,
        steps=(
            "Kurose & Ross's slow-start latency with the first window w segments instead of one: the windows are "
            "w, 2w, 4w, ...; the server stalls after window k while w·2^(k\u22121)·S/R < S/R + RTT.",
            f"Try w = 1, 2, ...: {rows}.",
            f"The smallest window giving {fmt(round(got, 1))} ms is w = {smallest} segments; the model with that "
            f"window: {fmt(got)} ms.",
        ),
        citation="Kurose & Ross, Computer Networking, 2nd-4th ed., section 3.7, with an initial window of w "
        "segments (RFC 3390, RFC 6928)",
        scenario=doc,
    )


def _draw_initial_window(rng: random.Random) -> dict[str, Any]:
    return {**_draw_slow_start(rng), "iw": rng.randint(1, 10)}


# --- delayed-ACK and Nagle stalls (seed 000) ----------------------------------------------------------------


def build_stalls(seed: str, *, kind: str, rtt_ms: float, delayed_ack_ms: float, size_bytes: int) -> Variant:
    """Seed 000's stalls: a first window of one segment waiting for a delayed ACK (2.2), or the body's short
    segment held by Nagle behind a header sent on its own, whose ACK the client delays (2.3)."""
    d = delayed_ack_ms
    value = 3 * rtt_ms + d
    if kind == "delayed_ack":
        doc = textbook_scenario(
            "http10",
            rtt_ms,
            initial_window=1,
            html_bytes=size_bytes,
            tcp={"delayed_ack_ms": d, "delayed_ack_segments": 2},
            http={"response_header_bytes": 0},
        )
        got = model_ms(doc)
        segments = size_bytes // 1460
        question = (
            f"A client fetches one object of {size_bytes} bytes ({segments} full segments of 1460 bytes, no header) "
            f"over a new TCP connection; RTT = {fmt(rtt_ms)} ms. The server's slow start begins with one segment; "
            f"the client acknowledges every second full segment at once, a lone one after its delayed-ACK timer of "
            f"{fmt(d)} ms. How long (in ms) from the SYN until the client has the object?"
        )
        assumptions: tuple[str, ...] = (
            NEGLIGIBLE,
            IW_ONE,
            "Nagle's algorithm is off; the delayed-ACK timer runs from the segment's arrival (no 200 ms clock ticks).",
        )
        steps = (
            "2·RTT: the handshake, then the request and the first window, one segment.",
            f"The client holds its ACK of the lone segment for the delayed-ACK timer: {fmt(d)} ms (the stall).",
            "The ACK opens the window to two segments: the rest arrives one RTT after the ACK leaves.",
            f"T = 3·RTT + d = {fmt(value)} ms; the model: {fmt(got)} ms.",
        )
        citation = "Seed 000 (Heidemann 1996), 2.2: a first window of one segment meets the delayed ACK"
        protocol = "http10"
    else:
        doc = textbook_scenario(
            "persistent",
            rtt_ms,
            html_bytes=size_bytes,
            tcp={"delayed_ack_ms": d, "delayed_ack_segments": 2, "nagle": True},
            http={"response_header_bytes": 200, "header_flush": True},
        )
        got = model_ms(doc)
        question = (
            f"On a new persistent connection (RTT = {fmt(rtt_ms)} ms) the server writes a 200-byte response header "
            f"on its own, then the {size_bytes}-byte body. Nagle's algorithm is on at the server; the client acknowledges "
            f"a lone segment only after its delayed-ACK timer of {fmt(d)} ms. How long (in ms) from the SYN until "
            "the client has the response?"
        )
        assumptions = (
            NEGLIGIBLE,
            "The server's initial window (10 segments) is not what holds the body back; the delayed-ACK timer runs "
            "from the segment's arrival.",
        )
        steps = (
            "2·RTT: the handshake, then the request and the header segment, alone.",
            "Nagle's algorithm holds the short body while the header is unacknowledged; the client delays that "
            f"ACK: d = {fmt(d)} ms.",
            "The ACK reaches the server half an RTT later, the body the client half an RTT after that: one RTT.",
            f"T = 3·RTT + d = {fmt(value)} ms; the stall the model reports is RTT + d = {fmt(rtt_ms + d)} ms; "
            f"the model: {fmt(got)} ms.",
        )
        citation = "Seed 000 (Heidemann 1996), 2.3: Nagle's algorithm and the delayed ACK on a persistent connection"
        protocol = "persistent"
    return Variant(
        template="stalls",
        seed=seed,
        title="Delayed-ACK and Nagle stalls (seed 000)",
        question=question,
        assumptions=assumptions,
        given=(
            Given("RTT", "round-trip time", rtt_ms, "ms"),
            Given("d", "delayed-ACK timer", d, "ms"),
            Given("size", "response body", size_bytes, "bytes"),
        ),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula="T = 2·RTT + d + RTT",
        substituted=f"T = 2·{fmt(rtt_ms)} ms + {fmt(d)} ms + {fmt(rtt_ms)} ms = {fmt(value)} ms",
        formula_value=value,
        model_value=got,
        steps=steps,
        citation=citation,
        scenario=doc,
        protocol=protocol,
    )


def _draw_stalls(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(["delayed_ack", "nagle"])
    return {
        "kind": kind,
        "rtt_ms": float(rng.randrange(20, 201, 10)),
        "delayed_ack_ms": float(rng.choice([50, 100, 150, 200, 250])),
        "size_bytes": rng.choice([2, 3]) * 1460 if kind == "delayed_ack" else rng.randrange(200, 1201, 100),
    }


#: The answers of "which stall is this?", by code.
STALL_CHOICES: dict[int, str] = {1: "no stall", 2: "a delayed-ACK stall", 3: "a Nagle stall"}


def build_which_stall(seed: str, *, kind: str, rtt_ms: float, delayed_ack_ms: float, size_bytes: int) -> Variant:
    """Which stall is this? The setup in words and on the model's ladder (/explain); the answer is read from the
    model's own stall counts (3 for a Nagle stall, 2 for a delayed-ACK stall, 1 for none), the time from the
    textbook's form (``2 RTT`` without a stall, ``2 RTT + d + RTT`` with either)."""
    d = delayed_ack_ms
    if kind == "none":
        doc = textbook_scenario(
            "persistent",
            rtt_ms,
            html_bytes=size_bytes,
            tcp={"delayed_ack_ms": d, "delayed_ack_segments": 2, "nagle": True},
            http={"response_header_bytes": 200},
        )
        formula, value = "T = 2\u00b7RTT", 2 * rtt_ms
        substituted = f"T = 2\u00b7{fmt(rtt_ms)} ms = {fmt(value)} ms"
        how = "persistent connection", 10, "on", "writes the 200-byte header together with the body, in one write"
    else:
        timed = build_stalls(seed, kind=kind, rtt_ms=rtt_ms, delayed_ack_ms=d, size_bytes=size_bytes)
        doc, formula, value, substituted = timed.scenario, timed.formula, timed.formula_value, timed.substituted
        if kind == "delayed_ack":
            how = "HTTP/1.0 connection", 1, "off", "sends no header (the body alone)"
        else:
            how = "persistent connection", 10, "on", "writes the 200-byte header on its own, then the body"
    result = _result(doc)
    counts = result["counts"]
    code = 3 if counts["nagle_stalls"] else 2 if counts["delayed_ack_stalls"] else 1
    whys = [e["why"] for e in result["events"] if e["kind"] in ("nagle_stall", "delayed_ack_stall")]
    got = float(result["page_load_ms"])
    conn, iw, nagle, header = how
    return Variant(
        template="which_stall",
        seed=seed,
        title="Which stall is this?",
        question=(
            f"A client fetches a {size_bytes}-byte response over a new {conn}; RTT = {fmt(rtt_ms)} ms. The server's "
            f"initial window is {iw} segment(s) of 1460 bytes, Nagle's algorithm is {nagle} at the server, and the "
            f"server {header}. The client acknowledges every second full segment at once, a lone segment after its "
            f"delayed-ACK timer of {fmt(d)} ms. Open the model's ladder for this setup: which stall holds the "
            "response? Answer 1 for no stall, 2 for a delayed-ACK stall, 3 for a Nagle stall (the choice)."
        ),
        assumptions=(NEGLIGIBLE, "The delayed-ACK timer runs from the segment's arrival (no 200 ms clock ticks)."),
        given=(
            Given("RTT", "round-trip time", rtt_ms, "ms"),
            Given("d", "delayed-ACK timer", d, "ms"),
            Given("size", "response", size_bytes, "bytes"),
            Given("IW", "initial window", iw, "segments"),
        ),
        answer=float(code),
        unit="choice",
        tolerance=0.0,
        formula=formula,
        substituted=substituted,
        formula_value=value,
        model_value=got,
        steps=(
            f"The answer: {code}, {STALL_CHOICES[code]}.",
            *(f"The model's ladder says: {why}." for why in whys[:1]),
            *(() if whys else ("One segment carries the header and the body: nothing waits for an ACK.",)),
            f"The page takes {substituted.split(' = ', 1)[1]}; the model: {fmt(got)} ms.",
        ),
        citation="Seed 000 (Heidemann 1996), 2.2 and 2.3: the delayed ACK and Nagle's algorithm",
        scenario=doc,
        protocol=str(doc["protocols"][0]),
    )


def _draw_which_stall(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(["none", "delayed_ack", "nagle"])
    drawn = _draw_stalls(rng)
    drawn["kind"] = kind
    if kind == "delayed_ack":
        drawn["size_bytes"] = rng.choice([2, 3]) * 1460
    else:
        drawn["size_bytes"] = rng.randrange(200, 1201, 100)
    return drawn


# --- TLS and QUIC handshakes --------------------------------------------------------------------------------

HANDSHAKES: dict[str, tuple[str, str, dict[str, Any], int, str]] = {
    # name: (words, protocol, tls section, handshake round trips before the request, the handshake's formula)
    "tls12": (
        "HTTPS with a full TLS 1.2 handshake",
        "http10",
        {"version": "1.2", "resumption": "none"},
        3,
        "RTT_TCP + 2·RTT_TLS",
    ),
    "tls12_false_start": (
        "HTTPS with a full TLS 1.2 handshake and False Start (RFC 7918)",
        "http10",
        {"version": "1.2", "resumption": "none", "false_start": True},
        2,
        "RTT_TCP + RTT_TLS",
    ),
    "tls12_resumed": (
        "HTTPS resuming a TLS 1.2 session (a ticket from an earlier visit)",
        "http10",
        {"version": "1.2", "resumption": "all"},
        2,
        "RTT_TCP + RTT_TLS",
    ),
    "tls13": (
        "HTTPS with a full TLS 1.3 handshake",
        "http10",
        {"version": "1.3", "resumption": "none"},
        2,
        "RTT_TCP + RTT_TLS",
    ),
    "tls13_0rtt": (
        "HTTPS resuming TLS 1.3 with 0-RTT early data",
        "http10",
        {"version": "1.3", "resumption": "all", "early_data": True},
        1,
        "RTT_TCP + 0",
    ),
    "quic": ("HTTP/3 over QUIC, a first visit", "h3", {"resumption": "none"}, 1, "RTT_QUIC+TLS"),
    "quic_0rtt": ("HTTP/3 over QUIC resuming with 0-RTT", "h3", {"resumption": "all", "early_data": True}, 0, "0"),
}


def build_handshakes(seed: str, *, handshake: str, rtt_ms: float) -> Variant:
    words, protocol, tls, rounds, form = HANDSHAKES[handshake]
    total = rounds + 1
    value = total * rtt_ms
    doc = textbook_scenario(protocol, rtt_ms, tls={**tls, "server_flight_bytes": 3000})
    got = model_ms(doc)
    return Variant(
        template="handshakes",
        seed=seed,
        title="TLS and QUIC handshakes",
        question=(
            f"A client fetches one small page ({1000} bytes) over a new connection, RTT = {fmt(rtt_ms)} ms, using "
            f"{words}. How long (in ms) from the first packet until it has the page?"
        ),
        assumptions=(
            NEGLIGIBLE,
            BIG_WINDOW,
            NO_DELAYED_ACK,
            "The server's certificate flight is 3,000 bytes: within QUIC's limit of three times the client's first "
            "1,200-byte datagram (RFC 9000 8.1), so it costs no extra round trip.",
        ),
        given=(Given("RTT", "round-trip time", rtt_ms, "ms"),),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula=f"T = {form} + RTT_request",
        substituted=f"T = {rounds}·{fmt(rtt_ms)} ms + {fmt(rtt_ms)} ms = {fmt(value)} ms",
        formula_value=value,
        model_value=got,
        steps=(
            {
                "tls12": "TCP's handshake (1 RTT), then TLS 1.2's two round trips (hellos and certificate, then "
                "the key exchange and Finished messages).",
                "tls12_false_start": "TCP (1 RTT), then TLS 1.2's first round trip; with False Start the request "
                "leaves with the client's Finished, not waiting for the server's.",
                "tls12_resumed": "TCP (1 RTT), then an abbreviated TLS 1.2 handshake of one round trip.",
                "tls13": "TCP (1 RTT), then TLS 1.3's single round trip.",
                "tls13_0rtt": "TCP (1 RTT); the request rides with the ClientHello as early data: no TLS round trip.",
                "quic": "QUIC's handshake carries TLS 1.3 in its first round trip: one RTT in all.",
                "quic_0rtt": "QUIC resumes with 0-RTT: the request leaves with the first packet.",
            }[handshake],
            f"Before the request: {rounds} round trip(s); then one RTT for the request and the page.",
            f"T = {total}·RTT = {fmt(value)} ms; the model: {fmt(got)} ms.",
        ),
        citation="RFC 5246 (TLS 1.2), RFC 7918 (False Start), RFC 8446 (TLS 1.3), RFC 9000/9001 (QUIC); "
        "Kurose & Ross, Computer Networking, 8th ed., sections 3.8 and 8.6",
        scenario=doc,
        protocol=protocol,
    )


def _draw_handshakes(rng: random.Random) -> dict[str, Any]:
    return {"handshake": rng.choice(list(HANDSHAKES)), "rtt_ms": float(rng.randrange(20, 201, 10))}


# --- the cost of loss ---------------------------------------------------------------------------------------


def build_loss(seed: str, *, rtt_ms: float, loss_rate: float) -> Variant:
    p = loss_rate
    q = 1 - (1 - p) ** 2
    handshake = SYN_TIMEOUT_MS * q / (1 - 2 * q)
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    timeout = INITIAL_RTO_MS * f / (1 - p)
    data = 2 * p * timeout
    value = 2 * rtt_ms + handshake + data
    doc = textbook_scenario("http10", rtt_ms, network={"loss_rate": p})
    result = _result(doc)
    got = float(result["expected_with_loss"]["page_load_ms"])
    return Variant(
        template="loss",
        seed=seed,
        title="The cost of loss",
        question=(
            f"A client fetches one small page (one segment each way) over a new TCP connection, RTT = "
            f"{fmt(rtt_ms)} ms. Every packet is lost independently with probability p = {fmt(p)}. A lost SYN or "
            f"SYN-ACK is resent after T_s = 1 s, doubling on repeats; a lost request or response segment waits for "
            f"the retransmission timeout T_0 = 1 s, backing off. What is the expected time (in ms) to fetch the page?"
        ),
        assumptions=(
            NEGLIGIBLE,
            NO_DELAYED_ACK,
            "Losses are independent; the model adds their expected cost to the lossless schedule (its "
            "expected_with_loss), and with one segment each way no loss can be repaired by a fast retransmit.",
        ),
        given=(
            Given("RTT", "round-trip time", rtt_ms, "ms"),
            Given("p", "loss rate", p, ""),
            Given("T_s", "SYN timeout", SYN_TIMEOUT_MS, "ms"),
            Given("T_0", "retransmission timeout", INITIAL_RTO_MS, "ms"),
        ),
        answer=got,
        unit="ms",
        tolerance=_tolerance(got),
        formula="E[T] = 2·RTT + T_s·q/(1 \u2212 2q) + 2·p·T_0·f(p)/(1 \u2212 p),  q = 1 \u2212 (1 \u2212 p)², "
        "f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶",
        substituted=(
            f"E[T] = 2·{fmt(rtt_ms)} + 1000·{q:.5f}/(1 \u2212 2·{q:.5f}) + 2·{fmt(p)}·1000·{f:.5f}/(1 \u2212 {fmt(p)}) "
            f"= {fmt(2 * rtt_ms)} + {fmt(handshake)} + {fmt(data)} = {fmt(value)} ms"
        ),
        formula_value=value,
        model_value=got,
        steps=(
            f"Without loss: 2·RTT = {fmt(2 * rtt_ms)} ms.",
            f"The handshake fails when its SYN or SYN-ACK is lost: q = 1 \u2212 (1 \u2212 p)² = {q:.5f}; the expected wait "
            f"T_s·q/(1 \u2212 2q) = {fmt(handshake)} ms (Cardwell et al. 2000, 3.1).",
            f"Each of the two data segments is lost with probability p and then waits a timeout with backoff, "
            f"T_0·f(p)/(1 \u2212 p) = {fmt(timeout)} ms (Padhye et al. 1998, eq. 27): 2·p·{fmt(timeout)} = "
            f"{fmt(data)} ms.",
            f"E[T] = {fmt(value)} ms; the model's expected time: {fmt(got)} ms.",
        ),
        citation="Cardwell, Savage & Anderson, Modeling TCP latency (2000), 3.1; Padhye, Firoiu, Towsley & Kurose, "
        "Modeling TCP throughput (1998), eq. (27)",
        scenario=doc,
    )


def _draw_loss(rng: random.Random) -> dict[str, Any]:
    return {
        "rtt_ms": float(rng.randrange(20, 201, 10)),
        "loss_rate": rng.choice([0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1]),
    }


# --- the register -------------------------------------------------------------------------------------------


def _tolerance(value: float) -> float:
    """The stated tolerance of a time in ms: 1 % of it, at least 1 ms, rounded to 0.1 ms."""
    return round(max(1.0, 0.01 * abs(value)), 1)


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template(
            "http_rounds",
            "HTTP/1.0 vs persistent vs pipelined",
            "Round trips of a page of small objects under each HTTP/1.x mode.",
            _draw_http_rounds,
            build_http_rounds,
        ),
        Template(
            "parallel",
            "Parallel connections",
            "Non-persistent HTTP with m connections at once.",
            _draw_parallel,
            build_parallel,
        ),
        Template(
            "dns_http",
            "DNS plus HTTP delays",
            "Kurose & Ross's P7/P8: a DNS lookup, then the page.",
            _draw_dns_http,
            build_dns_http,
        ),
        Template(
            "slow_start",
            "Slow-start latency",
            "Kurose & Ross's formula for one object under slow start.",
            _draw_slow_start,
            build_slow_start,
        ),
        Template("stalls", "Delayed-ACK and Nagle stalls", "Seed 000's stalls, timed.", _draw_stalls, build_stalls),
        Template(
            "which_stall",
            "Which stall is this?",
            "A setup and its ladder: no stall, a delayed-ACK stall or a Nagle stall.",
            _draw_which_stall,
            build_which_stall,
        ),
        Template(
            "handshakes",
            "TLS and QUIC handshakes",
            "Round trips before the first byte, full and resumed.",
            _draw_handshakes,
            build_handshakes,
        ),
        Template(
            "loss", "The cost of loss", "Expected time of a short transfer with random loss.", _draw_loss, build_loss
        ),
        Template(
            "initial_window",
            "What initial window gives this time?",
            "Slow start read backwards: the window from the time.",
            _draw_initial_window,
            build_initial_window,
        ),
    )
}


def check_template(name: str) -> Template:
    if name not in TEMPLATES:
        raise ExerciseError("template", f"unknown template {name!r}; allowed: {', '.join(TEMPLATES)}")
    return TEMPLATES[name]


def variant(template: str, seed: str | int) -> Variant:
    """The variant of ``template`` a seed draws (the same seed gives the same numbers everywhere); kept per process
    (:func:`_drawn`: a set's page, worksheet and exports ask for the same variants). Treat it as read-only."""
    return _drawn(check_template(template).name, check_seed(str(seed)))


@functools.lru_cache(maxsize=4096)
def _drawn(template: str, seed: str) -> Variant:
    t = TEMPLATES[template]
    return t.build(seed, **t.draw(rng_for(template, seed)))


def check(v: Variant, answer: float) -> Verdict:
    """An answer (in ``v.unit``) checked against the variant: correct within its stated tolerance."""
    if not math.isfinite(answer):
        raise ExerciseError("answer", "must be a finite number")
    if v.tolerance == 0:
        ok = answer == v.answer
    else:
        ok = abs(answer - v.answer) <= v.tolerance + 1e-9
    return Verdict(ok, answer, v.answer, v.tolerance, v.unit)


def parse_seeds(text: str) -> list[str]:
    """A seed list as written in an address: ``1-30`` (a numeric range, at most ``MAX_SEED_RANGE``) or
    ``ann,bob,42`` (names), or both mixed."""
    seeds: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        m = re.fullmatch(r"(\d{1,6})-(\d{1,6})", part)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo or hi - lo + 1 > MAX_SEED_RANGE:
                raise ExerciseError("seeds", f"a range lo-hi needs lo <= hi and at most {MAX_SEED_RANGE} seeds")
            seeds.extend(str(i) for i in range(lo, hi + 1))
        else:
            seeds.append(check_seed(part))
    if not seeds:
        raise ExerciseError("seeds", "give at least one seed: a range such as 1-30 or names such as ann,bob")
    return list(dict.fromkeys(seeds))


def parse_templates(text: str) -> list[str]:
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise ExerciseError("templates", f"give at least one of: {', '.join(TEMPLATES)}")
    for name in names:
        check_template(name)
    return list(dict.fromkeys(names))


def problem_set_size_check(templates: int, seeds: int) -> None:
    """:class:`ExerciseError` for a set over :data:`MAX_SET_VARIANTS` problems."""
    if templates * seeds > MAX_SET_VARIANTS:
        raise ExerciseError(
            "seeds",
            f"a set holds at most {MAX_SET_VARIANTS} problems (templates x seeds); asked for {templates * seeds}",
        )


def problem_set(templates: Iterable[str], seeds: Iterable[str]) -> list[Variant]:
    """Every template's variant for every seed, seed by seed (a student's problems together)."""
    names, keys = list(templates), list(seeds)
    problem_set_size_check(len(names), len(keys))
    return [variant(t, s) for s in keys for t in names]
