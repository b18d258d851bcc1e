"""The shape of :func:`latency_lab.analysis.predict.predict`'s output document, as types.

``predict`` returns plain dictionaries (the JSON answer as is, built at no extra cost), typed here so that
every reader of a result (the calculator, the API, the CLI, the studies) is checked by mypy against one
definition: a misspelt key or a count that does not exist is a type error, not a ``KeyError`` in front of a
class. The API's response models (:mod:`latency_lab.api_schema`, from which the OpenAPI document is generated) are
made from these types (:func:`latency_lab.api_schema.response_model`: their keys, types and optional keys), so a key
added here is in the OpenAPI document too, with its words from :data:`latency_lab.api_schema.DESCRIPTIONS`;
``tests/latency_lab/analysis/test_result.py`` checks real answers against both.

Times are in ms, sizes in bytes. Pure: typing only.
"""

from typing import Any, Literal, NotRequired, TypedDict

#: The counts of a result (``ProtocolResult["counts"]``), in the order it lists them: round trips on the
#: critical path, stalls by kind, connections, TLS, DNS, packets. A page of a session counts the first five.
COUNT_NAMES: tuple[str, ...] = (
    "round_trips",
    "slow_start_rounds",
    "delayed_ack_stalls",
    "nagle_stalls",
    "slow_start_restarts",
    "connections",
    "tls_handshakes",
    "tls_bytes",
    "dns_lookups",
    "packets",
    "bytes_on_wire",
)


#: The counts a page of a session has (``PageResult["counts"]``).
PAGE_COUNT_NAMES: tuple[str, ...] = COUNT_NAMES[:5]


class ObjectTiming(TypedDict):
    """One object of the page: its connection and when it was first asked for and when its last byte arrived."""

    name: str
    bytes: int
    connection: int
    start_ms: float
    end_ms: float


class Event(TypedDict):
    """An idle period the engine recorded on a connection, with the sentence that says why: on or off the critical
    path, and measured as the sender's idle time, so not the account of the time (that is :class:`StallOnPath`)."""

    kind: str
    start_ms: float
    duration_ms: float
    connection: int
    object: str | None
    why: str


class StallOnPath(TypedDict):
    """A stall on the critical path (:func:`latency_lab.analysis.critical_path.path_stalls`): a run of waits that delayed
    the last byte, read off the same walk as the breakdown.

    ``parts_ms`` splits its duration into the breakdown's stall parts (slow_start_idle, delayed_ack_stall,
    nagle_stall); over all of a result's path stalls they add up to its breakdown's. ``kind`` is the part most of it
    is.
    """

    page: int
    kind: str
    start_ms: float
    duration_ms: float
    connection: int
    object: str | None
    parts_ms: dict[str, float]
    segments: list[tuple[str, float, float]]  # (part, start_ms, ms): the parts as they ran, in time order


class PathStall(StallOnPath):
    """A stall on the critical path as the teaching panel shows it (:mod:`latency_lab.analysis.account`): ``events`` are the
    indices (into the result's ``events``) of the engine's events that overlap it on its connection: their sentences
    say why it happened."""

    events: list[int]


class Account(TypedDict):
    """One protocol's time, read off one walk of its critical path (:func:`latency_lab.analysis.account.account`): the
    result (with its packets), the stalls on the path and the engine's events off it."""

    result: "ProtocolResult"
    path_stalls: list[PathStall]
    off_path: list[int]  # indices into result["events"] of stall events that did not delay the last byte


class PacketRow(TypedDict):
    """One packet of the schedule (``packets=True``)."""

    n: int
    direction: Literal["up", "down"]
    connection: int
    kind: str
    bytes: int
    wire_bytes: int
    fin: bool
    object: str | None
    queued_ms: float
    sent_ms: float
    arrival_ms: float
    ack_held_ms: float
    leg: NotRequired[str]  # split proxies only: long_haul, client or server


class ExpectedWithLoss(TypedDict):
    """The expected cost of random loss in closed form (:mod:`latency_lab.analysis.expected_loss`)."""

    loss_rate: float
    page_load_ms: float
    extra_ms: float
    by_cause_ms: dict[str, float]
    head_of_line_ms: float
    connections: list[int]
    segments: int
    assumptions: str


class PageResult(TypedDict):
    """One page load of a session (``session.pages`` > 1)."""

    page: int
    start_ms: float
    end_ms: float
    page_load_ms: float
    breakdown_ms: dict[str, float]
    counts: dict[str, int]  # PAGE_COUNT_NAMES


class FormulaText(TypedDict):
    """An expression for people (:func:`latency_lab.analysis.symbolic.describe`)."""

    text: str
    latex: str
    mathml: NotRequired[str]
    latex_numbers: str
    symbols: list[str]


class Formula(TypedDict):
    """A result's page load time and breakdown as formulas (``formulas=True``)."""

    page_load_ms: FormulaText
    breakdown_ms: dict[str, FormulaText]


class ProtocolResult(TypedDict):
    """One protocol's prediction; for a session, ``page_load_ms``, ``breakdown_ms`` and ``round_trips`` add up
    its pages. ``predict`` lists every path stall and event; an answer of the API or the command line
    (:func:`latency_lab.analysis.answer.listed`) lists the first :data:`~latency_lab.scenario.limits.MAX_LISTED` of each and
    says how many there are in all (``path_stalls_total``, ``events_total``)."""

    protocol: str
    page_load_ms: float
    breakdown_ms: dict[str, float]
    counts: dict[str, int]  # COUNT_NAMES
    objects: list[ObjectTiming]
    path_stalls: list[StallOnPath]
    path_stalls_total: NotRequired[
        int
    ]  # in an answer (latency_lab.analysis.answer.listed): how many path stalls in all
    events: list[Event]
    events_total: NotRequired[int]  # in an answer: how many events in all
    expected_with_loss: ExpectedWithLoss
    pages: NotRequired[list[PageResult]]
    packets: NotRequired[list[PacketRow]]
    formula: NotRequired[Formula]


class ProtocolSummary(TypedDict):
    """What a sweep reads of a :class:`ProtocolResult`: the same keys, the same numbers (``counts`` in full,
    ``expected_with_loss`` in full)."""

    protocol: str
    page_load_ms: float
    counts: dict[str, int]  # COUNT_NAMES
    expected_with_loss: ExpectedWithLoss


class GlossaryEntry(TypedDict):
    """A symbol of the formulas: what it means, its unit and the scenario field it stands for."""

    meaning: str
    unit: str
    field: str | None


class Prediction(TypedDict):
    """The output document: the scenario as computed (every default filled in, as JSON) and one result per
    protocol, in the order asked; with ``formulas=True`` the glossary of the symbols used."""

    scenario: dict[str, Any]
    results: list[ProtocolResult]
    glossary: NotRequired[dict[str, GlossaryEntry]]


__all__ = [
    "COUNT_NAMES",
    "PAGE_COUNT_NAMES",
    "Account",
    "Event",
    "ExpectedWithLoss",
    "Formula",
    "FormulaText",
    "GlossaryEntry",
    "ObjectTiming",
    "PacketRow",
    "PageResult",
    "PathStall",
    "Prediction",
    "ProtocolResult",
    "StallOnPath",
]
