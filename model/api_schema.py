"""The JSON API's documents as pydantic models: what a request sends and what a response holds.

Requests are the model's own schema (:class:`~model.scenario.schema.Scenario`, :class:`~model.analysis.sweep.SweepRequest`);
this module describes the answers (:func:`model.analysis.predict`'s output document, a sweep's series, the
presets, a formula) and the error document (RFC 9457 problem details). The OpenAPI document of the
web app is generated from these models, and the tests check real answers against them.

Answers may gain fields as the model grows (a new count, a new breakdown part): the models allow
fields they do not name, so a client should ignore fields it does not know.

Pure: pydantic and the model only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from model.analysis.critical_path import CATEGORIES
from model.analysis.expected_loss import CAUSES
from model.analysis.result import COUNT_NAMES, PAGE_COUNT_NAMES
from model.analysis.sweep import Value
from model.scenario.schema import Protocol, Scenario

COUNT_DESCRIPTIONS: dict[str, str] = {
    "round_trips": "Round trips on the critical path (the coefficient of RTT in the formula).",
    "slow_start_rounds": "Times a sender's window was full and it waited for an ACK.",
    "delayed_ack_stalls": "Stalls waiting for a delayed-ACK timer.",
    "nagle_stalls": "Stalls of a short segment held by Nagle's algorithm.",
    "slow_start_restarts": "Times a window went back to slow start after an idle period.",
    "connections": "TCP connections opened.",
    "tls_handshakes": "TLS handshakes (full or resumed), one per new connection with TLS.",
    "tls_bytes": "TLS handshake bytes written, both ways (payload, without per-packet overhead).",
    "dns_lookups": "DNS lookups before a connection (dns.lookup resolver: the session's first).",
    "packets": "Packets sent, both ways.",
    "bytes_on_wire": "Bytes on the wire, both ways, with per-packet overhead.",
}


class _Open(BaseModel):
    """A part of an answer: the fields named are always there; fields added later are allowed."""

    model_config = ConfigDict(extra="allow")


BREAKDOWN_DOC = "Where the page load time went along the critical path (ms); the parts add up to page_load_ms."

if TYPE_CHECKING:

    class Breakdown(_Open):
        """The breakdown: one number (ms) per part of model.analysis.critical_path.CATEGORIES."""

else:
    Breakdown = create_model(
        "Breakdown", __base__=_Open, __doc__=BREAKDOWN_DOC, **{c: (float, ...) for c in CATEGORIES}
    )


class ObjectTiming(_Open):
    """One object of the page: its connection and when it started and ended (ms)."""

    name: str
    bytes: int
    connection: int
    start_ms: float
    end_ms: float


class Event(_Open):
    """An idle period or stall, with the reason it happened."""

    kind: str = Field(description="slow_start_idle, delayed_ack_stall, nagle_stall, ...")
    start_ms: float
    duration_ms: float
    connection: int
    object: str | None
    why: str = Field(description="A sentence saying why it happened.")


class Packet(_Open):
    """One packet of the schedule (with packets=true)."""

    n: int
    direction: Literal["up", "down"]
    connection: int
    kind: str = Field(description="SYN, SYNACK, ACK, DATA, FIN, ...")
    bytes: int
    wire_bytes: int
    fin: bool
    object: str | None
    queued_ms: float
    sent_ms: float
    arrival_ms: float
    ack_held_ms: float
    leg: str | None = Field(
        None, description="Split proxies only: the leg the packet crossed (long_haul, client or server)."
    )


LOSS_CAUSE_DOC = {
    "handshake": "Lost SYNs or SYN-ACKs waiting the 1 s SYN timeout (Cardwell et al. 2000, 3.1).",
    "timeouts": "Losses repaired by a retransmission timeout with backoff (TCP, Padhye et al. 1998) or, "
    "for QUIC, a tail packet's probe timeout (RFC 9002 6.2).",
    "fast_retransmit": "Losses repaired after about one RTT: TCP's fast retransmit, QUIC's detection by a "
    "later acknowledgement (RFC 9002 6.1).",
    "slower_sending": "The slower sending after a loss: the rest of the connection's data sent from a halved "
    "window (after a timeout from one segment, slow start to half the old window), in more rounds "
    "(Cardwell et al. 2000, 3.4; RFC 5681 3.1-3.2; RFC 9002 7.3.2).",
}

if TYPE_CHECKING:

    class LossCauses(_Open):
        """The expected extra time by cause (ms)."""

else:
    LossCauses = create_model(
        "LossCauses",
        __base__=_Open,
        __doc__="The expected extra time by cause (ms); the parts add up to extra_ms.",
        **{c: (float, Field(..., description=LOSS_CAUSE_DOC[c])) for c in CAUSES},
    )


class ExpectedWithLoss(_Open):
    """Random loss at network.loss_rate: an expected value in closed form, beside the lossless schedule
    (model.analysis.expected_loss). With loss_rate 0 every figure is 0 and page_load_ms equals the result's."""

    loss_rate: float = Field(description="network.loss_rate: probability each packet is lost (per packet).")
    page_load_ms: float = Field(description="Expected page load time (ms): the deterministic one plus extra_ms.")
    extra_ms: float = Field(description="Expected extra time the losses add to the page load (ms).")
    by_cause_ms: LossCauses
    head_of_line_ms: float = Field(
        description="h2 and h3: expected time other streams in flight wait behind a loss, summed over them (ms); "
        "0 for h3's independent streams and for one stream per connection. Not part of extra_ms."
    )
    connections: list[int] = Field(description="The connections on the page's path whose losses are counted.")
    segments: int = Field(description="Data segments (or QUIC packets) on those connections whose loss is counted.")
    assumptions: str = Field(description="What the expected value assumes, in words.")


