"""Scenarios side by side: ``GET /compare``.

The query holds every scenario of the comparison, so its address is the comparison (copy it to share):

- ``preset=NAME`` and any scenario field without a prefix (``network.rtt_ms=70``): what every scenario starts from;
- ``a.FIELD``, ``b.FIELD``, ... (scenarios ``a`` to ``f``): one scenario's own fields, and ``a.preset`` its own preset;
- ``n=4``: how many scenarios (default: as many as the letters given, at least two).

Each scenario is read exactly as the calculator reads its query (:func:`latency_lab_web.web.form.read`: units, the preset
and the given fields combined by :func:`latency_lab.scenario.overlay.overlay`, plain errors), with the shared fields
under its own. The table gives each scenario's protocols with the difference from scenario A (its same protocol,
else its first), and :func:`latency_lab_web.web.words.why` says where each one's time went. One-click toggles (Nagle, header
flush, delayed ACK, pipelining, TLS) are links to the same comparison with one setting of one scenario flipped.
``view=print`` gives the comparison laid out for printing (table, charts, assumptions). ``lecture=1`` gives it for a
projector (lecture mode, as the teaching panel's ``/explain?...&lecture=1``): full screen, large type, high contrast
(``latency_lab_web/static/lecture.css``), the chart and each scenario's protocols with their time (with loss the expected time
leading) and round trips, stepped one at a time with the arrow keys anywhere on the page (``latency_lab_web/static/ladder-step.js``,
the ladder's stepper, highlighting the step's bar on the chart).

Each scenario's card edits it: its field picker (a plain GET form, so it works without JavaScript) sends
``edit=b&field=network.rtt_ms&value=20``, answered with a redirect to the comparison with ``b.network.rtt_ms=20``
(a blank value drops the scenario's own setting of that field); each setting it changes can be dropped, and the
scenario removed (with two scenarios, removing one opens the other in the calculator).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from flask import redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from latency_lab import PRESETS, ProtocolResult, Scenario, predict
from latency_lab.analysis.leading import leading_ms, lossless_ms, lossy
from latency_lab.scenario.limits import MAX_WORK_UNITS, WorkLimitExceeded, check, costly_fields, work_units
from latency_lab.scenario.params import resolve
from latency_lab.studies.experiments import H96_CITATION, H96_ROWS
from latency_lab_web.compare import bp
from latency_lab_web.figures import compare as charts
from latency_lab_web.web.comparisons import LETTERS, MIN_SCENARIOS, table1_url
from latency_lab_web.web.comparisons import address as comparison_address
from latency_lab_web.web.form import FIELD_BY_PARAM, SECTIONS, State, loss_words, read, value_words
from latency_lab_web.web.query import SCENARIO_PARAMS
from latency_lab_web.web.words import PROTOCOL_NAMES, TOGGLES, Why, why

OPTIONS = ("preset", "n", "view", "edit", "field", "value", "lecture")

#: How much larger lecture mode draws the chart's texts and bars (a projector at the back of a room), as the
#: teaching panel's lecture mode does its ladder (latency_lab_web.figures.ladder.PROJECTOR_SCALE).
PROJECTOR_FONT_PX = 20
PROJECTOR_BAR_PX = 70


@dataclass
class Side:
    """One scenario of the comparison: its letter, what was given for it, and what the model made of it."""

    letter: str
    given: list[tuple[str, str]]  # its own parameters (without the prefix), in the order given
    state: State
    results: list[ProtocolResult] = field(default_factory=list)
    whys: dict[str, Why] = field(default_factory=dict)
    toggles: list[dict[str, str]] = field(default_factory=list)
    calculator_url: str = ""
    remove_url: str = ""
    remove_words: str = ""
    drops: list[dict[str, str]] = field(default_factory=list)  # its own settings, each with the address without it

    @property
    def name(self) -> str:
        return self.letter.upper()

    @property
    def errors(self) -> list[str]:
        return [m for messages in self.state.errors.values() for m in messages]


@dataclass(frozen=True)
class Row:
    side: str
    protocol: str
    name: str
    load_ms: float  # the time that leads (latency_lab.analysis.leading: with loss, the expected time)
    lossless_ms: float
    lossy: bool
    baseline: str  # "A, HTTP/1.0"; "" for the baseline row itself
    diff_ms: float | None
    ratio: float | None
    why: Why


def _letter_of(name: str) -> tuple[str, str] | None:
    head, dot, rest = name.partition(".")
    if dot and head in LETTERS and (rest in SCENARIO_PARAMS or rest == "preset"):
        return head, rest
    return None


def _read_query(args: MultiDict[str, str]) -> tuple[str, list[tuple[str, str]], dict[str, list[tuple[str, str]]], int]:
    """The shared preset, the shared fields, each letter's own parameters, and the number of scenarios."""
    problems: list[str] = []
    shared: list[tuple[str, str]] = []
    own: dict[str, list[tuple[str, str]]] = {}
    for name, value in args.items(multi=True):
        if name in OPTIONS:
            continue
        found = _letter_of(name)
        if found is not None:
            own.setdefault(found[0], []).append((found[1], value))
        elif name in SCENARIO_PARAMS:
            shared.append((name, value))
        else:
            problems.append(name)
    if problems:
        raise BadComparison(
            [
                f"The address has a setting the comparison does not know: {p!r} (scenario fields are named like "
                f"network.rtt_ms, or a.network.rtt_ms for scenario A alone, a to f)"
                for p in problems
            ]
        )
    lecture = args.get("lecture")
    if lecture is not None and lecture not in ("0", "1"):
        raise BadComparison([f"lecture (lecture mode) is 1 (on) or 0 (off); you gave {lecture[:40]!r}."])
    n_text = args.get("n", "")
    used = max((LETTERS.index(letter) + 1 for letter in own), default=0)
    if n_text:
        if not n_text.isdigit() or not MIN_SCENARIOS <= int(n_text) <= len(LETTERS):
            raise BadComparison([f"n (the number of scenarios) must be a whole number from 2 to 6; you gave {n_text}."])
        n = max(int(n_text), used)
    else:
        n = max(used, MIN_SCENARIOS)
    return args.get("preset", ""), shared, own, n


