"""The teaching panel: *why* a protocol takes the time it takes.

``GET /explain`` takes the calculator's query (``preset=NAME``, dotted scenario fields such as
``network.rtt_ms=70``, ``protocols=...``; see :mod:`latency_lab_web.web.query`) plus ``protocol=`` (which of the
scenario's protocols to explain; the first by default) and ``scale=steps|time`` (the ladder's time
axis). It shows, for that protocol:

- the ladder diagram of its packets (:mod:`latency_lab_web.figures.ladder`), a hundred packets a page (``ladder_page=N``), the
  stalls on the critical path shaded where they run;
- the page load time as a formula: MathML from sympy, its LaTeX to copy, the glossary of its
  symbols (and the initial window's meaning), and the formula term by term with the scenario's numbers, grouped by
  the part of the breakdown each term belongs to and summing to the prediction; where it applies, Kurose & Ross's
  form with the scenario's numbers beside the model's;
- the round trips and the stalls on the critical path, kind by kind in time order, with the model's reason for each;
  each kind's total is the breakdown's part of that name, and the stalls the last byte did not wait for are listed
  apart. The breakdown, the stalls and the ladder's shading come from one run and one walk of its critical path
  (:func:`latency_lab.analysis.account.account`), the formula from the same walk traced, so they cannot disagree.

Under the ladder, its events step by step (``latency_lab_web/static/ladder-step.js`` plays the model's steps,
:func:`latency_lab_web.figures.ladder.steps`) and a link to the run's packets as a pcap file: ``GET /explain.pcap`` takes the same
query and answers the whole run of the protocol explained (:mod:`latency_lab_web.web.pcap`). ``lecture=1`` shows the ladder alone
for a projector: large type, high contrast (``latency_lab_web/static/lecture.css``), the arrow keys stepping anywhere on the page.

An htmx request (``HX-Request`` header) gets the panel alone, to swap into the calculator page;
any other request gets a full page, so a link to the panel works without JavaScript. Bad input is
answered 400 with the field, what is wrong and the allowed values (never a 500).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import sympy
from flask import Response, current_app, render_template, request, url_for
from markupsafe import Markup

from latency_lab import ALL_PROTOCOLS, GLOSSARY, Scenario, expression, predict
from latency_lab.analysis import symbolic
from latency_lab.analysis.account import account
from latency_lab.analysis.leading import leading_ms, lossless_ms, lossy, parts_ms
from latency_lab.analysis.result import PathStall
from latency_lab.scenario import limits
from latency_lab.scenario.errors import Problem
from latency_lab.scenario.limits import (
    MAX_EXPLAIN_WORK_UNITS,
    MAX_FORMULA_WORK_UNITS,
    WorkLimitExceeded,
    check,
    work_units,
)
from latency_lab.scenario.params import resolve
from latency_lab_web.figures import PROTOCOL_COLOURS, to_json
from latency_lab_web.figures.ladder import (
    GROUP_NAMES,
    MAX_LADDER_PAGES,
    MAX_PACKETS,
    SCALES,
    Scale,
    fmt_ms,
    ladder,
    projector,
)
from latency_lab_web.teaching import bp
from latency_lab_web.web.form import FIELD_BY_PARAM, plain
from latency_lab_web.web.pcap import pcap
from latency_lab_web.web.problems import ApiError
from latency_lab_web.web.request import scenario_input, validate
from latency_lab_web.web.words import PROTOCOL_NAMES, part_name

#: The minus sign written in numbers (U+2212): plain text, so escaping leaves it alone.
MINUS = "\u2212"

#: Query parameters besides the scenario's fields.
OPTIONS = ("preset", "protocol", "scale", "ladder_page", "lecture")
#: Options that choose a view of the panel, not the scenario (the calculator's address leaves them out).
VIEW_OPTIONS = ("protocol", "scale", "ladder_page", "lecture")


#: Stall kinds in the order shown, with a title and what the kind means.
STALL_KINDS: dict[str, tuple[str, str]] = {
    "delayed_ack_stall": (
        "Delayed-ACK stalls",
        "the receiver held its ACK for the delayed-ACK timer while the sender could not send more",
    ),
    "nagle_stall": (
        "Nagle stalls",
        "Nagle's algorithm held a short segment until the earlier data was acknowledged",
    ),
    "slow_start_idle": (
        "Slow-start waits",
        "the sender's congestion window was full: it waited a round trip for an ACK before sending more",
    ),
}

#: What a slow-start restart is (an event of no duration: its cost is in the slow-start waits after it).
RESTART_MEANING = (
    "the connection was idle long enough that its congestion window went back to the initial window; "
    "what that costs is in the slow-start waits after it"
)

#: The counts shown, in order, with their labels.
COUNTS: tuple[tuple[str, str], ...] = (
    ("round_trips", "round trips on the critical path"),
    ("slow_start_rounds", "slow-start waits on the critical path (window full, waiting for an ACK)"),
    ("delayed_ack_stalls", "delayed-ACK stalls on the critical path"),
    ("nagle_stalls", "Nagle stalls on the critical path"),
    ("slow_start_restarts", "slow-start restarts"),
    ("connections", "connections"),
    ("packets", "packets"),
)

BREAKDOWN_NAMES: dict[str, str] = {
    "dns": "DNS lookup",
    "connection_setup": "connection setup",
    "tls_setup": "TLS setup",
    "request": "requests",
    "server": "server",
    "propagation": "propagation (the data's trip to the client)",
    "serialization": "serialization (bytes at the link's rate)",
    "slow_start_idle": "slow-start waits",
    "delayed_ack_stall": "delayed-ACK stalls",
    "nagle_stall": "Nagle stalls",
}


class BadQuery(Exception):
    """The request's problems, each naming its field and what it allows."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(p.text for p in problems))
        self.problems = problems


