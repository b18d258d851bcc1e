"""Errors of the JSON API as RFC 9457 problem details (``application/problem+json``).

Every error under ``/api/`` is answered with one document: ``type`` (a URI reference to the
kind's section of the API documentation), ``title``, ``status``, ``detail``, ``instance`` (the
request's path), ``errors`` (each problem with its ``path``, message and ``allowed`` range, from
:mod:`latency_lab.scenario.errors`) and, past a documented limit, ``limit`` (its name, maximum and what the request
asked). Werkzeug's HTTP errors (404, 405, 413, ...) get the same shape, and so would an internal
error (500), which bad input never causes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from latency_lab.scenario.errors import Problem
from latency_lab.scenario.limits import MAX_HAR_BYTES, Limit, WorkLimitExceeded

PROBLEM_JSON = "application/problem+json"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of problem: its status and title; its type URI is the docs page's section ``#problem-<name>``."""

    name: str
    status: int
    title: str
    description: str


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "invalid-json",
            400,
            "The body is not valid JSON",
            "The body could not be read as strict UTF-8 JSON: a syntax error, a key given twice in one object, NaN "
            "or Infinity (not JSON), or a body whose chunked encoding is malformed; errors[] names the path of each.",
        ),
        Kind(
            "invalid-request",
            422,
            "The request is not valid",
            "A field is missing, unknown, of the wrong type or out of range; errors[] names each one by its path "
            "and says what it allows.",
        ),
        Kind(
            "limit-exceeded",
            422,
            "The request is over a limit",
            "The request would take the model too long, or its JSON nests deeper than max_json_depth; limit names "
            "the documented limit, its maximum and what the request asked, errors[] the path where it went past.",
        ),
        Kind("not-found", 404, "Not found", "No such endpoint, preset or protocol."),
        Kind("method-not-allowed", 405, "Method not allowed", "The endpoint does not take this method; see Allow."),
        Kind("not-acceptable", 406, "Not acceptable", "The response can only be JSON or CSV."),
        Kind("body-too-large", 413, "The body is too large", "The request body is over the documented size."),
        Kind("query-too-long", 414, "The query string is too long", "Use POST with a JSON body for large scenarios."),
        Kind(
            "unsupported-media-type",
            415,
            "Unsupported media type",
            "A body must be sent as Content-Type: application/json (UTF-8).",
        ),
        Kind("internal-error", 500, "Internal error", "A bug: please report it with the request."),
        # answered by the HTTP server (gunicorn, latency_lab_web/serving.py) before the app reads the request
        Kind(
            "bad-request",
            400,
            "Bad request",
            "The request is not valid HTTP/1.1 (its request line, method, version or a header); answered by the "
            "server before the app reads it.",
        ),
        Kind(
            "request-line-too-long",
            414,
            "The request line is too long",
            "The method, path and query are over the server's limit_request_line (a query over max_query_bytes "
            "but under that limit gets query-too-long); use POST with a JSON body.",
        ),
        Kind(
            "header-fields-too-large",
            431,
            "Request header fields too large",
            "More header fields than the server takes, or one of them too long; answered by the server.",
        ),
    )
}

#: The kinds only the HTTP server answers (latency_lab_web/serving.py), never the app's error handlers.
SERVER_KINDS = ("bad-request", "request-line-too-long", "header-fields-too-large")

_STATUS_KIND = {
    k.status: k.name for k in KINDS.values() if k.name not in ("invalid-request", "limit-exceeded", *SERVER_KINDS)
}


def type_uri(kind: str) -> str:
    """The problem type's URI reference: its section of the API documentation page."""
    return f"/api/docs#problem-{kind}"


