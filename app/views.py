"""The app's pages: an interim scenario form and its results.

``GET /`` shows the form. Submitting it (a GET, so the URL can be shared) validates the query
through :class:`model.Scenario`, calls :func:`model.predict` and shows every protocol's page load
time, breakdown, counts and events. Semantics of the form: the chosen preset (or the model's
defaults) is the base scenario; a field left blank keeps the base's value (TCP fields left blank
follow the TCP profile); a field filled in overrides it. Invalid input gives HTTP 400 with the
field, pydantic's message and the allowed range.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from flask import Blueprint, current_app, render_template, request
from pydantic import BaseModel, ValidationError

from model import PRESETS, Scenario, predict, preset
from model.errors import FieldSpec, problems, spec, words

bp = Blueprint("web", __name__)

Kind = Literal["number", "bool", "choice"]


@dataclass(frozen=True, slots=True)
class FormField:
    """One form field: a flat query parameter mapped onto ``Scenario.<section>.<name>``."""

    name: str
    section: str
    label: str
    kind: Kind


#: The form's fields, in display order. Names are the scenario's own field names.
FIELDS: tuple[FormField, ...] = (
    FormField("rtt_ms", "network", "Round-trip time", "number"),
    FormField("bandwidth_bps", "network", "Bandwidth", "number"),
    FormField("profile", "tcp", "TCP profile", "choice"),
    FormField("mss_bytes", "tcp", "Maximum segment size", "number"),
    FormField("initial_window_segments", "tcp", "Initial congestion window", "number"),
    FormField("nagle", "tcp", "Nagle's algorithm", "bool"),
    FormField("header_flush", "http", "Server flushes the header first", "bool"),
    FormField("html_bytes", "page", "HTML size", "number"),
    FormField("object_count", "page", "Embedded objects", "number"),
    FormField("object_size_bytes", "page", "Size of each object", "number"),
)
FIELD_BY_NAME: dict[str, FormField] = {f.name: f for f in FIELDS}


@dataclass(frozen=True, slots=True)
class FieldError:
    """A message for the page; ``field`` is a form field's name, or ``None`` for the scenario as a whole."""

    field: str | None
    message: str


def _section_model(section: str) -> type[BaseModel]:
    annotation = Scenario.model_fields[section].annotation
    if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        raise TypeError(f"Scenario.{section} is not a pydantic model")
    return annotation


def _spec(field: FormField) -> FieldSpec:
    """What a form field's scenario field accepts (see :func:`model.errors.spec`)."""
    found = spec((field.section, field.name))
    if found is None:
        raise TypeError(f"Scenario.{field.section}.{field.name} is not a field the form can describe")
    return found


def _allowed(field: FormField) -> str:
    """A form field's allowed values in words, as the command line words them: ``a number from 0 to 10,000 ms``.

    Without ``null``: a form cannot give it (a blank field keeps the base scenario's value).
    """
    return words(_spec(field), with_null=False)


def base_scenario(preset_name: str) -> tuple[Scenario, list[FieldError]]:
    """The scenario the form's fields override: the named preset, or the model's defaults."""
    if not preset_name:
        return Scenario(), []
    if preset_name not in PRESETS:
        names = ", ".join(PRESETS) or "(none)"
        return Scenario(), [FieldError("preset", f"preset: unknown preset {preset_name!r}; choose one of: {names}")]
    return preset(preset_name), []


def scenario_document(base: Scenario, given: Mapping[str, str]) -> dict[str, Any]:
    """The scenario document for :meth:`Scenario.model_validate`: ``base`` with the given fields on top.

    Values stay strings: pydantic parses and range-checks them. Three rules keep a partial form
    consistent with a base it does not fully show:

    - a new TCP profile: TCP fields the base took from its profile follow the new profile;
    - ``rtt_ms`` given while the base sets both one-way delays: the delays are dropped (they
      would override ``rtt_ms``);
    - ``object_count`` or ``object_size_bytes`` given: the base's object list is replaced by
      ``count`` objects of one size, the one not given taken from the base when it is unambiguous.
    """
    doc = base.model_dump(mode="json")
    tcp, network, page = doc["tcp"], doc["network"], doc["page"]

    if "profile" in given and given["profile"] != base.tcp.profile:
        for name, info in _section_model("tcp").model_fields.items():
            if info.default is None and name not in base.tcp.model_fields_set:
                tcp[name] = None

    if (
        "rtt_ms" in given
        and network.get("uplink_delay_ms") is not None
        and network.get("downlink_delay_ms") is not None
    ):
        network["uplink_delay_ms"] = network["downlink_delay_ms"] = None

    if "object_count" in given or "object_size_bytes" in given:
        sizes = base.page.sizes()
        page["object_bytes"] = None
        if page.get("object_count") is None:
            page["object_count"] = len(sizes)
        if page.get("object_size_bytes") is None and len(set(sizes)) == 1:
            page["object_size_bytes"] = sizes[0]

    for name, value in given.items():
        field = FIELD_BY_NAME[name]
        doc[field.section][name] = value
    return doc


