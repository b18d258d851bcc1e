"""The JSON API, versioned under ``/api/v1``: scripted what-if questions over the model.

- ``GET|POST /api/v1/predict``: a scenario (JSON body, or query parameters: :mod:`latency_lab_web.web.query`) in,
  :func:`latency_lab.analysis.predict`'s output document out; ``packets=true`` adds the packet schedules.
- ``POST /api/v1/sweep``: a :class:`latency_lab.analysis.sweep.SweepRequest` in, one series per protocol out.
- ``GET /api/v1/presets``, ``GET /api/v1/presets/{name}``: the seeds' setups.
- ``GET|POST /api/v1/formulas/{protocol}``: a protocol's page load time as a formula (text, LaTeX,
  MathML) with the glossary of its symbols.
- ``POST /api/v1/har``: a HAR file (the body) and what-ifs (query parameters) in, the HAR's page, the scenario made of
  it and its predictions beside the HAR's own onLoad out (:func:`latency_lab.studies.har.answer`).
- ``GET /api/openapi.json`` (OpenAPI 3.1, from the pydantic models) and ``GET /api/docs``.

Predict and sweep answer CSV for ``?format=csv`` or ``Accept: text/csv``. Every error is a problem
document (:mod:`latency_lab_web.web.problems`); the limits (body size, query length, JSON nesting, work units, sweep
points) are in :mod:`latency_lab.scenario.limits`, :mod:`latency_lab.scenario.errors` and the app's config, and listed on the docs
page.

A body and a query are read into a scenario by :mod:`latency_lab_web.web.request` (shared with the teaching panel).
"""

from __future__ import annotations

import csv
import difflib
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pydantic_core
from flask import Response, current_app, render_template, request, url_for
from markupsafe import Markup, escape
from pydantic import ValidationError
from werkzeug.exceptions import RequestEntityTooLarge

from latency_lab import ALL_PROTOCOLS, PRESETS, Scenario, predict
from latency_lab.analysis.answer import listed
from latency_lab.analysis.jsontext import dumps
from latency_lab.analysis.sweep import SWEEPABLE_FIELDS, SweepError, SweepRequest, field_spec, request_problems, sweep
from latency_lab.analysis.sweep import csv_rows as sweep_csv_rows
from latency_lab.analysis.tables import csv_rows
from latency_lab.scenario import limits
from latency_lab.scenario.errors import Problem, allowed, whole_number, whole_numbers
from latency_lab.scenario.har import HarError, load_har
from latency_lab.scenario.limits import (
    MAX_FORMULA_WORK_UNITS,
    MAX_HAR_BYTES,
    MAX_PACKETS_WORK_UNITS,
    MAX_WORK_UNITS,
    check,
    costly_fields,
    work_units,
)
from latency_lab.studies.har import answer as har_answer
from latency_lab_web.api import bp
from latency_lab_web.web.cache import Entry, ResponseCache
from latency_lab_web.web.har import har_problem, what_if_of
from latency_lab_web.web.problems import ApiError, invalid
from latency_lab_web.web.query import only_options
from latency_lab_web.web.request import (
    CSV,
    JSON,
    bool_option,
    check_query_size,
    json_body,
    json_media_type,
    output_format,
    problem_at,
    scenario_input,
    validate,
)

if TYPE_CHECKING:  # the response models are made at import (latency_lab.api_schema): only the docs need them
    from latency_lab.api_schema import FormulaAnswer

#: Query parameters besides the scenario's fields, per endpoint.
PREDICT_OPTIONS = ("format", "packets", "preset")
FORMULA_OPTIONS = ("preset",)
SWEEP_OPTIONS = ("format",)

# --- reading requests (the shared part: latency_lab_web/web/request.py) ---------------------------------------


def _sweep_allowed(loc: tuple[str | int, ...]) -> str | None:
    """What the field at ``loc`` of a sweep request allows, in words, where it is a scenario field."""
    return allowed(loc[1:]) if loc[:1] == ("scenario",) else None


def whole_numbers_of_sweep(doc: Any) -> Any:
    """A sweep request with whole floats as integers where an integer is expected (as :func:`validate_scenario` reads
    a scenario): in its base scenario, ``steps``, and ``values`` when the swept field takes integers."""
    if not isinstance(doc, dict):
        return doc
    out = dict(doc)
    if "scenario" in out:
        out["scenario"] = whole_numbers(out["scenario"])
    if isinstance(out.get("steps"), float):
        out["steps"] = whole_number(out["steps"])
    swept = out.get("field")
    values = out.get("values")
    if swept in SWEEPABLE_FIELDS and field_spec(swept).kind == "integer" and isinstance(values, list):
        out["values"] = [whole_number(v) if isinstance(v, float) else v for v in values]
    return out


# --- answering ---------------------------------------------------------------------------------------


def _cache() -> ResponseCache:
    cache: ResponseCache = current_app.extensions["api_cache"]
    return cache


