"""The JSON API's documents as pydantic models: what a request sends and what a response holds.

Requests are the model's own schema (:class:`~latency_lab.scenario.schema.Scenario`, :class:`~latency_lab.analysis.sweep.SweepRequest`);
this module describes the answers (:func:`latency_lab.analysis.predict`'s output document, a sweep's series, the
presets, a formula) and the error document (RFC 9457 problem details). The OpenAPI document of the
web app is generated from these models, and the tests check real answers against them.

The models of the answers built as dictionaries are not written here but made from their types (the typed
dictionaries ``predict`` returns, :mod:`latency_lab.analysis.result`; a sweep's, :class:`~latency_lab.analysis.sweep.SweepResult`;
a formula's, :class:`FormulaAnswer`), so each shape has one definition: :func:`response_model` takes each
key, its type and whether it may be missing from the type, the words from :data:`DESCRIPTIONS` (one table, keyed
``Type`` and ``Type.key``), the API's name from :data:`API_NAMES`, and from :data:`REFINED` the few places where
the API says more than the type can (a protocol's name is one of the protocols, a breakdown has one number per
part). A key the type may leave out is documented as optional (``null`` when absent, as pydantic writes it).

Answers may gain fields as the model grows (a new count, a new breakdown part): the models allow
fields they do not name, so a client should ignore fields it does not know.

Pure: pydantic and the model only.
"""

from __future__ import annotations

import functools
import operator
import re
from types import GenericAlias, NoneType, UnionType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NotRequired,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from pydantic import BaseModel, ConfigDict, Field, create_model

from latency_lab.analysis import result as R
from latency_lab.analysis.critical_path import CATEGORIES
from latency_lab.analysis.expected_loss import CAUSES
from latency_lab.analysis.result import COUNT_NAMES, PAGE_COUNT_NAMES
from latency_lab.analysis.sweep import SweepResult
from latency_lab.scenario.limits import MAX_LISTED
from latency_lab.scenario.schema import Protocol, Scenario
from latency_lab.studies import exercises as EX

