"""The calculator page: every scenario field in a form, and the protocols compared.

``GET /`` takes the scenario in the API's query syntax (:mod:`app.query`): ``preset=NAME`` plus
dotted fields (``network.rtt_ms=70``, ``page.object_bytes=2544,1000``, ``protocols=http10,getall``),
and ``sweep=FIELD`` choosing the sweep plot's field. A field left out or blank keeps the preset's
value (or the model's default; TCP fields follow the TCP profile). Three rules let a field replace
what the preset gave in another form (the ones :mod:`model.analysis.sweep` uses): ``page.object_count`` or
``page.object_size_bytes`` replace the preset's ``page.object_bytes`` (and the reverse), and
``network.rtt_ms`` replaces both one-way delays.

The form lists the schema's fields as it finds them (:data:`FIELDS`), so a field added to
:class:`model.Scenario` appears here with its unit, range and description. The address always
holds the scenario in its shortest form (:func:`canonical`: only what differs from the preset):
a plain form submission is redirected there, an htmx request (header ``HX-Request``) gets the
calculator's fragment and ``HX-Push-Url`` with it. Invalid input: HTTP 400, a message beside each
field (what is wrong and the allowed range), ``aria-invalid``; never a 500.

``GET /sweep.csv`` gives the sweep plot's data for the same query.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import pickle
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from flask.blueprints import BlueprintSetupState
from pydantic import BaseModel, ValidationError
from werkzeug.datastructures import MultiDict

from app.cache import ByteLRU
from app.figures import compare as charts
from app.query import SCENARIO_PARAMS, scenario_document, unknown
from model import ALL_PROTOCOLS, PRESETS, Scenario, predict
from model.analysis.sweep import SweepError, SweepRequest, sweep
from model.analysis.sweep import csv_rows as sweep_csv_rows
from model.scenario.errors import FieldSpec, Problem, problems, words
from model.scenario.limits import MAX_WORK_UNITS, WorkLimitExceeded, check, work_units
from model.scenario.overlay import overlay

bp = Blueprint("web", __name__)

#: Query parameters of the page besides the scenario's fields.
PAGE_OPTIONS = ("preset", "sweep", "last")

#: Words written in capitals in labels made from field names.
_ACRONYMS = {"rtt", "mss", "html", "css", "rto", "ack", "http", "tcp", "ttcp", "ip"}

#: Section headings (others: the section's name, capitalised).
_SECTION_TITLES = {
    "network": "Network path",
    "tcp": "TCP",
    "http": "HTTP client and server",
    "page": "Page",
    "session": "Session",
}


#: Labels a field's name does not give well.
_LABELS = {
    "object_bytes": "Object sizes",
    "header_flush_persistent_only": "Header flush on persistent connections only",
}


def label_of(name: str) -> str:
    """A field's label from its name, the unit suffix left out: ``rtt_ms`` -> ``RTT``."""
    if name in _LABELS:
        return _LABELS[name]
    for suffix in ("_ms", "_bps", "_bytes", "_segments"):
        if name.endswith(suffix) and name != suffix[1:]:
            name = name[: -len(suffix)]
            break
    parts = [p.upper() if p in _ACRONYMS else p for p in name.split("_")]
    text = " ".join(parts)
    return text[:1].upper() + text[1:]


@dataclass(frozen=True, slots=True)
class FormField:
    """One scenario field as the form shows it; ``param`` is its query parameter (dotted path)."""

    param: str
    section: str  # "" for a top-level field
    name: str
    label: str
    spec: FieldSpec

    @property
    def dom_id(self) -> str:
        return "f-" + self.param.replace(".", "-")

    @property
    def allowed(self) -> str:
        """What the field allows, in plain words (a blank field keeps the base's value): see :func:`must_be`."""
        return must_be(self.spec)


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    title: str
    description: str
    fields: tuple[FormField, ...]