class BadComparison(Exception):
    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def _with(own: dict[str, list[tuple[str, str]]], letter: str, changes: dict[str, str | None]) -> dict[str, Any]:
    """``own`` with ``letter``'s parameters changed (``None`` removes one)."""
    out = {k: list(v) for k, v in own.items()}
    mine = [(k, v) for k, v in out.get(letter, []) if k not in changes]
    mine += [(k, v) for k, v in changes.items() if v is not None]
    out[letter] = mine
    return out


def _toggles(side: Side, scenario: Scenario) -> dict[str, tuple[str, dict[str, str | None]]]:
    """Each toggle: the words for what it does, and the parameters it changes."""
    p = resolve(scenario)
    protocols: list[str] = list(scenario.protocols)
    out: dict[str, tuple[str, dict[str, str | None]]] = {}
    out["nagle"] = (f"Nagle {'off' if p.nagle else 'on'}", {"tcp.nagle": "false" if p.nagle else "true"})
    out["header_flush"] = (
        f"header flush {'off' if p.header_flush else 'on'}",
        {"http.header_flush": "false" if p.header_flush else "true"},
    )
    out["delayed_ack"] = (
        f"delayed ACK {'off' if p.dack_ms > 0 else 'on (200 ms)'}",
        {"tcp.delayed_ack_ms": "0" if p.dack_ms > 0 else "200"},
    )
    if "pipelined" in protocols:
        swapped = ["persistent" if x == "pipelined" else x for x in protocols]
        words = "pipelining off"
    elif "persistent" in protocols:
        swapped = ["pipelined" if x == "persistent" else x for x in protocols]
        words = "pipelining on"
    else:
        swapped = [*protocols, "pipelined"]
        words = "pipelining on"
    out["pipelining"] = (words, {"protocols": ",".join(dict.fromkeys(swapped))})
    if any(x != "h3" for x in protocols):  # h3's TLS is QUIC's own: tls.version changes nothing of it
        tls_on = scenario.tls.version != "none"
        out["tls"] = (f"TLS {'off' if tls_on else 'on (1.3)'}", {"tls.version": "none" if tls_on else "1.3"})
    return out