@dataclass(slots=True)
class Term:
    """One term of the page load time: ``3 x T_d = 3 x 187 ms = 561 ms`` (HTML: times signs as entities)."""

    mathml: Markup
    symbol: str | None
    meaning: Markup
    numbers: Markup
    ms: float
    coefficient: sympy.Expr  # of the symbol (or the plain number)


@dataclass(slots=True)
class Stall:
    """A stall on the critical path as one kind's section lists it: this kind's part of it, the whole stall, its
    other parts and the engine's sentences of why (:class:`latency_lab.analysis.result.PathStall`)."""

    start_ms: float
    ms: float  # this kind's part
    duration_ms: float  # the whole stall (all its parts)
    connection: int
    object: str | None
    others: list[tuple[str, float]]  # the stall's other parts: (name, ms)
    whys: list[str]  # the sentences of the engine's events of a kind this stall has a part of
    beside: list[str]  # those of events of other kinds overlapping it: they added no time of their own here
    idle_ms: float | None  # slow-start waits: how long the sender itself sat idle in it (the engine's event)


@dataclass(slots=True)
class StallKind:
    """The stalls on the critical path with a part of one kind, in time order: how many and their total (the
    breakdown's part of that name), and the first of them as the panel lists them."""

    kind: str
    title: str
    meaning: str
    stalls: list[Stall]  # the first ones (stall_kinds' ``listed``), or all
    count: int
    total_ms: float


@dataclass(slots=True)
class TermGroup:
    """The formula's terms of one breakdown part: they add up to that part of the breakdown."""

    category: str
    name: str
    terms: list[Term]

    @property
    def total_ms(self) -> float:
        return sum(t.ms for t in self.terms)


# --- reading the request ------------------------------------------------------------------------------


def _choice(name: str, given: str, allowed: tuple[str, ...], what: str) -> Problem:
    close = difflib.get_close_matches(given, allowed, n=1)
    return Problem(
        path=name,
        message=f"unknown {what} {given!r}",
        allowed=", ".join(allowed),
        value=given,
        type="value_error",
        loc=(name,),
        suggestion=close[0] if close else None,
    )


def problem_line(p: Problem) -> str:
    """A problem in one line for the page: the field, what is wrong, the allowed values, the closest name."""
    line = p.text
    if p.allowed and "allowed" not in line:
        line += f"; allowed: {p.allowed}"
    if p.suggestion and "did you mean" not in line:
        line += f"; did you mean {p.suggestion!r}?"
    return line


def _plain(p: Problem) -> str:
    """A problem as the calculator's form says it (a scenario field by its label, what it takes, what was
    typed), else :func:`problem_line`."""
    f = FIELD_BY_PARAM.get(p.path.split("[")[0])
    if f is None or p.type in ("extra_forbidden", "repeated_parameter"):
        return problem_line(p)
    line = plain(p, request.args)
    # the panel is opened by its address: the parameter's name beside the label says what to change there
    return f"{f.label} ({f.param}){line[len(f.label) :]}" if line.startswith(f.label) else line