class PageResult(_Open):
    """One page load of a session (session.pages > 1)."""

    page: int = Field(description="1 for the first page load.")
    start_ms: float
    end_ms: float
    page_load_ms: float = Field(description="This page's load time (ms), from its start to its last byte.")
    breakdown_ms: Breakdown
    counts: dict[str, int] = Field(description="This page's " + ", ".join(PAGE_COUNT_NAMES) + ".")


class ProtocolResult(_Open):
    """One protocol's prediction; for a session, page_load_ms and breakdown_ms add up its pages."""

    protocol: Protocol
    page_load_ms: float = Field(description="Page load time (ms).")
    breakdown_ms: Breakdown
    counts: dict[str, int] = Field(
        description="Counts: " + "; ".join(f"{k}: {COUNT_DESCRIPTIONS.get(k, '')}" for k in COUNT_NAMES)
    )
    objects: list[ObjectTiming]
    events: list[Event]
    packets: list[Packet] | None = Field(None, description="The packet schedule, only with packets=true.")
    pages: list[PageResult] | None = Field(None, description="Each page load, only when session.pages > 1.")
    expected_with_loss: ExpectedWithLoss = Field(
        description="The expected cost of random loss (network.loss_rate) in closed form; page_load_ms above "
        "stays the lossless schedule's."
    )
    formula: Formula | None = Field(
        None, description="The page load time and its breakdown as formulas, only with formulas=true."
    )


class PredictOutput(_Open):
    """The output document: the scenario as computed (every default filled in) and one result per protocol."""

    scenario: Scenario
    results: list[ProtocolResult]
    glossary: dict[str, GlossaryEntry] | None = Field(
        None, description="The symbols the formulas use, only with formulas=true."
    )


class SweepSeries(_Open):
    """One protocol's series: each list is in the order of the sweep's values."""

    protocol: Protocol
    page_load_ms: list[float]
    counts: dict[str, list[int]] = Field(description="Each count (see ProtocolResult.counts) at each value.")


class SweepOutput(_Open):
    """A sweep's answer."""

    field: str = Field(description="The field swept (dotted path).")
    values: list[Value] = Field(description="The values, in order (generated integer values rounded, no repeats).")
    protocols: list[Protocol]
    scenario: Scenario = Field(description="The base scenario as computed.")
    series: list[SweepSeries]


class PresetSummary(_Open):
    """A preset: one of the seed papers' setups."""

    name: str
    title: str
    citation: str
    assumptions: str = Field(description="What the preset assumed where its seed is silent.")
    fitted: dict[str, str] = Field(description="Values chosen to match a published figure, with why.")
    url: str = Field(description="This preset's own address in the API.")


class PresetList(_Open):
    """Every preset."""

    presets: list[PresetSummary]


class PresetDetail(PresetSummary):
    """A preset with its scenario document (as written) and the scenario as computed."""

    document: dict[str, Any] = Field(description="The preset's scenario document, as written.")
    scenario: Scenario = Field(description="The scenario as computed from the document (defaults filled in).")


class FormulaText(_Open):
    """An expression for people."""

    text: str
    latex: str
    mathml: str | None = Field(None, description="Presentation MathML (for the page load time).")
    latex_numbers: str = Field(description="The LaTeX with the scenario's numbers in place of the symbols.")
    symbols: list[str]


class Formula(_Open):
    """A page load time and its breakdown as formulas."""

    page_load_ms: FormulaText
    breakdown_ms: dict[str, FormulaText]


class GlossaryEntry(_Open):
    """A symbol of the formulas."""

    meaning: str
    unit: str
    field: str | None = Field(description="The scenario field it stands for.")


class FormulaOutput(_Open):
    """A protocol's page load time as a formula: exact for this scenario and any other whose critical path has
    the same shape."""

    protocol: Protocol
    page_load_ms: float
    formula: Formula
    glossary: dict[str, GlossaryEntry] = Field(description="The symbols the formula uses.")
    scenario: Scenario


class ProblemItem(BaseModel):
    """One problem of a request: where, what is wrong and what is allowed there."""

    path: str = Field(
        description="Where in the request: a dotted path into the JSON body (network.rtt_ms, "
        "page.object_bytes[2], scenario.tcp.mss_bytes, values[3]), or a query parameter's name; '' for the whole."
    )
    message: str
    allowed: str | None = Field(None, description="What the field allows, in words, with its range and unit.")
    value: Any = Field(None, description="The value given, when it is JSON.")
    type: str = Field(description="The kind of error: greater_than_equal, extra_forbidden, limit_exceeded, ...")
    suggestion: str | None = Field(None, description="For an unknown field: the closest known one.")
    text: str = Field(description="The problem in one line, as the command line prints it.")


class LimitInfo(BaseModel):
    """A documented limit the request went past."""

    name: str = Field(description="The limit's name as the API documentation lists it.")
    maximum: int
    actual: int


class ProblemDetails(BaseModel):
    """An error (RFC 9457 problem details, media type application/problem+json)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A URI reference naming the kind of problem; it resolves to its documentation.")
    title: str
    status: int
    detail: str
    instance: str = Field(description="The request's path.")
    errors: list[ProblemItem] = Field(default_factory=list, description="Each problem, with its path.")
    limit: LimitInfo | None = Field(None, description="The limit exceeded, for type limit-exceeded.")