def _rows(sides: list[Side]) -> list[Row]:
    base = sides[0]
    base_by = {r["protocol"]: r for r in base.results}
    first = base.results[0] if base.results else None
    rows = []
    for side in sides:
        for r in side.results:
            ref = base_by.get(r["protocol"], first)
            is_base = side is base and ref is r
            ref_ms = leading_ms(ref) if ref is not None else 0.0
            diff = None if ref is None or is_base else leading_ms(r) - ref_ms
            ratio = None if ref is None or is_base or not ref_ms else leading_ms(r) / ref_ms
            rows.append(
                Row(
                    side.name,
                    r["protocol"],
                    PROTOCOL_NAMES.get(r["protocol"], r["protocol"]),
                    leading_ms(r),
                    lossless_ms(r),
                    lossy(r),
                    "" if ref is None or is_base else f"A, {PROTOCOL_NAMES.get(ref['protocol'], ref['protocol'])}",
                    diff,
                    ratio,
                    side.whys[r["protocol"]],
                )
            )
    return rows


def _described(side: Side, shared: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What a scenario sets beyond its preset, by the form's labels (its own fields over the shared ones)."""
    mine = dict(shared)
    mine.update(side.given)
    mine.pop("preset", None)
    return [(FIELD_BY_PARAM[k].label if k in FIELD_BY_PARAM else k, _value_words(k, v)) for k, v in mine.items()]


def _value_words(param: str, value: str) -> str:
    """A given value for people: ``true`` -> ``on``, ``persistent`` -> ``persistent HTTP/1.1``."""
    if (
        value in ("true", "false")
        and SCENARIO_PARAMS.get(param) is not None
        and SCENARIO_PARAMS[param].kind == "boolean"
    ):
        return "on" if value == "true" else "off"
    if param == "protocols":
        return ", ".join(PROTOCOL_NAMES.get(p, p) for p in value.split(",") if p) or "none"
    return value


def _edited(
    args: MultiDict[str, str], preset: str, shared: list[tuple[str, str]], own: dict[str, list[tuple[str, str]]], n: int
) -> str:
    """The address of the comparison with one scenario's field set by its card's picker (``edit``, ``field``,
    ``value``; a blank value drops that scenario's own setting); :class:`BadComparison` naming what is wrong."""
    letter, param, value = args.get("edit", ""), args.get("field", ""), args.get("value", "").strip()
    if letter not in LETTERS[:n]:
        raise BadComparison([f"edit must name one of the scenarios, {', '.join(LETTERS[:n])}; you gave {letter!r}."])
    if param != "preset" and param not in SCENARIO_PARAMS:
        raise BadComparison([f"field must be a scenario field (like network.rtt_ms) or preset; you gave {param!r}."])
    return comparison_address(preset, shared, _with(own, letter, {param: value or None}), n)


def _address_pairs(address: str) -> list[tuple[str, str]]:
    """A comparison's address as the hidden fields of a card's picker."""
    return [(k, v) for k, v in parse_qsl(urlsplit(address).query, keep_blank_values=True) if k != "n" or v]


#: The fields a card's picker offers, by section: (section title, [(param, label with unit)]).
PICKER: list[tuple[str, list[tuple[str, str]]]] = [
    (
        sec.title,
        [
            (f.param, f.label + (f" ({f.spec.unit})" if f.spec.unit and f.spec.kind != "array" else ""))
            for f in sec.fields
        ],
    )
    for sec in SECTIONS
]


def _scenario_words(sides: list[Side], preset: str, shared: list[tuple[str, str]]) -> tuple[str, str]:
    """The comparison in two lines for its chart's picture: what each scenario sets, and the loss rates."""
    head = f"preset {preset}" if preset else "the model's defaults"
    if shared:
        head += " with " + ", ".join(_label(k) + " " + value_words(k, v) for k, v in shared)
    parts = [head]
    for side in sides:
        mine = [(k, v) for k, v in side.given]
        if mine:
            parts.append(
                f"{side.name}: "
                + ", ".join((f"preset {v}" if k == "preset" else f"{_label(k)} {value_words(k, v)}") for k, v in mine)
            )
    rates = {s.name: s.state.scenario.network.loss_rate for s in sides if s.state.scenario is not None}
    if len(set(rates.values())) <= 1:
        loss = loss_words(next(iter(rates.values()), 0.0))
    else:
        loss = "; ".join(f"{name}: {loss_words(rate)}" for name, rate in rates.items())
    return "; ".join(parts), loss


def _label(param: str) -> str:
    return FIELD_BY_PARAM[param].label if param in FIELD_BY_PARAM else param


def _lecture_steps(valid: list[Side], rows: list[Row], chart_labels: list[str]) -> list[dict[str, Any]]:
    """Lecture mode's steps, one a row of the table (scenario by scenario, each one's protocols in order): the figures
    that matter (the time that leads, with loss the expected one with the lossless one beside it, the round trips,
    the difference from A) and the why, grouped by scenario for the stepper's filters; ``bar`` names the row's bar
    on the chart (its y label)."""
    results = [r for side in valid for r in side.results]
    rates = {side.name: side.state.scenario.network.loss_rate for side in valid if side.state.scenario is not None}
    steps = []
    for row, result, bar in zip(rows, results, chart_labels, strict=True):
        trips = int(result["counts"]["round_trips"])
        time_words = f"{row.load_ms:,.1f} ms"
        fields = {"scenario": row.side, "protocol": row.name}
        if row.lossy:
            rate = f"{rates[row.side] * 100:.3g}%"
            time_words += f" expected with {rate} loss ({row.lossless_ms:,.1f} ms without)"
            fields[f"expected time with {rate} loss"] = f"{row.load_ms:,.1f} ms"
            fields["time without loss"] = f"{row.lossless_ms:,.1f} ms"
        else:
            fields["page load time"] = f"{row.load_ms:,.1f} ms"
        fields["round trips"] = f"{trips:,}" + (" (of the lossless schedule)" if row.lossy else "")
        if row.diff_ms is None:
            against = "the baseline"
            fields["difference from A"] = "the baseline"
        else:
            ratio = "" if row.ratio is None else f", {row.ratio:.2f}\N{MULTIPLICATION SIGN} A"
            against = f"{row.diff_ms:+,.1f} ms vs {row.baseline}{ratio}"
            fields["difference from A"] = against
        text = f"{row.side}, {row.name}: {time_words}; {trips:,} round trip{'' if trips == 1 else 's'}; {against}"
        steps.append(
            {"text": text, "group": row.side, "bar": bar, "fields": fields, "why": [row.why.text], "why_label": "why"}
        )
    return steps


def _projector(fig: dict[str, Any], bars: int) -> dict[str, Any]:
    """The comparison's chart for a projector: its texts larger, its bars taller (a copy)."""
    layout = dict(fig["layout"])
    layout["font"] = {**layout.get("font", {}), "size": PROJECTOR_FONT_PX}
    layout["height"] = 160 + PROJECTOR_BAR_PX * bars
    layout["margin"] = {**layout.get("margin", {}), "b": 90}
    # the axis' title goes to the figure's caption (lecture.html), in the page's large type: drawn at this size beside
    # the bars' long names it ran past a phone's width
    layout["xaxis"] = {**layout.get("xaxis", {}), "title": {"text": ""}}
    return {**fig, "layout": layout}


@bp.get("/compare")
def index() -> tuple[str, int] | Response:
    """The comparison page (or its print view); a card's picker is answered with a redirect (303)."""
    printing = request.args.get("view") == "print"
    lecture = request.args.get("lecture") == "1" and not printing
    template = "compare/print.html" if printing else "compare/lecture.html" if lecture else "compare/index.html"
    context: dict[str, Any] = {
        "table1_url": table1_url(),
        "h96_citation": H96_CITATION,
        "printing": printing,
        "lecture": lecture,
        "leave_url": url_for("compare.index"),
    }
    try:
        preset, shared, own, n = _read_query(request.args)
    except BadComparison as exc:
        return render_template(template, errors=exc.messages, sides=[], **context), 400
    if preset and preset not in PRESETS:
        message = f"There is no preset {preset!r}; choose one of: {', '.join(PRESETS)}."
        return render_template(template, errors=[message], sides=[], **context), 400
    if "edit" in request.args:
        try:
            return redirect(_edited(request.args, preset, shared, own, n), 303)
        except BadComparison as exc:
            return render_template(template, errors=exc.messages, sides=[], **context), 400
    sides: list[Side] = []
    for letter in LETTERS[:n]:
        given = own.get(letter, [])
        mine = dict(given)
        side_preset = mine.get("preset", preset)
        args: MultiDict[str, str] = MultiDict([("preset", side_preset)] if side_preset else [])
        for k, v in shared:
            if k not in mine:
                args.add(k, v)
        for k, v in given:
            if k != "preset":
                args.add(k, v)
        sides.append(Side(letter, given, read(args)))
    # the comparison is one request: its scenarios' work together, refused before any of them runs
    units = sum(work_units(side.state.scenario) for side in sides if side.state.scenario is not None)
    limit = check(units, MAX_WORK_UNITS, "max_work_units", f"comparing these {n} scenarios")
    if limit is not None:
        fields = sorted({f for side in sides if side.state.scenario for f in costly_fields(side.state.scenario)})
        message = f"{limit.message[:1].upper()}{limit.message[1:]}; the fields that cost most: {', '.join(fields)}."
        return render_template(template, errors=[message], sides=[], **context), 422
    status = 200
    try:
        for side in sides:
            if side.state.scenario is None:
                status = 400
                continue
            out = predict(side.state.scenario)
            side.results = out["results"]
            side.whys = {r["protocol"]: why(r, side.state.scenario) for r in side.results}
            side.calculator_url = url_for("calculator.index") + ("?" + side.state.query if side.state.query else "")
            for key, (words, changes) in _toggles(side, side.state.scenario).items():
                side.toggles.append(
                    {
                        "key": key,
                        "name": TOGGLES[key],
                        "words": words,
                        "url": comparison_address(preset, shared, _with(own, side.letter, changes), n),
                    }
                )
    except WorkLimitExceeded as exc:
        return render_template(template, errors=[exc.limit.message], sides=[], **context), 422
    for side in sides:
        if n > MIN_SCENARIOS:
            keep = [letter for letter in LETTERS[:n] if letter != side.letter]
            moved = {LETTERS[i]: own.get(letter, []) for i, letter in enumerate(keep)}  # the later ones move up
            side.remove_url = comparison_address(preset, shared, moved, n - 1)
            side.remove_words = f"Remove {side.name}"
        else:  # two scenarios: removing one leaves the other, which the calculator shows on its own
            other = next(s for s in sides if s is not side)
            if other.calculator_url:
                side.remove_url = other.calculator_url
                side.remove_words = f"Remove {side.name} (open {other.name} alone in the calculator)"
        side.drops = [
            {
                "label": "preset" if k == "preset" else _label(k),
                "url": comparison_address(preset, shared, _with(own, side.letter, {k: None}), n),
            }
            for k, _ in side.given
        ]
    valid = [s for s in sides if s.results]
    rows = _rows(valid) if valid and valid[0] is sides[0] else []
    chart_rows = [
        {**r, "protocol": f"{s.name}: {PROTOCOL_NAMES.get(r['protocol'], r['protocol'])}"}
        for s in valid
        for r in s.results
    ]
    address = comparison_address(preset, shared, own, n)
    scenario_words, loss_text = _scenario_words(sides, preset, shared)
    breakdown = charts.breakdown_bar(chart_rows) if chart_rows else None
    if lecture and breakdown is not None:
        breakdown = _projector(breakdown, len(chart_rows))
    steps = _lecture_steps(valid, rows, [str(r["protocol"]) for r in chart_rows]) if lecture and rows else []
    context.update(
        scenario_words=scenario_words,
        loss_words=loss_text,
        address_pairs=_address_pairs(address),
        picker=PICKER,
        errors=[],
        sides=sides,
        rows=rows,
        preset=PRESETS.get(preset),
        preset_name=preset,
        described={s.letter: _described(s, shared) for s in sides},
        breakdown_fig=charts.to_json(breakdown) if breakdown is not None else None,
        address=address,
        print_url=address + "&view=print",
        lecture_url=address + "&lecture=1",
        leave_url=address,
        lecture_steps=steps,
        steps_json=Markup(json.dumps(steps, ensure_ascii=False).replace("</", "<\\/")),
        n=n,
        add_url=comparison_address(preset, shared, _with(own, LETTERS[n], dict(own.get(LETTERS[n - 1], []))), n + 1)
        if n < len(LETTERS)
        else None,
        any_lossy=any(r.lossy for r in rows),
        loss_rates=sorted({s.state.scenario.network.loss_rate for s in valid if s.state.scenario is not None} - {0.0}),
        toggle_names=TOGGLES,
        is_table1=address == context["table1_url"],
        h96_rows=list(H96_ROWS.values()),
    )
    return render_template(template, **context), status
