"""The teaching panel: *why* a protocol takes the time it takes.

``GET /explain`` takes the calculator's query (``preset=NAME``, dotted scenario fields such as
``network.rtt_ms=70``, ``protocols=...``; see :mod:`app.web.query`) plus ``protocol=`` (which of the
scenario's protocols to explain; the first by default) and ``scale=steps|time`` (the ladder's time
axis). It shows, for that protocol:

- the ladder diagram of its packets (:mod:`app.figures.ladder`), summarised past a hundred packets;
- the page load time as a formula: MathML from sympy, its LaTeX to copy, the glossary of its
  symbols, and the formula term by term with the scenario's numbers, summing to the prediction;
- the round trips and stalls, with the model's reason for every stall, grouped by kind and reason.

An htmx request (``HX-Request`` header) gets the panel alone, to swap into the calculator page;
any other request gets a full page, so a link to the panel works without JavaScript. Bad input is
answered 400 with the field, what is wrong and the allowed values (never a 500).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import sympy
from flask import current_app, render_template, request, url_for
from markupsafe import Markup

from app.figures import PROTOCOL_COLOURS, to_json
from app.figures.ladder import MAX_PACKETS, SCALES, Scale, fmt_ms, ladder
from app.teaching import bp
from app.web.form import FIELD_BY_PARAM, plain
from app.web.problems import ApiError
from app.web.request import scenario_input, validate
from app.web.words import PROTOCOL_NAMES
from model import ALL_PROTOCOLS, GLOSSARY, Scenario, expression, predict
from model.analysis import symbolic
from model.scenario import limits
from model.scenario.errors import Problem
from model.scenario.limits import MAX_FORMULA_WORK_UNITS, MAX_WORK_UNITS, WorkLimitExceeded, check, work_units
from model.scenario.params import resolve

#: The minus sign written in numbers (U+2212): plain text, so escaping leaves it alone.
MINUS = "\u2212"

#: Query parameters besides the scenario's fields.
OPTIONS = ("preset", "protocol", "scale")


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
    "slow_start_restart": (
        "Slow-start restarts",
        "the connection was idle long enough that its congestion window went back to the initial window",
    ),
}

#: The counts shown, in order, with their labels.
COUNTS: tuple[tuple[str, str], ...] = (
    ("round_trips", "round trips on the critical path"),
    ("slow_start_rounds", "slow-start rounds (window full, waiting for an ACK)"),
    ("delayed_ack_stalls", "delayed-ACK stalls"),
    ("nagle_stalls", "Nagle stalls"),
    ("slow_start_restarts", "slow-start restarts"),
    ("connections", "connections"),
    ("packets", "packets"),
)

BREAKDOWN_NAMES: dict[str, str] = {
    "connection_setup": "connection setup",
    "request": "requests",
    "server": "server",
    "transmission": "transmission",
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
class StallGroup:
    """Stalls of one kind that share a reason (up to the numbers in it)."""

    why: str  # the first occurrence's reason
    events: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def total_ms(self) -> float:
        return float(sum(e["duration_ms"] for e in self.events))


@dataclass(slots=True)
class StallKind:
    """Every stall of one kind, grouped by reason."""

    kind: str
    title: str
    meaning: str
    groups: list[StallGroup]

    @property
    def count(self) -> int:
        return sum(len(g.events) for g in self.groups)

    @property
    def total_ms(self) -> float:
        return sum(g.total_ms for g in self.groups)


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


def read_query() -> tuple[dict[str, Any], Scenario, str, Scale]:
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
    try:
        scenario = validate(doc)
    except ApiError as exc:
        found = exc.problems + found
    if found:
        raise BadQuery(found)
    chosen = protocol or scenario.protocols[0]
    return doc, scenario, chosen, scale  # type: ignore[return-value]  # scale is one of SCALES


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


def terms(scenario: Scenario, protocol: str) -> tuple[dict[str, Any], list[Term], dict[str, dict[str, str]]]:
    """The formula (text, LaTeX, MathML), its terms with the scenario's numbers, and the glossary of its symbols."""
    p = resolve(scenario)
    expr = expression(scenario, protocol)["page_load_ms"]
    desc = symbolic.describe(expr, p)
    values = {str(k): v for k, v in symbolic.substitutions(p).items()}
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
    glossary = {
        name: {"meaning": meaning, "unit": unit, "field": field_, "value": _number(values[name])}
        for name, (meaning, unit, field_) in GLOSSARY.items()
        if name in desc["symbols"]
    }
    formula = {
        "text": desc["text"],
        "latex": desc["latex"],
        "mathml": Markup(f'<math display="block">{desc["mathml"]}</math>'),
    }
    return formula, out, glossary


#: How the model words a Nagle stall that ended with an ACK the delayed-ACK timer had held (model.protocols.base).
HELD_BY_TIMER = "delayed-ACK timer had held"