COUNT_DESCRIPTIONS: dict[str, str] = {
    "round_trips": "Round trips on the critical path (the coefficient of RTT in the formula).",
    "slow_start_rounds": "Stalls on the critical path (path_stalls) in which a window was full and the sender waited "
    "for an ACK.",
    "delayed_ack_stalls": "Stalls on the critical path (path_stalls) waiting for a delayed-ACK timer.",
    "nagle_stalls": "Stalls on the critical path (path_stalls) of a short segment held by Nagle's algorithm.",
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

#: Each breakdown part in words (the OpenAPI document's field descriptions).
BREAKDOWN_DESCRIPTIONS: dict[str, str] = {
    "dns": "DNS lookups on the path.",
    "connection_setup": "TCP or QUIC handshakes (SYN, SYN-ACK and their ACK; FIN, RST), their flight and their bits.",
    "tls_setup": "TLS handshake flights on the path.",
    "request": "Requests and ACKs on their way to the server: their serialization and their flight.",
    "server": "The server's think time and the hosts' per-connection overhead.",
    "propagation": "The travel time (one-way delay) of the data and ACKs on their way to the client, apart from "
    "stalls: the round trips' share, independent of the bandwidth.",
    "serialization": "Putting the bytes toward the client on the link at its bandwidth (8 bits a byte over the "
    "rate), including waiting behind the segments ahead on a busy link.",
    "slow_start_idle": "Waiting for an ACK with the congestion (or receive) window full: the round trip from the "
    "segment that prompted the ACK to the ACK's arrival.",
    "delayed_ack_stall": "Waiting for an ACK the receiver held for its delayed-ACK timer.",
    "nagle_stall": "Waiting for an ACK while Nagle's algorithm held a short segment back.",
}

if TYPE_CHECKING:

    class Breakdown(_Open):
        """The breakdown: one number (ms) per part of latency_lab.analysis.critical_path.CATEGORIES."""

else:
    Breakdown = create_model(
        "Breakdown",
        __base__=_Open,
        __doc__=BREAKDOWN_DOC,
        **{c: (float, Field(..., description=BREAKDOWN_DESCRIPTIONS[c])) for c in CATEGORIES},
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


# --- the output document's models, made from its types ------------------------------------------------


class FormulaAnswer(TypedDict):
    """The answer of ``/api/v1/formulas/{protocol}``: one protocol's formula, cut from ``predict``'s output."""

    protocol: str
    page_load_ms: float
    formula: R.Formula
    glossary: dict[str, R.GlossaryEntry]
    scenario: dict[str, Any]


#: The API's name of a type, where it is not the type's own (the OpenAPI document's schemas keep their names).
API_NAMES: dict[str, str] = {
    "Prediction": "PredictOutput",
    "PacketRow": "Packet",
    "FormulaAnswer": "FormulaOutput",
    "SweepResult": "SweepOutput",
}

#: Where the API says more than the type: ``Type.key`` -> the type the API documents. Each must refine the
#: type's own (a string to a choice of strings, a dictionary to a model of its keys), which
#: :func:`response_model` checks.
REFINED: dict[str, Any] = {
    "Prediction.scenario": Scenario,
    "ProtocolResult.protocol": Protocol,
    "ProtocolResult.breakdown_ms": Breakdown,
    "PageResult.breakdown_ms": Breakdown,
    "ExpectedWithLoss.by_cause_ms": LossCauses,
    "FormulaAnswer.protocol": Protocol,
    "FormulaAnswer.scenario": Scenario,
    "SweepResult.scenario": Scenario,
}

#: The words of the output document's models: ``Type`` (every type: the model's description) and ``Type.key``
#: (a field's, where it needs one). A key that names no field of its type is an error at import.
DESCRIPTIONS: dict[str, str] = {
    "Prediction": "The output document: the scenario as computed (every default filled in) and one result per "
    "protocol.",
    "Prediction.glossary": "The symbols the formulas use, only with formulas=true.",
    "ProtocolResult": "One protocol's prediction; for a session, page_load_ms and breakdown_ms add up its pages.",
    "ProtocolResult.page_load_ms": "Page load time (ms).",
    "ProtocolResult.counts": "Counts: " + "; ".join(f"{k}: {COUNT_DESCRIPTIONS.get(k, '')}" for k in COUNT_NAMES),
    "ProtocolResult.expected_with_loss": "The expected cost of random loss (network.loss_rate) in closed form; "
    "page_load_ms above stays the lossless schedule's.",
    "ProtocolResult.pages": "Each page load, only when session.pages > 1.",
    "ProtocolResult.packets": "The packet schedule, only with packets=true.",
    "ProtocolResult.formula": "The page load time and its breakdown as formulas, only with formulas=true.",
    "ObjectTiming": "One object of the page: its connection and when it started and ended (ms).",
    "ProtocolResult.path_stalls": "The stalls on the critical path, in time order, read off the same walk as "
    "breakdown_ms: their parts_ms add up to its slow_start_idle, delayed_ack_stall and nagle_stall, and the stall "
    "counts count them. This is the account of the waits; events are the engine's raw idle periods. At most "
    f"{MAX_LISTED} are listed (max_listed), the first in time order; path_stalls_total says how many there are, and "
    "breakdown_ms and the counts are read off all of them.",
    "ProtocolResult.path_stalls_total": "How many stalls there are on the critical path in all (a count); "
    f"path_stalls lists the first {MAX_LISTED} of them (max_listed) when there are more.",
    "ProtocolResult.events": "The engine's raw idle periods on every connection, on or off the critical path, each "
    "with its reason: measured as a sender's idle time, so their totals are not the breakdown's (see path_stalls). "
    f"At most {MAX_LISTED} are listed (max_listed), the first in time order; events_total says how many there are.",
    "ProtocolResult.events_total": "How many idle periods the engine recorded in all (a count); events lists the "
    f"first {MAX_LISTED} of them (max_listed) when there are more.",
    "StallOnPath": "A stall on the critical path: a run of waits that delayed the last byte.",
    "StallOnPath.page": "1 for the first page load.",
    "StallOnPath.kind": "The part most of it is: slow_start_idle, delayed_ack_stall or nagle_stall.",
    "StallOnPath.start_ms": "When it began (ms).",
    "StallOnPath.duration_ms": "How long the last byte waited for it (ms): the sum of parts_ms.",
    "StallOnPath.connection": "The connection it happened on.",
    "StallOnPath.parts_ms": "Its duration by breakdown part (ms).",
    "StallOnPath.segments": "Its parts as they ran, in time order: [part, start_ms, ms].",
    "Event": "An idle period the engine recorded (raw, on or off the critical path), with the reason it happened.",
    "Event.kind": "slow_start_idle, delayed_ack_stall, nagle_stall, ...",
    "Event.why": "A sentence saying why it happened.",
    "PacketRow": "One packet of the schedule (with packets=true).",
    "PacketRow.kind": "SYN, SYNACK, ACK, DATA, FIN, ...",
    "PacketRow.leg": "Split proxies only: the leg the packet crossed (long_haul, client or server).",
    "ExpectedWithLoss": "Random loss at network.loss_rate: an expected value in closed form, beside the lossless "
    "schedule (latency_lab.analysis.expected_loss). With loss_rate 0 every figure is 0 and page_load_ms equals the "
    "result's.",
    "ExpectedWithLoss.loss_rate": "network.loss_rate: probability each packet is lost (per packet).",
    "ExpectedWithLoss.page_load_ms": "Expected page load time (ms): the deterministic one plus extra_ms.",
    "ExpectedWithLoss.extra_ms": "Expected extra time the losses add to the page load (ms).",
    "ExpectedWithLoss.head_of_line_ms": "h2 and h3: expected time other streams in flight wait behind a loss, "
    "summed over them (ms); 0 for h3's independent streams and for one stream per connection. Not part of extra_ms.",
    "ExpectedWithLoss.connections": "The connections on the page's path whose losses are counted.",
    "ExpectedWithLoss.segments": "Data segments (or QUIC packets) on those connections whose loss is counted.",
    "ExpectedWithLoss.assumptions": "What the expected value assumes, in words.",
    "PageResult": "One page load of a session (session.pages > 1).",
    "PageResult.page": "1 for the first page load.",
    "PageResult.page_load_ms": "This page's load time (ms), from its start to its last byte.",
    "PageResult.counts": "This page's " + ", ".join(PAGE_COUNT_NAMES) + ".",
    "FormulaText": "An expression for people.",
    "FormulaText.mathml": "Presentation MathML (for the page load time).",
    "FormulaText.latex_numbers": "The LaTeX with the scenario's numbers in place of the symbols.",
    "Formula": "A page load time and its breakdown as formulas.",
    "GlossaryEntry": "A symbol of the formulas.",
    "GlossaryEntry.field": "The scenario field it stands for.",
    "FormulaAnswer": "A protocol's page load time as a formula: exact for this scenario and any other whose "
    "critical path has the same shape.",
    "FormulaAnswer.glossary": "The symbols the formula uses.",
    "SweepResult": "A sweep's answer.",
    "SweepResult.field": "The field swept (dotted path).",
    "SweepResult.values": "The values, in order (generated integer values rounded, no repeats).",
    "SweepResult.scenario": "The base scenario as computed.",
    "SweepSeries": "One protocol's series: each list is in the order of the sweep's values.",
    "SweepSeries.expected_with_loss_ms": "Expected page load time (ms) with random loss at each value's "
    "network.loss_rate (latency_lab.analysis.expected_loss, in closed form); equal to page_load_ms where the loss rate is 0.",
    "SweepSeries.counts": "Each count (see ProtocolResult.counts) at each value.",
}


def _refines(specific: Any, general: Any) -> bool:
    """Whether ``specific`` (an API type) says no less than ``general`` (a type's): a choice of strings for a
    string, a model for a dictionary (whose fields are all of its value type, unless that is ``Any``)."""
    if general is str:
        return get_origin(specific) is Literal and all(isinstance(a, str) for a in get_args(specific))
    if get_origin(general) is dict and isinstance(specific, type) and issubclass(specific, BaseModel):
        value = get_args(general)[1]
        return value is Any or all(f.annotation is value for f in specific.model_fields.values())
    return False


def _api_type(hint: Any, made: dict[str, type[BaseModel]]) -> Any:
    """A type's annotation with each typed dictionary in it replaced by its model."""
    if is_typeddict(hint):
        return response_model(hint, made)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (list, dict):
        return GenericAlias(origin, tuple(_api_type(a, made) for a in args))
    if origin in (Union, UnionType):
        return functools.reduce(operator.or_, (_api_type(a, made) for a in args))
    return hint


def response_model(td: Any, made: dict[str, type[BaseModel]]) -> type[BaseModel]:
    """The response model of a typed dictionary ``td`` (and, in ``made``, of each one it holds), by its type's name.

    Each key of ``td``, in its order, is a field of its type (a typed dictionary in it: that one's model), or the
    type :data:`REFINED` gives; a key ``td`` marks ``NotRequired`` is optional (``None`` when absent). The
    descriptions are :data:`DESCRIPTIONS`'; the model allows keys it does not name.
    """
    name: str = td.__name__
    if name in made:
        return made[name]
    fields: dict[str, Any] = {}
    # NotRequired read from the hints too: a type written under ``from __future__ import annotations`` has it
    # only there (its __optional_keys__ miss it on Python 3.11)
    marked = get_type_hints(td, include_extras=True)
    optional = {key for key, hint in marked.items() if get_origin(hint) is NotRequired} | td.__optional_keys__
    for key, hint in get_type_hints(td).items():
        where = f"{name}.{key}"
        kind = REFINED.get(where)
        if kind is None:
            kind = _api_type(hint, made)
        elif not _refines(kind, hint):
            raise TypeError(f"REFINED[{where!r}] = {kind!r} does not refine the type's {hint!r}")
        words = DESCRIPTIONS.get(where)
        if key in optional:
            fields[key] = (kind | NoneType, Field(None, description=words))
        else:
            fields[key] = (kind, Field(description=words))
    made[name] = create_model(API_NAMES.get(name, name), __base__=_Open, __doc__=DESCRIPTIONS[name], **fields)
    return made[name]


def _made() -> dict[str, type[BaseModel]]:
    """Every response model made from a type, by the type's name; a description naming nothing is an error."""
    made: dict[str, type[BaseModel]] = {}
    for td in (R.Prediction, FormulaAnswer, SweepResult):
        response_model(td, made)
    known = set(made) | {f"{name}.{key}" for name, model in made.items() for key in model.model_fields}
    stale = sorted(set(DESCRIPTIONS) - known)
    if stale:
        raise KeyError(f"DESCRIPTIONS names no field: {', '.join(stale)}")
    return made


#: The output document's response models, by the name of the type each is made from.
MODELS: dict[str, type[BaseModel]] = _made()
PredictOutput = MODELS["Prediction"]
ProtocolResult = MODELS["ProtocolResult"]
ObjectTiming = MODELS["ObjectTiming"]
Event = MODELS["Event"]
StallOnPath = MODELS["StallOnPath"]
Packet = MODELS["PacketRow"]
ExpectedWithLoss = MODELS["ExpectedWithLoss"]
PageResult = MODELS["PageResult"]
FormulaText = MODELS["FormulaText"]
Formula = MODELS["Formula"]
GlossaryEntry = MODELS["GlossaryEntry"]
FormulaOutput = MODELS["FormulaAnswer"]
SweepSeries = MODELS["SweepSeries"]
SweepOutput = MODELS["SweepResult"]


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


# --- exercises (/api/v1/exercises..., latency_lab.studies.exercises) ----------------------------------------------------

_TEMPLATE_NAMES = "|".join(re.escape(name) for name in EX.TEMPLATES)
#: The exercise API's query parameters as the OpenAPI document gives them: the app checks a request against these very
#: patterns (latency_lab_web/exercises/views.py), so what the document allows and what the API accepts are one rule.
EXERCISE_PARAMS: dict[str, dict[str, Any]] = {
    "seed": {
        "description": "The seed that draws the problem's numbers (a student id or a number; the same seed gives the "
        "same numbers everywhere). Default 1.",
        "schema": {"type": "string", "pattern": EX.SEED_PATTERN.pattern, "default": "1"},
    },
    "answer": {
        "description": "An answer to check, in the problem's unit (a number as JSON writes it); the answer is "
        "checked against the stated tolerance (the check field).",
        "schema": {"type": "string", "pattern": r"^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,17})?([eE][-+]?[0-9]{1,3})?$"},
    },
    "templates": {
        "description": "The set's templates, comma-separated.",
        "schema": {"type": "string", "pattern": f"^({_TEMPLATE_NAMES})(,({_TEMPLATE_NAMES}))*$"},
    },
    "seeds": {
        "description": "The set's seeds, comma-separated: names, or numeric ranges lo-hi (at most "
        f"{EX.MAX_SEED_RANGE} seeds a range); at most {EX.MAX_SET_VARIANTS} problems (templates x seeds) in all.",
        "schema": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]{1,40}(,[A-Za-z0-9_.-]{1,40})*$"},
    },
    "lock": {
        "description": "A locked set's lock (the teacher's passphrase made it): answers stay hidden without the key.",
        "schema": {"type": "string", "pattern": "^[0-9a-f]{20}$"},
    },
    "key": {
        "description": "The passphrase that opens a locked set's answers.",
        "schema": {"type": "string", "pattern": r"^[\x21-\x7e]{8,64}$"},
    },
}
#: The exercise API's rules its query parameters' patterns cannot say: the problem item's type of each.
EXERCISE_RULES: dict[str, str] = {
    "seed_range": f"A seed range lo-hi needs lo <= hi and at most {EX.MAX_SEED_RANGE} seeds.",
    "set_size": f"A set holds at most {EX.MAX_SET_VARIANTS} problems (templates x seeds).",
    "answer_range": "An answer's value is a finite number (its text within the pattern may still overflow).",
}


class ExerciseTemplate(_Open):
    """An exercise template: its name, title and summary."""

    name: str
    title: str
    summary: str
    href: str = Field(description="The template's address in the API (add ?seed=S).")


class ExerciseTemplates(_Open):
    """The exercise templates."""

    templates: list[ExerciseTemplate]


class ExerciseGiven(_Open):
    symbol: str
    name: str
    value: float
    unit: str


class ExerciseSolution(_Open):
    """The worked solution: the textbook's formula, with the numbers, its value and the model's."""

    formula: str
    substituted: str
    formula_value_ms: float
    model_value_ms: float
    steps: list[str]


class ExerciseCheck(_Open):
    """An answer checked against the stated tolerance."""

    answer: float
    correct: bool
    text: str


class ExerciseVariant(_Open):
    """One problem drawn from a template by a seed; its answer and solution only where released."""

    template: str
    seed: str
    title: str
    question: str = Field(description="The problem in words, with units.")
    assumptions: list[str] = Field(description="Where the problem departs from the model's default stack.")
    given: list[ExerciseGiven]
    unit: str
    tolerance: float = Field(description="An answer within this (absolute, in unit) is accepted.")
    citation: str
    scenario: dict[str, Any] = Field(description="The scenario document the model runs for it.")
    protocol: str
    answer: float | None = Field(None, description="The expected answer, in unit (released sets only).")
    solution: ExerciseSolution | None = None
    explain: str | None = Field(None, description="The teaching panel's address for its scenario.")
    check: ExerciseCheck | None = Field(None, description="The given answer's check (with answer=).")


class ExerciseSet(_Open):
    """A problem set: every template's variant for every seed, answers only when released."""

    templates: list[str]
    seeds: list[str]
    released: bool
    problems: list[ExerciseVariant]
