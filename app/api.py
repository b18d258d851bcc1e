"""The JSON API, versioned under ``/api/v1``: scripted what-if questions over the model.

- ``GET|POST /api/v1/predict``: a scenario (JSON body, or query parameters: :mod:`app.query`) in,
  :func:`model.analysis.predict`'s output document out; ``packets=true`` adds the packet schedules.
- ``POST /api/v1/sweep``: a :class:`model.analysis.sweep.SweepRequest` in, one series per protocol out.
- ``GET /api/v1/presets``, ``GET /api/v1/presets/{name}``: the seeds' setups.
- ``GET|POST /api/v1/formulas/{protocol}``: a protocol's page load time as a formula (text, LaTeX,
  MathML) with the glossary of its symbols.
- ``GET /api/openapi.json`` (OpenAPI 3.1, from the pydantic models) and ``GET /api/docs``.

Predict and sweep answer CSV for ``?format=csv`` or ``Accept: text/csv``. Every error is a problem
document (:mod:`app.problems`); the limits (body size, query length, JSON nesting, work units, sweep
points) are in :mod:`model.scenario.limits`, :mod:`model.scenario.errors` and the app's config, and listed on the docs
page.

A body is read as the command line reads a file: at most ``API_MAX_BODY_BYTES`` (with Content-Length
or chunked), then strict JSON (:func:`model.scenario.json_input.loads_strict`: nesting checked on the text before
anything parses, merges or validates it; no repeated keys, no ``NaN``), then strict types
(:func:`model.scenario.errors.validate_scenario`).
"""

from __future__ import annotations

import copy
import csv
import difflib
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request, url_for
from markupsafe import Markup, escape
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from app.cache import Entry, ResponseCache
from app.problems import ApiError, invalid
from app.query import only_options, scenario_document, unknown
from model import ALL_PROTOCOLS, PRESETS, Scenario, predict
from model.analysis.sweep import SWEEPABLE_FIELDS, SweepError, SweepRequest, field_spec, request_problems, sweep
from model.analysis.sweep import csv_rows as sweep_csv_rows
from model.analysis.tables import csv_rows
from model.scenario import limits
from model.scenario.errors import Problem, allowed, problems, validate_scenario, whole_number, whole_numbers
from model.scenario.json_input import Describe, JsonInputError, loads_strict
from model.scenario.limits import (
    MAX_FORMULA_WORK_UNITS,
    MAX_PACKETS_WORK_UNITS,
    MAX_WORK_UNITS,
    Limit,
    check,
    work_units,
)
from model.scenario.overlay import overlay

bp = Blueprint("api", __name__, url_prefix="/api")

JSON = "application/json"
CSV = "text/csv"

#: Query parameters besides the scenario's fields, per endpoint.
PREDICT_OPTIONS = ("format", "packets", "preset")
FORMULA_OPTIONS = ("preset",)
SWEEP_OPTIONS = ("format",)


MEDIA = "application/json (UTF-8)"

# --- reading requests -------------------------------------------------------------------------------


def _problem(path: str, message: str, kind: str, allowed: str | None = None, value: Any = None) -> Problem:
    return Problem(path=path, message=message, allowed=allowed, value=value, type=kind, loc=(path,) if path else ())


def _bad_json(detail: str) -> ApiError:
    return ApiError("invalid-json", detail, [_problem("", detail, "json_invalid", "a JSON object")])


def _check_query_size() -> None:
    limit = int(current_app.config["API_MAX_QUERY_BYTES"])
    size = len(request.query_string)
    if size > limit:
        detail = (
            f"the query string is {size:,} bytes, at most {limit:,} allowed (max_query_bytes); "
            "send the scenario as a JSON body with POST"
        )
        where = _problem("", detail, "limit_exceeded", f"a query string of at most {limit:,} bytes")
        raise ApiError("query-too-long", detail, [where], Limit("max_query_bytes", limit, size, detail))