def _encode(doc: Any) -> bytes:
    """``doc`` as JSON in UTF-8: :func:`latency_lab.analysis.jsontext.dumps`'s text, by the same writer
    (``pydantic_core.to_json``) without its ASCII escaping (a body needs none: the answer is UTF-8 JSON, and ``json``
    reads the same values), in 60 % of the time (issue 26: 0.10 against 0.18 ms for a 10-object predict's 21 KB).
    Anything that writer would not give as plain JSON (NaN or infinity, which are refused; a lone surrogate) goes
    through ``dumps`` as before."""
    try:
        text = pydantic_core.to_json(doc, inf_nan_mode="constants")
    except pydantic_core.PydanticSerializationError:
        return dumps(doc).encode()
    if b"NaN" in text or b"Infinity" in text:
        return dumps(doc).encode()  # refuses a document holding NaN or infinity (ValueError), as before
    return text


def _csv(rows: list[list[Any]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue().encode()


def cached(key: Sequence[Any], make: Callable[[], Entry], scenario: Scenario | None = None) -> Response:
    """The answer for ``key`` from the cache, or made by ``make`` and kept. ``scenario``, if given, is part of the
    key, written by pydantic's own JSON writer (a quarter of ``json.dumps(model_dump())``'s time: issue 26)."""
    cache = _cache()
    text = json.dumps(key, separators=(",", ":"))
    if scenario is not None:
        text += scenario.model_dump_json()
    entry = cache.get(text)
    status = "latency-lab; hit"
    if entry is None:
        entry = make()
        stored = cache.put(text, entry)
        status = "latency-lab; fwd=miss" + ("; stored" if stored else "")
    response = Response(entry.body, mimetype=entry.mimetype)
    response.headers["Cache-Status"] = status
    response.headers["Vary"] = "Accept"
    return response


# --- endpoints ----------------------------------------------------------------------------------------


@bp.route("/v1/predict", methods=["GET", "POST"])
def predict_endpoint() -> Response:
    """A scenario's prediction for each of its protocols."""
    doc = scenario_input(PREDICT_OPTIONS)
    fmt = output_format()
    packets = bool_option("packets")
    scenario = validate(doc)
    if packets and fmt == "csv":
        raise invalid(
            [
                Problem(
                    path="packets",
                    message="a packet schedule is not a CSV row: use format json with packets=true",
                    allowed="false with format csv",
                    value=True,
                    type="value_error",
                    loc=("packets",),
                )
            ]
        )
    units = work_units(scenario)
    limit = (
        check(units, MAX_PACKETS_WORK_UNITS, "max_packets_work_units", "this prediction with packets")
        if packets
        else check(units, MAX_WORK_UNITS, "max_work_units", "this prediction")
    )
    if limit is not None:  # refused before anything runs; the message names the fields that cost most
        message = f"{limit.message}; the fields that cost most: {', '.join(costly_fields(scenario))}"
        where = Problem(path="", message=message, type="limit_exceeded", loc=())
        raise invalid([where], limit)

    def make() -> Entry:
        if packets:  # the answer lists every packet: its own, smaller step budget (latency_lab.scenario.limits)
            with limits.request_budget(packets=True):
                out = predict(scenario, packets=True)
        else:
            out = predict(scenario)
        if fmt == "csv":
            return Entry(_csv(csv_rows([out], batch=False)), CSV)
        return Entry(_encode(listed(out)), JSON)  # at most max_listed events and path stalls, with their totals

    return cached(["predict", fmt, packets], make, scenario)


@bp.post("/v1/sweep")
def sweep_endpoint() -> Response:
    """A field stepped over values; one series per protocol."""
    check_query_size()
    found = only_options(request.args, SWEEP_OPTIONS)
    if found:
        raise invalid(found)
    fmt = output_format()
    doc = json_body(_sweep_allowed)
    try:
        req = SweepRequest.model_validate(whole_numbers_of_sweep(doc), strict=True)
    except ValidationError as exc:
        raise invalid(request_problems(exc)) from None
    key = [
        "sweep",
        fmt,
        req.model_dump(mode="json"),
        req.scenario.model_dump(mode="json", exclude_unset=True),  # a sweep follows what the base left out
    ]

    def make() -> Entry:
        try:
            out = sweep(req)
        except SweepError as exc:
            raise invalid(exc.problems, exc.limit) from None
        if fmt == "csv":
            return Entry(_csv(sweep_csv_rows(out)), CSV)
        return Entry(_encode(out), JSON)

    return cached(key, make)


def _har_bytes() -> bytes:
    """The body, a HAR: at most ``MAX_HAR_BYTES`` (max_har_bytes, not the scenarios' max_body_bytes), else 413."""
    json_media_type()
    size = request.content_length
    message = f"the HAR is over {MAX_HAR_BYTES:,} bytes (max_har_bytes); save it without contents"
    too_large = ApiError(
        "body-too-large",
        message,
        [Problem(path="", message=message, allowed=f"a HAR of at most {MAX_HAR_BYTES:,} bytes", type="limit_exceeded")],
        limits.Limit("max_har_bytes", MAX_HAR_BYTES, size or MAX_HAR_BYTES + 1, message),
        headers={"Connection": "close"},
    )
    if size is not None and size > MAX_HAR_BYTES:
        raise too_large
    request.max_content_length = MAX_HAR_BYTES  # this endpoint's own limit (a chunked body is cut past it: 413)
    try:
        return request.get_data(cache=False)
    except RequestEntityTooLarge:
        raise too_large from None


@bp.post("/v1/har")
def har_endpoint() -> Response:
    """A HAR's page predicted with what-ifs, beside the HAR's own onLoad."""
    check_query_size()
    what_if = what_if_of(request.args)
    data = _har_bytes()
    try:
        out = har_answer(load_har(data), what_if)
    except HarError as exc:
        raise har_problem(exc) from None
    return Response(_encode(out.model_dump(mode="json")), mimetype=JSON)


def _preset_summary(name: str) -> dict[str, Any]:
    p = PRESETS[name]
    return {
        "name": p.name,
        "title": p.title,
        "citation": p.citation,
        "assumptions": p.assumptions,
        "fitted": dict(p.fitted),
        "url": url_for("api.preset_endpoint", name=p.name),
    }


@bp.get("/v1/presets")
def presets_endpoint() -> Response:
    """Every preset: name, title, citation, assumptions, fitted values."""
    check_query_size()
    found = only_options(request.args, ())
    if found:
        raise invalid(found)
    return Response(_encode({"presets": [_preset_summary(name) for name in PRESETS]}), mimetype=JSON)


@bp.get("/v1/presets/<name>")
def preset_endpoint(name: str) -> Response:
    """One preset with its scenario document and the scenario as computed."""
    check_query_size()
    found = only_options(request.args, ())
    if found:
        raise invalid(found)
    if name not in PRESETS:
        close = difflib.get_close_matches(name, PRESETS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        detail = f"no preset {name!r}; presets: {', '.join(PRESETS)}{hint}"
        where = problem_at("name", f"unknown preset {name!r}", "not_found", ", ".join(PRESETS), name)
        raise ApiError("not-found", detail, [replace(where, suggestion=close[0] if close else None)])
    p = PRESETS[name]
    body = {**_preset_summary(name), "document": p.document, "scenario": p.scenario.model_dump(mode="json")}
    return Response(_encode(body), mimetype=JSON)


@bp.route("/v1/formulas/<protocol>", methods=["GET", "POST"])
def formulas_endpoint(protocol: str) -> Response:
    """A protocol's page load time as a formula, with the glossary of its symbols."""
    if protocol not in ALL_PROTOCOLS:
        detail = f"no protocol {protocol!r}; protocols: {', '.join(ALL_PROTOCOLS)}"
        close = difflib.get_close_matches(protocol, ALL_PROTOCOLS, n=1)
        p = problem_at("protocol", f"unknown protocol {protocol!r}", "not_found", ", ".join(ALL_PROTOCOLS), protocol)
        raise ApiError("not-found", detail, [replace(p, suggestion=close[0] if close else None)])
    doc = scenario_input(FORMULA_OPTIONS)
    validate(doc)  # as given: a protocols field must be valid too, though the path's protocol replaces it
    scenario = validate({**doc, "protocols": [protocol]})
    limit = check(work_units(scenario), MAX_FORMULA_WORK_UNITS, "max_formula_work_units", "this formula")
    if limit is not None:
        raise invalid([Problem(path="", message=limit.message, type="limit_exceeded", loc=())], limit)

    def make() -> Entry:
        out = predict(scenario, formulas=True)
        r = out["results"][0]
        body: FormulaAnswer = {
            "protocol": protocol,
            "page_load_ms": r["page_load_ms"],
            "formula": r["formula"],
            "glossary": out["glossary"],
            "scenario": out["scenario"],
        }
        return Entry(_encode(body), JSON)

    return cached(["formula", protocol, scenario.model_dump(mode="json")], make)


@bp.get("/openapi.json")
def openapi_endpoint() -> Response:
    """The OpenAPI 3.1 document of this API."""
    from latency_lab_web.api.openapi import document

    return Response(_encode(document()), mimetype=JSON)


@bp.app_template_filter("code")
def code_spans(text: str) -> Markup:
    """Text with its `backquoted` parts as <code> (everything else escaped), for the docs page."""
    parts = str(escape(text)).split("`")
    return Markup("".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts)))


@bp.get("/docs")
def docs_endpoint() -> str:
    """The API's documentation page, rendered from the OpenAPI document (no scripts, nothing from elsewhere)."""
    from latency_lab_web.api.openapi import docs_context, document

    config = current_app.config
    context = docs_context(
        document(), max_body=int(config["API_MAX_BODY_BYTES"]), max_query=int(config["API_MAX_QUERY_BYTES"])
    )
    return render_template("api/docs.html", **context)