def _form_field(param: str) -> FormField:
    """``proxy.client_leg.delay_ms`` -> section ``proxy``, name ``client_leg.delay_ms``, label "Client leg delay"."""
    section, _, name = param.partition(".")
    parts = name.split(".")
    label = " ".join([label_of(parts[0]), *(label_of(p).lower() for p in parts[1:])])
    return FormField(param, section, name, label, SCENARIO_PARAMS[param])


def _sections() -> tuple[Section, ...]:
    out: list[Section] = []
    top: list[FormField] = []
    for name, info in Scenario.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            fields = tuple(_form_field(param) for param in SCENARIO_PARAMS if param.startswith(f"{name}."))
            doc = (annotation.__doc__ or "").strip().split("\n")[0]
            out.append(Section(name, _SECTION_TITLES.get(name, name.capitalize()), doc, fields))
        elif name in SCENARIO_PARAMS:
            top.append(FormField(name, "", name, label_of(name), SCENARIO_PARAMS[name]))
    if top:
        out.insert(0, Section("", "Compared", "", tuple(top)))
    return tuple(out)


#: The form's sections and fields, in the schema's order.
SECTIONS: tuple[Section, ...] = _sections()
FIELDS: tuple[FormField, ...] = tuple(f for s in SECTIONS for f in s.fields)
FIELD_BY_PARAM: dict[str, FormField] = {f.param: f for f in FIELDS}


# --- the sweep plot's fields ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SweepChoice:
    """A field the sweep plot can step, with its values (fixed, so the sweep does not follow the field's own value)."""

    param: str
    label: str
    values: tuple[float, ...]
    log: bool


SWEEPS: dict[str, SweepChoice] = {
    s.param: s
    for s in (
        SweepChoice("network.rtt_ms", "Round-trip time", (1, 3, 10, 30, 100, 300, 1000), True),
        SweepChoice(
            "network.bandwidth_bps", "Bandwidth", (28_800, 56_000, 128_000, 1_544_000, 10e6, 100e6, 1e9, 10e9), True
        ),
        SweepChoice("page.object_count", "Embedded objects", (0, 1, 2, 5, 10, 20, 40, 70, 100), False),
        SweepChoice(
            "page.object_size_bytes", "Size of each object", (100, 300, 1000, 3000, 10_000, 30_000, 100_000), True
        ),
        SweepChoice("tcp.mss_bytes", "Maximum segment size", (256, 536, 1024, 1460, 4096, 8960), True),
        SweepChoice("tcp.initial_window_segments", "Initial congestion window", (1, 2, 3, 4, 6, 10, 16), False),
        SweepChoice("tcp.delayed_ack_ms", "Delayed-ACK timer", (0, 25, 50, 100, 150, 200, 300, 500), False),
        SweepChoice("network.loss_rate", "Loss rate (expected values)", (0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.2), False),
    )
}
DEFAULT_SWEEP = "network.rtt_ms"
#: Most work (see :mod:`model.scenario.limits`) the sweep plot may cost; costlier points are left out. About 55 ms of
#: model time at 10 µs a unit: seven points of a Microscape page (739 units each, three protocols), so a form
#: change stays under 150 ms (bench/bench_ui.py).
SWEEP_WORK_BUDGET = 5_200


# --- reading the request ------------------------------------------------------------------------------


@dataclass
class State:
    """The request read: what was given, what it means, and what is wrong with it."""

    preset: str = ""
    sweep: str = DEFAULT_SWEEP
    given: dict[str, str] = field(default_factory=dict)  # scenario param -> text as given (not blank)
    errors: dict[str, list[str]] = field(default_factory=dict)  # param, "preset", "sweep" or "" -> messages
    base_doc: dict[str, Any] = field(default_factory=dict)  # the preset's document ({} for defaults)
    document: dict[str, Any] = field(default_factory=dict)  # base_doc with the given fields on top
    scenario: Scenario | None = None  # None when invalid
    canonical: list[tuple[str, str]] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=dict)  # section -> what the page filled in for the user
    last: str = ""  # the address of the last valid scenario the form showed (its hidden "last" field), "/?..."

    def add(self, where: str, message: str) -> None:
        messages = self.errors.setdefault(where, [])
        if message not in messages:
            messages.append(message)

    @property
    def query(self) -> str:
        """The canonical query string (empty for the model's defaults)."""
        return urlencode(self.canonical, safe=",")

    @property
    def raw_query(self) -> str:
        """What was given, blanks left out: the address of an invalid scenario."""
        pairs = [("preset", self.preset)] if self.preset else []
        pairs += [(p, v) for p, v in self.given.items()]
        if self.sweep != DEFAULT_SWEEP:
            pairs.append(("sweep", self.sweep))
        return urlencode(pairs, safe=",")