def _body_bytes() -> bytes:
    """The request body: at most ``API_MAX_BODY_BYTES``, else 413, whether or not it came with a Content-Length.

    A body without Content-Length (``Transfer-Encoding: chunked``) is read from the server's stream when the
    server ends it (``wsgi.input_terminated``: gunicorn, werkzeug's server): at most one byte past the limit,
    so a longer one is refused (413), never cut short. A body that cannot be read (a malformed chunk: gunicorn
    raises its own parse errors, werkzeug an OSError) is a 400.
    """
    most = int(current_app.config["API_MAX_BODY_BYTES"])
    if request.content_length is not None and request.content_length > most:
        raise RequestEntityTooLarge()
    try:
        if "wsgi.input_terminated" not in request.environ:
            # Content-Length bounds the stream (no Content-Length: werkzeug gives an empty one)
            return request.get_data(cache=False)
        stream = request.environ["wsgi.input"]
        data = bytearray()
        while len(data) <= most:
            part = stream.read(most + 1 - len(data))
            if not part:
                break
            data += part
    except HTTPException:
        raise
    except Exception as exc:  # the server's stream: a malformed chunked body, or the client gone
        chunked = "chunked" in request.headers.get("Transfer-Encoding", "").lower()
        what = "its chunked encoding is malformed" if chunked else "the connection failed"
        detail = f"the body could not be read: {what} ({type(exc).__name__}: {str(exc)[:200]})"
        where = _problem("", detail, "body_unreadable", "a complete body: Content-Length, or well-formed chunks")
        raise ApiError("invalid-json", detail, [where], headers={"Connection": "close"}) from None
    if len(data) > most:
        raise RequestEntityTooLarge()
    return bytes(data)


