"""The calculator's form and how it reads a request: the fields, their labels and words, and the query read into a scenario.

The form lists the schema's fields as it finds them (:data:`FIELDS`), so a field added to :class:`latency_lab.Scenario`
appears with its unit, range and description. :func:`read` takes the page's query (a preset, the sweep's field,
dotted scenario fields), combines it with the preset by the rules every front end uses
(:func:`latency_lab.scenario.overlay.overlay`), validates it once and finds its shortest address (:func:`canonical`);
:func:`plain` says each problem in words beside its field.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ValidationError
from werkzeug.datastructures import MultiDict

from latency_lab import PRESETS, Scenario
from latency_lab.analysis.sweep import SweepRequest
from latency_lab.analysis.sweep import values as sweep_values
from latency_lab.scenario.errors import FieldSpec, Problem, problems, words
from latency_lab.scenario.limits import MAX_WORK_UNITS, check, costly_fields, work_units
from latency_lab.scenario.overlay import overlay
from latency_lab.scenario.schema import MAX_ORIGINS, MAX_SEGMENTS
from latency_lab_web.web.query import (
    LIST_LENGTHS,
    OBJECT_LIST_PARAMS,
    SCENARIO_PARAMS,
    convert,
    place_values,
    scenario_document,
    unknown,
)
from latency_lab_web.web.units import UNITS, UnitError, has_unit, to_base, ungroup

#: Query parameters of the page besides the scenario's fields.
PAGE_OPTIONS = ("preset", "sweep", "last", "mode")

#: The simple mode (``mode=simple``): these fields in view, friendly protocol names, everything else folded away.
SIMPLE_FIELDS = (
    "protocols",
    "network.rtt_ms",
    "network.bandwidth_bps",
    "page.html_bytes",
    "page.object_count",
    "page.object_size_bytes",
    "tcp.nagle",
    "tls.version",
)
MODES = ("", "simple")

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


#: Labels of whole parameters (a field of a list's objects: one value per origin).
_PARAM_LABELS = {
    "page.origins.dns_ms": "Origins' DNS lookups",
    "page.origins.preconnected": "Origins preconnected",
    "page.origins.coalesce_with_html": "Origins on the HTML's connection",
    "page.origins.early_hint_preconnect": "Origins the 103 Early Hints preconnects",
    "page.origins.rtt_ms": "Origins' own RTTs",
    "page.origins.bandwidth_bps": "Origins' own bottleneck rates",
    "page.object_early_hint": "Objects the 103 Early Hints names",
    "page.object_named_at_bytes": "Where its parent names each object",
    "page.object_origins": "Object origins",
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
        """What the field allows, in plain words (a blank field keeps the base's value): see :func:`must_be`; a page
        size also says the whole page's limit (:data:`SEGMENT_LIMITED`)."""
        if self.param in SEGMENT_LIMITED:
            return f"{must_be(self.spec)}, {SEGMENT_LIMIT_WORDS}"
        return must_be(self.spec)


#: The page's sizes, which the scenario's cap on response segments (``MAX_SEGMENTS``) limits together.
SEGMENT_LIMITED = ("page.html_bytes", "page.object_size_bytes", "page.object_bytes")
#: That cap in words, for those fields' help (the default segment size; the message of a page over it gives its own).
SEGMENT_LIMIT_WORDS = (
    f"and the whole page (HTML, objects and response headers) at most {MAX_SEGMENTS:,} packets: "
    f"about {MAX_SEGMENTS * 1460 / 1e6:.1f} MB with 1,460-byte segments"
)


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
    label = _PARAM_LABELS.get(param) or " ".join([label_of(parts[0]), *(label_of(p).lower() for p in parts[1:])])
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


#: Points of the sweep plot from one end of a field's range to the other, where the field has that many values.
SWEEP_POINTS = 121


def _spaced(param: str, start: float, stop: float, log: bool, zero: bool = False) -> tuple[float, ...]:
    """:data:`SWEEP_POINTS` values of ``param`` from ``start`` to ``stop`` (equal ratios if ``log``, else equal
    differences; three significant figures, whole numbers for an integer field, repeats dropped), after 0 if
    ``zero``."""
    req = SweepRequest(field=param, start=start, stop=stop, steps=SWEEP_POINTS, spacing="log" if log else "linear")
    out = [float(f"{v:.3g}") for v in sweep_values(req)]  # three significant figures: addresses and tables stay short
    return tuple(dict.fromkeys([0.0, *out] if zero else out))


SWEEPS: dict[str, SweepChoice] = {
    s.param: s
    for s in (
        SweepChoice("network.rtt_ms", "Round-trip time", _spaced("network.rtt_ms", 1, 1000, True), True),
        SweepChoice("network.bandwidth_bps", "Bandwidth", _spaced("network.bandwidth_bps", 28_800, 10e9, True), True),
        SweepChoice("page.object_count", "Embedded objects", _spaced("page.object_count", 0, 100, False), False),
        SweepChoice(
            "page.object_size_bytes", "Size of each object", _spaced("page.object_size_bytes", 100, 100_000, True), True
        ),
        SweepChoice("tcp.mss_bytes", "Maximum segment size", _spaced("tcp.mss_bytes", 256, 8960, True), True),
        SweepChoice(
            "tcp.initial_window_segments",
            "Initial congestion window",
            _spaced("tcp.initial_window_segments", 1, 16, False),
            False,
        ),
        SweepChoice("tcp.delayed_ack_ms", "Delayed-ACK timer", _spaced("tcp.delayed_ack_ms", 0, 500, False), False),
        SweepChoice(
            "network.loss_rate",
            "Loss rate (expected values)",
            _spaced("network.loss_rate", 0.0005, 0.2, True, zero=True),
            True,
        ),
    )
}
DEFAULT_SWEEP = "network.rtt_ms"
#: Most work the sweep plot may cost, in the native engine's terms (:func:`latency_lab.scenario.limits.run_cost`); costlier
#: points are left out. A point of a Microscape page costs 739 units (three protocols), so every one of the 121
#: points of a field fits there. About 45 ms of the native engine on Microscape, so a form change stays under 150 ms
#: (bench/bench_ui.py).
SWEEP_WORK_BUDGET = 100_000
#: The same with ``network.loss_rate`` over 0, for the sweep plot and the loss chart together (shared by
#: ``latency_lab_web.calculator.views.sweep_budget``). A lossy point costs what the loss analysis adds
#: (limits.NATIVE_LOSS_STEP_COST times the units, and limits.NATIVE_LOSS_RUN_STEPS a protocol run), and the page's
#: runs all draw on one request's step budget (limits.MAX_ENGINE_STEPS, at most
#: limits.PLAIN_STEPS_PER_UNIT steps a unit), so this stays well inside it: the engine's budget never cuts a sweep the
#: estimate let through.
LOSSY_SWEEP_WORK_BUDGET = 400_000
#: Most work one follow-up request of the sweep plot or the loss chart may cost (``GET /sweep-points``,
#: ``latency_lab_web.calculator.views.fill_plan``): the values a page left out for its budget are drawn in slices of at most this
#: many units, each priced before it runs. A request of the page itself costs up to :data:`LOSSY_SWEEP_WORK_BUDGET`
#: and its own prediction, so a slice, which costs no more and predicts nothing else, stays within the same time.
SWEEP_FILL_WORK_BUDGET = LOSSY_SWEEP_WORK_BUDGET


# --- reading the request ------------------------------------------------------------------------------


@dataclass
class State:
    """The request read: what was given, what it means, and what is wrong with it."""

    preset: str = ""
    sweep: str = DEFAULT_SWEEP
    mode: str = ""  # "" (every field) or "simple"
    given: dict[str, str] = field(default_factory=dict)  # scenario param -> text as given (not blank)
    errors: dict[str, list[str]] = field(default_factory=dict)  # param, "preset", "sweep" or "" -> messages
    base_doc: dict[str, Any] = field(default_factory=dict)  # the preset's document ({} for defaults)
    document: dict[str, Any] = field(default_factory=dict)  # base_doc with the given fields on top
    scenario: Scenario | None = None  # None when invalid
    _canonical: list[tuple[str, str]] | None = field(default=None, repr=False)  # worked out when first asked
    notes: dict[str, list[str]] = field(default_factory=dict)  # section -> what the page filled in for the user
    last: str = ""  # the address of the last valid scenario the form showed (its hidden "last" field), "/?..."

    def add(self, where: str, message: str) -> None:
        messages = self.errors.setdefault(where, [])
        if message not in messages:
            messages.append(message)

    @property
    def canonical(self) -> list[tuple[str, str]]:
        """The shortest query giving the scenario (:func:`canonical`; empty while it is invalid), worked out when first
        asked: it validates the scenario once more for each field given (10-30 ms for a page of 1,000 objects), which
        a request refused after reading the query (``GET /sweep-points`` of a slice the page does not have) never
        needs."""
        if self._canonical is None:
            self._canonical = canonical(self, self.scenario) if self.scenario is not None else []
        return self._canonical

    @canonical.setter
    def canonical(self, pairs: list[tuple[str, str]]) -> None:
        self._canonical = pairs

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
        if self.mode:
            pairs.append(("mode", self.mode))
        return urlencode(pairs, safe=",")


def _where(p: Problem, given: Mapping[str, str]) -> list[str]:
    """The form parameters a problem belongs beside (``[""]``: the scenario as a whole)."""
    loc = [part for part in p.loc if isinstance(part, str)]
    if loc == ["page", "origins"]:  # the list as a whole (too many origins): beside each of its parameters given
        return [param for param in OBJECT_LIST_PARAMS if param in given] or ["page"]
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
        each = "true or false (yes or no)" if s.item.kind == "boolean" else must_be(s.item)
        return f"a comma-separated list of {most}values, each {each}"
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
    joined = ".".join(part for part in p.loc if isinstance(part, str))
    if joined in OBJECT_LIST_PARAMS:  # page.origins[1].dns_ms: value 2 of the origins' lookups
        param = joined
    if p.loc == ("page", "origins") and p.type == "too_long":
        return f"The page has at most {MAX_ORIGINS} origins beside the HTML's; these fields give {_count(p.value)}."
    f = FIELD_BY_PARAM.get(param)
    if f is None or p.type == "value_error":
        section = p.loc[0] if p.loc and isinstance(p.loc[0], str) else ""
        return _labelled(p.message, section).rstrip(".") + "."
    index = next((part for part in p.loc if isinstance(part, int)), None)
    if index is not None and f.spec.item is not None:
        item = p.value if isinstance(p.value, str) else (p.got if p.got is not None else str(p.value))
        typed_items = given.get(f.param, "").split(" (= ")[0].split(",")  # what was typed, before its units read
        if f.param in OBJECT_LIST_PARAMS and index < len(typed_items):  # as typed (50, not the number read, 50.0)
            item = typed_items[index].strip()
        return f"{f.label}: value {index + 1} must be {must_be(f.spec.item)}; you gave {item}."
    typed = given.get(f.param) or p.got or "nothing"
    return f"{f.label} must be {must_be(f.spec)}; you gave {typed}."


def _count(value: Any) -> str:
    return f"{len(value):,}" if isinstance(value, list) else "more"


def validate_doc(doc: dict[str, Any]) -> Scenario:
    return Scenario.model_validate(doc, strict=True)


def query_text(value: Any) -> str:
    """A converted query value written back the way the query syntax reads it (``None``, an object's default in a
    list such as page.origins.rtt_ms: empty)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, list):
        return ",".join(query_text(v) for v in value)
    return str(value)


def _param_doc(params: Mapping[str, str]) -> dict[str, Any]:
    doc, _ = scenario_document(MultiDict(list(params.items())), ())
    return doc


def canonical(state: State, scenario: Scenario) -> list[tuple[str, str]]:
    """The shortest query giving ``scenario``: each given field left out if the scenario stays the same without it.

    ``scenario`` is the one ``state.base_doc`` and ``state.given`` give (:func:`read`). Each field is read once, and a
    trial without it validates only its own section: the others are the same documents as the scenario kept so far,
    whose validated sections it takes (the overlay's rules stay within a section, and a section's rules read only
    it). A 663-object page with every per-object list given cost 0.4 s a request otherwise (issue 26)."""
    target = scenario.model_dump(mode="json")
    kept = dict(state.given)
    values = {param: convert(text, SCENARIO_PARAMS[param]) for param, text in kept.items()}
    current = scenario  # validated from the fields kept so far
    for param in list(kept):
        section = param.split(".", 1)[0] if "." in param else ""
        doc, _ = place_values({k: v for k, v in values.items() if k in kept and k != param})
        trial = overlay(state.base_doc, doc)
        for name, value in trial.items():
            if name != section and isinstance(value, dict) and isinstance(getattr(current, name, None), BaseModel):
                trial[name] = getattr(current, name).model_copy()  # the same section as current's, validated
        try:
            shorter = validate_doc(trial)
        except ValidationError:
            continue
        if shorter.model_dump(mode="json") == target:
            del kept[param]
            current = shorter
    converted = _param_doc(kept)
    pairs: list[tuple[str, str]] = [("preset", state.preset)] if state.preset else []
    for f in FIELDS:
        if f.param in kept:
            if f.param in OBJECT_LIST_PARAMS:  # page.origins.dns_ms: a list of the objects' values, not in a dict
                value = convert(kept[f.param], f.spec)
            else:
                value = at_path(converted, f.param)
            pairs.append((f.param, query_text(value)))
    if state.sweep != DEFAULT_SWEEP:
        pairs.append(("sweep", state.sweep))
    if state.mode:
        pairs.append(("mode", state.mode))
    return pairs


def unit_of(param: str) -> str | None:
    """The base unit of a field the form reads units for (``ms``, ``bit/s``, ``bytes``, and ``fraction`` for a
    dimensionless number from 0 to at most 1, which a percentage may give), else ``None``."""
    s = SCENARIO_PARAMS.get(param)
    if s is None:
        return None
    one = s.item if s.kind == "array" and s.item is not None else s
    if one.unit in UNITS:
        return one.unit
    if one.kind == "number" and one.low is not None and one.low >= 0 and one.high is not None and one.high <= 1:
        return "fraction"  # a probability or a ratio ("per packet", or none)
    return None


#: What a list of yes-or-no values reads as true or false (its address writes ``true`` and ``false``).
_YES_NO = {"yes": "true", "no": "false", "true": "true", "false": "false", "on": "true", "off": "false"}


def _in_base_units(param: str, text: str) -> str:
    """A field's text with the units people type (``10 Mbps``, ``64 KB``, ``80ms``, ``1 %``) written in the field's
    base unit, and a single number's grouping commas (``1,000``) left out; :class:`latency_lab_web.web.units.UnitError` if a part
    cannot be read. Lists convert item by item (a comma parts their values)."""
    s = SCENARIO_PARAMS.get(param)
    if s is None or text == "":
        return text
    if s.kind in ("number", "integer"):
        text = ungroup(text)
    if s.kind == "array" and s.item is not None and s.item.kind == "boolean":  # yes/no as the selects say it
        return ",".join(_YES_NO.get(part.strip().lower(), part) for part in text.split(","))
    unit = unit_of(param)
    if unit is None:
        return text
    parts = text.split(",") if s.kind == "array" else [text]
    return ",".join(query_text(to_base(part, unit)) if has_unit(part) else part for part in parts)


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
    mode = flat.get("mode", "")
    if mode not in MODES:
        state.add("", f"The calculator has no mode {mode!r}: leave it out for every field, or give mode=simple.")
    else:
        state.mode = mode

    scenario_args: MultiDict[str, str] = MultiDict()
    typed: dict[str, str] = {}  # param -> what was typed, where the form converted its units
    unreadable: dict[str, str] = {}  # param -> text whose units could not be read (its error is added)
    for name in flat:
        values = flat.getlist(name)
        if name in PAGE_OPTIONS:
            if len(values) > 1:
                state.add(name, f"{name}: given {len(values)} times; give it once")
            continue
        if name in SCENARIO_PARAMS and name != "protocols" and all(v == "" for v in values):
            continue  # a blank field keeps the base's value
        for v in values:
            try:
                converted = _in_base_units(name, v) if len(values) == 1 else v
            except UnitError as exc:
                f = FIELD_BY_PARAM[name]
                state.add(name, f"{f.label} must be {must_be(f.spec)}: {exc.reason}; you gave {v}.")
                unreadable[name] = v
                continue
            if converted != v:
                unit = unit_of(name)
                typed[name] = f"{v} (= {converted}{f' {unit}' if unit and unit != 'fraction' else ''})"
            scenario_args.add(name, converted)
    doc, found = scenario_document(scenario_args, ())
    for p in found:
        target = p.path if p.path in FIELD_BY_PARAM else ""
        if target and p.type == "repeated_parameter":
            state.add(target, f"{FIELD_BY_PARAM[target].label} was given {len(p.value)} times; give it once.")
        elif target and p.type == LIST_LENGTHS:
            counts = [
                f"\u201c{FIELD_BY_PARAM[n].label}\u201d {len(convert(scenario_args[n], SCENARIO_PARAMS[n]))}"
                for n in OBJECT_LIST_PARAMS
                if n in scenario_args
            ]
            state.add(
                target,
                f"The origins' fields give different numbers of values ({', '.join(counts)}): give each of them one "
                "value per origin, in the same order.",
            )
        elif p.type == "extra_forbidden":
            close = f"; did you mean {p.suggestion!r}?" if p.suggestion else "."
            state.add("", f"The address has a setting this calculator does not know: {p.path!r}{close}")
        else:
            state.add(target, p.text if target else p.text.split("; allowed fields:")[0])
    state.given = {name: scenario_args[name] for name in scenario_args if name in SCENARIO_PARAMS}
    state.given.update(unreadable)
    if state.errors:
        return state
    state.base_doc = copy.deepcopy(PRESETS[state.preset].document) if state.preset else {}
    page_notes: list[str] = []
    state.document = overlay(state.base_doc, doc, page_notes)
    if page_notes:
        state.notes["page"] = page_notes
    try:
        scenario = validate_doc(state.document)
    except ValidationError as exc:
        for p in problems(exc):
            for where in _where(p, state.given):
                state.add(where, plain(p, {**state.given, **typed}))
        return state
    limit = check(work_units(scenario), MAX_WORK_UNITS, "max_work_units", "this prediction")
    if limit is not None:
        message = limit.message[:1].upper() + limit.message[1:] + "."  # "This prediction is too much work ..."
        for where in costly_fields(scenario):
            state.add(where, message)
        return state
    state.scenario = scenario  # its canonical query is worked out when first asked (State.canonical)
    return state


def value_words(param: str, text: str) -> str:
    """A field's value as a query gives it, for people: ``true`` -> ``on``, ``20`` -> ``20 ms``."""
    f = FIELD_BY_PARAM.get(param)
    if f is None:
        return text
    if f.spec.kind == "boolean" and text in ("true", "false"):
        return "on" if text == "true" else "off"
    unit = f.spec.unit if f.spec.kind in ("number", "integer") else ""
    return f"{text} {unit}" if unit and text else text


def describe(state: State) -> tuple[str, str]:
    """A valid scenario in two lines for a chart's picture: what it is (its preset, and each field it changes, by
    the form's labels) and its loss rate. ``("preset n97-wan; RTT 20 ms, Nagle off", "loss rate 0.01 (1 %) ...")``.
    """
    assert state.scenario is not None
    changed = [(p, v) for p, v in state.canonical if p in FIELD_BY_PARAM]
    what = f"preset {state.preset}" if state.preset else "the model's defaults"
    if changed:
        what += "; " + ", ".join(f"{FIELD_BY_PARAM[p].label} {value_words(p, v)}" for p, v in changed)
    return what, loss_words(state.scenario.network.loss_rate)


def loss_words(rate: float) -> str:
    """A loss rate in words: ``loss rate 0.01 (1 %) per packet``, or ``no random loss``."""
    if rate <= 0:
        return "no random loss (loss rate 0)"
    return f"loss rate {rate:g} ({rate * 100:.3g} %) per packet"


def at_path(doc: Mapping[str, Any], param: str) -> Any:
    """The value at a dotted path of a document (``None`` if not there)."""
    value: Any = doc
    for part in param.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value