class ApiError(Exception):
    """An error answer: a problem kind, a detail sentence and the problems it lists."""

    def __init__(
        self,
        kind: str,
        detail: str,
        problems: Sequence[Problem] = (),
        limit: Limit | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.kind = KINDS[kind]
        self.detail = detail
        self.problems = list(problems)
        self.limit = limit
        self.headers = headers or {}


#: Most problems a document lists (``errors`` and the detail sentence): past it the detail says how many were left
#: out. A 4 KB query of 685 unknown parameters, each problem naming the 75 allowed ones, made a 3.3 MB document.
MAX_PROBLEMS_LISTED = 10


def invalid(problems: Sequence[Problem], limit: Limit | None = None) -> ApiError:
    """A 422 for these problems: ``limit-exceeded`` if a limit is given, else ``invalid-request``; the first
    :data:`MAX_PROBLEMS_LISTED` of them listed, the detail saying how many there are."""
    shown = list(problems[:MAX_PROBLEMS_LISTED])
    lines = [p.text for p in shown]
    count = f"{len(problems)} problems: " if len(problems) > 1 else ""
    if len(problems) > len(shown):
        count = f"{len(problems)} problems, the first {len(shown)} listed: "
    return ApiError("limit-exceeded" if limit else "invalid-request", count + "; ".join(lines), shown, limit)


def problem_item(p: Problem) -> dict[str, Any]:
    """A :class:`latency_lab.scenario.errors.Problem` as an item of ``errors``."""
    value = p.value
    if isinstance(value, str) and len(value) > 200:
        value = value[:200] + "..."
    elif isinstance(value, dict | list) and len(json.dumps(value)) > 1000:
        value = None
    return {
        "path": p.path,
        "message": p.message,
        "allowed": p.allowed,
        "value": value,
        "type": p.type,
        "suggestion": p.suggestion,
        "text": p.text,
    }


def problem_response(error: ApiError) -> Response:
    """The problem+json answer of ``error``."""
    body: dict[str, Any] = {
        "type": type_uri(error.kind.name),
        "title": error.kind.title,
        "status": error.kind.status,
        "detail": error.detail,
        "instance": request.path,
        "errors": [problem_item(p) for p in error.problems[:MAX_PROBLEMS_LISTED]],
    }
    if error.limit is not None:
        body["limit"] = {"name": error.limit.name, "maximum": error.limit.maximum, "actual": error.limit.actual}
    response = Response(
        json.dumps(body, allow_nan=False, separators=(",", ":")), status=error.kind.status, mimetype=PROBLEM_JSON
    )
    response.headers.update(error.headers)
    response.headers["Cache-Control"] = "no-store"
    return response


def _http_error(exc: HTTPException) -> Response | HTTPException:
    if not request.path.startswith("/api/"):
        return exc
    status = exc.code or 500
    kind = _STATUS_KIND.get(status)
    headers: dict[str, str] = {}
    if kind is None:  # another status werkzeug raised: keep it, with the generic problem type
        body = {"type": "about:blank", "title": exc.name, "status": status, "detail": exc.description or exc.name}
        body.update(instance=request.path, errors=[])
        return Response(json.dumps(body, separators=(",", ":")), status=status, mimetype=PROBLEM_JSON)
    detail = exc.description or KINDS[kind].description
    if status == 405:
        allow = exc.get_headers()
        headers = {k: v for k, v in allow if k == "Allow"}
        detail = f"{request.method} is not allowed here; allowed: {headers.get('Allow', '')}"
    elif status == 404:
        detail = f"no endpoint {request.path}; see /api/docs"
    elif status == 413:
        from latency_lab_web.web.har import HAR_PATHS  # a HAR's own limit (web.har imports this module)

        most, name, what = int(current_app.config["API_MAX_BODY_BYTES"]), "max_body_bytes", "send a smaller scenario"
        if request.path in HAR_PATHS:
            most, name, what = MAX_HAR_BYTES, "max_har_bytes", "save the HAR without contents"
        detail = f"the body is over {most:,} bytes ({name}); {what}"
        where = Problem(path="", message=detail, allowed=f"a body of at most {most:,} bytes", type="limit_exceeded")
        limit = Limit(name, most, request.content_length or most + 1, detail)
        return problem_response(ApiError(kind, detail, [where], limit, headers={"Connection": "close"}))
    return problem_response(ApiError(kind, detail, headers=headers))


def _internal_error(exc: Exception) -> Response:
    if isinstance(exc, HTTPException):  # pragma: no cover - routed to _http_error
        return _http_error(exc)  # type: ignore[return-value]
    if not request.path.startswith("/api/"):
        raise exc  # the pages keep Flask's own handling (and tests see the exception)
    log.exception("internal error on %s %s", request.method, request.path)
    return problem_response(ApiError("internal-error", "an internal error occurred; it is a bug, please report it"))


def _work_limit(exc: WorkLimitExceeded) -> Response:
    """The engine stopped at the request's step budget: a limit problem like the estimate's (422)."""
    if not request.path.startswith("/api/"):
        raise exc  # the pages say it beside the form themselves
    where = Problem(path="", message=exc.limit.message, type="limit_exceeded", loc=())
    return problem_response(invalid([where], exc.limit))


def register(app: Flask) -> None:
    """Answer the API's errors as problem details (the HTML pages keep Flask's own)."""
    app.register_error_handler(ApiError, problem_response)
    app.register_error_handler(WorkLimitExceeded, _work_limit)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _internal_error)
