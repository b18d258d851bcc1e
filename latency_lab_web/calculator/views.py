"""The calculator page: every scenario field in a form, and the protocols compared.

``GET /`` takes the scenario in the API's query syntax (:mod:`latency_lab_web.web.query`): ``preset=NAME`` plus
dotted fields (``network.rtt_ms=70``, ``page.object_bytes=2544,1000``, ``protocols=http10,getall``),
and ``sweep=FIELD`` choosing the sweep plot's field. A field left out or blank keeps the preset's
value (or the model's default; TCP fields follow the TCP profile). Three rules let a field replace
what the preset gave in another form (:func:`latency_lab.scenario.overlay.overlay`, as every front end): ``page.object_count`` or
``page.object_size_bytes`` replace the preset's ``page.object_bytes`` (and the reverse), and
``network.rtt_ms`` replaces both one-way delays.

The form's fields and how a query is read into a scenario are :mod:`latency_lab_web.web.form`'s. The address always holds
the scenario in its shortest form (:func:`latency_lab_web.web.form.canonical`: only what differs from the preset): a plain
form submission is redirected there, an htmx request (header ``HX-Request``) gets the calculator's fragment
and ``HX-Push-Url`` with it. Invalid input: HTTP 400, a message beside each field (what is wrong and the
allowed range), ``aria-invalid``; never a 500.

``GET /sweep.csv`` gives the sweep plot's data for the same query.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import pickle
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode

from flask import Response, current_app, redirect, render_template, request, url_for
from flask.blueprints import BlueprintSetupState
from pydantic import ValidationError
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import RequestEntityTooLarge

from latency_lab import ALL_PROTOCOLS, PRESETS, ProtocolResult, Scenario, predict
from latency_lab.analysis import leading
from latency_lab.analysis.leading import head_of_line_ms, leading_ms, lossless_ms, parts_ms
from latency_lab.analysis.sweep import SweepRequest, SweepResult, SweepSeries, base_document, point, sweep
from latency_lab.analysis.sweep import csv_rows as sweep_csv_rows
from latency_lab.scenario.errors import problems
from latency_lab.scenario.har import HarError, load_har, to_scenario
from latency_lab.scenario.limits import (
    MAX_HAR_BYTES,
    PLAIN_STEPS_PER_UNIT,
    WORK_FREE_FIELDS,
    WorkLimitExceeded,
    run_cost,
)
from latency_lab.scenario.limits import budget as budget_of
from latency_lab.scenario.overlay import overlay
from latency_lab.scenario.schema import Origin
from latency_lab_web.calculator import bp
from latency_lab_web.figures import compare as charts
from latency_lab_web.web.cache import ByteLRU
from latency_lab_web.web.filters import format_ms, format_number
from latency_lab_web.web.form import (
    DEFAULT_SWEEP,
    FIELD_BY_PARAM,
    LOSSY_SWEEP_WORK_BUDGET,
    SECTIONS,
    SIMPLE_FIELDS,
    SWEEP_FILL_WORK_BUDGET,
    SWEEP_WORK_BUDGET,
    SWEEPS,
    FormField,
    State,
    SweepChoice,
    describe,
    query_text,
    read,
    unit_of,
    validate_doc,
)
from latency_lab_web.web.har import UPLOAD_FRAMING_BYTES, calculator_query
from latency_lab_web.web.query import OBJECT_LISTS, SCENARIO_PARAMS, object_list_pairs
from latency_lab_web.web.units import EXAMPLES, readable
from latency_lab_web.web.words import FRIENDLY_NAMES, LOSS_PART_NAMES, PROTOCOL_NAMES, part_name, why

# --- what the page shows -------------------------------------------------------------------------------


def _value_text(value: Any) -> str:
    if value is None:
        return ""
    return query_text(value)


def effective_value(scenario: Scenario, f: FormField) -> Any:
    """A field's value in the scenario; a field of a list's objects (``page.origins.dns_ms``) is the list of theirs."""
    value: Any = scenario
    for part in f.param.split("."):
        value = [getattr(v, part) for v in value] if isinstance(value, list) else getattr(value, part)
    return value


#: Where a readout in other units says more than the number (1,460 bytes needs none).
READABLE_FROM = {"ms": 1000.0, "bit/s": 1000.0, "bytes": 10_000.0}


def _readable(given: str | None, effective: Any, unit: str | None) -> str:
    """A unit field's value in the units people read (``1.544 Mbit/s``), where that says more than the number."""
    if unit is None or unit not in READABLE_FROM:
        return ""
    value = effective
    if given:
        try:
            value = float(given)
        except ValueError:
            return ""
    if isinstance(value, bool) or not isinstance(value, int | float) or abs(value) < READABLE_FROM[unit]:
        return ""
    return readable(float(value), unit)


def _mode_url(state: State) -> str:
    """The same scenario in the other mode (simple, or every field)."""
    query = state.query if state.scenario is not None else state.raw_query
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "mode"]
    if not state.mode:
        pairs.append(("mode", "simple"))
    return url_for("calculator.index") + ("?" + urlencode(pairs, safe=",") if pairs else "")


def form_context(state: State) -> dict[str, Any]:
    """What the form template needs: each section's fields with value, placeholder, range and messages."""
    shown = state.scenario
    if shown is None:
        try:
            shown = validate_doc(copy.deepcopy(state.base_doc)) if state.base_doc else Scenario()
        except ValidationError:  # pragma: no cover - presets are valid (tests/model)
            shown = Scenario()
    sections = []
    for s in SECTIONS:
        fields = []
        for f in s.fields:
            effective = effective_value(shown, f)
            if f.param == "page.object_count" and effective is None:
                effective = len(shown.page.sizes())
            sp = f.spec
            unit = unit_of(f.param)
            choices: list[tuple[str, str]] = []
            if sp.kind == "boolean":
                choices = [("true", "yes"), ("false", "no")]
            elif sp.kind == "choice":
                choices = [(str(c), str(c)) for c in sp.choices]
            fields.append(
                {
                    "f": f,
                    "id": f.dom_id,
                    "value": state.given.get(f.param, ""),
                    "effective": _value_text(effective),
                    "choices": choices,
                    "errors": state.errors.get(f.param, []),
                    "inputmode": "text" if unit else "numeric" if sp.kind == "integer" else "decimal",
                    "unit": unit,
                    "units_example": EXAMPLES.get(unit or "", ""),
                    "readable": _readable(state.given.get(f.param), effective, unit if sp.kind != "array" else None),
                }
            )
        sections.append(
            {
                "s": s,
                "fields": fields,
                "errors": state.errors.get(s.name, []) if s.name else [],
                "notes": state.notes.get(s.name, []) if s.name else [],
            }
        )
    protocols_given = state.given.get("protocols")
    chosen = [p for p in protocols_given.split(",") if p] if protocols_given is not None else list(shown.protocols)
    return {
        "sections": sections,
        "protocol_choices": list(ALL_PROTOCOLS),
        "protocols_chosen": chosen,
        "presets": PRESETS,
        "preset_name": state.preset,
        "preset_info": PRESETS.get(state.preset),
        "sweeps": SWEEPS,
        "sweep": state.sweep,
        "default_sweep": DEFAULT_SWEEP,
        "errors": state.errors,
        "general_errors": state.errors.get("", []),
        "mode": state.mode,
        # parallel connections need their number: in view when such a protocol is chosen
        "simple_fields": [
            *SIMPLE_FIELDS,
            *(["http.parallel_connections"] if {"http10_parallel", "persistent_parallel"} & set(chosen) else []),
        ],
        "friendly_names": FRIENDLY_NAMES,
        "mode_url": _mode_url(state),
    }