def read_query() -> tuple[dict[str, Any], Scenario, str, Scale, int]:
    """The scenario document, the scenario, the protocol to explain and the ladder's scale; :class:`BadQuery` if bad."""
    try:
        doc = scenario_input(OPTIONS)
    except ApiError as exc:
        raise BadQuery(exc.problems or [Problem(path="", message=exc.detail)]) from None
    found: list[Problem] = []
    protocol = request.args.get("protocol")
    if protocol is not None and protocol not in ALL_PROTOCOLS:
        found.append(_choice("protocol", protocol, ALL_PROTOCOLS, "protocol"))
    scale = request.args.get("scale", "steps")
    if scale not in SCALES:
        found.append(_choice("scale", scale, SCALES, "scale"))
    page_text = request.args.get("ladder_page", "1")
    page = int(page_text) if page_text.isdigit() and 1 <= int(page_text) <= MAX_LADDER_PAGES else 0
    if page == 0:
        found.append(
            Problem(
                path="ladder_page",
                message=f"the ladder's page must be a whole number from 1 to {MAX_LADDER_PAGES:,}",
                allowed=f"1 to {MAX_LADDER_PAGES:,}",
                value=page_text[:40],
                type="value_error",
                loc=("ladder_page",),
            )
        )
    lecture = request.args.get("lecture")
    if lecture is not None and lecture not in ("0", "1"):
        found.append(
            Problem(
                path="lecture",
                message="lecture mode is 1 (on) or 0 (off)",
                allowed="0, 1",
                value=lecture[:40],
                type="value_error",
                loc=("lecture",),
            )
        )
    try:
        scenario = validate(doc)
    except ApiError as exc:
        found = exc.problems + found
    if found:
        raise BadQuery(found)
    chosen = protocol or scenario.protocols[0]
    return doc, scenario, chosen, scale, page  # type: ignore[return-value]  # scale is one of SCALES


# --- building the panel --------------------------------------------------------------------------------


def _number(x: sympy.Expr | float) -> str:
    """A coefficient or value for people: ``8``, ``3/2``, ``-2``, ``10,000,000``, ``2.175``."""
    if isinstance(x, sympy.Rational) and not isinstance(x, sympy.Integer):
        return f"{x.p}/{x.q}".replace("-", MINUS)
    f = float(x)
    if f.is_integer():
        text = f"{int(f):,}"
    else:
        text = f"{f:,.6g}" if abs(f) < 1e6 else f"{f:,.0f}"
    return text.replace("-", MINUS)


def precise_ms(x: float) -> str:
    """A time to four decimals, trailing zeros dropped: ``586.9742 ms``, ``2 ms``, ``\u22122.336 ms``.

    Plain text (the minus sign is the character, not an entity), so the template may escape it.
    """
    text = f"{x:,.4f}".rstrip("0").rstrip(".")
    return text.replace("-", MINUS) + " ms"


def _symbol_html(name: str) -> str:
    base, _, sub = name.partition("_")
    return f"{base}<sub>{sub}</sub>" if sub else base


def _term_rows(expr: sympy.Expr, p: Any, values: dict[str, float]) -> list[Term]:
    """An expression's terms with the scenario's numbers (:func:`latency_lab.analysis.symbolic.terms`), in glossary order."""
    order = list(GLOSSARY)
    parts = symbolic.terms(expr, p)
    parts.sort(key=lambda t: (t["rate"] is not None, order.index(t["symbol"]) if t["symbol"] in order else -1))
    out: list[Term] = []
    for t in parts:
        coeff, sym, rate = t["coefficient"], t["symbol"], t["rate"]
        lhs: list[str] = []
        rhs: list[str] = []
        if sym is None:
            lhs.append(_number(coeff) + (" bytes" if rate else " ms"))
            rhs.append(_number(coeff) + (" bytes" if rate else " ms"))
        elif coeff != 1:
            lhs.append(_number(coeff))
            rhs.append(_number(coeff))
        if sym is not None:
            unit = GLOSSARY[sym][1]
            lhs.append(_symbol_html(sym))
            rhs.append(f"{_number(values[sym])} {unit}")
        if sym is not None:
            meaning = GLOSSARY[sym][0]
        else:
            meaning = "payload bytes on the critical path" if rate else "a fixed time"
        if rate is not None:
            lhs_text = " &times; ".join(lhs) + f" &times; 8000 / {_symbol_html(rate)}"
            rhs_text = " &times; ".join(rhs) + f" &times; 8000 / {_number(values[rate])} bit/s"
            meaning = f"serialization at {_symbol_html(rate)}: {meaning}"
        else:
            lhs_text = " &times; ".join(lhs)
            rhs_text = " &times; ".join(rhs)
        numbers = f"{lhs_text} = {rhs_text} = {precise_ms(t['ms'])}" if lhs_text != rhs_text else rhs_text
        mathml = symbolic.to_mathml(t["display"])
        out.append(Term(Markup(mathml), sym, Markup(meaning), Markup(numbers), t["ms"], coeff))
    return out