def _where(p: Problem) -> list[str]:
    """The form parameters a problem belongs beside (``[""]``: the scenario as a whole)."""
    loc = [part for part in p.loc if isinstance(part, str)]
    for n in (3, 2):
        if len(loc) >= n and ".".join(loc[:n]) in FIELD_BY_PARAM:
            return [".".join(loc[:n])]
    if len(loc) >= 1 and loc[0] in FIELD_BY_PARAM:
        return [loc[0]]
    section = loc[0] if loc else None
    mentioned = [f.param for f in FIELDS if f.section and f.param in p.message]
    if section is not None:
        mentioned += [
            f.param
            for f in FIELDS
            if f.section == section
            and f.param not in mentioned
            and re.search(rf"(?<![\w.]){re.escape(f.name)}(?!\w)", p.message)
        ]
    return mentioned or [section or ""]


def _bound(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,}"


def must_be(s: FieldSpec) -> str:
    """What a form field takes, in plain words: ``a number between 0 and 10,000 ms``, ``yes or no``."""
    unit = f" {s.unit}" if s.unit else ""
    if s.kind in ("number", "integer"):
        what = "a whole number" if s.kind == "integer" else "a number"
        if s.low is not None and s.high is not None and s.low_inclusive and s.high_inclusive:
            return f"{what} between {_bound(s.low)} and {_bound(s.high)}{unit}"
        parts = []
        if s.low is not None:
            parts.append(f"{'at least' if s.low_inclusive else 'more than'} {_bound(s.low)}")
        if s.high is not None:
            parts.append(f"{'at most' if s.high_inclusive else 'less than'} {_bound(s.high)}")
        return f"{what} {' and '.join(parts)}{unit}" if parts else what + (f" of{unit}" if unit else "")
    if s.kind == "boolean":
        return "yes or no"
    if s.kind == "choice":
        return "one of " + ", ".join(str(c) for c in s.choices)
    if s.kind == "array" and s.item is not None:
        if s.item.kind == "choice":
            return "one or more of " + ", ".join(str(c) for c in s.item.choices)
        most = f"at most {_bound(s.max_items)} " if s.max_items is not None else ""
        return f"a comma-separated list of {most}values, each {must_be(s.item)}"
    return words(s, with_null=False)


def _labelled(message: str, section: str) -> str:
    """A model's message with the form's labels for the field names it mentions: \u201cObject count\u201d."""
    for f in sorted(FIELDS, key=lambda f: -len(f.param)):
        message = message.replace(f.param, f"\u201c{f.label}\u201d")
        if f.section == section:  # object_bytes[2] -> value 3 of \u201cObject sizes\u201d
            message = re.sub(
                rf"(?<![\w.]){re.escape(f.name)}\[(\d+)\]",
                lambda m, f=f: f"value {int(m.group(1)) + 1} of \u201c{f.label}\u201d",  # type: ignore[misc]
                message,
            )
    for f in sorted(FIELDS, key=lambda f: -len(f.name)):
        if f.section == section:
            message = re.sub(rf"(?<![\w.\u201c]){re.escape(f.name)}(?![\w\u201d])", f"\u201c{f.label}\u201d", message)
    return message[:1].upper() + message[1:]