#: The calculator's caches (per process, made with the app from its config: see ``create_app``), both
#: :class:`latency_lab_web.web.cache.ByteLRU` (the class of the API's cache), each value one ``bytes`` object whose length is
#: what the budget counts:
#:
#: - ``results_cache``: the rendered results fragment of each canonical query, UTF-8 encoded (about 80-90 KB for
#:   a preset with its 121-point sweep plot, 0.58 MB for a 400-object page, 2 MB at most), with its one-line summary; under
#:   ``PAGE_CACHE_BYTES``. Encoded, not the ``str``: the fragment's one "★" makes Python store every
#:   character of the string in 2 bytes, so the string holds twice the memory its length says.
#: - ``sweep_cache``: the sweep plot of each scenario without its swept field, pickled (about 17 KB for the
#:   n97-wan preset's 101-point object-count sweep); under
#:   ``SWEEP_CACHE_BYTES``.
#:
#: A value over ``PAGE_CACHE_MAX_ENTRY_BYTES`` is not kept. A hit costs a decode (about 30 µs for a preset's
#: results, 1 ms for the largest) or an unpickling (about 20 µs).
RESULTS_CACHE = "results_cache"
SWEEP_CACHE = "sweep_cache"


def _results_bytes(value: tuple[bytes, str]) -> int:
    body, announce = value
    return len(body) + sys.getsizeof(announce)


@bp.record_once
def _make_caches(state: BlueprintSetupState) -> None:
    config = state.app.config
    entry = int(config["PAGE_CACHE_MAX_ENTRY_BYTES"])
    state.app.extensions[RESULTS_CACHE] = ByteLRU(int(config["PAGE_CACHE_BYTES"]), entry, _results_bytes)
    state.app.extensions[SWEEP_CACHE] = ByteLRU(int(config["SWEEP_CACHE_BYTES"]), entry, len)


def _results_cache() -> ByteLRU[tuple[bytes, str]]:
    cache: ByteLRU[tuple[bytes, str]] = current_app.extensions[RESULTS_CACHE]
    return cache


def _sweep_cache() -> ByteLRU[bytes]:
    cache: ByteLRU[bytes] = current_app.extensions[SWEEP_CACHE]
    return cache


@dataclass
class SweepPlot:
    out: SweepResult | None
    choice: SweepChoice
    note: str
    left_out: list[float]  # every value not drawn: over the budget (filled in later, :func:`fill_plan`) or invalid
    error: str
    invalid: list[float] = field(default_factory=list)  # the values this scenario does not allow (never drawn)
    fills: int = 0  # how many follow-up requests (``GET /sweep-points``) draw the values left out for the budget

    @property
    def over_budget(self) -> list[float]:
        """The values left out for the page's time budget (the rest of :attr:`left_out` is :attr:`invalid`)."""
        return [v for v in self.left_out if v not in self.invalid]


def sweep_base(state: State, choice: SweepChoice) -> tuple[dict[str, Any], str]:
    """The sweep plot's cache key (the scenario's document with the swept field given, less that field) and a note.

    The swept field is given on top of the scenario by the rules every front end uses
    (:func:`latency_lab.scenario.overlay.overlay`, as :func:`latency_lab.analysis.sweep.base_document` gives it): sweeping the
    objects' count or size turns a page given as a list of sizes into ``count`` objects of one size (their mean
    size, when they differ; the note says so).
    """
    assert state.scenario is not None
    section, name = choice.param.split(".", 1)
    notes: list[str] = []
    key = overlay(state.document, {section: {name: None}}, notes)
    note = notes[0] if notes else ""
    sizes = state.scenario.page.sizes()
    if choice.param == "page.object_size_bytes" and len(set(sizes)) > 1:
        note = f"In the sweep all {len(sizes)} objects of the page have the same size."
    key.get(section, {}).pop(name, None)
    return key, note