def missing_fields(base: Scenario, given: Mapping[str, str]) -> list[FieldError]:
    """Fields the form must add because the base cannot supply them (see :func:`scenario_document`)."""
    if "object_count" in given and "object_size_bytes" not in given and base.page.object_size_bytes is None:
        sizes = base.page.sizes()
        if len(set(sizes)) != 1:
            why = "its objects differ in size" if sizes else "it has no embedded objects"
            field = FIELD_BY_NAME["object_size_bytes"]
            return [
                FieldError(
                    field.name,
                    f"object_size_bytes: give it with object_count, because the base scenario cannot supply it ({why}); "
                    f"allowed: {_allowed(field)}",
                )
            ]
    return []


def describe_errors(exc: ValidationError) -> list[FieldError]:
    """pydantic's errors as messages that name the form field (or scenario part) and what it allows.

    The messages are :attr:`model.errors.Problem.text`, the command line's lines, except that a form
    field is named as the form names it (``rtt_ms``, not ``network.rtt_ms``) and ``null`` is not offered.
    An error of a scenario part the form does not show goes to the form fields its message names.
    """
    out: list[FieldError] = []
    for problem in problems(exc):
        loc = problem.loc
        field = FIELD_BY_NAME.get(str(loc[-1])) if len(loc) == 2 else None
        if field is not None and field.section == loc[0]:
            shown = replace(problem, path=field.name, allowed=None if problem.allowed is None else _allowed(field))
            out.append(FieldError(field.name, shown.text))
            continue
        mentioned = [f.name for f in FIELDS if f.name in problem.message]
        if mentioned:
            out.extend(FieldError(name, problem.text) for name in mentioned)
        else:
            out.append(FieldError(None, problem.text))
    return out


def _effective(scenario: Scenario, field: FormField) -> str:
    """The value in use for a field, as the form's placeholder shows it."""
    sizes = scenario.page.sizes()
    if field.name == "object_count":
        return str(len(sizes))
    if field.name == "object_size_bytes" and scenario.page.object_size_bytes is None:
        return str(sizes[0]) if len(set(sizes)) == 1 else ("sizes vary" if sizes else "")
    value = getattr(getattr(scenario, field.section), field.name)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def form_fields(raw: Mapping[str, str], effective: Scenario, errors: list[FieldError]) -> list[dict[str, Any]]:
    """What the template needs to draw each field."""
    out = []
    for field in FIELDS:
        s = _spec(field)
        out.append(
            {
                "name": field.name,
                "label": field.label,
                "kind": field.kind,
                "unit": s.unit,
                "value": raw.get(field.name, ""),
                "effective": _effective(effective, field),
                "allowed": _allowed(field),
                "description": s.description,
                "min": s.low,
                "max": s.high,
                "step": "1" if s.kind == "integer" else "any",
                "choices": [str(c) for c in s.choices] if field.kind == "choice" else ["true", "false"],
                "errors": [e.message for e in errors if e.field == field.name],
            }
        )
    return out


@bp.app_template_filter("ms")
def format_ms(value: float | None) -> str:
    """Milliseconds with one decimal: ``1234.56`` -> ``1,234.6``."""
    return "—" if value is None else f"{value:,.1f}"


@bp.app_template_filter("count")
def format_count(value: int | None) -> str:
    """A count with thousands separators."""
    return "—" if value is None else f"{value:,}"


@bp.get("/")
def index() -> tuple[str, int]:
    """The scenario form; with a query string, also the prediction (or the input's errors, with 400)."""
    args = request.args
    submitted = len(args) > 0
    preset_name = args.get("preset", "").strip()
    raw = {f.name: args.get(f.name, "").strip() for f in FIELDS}
    given = {name: value for name, value in raw.items() if value}

    base, errors = base_scenario(preset_name)
    if submitted and not errors:
        errors = missing_fields(base, given)
    effective = base
    prediction: dict[str, Any] | None = None
    if submitted and not errors:
        try:
            scenario = Scenario.model_validate(scenario_document(base, given))
            prediction = predict(scenario)
        except ValidationError as exc:
            errors = describe_errors(exc)
        else:
            effective = scenario

    results: list[dict[str, Any]] = prediction["results"] if prediction else []
    html = render_template(
        "index.html",
        fields=form_fields(raw, effective, errors),
        presets=PRESETS,
        preset_name=preset_name,
        preset_info=PRESETS.get(preset_name),
        errors=errors,
        preset_errors=[e.message for e in errors if e.field == "preset"],
        submitted=submitted,
        results=results,
        breakdown_keys=list(results[0]["breakdown_ms"]) if results else [],
        count_keys=list(results[0]["counts"]) if results else [],
        max_events=int(current_app.config["MAX_EVENTS_SHOWN"]),
        scenario_json=json.dumps(prediction["scenario"], indent=2) if prediction else "",
    )
    return html, 400 if errors else 200


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness check."""
    return {"status": "ok"}