def terms(
    scenario: Scenario, protocol: str
) -> tuple[dict[str, Any], list[TermGroup], dict[str, dict[str, str]], list[Term]]:
    """The formula (text, LaTeX, MathML); its terms with the scenario's numbers, grouped by the breakdown part they
    belong to (the same walk of the critical path as the breakdown: each group adds up to its part); the glossary
    of its symbols; and the whole formula's terms (the same numbers, gathered by symbol)."""
    p = resolve(scenario)
    forms = expression(scenario, protocol)
    expr = forms["page_load_ms"]
    desc = symbolic.describe(expr, p)
    values = {str(k): v for k, v in symbolic.substitutions(p).items()}
    groups = [
        TermGroup(category, BREAKDOWN_NAMES.get(category, category), _term_rows(part, p, values))
        for category, part in forms["breakdown_ms"].items()
        if part != 0
    ]
    whole = _term_rows(expr, p, values)
    glossary = {
        name: {"meaning": meaning, "unit": unit, "field": field_, "value": _number(values[name])}
        for name, (meaning, unit, field_) in GLOSSARY.items()
        if name in desc["symbols"]
    }
    if protocol != "h3":  # QUIC's window rules are its own (latency_lab.mechanisms.quic)
        iw = symbolic.initial_window_note(p)
        glossary[iw["name"]] = {"meaning": iw["meaning"], "unit": "", "field": iw["field"], "value": iw["value"]}
    formula = {
        "text": desc["text"],
        "latex": desc["latex"],
        "mathml": Markup(f'<math display="block">{desc["mathml"]}</math>'),
    }
    return formula, groups, glossary, whole


#: How the model words a Nagle stall that ended with an ACK the delayed-ACK timer had held (latency_lab.protocols.base).
HELD_BY_TIMER = "delayed-ACK timer had held"