def plain(p: Problem, given: Mapping[str, str]) -> str:
    """A problem as the form says it: the field's label, what it takes and what was typed.

    ``RTT must be a number between 0 and 10,000 ms; you gave -5.`` A problem between fields (a model's
    own check) keeps its words, the fields named by their labels.
    """
    param = p.path.split("[")[0]
    f = FIELD_BY_PARAM.get(param)
    if f is None or p.type == "value_error":
        section = p.loc[0] if p.loc and isinstance(p.loc[0], str) else ""
        return _labelled(p.message, section).rstrip(".") + "."
    index = next((part for part in p.loc if isinstance(part, int)), None)
    if index is not None and f.spec.item is not None:
        item = p.value if isinstance(p.value, str) else (p.got if p.got is not None else str(p.value))
        return f"{f.label}: value {index + 1} must be {must_be(f.spec.item)}; you gave {item}."
    typed = given.get(f.param) or p.got or "nothing"
    return f"{f.label} must be {must_be(f.spec)}; you gave {typed}."


def _validate(doc: dict[str, Any]) -> Scenario:
    return Scenario.model_validate(doc, strict=True)


def _text(value: Any) -> str:
    """A converted query value written back the way the query syntax reads it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    return str(value)


def _param_doc(params: Mapping[str, str]) -> dict[str, Any]:
    doc, _ = scenario_document(MultiDict(list(params.items())), ())
    return doc


def canonical(state: State, scenario: Scenario) -> list[tuple[str, str]]:
    """The shortest query giving ``scenario``: each given field left out if the scenario stays the same without it."""
    target = scenario.model_dump(mode="json")
    kept = dict(state.given)
    for param in list(kept):
        trial = {k: v for k, v in kept.items() if k != param}
        try:
            same = _validate(overlay(state.base_doc, _param_doc(trial))).model_dump(mode="json") == target
        except ValidationError:
            same = False
        if same:
            del kept[param]
    converted = _param_doc(kept)
    pairs: list[tuple[str, str]] = [("preset", state.preset)] if state.preset else []
    for f in FIELDS:
        if f.param in kept:
            value = _at(converted, f.param)
            pairs.append((f.param, _text(value)))
    if state.sweep != DEFAULT_SWEEP:
        pairs.append(("sweep", state.sweep))
    return pairs


def read(args: MultiDict[str, str]) -> State:
    """Read the page's query: preset, sweep field, the scenario's fields; validate; find the canonical query."""
    state = State()
    # The protocol checkboxes send one value each (and a blank one, so none checked reads as an empty list).
    flat: MultiDict[str, str] = MultiDict()
    for name in args:
        values = [v.strip() for v in args.getlist(name)]
        if name == "protocols" and len(values) > 1:
            values = [",".join(v for v in values if v)]
        for v in values:
            flat.add(name, v)
    preset_name = flat.get("preset", "")
    if preset_name and preset_name not in PRESETS:
        p = unknown(preset_name, PRESETS)
        state.add("preset", f"There is no preset {preset_name!r}; choose one of: {p.allowed}.")
    else:
        state.preset = preset_name
    state.last = flat.get("last", "")
    sweep_field = flat.get("sweep", "") or DEFAULT_SWEEP
    if sweep_field not in SWEEPS:
        state.add("sweep", f"The sweep plot cannot step {sweep_field!r}; choose one of: {', '.join(SWEEPS)}.")
    else:
        state.sweep = sweep_field

    scenario_args: MultiDict[str, str] = MultiDict()
    for name in flat:
        values = flat.getlist(name)
        if name in PAGE_OPTIONS:
            if len(values) > 1:
                state.add(name, f"{name}: given {len(values)} times; give it once")
            continue
        if name in SCENARIO_PARAMS and name != "protocols" and all(v == "" for v in values):
            continue  # a blank field keeps the base's value
        for v in values:
            scenario_args.add(name, v)
    doc, found = scenario_document(scenario_args, ())
    for p in found:
        target = p.path if p.path in FIELD_BY_PARAM else ""
        if target and p.type == "repeated_parameter":
            state.add(target, f"{FIELD_BY_PARAM[target].label} was given {len(p.value)} times; give it once.")
        elif p.type == "extra_forbidden":
            close = f"; did you mean {p.suggestion!r}?" if p.suggestion else "."
            state.add("", f"The address has a setting this calculator does not know: {p.path!r}{close}")
        else:
            state.add(target, p.text if target else p.text.split("; allowed fields:")[0])
    state.given = {name: scenario_args[name] for name in scenario_args if name in SCENARIO_PARAMS}
    if state.errors:
        return state
    state.base_doc = copy.deepcopy(PRESETS[state.preset].document) if state.preset else {}
    page_notes: list[str] = []
    state.document = overlay(state.base_doc, doc, page_notes)
    if page_notes:
        state.notes["page"] = page_notes
    try:
        scenario = _validate(state.document)
    except ValidationError as exc:
        for p in problems(exc):
            for where in _where(p):
                state.add(where, plain(p, state.given))
        return state
    limit = check(work_units(scenario), MAX_WORK_UNITS, "max_work_units", "this prediction")
    if limit is not None:
        state.add("", limit.message)
        return state
    state.scenario = scenario
    state.canonical = canonical(state, scenario)
    return state


# --- what the page shows -------------------------------------------------------------------------------


def _value_text(value: Any) -> str:
    if value is None:
        return ""
    return _text(value)


def _at(doc: Mapping[str, Any], param: str) -> Any:
    """The value at a dotted path of a document (``None`` if not there)."""
    value: Any = doc
    for part in param.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def effective_value(scenario: Scenario, f: FormField) -> Any:
    value: Any = scenario
    for part in f.param.split("."):
        value = getattr(value, part)
    return value


def form_context(state: State) -> dict[str, Any]:
    """What the form template needs: each section's fields with value, placeholder, range and messages."""
    shown = state.scenario
    if shown is None:
        try:
            shown = _validate(copy.deepcopy(state.base_doc)) if state.base_doc else Scenario()
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
                    "inputmode": "numeric" if sp.kind == "integer" else "decimal",
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
    }