def _within_budget(costs: list[tuple[int, float, Scenario]], budget: int) -> list[tuple[int, float, Scenario]]:
    """The points of ``costs`` (cost, value, scenario; in the field's order) the sweep plot runs within ``budget``:
    all of them if they fit, else every k-th (with the last) for the smallest k that fits, so the plot still spans
    the field's range; failing that, the cheapest that fit."""
    n = len(costs)
    for k in range(1, max(n // 2, 1) + 1):
        picked = sorted({*range(0, n, k), n - 1}) if n else []
        if sum(costs[i][0] for i in picked) <= budget:
            return [costs[i] for i in picked]
    out: list[tuple[int, float, Scenario]] = []
    total = 0
    for cand in sorted(costs, key=lambda c: (c[0], c[1])):
        if total + cand[0] > budget:
            break
        total += cand[0]
        out.append(cand)
    return out


def fill_plan(left: list[tuple[int, float, Scenario]], budget: int = SWEEP_FILL_WORK_BUDGET) -> list[list[int]]:
    """The follow-up requests that draw the points ``left`` out of a page's sweep (cost, value, scenario; in the
    field's order): consecutive runs of them, each costing at most ``budget`` (:data:`SWEEP_FILL_WORK_BUDGET`, one
    request's work), as indices into ``left``. A point costing more than ``budget`` alone is in none: no request can
    draw it, so it stays left out."""
    slices: list[list[int]] = []
    current: list[int] = []
    total = 0
    for i, (cost, _, _) in enumerate(left):
        if cost > budget:
            continue
        if current and total + cost > budget:
            slices.append(current)
            current, total = [], 0
        current.append(i)
        total += cost
    if current:
        slices.append(current)
    return slices


@dataclass
class Costed:
    """A sweep's points, priced before any runs (:func:`costed`)."""

    req: SweepRequest
    key_doc: dict[str, Any]
    note: str
    costs: list[tuple[int, float, Scenario]]  # (run_cost, value, scenario) of each valid value, in the field's order
    invalid: list[float]  # the values this scenario does not allow


def known_cost(scenario: Scenario, param: str) -> Callable[[float], int] | None:
    """What a valid point of ``scenario`` at each value of the field ``param`` costs (:func:`run_cost`), known without
    validating the point, or ``None`` where each point must be priced itself: a field the work does not read
    (:data:`~latency_lab.scenario.limits.WORK_FREE_FIELDS`) costs every point what the scenario costs, and the loss rate only
    by whether it is 0 (:func:`run_cost` reads nothing else of it: the loss chart's 0 costs a lossless run, its other
    rates a lossy one). ``tests/latency_lab_web/test_sweep_plot.py`` holds it to :func:`run_cost` of every point of the presets."""
    if param in WORK_FREE_FIELDS:
        each = run_cost(scenario)
        return lambda value: each
    if param == "network.loss_rate":
        net = scenario.network
        lossless = run_cost(scenario.model_copy(update={"network": net.model_copy(update={"loss_rate": 0.0})}))
        lossy = (
            run_cost(scenario)
            if net.loss_rate > 0
            else run_cost(scenario.model_copy(update={"network": net.model_copy(update={"loss_rate": 0.01})}))
        )
        return lambda value: lossy if value > 0 else lossless
    return None


def costed(state: State, choice: SweepChoice) -> Costed:
    """Every value of ``choice`` as a point of ``state``'s scenario, validated and priced (:func:`run_cost`, or
    :func:`known_cost` where the field's points cost what the scenario says; about 10 ms for 121 lossy points), none
    run."""
    assert state.scenario is not None
    known = known_cost(state.scenario, choice.param)
    key_doc, note = sweep_base(state, choice)
    integer = SCENARIO_PARAMS[choice.param].kind == "integer"
    req = SweepRequest(
        scenario=state.scenario, field=choice.param, values=[int(v) if integer else float(v) for v in choice.values]
    )
    base = base_document(req)
    costs: list[tuple[int, float, Scenario]] = []
    invalid: list[float] = []
    for value in req.values or ():
        try:
            s = point(req, base, value)  # each point validated once: costed here, then swept as it is
        except ValidationError:
            invalid.append(value)  # outside what this scenario allows (the segment cap, a window below the MSS, ...)
            continue
        costs.append((known(value) if known is not None else run_cost(s), value, s))
    return Costed(req, key_doc, note, costs, invalid)


T = TypeVar("T")


def _kept(key: str, make: Callable[[], T]) -> T:
    """``make()``, kept in the sweep cache under ``key``: pickled, made by this process, never read from outside."""
    cache = _sweep_cache()
    hit = cache.get(key)
    if hit is not None:
        cached: T = pickle.loads(hit)
        return cached
    out = make()
    cache.put(key, pickle.dumps(out, pickle.HIGHEST_PROTOCOL))
    return out


def _cache_key(choice: SweepChoice, key_doc: dict[str, Any], *extra: Any) -> str:
    return json.dumps([choice.param, key_doc, *extra], sort_keys=True)


def _plot_key(choice: SweepChoice, key_doc: dict[str, Any], chosen: bool, budget: int) -> str:
    """The cache key of :func:`run_sweep`'s plot (``key_doc``: :func:`sweep_base`'s)."""
    return _cache_key(
        choice,
        key_doc,
        *([list(choice.values)] if chosen else []),
        *([budget] if budget != SWEEP_WORK_BUDGET else []),
    )


def run_sweep(
    state: State, chosen: SweepChoice | None = None, budget: int = SWEEP_WORK_BUDGET, priced: Costed | None = None
) -> SweepPlot:
    """The sweep plot's data: every protocol at each of the field's values (``chosen``, else the page's sweep field),
    within the work budget. ``priced``: the field's points as :func:`costed` gave them, where the caller has them
    (so no point is validated twice)."""
    choice = chosen or SWEEPS[state.sweep]
    key_doc, note = sweep_base(state, choice)
    return _kept(
        _plot_key(choice, key_doc, chosen is not None, budget), lambda: _plot(state, choice, note, budget, priced)
    )


def _plot(state: State, choice: SweepChoice, note: str, budget: int, priced: Costed | None) -> SweepPlot:
    """:func:`run_sweep`'s plot, made."""
    c = priced or costed(state, choice)
    kept = [(value, s) for _, value, s in _within_budget(c.costs, budget)]
    kept.sort(key=lambda k: k[0])
    kept_values = [v for v, _ in kept]
    left = [cost for cost in c.costs if cost[1] not in kept_values]
    left_out = [v for _, v, _ in left] + c.invalid
    if len(kept) < 2:
        plot = SweepPlot(
            None, choice, note, left_out, "Too few values of this field fit this scenario for a sweep.", c.invalid
        )
    else:
        try:
            # the points' own step budget, as many steps as their units may take (PLAIN_STEPS_PER_UNIT): the
            # work was decided above, before it started, and a lossy page's sweeps may take more than the request's
            with budget_of(PLAIN_STEPS_PER_UNIT * budget):
                out = sweep(c.req.model_copy(update={"values": kept_values}), kept)
        except WorkLimitExceeded as exc:  # the engine's hard budget, past the estimate
            plot = SweepPlot(None, choice, note, left_out, f"The sweep cannot run: {exc}", c.invalid)
        else:
            plot = SweepPlot(out, choice, note, sorted(left_out), "", sorted(c.invalid), len(fill_plan(left)))
    return plot


class NoFill(LookupError):
    """The page has no such chart or slice to fill in: the query's ``field`` and a message for the reader."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass
class Fill:
    """The follow-up requests of a page's sweep plot or loss chart, priced and none run (:func:`fill_of`)."""

    choice: SweepChoice
    costed: Costed
    kept: list[tuple[int, float, Scenario]]  # the points the page draws itself (its budget's, :func:`_within_budget`)
    left: list[tuple[int, float, Scenario]]  # the points it leaves out for its budget, in the field's order
    slices: list[list[int]]  # each follow-up request's points, as indices into ``left`` (:func:`fill_plan`)

    @property
    def over_budget(self) -> list[float]:
        return [v for _, v, _ in self.left]

    def slice_key(self, number: int) -> str:
        """The cache key of slice ``number``'s points: the scenario less the swept field, and the slice's values."""
        return _cache_key(self.choice, self.costed.key_doc, "fill", [self.left[i][1] for i in self.slices[number]])

    def slice_cost(self, number: int) -> int:
        return sum(self.left[i][0] for i in self.slices[number])


def _chart(state: State, chart: str) -> tuple[SweepChoice, int]:
    """The field and values of the page's sweep plot (``chart`` ``"sweep"``) or loss chart (``"loss"``) and the work
    the page's own answer gives it; :class:`NoFill` where the page draws no such chart."""
    assert state.scenario is not None
    if chart == "sweep":
        return SWEEPS[state.sweep], sweep_budget(state)
    if state.scenario.network.loss_rate <= 0 or SWEEPS[state.sweep].param == LOSS_CHART.param:
        raise NoFill(
            "chart",
            "This page draws no loss chart of its own (its loss rate is 0, or its sweep plot is the loss rate's).",
        )
    return LOSS_CHART, _lossy_budget(state) - sweep_budget(state)


def _too_few(chart: str) -> NoFill:
    return NoFill("chart", f"This scenario has no {chart} chart to fill in: too few of its values fit.")


def most_slices(costs: list[int], page_budget: int, budget: int = SWEEP_FILL_WORK_BUDGET) -> int:
    """At most how many follow-up requests a chart has whose values would cost ``costs`` (each value's cost if it is
    valid, in the field's order) and whose page draws ``page_budget`` of them itself (:func:`_within_budget`; at most
    ``budget``), whichever of the values turn out valid: the valid ones are some of them, each costing what
    ``costs`` says. None if they all fit the page's budget. Else the values drawn by follow-up requests (each costing
    at most ``budget``, :func:`fill_plan`) are all but the at least two the page draws, and two slices in a row cost
    more than ``budget`` together (the second's first value did not fit the first), so ``2 k`` slices cost more than
    ``k x budget``; and a slice but the last holds at least as many values as ``budget`` holds of the costliest."""
    if page_budget > budget:  # the page might draw values no follow-up request could: no bound but their number
        return len(costs)
    if sum(costs) <= page_budget:
        return 0
    fillable = sorted(c for c in costs if c <= budget)
    if len(fillable) <= 2:
        return 0
    rest = sum(fillable) - fillable[0] - fillable[1]  # the page draws at least two (else it has no chart)
    by_work = 2 * -(-rest // budget) - 1
    by_count = -(-(len(fillable) - 2) // (budget // fillable[-1]))
    return max(0, min(by_work, by_count))


def unpriced_refusal(state: State, chart: str, number: int) -> NoFill | None:
    """A follow-up request's refusal decided before any point is validated or priced, where the field's points cost
    what the page's scenario says (:func:`known_cost`): the chart's two cheapest values cost more than the page's
    budget (the page draws no such chart), or slice ``number`` is past the most the chart can have
    (:func:`most_slices`). Else ``None``: :func:`fill_of` prices the points and :func:`run_slice` decides. Pricing
    the 121 points of a 1,000-object page took 50-120 ms of CPU (bench/worst_case.py lossy_fill, 2026-11-28)."""
    assert state.scenario is not None
    choice, page_budget = _chart(state, chart)
    known = known_cost(state.scenario, choice.param)
    if known is None:
        return None
    costs = [known(v) for v in choice.values]
    if len(costs) < 2 or sum(sorted(costs)[:2]) > page_budget:
        return _too_few(chart)
    most = most_slices(costs, page_budget)
    if number < most:
        return None
    if most == 0:
        return NoFill("slice", "This chart has 0 slices to fill in.")
    return NoFill("slice", f"This chart has at most {most} slices to fill in (0 to {most - 1}); there is no {number}.")


def fill_of(state: State, chart: str, priced: Costed | None = None) -> Fill:
    """The page's sweep plot (``chart`` ``"sweep"``) or loss chart (``"loss"``): the values it draws within its budget
    and those it leaves out, in slices for the follow-up requests; only priced (:func:`costed`), nothing runs, so a
    follow-up request costs its slice whether or not the page's own plot is still in the cache. ``priced``: the chart's
    points as :func:`costed` gave them, where the caller has them. :class:`NoFill` where the page has no such chart."""
    choice, page_budget = _chart(state, chart)
    c = priced or costed(state, choice)
    kept = _within_budget(c.costs, page_budget)
    if len(kept) < 2:
        raise _too_few(chart)
    values = {value for _, value, _ in kept}
    left = [cost for cost in c.costs if cost[1] not in values]
    return Fill(choice, c, kept, left, fill_plan(left))


def run_slice(fill: Fill, number: int) -> SweepResult:
    """The points of follow-up request ``number`` (priced before they run: at most :data:`SWEEP_FILL_WORK_BUDGET`),
    cached by the scenario less the swept field and the slice's values. :class:`NoFill` where there is no such slice."""
    if not 0 <= number < len(fill.slices):
        n = len(fill.slices)
        raise NoFill("slice", f"This chart has {n} slices to fill in" + (f" (0 to {n - 1})." if n else "."))
    pts = [(fill.left[i][1], fill.left[i][2]) for i in fill.slices[number]]

    def make() -> SweepResult:
        with budget_of(PLAIN_STEPS_PER_UNIT * SWEEP_FILL_WORK_BUDGET):  # the steps its units may take, as run_sweep's
            return sweep(fill.costed.req.model_copy(update={"values": [v for v, _ in pts]}), pts)

    return _kept(fill.slice_key(number), make)


def still_left_out(fill: Fill, number: int) -> list[float]:
    """The values left out for the budget once follow-up requests 0 to ``number`` are drawn (:func:`fill_plan`: those
    no request can draw stay)."""
    drawn = {fill.left[i][1] for s in fill.slices[: number + 1] for i in s}
    return [v for v in fill.over_budget if v not in drawn]


def merged(outs: list[SweepResult]) -> SweepResult:
    """Sweep results of the same scenario and field at different values as one, in the order of the values."""
    first = outs[0]
    order = sorted((v, k, i) for k, o in enumerate(outs) for i, v in enumerate(o["values"]))
    series: list[SweepSeries] = []
    for j, s in enumerate(first["series"]):
        each = [outs[k]["series"][j] for k in range(len(outs))]
        counts = list(dict.fromkeys(name for e in each for name in e["counts"]))
        series.append(
            {
                "protocol": s["protocol"],
                "page_load_ms": [each[k]["page_load_ms"][i] for _, k, i in order],
                "expected_with_loss_ms": [each[k]["expected_with_loss_ms"][i] for _, k, i in order],
                "counts": {name: [each[k]["counts"][name][i] for _, k, i in order] for name in counts},
            }
        )
    return {**first, "values": [v for v, _, _ in order], "series": series}


def _values_text(values: list[float]) -> str:
    if len(values) > 8:
        return f"{len(values)} values from {format_number(min(values))} to {format_number(max(values))}"
    return ", ".join(format_number(v) for v in values)


def left_out_text(over_budget: list[float], invalid: list[float], still: list[float] | None = None) -> str:
    """What the sweep plot's caption says of the values it does not draw: those over the page's time budget (``still``:
    those left once the follow-up requests so far are drawn; by default all of ``over_budget``) and those not valid
    for the scenario (``invalid``); once every value the budget left out is drawn, that none is."""
    over = over_budget if still is None else still
    words = []
    if over:
        words.append(f"Left out (over this page's time budget): {_values_text(over)}.")
    elif over_budget:
        words.append("No value was left out for the time budget.")
    if invalid:
        words.append(f"Left out (not valid for this scenario): {_values_text(invalid)}.")
    return " ".join(words)


def loss_left_out_text(over_budget: list[float], still: list[float] | None = None) -> str:
    """The same for the loss chart, which counts its rates."""
    over = over_budget if still is None else still
    if over:
        return f"Left out to keep within this page's time budget: {len(over)} of the rates."
    return "No rate was left out for the time budget." if over_budget else ""


def fill_url(state: State, chart: str, number: int) -> str:
    """The address of follow-up request ``number`` of the page's ``chart`` (``sweep`` or ``loss``): the page's query
    and which slice (:func:`sweep_points`)."""
    return url_for("calculator.sweep_points") + "?" + _join(state.query, f"chart={chart}&slice={number}")


@dataclass(frozen=True)
class Row:
    """One protocol's line of the results: the time that leads (:mod:`latency_lab.analysis.leading`) and the rest."""

    protocol: str
    leading_ms: float
    lossless_ms: float
    extra_ms: float  # the expected extra time with loss (0 without)
    ratio: float | None  # the time that leads over the reference's
    round_trips: int
    parts: dict[str, float]  # the time that leads in named parts (latency_lab.analysis.leading.parts_ms)
    result: ProtocolResult


def table_rows(results: list[ProtocolResult], reference_ms: float) -> list[Row]:
    """The results table's rows, each read by :mod:`latency_lab.analysis.leading` (the one place that picks the time)."""
    return [
        Row(
            r["protocol"],
            leading_ms(r),
            lossless_ms(r),
            leading_ms(r) - lossless_ms(r),
            leading_ms(r) / reference_ms if reference_ms else None,
            int(r["counts"].get("round_trips", 0)),
            parts_ms(r),
            r,
        )
        for r in results
    ]


def folded(keys: list[str], rows: list[dict[str, float]]) -> tuple[list[str], list[str]]:
    """``keys`` split into those some row has a value for and those zero in every row (folded into a note)."""
    shown = [k for k in keys if any(row.get(k, 0) for row in rows)]
    return shown, [k for k in keys if k not in shown]


#: The chart of what each protocol's time becomes as loss grows: the sweep plot's loss rates, three a decade (0 and
#: 13 rates from 0.00078 to 0.2).
LOSS_CHART = SweepChoice(
    "network.loss_rate",
    SWEEPS["network.loss_rate"].label,
    tuple(dict.fromkeys([*SWEEPS["network.loss_rate"].values[::10], SWEEPS["network.loss_rate"].values[-1]])),
    True,
)


def _lossy_budget(state: State) -> int:
    """The work the sweep plot and :data:`LOSS_CHART` may cost together on a lossy page: :data:`LOSSY_SWEEP_WORK_BUDGET`
    less twice the page's own prediction (its run and its document), so a costly page keeps fewer points and the
    request as a whole stays within its time."""
    assert state.scenario is not None
    return max(LOSSY_SWEEP_WORK_BUDGET - 2 * run_cost(state.scenario), 0)


def sweep_budget(state: State) -> int:
    """The sweep plot's work budget: :data:`SWEEP_WORK_BUDGET` without loss; with loss :func:`_lossy_budget`, less
    what :data:`LOSS_CHART` needs where the page draws it too (:func:`loss_sweep`: its 13 rates at this scenario's cost
    a point, at most two thirds), so the chart keeps its points first and the field's 121 values take the rest. Before
    2026-11-28 a lossy page shared the lossless budget half and half at 36 units a unit: p98-satellite and n97-wan at
    1 % kept 3 of the 121 round-trip times and 3 of the 13 rates."""
    assert state.scenario is not None
    if state.scenario.network.loss_rate <= 0:
        return SWEEP_WORK_BUDGET
    total = _lossy_budget(state)
    if SWEEPS[state.sweep].param == LOSS_CHART.param:
        return total
    return total - min(len(LOSS_CHART.values) * run_cost(state.scenario), total * 2 // 3)


def loss_sweep(state: State, plot: SweepPlot) -> tuple[SweepPlot | None, str | None]:
    """With loss, what each protocol's expected time becomes as the loss rate grows: the loss-rate sweep (the page's
    own sweep plot when that is the field, else :data:`LOSS_CHART` within the half of the budget the sweep plot leaves
    it, :func:`sweep_budget`) and its chart."""
    assert state.scenario is not None
    if state.scenario.network.loss_rate <= 0:
        return None, None
    if plot.choice.param == LOSS_CHART.param:
        loss_plot = plot
    else:
        loss_plot = run_sweep(state, LOSS_CHART, _lossy_budget(state) - sweep_budget(state))
    if loss_plot.out is None:
        return loss_plot, None
    return loss_plot, charts.to_json(charts.loss_lines(loss_plot.out, state.scenario.network.loss_rate))


def _origin_path_text(scenario: Scenario, origin: Origin | None) -> str:
    """The path an origin's connections cross, in words: the network's, or its own (its RTT and rate, the network's
    where it gives none)."""
    if origin is None or not origin.own_path:
        return "the network's"
    n = scenario.network
    rtt = origin.rtt_ms if origin.rtt_ms is not None else n.rtt_ms
    rate = origin.bandwidth_bps if origin.bandwidth_bps is not None else n.bandwidth_bps
    return f"its own: RTT {rtt:g} ms, {rate / 1e6:g} Mbit/s"


def origins_context(scenario: Scenario, results: list[ProtocolResult]) -> dict[str, Any] | None:
    """The page's origins (``page.origins``) and their effect: each origin's lookup, hints and objects, and each
    protocol's time beside the same page with every object from the HTML's origin (one more prediction, of a page
    that costs no more than this one); ``None`` for a page of one origin."""
    page = scenario.page
    if not page.origins:
        return None
    of = page.origins_of() or (0,) * len(page.sizes())
    sizes = page.sizes()
    rows = []
    for k in range(len(page.origins) + 1):
        mine = [i for i, o in enumerate(of) if o == k]
        origin = page.origins[k - 1] if k else None
        rows.append(
            {
                "k": k,
                "dns_ms": origin.dns_ms if origin is not None else None,
                "preconnected": origin.preconnected if origin is not None else None,
                "coalesce": origin.coalesce_with_html if origin is not None else None,
                "early_preconnect": origin.early_hint_preconnect if origin is not None else None,
                "path": _origin_path_text(scenario, origin),
                "objects": [i + 1 for i in mine],
                "bytes": sum(sizes[i] for i in mine if i < len(sizes)),
            }
        )
    doc = scenario.model_dump(mode="json")
    doc["page"]["origins"] = []
    doc["page"]["object_origins"] = None
    alone = {r["protocol"]: leading_ms(r) for r in predict(validate_doc(doc))["results"]}
    effect = []
    for r in results:
        ms, alone_ms = leading_ms(r), alone[r["protocol"]]
        diff = ms - alone_ms
        effect.append(
            {"protocol": r["protocol"], "ms": ms, "alone_ms": alone_ms, "diff_ms": 0.0 if abs(diff) < 1e-9 else diff}
        )
    return {"rows": rows, "effect": effect}


def results_context(state: State) -> dict[str, Any]:
    """Everything the results fragment shows (model outputs, figures as JSON, links)."""
    assert state.scenario is not None
    out = predict(state.scenario)
    results: list[ProtocolResult] = out["results"]
    by_protocol = {r["protocol"]: r for r in results}
    reference = "http10" if "http10" in by_protocol else max(results, key=leading_ms)["protocol"]
    ref_ms = leading_ms(by_protocol[reference])
    fastest = leading.fastest(results)
    rows = table_rows(results, ref_ms)
    plot = run_sweep(state, budget=sweep_budget(state))
    part_keys = list(dict.fromkeys(k for row in rows for k in row.parts))
    lossless_parts, lossless_zero = folded(
        [k for k in part_keys if k not in LOSS_PART_NAMES], [row.parts for row in rows]
    )
    loss_parts, loss_zero = folded([k for k in part_keys if k in LOSS_PART_NAMES], [row.parts for row in rows])
    count_keys, count_zero = folded(
        [k for k in results[0]["counts"] if k != "round_trips"], [dict(r["counts"]) for r in results]
    )
    choice = plot.choice
    current_val = effective_value(state.scenario, FIELD_BY_PARAM[choice.param])
    if choice.param == "page.object_count":
        current_val = len(state.scenario.page.sizes())
    current = float(current_val) if isinstance(current_val, int | float) else None
    sweep_fig = None
    if plot.out is not None:
        unit = SCENARIO_PARAMS[choice.param].unit
        sweep_fig = charts.to_json(charts.sweep_lines(plot.out, choice.label, unit, choice.log, current))
    loss_plot, loss_fig = loss_sweep(state, plot)
    query = state.query
    api_query = api_query_of(state)
    teaching = "teaching.explain" in current_app.view_functions
    explain_urls = (
        {
            r["protocol"]: url_for("teaching.explain") + "?" + _join(api_query, f"protocol={r['protocol']}")
            for r in results
        }
        if teaching
        else {}
    )
    return {
        "results": results,
        "reference": reference,
        "reference_ms": ref_ms,
        "fastest": fastest,
        "loss_rate": state.scenario.network.loss_rate,  # > 0: the expected time with loss leads every view
        "rows": rows,
        "lossless_parts": lossless_parts,
        "loss_parts": loss_parts,
        "zero_parts": [part_name(k) for k in lossless_zero + loss_zero],
        "count_keys": count_keys,
        "zero_counts": [part_name(k) for k in count_zero],
        "part_name": part_name,
        "head_of_line": {r["protocol"]: head_of_line_ms(r) for r in results},
        "breakdown_fig": charts.to_json(charts.breakdown_bar(results)),
        "waterfalls": [
            {
                "protocol": r["protocol"],
                "fig": charts.to_json(charts.waterfall(r)),
                "rows": charts.waterfall_rows(r["objects"]),
                "total": len(r["objects"]),
                "connections": len({o["connection"] for o in r["objects"]}),
            }
            for r in results
        ],
        "waterfall_csv_url": url_for("calculator.waterfall_csv") + ("?" + query if query else ""),
        "sweep": plot,
        "sweep_fig": sweep_fig,
        "loss_sweep": loss_plot,
        "loss_fig": loss_fig,
        "sweep_unit": SCENARIO_PARAMS[choice.param].unit,
        "current": current,
        "csv_url": url_for("api.predict_endpoint") + "?" + _join(api_query, "format=csv"),
        "json_url": url_for("api.predict_endpoint") + ("?" + api_query if api_query else ""),
        "sweep_csv_url": url_for("calculator.sweep_csv") + ("?" + query if query else ""),
        "sweep_left_out": left_out_text(plot.over_budget, plot.invalid),
        "sweep_fill_url": fill_url(state, "sweep", 0) if plot.fills and plot.out is not None else "",
        "loss_left_out": loss_left_out_text(loss_plot.over_budget) if loss_plot is not None else "",
        "loss_fill_url": fill_url(state, "loss", 0)
        if loss_plot is not None and loss_plot is not plot and loss_plot.fills and loss_plot.out is not None
        else "",
        "explain_urls": explain_urls,
        "whys": [why(r, state.scenario) for r in results],
        "compare_url": url_for("compare.index") + ("?" + api_query if api_query else "")
        if "compare.index" in current_app.view_functions
        else "",
        "explain_first": results[0]["protocol"] if "http10" not in by_protocol else "http10",
        "scenario_json": json.dumps(out["scenario"], indent=2),
        "words": charts.words,
        "file_stem": "latency-lab" + (f"-{state.preset}" if state.preset else ""),
        "origins": origins_context(state.scenario, results),
    }


def simple_results_context(state: State) -> dict[str, Any]:
    """What simple mode's results show: each protocol by its plain name, its time (the expected time with loss where
    the loss rate is above 0), how it compares with the fastest and why, and the chart of where the time goes."""
    assert state.scenario is not None
    results: list[ProtocolResult] = predict(state.scenario)["results"]
    loss_rate = state.scenario.network.loss_rate

    time_of = leading_ms  # the one rule of which time leads (latency_lab.analysis.leading): with loss, the expected one
    ranked = sorted(results, key=time_of)
    by_protocol = {r["protocol"]: r for r in results}
    reference = by_protocol.get("http10") or ranked[-1]
    named = [{**r, "protocol": PROTOCOL_NAMES.get(r["protocol"], r["protocol"])} for r in ranked]
    full = [(k, v) for k, v in state.canonical if k != "mode"]
    return {
        "ranked": ranked,
        "fastest": ranked[0],
        "reference": reference,
        "time_of": time_of,
        "names": FRIENDLY_NAMES,
        "loss_rate": loss_rate,
        "loss_percent": f"{loss_rate * 100:.3g} %",
        "whys": {r["protocol"]: why(r, state.scenario) for r in results},
        "breakdown_fig": charts.to_json(charts.breakdown_bar(named)),
        "full_url": url_for("calculator.index") + ("?" + urlencode(full, safe=",") if full else ""),
        "compare_url": url_for("compare.index") + ("?" + api_query_of(state) if api_query_of(state) else "")
        if "compare.index" in current_app.view_functions
        else "",
        "file_stem": "latency-lab" + (f"-{state.preset}" if state.preset else ""),
    }


def api_query_of(state: State) -> str:
    """The scenario's address for the API and the teaching panel: the calculator's own query (without its sweep and
    mode), which they read with the same rules (:func:`latency_lab.scenario.overlay.overlay`)."""
    assert state.scenario is not None
    return urlencode([(k, v) for k, v in state.canonical if k not in ("sweep", "mode")], safe=",")


def _join(query: str, extra: str) -> str:
    return f"{query}&{extra}" if query else extra


def flatten(doc: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """A scenario document as query pairs: ``{"network": {"rtt_ms": 70}}`` -> ``[("network.rtt_ms", "70")]``."""
    out: list[tuple[str, str]] = []
    for key, value in doc.items():
        name = f"{prefix}{key}"
        if name in OBJECT_LISTS and isinstance(value, list):  # page.origins: a parameter per field of its objects
            out.extend((param, query_text(values)) for param, values in object_list_pairs(name, value))
        elif isinstance(value, dict):
            out.extend(flatten(value, name + "."))
        elif value is not None:
            out.append((name, query_text(value)))
    return out


def _is_fragment() -> bool:
    return request.headers.get("HX-Request") == "true" and request.headers.get("HX-History-Restore-Request") != "true"


def _results_html(state: State) -> tuple[str, str]:
    """The results fragment and a one-line summary for screen readers, cached by canonical query."""
    key = state.query + "|" + ("t" if "teaching.explain" in current_app.view_functions else "")
    cache = _results_cache()
    hit = cache.get(key)
    if hit is not None:
        body, announce = hit
        return body.decode(), announce
    if state.mode == "simple":
        context = simple_results_context(state)
        fastest = context["fastest"]
        announce = (
            f"Results updated. Fastest: {FRIENDLY_NAMES.get(fastest['protocol'], fastest['protocol'])}, "
            f"{format_ms(context['time_of'](fastest))} ms."
        )
        html = render_template("calculator/results_simple.html", **context)
        cache.put(key, (html.encode(), announce))
        return html, announce
    context = results_context(state)
    fastest = next(r for r in context["rows"] if r.protocol == context["fastest"])
    with_loss = " expected with loss" if context["loss_rate"] > 0 else ""
    announce = f"Results updated. Fastest: {fastest.protocol}, {format_ms(fastest.leading_ms)} ms{with_loss}."
    html = render_template("calculator/results.html", **context)
    cache.put(key, (html.encode(), announce))
    return html, announce


def _address(state: State) -> str:
    """The calculator's address of a valid scenario."""
    return url_for("calculator.index") + ("?" + state.query if state.query else "")


def last_valid(state: State) -> State | None:
    """The last valid scenario the form showed (its hidden ``last`` field: its address, ``/?...``, or ``/`` for
    the model's defaults), read as the page reads a query; None if there is none or it is not valid."""
    if not state.last.startswith("/"):
        return None
    query = state.last.partition("?")[2]
    args = MultiDict([(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "last"])
    last = read(args)
    return last if last.scenario is not None and not last.errors else None


@bp.get("/")
def index() -> Response:
    """The calculator: the whole page, or (htmx) the form and results fragment; 400 for invalid input.

    Invalid input keeps the results of the last valid scenario on screen, marked as such (the form
    carries that scenario's query in its hidden ``last`` field).
    """
    state = read(request.args)
    fragment = _is_fragment()
    valid = state.scenario is not None and not state.errors
    if valid and not fragment and request.query_string.decode() != state.query:
        target = url_for("calculator.index") + ("?" + state.query if state.query else "")
        return redirect(target, 303)  # type: ignore[return-value]
    results, announce = "", "The scenario is not valid: see the messages in the form."
    stale: State | None = None
    if valid:
        try:
            results, announce = _results_html(state)
        except WorkLimitExceeded as exc:  # the engine's hard budget (latency_lab.scenario.limits)
            state.add("", exc.limit.message)
            valid = False
    if not valid:
        stale = last_valid(state)
        if stale is not None:
            try:
                results, _ = _results_html(stale)
            except WorkLimitExceeded:
                stale, results = None, ""
            else:
                announce += " The results shown are still those of the last valid scenario."
    shown = state if valid else stale
    scenario_words, loss_text = describe(shown) if shown is not None and shown.scenario is not None else ("", "")
    context = {
        **form_context(state),
        "scenario_words": scenario_words,  # for the charts' pictures (latency_lab_web/static/app.js)
        "loss_words": loss_text,
        "results_html": results,
        "announce": announce,
        "fragment": fragment,
        "query": state.query if valid else state.raw_query,
        "last_url": _address(state) if valid else (_address(stale) if stale is not None else ""),
        "stale_url": _address(stale) if stale is not None else None,
    }
    html = render_template(
        "calculator/form.html" if fragment else "calculator/index.html", **context, max_har_bytes=MAX_HAR_BYTES
    )
    response = Response(html, status=200 if valid else 400, mimetype="text/html")
    address = url_for("calculator.index") + ("?" + context["query"] if context["query"] else "")
    if fragment:
        response.headers["HX-Push-Url"] = address
    response.headers["Vary"] = "HX-Request, HX-History-Restore-Request"
    return response


def _problems_text(errors: Mapping[str, list[str]]) -> Response:
    """A CSV route's refusal of an invalid query: 400, each problem on a line (``where: message``)."""
    lines = [f"{where}: {m}" if where else m for where, messages in errors.items() for m in messages]
    return Response("\n".join(lines) + "\n", status=400, mimetype="text/plain")


@bp.get("/sweep.csv")
def sweep_csv() -> Response:
    """The sweep plot's data as CSV (the page's query), every value of it: the points the page draws and those it
    left out for its time budget, which its follow-up requests draw (:func:`fill_of`, :func:`run_slice`). What is not
    in the cache is priced before anything runs: if it costs more than one request may
    (:data:`SWEEP_FILL_WORK_BUDGET`), the CSV is refused (422, the reason as text), else run and kept as the page keeps
    it. 400 with the problems as text if the query is invalid."""
    state = read(request.args)
    if state.scenario is None or state.errors:
        return _problems_text(state.errors)
    budget = sweep_budget(state)
    priced = costed(state, SWEEPS[state.sweep])  # each point validated once, for the plan and the run
    try:
        fill: Fill | None = fill_of(state, "sweep", priced)
    except NoFill:
        fill = None  # too few points for a plot: run_sweep says so below
    cache = _sweep_cache()
    if fill is not None:
        page = SWEEPS[state.sweep]
        uncached = (
            0
            if cache.get(_plot_key(page, priced.key_doc, False, budget)) is not None
            else sum(c for c, _, _ in fill.kept)
        )
        uncached += sum(fill.slice_cost(i) for i in range(len(fill.slices)) if cache.get(fill.slice_key(i)) is None)
        if uncached > SWEEP_FILL_WORK_BUDGET:
            message = (
                f"The sweep's {len(fill.costed.costs)} values would take {uncached:,} work units here, more than one "
                f"request may ({SWEEP_FILL_WORK_BUDGET:,}); none was run. The calculator page draws them in several "
                "requests: open it with this query, let its sweep plot fill in, then download this CSV again."
            )
            return Response(message + "\n", status=422, mimetype="text/plain")
    plot = run_sweep(state, budget=budget, priced=priced)
    if plot.out is None:
        return Response(plot.error + "\n", status=400, mimetype="text/plain")
    out = plot.out
    if fill is not None and fill.slices:
        out = merged([out, *(run_slice(fill, i) for i in range(len(fill.slices)))])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(sweep_csv_rows(out))
    name = f"latency-lab-sweep-{plot.choice.param}.csv"
    return Response(
        buf.getvalue(), mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@bp.get("/waterfall.csv")
def waterfall_csv() -> Response:
    """Every object of every protocol's waterfall as CSV (the page's query): the page draws and lists only the first
    :data:`latency_lab_web.figures.compare.WATERFALL_ROWS` to start. 400 with the problems as text if the query is
    invalid."""
    state = read(request.args)
    if state.scenario is None or state.errors:
        return _problems_text(state.errors)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(charts.waterfall_csv_rows(predict(state.scenario)["results"]))
    return Response(
        buf.getvalue(),
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="latency-lab-waterfall.csv"'},
    )


#: The follow-up request's own parameters (the rest is the page's query).
FILL_PARAMS = ("chart", "slice")


def _bad_fill(errors: dict[str, list[str]]) -> Response:
    return Response(json.dumps({"errors": errors}), status=400, mimetype="application/json")


@bp.get("/sweep-points")
def sweep_points() -> Response:
    """One follow-up request of the page's sweep plot or loss chart: the points of one slice of the values the page
    left out for its time budget (:func:`run_slice`), as JSON for ``latency_lab_web/static/app.js`` to merge into the drawn figure.

    The query is the page's, plus ``chart`` (``sweep``, the default, or ``loss``) and ``slice`` (0, 1, ...; the page
    gives the first one's address, each answer the next one's). The answer: ``values`` (this slice's), ``figure``
    (their traces, named as the page's figure names its own: :func:`latency_lab_web.figures.compare.sweep_lines` or
    ``loss_lines``), ``rows`` (the data table's rows for them, HTML), ``caption`` (what the chart's caption says of
    the values left out once this slice is drawn) and ``next`` (the next slice's address, or null). Each slice is
    priced before it runs and costs at most :data:`SWEEP_FILL_WORK_BUDGET`; nothing else runs. Invalid input, or a
    chart or slice the page does not have: 400 with ``errors`` (field -> messages); never a 500.
    """
    args = MultiDict([(k, v) for k, v in request.args.items(multi=True) if k not in FILL_PARAMS])
    errors: dict[str, list[str]] = {}
    chart = request.args.get("chart", "sweep")
    if chart not in ("sweep", "loss"):
        errors["chart"] = [f"There is no chart {chart!r} to fill in; give sweep or loss."]
    number_text = request.args.get("slice", "0")
    number = int(number_text) if number_text.isdigit() and len(number_text) < 6 else -1
    if number < 0:
        errors["slice"] = [f"slice must be a whole number from 0; you gave {number_text!r}."]
    for name in FILL_PARAMS:
        given = len(request.args.getlist(name))
        if given > 1:
            errors.setdefault(name, []).append(f"{name}: given {given} times; give it once")
    state = read(args)
    if state.scenario is None or state.errors:
        errors.update({where or "query": list(messages) for where, messages in state.errors.items()})
    if errors:
        return _bad_fill(errors)
    try:
        refused = unpriced_refusal(state, chart, number)  # before any point is validated, where it can be decided
        if refused is not None:
            raise refused
        fill = fill_of(state, chart)
        out = run_slice(fill, number)
    except NoFill as exc:
        return _bad_fill({exc.field: [exc.message]})
    except WorkLimitExceeded as exc:  # the engine's hard budget, past the estimate
        return _bad_fill({"": [exc.limit.message]})
    assert state.scenario is not None
    still = still_left_out(fill, number)
    if chart == "loss":
        figure = charts.loss_lines(out, state.scenario.network.loss_rate)
        caption = loss_left_out_text(fill.over_budget, still)
    else:
        unit = SCENARIO_PARAMS[fill.choice.param].unit
        figure = charts.sweep_lines(out, fill.choice.label, unit, fill.choice.log, None)
        caption = left_out_text(fill.over_budget, fill.costed.invalid, still)
    rows = render_template(
        "calculator/sweep_rows.html", out=out, key="expected_with_loss_ms" if chart == "loss" else "page_load_ms"
    )
    body = {
        "chart": chart,
        "slice": number,
        "values": out["values"],
        "figure": {"data": figure["data"]},
        "rows": rows,
        "caption": caption,
        "next": fill_url(state, chart, number + 1) if number + 1 < len(fill.slices) else None,
    }
    return Response(json.dumps(body, allow_nan=False), mimetype="application/json")


def _har_refused(problems: list[str], status: int) -> Response:
    html = render_template("calculator/har.html", problems=problems, max_har_bytes=MAX_HAR_BYTES)
    return Response(html, status=status, mimetype="text/html")


@bp.post("/har")
def har_upload() -> Response:
    """The calculator from a HAR: the uploaded file (``har``) becomes a scenario (:mod:`latency_lab.scenario.har`),
    and the browser is sent (303) to the calculator's shareable address of it; a refused HAR is a page naming why."""
    request.max_content_length = MAX_HAR_BYTES + UPLOAD_FRAMING_BYTES
    try:
        upload = request.files.get("har")
    except RequestEntityTooLarge:
        return _har_refused(
            [f"The file is over {MAX_HAR_BYTES:,} bytes (max_har_bytes): save the HAR without contents."], 413
        )
    if upload is None or not upload.filename:
        return _har_refused(["Choose a HAR file to upload."], 400)
    try:
        built = to_scenario(load_har(upload.stream.read(MAX_HAR_BYTES + 1)))
        validate_doc(built.document)
    except HarError as exc:
        status = {"too_large": 413, "not_json": 400}.get(exc.kind, 422)
        return _har_refused([p.text for p in exc.problems], status)
    except ValidationError as exc:
        return _har_refused([p.text for p in problems(exc, at=("scenario",))], 422)
    address = url_for("calculator.index") + "?" + urlencode(calculator_query(built.document))
    return redirect(address, 303)  # type: ignore[return-value]


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness check."""
    return {"status": "ok"}


__all__ = ("bp", "flatten", "run_sweep")