def _times(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _how_often(n: int) -> str:
    return {0: "no time", 1: "once", 2: "twice"}.get(n, f"{n} times")


def delayed_ack_note(timers: int, stalls: int, nagle: int) -> Markup | None:
    """Why the formula's ``timers x T_d`` differs from the delayed-ACK stalls on the critical path, or None.

    The formula counts every delayed-ACK timer on the critical path; the stall count counts only the
    windows the timer held shut. A Nagle stall ends when the earlier data is acknowledged, and when the
    receiver delays that ACK the Nagle stall lasts the timer: a T_d counted as a Nagle stall. ``stalls``: the
    delayed-ACK stalls on the path; ``nagle``: the Nagle stalls on the path whose ACK the timer had held.
    """
    if timers == stalls and nagle == 0:
        return None
    appears = f"appears {_how_often(timers)}" if timers else "does not appear"
    counted = f"{_times(stalls, 'delayed-ACK stall')} {'is' if stalls == 1 else 'are'} counted"
    lines = [
        f"T_d {appears} in the formula (one T_d for every delayed-ACK timer the page waited for), while {counted}."
    ]
    if nagle:
        one = nagle == 1
        lines.append(
            f"{_times(nagle, 'Nagle stall')} waited for a delayed ACK: Nagle's algorithm keeps a short segment "
            "back until the earlier data is acknowledged, and the receiver held that ACK for its delayed-ACK "
            f"timer, so {'that stall' if one else 'each of them'} lasted about T_d. The stalls list counts "
            f"{'it as a Nagle stall' if one else 'them as Nagle stalls'}; turning Nagle's algorithm off removes "
            f"{'this wait' if one else 'these waits'}."
        )
    if timers < stalls + nagle:
        lines.append(
            "Some of these stalls add less than a whole T_d on the way to the last byte (another wait overlaps "
            "them, or the timer fires before its full period, as BSD's 200 ms heartbeat does): the formula "
            "writes the time they ended at with the other terms instead."
        )
    elif timers > stalls + nagle:
        other = timers - stalls - nagle
        which = ("That timer" if other == 1 else "Those timers") if stalls + nagle == 0 else f"The other {other}"
        lines.append(f"{which} held an ACK the page waited for at a moment no stall is recorded for.")
    return Markup(" ".join(lines).replace("T_d", "T<sub>d</sub>"))  # our own words and numbers only


def stall_kinds(
    path: Sequence[PathStall], events: Sequence[Mapping[str, Any]], listed: int | None = None
) -> list[StallKind]:
    """The stalls on the critical path by kind (:data:`STALL_KINDS` order), each kind's in time order, the first
    ``listed`` of each (all if ``None``) written out with their reasons; the count and total count them all.

    A stall of several parts (a window's wait whose ACK the delayed-ACK timer held) is listed under each of its
    parts' kinds with that part's time, so each kind's total is the breakdown's part of that name. Its reasons are the
    sentences of the engine's events it overlaps: those of a kind it has a part of say why it waited; those of
    another kind (a delayed-ACK timer running while a window was full, its ACK not the one awaited) are kept apart
    (``beside``), as they added no time of their own to it. The stalls are put in order once, not once a kind, and only the listed ones are written out: a 20-page session's 18,000 stalls
    took 0.4 s of CPU here (2026-11-28).
    """
    in_order = sorted(path, key=lambda s: (s["start_ms"], s["connection"]))
    out: list[StallKind] = []
    for kind, (title, meaning) in STALL_KINDS.items():
        parts = [(st, st["parts_ms"][kind]) for st in in_order if kind in st["parts_ms"]]
        if not parts:
            continue
        shown: list[Stall] = []
        for st, ms in parts if listed is None else parts[:listed]:
            matched = [events[i] for i in st["events"]]
            idle = None
            if kind == "slow_start_idle":
                own = [e for e in matched if e["kind"] == "slow_start_idle"]
                idle = sum(float(e["duration_ms"]) for e in own) if own else None
            shown.append(
                Stall(
                    start_ms=st["start_ms"],
                    ms=ms,
                    duration_ms=st["duration_ms"],
                    connection=st["connection"],
                    object=st["object"],
                    others=[(STALL_KINDS[k][0].lower(), v) for k, v in st["parts_ms"].items() if k != kind],
                    whys=list(dict.fromkeys(str(e["why"]) for e in matched if e["kind"] in st["parts_ms"])),
                    beside=list(dict.fromkeys(str(e["why"]) for e in matched if e["kind"] not in st["parts_ms"])),
                    idle_ms=idle,
                )
            )
        out.append(StallKind(kind, title, meaning, shown, len(parts), sum(ms for _, ms in parts)))
    return out


def _url(doc_args: dict[str, str], **changes: str) -> str:
    args = {**doc_args, **changes}
    return url_for("teaching.explain") + "?" + urlencode(args)


def _runs(doc: dict[str, Any], protocol: str) -> bool:
    """Whether the scenario can be run with this protocol (the chooser offers only those)."""
    try:
        validate({**doc, "protocols": [protocol]})
    except ApiError:
        return False
    return True


def _one(doc: dict[str, Any], protocol: str) -> Scenario:
    """The scenario with only the protocol explained; :class:`BadQuery` if it cannot run or is over the work limit."""
    try:
        one = validate({**doc, "protocols": [protocol]})
    except ApiError as exc:  # a protocol the scenario cannot run (HTTP/2 through split proxies)
        raise BadQuery(exc.problems or [Problem(path="protocol", message=exc.detail)]) from None
    limit = check(work_units(one), MAX_EXPLAIN_WORK_UNITS, "max_explain_work_units", "explaining this page")
    if limit is not None:
        raise BadQuery([Problem(path="", message=limit.message, type="limit_exceeded")])
    return one


def panel_context(
    doc: dict[str, Any], scenario: Scenario, protocol: str, scale: Scale, page: int = 1
) -> dict[str, Any]:
    """Everything the panel template shows."""
    one = _one(doc, protocol)
    units = work_units(one)
    # the ladder lists every packet: at most limits.MAX_LADDER_ENGINE_STEPS of them, whichever engine runs (the
    # request's budget would let 330,000 packets through, 1.8 s of drawing; bench/worst_case.py, 2026-11-27).
    # One run and one walk of its critical path give the breakdown, the stalls and the ladder's stall marks
    # (latency_lab.analysis.account); the formula is the same walk, traced.
    with limits.budget(limits.MAX_LADDER_ENGINE_STEPS, size_only=True):
        acct = account(one, protocol)
    result = acct["result"]
    events = result["events"]
    drawing = ladder(
        result,
        scale=scale,
        page=page,
        path_stalls=acct["path_stalls"],
        receive_window_bytes=resolve(one).rwnd,
    )
    lecture = request.args.get("lecture") == "1"
    if lecture:
        projector(drawing.figure)
    formula_limit = check(units, MAX_FORMULA_WORK_UNITS, "max_formula_work_units", "the formula of this page")
    formula, term_groups, glossary, whole = terms(one, protocol) if formula_limit is None else (None, [], {}, [])
    formula_terms = [t for g in term_groups for t in g.terms]
    textbook = symbolic.textbook(resolve(one), protocol)
    timer_terms = [t.coefficient for t in whole if t.symbol == "T_d"]
    timers = int(timer_terms[0]) if timer_terms and timer_terms[0].is_integer else 0
    args = {k: v for k, v in request.args.items() if k not in ("protocol", "scale", "ladder_page", "lecture")}
    if lecture:
        args["lecture"] = "1"
    chooser = [
        {
            "protocol": name,
            "name": PROTOCOL_NAMES.get(name, name),
            "url": _url(args, protocol=name, scale=scale),
            "current": name == protocol,
            "colour": PROTOCOL_COLOURS.get(name),
            "in_scenario": name in scenario.protocols,
        }
        for name in dict.fromkeys([*scenario.protocols, protocol, *ALL_PROTOCOLS])
        if name in scenario.protocols or name == protocol or _runs(doc, name)
    ]
    here = {"ladder_page": str(drawing.page)} if drawing.page > 1 else {}
    scales = [
        {"scale": s, "url": _url(args, protocol=protocol, scale=s, **here), "current": s == scale} for s in SCALES
    ]
    wanted = sorted({1, drawing.pages, *range(drawing.page - 2, drawing.page + 3)} & set(range(1, drawing.pages + 1)))
    ladder_pages = [
        {"n": k, "url": _url(args, protocol=protocol, scale=scale, ladder_page=str(k)), "current": k == drawing.page}
        for k in wanted
    ]
    kinds = stall_kinds(acct["path_stalls"], events, int(current_app.config["MAX_EVENTS_SHOWN"]))
    on_path = {k.kind: k.count for k in kinds}
    nagle_by_timer = sum(
        1
        for st in acct["path_stalls"]
        if "nagle_stall" in st["parts_ms"] and any(HELD_BY_TIMER in events[i]["why"] for i in st["events"])
    )
    note = (
        delayed_ack_note(timers, on_path.get("delayed_ack_stall", 0), nagle_by_timer) if formula is not None else None
    )
    if note is not None:
        for t in formula_terms:
            if t.symbol == "T_d":
                t.meaning = Markup(f'{t.meaning} (<a href="#explain-dack-note">why {_how_often(timers)} in all</a>)')
    max_events = int(current_app.config["MAX_EVENTS_SHOWN"])
    off_path = [events[i] for i in acct["off_path"]]
    restarts = [e for e in events if e["kind"] == "slow_start_restart"]
    # with loss the expected time leads (latency_lab.analysis.leading, the one rule): its parts are the lossless breakdown
    # and loss's own; the lossless schedule (the ladder, the formula and the stalls below) stands beside it, labelled
    with_loss = lossy(result)
    lead_parts = parts_ms(result)
    return {
        "protocol": protocol,
        "protocol_name": PROTOCOL_NAMES.get(protocol, protocol),
        "result": result,
        "counts": [(label, result["counts"][key]) for key, label in COUNTS if key in result["counts"]],
        "breakdown": [(k, BREAKDOWN_NAMES.get(k) or part_name(k), v) for k, v in lead_parts.items() if abs(v) > 1e-12],
        "lossy": with_loss,
        "leading_ms": leading_ms(result),
        "lossless_ms": lossless_ms(result),
        "loss_percent": f"{float(result['expected_with_loss']['loss_rate']) * 100:.3g}%",
        "ladder": drawing,
        "ladder_pages": ladder_pages if drawing.pages > 1 else [],
        "ladder_prev": ladder_pages[wanted.index(drawing.page) - 1]["url"] if drawing.page > 1 else None,
        "ladder_next": ladder_pages[wanted.index(drawing.page) + 1]["url"] if drawing.page < drawing.pages else None,
        "ladder_json": Markup(to_json(drawing.figure)),
        "steps_json": Markup(json.dumps(drawing.steps, ensure_ascii=False).replace("</", "<\\/")),
        "step_groups": GROUP_NAMES,
        "lecture": lecture,
        "pcap_url": url_for("teaching.explain_pcap") + "?" + urlencode({**args, "protocol": protocol}),
        "lecture_url": _url({**args, "lecture": "1"}, protocol=protocol, scale=scale, **here),
        "panel_url": _url({k: v for k, v in args.items() if k != "lecture"}, protocol=protocol, scale=scale, **here),
        "max_packets": MAX_PACKETS,
        "formula": formula,
        "formula_limit": formula_limit,
        "term_groups": term_groups,
        "textbook": textbook,
        "terms_total": sum(t.ms for t in formula_terms),
        "glossary": glossary,
        "stalls": kinds,
        "stalls_total": sum(k.total_ms for k in kinds),
        "max_listed": max_events,
        "off_path": off_path[:max_events],
        "off_path_count": len(off_path),
        "off_path_total": sum(float(e["duration_ms"]) for e in off_path),
        "restarts": restarts[:max_events],
        "restart_meaning": RESTART_MEANING,
        "delayed_ack_note": note,
        "delayed_ack_note_kind": next((k for k in ("delayed_ack_stall", "nagle_stall") if k in on_path), None),
        "chooser": chooser,
        "scales": scales,
        "scale": scale,
        "fmt_ms": fmt_ms,
        "precise_ms": precise_ms,
        "symbol_html": lambda name: Markup(_symbol_html(name)),
        "self_url": _url(args, protocol=protocol, scale=scale, **here),
    }


@bp.get("/explain")
def explain() -> tuple[str, int]:
    """The teaching panel for one protocol of a scenario: a partial for htmx, else a full page."""
    partial = request.headers.get("HX-Request") == "true"
    template = "teaching/panel.html" if partial else "teaching/explain.html"
    if not partial and request.args.get("lecture") == "1":
        template = "teaching/lecture.html"
    scenario_args = {k: v for k, v in request.args.items() if k not in VIEW_OPTIONS}
    calculator = url_for("calculator.index") + ("?" + urlencode(scenario_args) if scenario_args else "")
    try:
        doc, scenario, protocol, scale, page = read_query()
        context = panel_context(doc, scenario, protocol, scale, page)
    except WorkLimitExceeded as exc:  # the engine's hard budget (latency_lab.scenario.limits)
        problem = Problem(path="", message=exc.limit.message, type="limit_exceeded")
        return render_template(template, errors=[problem_line(problem)], calculator_url=calculator), 422
    except BadQuery as exc:
        errors = [_plain(p) for p in exc.problems]
        return render_template(template, errors=errors, calculator_url=calculator), 400
    return render_template(template, errors=None, calculator_url=calculator, **context), 200


@bp.get("/explain.pcap")
def explain_pcap() -> Response | tuple[str, int]:
    """The run of the protocol explained (the same query as ``/explain``) as a pcap file, for Wireshark."""
    calculator = url_for("calculator.index")
    try:
        doc, _, protocol, _, _ = read_query()
        one = _one(doc, protocol)
        with limits.budget(limits.MAX_LADDER_ENGINE_STEPS, size_only=True):
            result = predict(one, packets=True)["results"][0]
    except WorkLimitExceeded as exc:
        problem = Problem(path="", message=exc.limit.message, type="limit_exceeded")
        return render_template("teaching/explain.html", errors=[problem_line(problem)], calculator_url=calculator), 422
    except BadQuery as exc:
        errors = [_plain(p) for p in exc.problems]
        return render_template("teaching/explain.html", errors=errors, calculator_url=calculator), 400
    data = pcap(
        result.get("packets", []),
        udp=protocol == "h3",
        tls=one.tls.version != "none",
        receive_window_bytes=resolve(one).rwnd,
    )
    return Response(
        data,
        mimetype="application/vnd.tcpdump.pcap",
        headers={"Content-Disposition": f'attachment; filename="latency-lab-{protocol}.pcap"'},
    )