def json_body(describe: Describe | None = allowed) -> dict[str, Any]:
    """The request's body as a JSON object; :class:`ApiError` (415, 413, 400, 422) otherwise.

    Strict JSON (:func:`model.scenario.json_input.loads_strict`): nesting deeper than ``max_json_depth`` is a 422
    limit problem naming the path where it went past; a repeated key, ``NaN`` or ``Infinity`` a 400 naming
    its path; an integer too long to read a 422 naming the field (``describe(loc)``: what it allows).
    """
    mimetype = request.mimetype
    if mimetype != JSON and not (mimetype.startswith("application/") and mimetype.endswith("+json")):
        got = request.content_type or "no Content-Type"
        detail = f"got {got}; send the body as Content-Type: application/json"
        raise ApiError("unsupported-media-type", detail, [_problem("Content-Type", detail, "media_type", MEDIA)])
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        detail = f"got charset={charset}; send the body as UTF-8"
        raise ApiError("unsupported-media-type", detail, [_problem("Content-Type", detail, "media_type", MEDIA)])
    data = _body_bytes()
    if not data.strip():
        raise _bad_json("the body is empty; send a JSON object ({} for every default)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad_json(f"the body is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        doc = loads_strict(text, describe=describe)
    except json.JSONDecodeError as exc:
        raise _bad_json(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except JsonInputError as exc:
        if exc.limit is not None:
            raise invalid(exc.problems, exc.limit) from None
        if exc.not_json:
            lines = [p.text for p in exc.problems]
            detail = "not strict JSON: " + (f"{len(lines)} problems: " if len(lines) > 1 else "") + "; ".join(lines)
            raise ApiError("invalid-json", detail, exc.problems) from None
        raise invalid(exc.problems) from None
    except (ValueError, RecursionError) as exc:  # pragma: no cover - loads_strict raises the two above
        raise _bad_json(f"invalid JSON: {exc}") from None
    if not isinstance(doc, dict):
        kind = "an array" if isinstance(doc, list) else "null" if doc is None else type(doc).__name__
        raise invalid(
            [Problem(path="", message=f"the body must be a JSON object, not {kind}", type="model_type", loc=())]
        )
    return doc


def _sweep_allowed(loc: tuple[str | int, ...]) -> str | None:
    """What the field at ``loc`` of a sweep request allows, in words, where it is a scenario field."""
    return allowed(loc[1:]) if loc[:1] == ("scenario",) else None


def output_format(allowed: Sequence[str] = ("json", "csv")) -> str:
    """``json`` or ``csv``: the ``format`` parameter, else the Accept header (JSON unless CSV is preferred)."""
    given = request.args.get("format")
    if given is not None:
        if given not in allowed:
            raise invalid(
                [
                    Problem(
                        path="format",
                        message="unknown output format",
                        allowed=" or ".join(repr(a) for a in allowed),
                        value=given,
                        type="literal_error",
                        loc=("format",),
                        got=json.dumps(given),
                    )
                ]
            )
        return given
    if "csv" in allowed:
        best = request.accept_mimetypes.best_match([JSON, CSV], default=JSON)
        return "csv" if best == CSV else "json"
    return "json"


def bool_option(name: str) -> bool:
    """A ``true``/``false`` query parameter (default false)."""
    given = request.args.get(name)
    if given is None or given == "false":
        return False
    if given == "true":
        return True
    raise invalid(
        [
            Problem(
                path=name,
                message="Input should be a valid boolean",
                allowed="true or false",
                value=given,
                type="bool_parsing",
                loc=(name,),
                got=json.dumps(given),
            )
        ]
    )


def preset_base() -> dict[str, Any] | None:
    """The document of the ``preset`` parameter's preset, or ``None`` if not given."""
    name = request.args.get("preset")
    if name is None:
        return None
    if name not in PRESETS:
        p = unknown(name, PRESETS)
        raise invalid(
            [
                Problem(
                    path="preset",
                    message=f"unknown preset {name!r}",
                    allowed=p.allowed,
                    value=name,
                    type="literal_error",
                    loc=("preset",),
                    suggestion=p.suggestion,
                )
            ]
        )
    return copy.deepcopy(PRESETS[name].document)


def scenario_input(options: Iterable[str]) -> dict[str, Any]:
    """The scenario document of the request: query parameters (GET) or JSON body (POST), on the preset if given
    (:func:`model.scenario.overlay.overlay`: the rules the calculator and the command line use too)."""
    opts = tuple(options)
    _check_query_size()
    if request.method == "POST":
        found = only_options(request.args, opts)
        if found:
            raise invalid(found)
        doc = json_body()
    else:
        doc, found = scenario_document(request.args, opts)
        if found:
            raise invalid(found)
    base = preset_base() if "preset" in opts else None
    return overlay(base, doc)


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


def validate(doc: dict[str, Any]) -> Scenario:
    """The scenario, validated strictly (JSON types: ``"70"`` is not a number); 422 naming each problem."""
    try:
        return validate_scenario(doc)  # the command line's validation too
    except ValidationError as exc:
        raise invalid(problems(exc)) from None


# --- answering ---------------------------------------------------------------------------------------


def _cache() -> ResponseCache:
    cache: ResponseCache = current_app.extensions["api_cache"]
    return cache


def _encode(doc: Any) -> bytes:
    return json.dumps(doc, allow_nan=False, separators=(",", ":")).encode()


def _csv(rows: list[list[Any]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue().encode()


def cached(key: Sequence[Any], make: Callable[[], Entry]) -> Response:
    """The answer for ``key`` from the cache, or made by ``make`` and kept."""
    cache = _cache()
    text = json.dumps(key, separators=(",", ":"))
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
    if limit is not None:
        where = Problem(path="", message=limit.message, type="limit_exceeded", loc=())
        raise invalid([where], limit)

    def make() -> Entry:
        if packets:  # the answer lists every packet: its own, smaller step budget (model.scenario.limits)
            with limits.request_budget(packets=True):
                out = predict(scenario, packets=True)
        else:
            out = predict(scenario)
        if fmt == "csv":
            return Entry(_csv(csv_rows([out], batch=False)), CSV)
        return Entry(_encode(out), JSON)

    return cached(["predict", fmt, packets, scenario.model_dump(mode="json")], make)


@bp.post("/v1/sweep")
def sweep_endpoint() -> Response:
    """A field stepped over values; one series per protocol."""
    _check_query_size()
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
    _check_query_size()
    found = only_options(request.args, ())
    if found:
        raise invalid(found)
    return Response(_encode({"presets": [_preset_summary(name) for name in PRESETS]}), mimetype=JSON)


@bp.get("/v1/presets/<name>")
def preset_endpoint(name: str) -> Response:
    """One preset with its scenario document and the scenario as computed."""
    _check_query_size()
    found = only_options(request.args, ())
    if found:
        raise invalid(found)
    if name not in PRESETS:
        close = difflib.get_close_matches(name, PRESETS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        detail = f"no preset {name!r}; presets: {', '.join(PRESETS)}{hint}"
        where = _problem("name", f"unknown preset {name!r}", "not_found", ", ".join(PRESETS), name)
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
        p = _problem("protocol", f"unknown protocol {protocol!r}", "not_found", ", ".join(ALL_PROTOCOLS), protocol)
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
        body = {
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
    from app.openapi import document

    return Response(_encode(document()), mimetype=JSON)


@bp.app_template_filter("code")
def code_spans(text: str) -> Markup:
    """Text with its `backquoted` parts as <code> (everything else escaped), for the docs page."""
    parts = str(escape(text)).split("`")
    return Markup("".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts)))


@bp.get("/docs")
def docs_endpoint() -> str:
    """The API's documentation page, rendered from the OpenAPI document (no scripts, nothing from elsewhere)."""
    from app.openapi import docs_context, document

    config = current_app.config
    context = docs_context(
        document(), max_body=int(config["API_MAX_BODY_BYTES"]), max_query=int(config["API_MAX_QUERY_BYTES"])
    )
    return render_template("api_docs.html", **context)