def _times(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _how_often(n: int) -> str:
    return {0: "no time", 1: "once", 2: "twice"}.get(n, f"{n} times")


def delayed_ack_note(timers: int, counts: dict[str, int], events: Sequence[Mapping[str, Any]]) -> Markup | None:
    """Why the formula's ``timers x T_d`` differs from the delayed-ACK stalls counted, or None when it does not.

    The formula counts every delayed-ACK timer on the critical path; the stall count counts only the
    windows the timer held shut. A Nagle stall ends when the earlier data is acknowledged, and when the
    receiver delays that ACK the Nagle stall lasts the timer: a T_d counted as a Nagle stall.
    """
    stalls = counts.get("delayed_ack_stalls", 0)
    nagle = sum(1 for e in events if e["kind"] == "nagle_stall" and HELD_BY_TIMER in e["why"])
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


def _reason_key(why: str) -> str:
    """A reason with its numbers blanked: stalls differing only in sizes or times group together."""
    return re.sub(r"\d[\d,.]*", "#", why)


def stall_kinds(events: Sequence[Mapping[str, Any]]) -> list[StallKind]:
    """The events grouped by kind (in :data:`STALL_KINDS` order, others after) and by reason."""
    by_kind: dict[str, dict[str, StallGroup]] = {}
    for e in events:
        groups = by_kind.setdefault(e["kind"], {})
        key = _reason_key(e["why"])
        groups.setdefault(key, StallGroup(why=e["why"])).events.append(e)
    order = [*STALL_KINDS, *sorted(k for k in by_kind if k not in STALL_KINDS)]
    out: list[StallKind] = []
    for kind in order:
        if kind not in by_kind:
            continue
        title, meaning = STALL_KINDS.get(kind, (kind.replace("_", " ").capitalize(), ""))
        ranked = sorted(by_kind[kind].values(), key=lambda g: -g.total_ms)
        out.append(StallKind(kind, title, meaning, ranked))
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


def panel_context(doc: dict[str, Any], scenario: Scenario, protocol: str, scale: Scale) -> dict[str, Any]:
    """Everything the panel template shows."""
    try:
        one = validate({**doc, "protocols": [protocol]})
    except ApiError as exc:  # a protocol the scenario cannot run (HTTP/2 through split proxies)
        raise BadQuery(exc.problems or [Problem(path="protocol", message=exc.detail)]) from None
    units = work_units(one)
    limit = check(units, MAX_WORK_UNITS, "max_work_units", "explaining this page")
    if limit is not None:
        raise BadQuery([Problem(path="", message=limit.message, type="limit_exceeded")])
    # the ladder lists every packet: at most the compiled engine's step budget of them, whichever engine runs (the
    # native one's budget would let 330,000 packets through, 1.8 s of drawing; bench/worst_case.py, 2026-11-27)
    with limits.budget(limits.ENGINE_STEPS["compiled"], size_only=True):
        result = predict(one, packets=True)["results"][0]
    drawing = ladder(result, scale=scale)
    formula_limit = check(units, MAX_FORMULA_WORK_UNITS, "max_formula_work_units", "the formula of this page")
    formula, formula_terms, glossary = terms(one, protocol) if formula_limit is None else (None, [], {})
    timer_terms = [t.coefficient for t in formula_terms if t.symbol == "T_d"]
    timers = int(timer_terms[0]) if timer_terms and timer_terms[0].is_integer else 0
    args = {k: v for k, v in request.args.items() if k not in ("protocol", "scale")}
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
    scales = [{"scale": s, "url": _url(args, protocol=protocol, scale=s), "current": s == scale} for s in SCALES]
    events = result["events"]
    note = delayed_ack_note(timers, result["counts"], events) if formula is not None else None
    if note is not None:
        for t in formula_terms:
            if t.symbol == "T_d":
                t.meaning = Markup(
                    f'{t.meaning} (<a href="#explain-dack-note">why {_how_often(int(t.coefficient))}</a>)'
                )
    max_events = int(current_app.config["MAX_EVENTS_SHOWN"])
    return {
        "protocol": protocol,
        "protocol_name": PROTOCOL_NAMES.get(protocol, protocol),
        "result": result,
        "counts": [(label, result["counts"][key]) for key, label in COUNTS if key in result["counts"]],
        "breakdown": [(BREAKDOWN_NAMES.get(k, k), v) for k, v in result["breakdown_ms"].items() if abs(v) > 1e-12],
        "ladder": drawing,
        "ladder_json": Markup(to_json(drawing.figure)),
        "max_packets": MAX_PACKETS,
        "formula": formula,
        "formula_limit": formula_limit,
        "terms": formula_terms,
        "terms_total": sum(t.ms for t in formula_terms),
        "glossary": glossary,
        "stalls": stall_kinds(events[:max_events]),
        "delayed_ack_note": note,
        "delayed_ack_note_kind": next(
            (k for k in ("delayed_ack_stall", "nagle_stall") if any(e["kind"] == k for e in events[:max_events])), None
        ),
        "events_left_out": max(0, len(events) - max_events),
        "chooser": chooser,
        "scales": scales,
        "scale": scale,
        "fmt_ms": fmt_ms,
        "precise_ms": precise_ms,
        "symbol_html": lambda name: Markup(_symbol_html(name)),
        "self_url": _url(args, protocol=protocol, scale=scale),
    }


@bp.get("/explain")
def explain() -> tuple[str, int]:
    """The teaching panel for one protocol of a scenario: a partial for htmx, else a full page."""
    partial = request.headers.get("HX-Request") == "true"
    template = "teaching/panel.html" if partial else "teaching/explain.html"
    scenario_args = {k: v for k, v in request.args.items() if k not in ("protocol", "scale")}
    calculator = url_for("calculator.index") + ("?" + urlencode(scenario_args) if scenario_args else "")
    try:
        doc, scenario, protocol, scale = read_query()
        context = panel_context(doc, scenario, protocol, scale)
    except WorkLimitExceeded as exc:  # the engine's hard budget (model.scenario.limits)
        problem = Problem(path="", message=exc.limit.message, type="limit_exceeded")
        return render_template(template, errors=[problem_line(problem)], calculator_url=calculator), 422
    except BadQuery as exc:
        errors = [_plain(p) for p in exc.problems]
        return render_template(template, errors=errors, calculator_url=calculator), 400
    return render_template(template, errors=None, calculator_url=calculator, **context), 200