#: The calculator's caches (per process, made with the app from its config: see ``create_app``), both
#: :class:`app.cache.ByteLRU` (the class of the API's cache), each value one ``bytes`` object whose length is
#: what the budget counts:
#:
#: - ``results_cache``: the rendered results fragment of each canonical query, UTF-8 encoded (about 57 KB for
#:   a preset, 0.58 MB for a 400-object page, 2 MB at most), with its one-line summary; under
#:   ``PAGE_CACHE_BYTES``. Encoded, not the ``str``: the fragment's one "★" makes Python store every
#:   character of the string in 2 bytes, so the string holds twice the memory its length says.
#: - ``sweep_cache``: the sweep plot of each scenario without its swept field, pickled (about 3.4 KB on the
#:   n97-wan preset, where the live objects take some 23 KB in about 300 small objects); under
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
    out: dict[str, Any] | None
    choice: SweepChoice
    note: str
    left_out: list[float]
    error: str


def sweep_base(state: State, choice: SweepChoice) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The document a sweep starts from, its cache key (the same without the swept field) and a note.

    The swept field is given on top of the scenario by the rules every front end uses
    (:func:`model.scenario.overlay.overlay`): sweeping the objects' count or size turns a page given as a list of
    sizes into ``count`` objects of one size (their mean size, when they differ; the note says so).
    """
    assert state.scenario is not None
    section, name = choice.param.split(".", 1)
    notes: list[str] = []
    doc = overlay(state.document, {section: {name: None}}, notes)
    note = notes[0] if notes else ""
    sizes = state.scenario.page.sizes()
    if choice.param == "page.object_size_bytes" and len(set(sizes)) > 1:
        note = f"In the sweep all {len(sizes)} objects of the page have the same size."
    key = copy.deepcopy(doc)
    key.get(section, {}).pop(name, None)
    return doc, key, note


def run_sweep(state: State) -> SweepPlot:
    """The sweep plot's data: every protocol at each of the field's values, within the work budget."""
    choice = SWEEPS[state.sweep]
    doc, key_doc, note = sweep_base(state, choice)
    key = json.dumps([choice.param, key_doc], sort_keys=True)
    cache = _sweep_cache()
    hit = cache.get(key)
    if hit is not None:
        cached: SweepPlot = pickle.loads(hit)  # made by this process (below), never from outside
        return cached
    section, name = choice.param.split(".", 1)
    costs: list[tuple[int, float]] = []
    for v in choice.values:
        value: float | int = int(v) if SCENARIO_PARAMS[choice.param].kind == "integer" else float(v)
        trial = copy.deepcopy(doc)
        trial.setdefault(section, {})[name] = value
        try:
            cost = work_units(_validate(trial))
        except ValidationError:
            continue  # outside what this scenario allows (the segment cap, a window below the MSS, ...)
        costs.append((cost, value))
    kept: list[float] = []
    total = 0
    for cost, value in sorted(costs):
        if total + cost > SWEEP_WORK_BUDGET:
            break
        total += cost
        kept.append(value)
    kept.sort()
    left_out = [v for _, v in costs if v not in kept] + [v for v in choice.values if v not in [c for _, c in costs]]
    if len(kept) < 2:
        plot = SweepPlot(None, choice, note, left_out, "Too few values of this field fit this scenario for a sweep.")
    else:
        try:
            req = SweepRequest(scenario=state.scenario, field=choice.param, values=list(kept))
            out = sweep(req)
        except (SweepError, ValidationError, WorkLimitExceeded) as exc:
            plot = SweepPlot(None, choice, note, left_out, f"The sweep cannot run: {exc}")
        else:
            plot = SweepPlot(out, choice, note, sorted(left_out), "")
    cache.put(key, pickle.dumps(plot, pickle.HIGHEST_PROTOCOL))
    return plot


def _fastest(results: list[dict[str, Any]]) -> str:
    return min(results, key=lambda r: r["page_load_ms"])["protocol"] if results else ""


def results_context(state: State) -> dict[str, Any]:
    """Everything the results fragment shows (model outputs, figures as JSON, links)."""
    assert state.scenario is not None
    out = predict(state.scenario)
    results: list[dict[str, Any]] = out["results"]
    by_protocol = {r["protocol"]: r for r in results}
    reference = "http10" if "http10" in by_protocol else max(results, key=lambda r: r["page_load_ms"])["protocol"]
    ref_ms = by_protocol[reference]["page_load_ms"]
    fastest = _fastest(results)
    plot = run_sweep(state)
    choice = plot.choice
    current_val = effective_value(state.scenario, FIELD_BY_PARAM[choice.param])
    if choice.param == "page.object_count":
        current_val = len(state.scenario.page.sizes())
    current = float(current_val) if isinstance(current_val, int | float) else None
    sweep_fig = None
    if plot.out is not None:
        unit = SCENARIO_PARAMS[choice.param].unit
        sweep_fig = charts.to_json(charts.sweep_lines(plot.out, choice.label, unit, choice.log, current))
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
        "loss_rate": state.scenario.network.loss_rate,  # > 0: the table adds the expected value with loss
        "breakdown_keys": list(results[0]["breakdown_ms"]),
        "count_keys": list(results[0]["counts"]),
        "breakdown_fig": charts.to_json(charts.breakdown_bar(results)),
        "waterfalls": [
            (r["protocol"], charts.to_json(charts.waterfall(r)), charts.waterfall_rows(r["objects"])) for r in results
        ],
        "sweep": plot,
        "sweep_fig": sweep_fig,
        "sweep_unit": SCENARIO_PARAMS[choice.param].unit,
        "current": current,
        "csv_url": url_for("api.predict_endpoint") + "?" + _join(api_query, "format=csv"),
        "json_url": url_for("api.predict_endpoint") + ("?" + api_query if api_query else ""),
        "sweep_csv_url": url_for("web.sweep_csv") + ("?" + query if query else ""),
        "explain_urls": explain_urls,
        "explain_first": results[0]["protocol"] if "http10" not in by_protocol else "http10",
        "scenario_json": json.dumps(out["scenario"], indent=2),
        "words": charts.words,
        "file_stem": "latency-lab" + (f"-{state.preset}" if state.preset else ""),
    }


def api_query_of(state: State) -> str:
    """The scenario's address for the API and the teaching panel: the calculator's own query (without its sweep),
    which they read with the same rules (:func:`model.scenario.overlay.overlay`)."""
    assert state.scenario is not None
    return urlencode([(k, v) for k, v in state.canonical if k != "sweep"], safe=",")


def _join(query: str, extra: str) -> str:
    return f"{query}&{extra}" if query else extra


def flatten(doc: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """A scenario document as query pairs: ``{"network": {"rtt_ms": 70}}`` -> ``[("network.rtt_ms", "70")]``."""
    out: list[tuple[str, str]] = []
    for key, value in doc.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(flatten(value, name + "."))
        elif value is not None:
            out.append((name, _text(value)))
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
    context = results_context(state)
    fastest = next(r for r in context["results"] if r["protocol"] == context["fastest"])
    announce = f"Results updated. Fastest: {fastest['protocol']}, {format_ms(fastest['page_load_ms'])} ms."
    html = render_template("partials/results.html", **context)
    cache.put(key, (html.encode(), announce))
    return html, announce


@bp.app_template_filter("ms")
def format_ms(value: float | None) -> str:
    """Milliseconds with one decimal: ``1234.56`` -> ``1,234.6``."""
    return "—" if value is None else f"{value:,.1f}"


@bp.app_template_filter("count")
def format_count(value: int | None) -> str:
    """A count with thousands separators."""
    return "—" if value is None else f"{value:,}"


@bp.app_template_filter("number")
def format_number(value: float | None) -> str:
    """A field's value for people: ``1544000.0`` -> ``1,544,000``, ``0.5`` -> ``0.5``."""
    if value is None:
        return "—"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.6g}"


