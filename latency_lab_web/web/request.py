"""Reading a request into a scenario document, shared by the blueprints that take a scenario (the API, the
teaching panel): the query string (:mod:`latency_lab_web.web.query`) or a strict JSON body, on a preset if one is given
(:func:`latency_lab.scenario.overlay.overlay`), validated strictly; every problem an :class:`latency_lab_web.web.problems.ApiError`.

A body is read as the command line reads a file: at most ``API_MAX_BODY_BYTES`` (with Content-Length
or chunked), then strict JSON (:func:`latency_lab.scenario.json_input.loads_strict`: nesting checked on the text before
anything parses, merges or validates it; no repeated keys, no ``NaN``), then strict types
(:func:`latency_lab.scenario.errors.validate_scenario`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from typing import Any

from flask import current_app, request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from latency_lab import PRESETS, Scenario
from latency_lab.scenario.errors import Problem, allowed, problems, validate_scenario
from latency_lab.scenario.json_input import Describe, JsonInputError, loads_strict
from latency_lab.scenario.limits import Limit
from latency_lab.scenario.overlay import overlay
from latency_lab_web.web.problems import ApiError, invalid
from latency_lab_web.web.query import only_options, scenario_document, unknown

JSON = "application/json"
CSV = "text/csv"
MEDIA = "application/json (UTF-8)"


def problem_at(path: str, message: str, kind: str, allowed: str | None = None, value: Any = None) -> Problem:
    return Problem(path=path, message=message, allowed=allowed, value=value, type=kind, loc=(path,) if path else ())


def _bad_json(detail: str) -> ApiError:
    return ApiError("invalid-json", detail, [problem_at("", detail, "json_invalid", "a JSON object")])


def check_query_size() -> None:
    limit = int(current_app.config["API_MAX_QUERY_BYTES"])
    size = len(request.query_string)
    if size > limit:
        detail = (
            f"the query string is {size:,} bytes, at most {limit:,} allowed (max_query_bytes); "
            "send the scenario as a JSON body with POST"
        )
        where = problem_at("", detail, "limit_exceeded", f"a query string of at most {limit:,} bytes")
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
        where = problem_at("", detail, "body_unreadable", "a complete body: Content-Length, or well-formed chunks")
        raise ApiError("invalid-json", detail, [where], headers={"Connection": "close"}) from None
    if len(data) > most:
        raise RequestEntityTooLarge()
    return bytes(data)


def json_media_type() -> None:
    """:class:`ApiError` (415) unless the body is sent as JSON (``application/json`` or ``+json``) in UTF-8."""
    mimetype = request.mimetype
    if mimetype != JSON and not (mimetype.startswith("application/") and mimetype.endswith("+json")):
        got = request.content_type or "no Content-Type"
        detail = f"got {got}; send the body as Content-Type: application/json"
        raise ApiError("unsupported-media-type", detail, [problem_at("Content-Type", detail, "media_type", MEDIA)])
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        detail = f"got charset={charset}; send the body as UTF-8"
        raise ApiError("unsupported-media-type", detail, [problem_at("Content-Type", detail, "media_type", MEDIA)])


def json_body(describe: Describe | None = allowed) -> dict[str, Any]:
    """The request's body as a JSON object; :class:`ApiError` (415, 413, 400, 422) otherwise.

    Strict JSON (:func:`latency_lab.scenario.json_input.loads_strict`): nesting deeper than ``max_json_depth`` is a 422
    limit problem naming the path where it went past; a repeated key, ``NaN`` or ``Infinity`` a 400 naming
    its path; an integer too long to read a 422 naming the field (``describe(loc)``: what it allows).
    """
    json_media_type()
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
        accept = request.environ.get("HTTP_ACCEPT", "").strip()
        if accept in ("", "*/*"):  # no preference (what scripts send): JSON, without parsing the header (issue 26)
            return "json"
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
    (:func:`latency_lab.scenario.overlay.overlay`: the rules the calculator and the command line use too)."""
    opts = tuple(options)
    check_query_size()
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


def validate(doc: dict[str, Any]) -> Scenario:
    """The scenario, validated strictly (JSON types: ``"70"`` is not a number); 422 naming each problem."""
    try:
        return validate_scenario(doc)  # the command line's validation too
    except ValidationError as exc:
        raise invalid(problems(exc)) from None