def _address(state: State) -> str:
    """The calculator's address of a valid scenario."""
    return url_for("web.index") + ("?" + state.query if state.query else "")


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
        target = url_for("web.index") + ("?" + state.query if state.query else "")
        return redirect(target, 303)  # type: ignore[return-value]
    results, announce = "", "The scenario is not valid: see the messages in the form."
    stale: State | None = None
    if valid:
        try:
            results, announce = _results_html(state)
        except WorkLimitExceeded as exc:  # the engine's hard budget (model.scenario.limits)
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
    context = {
        **form_context(state),
        "results_html": results,
        "announce": announce,
        "fragment": fragment,
        "query": state.query if valid else state.raw_query,
        "last_url": _address(state) if valid else (_address(stale) if stale is not None else ""),
        "stale_url": _address(stale) if stale is not None else None,
    }
    html = render_template("partials/calculator.html" if fragment else "index.html", **context)
    response = Response(html, status=200 if valid else 400, mimetype="text/html")
    address = url_for("web.index") + ("?" + context["query"] if context["query"] else "")
    if fragment:
        response.headers["HX-Push-Url"] = address
    response.headers["Vary"] = "HX-Request, HX-History-Restore-Request"
    return response


@bp.get("/sweep.csv")
def sweep_csv() -> Response:
    """The sweep plot's data as CSV (the page's query); 400 with the problems as text if invalid."""
    state = read(request.args)
    if state.scenario is None or state.errors:
        lines = [f"{where}: {m}" if where else m for where, messages in state.errors.items() for m in messages]
        return Response("\n".join(lines) + "\n", status=400, mimetype="text/plain")
    plot = run_sweep(state)
    if plot.out is None:
        return Response(plot.error + "\n", status=400, mimetype="text/plain")
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(sweep_csv_rows(plot.out))
    name = f"latency-lab-sweep-{plot.choice.param}.csv"
    return Response(
        buf.getvalue(), mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness check."""
    return {"status": "ok"}


__all__ = ("FIELDS", "SECTIONS", "SWEEPS", "bp", "canonical", "read")
